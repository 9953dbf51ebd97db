import type { Command } from 'commander';
import type { ProfileEntry, ProfileStatusReport, TmkitClient, WebhookReport } from '../../client';
import { CliError, EXIT_USAGE } from '../errors';
import { toJsonText } from '../util/files';
import { followNpmParent } from '../util/parent';
import { formatOption, withClient } from '../util/command';
import { isNotFound, notFoundError, serverFailure, serverOptions, type ServerOptions } from '../util/server';

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** Endpoint monitor statuses that DNS answers as healthy: probed and up, or never probed (Always Serve). */
const UP = new Set(['Online', 'Unmonitored']);

/** One webhook: its counts and last delivery (`tmkit webhooks` shows the log). */
function renderWebhook(w: WebhookReport): string {
  const last = w.deliveries[0];
  return (
    `  ${w.id}  ${w.url}  delivered ${w.delivered}, queued ${w.queued}, failed ${w.failed}, dropped ${w.dropped}` +
    `${last ? `; last ${last.outcome}${last.status !== undefined ? ` ${last.status}` : ''}` + `${last.error ? ` (${last.error})` : ''} at ${last.at}` : ''}`
  );
}

/** Health pushed from outside and warnings of one endpoint (docs/health.md), one indented line each. */
function healthInputLines(e: ProfileStatusReport['endpoints'][number]): string[] {
  const out: string[] = [];
  const p = e.pushedHealth;
  if (p)
    out.push(
      `      pushed ${p.status} until ${p.expiresAt}${p.reason ? `: ${p.reason}` : ''}  ` +
        `[${e.verdictSource === 'pushed' ? 'sets the status' : 'probing says as bad or worse'}]`,
    );
  for (const w of e.warnings ?? []) out.push(`      warning: ${w}`);
  return out;
}

/** Composite checks (docs/health.md "Composite checks"): one line per check of the last round. */
function checkLines(e: ProfileStatusReport['endpoints'][number]): string[] {
  return (e.lastProbe?.checks ?? []).map((c) => {
    const role = c.mustBeHealthy ? '  [must be healthy]' : c.monitoringOnly ? '  [monitoring only: never counts]' : '';
    const failures =
      c.consecutiveFailures > 0 ? `, ${c.consecutiveFailures} consecutive failure${c.consecutiveFailures === 1 ? '' : 's'}` : '';
    return `      check ${pad(c.name, 12)} ${c.ok ? 'ok' : 'FAILED'} (${c.reason}, ${c.latencyMs} ms${failures})${role}`;
  });
}

/** The overview's notes about pushed health and warnings: `1 endpoint pushed Degraded`, `1 warning`. */
function healthInputNotes(r: ProfileStatusReport): string[] {
  const pushed = r.endpoints.filter((e) => e.verdictSource === 'pushed').length;
  const warnings = r.endpoints.reduce((n, e) => n + (e.warnings?.length ?? 0), 0);
  return [
    ...(pushed > 0 ? [`${pushed} endpoint${pushed === 1 ? '' : 's'} pushed Degraded`] : []),
    ...(warnings > 0 ? [`${warnings} warning${warnings === 1 ? '' : 's'} (tmkit status ${r.name})`] : []),
  ];
}

