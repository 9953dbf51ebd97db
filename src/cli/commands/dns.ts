import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import type { Command } from 'commander';
import type { Document } from '../../core/model/types';
import { buildSnapshot, resolve } from '../../core/routing';
import { parseDocument } from '../../core/validate';
import { zoneProblems, type ZoneProblem } from '../../core/zone';
import { MmdbGeoLookup } from '../../geo';
import { DnsServer, type BoundAddress, type ListenAddress } from '../../runtime/dns';
import { CliError, EXIT_USAGE } from '../main';

interface DnsCommandOptions {
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
}

const DEFAULT_LISTEN = '127.0.0.1:5300';

/**
 * `tmkit dns --document FILE`: a development aid until `tmkit serve` exists. Serves the document's
 * profiles as the authoritative DNS server would, every endpoint treated as Online (no probing).
 * `--workers N` runs N processes sharing the port (node:cluster).
 */
export function registerDns(program: Command): void {
  program
    .command('dns')
    .description('serve a tmkit/v1 document over DNS, UDP and TCP (development aid: every endpoint is treated as Online)')
    .requiredOption('--document <file>', 'tmkit/v1 document (JSON)')
    .option('--zone <zone>', 'authoritative zone; profiles answer at <relativeName>.<zone>', 'tm.internal')
    .option('--listen <address:port>', `address to listen on, UDP and TCP (repeatable; [::1]:5300 for IPv6; default ${DEFAULT_LISTEN})`, collect, [])
    .option('--workers <n>', 'processes sharing the port (node:cluster)', '1')
    .option('--udp-payload <octets>', 'largest UDP response (EDNS payload cap, 512-4096)', '1232')
    .option('--ns <name[=address,...]>', 'apex NS name, with its addresses when it is inside the zone (repeatable; default ns1.<zone>)', collect, [])
    .option('--soa-rname <mailbox>', 'SOA contact in domain form (default hostmaster.<zone>)')
    .option('--geoip <file.mmdb>', 'MaxMind-format database for Geographic/Performance routing (default: the shipped country database)')
    .option('--tcp-idle-timeout <ms>', 'close idle TCP connections after this long', '10000')
    .option('--tcp-max-connections <n>', 'concurrent TCP connections per process', '1000')
    .action(async (opts: DnsCommandOptions) => {
      const listen = (opts.listen.length > 0 ? opts.listen : [DEFAULT_LISTEN]).map(parseListen);
      const workers = intOption('--workers', opts.workers, 1, 64);
      const udpPayload = intOption('--udp-payload', opts.udpPayload, 512, 4096);
      const idle = intOption('--tcp-idle-timeout', opts.tcpIdleTimeout, 1, 3_600_000);
      const maxConn = intOption('--tcp-max-connections', opts.tcpMaxConnections, 1, 1_000_000);
      const ns = opts.ns.map(parseNs);
      if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/.test(opts.zone)) {
        throw new CliError(`--zone ${JSON.stringify(opts.zone)}: expected a domain name such as tm.internal`, EXIT_USAGE);
      }
      checkAuthority(opts.zone, opts.ns, ns, opts.soaRname);
      const doc = loadDocument(opts.document);

      if (workers > 1 && cluster.isPrimary) {
        await runPrimary(workers, opts, doc);
        return;
      }
      // A worker that cannot start must exit (its IPC channel would keep it alive), so the primary notices.
      const failWorker = (err: unknown): never => {
        if (cluster.isWorker) cluster.worker?.disconnect();
        throw err;
      };
      let geo: MmdbGeoLookup;
      try {
        geo = await MmdbGeoLookup.open(opts.geoip !== undefined ? { geoip: opts.geoip } : {});
      } catch (err) {
        return failWorker(new CliError(`dns: ${(err as Error).message}`));
      }
      const snapshot = buildSnapshot({ zone: opts.zone, profiles: doc.profiles, health: { verdict: () => 'Online' }, geo });
      const server = new DnsServer({
        zone: opts.zone,
        snapshot,
        resolve,
        rng: Math.random,
        listen,
        udpPayloadCap: udpPayload,
        tcp: { idleTimeoutMs: idle, maxConnections: maxConn },
        ...(ns.length > 0 ? { nsNames: ns.map((n) => n.name), nsAddresses: Object.fromEntries(ns.map((n) => [n.name, n.addresses])) } : {}),
        ...(opts.soaRname !== undefined ? { soa: { rname: opts.soaRname } } : {}),
      });
      try {
        await server.start();
      } catch (err) {
        return failWorker(new CliError(`dns: cannot listen on ${listen.map(showListen).join(', ')}: ${(err as Error).message}`));
      }
      if (cluster.isWorker) {
        process.send?.({ type: 'tmkit-dns-listening', addresses: server.addresses() });
      } else {
        process.stdout.write(`${banner(opts.zone, doc, server.addresses(), 1)}\n`);
      }
      await untilSignal();
      await server.close();
      const st = server.stats;
      process.stderr.write(`tmkit dns: process ${process.pid} handled ${st.queries} messages (${st.cacheHits} from cache, ${st.errors} error answers, ${st.dropped} dropped, ${st.truncated} truncated)\n`);
      // A worker stays alive while its IPC channel to the primary is open.
      if (cluster.isWorker) cluster.worker?.disconnect();
    });
}

