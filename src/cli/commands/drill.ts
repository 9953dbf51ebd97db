import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import type { DrillMode, DrillNodeReport, DrillReport, OverrideRecord, ProbeFailureReport } from '../../core/api';
import { childProfileName } from '../../core/model/names';
import type { Profile } from '../../core/model/types';
import { formatDuration } from '../../core/operations/duration';
import { MAX_REASON } from '../../core/operations/overrides';
import { count } from '../../core/words';
import { detectionSeconds, failoverTimes, recoveryEstimate } from '../../core/plan/failover';
import type { TmkitClient } from '../../client';
import { CliError, EXIT_FAILED, EXIT_USAGE, setExitCode } from '../errors';
import { parseDnsAddress, queryDns, type DnsAnswer, type DnsServer } from '../util/dns-query';
import { durationMs, interruptSignal, operationsFailure, pause, printListing, whoOption } from '../util/operations';
import { clientFor, serverOptions, type ServerOptions } from '../util/server';

interface DrillOptions extends ServerOptions {
  for?: string;
  mode: string;
  json?: boolean;
  who: string;
  reason?: string;
  limit: string;
}

/** Consecutive answers without the endpoint that count as "out" where answers are sampled (Weighted, MultiValue). */
const SAMPLED_RUN = 30;
/** How long a node may take to switch or revert before the drill gives up on it (beyond the bound). */
const GIVE_UP_MS = 30_000;

/**
 * `tmkit drill PROFILE ENDPOINT --for DURATION [--mode override|detection]` (docs/operations.md#drills): a
 * failover drill. Takes the endpoint out, measures from that moment until every node's DNS stops naming it,
 * holds, puts it back, measures the way back, and reports both against a bound.
 *
 * - `override` (default): a `down` override. It acts at once, so this measures how fast DNS obeys (the
 *   override's reach), not how fast probing notices an outage. Bound: the profile's worst-case failover as
 *   `tmkit plan` prints it.
 * - `detection`: the server's prober fails the endpoint's probes (PUT …/probe-failure; nothing is sent to it),
 *   so the real path runs: interval, tolerated failures, verdict, DNS. Bound: the endpoint's profile's
 *   interval × (tolerated + 1) + timeout + TTL; the way back: the probes that find it healthy again + timeout + TTL.
 *
 * Either passes when switch + TTL and revert + TTL are within their bounds (what a client behind a resolver
 * waits at most) and every answer during the hold named another endpoint. Ctrl-C ends the hold early and still
 * reverts. Reports are kept (`tmkit drill list`).
 */
export function registerDrill(program: Command): void {
  whoOption(
    serverOptions(
      program
        .command('drill')
        .description(
          'a failover drill: take an endpoint out for a while (a down override, or with --mode detection by ' +
            "failing its health probes), measure how fast every node's DNS moves and comes back, report against " +
            'the bound (`tmkit drill list`: past drills)',
        )
        .argument('<profile>', 'profile name, or `list` for the drills kept')
        .argument('[endpoint]', 'the endpoint to take out (one DNS answers with now)')
        .option('--for <duration>', 'how long to hold it out (e.g. 30s, 5m)')
        .option(
          '--mode <mode>',
          'override: a down override, measures how fast DNS obeys it; detection: the prober fails the ' +
            "endpoint's probes, measures probe detection + DNS",
          'override',
        )
        .option('--reason <text>', 'why, for the audit log', 'drill')
        .option('--json', 'print the report as one JSON object')
        .option('--limit <n>', '`drill list`: how many', '20'),
    ),
  ).action(async (profile: string, endpoint: string | undefined, opts: DrillOptions, cmd: Command) => {
    if (profile === 'list' && endpoint === undefined) return list(opts);
    if (endpoint === undefined) throw new CliError('name the endpoint to drill: tmkit drill PROFILE ENDPOINT --for DURATION', EXIT_USAGE);
    if (opts.for === undefined) throw new CliError('--for DURATION is required: how long the drill holds the endpoint out', EXIT_USAGE);
    const holdMs = durationMs('--for', opts.for, 6 * 86_400_000);
    if (opts.mode !== 'override' && opts.mode !== 'detection')
      throw new CliError(`--mode ${opts.mode}: the modes are override (a down override) and detection (failed health probes)`, EXIT_USAGE);
    // Checked before anything is written: the server refuses such a reason only after the drill's record exists.
    if (opts.reason !== undefined && opts.reason.length > MAX_REASON)
      throw new CliError(`--reason is ${opts.reason.length} characters long: at most ${MAX_REASON}`, EXIT_USAGE);
    const client = clientFor(opts);
    try {
      const report = await drill(client, profile, endpoint, holdMs, opts);
      process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : renderDrill(report));
      if (!report.passed) setExitCode(cmd, EXIT_FAILED);
    } finally {
      await client.close();
    }
  });
}

