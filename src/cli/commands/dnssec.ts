import { Option, type Command } from 'commander';
import type { DnssecReport } from '../../core/api';
import { toJsonText } from '../util/files';
import { clientFor, serverFailure, serverOptions, type ServerOptions } from '../util/server';

type Format = { format: 'text' | 'json' };

function keysTable(r: DnssecReport): string[] {
  const out = [
    `zone ${r.zone}: ${r.algorithmName} (algorithm ${r.algorithm}), ` +
      `${r.keyMode === 'csk' ? 'one combined signing key (CSK)' : 'KSK + ZSK'}, keys in ${r.keyStore}; denial of existence: ${r.denial}`,
  ];
  out.push('KEY TAG  ROLE  STATE      PUBLISH                   ACTIVATE                  RETIRE                    REMOVE');
  for (const k of r.keys)
    out.push(
      `${String(k.keyTag).padEnd(8)} ${k.role.toUpperCase().padEnd(5)} ${k.state.padEnd(10)} ` +
        `${k.publish.padEnd(25)} ${k.activate.padEnd(25)} ${(k.retire ?? '-').padEnd(25)} ${k.remove ?? '-'}`,
    );
  if (r.signatures)
    out.push(
      `signatures: ${r.signatures.made} made (${r.signatures.refreshed} ahead of a window), ${r.signatures.cacheHits} ` +
        `from the cache, ${r.signatures.cached} RRsets cached; next refresh ${r.signatures.nextRefresh}`,
    );
  out.push(
    `validity ${r.validitySeconds / 86400} days from each ${r.refreshSeconds / 3600} h window, inception backdated ${r.backdateSeconds / 60} min`,
  );
  return out;
}

/**
 * `tmkit dnssec ds|status|rollover`: the DS records for the parent zone, the keys and their states, and key
 * rollovers, from a running `tmkit serve --dnssec` (GET /v1/dnssec, POST /v1/dnssec/rollover).
 */
export function registerDnssec(program: Command): void {
  const dnssec = program
    .command('dnssec')
    .description('DNSSEC of a running tmkit serve --dnssec: DS records for the parent, keys, rollovers');
  const format = (): Option => new Option('--format <format>', 'output format').choices(['text', 'json']).default('text');

  // `ds` and `status`: GET /v1/dnssec, shown two ways.
  const show = (name: string, description: string, text: (r: DnssecReport) => string, json: (r: DnssecReport) => unknown): void => {
    serverOptions(dnssec.command(name).description(description))
      .addOption(format())
      .action(async (opts: ServerOptions & Format) => {
        await withClient(opts, async (client) => {
          const r = await client.dnssec();
          process.stdout.write(opts.format === 'json' ? toJsonText(json(r)) : text(r));
        });
      });
  };
  show(
    'ds',
    'print the DS records (SHA-256) the parent zone must hold for this zone, one per line',
    (r) => `${r.ds.join('\n')}\n`,
    (r) => ({ zone: r.zone, ds: r.ds }),
  );
  show(
    'status',
    "show the zone's keys (tag, role, state, timeline), the signature counters and the next refresh",
    (r) => `${keysTable(r).join('\n')}\n`,
    (r) => r,
  );

  serverOptions(
    dnssec
      .command('rollover')
      .description(
        'roll the zone-signing key (the CSK, or the ZSK with split keys) by pre-publishing, timed by TTLs; --ksk: ' +
          'add a new KSK (double-DS, by hand); --finish: take the old CSK/KSK out once the parent has the new DS only',
      )
      .option('--ksk', 'roll the KSK (split keys): publish a new one next to the old; change the DS at the parent, then run with --finish')
      .option('--finish', 'remove the superseded CSK or KSK from the DNSKEY RRset (after the parent holds only the new DS)'),
  )
    .addOption(format())
    .action(async (opts: ServerOptions & Format & { ksk?: boolean; finish?: boolean }) => {
      await withClient(opts, async (client) => {
        const r = await client.dnssecRollover({ kind: opts.ksk ? 'ksk' : 'zone', finish: opts.finish === true });
        if (opts.format === 'json') {
          process.stdout.write(toJsonText(r));
          return;
        }
        const sep = r.report.keys.filter((k) => k.ds !== undefined && r.keyTags.includes(k.keyTag) && !opts.finish);
        process.stdout.write(
          `${[...r.steps, ...(sep.length > 0 ? ['DS for the parent:', ...sep.map((k) => `  ${k.ds}`)] : [])].join('\n')}\n`,
        );
      });
    });
}

async function withClient(opts: ServerOptions, fn: (client: ReturnType<typeof clientFor>) => Promise<void>): Promise<void> {
  const client = clientFor(opts);
  try {
    await fn(client);
  } catch (err) {
    throw serverFailure(err);
  } finally {
    await client.close();
  }
}
