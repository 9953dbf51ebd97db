/**
 * What the responder (responder.ts) is given and what it reports: its options, the routing function it
 * calls on a miss, the SOA settings, the transports it answers on and its running stats.
 */
import type { Clock, Rng } from '../../core/ports';
import type { RoutingQuery, RoutingResolution, RoutingSnapshot } from '../../core/routing/types';
import type { SoaConfig as ZoneSoaConfig } from '../../core/zone';
import type { CookieJar } from './cookies';
import type { ResponseRateLimiter } from './rrl';

export type ResolveFn = (snapshot: RoutingSnapshot, query: RoutingQuery) => RoutingResolution;

/**
 * The zone's SOA record (RFC 1035 §3.3.13) and the TTL of the zone's own records, as core/zone defines
 * them (defaults there). `serial` is optional here: the responder starts it at the current Unix time.
 */
export type SoaConfig = Omit<ZoneSoaConfig, 'serial'> & { serial?: number };

export interface ResponderOptions {
  /** The authoritative zone (`tm.internal`), any case, with or without trailing dot. */
  zone: string;
  /** Where the SOA serial starts when `soa.serial` is not given (its Unix time); default the system clock. */
  clock?: Clock;
  soa?: Partial<SoaConfig>;
  /** Apex NS names. Default `[soa.mname]`. */
  nsNames?: string[];
  /**
   * Addresses of name servers inside the zone (`ns1.tm.internal` → `['192.0.2.53']`): answered
   * authoritatively at those names and added as glue to the apex NS answer. Addresses for a name outside
   * the zone are an error (DNS_ZONE_INVALID): tmkit is not authoritative for them.
   */
  nsAddresses?: Record<string, string[]>;
  snapshot: RoutingSnapshot;
  /** Routing for the names that are not the zone's own (the zone lookup's `route`): `resolve` from core. */
  resolve: ResolveFn;
  rng: Rng;
  /** Largest UDP response we send and advertise in OPT (RFC 6891; DNS flag day 2020 value). Default 1232. */
  udpPayloadCap?: number;
  /** Max cached questions (static answers). Default 20000. */
  cacheSize?: number;
  /** Max cached per-outcome encodings for client-dependent names. Default 20000. */
  dynamicCacheSize?: number;
  /**
   * Compress names in answers (RFC 1035 §4.1.4). Default true; false writes every name in full, as
   * dns-packet did before (for size comparisons and benchmarks).
   */
  compressNames?: boolean;
  /**
   * DNS Cookies (RFC 7873, server cookies per RFC 9018): a query with a COOKIE option gets our server
   * cookie in its answer; a valid one exempts the client from rate limiting. Absent: the option is ignored.
   */
  cookies?: CookieJar;
  /** Response rate limiting for UDP answers (NSD/Knot RRL): absent, nothing is limited. */
  rrl?: ResponseRateLimiter;
  /** Called when a query is dropped or answered with an error rcode (debug logging). */
  onError?: (reason: string, rcode: number | 'drop') => void;
}

export type Transport = 'udp' | 'tcp';

export interface ResponderStats {
  queries: number;
  cacheHits: number;
  dropped: number;
  errors: number;
  truncated: number;
  /** Answers that carried a server cookie we made (new, or renewed). */
  cookiesIssued: number;
  /** Queries whose server cookie we accepted (never rate limited). */
  cookiesValid: number;
  /** BADCOOKIE answers (a rate-limited client that speaks cookies is told to come back with ours). */
  badCookies: number;
  /** Rate limiting: answers sent truncated (TC) instead, dropped, and (log mode) that would have been. */
  rrlSlipped: number;
  rrlDropped: number;
  rrlWouldLimit: number;
  /** DNSSEC: denials over the signing budget, answered with TC instead (`--dnssec-sign-rate`). */
  signRefused: number;
  /**
   * PROXY protocol v2 (`--proxy-protocol-from`): datagrams and connections whose header was read, dropped
   * because a front sent none (or a broken one), and headers refused from an address that is not a front.
   */
  proxyAccepted: number;
  proxyMissing: number;
  proxyRefused: number;
}

/** Every counter at zero. */
export function zeroStats(): ResponderStats {
  return {
    queries: 0,
    cacheHits: 0,
    dropped: 0,
    errors: 0,
    truncated: 0,
    cookiesIssued: 0,
    cookiesValid: 0,
    badCookies: 0,
    rrlSlipped: 0,
    rrlDropped: 0,
    rrlWouldLimit: 0,
    signRefused: 0,
    proxyAccepted: 0,
    proxyMissing: 0,
    proxyRefused: 0,
  };
}