async function list(opts: DrillOptions): Promise<void> {
  // `--limit 0` or `--limit abc` used to list 20 as if nothing was wrong.
  const limit = Number(opts.limit);
  if (!/^\d+$/.test(opts.limit) || limit < 1 || limit > 500)
    throw new CliError(`--limit ${opts.limit}: expected a whole number from 1 to 500`, EXIT_USAGE);
  await printListing(
    opts,
    (client) => client.drills(limit),
    (r) => r.drills,
    'No drills yet. Run one with `tmkit drill PROFILE ENDPOINT --for 30s`.\n',
    (d) =>
      `${d.id}  ${d.startedAt}  ${d.status.toUpperCase().padEnd(7)}  ${d.profile}/${d.endpoint}` +
      `${d.mode === 'detection' ? ' (detection)' : ''}  switch ${sec(d.switchSeconds)}` +
      `  revert ${sec(d.revertSeconds)}  bound ${d.boundSeconds === null ? 'none' : `${d.boundSeconds} s`}  by ${d.who}`,
  );
}

const sec = (s: number | undefined): string => (s === undefined ? '—' : `${s.toFixed(3)} s`);

/** The record data an endpoint answers with (its target; through a nested endpoint, every leaf below it). */
function recordsOf(profiles: ReadonlyMap<string, Profile>, p: Profile, endpointName: string, seen = new Set<string>()): string[] {
  const e = p.endpoints.find((x) => x.name === endpointName);
  if (!e || seen.has(p.name.toLowerCase())) return [];
  if (e.type !== 'nestedEndpoints') return e.target ? [e.target.replace(/\.$/, '').toLowerCase()] : [];
  const child = profiles.get(childProfileName(e.targetResourceId ?? '').toLowerCase());
  if (!child) return [];
  const next = new Set(seen).add(p.name.toLowerCase());
  return child.endpoints.flatMap((c) => recordsOf(profiles, child, c.name, next));
}

/** Whether answers are sampled somewhere in the tree (Weighted or MultiValue), so one answer without the endpoint proves nothing. */
function sampled(profiles: ReadonlyMap<string, Profile>, p: Profile, seen = new Set<string>()): boolean {
  if (seen.has(p.name.toLowerCase())) return false;
  seen.add(p.name.toLowerCase());
  if (p.trafficRoutingMethod === 'Weighted' || p.trafficRoutingMethod === 'MultiValue') return true;
  return p.endpoints.some(
    (e) =>
      e.type === 'nestedEndpoints' &&
      (() => {
        const c = profiles.get(childProfileName(e.targetResourceId ?? '').toLowerCase());
        return c !== undefined && sampled(profiles, c, seen);
      })(),
  );
}

interface Watch {
  server: DnsServer;
  label: string;
  node?: string;
}

/**
 * Asks `w` until `want` holds for `run` answers in a row; the time (ms) of the first of them, or undefined
 * at `deadline` or when `stop` fires.
 */
