/** `tmkit serve --webhook URL[,secret-file]` (repeatable) and `--webhook-allow-private` (docs/webhooks.md). */
import type { Command } from 'commander';
import type { WebhookFlag } from '../../runtime/webhooks';
import { checkWebhookUrl } from '../../runtime/webhooks';
import { CliError, EXIT_USAGE } from '../errors';

export interface WebhookOptions {
  webhook: string[];
  webhookAllowPrivate?: boolean;
}

export function addWebhookOptions(cmd: Command): Command {
  return cmd
    .option(
      '--webhook <url[,secret-file]>',
      'POST every live event (transitions, revisions, ...) to URL, signed with the secret in secret-file (repeatable; more with POST /v1/webhooks)',
      (v: string, acc: string[]) => [...acc, v],
      [],
    )
    .option(
      '--webhook-allow-private',
      'let webhooks reach loopback, private and link-local addresses (refused by default: docs/webhooks.md, SSRF)',
    );
}

/** The flags, checked before anything starts (a bad URL is a usage error, exit 2). */
export function webhooksFrom(opts: WebhookOptions): { flags: WebhookFlag[]; allowPrivate: boolean } | undefined {
  const allowPrivate = opts.webhookAllowPrivate === true;
  const flags = opts.webhook.map((v): WebhookFlag => {
    const comma = v.lastIndexOf(',');
    const [url, secretFile] = comma > v.indexOf('://') && comma >= 0 ? [v.slice(0, comma), v.slice(comma + 1)] : [v, undefined];
    try {
      checkWebhookUrl(url, allowPrivate);
    } catch (err) {
      throw new CliError(`--webhook ${v}: ${(err as Error).message}`, EXIT_USAGE);
    }
    return { url, ...(secretFile !== undefined && secretFile !== '' ? { secretFile } : {}) };
  });
  return flags.length > 0 || allowPrivate ? { flags, allowPrivate } : undefined;
}