/** `tmkit status PROFILE`: the profile line, one line per endpoint with its last probe, recent transitions. */
export function renderStatus(r: ProfileStatusReport): string {
  const lines = [
    `${r.name}  ${r.fqdn}  ${r.profileMonitorStatus}${r.profileStatus === 'Disabled' ? ' (profile Disabled)' : ''}` +
      `${r.allDegradedFallback ? '  [all endpoints Degraded: answering as if Online]' : ''}  stack ${r.stack}`,
  ];
  for (const e of r.endpoints) {
    const probe =
      (e.lastProbe
        ? `last probe ${e.lastProbe.ok ? 'ok' : 'FAILED'} (${e.lastProbe.reason}, ${e.lastProbe.latencyMs} ms) at ${e.lastProbe.at}`
        : e.probed
          ? 'not probed yet'
          : 'not probed') + (e.verdictCarriedOver ? ' [verdict carried over from before the restart, re-probing]' : '');
    lines.push(
      `  ${pad(e.name, 16)} ${pad(e.endpointMonitorStatus, 17)} ` +
        `${pad(e.target ?? e.targetResourceId ?? '', 28)} ${probe}${e.reason ? `  — ${e.reason}` : ''}`,
    );
    lines.push(...checkLines(e));
    lines.push(...healthInputLines(e));
    // Overrides in force (docs/operations.md): what, until when, who, why, and the id that clears it.
    for (const o of e.overrides ?? [])
      lines.push(
        `      override ${o.kind === 'down' ? 'down' : `weight ${o.weight}`} until ${o.expiresAt} ` +
          `by ${o.who}${o.reason ? `: ${o.reason}` : ''}  (tmkit override clear ${o.id})`,
      );
    // Cluster mode: each probing location's verdict, then their aggregate (what DNS uses).
    if (e.locations && e.locations.length > 0) {
      for (const l of e.locations) {
        const tags = [
          l.self ? 'this node' : '',
          l.live ? '' : 'not live: not counted',
          l.otherSettings ? 'other probe settings: counted as undecided' : '',
        ].filter((t) => t !== '');
        lines.push(
          `      ${pad(`@${l.location}`, 18)} ${pad(l.verdict, 17)} ${pad(l.node ?? '', 14)}${l.since ? ` since ${l.since}` : ''}` +
            `${l.reason ? ` (${l.reason})` : ''}${tags.length > 0 ? `  [${tags.join('; ')}]` : ''}`,
        );
      }
      const live = e.locations.filter((l) => l.live);
      const degraded = live.filter((l) => l.verdict === 'Degraded').length;
      const online = live.filter((l) => l.verdict === 'Online').length;
      lines.push(
        `      ${pad('aggregate', 18)} ${pad(e.verdict ?? 'CheckingEndpoint', 17)} ${online} Online, ${degraded} Degraded ` +
          `of ${live.length} live location${live.length === 1 ? '' : 's'} (Degraded only when more than half say so)`,
      );
    }
  }
  if (r.transitions.length > 0) {
    lines.push('  recent transitions:');
    for (const t of r.transitions.slice(0, 10)) lines.push(`    ${t.at}  ${t.endpoint}: ${t.from} → ${t.to} (${t.reason})`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * `tmkit status`: one line per profile (name, FQDN, routing method, profile monitor status, endpoints up
 * out of all, stack), under a header. "Up" counts endpoints DNS answers as healthy: Online or Unmonitored.
 */
export function renderStatusTable(rows: ReadonlyArray<{ report: ProfileStatusReport; method: string }>): string {
  const cells = rows.map(({ report: r, method }) => {
    const up = r.endpoints.filter((e) => UP.has(e.endpointMonitorStatus)).length;
    const overrides = r.endpoints.reduce((n, e) => n + (e.overrides?.length ?? 0), 0);
    const awaiting = r.endpoints.filter((e) => e.endpointMonitorStatus === 'AwaitingFailback').length;
    const notes = [
      ...(r.profileStatus === 'Disabled' ? ['profile Disabled'] : []),
      ...(r.allDegradedFallback ? ['all endpoints Degraded: answering as if Online'] : []),
      ...healthInputNotes(r),
      ...(overrides > 0 ? [`${overrides} override${overrides === 1 ? '' : 's'}`] : []),
      ...(awaiting > 0 ? [`${awaiting} awaiting failback`] : []),
    ];
    return [r.name, r.fqdn, method, r.profileMonitorStatus, `${up}/${r.endpoints.length}`, r.stack, notes.join('; ')];
  });
  const header = ['PROFILE', 'FQDN', 'METHOD', 'STATUS', 'UP', 'STACK', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]): string =>
    c
      .map((v, i) => (i === c.length - 1 ? v : pad(v, widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...cells.map(line)].join('\n')}\n`;
}

interface StatusOptions extends ServerOptions {
  format: 'text' | 'json';
  watch?: boolean;
  interval: string;
}

/** One snapshot of what `tmkit status [PROFILE]` shows, as text or JSON (`compact`: one line, for `--watch`). */
async function snapshot(client: TmkitClient, profile: string | undefined, format: 'text' | 'json', compact = false): Promise<string> {
  const json = (v: unknown): string => (compact ? `${JSON.stringify(v)}\n` : toJsonText(v));
  if (profile !== undefined) {
    const r = await client.status(profile);
    return format === 'json' ? json(r) : renderStatus(r);
  }
  const entries: ProfileEntry[] = (await client.listProfiles()).profiles;
  // The webhooks' delivery counts too (a server without webhooks, or an older one, has none to show).
  const [reports, hooks] = await Promise.all([
    Promise.all(entries.map((p) => client.status(p.name))),
    client.webhooks().then(
      (w) => w.webhooks,
      () => [],
    ),
  ]);
  if (format === 'json') return json({ profiles: reports, ...(hooks.length > 0 ? { webhooks: hooks } : {}) });
  const webhookLines = hooks.length > 0 ? `${hooks.map((w) => renderWebhook(w)).join('\n')}\n` : '';
  if (reports.length === 0) return `No profiles on ${client.server}. Deploy some with \`tmkit apply FILE --yes\`.\n${webhookLines}`;
  return (
    renderStatusTable(reports.map((report, i) => ({ report, method: entries[i]!.profile.trafficRoutingMethod }))) +
    (webhookLines === '' ? '' : `\nwebhooks (tmkit webhooks --log):\n${webhookLines}`)
  );
}

/** Resolves after `ms`, or at once when `stop` fires. */
function pause(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (stop.aborted) {
      resolve();
      return;
    }
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      stop.removeEventListener('abort', done);
      resolve();
    }
    stop.addEventListener('abort', done);
  });
}