async function firstTime(
  w: Watch,
  name: string,
  type: 'A' | 'AAAA',
  want: (a: DnsAnswer) => boolean,
  run: number,
  deadline: number,
  stop?: AbortSignal,
): Promise<number | undefined> {
  let first: number | undefined;
  let streak = 0;
  while (Date.now() < deadline && !stop?.aborted) {
    const at = Date.now();
    const a = await queryDns(w.server, name, type).catch(() => undefined);
    if (a && want(a)) {
      first ??= at;
      if (++streak >= run) return first;
    } else {
      first = undefined;
      streak = 0;
    }
    await pause(2);
  }
  return undefined;
}

async function drill(
  client: TmkitClient,
  profileName: string,
  endpointName: string,
  holdMs: number,
  opts: DrillOptions,
): Promise<DrillReport> {
  const [listing, nodes, entry] = await Promise.all([client.listProfiles(), client.nodes(), client.getProfile(profileName)]).catch(
    (err: unknown) => {
      throw operationsFailure(err);
    },
  );
  const profiles = new Map(listing.profiles.map((p) => [p.profile.name.toLowerCase(), p.profile]));
  const p = entry.profile;
  const e =
    p.endpoints.find((x) => x.name === endpointName) ?? p.endpoints.find((x) => x.name.toLowerCase() === endpointName.toLowerCase());
  if (!e)
    throw new CliError(`profile ${p.name} has no endpoint ${endpointName} (it has ${p.endpoints.map((x) => x.name).join(', ') || 'none'})`);
  const status = await client.status(p.name);
  const name = status.fqdn;
  const drilled = new Set(recordsOf(profiles, p, e.name));
  if (drilled.size === 0) throw new CliError(`endpoint ${p.name}/${e.name} has no target to watch for in DNS answers`);
  const type: 'A' | 'AAAA' = [...drilled].every((r) => r.includes(':')) ? 'AAAA' : 'A';
  const names = (a: DnsAnswer): boolean => a.records.some((r) => drilled.has(r));
  const run = sampled(profiles, p) ? SAMPLED_RUN : 1;
  const host = new URL(client.server).hostname.replace(/^\[|\]$/g, '');
  const watches: Watch[] = nodes.nodes.flatMap((n) =>
    n.dns.flatMap((d) => {
      const server = parseDnsAddress(d, host);
      return server ? [{ server, label: d, node: n.node }] : [];
    }),
  );
  if (watches.length === 0) throw new CliError(`the server lists no DNS address to watch (GET /v1/nodes)`);
  const mode = opts.mode as DrillMode;
  const ttl = p.dnsConfig.ttl;
  let bound: number | null;
  let formula: string;
  let revertBound: number | null;
  let revertFormula: string | undefined;
  if (mode === 'detection') {
    if (e.type === 'nestedEndpoints')
      throw new CliError(`${p.name}/${e.name} is nested: it is not probed (its child profile's endpoints are); drill one of those`);
    if (e.alwaysServe === 'Enabled')
      throw new CliError(`${p.name}/${e.name} has Always Serve enabled: it is never probed, so there is nothing to detect`);
    if (p.failback?.mode === 'Manual')
      throw new CliError(
        `${p.name} has "failback": {"mode": "Manual"}: after a detection drill ${e.name} would wait in AwaitingFailback ` +
          'for tmkit endpoint failback; drill with --mode override, or run tmkit endpoint failback after',
      );
    if (watches.length > 1)
      throw new CliError(
        `a detection drill fails the probes of the server it talks to only, and a cluster of ${watches.length} DNS ` +
          'addresses follows the majority of its probing locations (docs/cluster.md): run it against a single server, ' +
          'or use --mode override',
      );
    const m = p.monitorConfig;
    bound = detectionSeconds(p) + ttl;
    formula = `${m.intervalInSeconds} × (${m.toleratedNumberOfFailures} + 1) + ${m.timeoutInSeconds} + TTL ${ttl} = ${bound} s`;
    const rec = recoveryEstimate(p, ttl);
    const f = p.failback;
    revertBound = (rec?.seconds ?? m.intervalInSeconds + ttl) + m.timeoutInSeconds;
    revertFormula =
      f && rec
        ? `max(${m.intervalInSeconds} × ${f.successesToRecover}, ${f.holdDownSeconds}) + ${m.timeoutInSeconds} + TTL ${ttl} = ${revertBound} s`
        : `${m.intervalInSeconds} + ${m.timeoutInSeconds} + TTL ${ttl} = ${revertBound} s`;
  } else {
    const estimate =
      failoverTimes(profiles, [p.name.toLowerCase()]).get(p.name.toLowerCase()) ??
      failoverTimes(new Map([[p.name, p]]), [p.name]).get(p.name);
    bound = estimate?.seconds ?? null;
    formula = estimate?.formula ?? 'not probed';
    revertBound = bound;
  }

  // Before: every node must name the endpoint now, or there is nothing to switch away from.
  for (const w of watches) {
    const seen = await firstTime(w, name, type, names, 1, Date.now() + (run > 1 ? 5_000 : 2_000));
    if (seen === undefined) {
      const a = await queryDns(w.server, name, type).catch(() => undefined);
      throw new CliError(
        `${p.name}/${e.name} is not in ${w.label}'s answers now (it answers ` +
          `${a ? a.records.join(', ') || a.rcode : 'nothing'}): drill an endpoint that serves traffic`,
      );
    }
  }

  const id = `dr-${randomBytes(4).toString('hex')}`;
  const report: DrillReport = {
    id,
    profile: p.name,
    endpoint: e.name,
    who: opts.who,
    ...(opts.reason ? { reason: opts.reason } : {}),
    mode,
    status: 'running',
    startedAt: new Date().toISOString(),
    holdSeconds: holdMs / 1000,
    boundSeconds: bound,
    bound: formula,
    ...(revertFormula !== undefined ? { revertBoundSeconds: revertBound, revertBound: revertFormula } : {}),
    ttl,
    passed: false,
    nodes: watches.map((w) => ({ dns: w.label, ...(w.node ? { node: w.node } : {}), answeredDuringHold: true, heldAnswers: [] })),
    notes: [],
  };
  await client.putDrill(report).catch(() => undefined);
  const interrupt = interruptSignal();
  let override: OverrideRecord | undefined;
  let injected: ProbeFailureReport | undefined;
  try {
    const sent = Date.now();
    // The override (or injection) outlives the hold a little: if this command dies, it still ends by itself.
    // Detection: the hold starts once DNS moved, so the injection also covers the detection's bound.
    const lasts = Math.ceil(holdMs / 1000) + (mode === 'detection' ? (bound ?? 0) : 0) + 120;
    const why = `drill ${id}${opts.reason && opts.reason !== 'drill' ? `: ${opts.reason}` : ''}`;
    try {
      if (mode === 'detection')
        injected = await client.injectProbeFailure(p.name, e.name, {
          forSeconds: lasts,
          who: opts.who,
          drill: id,
          reason: `${why}: probe failure injected`,
        });
      else
        override = (
          await client.createOverride({
            kind: 'down',
            profile: p.name,
            endpoint: e.name,
            for: lasts,
            who: opts.who,
            reason: why,
            drill: id,
          })
        ).override;
    } catch (err) {
      report.status = 'failed';
      report.notes.push(operationsFailure(err).message);
      throw operationsFailure(err);
    }
    if (override) report.overrideId = override.id;
    const since = override?.createdAt ?? injected!.since;
    const stored = Math.min(Math.max(Date.parse(since), sent), Date.now());
    const limit = stored + (bound ?? 0) * 1000 + GIVE_UP_MS;
    const switched = await Promise.all(watches.map((w) => firstTime(w, name, type, (a) => !names(a), run, limit, interrupt.signal)));
    switched.forEach((t, i) => {
      if (t !== undefined) report.nodes[i]!.switchSeconds = Math.max(0, t - stored) / 1000;
    });
    if (switched.every((t) => t !== undefined)) report.switchSeconds = Math.max(...switched.map((t) => t! - stored), 0) / 1000;
    else if (!interrupt.signal.aborted)
      report.notes.push(
        `${count(switched.filter((t) => t === undefined).length, 'node')} still named ${e.name} after ${formatDuration(limit - stored)}`,
      );

    // Hold: every answer must name another endpoint.
    // Override: from the override stored (DNS moves in milliseconds). Detection: from the moment every node
    // moved, so the endpoint is out of DNS for the whole --for however long detection took.
    const moved = switched.every((t) => t !== undefined) ? Math.max(...switched.map((t) => t!)) : Date.now();
    const holdEnd = (mode === 'detection' ? moved : stored) + holdMs;
    await Promise.all(
      watches.map(async (w, i) => {
        const held = new Set<string>();
        while (Date.now() < holdEnd && !interrupt.signal.aborted) {
          const a = await queryDns(w.server, name, type).catch(() => undefined);
          const n: DrillNodeReport = report.nodes[i]!;
          if (!a || a.records.length === 0 || names(a)) n.answeredDuringHold = false;
          held.add(a ? a.records.join(' ') || a.rcode : 'no answer');
          await pause(Math.min(250, Math.max(0, holdEnd - Date.now())), interrupt.signal);
        }
        report.nodes[i]!.heldAnswers = [...held].sort();
      }),
    );
    if (interrupt.signal.aborted) {
      report.status = 'aborted';
      report.notes.push('ended early (Ctrl-C): the endpoint was put back');
    }
  } finally {
    interrupt.release();
    if (override || injected) {
      // Revert, also after Ctrl-C or a failure above.
      const sent = Date.now();
      try {
        if (override) await client.clearOverride(override.id, { who: opts.who, reason: `drill ${id} over` });
        else await client.clearProbeFailure(p.name, e.name);
        const back = await Promise.all(
          watches.map((w) => firstTime(w, name, type, names, 1, sent + (revertBound ?? 0) * 1000 + GIVE_UP_MS)),
        );
        back.forEach((t, i) => {
          if (t !== undefined) report.nodes[i]!.revertSeconds = Math.max(0, t - sent) / 1000;
        });
        if (back.every((t) => t !== undefined)) report.revertSeconds = Math.max(...back.map((t) => t! - sent), 0) / 1000;
        else
          report.notes.push(
            `${count(back.filter((t) => t === undefined).length, 'node')} did not name ${e.name} again ` +
              `within ${formatDuration((revertBound ?? 0) * 1000 + GIVE_UP_MS)}`,
          );
      } catch (err) {
        report.notes.push(
          override
            ? `could not clear override ${override.id}: ${(err as Error).message}; it ends by itself at ${override.expiresAt}`
            : `could not clear the probe failure of ${p.name}/${e.name}: ${(err as Error).message}; ` +
                `it ends by itself at ${injected!.until}`,
        );
      }
    }
    report.finishedAt = new Date().toISOString();
    if (report.status === 'running') {
      const within = (s: number | undefined, b: number | null): boolean => s !== undefined && (b === null || s + ttl <= b);
      const answered = report.nodes.every((n) => n.answeredDuringHold);
      if (!answered) report.notes.push('some answers during the hold were empty or still named the endpoint');
      report.passed = within(report.switchSeconds, bound) && within(report.revertSeconds, revertBound) && answered;
      report.status = report.passed ? 'passed' : 'failed';
    }
    await client.putDrill(report).catch(() => undefined);
  }
  return report;
}

