import type { Command } from 'commander';
import type { OverrideRecord, ProfileStatusReport, ShiftLease } from '../../core/api';
import { formatDuration } from '../../core/operations/duration';
import { TmkitApiError, type TmkitClient } from '../../client';
import { CliError, EXIT_USAGE } from '../errors';
import { durationMs, interruptSignal, operationsFailure, pause, whoOption } from '../util/operations';
import { clientFor, serverOptions, type ServerOptions } from '../util/server';

interface ShiftOptions extends ServerOptions {
  weights?: string;
  every?: string;
  cancel?: boolean;
  abortOnDegraded?: boolean;
  hold: string;
  who: string;
  reason?: string;
}

/** How often the health is looked at while a step waits. */
const WATCH_MS = 1_000;
/** How often the shift renews its hold of the endpoint (the server lets it lapse 15 s after the last renewal). */
const RENEW_MS = 3_000;

/**
 * `tmkit shift PROFILE ENDPOINT --weights 10,25,50,100 --every 2m [--abort-on-degraded] [--hold 1h]`
 * (docs/operations.md): a staged weight shift of weight overrides. Before each step (and while it waits) it
 * looks at the profile's health; with --abort-on-degraded an endpoint turning Degraded rolls every step
 * back (the endpoint's weight is what it was before the shift) and exits 1 saying what it saw. The last
 * weight stays an override for --hold, and the command prints the change that makes it permanent.
 *
 * One shift per endpoint at a time: the shift takes the server's hold of the endpoint first (`/v1/shifts`,
 * kept in the store, so it holds across processes, machines and the nodes of a cluster) and a second shift is
 * refused naming the holder. The shift renews its hold every few seconds; a shift whose process died stops
 * renewing and its hold lapses by itself. Each step's override names the shift, and the server refuses it
 * unless that shift holds the endpoint. `--cancel` (from anywhere) marks the running shift cancelled: it rolls
 * back when it next renews, and ends.
 */
export function registerShift(program: Command): void {
  whoOption(
    serverOptions(
      program
        .command('shift')
        .description(
          'shift traffic in steps: weight overrides one after the other, rolled back when an endpoint turns Degraded (--abort-on-degraded)',
        )
        .argument('<profile>', 'a Weighted profile')
        .argument('<endpoint>', 'the endpoint whose weight moves')
        .option('--weights <list>', 'the weights to step through, e.g. 10,25,50,100 (each 1–1000; required unless --cancel)')
        .option('--every <duration>', 'how long each step holds before the next (e.g. 2m; required unless --cancel)')
        .option('--abort-on-degraded', 'roll every step back and exit 1 when an endpoint of the profile turns Degraded')
        .option('--hold <duration>', 'how long the last weight stays in force as an override', '1h')
        .option(
          '--cancel',
          'stop the shift running on this endpoint (from any machine): it rolls its steps back and exits 1; one shift per endpoint runs at a time',
        )
        .option('--reason <text>', 'why, for the audit log (default: shift)'),
    ),
  ).action(async (profile: string, endpoint: string, opts: ShiftOptions) => {
    if (opts.cancel) {
      if (opts.weights !== undefined || opts.every !== undefined)
        throw new CliError('--cancel stops the running shift: give it without --weights and --every', EXIT_USAGE);
      const client = clientFor(opts);
      try {
        await cancel(client, profile, endpoint, opts);
      } finally {
        await client.close();
      }
      return;
    }
    if (opts.weights === undefined || opts.every === undefined)
      throw new CliError(
        `required option '${opts.weights === undefined ? '--weights <list>' : '--every <duration>'}' not specified`,
        EXIT_USAGE,
      );
    // Every item a weight: an empty one (`10,,20`, `10,`) is a typo, not a step to skip.
    const items = opts.weights.split(',').map((w) => w.trim());
    const weights = items.map((w) => (/^\d+$/.test(w) ? Number(w) : Number.NaN));
    if (weights.length === 0 || weights.some((w) => !Number.isInteger(w) || w < 1 || w > 1000))
      throw new CliError(`--weights ${opts.weights}: expected integers 1–1000 separated by commas, e.g. 10,25,50,100`, EXIT_USAGE);
    const everyMs = durationMs('--every', opts.every);
    const holdMs = durationMs('--hold', opts.hold);
    const client = clientFor(opts);
    try {
      await shift(client, profile, endpoint, weights, everyMs, holdMs, opts);
    } finally {
      await client.close();
    }
  });
}

