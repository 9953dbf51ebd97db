import type { Command } from 'commander';
import { toJsonText } from '../util/files';
import { withClient, formatOption } from '../util/command';
import { serverOptions, type ServerOptions } from '../util/server';

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** `tmkit list [--stack S]`: the deployed profiles, one line each (one API call; health is `tmkit status`). */
export function registerList(program: Command): void {
  serverOptions(
    program
      .command('list')
      .description('list the profiles deployed on the server: name, stack, routing method, status, DNS name, TTL, endpoints, ETag')
      .option('--stack <name>', 'only the profiles of this stack'),
  )
    .addOption(formatOption('output format (json: the GET /v1/profiles body)'))
    .action(async (opts: ServerOptions & { stack?: string; format: 'text' | 'json' }) => {
      await withClient(opts, async (client) => {
        const list = await client.listProfiles(opts.stack !== undefined ? { stack: opts.stack } : {});
        if (opts.format === 'json') {
          process.stdout.write(toJsonText(list));
          return;
        }
        if (list.profiles.length === 0) {
          process.stdout.write(
            `No profiles${opts.stack !== undefined ? ` in stack "${opts.stack}"` : ''} on ${client.server}. Deploy some with \`tmkit apply FILE --yes\`.\n`,
          );
          return;
        }
        const rows = [
          ['PROFILE', 'STACK', 'METHOD', 'STATUS', 'RELATIVE NAME', 'TTL', 'ENDPOINTS', 'ETAG'],
          ...list.profiles.map((e) => [
            e.name,
            e.stack,
            e.profile.trafficRoutingMethod,
            e.profile.profileStatus,
            e.profile.dnsConfig.relativeName,
            String(e.profile.dnsConfig.ttl),
            String(e.profile.endpoints.length),
            e.etag,
          ]),
        ];
        const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
        process.stdout.write(`${rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : pad(c, widths[i]!))).join('  ')).join('\n')}\n`);
      });
    });
}
