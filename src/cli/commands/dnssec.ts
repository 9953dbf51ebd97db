import { Option, type Command } from 'commander';
import type { DnssecKeyReport, DnssecReport } from '../../core/api';
import { CliError, EXIT_USAGE } from '../errors';
import { toJsonText } from '../util/files';
import { whoOption } from '../util/operations';
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
 * `tmkit dnssec ds|anchor|status|rollover`: the DS records for the parent zone, the trust anchor for validators
 * of a private zone, the keys and their states, and key rollovers, from a running `tmkit serve --dnssec`
 * (GET /v1/dnssec, POST /v1/dnssec/rollover); `anchor` also from a key file.
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
  registerAnchor(dnssec);
  show(
    'status',
    "show the zone's keys (tag, role, state, timeline), the signature counters and the next refresh",
    (r) => `${keysTable(r).join('\n')}\n`,
    (r) => r,
  );

  whoOption(
    serverOptions(
      dnssec
        .command('rollover')
        .description(
          'roll the zone-signing key (the CSK, or the ZSK with split keys) by pre-publishing, timed by TTLs; --ksk: ' +
            'add a new KSK (double-DS, by hand); --finish: take the old CSK/KSK out once the parent has the new DS only',
        )
        .option(
          '--ksk',
          'roll the KSK (split keys): publish a new one next to the old; change the DS at the parent, then run with --finish',
        )
        .option('--finish', 'remove the superseded CSK or KSK from the DNSKEY RRset (after the parent holds only the new DS)'),
    ),
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

/** The formats of `tmkit dnssec anchor`. */
export const ANCHOR_FORMATS = ['unbound', 'bind', 'dnskey', 'ds', 'json'] as const;
export type AnchorFormat = (typeof ANCHOR_FORMATS)[number];

/** A trust anchor: a CSK or KSK in the DNSKEY RRset now (the keys whose DS the parent would hold). */
export interface Anchor {
  keyTag: number;
  role: 'csk' | 'ksk';
  state: DnssecKeyReport['state'];
  flags: number;
  algorithm: number;
  /** `tm.internal. 300 IN DNSKEY 257 3 13 base64…` */
  dnskey: string;
  /** `tm.internal. IN DS 12345 13 2 HEX…` */
  ds: string;
}

/** The anchors of a report: the CSK/KSKs whose DS the server lists (published, not removed). */
export function anchorsOf(r: Pick<DnssecReport, 'keys' | 'ds'>): Anchor[] {
  const out: Anchor[] = [];
  for (const k of r.keys) {
    if (k.role === 'zsk' || k.ds === undefined || !r.ds.includes(k.ds)) continue;
    const { keyTag, role, state, flags, algorithm, dnskey, ds } = k;
    out.push({ keyTag, role, state, flags, algorithm, dnskey, ds });
  }
  return out;
}

/** `tm.internal. 300 IN DNSKEY 257 3 13 AAAA…` → its parts (the key's base64 without spaces). */
function dnskeyParts(dnskey: string): { owner: string; flags: string; protocol: string; algorithm: string; publicKey: string } {
  const f = dnskey.trim().split(/\s+/);
  const i = f.indexOf('DNSKEY');
  return { owner: f[0]!, flags: f[i + 1]!, protocol: f[i + 2]!, algorithm: f[i + 3]!, publicKey: f.slice(i + 4).join('') };
}

/**
 * The anchors as a validator's configuration wants them: unbound's `trust-anchor:` lines (unbound.conf,
 * `server:` clause), BIND's `trust-anchors` block (named.conf, and delv's `-a` file) with static keys, the
 * DNSKEY records (a zone file: unbound's `trust-anchor-file:`), the DS records, or JSON.
 */
export function formatAnchors(zone: string, anchors: readonly Anchor[], format: AnchorFormat): string {
  switch (format) {
    case 'unbound':
      return anchors
        .map((a) => {
          const k = dnskeyParts(a.dnskey);
          return `trust-anchor: "${k.owner} DNSKEY ${k.flags} ${k.protocol} ${k.algorithm} ${k.publicKey}"\n`;
        })
        .join('');
    case 'bind': {
      const lines = anchors.map((a) => {
        const k = dnskeyParts(a.dnskey);
        return `\t"${k.owner}" static-key ${k.flags} ${k.protocol} ${k.algorithm} "${k.publicKey}";\n`;
      });
      return `trust-anchors {\n${lines.join('')}};\n`;
    }
    case 'dnskey':
      return anchors.map((a) => `${a.dnskey}\n`).join('');
    case 'ds':
      return anchors.map((a) => `${a.ds}\n`).join('');
    case 'json':
      return toJsonText({ zone, anchors });
  }
}

/** `--key-file`: the anchors of a key set file, read without a server (the public half of each key only). */
async function anchorsFromKeyFile(file: string): Promise<{ zone: string; anchors: Anchor[] }> {
  const { DnssecKeyError, dnskeyText, dsText, keyState, loadKeySet, readKeyFile } = await import('../../runtime/dns');
  try {
    const doc = readKeyFile(file);
    if (doc === undefined) throw new CliError(`--key-file ${file}: no such file`);
    const { keys } = loadKeySet(doc, file);
    const now = Date.now();
    const anchors: Anchor[] = keys
      .filter((k) => k.role !== 'zsk' && k.publish <= now && keyState(k, now) !== 'removed')
      .map((k) => ({
        keyTag: k.keyTag,
        role: k.role as 'csk' | 'ksk',
        state: keyState(k, now),
        flags: k.flags,
        algorithm: k.algorithm,
        dnskey: dnskeyText(doc.zone, k, 300),
        ds: dsText(doc.zone, k),
      }));
    return { zone: doc.zone, anchors };
  } catch (err) {
    if (err instanceof DnssecKeyError) throw new CliError(`dnssec anchor: ${err.message}`);
    throw err;
  }
}

/** `tmkit dnssec anchor`: the zone's trust anchor (its CSK or KSK) for validating resolvers of a private zone. */
function registerAnchor(dnssec: Command): void {
  serverOptions(
    dnssec
      .command('anchor')
      .description(
        "print the zone's trust anchor (its CSK or KSK, both during a rollover) for validating resolvers of a private zone: " +
          "unbound's trust-anchor: lines, BIND's trust-anchors block (named.conf, delv -a), DNSKEY or DS records, JSON",
      )
      .addOption(new Option('--format <format>', 'output format').choices([...ANCHOR_FORMATS]).default('dnskey'))
      .option(
        '--key-file <file>',
        'read the keys from a key set file (<state-dir>/dnssec-keys.json, tmkit dns --dnssec-key-file) instead of a server',
      ),
  ).action(async (opts: ServerOptions & { format: AnchorFormat; keyFile?: string }) => {
    let zone: string;
    let anchors: Anchor[];
    if (opts.keyFile !== undefined) {
      if (opts.server !== undefined || opts.token !== undefined)
        throw new CliError('--key-file reads the keys without a server: leave out --server and --token', EXIT_USAGE);
      ({ zone, anchors } = await anchorsFromKeyFile(opts.keyFile));
    } else {
      const r = await withClientResult(opts, (client) => client.dnssec());
      zone = r.zone;
      anchors = anchorsOf(r);
    }
    if (anchors.length === 0) throw new CliError(`zone ${zone}: no CSK or KSK is published now, so there is no trust anchor to print`);
    if (anchors.length > 1) {
      const which = anchors.map((a) => `${a.role.toUpperCase()} ${a.keyTag} (${a.state})`).join(', ');
      process.stderr.write(
        `zone ${zone}: ${anchors.length} trust anchors, a key rollover is under way: ${which}. Configure all of them; ` +
          'once `tmkit dnssec rollover --finish` took the old key out, print the anchor again and drop the old one.\n',
      );
    }
    process.stdout.write(formatAnchors(zone, anchors, opts.format));
  });
}

async function withClientResult<T>(opts: ServerOptions, fn: (client: ReturnType<typeof clientFor>) => Promise<T>): Promise<T> {
  let out: T | undefined;
  await withClient(opts, async (client) => {
    out = await fn(client);
  });
  return out as T;
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