/** A formula `… = N s` without its total, for after the total on a bound line. */
const withoutTotal = (formula: string): string => formula.replace(/ = [\d.]+ s$/, '');

/** `switch + TTL 30 s = 30.016 s ≤ 69 s`: the pass mark, stated. */
function passLine(what: string, s: number | undefined, ttl: number, bound: number | null): string {
  if (s === undefined) return `${what} not measured`;
  if (bound === null) return `${what} ${sec(s)} (no bound)`;
  const total = Math.round((s + ttl) * 1000) / 1000;
  return `${what} + TTL ${ttl} s = ${total.toFixed(3)} s ${total <= bound ? '≤' : '>'} ${bound} s`;
}

/**
 * The report for a terminal: what was measured (at the name servers), the bound and how it is made from the
 * profile's settings, and the pass mark as one rule: measured + TTL ≤ bound.
 */
export function renderDrill(r: DrillReport): string {
  const detection = r.mode === 'detection';
  const nodes = `${r.nodes.length} node${r.nodes.length === 1 ? '' : 's'}`;
  const hold = formatDuration(r.holdSeconds * 1000);
  const lines = [
    detection
      ? `Drill ${r.id}: ${r.profile}/${r.endpoint} failing its health probes, out of DNS for ${hold} once detected (detection drill, ${nodes})`
      : `Drill ${r.id}: ${r.profile}/${r.endpoint} out of DNS by a down override for ${hold} (${nodes})`,
  ];
  lines.push(
    detection
      ? `  switch  ${sec(r.switchSeconds)}  from the probe failure injected until every node's DNS stopped naming ${r.endpoint}` +
          ' (probe detection + DNS)'
      : `  switch  ${sec(r.switchSeconds)}  from the override stored until every node's DNS stopped naming ${r.endpoint}`,
  );
  for (const n of r.nodes)
    lines.push(
      `            ${n.dns}${n.node && n.node !== 'this server' ? ` (${n.node})` : ''}: switch ` +
        `${sec(n.switchSeconds)}, revert ${sec(n.revertSeconds)}; held answers: ${n.heldAnswers.join(' | ') || '—'}`,
    );
  lines.push(
    detection
      ? `  revert  ${sec(r.revertSeconds)}  from the probes let through again until every node named it again`
      : `  revert  ${sec(r.revertSeconds)}  from the override cleared until every node named it again`,
  );
  if (r.boundSeconds === null) lines.push('  bound   none: nothing in the profile tree is probed, so traffic never moves by itself');
  else if (detection)
    lines.push(
      `  bound   ${r.boundSeconds} s = ${withoutTotal(r.bound)}: interval × (tolerated failures + 1) + timeout + TTL ` +
        `of ${r.profile}'s probe settings`,
    );
  else
    lines.push(
      `  bound   ${r.boundSeconds} s = ${withoutTotal(r.bound)}: interval × (tolerated failures + 1) + timeout + TTL, ` +
        'the worst-case failover tmkit plan prints',
    );
  const revertBound = detection ? (r.revertBoundSeconds ?? null) : r.boundSeconds;
  if (detection && r.revertBound !== undefined && revertBound !== null)
    lines.push(`          back ${revertBound} s = ${withoutTotal(r.revertBound)}: the probes that find it healthy again + timeout + TTL`);
  lines.push(
    `  pass    ${passLine('switch', r.switchSeconds, r.ttl, r.boundSeconds)}; ${passLine('revert', r.revertSeconds, r.ttl, revertBound)}`,
  );
  lines.push('          (measured at the name servers; a resolver may keep the old answer for the TTL, so the TTL is added)');
  if (!detection)
    lines.push('  scope   an override acts at once: this measured how fast DNS obeys it, not probe detection (--mode detection)');
  for (const n of r.notes) lines.push(`  note: ${n}`);
  lines.push(r.status === 'passed' ? 'Drill passed.' : r.status === 'aborted' ? 'Drill aborted: the endpoint is back.' : 'Drill failed.');
  return `${lines.join('\n')}\n`;
}