function banner(zone: string, doc: Document, addrs: BoundAddress[], workers: number): string {
  const where = addrs.map((a) => `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`).join(', ');
  const w = workers > 1 ? ` with ${workers} workers` : '';
  return `tmkit dns: zone ${zone.replace(/\.$/, '').toLowerCase()}, ${doc.profiles.length} profile${doc.profiles.length === 1 ? '' : 's'} (every endpoint treated as Online), UDP+TCP on ${where}${w}`;
}

/** The primary only supervises: forks the workers, prints where they listen, restarts one that dies. */
async function runPrimary(n: number, opts: DnsCommandOptions, doc: Document): Promise<void> {
  let stopping = false;
  let reported = false;
  let ready = 0;
  let failures = 0;
  let live = 0;
  const fork = (): void => {
    live++;
    cluster.fork();
  };
  cluster.on('message', (_worker, msg: { type?: string; addresses?: BoundAddress[] }) => {
    if (msg?.type !== 'tmkit-dns-listening' || reported) return;
    if (++ready === n) {
      reported = true;
      process.stdout.write(`${banner(opts.zone, doc, msg.addresses ?? [], n)}\n`);
    }
  });
  let allExited: () => void = () => undefined;
  const exited = new Promise<void>((r) => { allExited = r; });
  cluster.on('exit', (worker, code, signal) => {
    live--;
    if (stopping) {
      if (live === 0) allExited();
      return;
    }
    process.stderr.write(`tmkit dns: worker ${worker.process.pid} exited (${signal ?? code})${reported ? '; starting another' : ''}\n`);
    if (!reported && ++failures >= n) {
      stopping = true;
      if (live === 0) allExited();
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      return;
    }
    fork();
  });
  for (let i = 0; i < n; i++) fork();
  await Promise.race([untilSignal(), exited]);
  if (!stopping) {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  }
  if (live > 0) await exited;
  if (!reported) throw new CliError('dns: the workers could not start (see the errors above)');
}

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
    throw new CliError(`${file}: the document is invalid (${errors.length} error${errors.length === 1 ? '' : 's'}):\n${lines.join('\n')}${more}`);
  }
  return document;
}

/** `127.0.0.1:5300`, `[::1]:5300`, `::1` (port 5300), `0.0.0.0`. */
export function parseListen(s: string): ListenAddress {
  let host = s.trim();
  let port = 5300;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(host);
  if (bracket) {
    host = bracket[1]!;
    if (bracket[2] !== undefined) port = Number(bracket[2]);
  } else if ((host.match(/:/g) ?? []).length === 1) {
    const i = host.indexOf(':');
    port = Number(host.slice(i + 1));
    host = host.slice(0, i);
  }
  if (net.isIP(host) === 0 || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CliError(`--listen ${s}: expected an IP address and port such as 127.0.0.1:5300 or [::1]:5300`, EXIT_USAGE);
  }
  return { address: host, port };
}

/** `ns1.example.net` or `ns1.tm.internal=192.0.2.53,2001:db8::53`. */
export function parseNs(s: string): { name: string; addresses: string[] } {
  const [name, addrs] = s.split('=', 2) as [string, string | undefined];
  const addresses = addrs === undefined ? [] : addrs.split(',').map((a) => a.trim()).filter(Boolean);
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/.test(name.trim()) || addresses.some((a) => net.isIP(a) === 0)) {
    throw new CliError(`--ns ${s}: expected a host name, optionally =address[,address] (e.g. ns1.tm.internal=192.0.2.53)`, EXIT_USAGE);
  }
  return { name: name.trim(), addresses };
}

/**
 * The zone's own data as the options give it (`--zone`, `--ns`, `--soa-rname`), checked by the core's zone
 * rules before anything starts: every problem at once, named by the option that caused it (exit 2).
 */
export function checkAuthority(zone: string, rawNs: readonly string[], ns: ReadonlyArray<{ name: string; addresses: string[] }>, soaRname: string | undefined): void {
  const problems = zoneProblems({
    apex: zone,
    soa: { serial: 0, ...(soaRname !== undefined ? { rname: soaRname } : {}) },
    nsNames: ns.map((n) => n.name),
    nsAddresses: Object.fromEntries(ns.filter((n) => n.addresses.length > 0).map((n) => [n.name, n.addresses])),
  });
  if (problems.length === 0) return;
  const option = (p: ZoneProblem): string => {
    if (p.path === 'apex') return `--zone ${JSON.stringify(zone)}`;
    if (p.path === 'soa.rname') return `--soa-rname ${soaRname}`;
    const i = /^nsNames\[(\d+)\]/.exec(p.path);
    if (i) return `--ns ${rawNs[Number(i[1])]}`;
    const a = /^nsAddresses\[("(?:[^"\\]|\\.)*")\]/.exec(p.path);
    if (a) {
      const name = JSON.parse(a[1]!) as string;
      return `--ns ${rawNs[ns.findIndex((n) => n.name === name && n.addresses.length > 0)] ?? name}`;
    }
    return p.path;
  };
  throw new CliError(problems.map((p) => `${option(p)}: ${p.message}`).join('\ntmkit: '), EXIT_USAGE);
}

function showListen(l: ListenAddress): string {
  return net.isIPv6(l.address) ? `[${l.address}]:${l.port}` : `${l.address}:${l.port}`;
}

function intOption(name: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new CliError(`${name} ${v}: expected a whole number from ${min} to ${max}`, EXIT_USAGE);
  return n;
}

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}
