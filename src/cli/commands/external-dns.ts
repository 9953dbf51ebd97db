import type { Command } from 'commander';
import type { Server } from 'node:http';
import { CliError, EXIT_USAGE } from '../errors';
import { HttpError, startWebhook, stackOf } from '../util/external-dns-server';
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
      .option(
        '--zone <zone>',
        "the zone offered to ExternalDNS as its domain filter: must be the tmkit server's (serve --zone), which it is by default (or TMKIT_ZONE)",
      )
      .option(
        '--owner-id <id>',
        "this ExternalDNS instance's --txt-owner-id: the names it creates go to the stack external-dns-<id>",
        'default',
      )
      .option('--force', 'apply deletes the safety rule refuses (a profile left with no endpoint Online)'),
  ).action(async (opts: ExternalDnsOptions) => {
    const given = (opts.zone ?? process.env.TMKIT_ZONE ?? '').trim().replace(/\.$/, '').toLowerCase() || undefined;
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
      started = await startWebhook(
        { client, ...(given !== undefined ? { zone: given } : {}), owner: opts.ownerId, force: opts.force === true, log },
        host,
        port,
      );
    } catch (err) {
      await client.close();
      throw new CliError(`cannot listen on ${opts.listen}: ${(err as Error).message}; pick another --listen`);
    }
    // The zone is checked against the server's now when it answers; a sidecar may start before its server, and
    // then the first request ExternalDNS makes checks it (503 until the server answers).
    let zone: string;
    try {
      zone = await started.webhook.zone();
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 503) {
        await stop(started.server);
        await client.close();
        throw new CliError((err as Error).message, EXIT_USAGE);
      }
      zone = `${given ?? "the server's"} (to be checked: ${err.message})`;
    }
    process.stdout.write(
      `tmkit external-dns: webhook on ${started.url} for zone ${zone}, owner ${opts.ownerId} (stack ${stackOf(opts.ownerId)}), tmkit server ${client.server}\n`,
    );
    const { signal, release } = interruptSignal();
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    release();
    await stop(started.server);
    await client.close();
  });
}

function stop(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
