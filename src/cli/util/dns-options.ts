/**
 * What `tmkit serve` and `tmkit dns` share about DNS: parsing listen addresses and `--ns`, the zone's own
 * data checked by core's zone rules, the DNS limit flags, and showing an address.
 */
import { closeSync, openSync, statSync } from 'node:fs';
import * as net from 'node:net';
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { parsePrefix } from '../../core/net/ip';
import { zoneProblems, type ZoneProblem } from '../../core/zone';
import type { ListenAddress } from '../../runtime/dns';
import { autoWorkers, mainProcessNotice, reusePortSupport, sharedSocketNotice, type ReusePortSupport } from '../../runtime/dns';
import type { DnsAuthority, DnsLimits } from '../../runtime/engine';
import { SIGNING_LIMIT_DEFAULTS, setSigningLimits, type KeyPolicy } from '../../runtime/dns';
import { CliError, EXIT_USAGE } from '../errors';
import { parseDnstapTarget, type DnstapTarget, type DnsTapOptions } from '../../runtime/dns';
import { packageVersion } from '../../package';

/** `host:port` or `[v6]:port` → address; the port is required. */
export function parseHostPort(flag: string, s: string): ListenAddress {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(s.trim()) ?? /^([^:]+):(\d+)$/.exec(s.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || net.isIP(m[1]!) === 0 || !Number.isInteger(port) || port > 65535) {
    throw new CliError(`${flag} ${s}: expected an IP address and port such as 127.0.0.1:5300 or [::1]:5300`, EXIT_USAGE);
  }
  return { address: m[1]!, port };
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
  const addresses =
    addrs === undefined
      ? []
      : addrs
          .split(',')
          .map((a) => a.trim())
          .filter(Boolean);
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/.test(name.trim()) || addresses.some((a) => net.isIP(a) === 0)) {
    throw new CliError(`--ns ${s}: expected a host name, optionally =address[,address] (e.g. ns1.tm.internal=192.0.2.53)`, EXIT_USAGE);
  }
  return { name: name.trim(), addresses };
}

export function intOption(name: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new CliError(`${name} ${v}: expected a whole number from ${min} to ${max}`, EXIT_USAGE);
  return n;
}

/** `--workers auto` or a whole number of DNS worker processes from 1 to 64. */
export function parseWorkers(v: string): number | 'auto' {
  if (v.trim().toLowerCase() === 'auto') return 'auto';
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 64)
    throw new CliError(`--workers ${v}: expected auto or a whole number from 1 to 64`, EXIT_USAGE);
  return n;
}

/** What the DNS workers will be, decided in the primary before DNS starts. */
export interface WorkersDecision {
  workers: number;
  support: ReusePortSupport;
  /** The banner line that says why the workers share one socket, or why `auto` chose 1; undefined: nothing to say. */
  notice?: string;
}

/**
 * `auto`: min(cores, 4) workers where each can bind its own SO_REUSEPORT sockets, else 1 (DNS in the main
 * process). A number is kept as given; above 1 without per-worker sockets the workers share one socket.
 */
export async function decideWorkers(w: number | 'auto', cores: number = availableParallelism()): Promise<WorkersDecision> {
  const support = await reusePortSupport();
  const workers = w === 'auto' ? autoWorkers(support, cores) : w;
  const notice = support.supported
    ? undefined
    : workers > 1
      ? sharedSocketNotice(support)
      : w === 'auto'
        ? mainProcessNotice(support)
        : undefined;
  return { workers, support, ...(notice !== undefined ? { notice } : {}) };
}

/** `[::1]:5300` / `127.0.0.1:5300`. */
export const showAddress = (a: { address: string; port: number; family?: string }): string =>
  `${a.family === 'IPv6' || a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`;

/** Repeatable commander option collector. */
export const collect = (v: string, prev: string[]): string[] => [...prev, v];

/** The apex NS names (with in-zone addresses for glue) and the SOA contact the options give. */
export function authorityFrom(ns: ReadonlyArray<{ name: string; addresses: string[] }>, soaRname: string | undefined): DnsAuthority {
  return {
    ...(ns.length > 0 ? { nsNames: ns.map((n) => n.name), nsAddresses: Object.fromEntries(ns.map((n) => [n.name, n.addresses])) } : {}),
    ...(soaRname !== undefined ? { soa: { rname: soaRname } } : {}),
  };
}