/**
 * `--watch`: polls every `intervalMs` until SIGINT/SIGTERM. On a terminal the view is redrawn in place
 * (cursor moved back over the previous view, which is then cleared); otherwise a view is printed as plain
 * lines, under a time stamp, each time it differs from the previous one (so logs grow only on changes).
 * An unreachable server is shown in place of the view and polling goes on. With `--format json` every
 * changed view is one line of JSON (NDJSON), terminal or not.
 */
async function watch(client: TmkitClient, profile: string | undefined, format: 'text' | 'json', intervalMs: number): Promise<void> {
  const out = process.stdout;
  const tty = out.isTTY === true;
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // Under npx, stop when npx is stopped (npm does not pass its signal on: util/parent.ts).
  const unfollow = followNpmParent();
  let previous: string | undefined;
  let drawnLines = 0;
  try {
    while (!stop.signal.aborted) {
      let view: string;
      try {
        view = await snapshot(client, profile, format, format === 'json');
      } catch (err) {
        view = `tmkit: ${serverFailure(err).message.split('\n')[0]}; retrying every ${intervalMs / 1000} s\n`;
        if (format === 'json') {
          if (view !== previous) process.stderr.write(view);
          previous = view;
          await pause(intervalMs, stop.signal);
          continue;
        }
      }
      if (stop.signal.aborted) break;
      if (format === 'json') {
        if (view !== previous) out.write(view);
      } else if (tty) {
        const stamped = `${view}\nevery ${intervalMs / 1000} s · ${new Date().toISOString()} · Ctrl-C to stop\n`;
        // Back to the first line of the previous view, clear to the end of the screen, draw the new one.
        out.write(`${drawnLines > 0 ? `\u001b[${drawnLines}F` : ''}\u001b[J${stamped}`);
        drawnLines = stamped.split('\n').length - 1;
      } else if (view !== previous) {
        out.write(`${previous === undefined ? '' : '\n'}-- ${new Date().toISOString()}\n${view}`);
      }
      previous = view;
      await pause(intervalMs, stop.signal);
    }
  } finally {
    unfollow();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** `tmkit status [PROFILE] [--watch]`: monitor status of every profile (one line each), or one in detail. */
export function registerStatus(program: Command): void {
  serverOptions(
    program
      .command('status')
      .description(
        'show monitor status from the running server: one line per profile, or one profile in detail (endpoints, last probes, transitions)',
      )
      .argument('[profile]', 'profile name (shows its endpoints, last probe of each and recent transitions)'),
  )
    .addOption(formatOption())
    .option('-w, --watch', 'keep watching: redraw in place on a terminal, print each changed view otherwise (Ctrl-C or SIGTERM stops)')
    .option('--interval <seconds>', 'how often --watch polls the server', '2')
    .action(async (profile: string | undefined, opts: StatusOptions) => {
      const seconds = Number(opts.interval);
      if (!Number.isFinite(seconds) || seconds < 0.1 || seconds > 3600) {
        throw new CliError(`--interval ${opts.interval}: expected a number of seconds from 0.1 to 3600`, EXIT_USAGE);
      }
      await withClient(
        opts,
        async (client) => {
          if (opts.watch) await watch(client, profile, opts.format, Math.round(seconds * 1000));
          else process.stdout.write(await snapshot(client, profile, opts.format));
        },
        async (err, client) => (isNotFound(err) && profile !== undefined ? notFoundError(client, profile) : serverFailure(err)),
      );
    });
}
