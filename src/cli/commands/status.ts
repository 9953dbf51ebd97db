import { Option, type Command } from 'commander';
import type { ProfileStatusReport } from '../../client';
import { toJsonText } from '../util/files';
import { clientFor, serverFailure, serverOptions, type ServerOptions } from '../util/server';

function pad(s: string, n: number): string { return s.length >= n ? s : s + ' '.repeat(n - s.length); }

export function renderStatus(r: ProfileStatusReport): string {
  const lines = [`${r.name}  ${r.fqdn}  ${r.profileMonitorStatus}${r.profileStatus === 'Disabled' ? ' (profile Disabled)' : ''}${r.allDegradedFallback ? '  [all endpoints Degraded: answering as if Online]' : ''}  stack ${r.stack}`];
  for (const e of r.endpoints) {
    const probe = (e.lastProbe ? `last probe ${e.lastProbe.ok ? 'ok' : 'FAILED'} (${e.lastProbe.reason}, ${e.lastProbe.latencyMs} ms) at ${e.lastProbe.at}` : e.probed ? 'not probed yet' : 'not probed')
      + (e.verdictCarriedOver ? ' [verdict carried over from before the restart, re-probing]' : '');
    lines.push(`  ${pad(e.name, 16)} ${pad(e.endpointMonitorStatus, 17)} ${pad(e.target ?? e.targetResourceId ?? '', 28)} ${probe}${e.reason ? `  — ${e.reason}` : ''}`);
    // Cluster mode: each probing location's verdict, then their aggregate (what DNS uses).
    if (e.locations && e.locations.length > 0) {
      for (const l of e.locations) {
        const tags = [l.self ? 'this node' : '', l.live ? '' : 'not live: not counted', l.otherSettings ? 'other probe settings: counted as undecided' : ''].filter((t) => t !== '');
        lines.push(`      ${pad(`@${l.location}`, 18)} ${pad(l.verdict, 17)} ${pad(l.node ?? '', 14)}${l.since ? ` since ${l.since}` : ''}${l.reason ? ` (${l.reason})` : ''}${tags.length > 0 ? `  [${tags.join('; ')}]` : ''}`);
      }
      const live = e.locations.filter((l) => l.live);
      const degraded = live.filter((l) => l.verdict === 'Degraded').length;
      const online = live.filter((l) => l.verdict === 'Online').length;
      lines.push(`      ${pad('aggregate', 18)} ${pad(e.verdict ?? 'CheckingEndpoint', 17)} ${online} Online, ${degraded} Degraded of ${live.length} live location${live.length === 1 ? '' : 's'} (Degraded only when more than half say so)`);
    }
  }
  if (r.transitions.length > 0) {
    lines.push('  recent transitions:');
    for (const t of r.transitions.slice(0, 10)) lines.push(`    ${t.at}  ${t.endpoint}: ${t.from} → ${t.to} (${t.reason})`);
  }
  return `${lines.join('\n')}\n`;
}

/** `tmkit status [PROFILE]`: monitor status of one or every profile, from the running server. */
export function registerStatus(program: Command): void {
  serverOptions(program
    .command('status')
    .description('show profile and endpoint monitor status from the running server (all profiles, or one in detail)')
    .argument('[profile]', 'profile name'))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (profile: string | undefined, opts: ServerOptions & { format: 'text' | 'json' }) => {
      const client = clientFor(opts);
      try {
        const names = profile !== undefined ? [profile] : (await client.listProfiles()).profiles.map((p) => p.name);
        const reports = await Promise.all(names.map((n) => client.status(n)));
        if (opts.format === 'json') process.stdout.write(toJsonText(profile !== undefined ? reports[0] : { profiles: reports }));
        else if (reports.length === 0) process.stdout.write(`no profiles on ${client.server}; deploy some with \`tmkit apply FILE --yes\`\n`);
        else process.stdout.write(reports.map(renderStatus).join('\n'));
      } catch (err) {
        throw serverFailure(err);
      } finally {
        await client.close();
      }
    });
}
