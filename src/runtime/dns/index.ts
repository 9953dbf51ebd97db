/**
 * The DNS wing (docs/dns.md, docs/dnssec.md): everything that answers DNS, and its one face to the rest of
 * the runtime. Nothing outside src/runtime/dns/ imports a file inside it but this one.
 *
 * A query passes the rooms in one order:
 *   1. server.ts     the sockets: UDP datagrams, TCP connections, framing, the TCP timers and connection cap
 *   2. wire.ts       the header, question and EDNS (ECS, DO, COOKIE) parsed by hand
 *   3. responder.ts  the answer: the cache of pre-encoded answers (answer-cache.ts), or on a miss the pure
 *                    zone lookup (core/zone, core/routing) encoded once (encode.ts); ANY over UDP cut to one
 *                    RRset (minimal-any.ts)
 *   4. dnssec/       signed online when the query asks (signer.ts, bounded by signing-limits.ts), keys and
 *                    rollovers (service.ts)
 *   5. admission.ts  the answer's cookie (cookies.ts) and the rate limiter's word (rrl.ts): pass, slip or drop
 *   6. counts.ts, traffic.ts  tallies for /metrics and Traffic View; then server.ts sends the bytes
 *
 * Around it: target.ts (`DnsTarget`, what DNS is to the engine), local.ts (DNS in this process),
 * workers.ts (DNS in worker processes: the primary's pool and the worker's loop, one protocol),
 * fleet.ts (`startDnsFleet`, `dnsSink`), port-probe.ts and reuse-port.ts (what the ports and the platform allow),
 * cookie-secrets.ts (the cookie secret in the state dir or in etcd, and its rotation), rrl-alerts.ts (sustained
 * rate limiting, one period per node, for the `rrl` live event).
 */
export { DnsServer, type DnsServerOptions, type ListenAddress, type TcpOptions, type BoundAddress } from './server';
export { Responder, type ResponderOptions, type ResolveFn, type SoaConfig, type ResponderStats, type Transport } from './responder';
export { parseQuery, ecsAddressText, type ParsedQuery, type Edns, type ClientSubnet } from './wire';
export { DnsCountsAggregate, type DnsCounts } from './counts';
export { TrafficStore, TrafficTallies, TrafficTally, TRAFFIC_BUCKET_MS, TRAFFIC_EXACT, TRAFFIC_STRIDE, type TrafficRow } from './traffic';
export type { DnsTarget, DnsSockets, DnsWorkerReport, DnsAuthority, DnsLimits, DnsCookieSecrets } from './target';
export { CookieJar, loadOrCreateCookieSecret, rotateCookieSecret, COOKIE_SECRET_FILE, type CookieSecrets } from './cookies';
export { openCookieSecrets, type CookieSecretSource, type CookieSecretInfo } from './cookie-secrets';
export { CookieSecretError } from './cookies';
export type { RrlAlert } from './rrl-alerts';
export { ResponseRateLimiter, classify as classifyResponse, type RrlOptions, type RrlStats } from './rrl';
export { LocalDns } from './local';
export { DnsWorkerPool, runDnsWorker, isDnsWorker, geoOptions, type DnssecUpdate } from './workers';
export { startDnsFleet, dnsSink, type DnsFleetOptions } from './fleet';
/** The worker protocol's snapshot message (declared beside the pipeline's sink port). */
export type { SnapshotUpdate } from '../snapshot-sink';
export { reusePortSupport, autoWorkers, mainProcessNotice, sharedSocketNotice, type ReusePortSupport } from './reuse-port';
export * from './dnssec';
export {
  parseDnstapTarget,
  dnstapFrames,
  dnstapHead,
  encodeFrames,
  framesRoom,
  DnstapWriter,
  type DnstapTarget,
  type DnstapStats,
  type TappedQuery,
  type TappedDecision,
} from './dnstap';
export { decisionEvery, QueryTap, type DnsTapOptions } from './tap';
export { DecisionRing, clientMatcher, decisionTail, type DecisionRecord, type DecisionQuery } from './decisions';
