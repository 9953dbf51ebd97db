import { Option, type Command } from 'commander';
import type { DnsCookiesReport } from '../../core/api';
import { toJsonText } from '../util/files';
import { whoOption } from '../util/operations';
import { clientFor, serverFailure, serverOptions, type ServerOptions } from '../util/server';

type Format = { format: 'text' | 'json' };

/** One line: where the secret is, when it was made, whether the previous one is still accepted (never the secret). */
function line(r: DnsCookiesReport): string {
  const where = r.store === 'etcd' ? `${r.where} (every node of the cluster)` : r.where;
  return `DNS cookie secret in ${where}, made ${r.createdAt || 'before it was recorded'}${r.previous ? '; the previous one is still accepted' : ''}\n`;
}

/**
 * `tmkit cookies status|rotate` (docs/dns.md): where the DNS cookie secret of a running `tmkit serve` is kept,
 * and its rotation (GET /v1/dns/cookies, POST /v1/dns/cookies/rotate). In a cluster the secret is shared
 * through etcd, so one rotation on any node reaches them all.
 */
export function registerCookies(program: Command): void {
  const cookies = program
    .command('cookies')
    .description('DNS cookies (RFC 7873) of a running tmkit serve: where the server secret is kept, and its rotation');
  const format = (): Option => new Option('--format <format>', 'output format').choices(['text', 'json']).default('text');
  const run = (what: (c: ReturnType<typeof clientFor>) => Promise<DnsCookiesReport>) => async (opts: ServerOptions & Format) => {
    const client = clientFor(opts);
    try {
      const r = await what(client);
      process.stdout.write(opts.format === 'json' ? toJsonText(r) : line(r));
    } catch (err) {
      throw serverFailure(err);
    } finally {
      await client.close();
    }
  };
  serverOptions(cookies.command('status').description('where the secret is kept and when it was made (never the secret)'))
    .addOption(format())
    .action(run((c) => c.dnsCookies()));
  whoOption(
    serverOptions(
      cookies
        .command('rotate')
        .description(
          'make a new server secret; cookies made with the old one stay valid (it is kept as the previous) until they expire, within an hour',
        ),
    ),
  )
    .addOption(format())
    .action(run((c) => c.rotateDnsCookies()));
}