/**
 * The DNS limit flags both commands take: TCP (defaults: 10 s idle, 2 s per message, 1000 per process, 32 per client), and
 * response rate limiting and cookies (addAdmissionOptions).
 */
export function addTcpLimitOptions(cmd: Command): Command {
  return addAdmissionOptions(cmd)
    .option('--tcp-idle-timeout <ms>', 'close idle TCP DNS connections after this long', '10000')
    .option(
      '--tcp-message-timeout <ms>',
      'a TCP DNS message must arrive whole within this long of its first byte (later bytes do not extend it), else the connection is closed',
      '2000',
    )
    .option(
      '--tcp-max-connections <n>',
      'concurrent TCP DNS connections per process (per DNS worker with --workers); at the cap a new one closes the longest idle one',
      '1000',
    )
    .option(
      '--tcp-max-connections-per-client <n>',
      'concurrent TCP DNS connections from one client (IPv4 address or IPv6 /64) per process; beyond it, its new connections are closed',
      '32',
    );
}

/**
 * Response rate limiting and DNS cookies, the flags both commands take (docs/production.md says how to
 * choose them): `--rrl RATE` turns limiting on; cookies are on unless `--no-cookies`.
 */
export function addAdmissionOptions(cmd: Command): Command {
  return cmd
    .option('--rrl <rate>', 'response rate limiting: UDP responses a second per client prefix and response class (off when not given)')
    .option('--rrl-slip <n>', 'every Nth limited response goes out truncated (TC) so real resolvers retry over TCP; 0 drops all', '2')
    .option('--rrl-mode <mode>', 'enforce (limit) or log (count what would be limited, limit nothing)', 'enforce')
    .option('--rrl-ipv4-prefix <bits>', 'IPv4 clients are limited together by this prefix', '24')
    .option('--rrl-ipv6-prefix <bits>', 'IPv6 clients are limited together by this prefix', '56')
    .option('--rrl-exempt <cidrs>', 'clients never limited: comma-separated CIDRs or addresses')
    .option('--no-cookies', 'do not answer DNS cookies (RFC 7873/9018; on by default)')
    .option(
      '--proxy-protocol-from <cidrs>',
      "DNS fronts (dnsdist) that send PROXY protocol v2: comma-separated CIDRs or addresses; their header is required, anyone else's refused",
    )
    .option(
      '--dnstap <target>',
      "send sampled queries and answers as dnstap (Frame Streams) to unix:PATH or tcp:HOST:PORT, the routing decision in each answer's extra field",
    )
    .option('--dnstap-sample <n>', 'dnstap every Nth query (1 = every query)', '1');
}

/** `serve`'s decision log (`tmkit dns` has no API to read one). */
export function addDecisionLogOption(cmd: Command): Command {
  return cmd
    .option('--decision-sample <n>', "keep every Nth query's routing decision in this node's decision log (tmkit decisions); 0 = none", '1')
    .option('--decision-log <file>', 'also append the decision log to FILE as NDJSON (rotated at 64 MiB, FILE.1 to FILE.3 kept)');
}

/** `--decision-log FILE` must be a file this process can append to: checked before anything starts (exit 2). */
export function checkDecisionLog(file: string | undefined, sample: number): void {
  if (file === undefined) return;
  if (sample === 0) throw new CliError('--decision-log needs the decision log: drop --decision-sample 0', EXIT_USAGE);
  try {
    // Not a FIFO or a device: opening one could wait for a reader forever.
    const st = statSync(file, { throwIfNoEntry: false });
    if (st !== undefined && !st.isFile()) throw new Error('not a regular file');
    closeSync(openSync(file, 'a', 0o640));
  } catch (err) {
    throw new CliError(`--decision-log ${file}: ${(err as Error).message}; give a file in a directory this user can write`, EXIT_USAGE);
  }
}

/** dnstap and the decision log from the flags. Every problem names its flag (exit 2). */
export function tapFrom(o: { dnstap?: string; dnstapSample?: string; decisionSample?: string }): DnsTapOptions {
  let dnstap: DnstapTarget | undefined;
  if (o.dnstap !== undefined) {
    try {
      dnstap = parseDnstapTarget(o.dnstap);
    } catch (err) {
      throw new CliError((err as Error).message, EXIT_USAGE);
    }
  }
  return {
    ...(dnstap ? { dnstap } : {}),
    dnstapSample: intOption('--dnstap-sample', o.dnstapSample ?? '1', 1, 1_000_000),
    decisionSample: intOption('--decision-sample', o.decisionSample ?? '0', 0, 1_000_000),
    version: `tmkit ${packageVersion()}`,
  };
}