/** `--cancel`: marks the shift running on the endpoint cancelled (it rolls back when it next renews its hold). */
async function cancel(client: TmkitClient, profile: string, endpoint: string, opts: ShiftOptions): Promise<void> {
  const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
  try {
    const { shifts } = await client.listShifts();
    const held = shifts.find((l) => same(l.profile, profile) && same(l.endpoint, endpoint));
    if (!held) throw new CliError(`no shift of ${profile}/${endpoint} is running`);
    await client.cancelShift(held.id, { who: opts.who, ...(opts.reason !== undefined ? { reason: opts.reason } : {}) });
    process.stdout.write(
      `Cancelled the shift of ${held.profile}/${held.endpoint} by ${held.who} (since ${held.startedAt}, weights ${held.weights.join(',')}); it rolls back.\n`,
    );
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw operationsFailure(err);
  }
}

/** The endpoints of the profile that are (treated as) Degraded now, as `name Status (reason)`. */
function degraded(s: ProfileStatusReport): string[] {
  return s.endpoints
    .filter((e) => e.endpointMonitorStatus === 'Degraded' || e.endpointMonitorStatus === 'AwaitingFailback')
    .map((e) => `${e.name} ${e.endpointMonitorStatus} (${e.reason})`);
}

async function shift(
  client: TmkitClient,
  profileName: string,
  endpointName: string,
  weights: number[],
  everyMs: number,
  holdMs: number,
  opts: ShiftOptions,
): Promise<void> {
  const out = (s: string): boolean => process.stdout.write(`${s}\n`);
  const entry = await client.getProfile(profileName).catch((err: unknown) => {
    throw operationsFailure(err);
  });
  const p = entry.profile;
  const e =
    p.endpoints.find((x) => x.name === endpointName) ?? p.endpoints.find((x) => x.name.toLowerCase() === endpointName.toLowerCase());
  if (!e)
    throw new CliError(`profile ${p.name} has no endpoint ${endpointName} (it has ${p.endpoints.map((x) => x.name).join(', ') || 'none'})`);
  if (p.trafficRoutingMethod !== 'Weighted')
    throw new CliError(`profile ${p.name} uses ${p.trafficRoutingMethod} routing, which does not use weights: there is nothing to shift`);
  // The endpoint's hold first: a second shift is refused here, before it writes anything.
  const lease: ShiftLease = (
    await client
      .startShift({
        profile: p.name,
        endpoint: e.name,
        weights,
        everySeconds: Math.ceil(everyMs / 1000),
        who: opts.who,
        ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
      })
      .catch((err: unknown) => {
        throw operationsFailure(err);
      })
  ).shift;
  // A weight override already in force is put back by a roll-back (with what is left of its time).
  const previous = (
    await client.listOverrides().catch((err: unknown) => {
      throw operationsFailure(err);
    })
  ).overrides.find((o) => o.kind === 'weight' && o.profile === p.name && o.endpoint === e.name);
  const interrupt = interruptSignal();
  let current: OverrideRecord | undefined;
  let ended = false;
  let completed = false;
  const end = async (reason: string): Promise<void> => {
    if (ended) return;
    ended = true;
    await client.endShift(lease.id, { who: opts.who, reason }).catch(() => undefined);
  };
  let renewedAt = Date.now();
  /** Renews the hold (saying the step in force): the reason to stop when it was cancelled or lost, else undefined. */
  const renew = async (step?: number, weight?: number): Promise<string | undefined> => {
    try {
      await client.renewShift(lease.id, step !== undefined ? { step, weight } : {});
      renewedAt = Date.now();
      return undefined;
    } catch (err) {
      if (err instanceof TmkitApiError && (err.code === 'SHIFT_CANCELLED' || err.code === 'SHIFT_LOST'))
        return err.code === 'SHIFT_LOST'
          ? `it lost its hold of the endpoint (${err.errors[0]?.message ?? err.message})`
          : (err.errors[0]?.message ?? err.message);
      // The server did not answer: go on while the hold cannot have lapsed; the server refuses a step that comes too late.
      return undefined;
    }
  };
  const rollBack = async (why: string): Promise<never> => {
    const done: string[] = [];
    try {
      if (current) await client.clearOverride(current.id, { who: opts.who, reason: `shift rolled back: ${why}` });
      const left = previous ? Date.parse(previous.expiresAt) - Date.now() : 0;
      if (previous && left >= 1000) {
        await client.createOverride({
          kind: 'weight',
          profile: p.name,
          endpoint: e.name,
          weight: previous.weight!,
          for: Math.floor(left / 1000),
          who: opts.who,
          reason: previous.reason,
          shift: lease.id,
        });
        done.push(`its weight override ${previous.weight} is back`);
      } else done.push(`its weight is ${e.weight} again (the configured one)`);
    } catch (err) {
      done.push(
        `the roll-back failed: ${(err as Error).message}${current ? `; override ${current.id} ends by itself at ${current.expiresAt}` : ''}`,
      );
    }
    await end(`rolled back: ${why}`);
    throw new CliError(`shift of ${p.name}/${e.name} rolled back: ${why}; ${done.join('; ')}`);
  };
  try {
    for (let i = 0; i < weights.length; i++) {
      const w = weights[i]!;
      const last = i === weights.length - 1;
      if (i > 0) {
        const stop = await renew();
        if (stop !== undefined) await rollBack(`${stop} before step ${i + 1}/${weights.length}`);
      }
      const health = await client.status(p.name).catch((err: unknown) => {
        throw operationsFailure(err);
      });
      const bad = degraded(health);
      if (bad.length > 0) {
        if (opts.abortOnDegraded) await rollBack(`before step ${i + 1}/${weights.length} (weight ${w}) ${bad.join(', ')}`);
        process.stderr.write(`tmkit: warning: ${p.name} has ${bad.join(', ')}; going on (--abort-on-degraded stops here)\n`);
      }
      try {
        // Each step's override outlives its wait a little; the last one is held for --hold.
        current = (
          await client.createOverride({
            kind: 'weight',
            profile: p.name,
            endpoint: e.name,
            weight: w,
            for: Math.ceil((last ? holdMs : everyMs + 120_000) / 1000),
            who: opts.who,
            reason: `${opts.reason ?? 'shift'} step ${i + 1}/${weights.length}`,
            shift: lease.id,
          })
        ).override;
      } catch (err) {
        if (i > 0) await rollBack(`step ${i + 1}/${weights.length} (weight ${w}) was refused: ${operationsFailure(err).message}`);
        throw operationsFailure(err);
      }
      // The hold says where the shift is (a refused shift is told), before the step is announced.
      const stepStop = last ? undefined : await renew(i + 1, w);
      out(
        `Step ${i + 1}/${weights.length}: ${p.name}/${e.name} weight ${w} (override ${current.id})${last ? '' : `, next in ${formatDuration(everyMs)}`}.`,
      );
      if (last) break;
      if (stepStop !== undefined) await rollBack(`${stepStop} during step ${i + 1}/${weights.length}`);
      const until = Date.now() + everyMs;
      while (Date.now() < until) {
        await pause(Math.min(WATCH_MS, until - Date.now()), interrupt.signal);
        if (interrupt.signal.aborted) await rollBack(`interrupted (Ctrl-C) during step ${i + 1}/${weights.length}`);
        if (Date.now() - renewedAt >= RENEW_MS) {
          const stop = await renew(i + 1, w);
          if (stop !== undefined) await rollBack(`${stop} during step ${i + 1}/${weights.length}`);
        }
        if (!opts.abortOnDegraded) continue;
        const now = await client.status(p.name).catch(() => undefined);
        const turned = now ? degraded(now) : [];
        if (turned.length > 0) await rollBack(`during step ${i + 1}/${weights.length} (weight ${w}) ${turned.join(', ')}`);
      }
    }
    completed = true;
  } finally {
    interrupt.release();
    await end(completed ? 'done' : 'stopped');
  }
  const final = weights[weights.length - 1]!;
  out(
    `Shift complete: ${p.name}/${e.name} has weight ${final} (configured ${e.weight}) ` +
      `until ${current!.expiresAt} (${formatDuration(holdMs)}, override ${current!.id}).`,
  );
  out(
    `To make it permanent: in the document set "weight": ${final} on endpoint "${e.name}" of profile "${p.name}"; in ` +
      `HCL, weight = ${final} in its endpoint block (or tmkit_*_endpoint resource); then apply and clear the override.`,
  );
}
