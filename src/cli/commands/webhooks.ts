import type { Command } from 'commander';
import type { WebhookReport } from '../../client';
import { LIVE_EVENT_TYPES, unknownEventTypes } from '../../core/api';
import { CliError, EXIT_USAGE } from '../errors';
import { toJsonText } from '../util/files';
import { whoOption } from '../util/operations';
import { clientFor, serverFailure, serverOptions, type ServerOptions } from '../util/server';

interface ListOptions extends ServerOptions {
  json?: boolean;
  log?: boolean;
}
interface AddOptions extends ServerOptions {
  events?: string;
  secretFile?: string;
  format: string;
  json?: boolean;
}

/** One webhook as a line, and with `log` its recent deliveries. */
export function renderWebhook(w: WebhookReport, log: boolean): string {
  const lines = [
    `${w.id}  ${w.url}  events ${w.events.join(',')}  ${w.format}${w.signed ? '  signed' : ''}  (${w.origin === 'flag' ? 'serve --webhook' : 'API'})`,
    `  delivered ${w.delivered}, queued ${w.queued}, failed ${w.failed}, dropped ${w.dropped}`,
  ];
  for (const d of log ? w.deliveries.slice(0, 20) : w.deliveries.slice(0, 1)) {
    lines.push(
      `  ${d.at}  ${d.outcome.padEnd(9)} ${d.event} ${d.id} attempt ${d.attempt}${d.status !== undefined ? ` status ${d.status}` : ''}` +
        `${d.latencyMs !== undefined ? ` ${d.latencyMs} ms` : ''}${d.error ? `  ${d.error}` : ''}`,
    );
  }
  return lines.join('\n');
}

/** `tmkit webhooks [list|add|remove]`: the running server's webhooks and their delivery logs (docs/webhooks.md). */
export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').description('webhooks of the running server: list (with the delivery log), add, remove');
  const list = async (opts: ListOptions): Promise<void> => {
    const client = clientFor(opts);
    try {
      const r = await client.webhooks();
      if (opts.json) process.stdout.write(toJsonText(r));
      else
        process.stdout.write(
          r.webhooks.length === 0
            ? 'No webhooks. Add one with `tmkit webhooks add URL` or `tmkit serve --webhook URL`.\n'
            : `${r.webhooks.map((w) => renderWebhook(w, opts.log === true)).join('\n')}\n`,
        );
    } catch (err) {
      throw serverFailure(err);
    } finally {
      await client.close();
    }
  };
  serverOptions(
    webhooks
      .command('list', { isDefault: true })
      .description('every webhook, its counts and last delivery (--log: the last 20)')
      .option('--log', 'show the delivery log')
      .option('--json', "print the API's JSON"),
  ).action(list);
  whoOption(
    serverOptions(
      webhooks
        .command('add')
        .description('POST every event (or --events) to URL, signed with the secret in --secret-file')
        .argument('<url>', 'http(s) URL; loopback and private addresses only when serve runs with --webhook-allow-private')
        .option('--events <types>', `comma-separated event types (${LIVE_EVENT_TYPES.join(', ')}); default: all`)
        .option('--secret-file <file>', 'regular file on the server (at most 4096 bytes) holding the HMAC key (X-Tmkit-Signature)')
        .option('--format <format>', 'json (the event) or slack (a Slack/Teams {"text"} body)', 'json')
        .option('--json', "print the API's JSON"),
    ),
  ).action(async (url: string, opts: AddOptions) => {
    if (opts.format !== 'json' && opts.format !== 'slack') throw new CliError(`--format ${opts.format}: json or slack`, EXIT_USAGE);
    const events = opts.events
      ?.split(',')
      .map((e) => e.trim())
      .filter((e) => e !== '');
    // An empty list (often an unset shell variable) would mean every event: said, not guessed.
    if (events !== undefined && events.length === 0)
      throw new CliError(
        `--events '${opts.events}' names no event type: give at least one (${LIVE_EVENT_TYPES.join(', ')}), or leave --events out for all`,
        EXIT_USAGE,
      );
    // A typo would never fire: refused here, before the server is asked.
    const unknown = unknownEventTypes(events ?? []);
    if (unknown.length > 0)
      throw new CliError(
        `--events: unknown event type${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}; the event types are ${LIVE_EVENT_TYPES.join(', ')}`,
        EXIT_USAGE,
      );
    const client = clientFor(opts);
    try {
      const w = await client.addWebhook({
        url,
        format: opts.format,
        ...(events !== undefined ? { events } : {}),
        ...(opts.secretFile !== undefined ? { secretFile: opts.secretFile } : {}),
      });
      process.stdout.write(
        opts.json ? toJsonText(w) : `Added webhook ${w.id} → ${w.url} (events ${w.events.join(',')}${w.signed ? ', signed' : ''}).\n`,
      );
    } catch (err) {
      throw serverFailure(err);
    } finally {
      await client.close();
    }
  });
  whoOption(
    serverOptions(
      webhooks.command('remove').description('remove a webhook added through the API').argument('<id>', 'its id (tmkit webhooks list)'),
    ),
  ).action(async (id: string, opts: ServerOptions) => {
    const client = clientFor(opts);
    try {
      await client.deleteWebhook(id);
      process.stdout.write(`Removed webhook ${id}.\n`);
    } catch (err) {
      throw serverFailure(err);
    } finally {
      await client.close();
    }
  });
}
