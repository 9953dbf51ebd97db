import type { Command } from 'commander';
import type { OverrideRecord, ProfileStatusReport } from '../../core/api';
import { formatDuration } from '../../core/operations/duration';
import type { TmkitClient } from '../../client';
import { CliError, EXIT_USAGE } from '../errors';
import { durationMs, interruptSignal, operationsFailure, pause, whoOption } from '../util/operations';
import { clientFor, serverOptions, type ServerOptions } from '../util/server';

interface ShiftOptions extends ServerOptions {
  weights: string;
  every: string;
  abortOnDegraded?: boolean;
  hold: string;
  who: string;
  reason?: string;
}

/** How often the health is looked at while a step waits. */
const WATCH_MS = 1_000;

/**
 * `tmkit shift PROFILE ENDPOINT --weights 10,25,50,100 --every 2m [--abort-on-degraded] [--hold 1h]`
 * (docs/operations.md): a staged weight shift of weight overrides. Before each step (and while it waits) it
 * looks at the profile's health; with --abort-on-degraded an endpoint turning Degraded rolls every step
 * back (the endpoint's weight is what it was before the shift) and exits 1 saying what it saw. The last
 * weight stays an override for --hold, and the command prints the change that makes it permanent.
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
        .requiredOption('--weights <list>', 'the weights to step through, e.g. 10,25,50,100 (each 1–1000)')
        .requiredOption('--every <duration>', 'how long each step holds before the next (e.g. 2m)')
        .option('--abort-on-degraded', 'roll every step back and exit 1 when an endpoint of the profile turns Degraded')
        .option('--hold <duration>', 'how long the last weight stays in force as an override', '1h')
        .option('--reason <text>', 'why, for the audit log', 'shift'),
    ),
  ).action(async (profile: string, endpoint: string, opts: ShiftOptions) => {
    const weights = opts.weights
      .split(',')
      .map((w) => w.trim())
      .filter((w) => w !== '')
      .map(Number);
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
  const [entry, before] = await Promise.all([client.getProfile(profileName), client.listOverrides()]).catch((err: unknown) => {
    throw operationsFailure(err);
  });
  const p = entry.profile;
  const e =
    p.endpoints.find((x) => x.name === endpointName) ?? p.endpoints.find((x) => x.name.toLowerCase() === endpointName.toLowerCase());
  if (!e)
    throw new CliError(`profile ${p.name} has no endpoint ${endpointName} (it has ${p.endpoints.map((x) => x.name).join(', ') || 'none'})`);
  if (p.trafficRoutingMethod !== 'Weighted')
    throw new CliError(`profile ${p.name} uses ${p.trafficRoutingMethod} routing, which does not use weights: there is nothing to shift`);
  // A weight override already in force is put back by a roll-back (with what is left of its time).
  const previous = before.overrides.find((o) => o.kind === 'weight' && o.profile === p.name && o.endpoint === e.name);
  const interrupt = interruptSignal();
  let current: OverrideRecord | undefined;
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
        });
        done.push(`its weight override ${previous.weight} is back`);
      } else done.push(`its weight is ${e.weight} again (the configured one)`);
    } catch (err) {
      done.push(
        `the roll-back failed: ${(err as Error).message}${current ? `; override ${current.id} ends by itself at ${current.expiresAt}` : ''}`,
      );
    }
    throw new CliError(`shift of ${p.name}/${e.name} rolled back: ${why}; ${done.join('; ')}`);
  };
  try {
    for (let i = 0; i < weights.length; i++) {
      const w = weights[i]!;
      const last = i === weights.length - 1;
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
          })
        ).override;
      } catch (err) {
        if (i > 0) await rollBack(`step ${i + 1}/${weights.length} (weight ${w}) was refused: ${operationsFailure(err).message}`);
        throw operationsFailure(err);
      }
      out(
        `Step ${i + 1}/${weights.length}: ${p.name}/${e.name} weight ${w} (override ${current.id})${last ? '' : `, next in ${formatDuration(everyMs)}`}.`,
      );
      if (last) break;
      const until = Date.now() + everyMs;
      while (Date.now() < until) {
        await pause(Math.min(WATCH_MS, until - Date.now()), interrupt.signal);
        if (interrupt.signal.aborted) await rollBack(`interrupted (Ctrl-C) during step ${i + 1}/${weights.length}`);
        if (!opts.abortOnDegraded) continue;
        const now = await client.status(p.name).catch(() => undefined);
        const turned = now ? degraded(now) : [];
        if (turned.length > 0) await rollBack(`during step ${i + 1}/${weights.length} (weight ${w}) ${turned.join(', ')}`);
      }
    }
  } finally {
    interrupt.release();
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
