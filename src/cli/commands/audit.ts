import type { Command } from 'commander';
import { CliError, EXIT_USAGE } from '../errors';
import { printListing } from '../util/operations';
import { serverOptions, type ServerOptions } from '../util/server';

interface AuditOptions extends ServerOptions {
  limit: string;
  json?: boolean;
}

/**
 * `tmkit audit` (docs/operations.md#audit-log): the audit log the server keeps of every write that changes
 * traffic — profiles and endpoints (apply, destroy, endpoint disable/enable), pushed health changes, overrides,
 * failback, drills, shifts, webhooks, DNSSEC rollovers, cookie rotations, node drains — newest first: when,
 * who, what, why.
 */
export function registerAudit(program: Command): void {
  serverOptions(
    program
      .command('audit')
      .description(
        'the audit log of every traffic change (apply, endpoint disable/enable, pushed health, overrides, drills, failback, shifts, webhooks, dnssec, cookies, node drain): when, who, what, why; newest first',
      )
      .option('--limit <n>', 'how many entries', '50')
      .option('--json', 'print {"entries": [...]}'),
  ).action(async (opts: AuditOptions) => {
    const limit = Number(opts.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
      throw new CliError(`--limit ${opts.limit}: expected an integer 1–10000`, EXIT_USAGE);
    await printListing(
      opts,
      (client) => client.audit(limit),
      (r) => r.entries,
      'No traffic operations yet.\n',
      (e) => {
        const id = typeof e.details?.id === 'string' ? ` ${e.details.id}` : '';
        return `${e.at}  ${e.who.padEnd(10)} ${e.action.padEnd(16)} ${e.target}${id}${e.reason ? `: ${e.reason}` : ''}`;
      },
    );
  });
}
