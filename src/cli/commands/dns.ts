import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { followNpmParent } from '../util/parent';
import pino from 'pino';
import { targetKey } from '../../core/health/targets';
import type { ProbeVerdict } from '../../core/health/types';
import type { Document } from '../../core/model/types';
import { buildSnapshot } from '../../core/routing';
import { parseDocument } from '../../core/validate';
import { MmdbGeoLookup } from '../../geo';
import type { BoundAddress } from '../../runtime/dns';
import { isDnsWorker, runDnsWorker, startDnsFleet, type DnsSockets, type DnsTarget, type SnapshotUpdate } from '../../runtime/dns';
import { CliError, EXIT_USAGE } from '../errors';
import {
  addDnssecOptions,
  addTcpLimitOptions,
  authorityFrom,
  dnssecPolicyFrom,
  checkAuthority,
  collect,
  decideWorkers,
  dnsLimitsFrom,
  parseListen,
  parseNs,
  parseWorkers,
  showAddress,
} from '../util/dns-options';
import { geoMessage, requireGeoDatabase } from '../util/geo';
import { DnssecKeyError, DnssecService, FileKeyStore, MemoryKeyStore, type KeyPolicy, type KeySetDocument } from '../../runtime/dns';
import { basename, dirname, resolve } from 'node:path';

interface DnsCommandOptions {
  /** False with --no-cookies. */
  cookies: boolean;
  document: string;
  zone: string;
  listen: string[];
  workers: string;
  udpPayload: string;
  ns: string[];
  soaRname?: string;
  geoip?: string;
  tcpIdleTimeout: string;
  tcpMaxConnections: string;
  tcpMaxConnectionsPerClient: string;
  dnssec?: boolean;
  dnssecAlgorithm: string;
  dnssecKeys: string;
  dnssecKeyFile?: string;
}

const DEFAULT_LISTEN = '127.0.0.1:5300';

/**
 * `tmkit dns --document FILE`: a development aid. Serves the document's profiles as the runtime's DNS does —
 * the same DNS path as `tmkit serve` (one process, or `--workers N` sharing the port) — with every endpoint
 * treated as Online and no probing, API or store.
 */
export function registerDns(program: Command): void {
  addDnssecOptions(
    addTcpLimitOptions(
      program
        .command('dns')
        .description('serve a tmkit/v1 document over DNS, UDP and TCP (development aid: every endpoint is treated as Online)')
        .requiredOption('--document <file>', 'tmkit/v1 document (JSON)')
        .option('--zone <zone>', 'authoritative zone; profiles answer at <relativeName>.<zone>', 'tm.internal')
        .option(
          '--listen <address:port>',
          `address to listen on, UDP and TCP (repeatable; [::1]:5300 for IPv6; default ${DEFAULT_LISTEN})`,
          collect,
          [],
        )
        .option(
          '--workers <n|auto>',
          'processes on the port (node:cluster), each with its own UDP and TCP socket where SO_REUSEPORT ' +
            'works (Node >= 22.12 on Linux), else sharing one; auto: min(cores, 4) with SO_REUSEPORT, else 1',
          '1',
        )
        .option('--udp-payload <octets>', 'largest UDP response (EDNS payload cap, 512-4096)', '1232')
        .option(
          '--ns <name[=address,...]>',
          'apex NS name, with its addresses when it is inside the zone (repeatable; default ns1.<zone>)',
          collect,
          [],
        )
        .option('--soa-rname <mailbox>', 'SOA contact in domain form (default hostmaster.<zone>)')
        .option(
          '--geoip <file.mmdb>',
          'MaxMind-format database for Geographic/Performance routing (default: the country database package; with --geoip and no package, this file alone)',
        )
        .option(
          '--dnssec-key-file <file>',
          'with --dnssec: the key set to sign with, made there (mode 0600) when missing; default: new keys for this run only',
        ),
    ),
    'in --dnssec-key-file or for this run only',
  ).action(async (opts: DnsCommandOptions) => {
    const listen = (opts.listen.length > 0 ? opts.listen : [DEFAULT_LISTEN]).map(parseListen);
    const workersOption = parseWorkers(opts.workers);
    const limits = dnsLimitsFrom({ ...opts, udpPayload: opts.udpPayload }, '--udp-payload');
    const ns = opts.ns.map(parseNs);
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/.test(opts.zone)) {
      throw new CliError(`--zone ${JSON.stringify(opts.zone)}: expected a domain name such as tm.internal`, EXIT_USAGE);
    }
    checkAuthority(opts.zone, opts.ns, ns, opts.soaRname);
    const authority = authorityFrom(ns, opts.soaRname);
    const dnssec = dnssecPolicyFrom(opts);
    if (opts.dnssecKeyFile !== undefined && !dnssec) throw new CliError('--dnssec-key-file needs --dnssec', EXIT_USAGE);
    if (isDnsWorker()) {
      // A DNS worker forked below: DNS only, fed the document's snapshot over IPC (the same path as serve's).
      await runDnsWorker({
        zone: opts.zone,
        dns: listen,
        ...(opts.geoip !== undefined ? { geoip: opts.geoip } : {}),
        authority,
        dnsLimits: limits,
      });
      return;
    }
    requireGeoDatabase('dns', opts.geoip);
    const doc = loadDocument(opts.document);
    const { workers, notice } = await decideWorkers(workersOption);
    const signalled = untilSignal();
    followNpmParent(); // under npx: stop when npx is stopped (util/parent.ts)
    let geo: MmdbGeoLookup;
    try {
      geo = await MmdbGeoLookup.open(opts.geoip !== undefined ? { geoip: opts.geoip } : {});
    } catch (err) {
      throw new CliError(`dns: ${geoMessage(err)}`);
    }
    // Every endpoint Online: no probing in this mode.
    const verdicts: Record<string, ProbeVerdict> = Object.fromEntries(
      doc.profiles.flatMap((p) => p.endpoints.map((e) => [targetKey(p.name, e.name), 'Online' as const])),
    );
    const snapshot = buildSnapshot({
      zone: opts.zone,
      profiles: doc.profiles,
      health: { verdict: (p, e) => verdicts[targetKey(p, e)] ?? 'Online' },
      geo,
    });
    const full = (): SnapshotUpdate => ({
      type: 'tmkit-snapshot',
      revision: 0,
      full: true,
      profiles: doc.profiles,
      deleted: [],
      verdicts,
      verdictsComplete: true,
    });
    const keys = dnssec ? await dnssecKeys(opts.zone, dnssec, opts.dnssecKeyFile) : undefined;
    let dns: DnsTarget;
    try {
      dns = await startDnsFleet({
        zone: opts.zone,
        listen,
        workers,
        authority,
        limits,
        snapshot,
        full,
        logger: pino({ level: 'warn' }, pino.destination(2)),
        ...(keys ? { dnssec: keys.doc } : {}),
        // No state dir here: a secret of this run's own (cookies made by an earlier run are answered with a fresh one).
        ...(opts.cookies !== false ? { cookies: { current: randomBytes(16) } } : {}),
      });
    } catch (err) {
      throw new CliError(
        `dns: cannot listen on ${listen.map(showAddress).join(', ')}: ${(err as Error).message}${workers > 1 ? '; the workers could not start' : ''}`,
      );
    }
    process.stdout.write(
      `${banner(opts.zone, doc, dns.addresses(), workers, dns.sockets)}\n${notice !== undefined ? `  ${notice}\n` : ''}` +
        `${keys ? `  DNSSEC ${keys.where}; DS for the parent: ${keys.ds.join('; ')}\n` : ''}`,
    );
    await signalled;
    await dns.close();
    const st = dns.stats();
    const perWorker = dns.workers?.() ?? [];
    const split =
      perWorker.length > 0
        ? `; per worker: ${perWorker.map((w) => `#${w.slot} pid ${w.pid}${w.replaced ? ' (replaced)' : ''}: ${w.stats.queries}`).join(', ')}`
        : '';
    if (st)
      process.stderr.write(
        `tmkit dns: handled ${st.queries} messages (${st.cacheHits} from cache, ${st.errors} ` +
          `error answers, ${st.dropped} dropped, ${st.truncated} truncated)${split}\n`,
      );
  });
}

