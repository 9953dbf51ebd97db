import type { Command } from 'commander';
import type { DecisionRecord } from '../../core/api';
import { CliError, EXIT_USAGE } from '../errors';
import { toJsonText } from '../util/files';
import { operationsFailure } from '../util/operations';
import { clientFor, serverOptions, type ServerOptions } from '../util/server';

interface DecisionsOptions extends ServerOptions {
  client?: string;
  since?: string;
  limit: string;
  follow?: boolean;
  json?: boolean;
}

/** How often `--follow` asks for new records. */
const FOLLOW_MS = 1_000;

/**
 * `tmkit decisions [PROFILE]` (docs/observability.md#decisions): the decision log of the node it talks to —
 * real queries this node answered and why (the rule, the endpoints, overrides, drills, the all-degraded
 * fallback, the snapshot), oldest first; `--follow` keeps printing new ones as `tail -f` does.
 */
export function registerDecisions(program: Command): void {
  serverOptions(
    program
      .command('decisions')
      .argument('[profile]', 'only answers of this profile')
      .description('the decision log: real queries this node answered and why (rule, endpoints, overrides, drills); --follow tails it')
      .option('--client <address>', 'only clients in this address or prefix (the ECS address when the query had one)')
      .option('--since <time>', 'only answers at or after this ISO 8601 time')
      .option('--limit <n>', 'how many of the newest', '50')
      .option('-f, --follow', 'keep printing new answers until interrupted')
      .option('--json', 'print {"decisions": [...]} (with --follow: one record per line)'),
  ).action(async (profile: string | undefined, opts: DecisionsOptions) => {
    const limit = Number(opts.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
      throw new CliError(`--limit ${opts.limit}: expected an integer 1–10000`, EXIT_USAGE);
    if (opts.since !== undefined && Number.isNaN(Date.parse(opts.since)))
      throw new CliError(`--since ${opts.since}: expected an ISO 8601 time such as 2026-12-07T14:02:00Z`, EXIT_USAGE);
    const client = clientFor(opts);
    const ask = (since: string | undefined, n: number) =>
      client.decisions({
        ...(profile !== undefined ? { profile } : {}),
        ...(opts.client !== undefined ? { client: opts.client } : {}),
        ...(since !== undefined ? { since } : {}),
        limit: n,
      });
    try {
      const first = await ask(opts.since, limit);
      if (opts.json && !opts.follow) {
        process.stdout.write(toJsonText(first));
        return;
      }
      if (first.sample === 0)
        process.stderr.write('tmkit: this node keeps no decision log (serve --decision-sample 0): start it with --decision-sample N\n');
      const print = (d: DecisionRecord): void => {
        process.stdout.write(opts.json ? `${JSON.stringify(d)}\n` : `${decisionLine(d)}\n`);
      };
      for (const d of first.decisions) print(d);
      if (!opts.follow) {
        if (first.decisions.length === 0 && !opts.json) process.stdout.write('No answers recorded yet.\n');
        return;
      }
      // Follow: ask for what came at or after the newest seen; records of that same instant already printed are skipped.
      let last = first.decisions.at(-1);
      let seen = new Set(first.decisions.filter((d) => d.t === last?.t).map(key));
      const stop = new Promise<void>((r) => {
        process.once('SIGINT', () => r());
        process.once('SIGTERM', () => r());
      });
      for (;;) {
        const next = await Promise.race([
          new Promise<'tick'>((r) => setTimeout(() => r('tick'), FOLLOW_MS)),
          stop.then(() => 'stop' as const),
        ]);
        if (next === 'stop') return;
        const got = await ask(last?.t ?? new Date(Date.now() - FOLLOW_MS).toISOString(), 10_000);
        const fresh = got.decisions.filter((d) => !seen.has(key(d)));
        for (const d of fresh) print(d);
        if (fresh.length > 0) {
          last = fresh.at(-1);
          seen = new Set(got.decisions.filter((d) => d.t === last?.t).map(key));
        }
      }
    } catch (err) {
      throw operationsFailure(err);
    } finally {
      await client.close();
    }
  });
}

function key(d: DecisionRecord): string {
  return `${d.t}\u0000${d.source}\u0000${d.qname}\u0000${d.qtype}\u0000${d.endpoints.join(',')}`;
}

/** `2026-12-07T14:02:00.120Z  81.2.69.142 udp  web.tm.internal A  NOERROR  web/weu  geo-match: …  [override …] [drill …]`. */
export function decisionLine(d: DecisionRecord): string {
  const flags = [
    d.allDegraded ? 'all-degraded fallback' : '',
    d.drill ? `drill ${d.drill}` : '',
    ...(d.overrides ?? []).map((o) => `override ${o}`),
    d.truncated ? 'truncated (TC)' : '',
  ].filter(Boolean);
  const who = d.client === d.source ? d.client : `${d.client} (ECS, from ${d.source})`;
  return (
    `${d.t}  ${who} ${d.proto}  ${d.qname} ${d.qtype}  ${d.rcode}  ${d.endpoints.join(', ') || '—'}` +
    `${d.rule ? `  ${d.method ? `${d.method}: ` : ''}${d.rule}` : ''}${flags.length ? `  [${flags.join('; ')}]` : ''}`
  );
}