/** The RRL settings from the flags; undefined without `--rrl`. Every problem names its flag (exit 2). */
export function rrlFrom(o: {
  rrl?: string;
  rrlSlip?: string;
  rrlMode?: string;
  rrlIpv4Prefix?: string;
  rrlIpv6Prefix?: string;
  rrlExempt?: string;
}): DnsLimits['rrl'] {
  if (o.rrl === undefined) return undefined;
  const mode = (o.rrlMode ?? 'enforce').toLowerCase();
  if (mode !== 'enforce' && mode !== 'log') throw new CliError(`--rrl-mode ${o.rrlMode}: expected enforce or log`, EXIT_USAGE);
  const exempt = cidrList('--rrl-exempt', o.rrlExempt);
  return {
    rate: intOption('--rrl', o.rrl, 1, 1_000_000),
    slip: intOption('--rrl-slip', o.rrlSlip ?? '2', 0, 100),
    mode,
    ipv4Prefix: intOption('--rrl-ipv4-prefix', o.rrlIpv4Prefix ?? '24', 8, 32),
    ipv6Prefix: intOption('--rrl-ipv6-prefix', o.rrlIpv6Prefix ?? '56', 16, 128),
    exempt,
  };
}

/**
 * A comma-separated list of addresses and CIDRs, each checked with the DNS wing's own rule (core/net/ip.ts
 * parsePrefix: host bits refused), so a bad entry is exit 2 naming the flag here, not a failed start.
 */
function cidrList(flag: string, text: string | undefined): string[] {
  const list = (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const c of list) {
    const parsed = parsePrefix(c);
    if ('error' in parsed)
      throw new CliError(
        `${flag} ${c}: ${parsed.error}; expected an IP address or a CIDR such as 192.0.2.0/24 or 2001:db8::/32`,
        EXIT_USAGE,
      );
  }
  return list;
}

/** The DNS limits from the flags (`payloadFlag`: `--max-udp-payload` for serve, `--udp-payload` for dns). */
export function dnsLimitsFrom(
  o: {
    udpPayload: string;
    tcpIdleTimeout: string;
    tcpMessageTimeout?: string;
    tcpMaxConnections: string;
    tcpMaxConnectionsPerClient: string;
    proxyProtocolFrom?: string;
  } & Parameters<typeof rrlFrom>[0] &
    Parameters<typeof tapFrom>[0],
  payloadFlag: string,
): DnsLimits {
  const rrl = rrlFrom(o);
  const tap = tapFrom(o);
  const proxyProtocolFrom = cidrList('--proxy-protocol-from', o.proxyProtocolFrom);
  return {
    ...(rrl ? { rrl } : {}),
    ...(proxyProtocolFrom.length > 0 ? { proxyProtocolFrom } : {}),
    tap,
    udpPayloadCap: intOption(payloadFlag, o.udpPayload, 512, 4096),
    tcp: {
      idleTimeoutMs: intOption('--tcp-idle-timeout', o.tcpIdleTimeout, 1, 3_600_000),
      messageTimeoutMs: intOption('--tcp-message-timeout', o.tcpMessageTimeout ?? '2000', 1, 3_600_000),
      maxConnections: intOption('--tcp-max-connections', o.tcpMaxConnections, 1, 1_000_000),
      maxConnectionsPerClient: intOption('--tcp-max-connections-per-client', o.tcpMaxConnectionsPerClient, 1, 1_000_000),
    },
  };
}

/**
 * The zone's own data as the options give it (`--zone`, `--ns`, `--soa-rname`), checked by the core's zone
 * rules before anything starts: every problem at once, named by the option that caused it (exit 2).
 */
