/**
 * Name resolution for probes of FQDN targets: the hosts file first, then DNS through c-ares
 * (`dns.Resolver`), never getaddrinfo.
 *
 * Why not getaddrinfo (`dns.lookup`): it runs on libuv's thread pool (4 threads) and cannot be cancelled.
 * With many FQDN targets whose DNS servers are slow or silent, the pool fills with lookups that each block
 * for the resolver's full timeout; a stopping `serve` then cannot exit (libuv joins those threads at exit,
 * even for `process.exit`), which is how 100 such targets kept a stopped process alive for 19 s. c-ares
 * queries are sockets on the event loop: `cancel()` ends them all at once, and nothing is left to wait for.
 */
import { Resolver } from 'node:dns/promises';
import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import type { Clock } from '../../core/ports';
import { systemClock } from '../clock';

export interface ProbeResolverOptions {
  /**
   * DNS servers (`192.0.2.53`, `192.0.2.53:5353`, `[2001:db8::53]:53`); default: the `nameserver` lines of
   * /etc/resolv.conf (c-ares reads the file as getaddrinfo does).
   */
  servers?: readonly string[];
  /** Consulted before DNS (default `/etc/hosts`; `''` for none). */
  hostsFile?: string;
  /** c-ares timeout of one query attempt (default 2000 ms; doubled per retry) and attempts per server (default 2). */
  timeoutMs?: number;
  tries?: number;
  /** How often, at most, the hosts file's modification time is checked (default 5000 ms). */
  hostsRecheckMs?: number;
  /** When the hosts file was last checked (default the system clock). */
  clock?: Clock;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** A failed resolution, with c-ares' code (`ENOTFOUND`, `ENODATA`, `ETIMEOUT`, `ESERVFAIL`, `ECANCELLED`, …). */
export class ResolveError extends Error {
  constructor(
    readonly hostname: string,
    readonly code: string,
  ) {
    super(`${hostname}: ${code}`);
    this.name = 'ResolveError';
  }
}

export class ProbeResolver {
  private readonly resolver: Resolver;
  private readonly hostsFile: string;
  private readonly hostsRecheckMs: number;
  private hosts = new Map<string, ResolvedAddress[]>();
  private hostsMtime = -1;
  private hostsCheckedAt = -Infinity;

  private readonly clock: Clock;

  constructor(opts: ProbeResolverOptions = {}) {
    this.resolver = new Resolver({ timeout: opts.timeoutMs ?? 2000, tries: opts.tries ?? 2 });
    if (opts.servers && opts.servers.length > 0) this.resolver.setServers([...opts.servers]);
    this.hostsFile = opts.hostsFile ?? '/etc/hosts';
    this.hostsRecheckMs = opts.hostsRecheckMs ?? 5_000;
    this.clock = opts.clock ?? systemClock;
  }

  /**
   * The addresses of `hostname`: the hosts file's entries in file order, else the A records, else the
   * AAAA records (IPv4 first, as a probe uses the first address; both queries go out at once). Rejects
   * with a ResolveError.
   */
  async lookup(hostname: string): Promise<ResolvedAddress[]> {
    const name = hostname.replace(/\.$/, '').toLowerCase();
    const fromHosts = this.hostsEntries().get(name);
    if (fromHosts && fromHosts.length > 0) return fromHosts.map((a) => ({ ...a }));
    const v4 = this.resolver.resolve4(name);
    const v6 = this.resolver.resolve6(name);
    v6.catch(() => undefined); // may be left unawaited below
    let err4: unknown;
    try {
      const a = await v4;
      if (a.length > 0) return a.map((address) => ({ address, family: 4 as const }));
    } catch (err) {
      err4 = err;
    }
    try {
      const aaaa = await v6;
      if (aaaa.length > 0) return aaaa.map((address) => ({ address, family: 6 as const }));
      throw new ResolveError(hostname, 'ENODATA');
    } catch (err6) {
      // The more telling of the two: "no such name/no data" only when neither query says something else.
      const code = (e: unknown): string => String((e as { code?: unknown } | undefined)?.code ?? 'ENODATA');
      const c4 = err4 === undefined ? 'ENODATA' : code(err4);
      const c6 = code(err6);
      const quiet = new Set(['ENODATA', 'ENOTFOUND']);
      throw new ResolveError(hostname, !quiet.has(c4) ? c4 : c6);
    }
  }

  /** Ends every outstanding query now (they reject with ECANCELLED). The resolver stays usable. */
  cancel(): void {
    this.resolver.cancel();
  }

  private hostsEntries(): Map<string, ResolvedAddress[]> {
    if (this.hostsFile === '') return this.hosts;
    const now = this.clock.now();
    if (now - this.hostsCheckedAt < this.hostsRecheckMs) return this.hosts;
    this.hostsCheckedAt = now;
    let mtime: number;
    try {
      mtime = statSync(this.hostsFile).mtimeMs;
    } catch {
      this.hosts = new Map();
      this.hostsMtime = -1;
      return this.hosts;
    }
    if (mtime !== this.hostsMtime) {
      this.hostsMtime = mtime;
      try {
        this.hosts = parseHosts(readFileSync(this.hostsFile, 'utf8'));
      } catch {
        this.hosts = new Map();
      }
    }
    return this.hosts;
  }
}

/** hosts(5): `address name [aliases…]`, `#` comments; names case-insensitive; addresses in file order. */
export function parseHosts(text: string): Map<string, ResolvedAddress[]> {
  const out = new Map<string, ResolvedAddress[]>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const [address, ...names] = line.split(/\s+/);
    const family = isIP(address!);
    if (family === 0) continue;
    for (const n of names) {
      const key = n.replace(/\.$/, '').toLowerCase();
      const list = out.get(key) ?? [];
      if (!list.some((a) => a.address === address)) list.push({ address: address!, family: family as 4 | 6 });
      out.set(key, list);
    }
  }
  return out;
}