/** The key set `tmkit dns --dnssec` signs with: from (or new in) `file`, else new for this run. */
async function dnssecKeys(
  zone: string,
  policy: KeyPolicy,
  file: string | undefined,
): Promise<{ doc: KeySetDocument; where: string; ds: string[] }> {
  const apex = zone.replace(/\.$/, '').toLowerCase();
  const store = file !== undefined ? new FileKeyStore(dirname(resolve(file)), basename(file)) : new MemoryKeyStore();
  try {
    const service = await DnssecService.open({ zone: apex, policy, store, logger: pino({ level: 'warn' }, pino.destination(2)) });
    const r = service.report();
    service.close();
    return {
      doc: service.doc,
      where: `keys ${r.keys.map((k) => `${k.role.toUpperCase()} ${k.keyTag}`).join(', ')} in ${store.where}`,
      ds: r.ds,
    };
  } catch (err) {
    if (err instanceof DnssecKeyError) throw new CliError(`dns: ${err.message}`);
    throw err;
  }
}

function banner(zone: string, doc: Document, addrs: BoundAddress[], workers: number, sockets: DnsSockets | undefined): string {
  const where = addrs.map(showAddress).join(', ');
  const w = workers > 1 ? ` with ${workers} workers${sockets === 'per-worker' ? ', a socket each' : ''}` : '';
  return (
    `tmkit dns: zone ${zone.replace(/\.$/, '').toLowerCase()}, ${doc.profiles.length} ` +
    `profile${doc.profiles.length === 1 ? '' : 's'} (every endpoint treated as Online), UDP+TCP on ${where}${w}`
  );
}

/** Listens before anything is printed, so a signal sent on the banner always stops cleanly. */
function untilSignal(): Promise<void> {
  return new Promise((resolveSignal) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolveSignal();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}

function loadDocument(file: string): Document {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`${file}: cannot read the document (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  const { document, diagnostics } = parseDocument(input);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (!document || errors.length > 0) {
    const lines = errors.slice(0, 20).map((d) => `  ${d.path}: ${d.message} [${d.code}]`);
    const more = errors.length > 20 ? `\n  … and ${errors.length - 20} more (run \`tmkit validate ${file}\`)` : '';
    throw new CliError(
      `${file}: the document is invalid (${errors.length} error${errors.length === 1 ? '' : 's'}):\n${lines.join('\n')}${more}`,
    );
  }
  return document;
}