export function checkAuthority(
  zone: string,
  rawNs: readonly string[],
  ns: ReadonlyArray<{ name: string; addresses: string[] }>,
  soaRname: string | undefined,
): void {
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

/** What `--dnssec`, `--dnssec-algorithm`, `--dnssec-keys`, `--dnssec-cache-size` and `--dnssec-sign-rate` give. */
export interface DnssecFlags {
  dnssec?: boolean;
  dnssecAlgorithm: string;
  dnssecKeys: string;
  dnssecCacheSize?: string;
  dnssecSignRate?: string;
}

/** The DNSSEC flags `serve` and `dns` share; `where`: where the keys are kept. */
export function addDnssecOptions(cmd: Command, where: string): Command {
  return cmd
    .option('--dnssec', `sign the zone (DNSSEC: online signing, compact denial of existence); keys are made on first start, ${where}`)
    .option('--dnssec-algorithm <alg>', 'DNSSEC algorithm of new keys: 13 (ECDSAP256SHA256) or 15 (ED25519)', '13')
    .option('--dnssec-keys <mode>', 'csk: one combined signing key; split: a KSK and a ZSK', 'csk')
    .option('--dnssec-cache-size <MiB>', 'DNSSEC signature cache per DNS process, in MiB', String(SIGNING_LIMIT_DEFAULTS.cacheBytes / MIB))
    .option(
      '--dnssec-sign-rate <n>',
      'new DNSSEC signatures per second per DNS process for names that do not exist (0: unlimited); beyond, TC',
      String(SIGNING_LIMIT_DEFAULTS.signRate),
    );
}

const MIB = 1024 * 1024;

/** `--dnssec-cache-size` and `--dnssec-sign-rate`: set for this process and the DNS workers it forks (signing-limits.ts). */
function signingLimitsFrom(opts: DnssecFlags): void {
  const size = opts.dnssecCacheSize ?? String(SIGNING_LIMIT_DEFAULTS.cacheBytes / MIB);
  const rate = opts.dnssecSignRate ?? String(SIGNING_LIMIT_DEFAULTS.signRate);
  const mib = Number(size);
  if (!/^\d+(\.\d+)?$/.test(size.trim()) || !(mib >= 1 && mib <= 65536))
    throw new CliError(`--dnssec-cache-size ${size}: a size in MiB from 1 to 65536`, EXIT_USAGE);
  const perSecond = Number(rate);
  if (!/^\d+$/.test(rate.trim()) || perSecond > 1_000_000)
    throw new CliError(`--dnssec-sign-rate ${rate}: signatures per second, 0 (unlimited) to 1000000`, EXIT_USAGE);
  setSigningLimits({ cacheBytes: Math.floor(mib * MIB), signRate: perSecond });
}

/** `--dnssec [--dnssec-algorithm 13|15] [--dnssec-keys csk|split]`; undefined without --dnssec. */
export function dnssecPolicyFrom(opts: DnssecFlags): KeyPolicy | undefined {
  const alg = opts.dnssecAlgorithm.trim().toUpperCase();
  const algorithm = alg === '13' || alg === 'ECDSAP256SHA256' ? 13 : alg === '15' || alg === 'ED25519' ? 15 : undefined;
  if (algorithm === undefined)
    throw new CliError(`--dnssec-algorithm ${opts.dnssecAlgorithm}: 13 (ECDSAP256SHA256) or 15 (ED25519)`, EXIT_USAGE);
  const mode = opts.dnssecKeys.trim().toLowerCase();
  if (mode !== 'csk' && mode !== 'split')
    throw new CliError(`--dnssec-keys ${opts.dnssecKeys}: csk (one combined signing key) or split (a KSK and a ZSK)`, EXIT_USAGE);
  signingLimitsFrom(opts);
  if (!opts.dnssec) {
    if (opts.dnssecAlgorithm !== '13' || opts.dnssecKeys !== 'csk')
      throw new CliError('--dnssec-algorithm and --dnssec-keys need --dnssec', EXIT_USAGE);
    if (opts.dnssecCacheSize !== undefined && Number(opts.dnssecCacheSize) !== SIGNING_LIMIT_DEFAULTS.cacheBytes / MIB)
      throw new CliError('--dnssec-cache-size needs --dnssec', EXIT_USAGE);
    if (opts.dnssecSignRate !== undefined && Number(opts.dnssecSignRate) !== SIGNING_LIMIT_DEFAULTS.signRate)
      throw new CliError('--dnssec-sign-rate needs --dnssec', EXIT_USAGE);
    return undefined;
  }
  return { algorithm, split: mode === 'split' };
}
