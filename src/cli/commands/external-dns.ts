import type { Command } from 'commander';
import { CliError, EXIT_USAGE } from '../errors';
import { startWebhook, stackOf } from '../util/external-dns-server';
import { interruptSignal } from '../util/operations';
import { clientFor, serverOptions, type ServerOptions } from '../util/server';

interface ExternalDnsOptions extends ServerOptions {
  listen: string;
  zone?: string;
  ownerId: string;
  force?: boolean;
}

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,48}[A-Za-z0-9])?$/;

/** `host:port`, `[v6]:port` or a port alone (on 127.0.0.1). */
function listenAddress(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text) ?? (/^\d+$/.test(text) ? [text, undefined, '127.0.0.1', text] : null);
  const port = m ? Number(m[3]) : Number.NaN;
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`--listen ${text}: host:port (such as 127.0.0.1:8888, ExternalDNS's default webhook address)`, EXIT_USAGE);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

/**
 * `tmkit external-dns`: ExternalDNS's webhook provider, run beside it (docs/kubernetes.md). Listens until
 * SIGINT or SIGTERM; every write goes through plan and apply in the stack `external-dns-<owner id>`.
 */
export function registerExternalDns(program: Command): void {
  serverOptions(
    program
      .command('external-dns')
      .description(
        "ExternalDNS's webhook provider: Kubernetes names become profiles, new ones in the stack external-dns-<owner id> (docs/kubernetes.md)",
      )
      .option('--listen <host:port>', 'where ExternalDNS reaches the webhook (its --webhook-provider-url)', '127.0.0.1:8888')
      .option('--zone <zone>', "the tmkit server's zone (serve --zone), offered to ExternalDNS as its domain filter (default TMKIT_ZONE)")
      .option(
        '--owner-id <id>',
        "this ExternalDNS instance's --txt-owner-id: the names it creates go to the stack external-dns-<id>",
        'default',
      )
      .option('--force', 'apply deletes the safety rule refuses (a profile left with no endpoint Online)'),
  ).action(async (opts: ExternalDnsOptions) => {
    const zone = (opts.zone ?? process.env.TMKIT_ZONE ?? '').trim().replace(/\.$/, '').toLowerCase();
    if (zone === '')
      throw new CliError('--zone is needed: the zone the tmkit server answers for (its serve --zone), or set TMKIT_ZONE', EXIT_USAGE);
    if (!OWNER.test(opts.ownerId))
      throw new CliError(
        `--owner-id ${opts.ownerId}: letters, digits and hyphens, at most 50 (it names the stack external-dns-<id>)`,
        EXIT_USAGE,
      );
    const { host, port } = listenAddress(opts.listen);
    const client = clientFor({ ...opts, who: `external-dns:${opts.ownerId}` });
    const log = (line: string): void => {
      process.stderr.write(`${new Date().toISOString()} ${line}\n`);
    };
    let started: Awaited<ReturnType<typeof startWebhook>>;
    try {
      started = await startWebhook({ client, zone, owner: opts.ownerId, force: opts.force === true, log }, host, port);
    } catch (err) {
      await client.close();
      throw new CliError(`cannot listen on ${opts.listen}: ${(err as Error).message}; pick another --listen`);
    }
    process.stdout.write(
      `tmkit external-dns: webhook on ${started.url} for zone ${zone}, owner ${opts.ownerId} (stack ${stackOf(opts.ownerId)}), tmkit server ${client.server}\n`,
    );
    const { signal, release } = interruptSignal();
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    release();
    await new Promise<void>((resolve) => {
      started.server.close(() => resolve());
      started.server.closeAllConnections();
    });
    await client.close();
  });
}
