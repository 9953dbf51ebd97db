/**
 * The DNS wing's face toward the engine: `DnsTarget`, what DNS is to the rest of the runtime whether it
 * answers in this process (local.ts) or in worker processes (workers.ts), and the settings both take.
 */
import type { CompiledSnapshot } from '../../core/routing';
import type { SnapshotUpdate } from '../snapshot-sink';
import type { DnsCounts } from './counts';
import type { KeySetDocument } from './dnssec/keys';
import { CookieJar } from './cookies';
import type { ResponderOptions } from './responder-options';
import { ResponseRateLimiter, type RrlOptions } from './rrl';
import type { SignerStats } from './dnssec/signer';
import type { ResponderStats } from './responder';
import type { RrlAlert } from './rrl-alerts';
import type { BoundAddress, TcpOptions } from './server';
import type { TrafficRow } from './traffic';
import { decisionEvery, QueryTap, type DnsTapOptions } from './tap';
import type { DecisionQuery, DecisionRecord } from './decisions';
import type { DnstapStats } from './dnstap';

/** Where snapshots go: the DNS server in this process, or DNS worker processes. */
export interface DnsTarget {
  start(): Promise<void>;
  /**
   * `delta` and `full` are only computed when a worker needs them; `serial` sets the SOA serial (else +1);
   * `revision` is the store revision the snapshot reflects (decision records).
   */
  publish(snapshot: CompiledSnapshot, delta: () => SnapshotUpdate, full: () => SnapshotUpdate, serial?: number, revision?: number): void;
  addresses(): BoundAddress[];
  stats(): ResponderStats | undefined;
  counts(): DnsCounts | undefined;
  close(): Promise<void>;
  /** Traffic View counts since the last call (the workers': what they reported since). */
  drainTraffic(): TrafficRow[];
  /** The DNS worker processes (undefined: DNS answers in this process). */
  workers?(): DnsWorkerReport[];
  /** How the workers hold the port (undefined: DNS answers in this process). */
  readonly sockets?: DnsSockets;
  /** DNSSEC: sign with this key set from now on (every DNS process; `serve --dnssec`). */
  setDnssec(doc: KeySetDocument): void;
  /** The signers' figures (summed over the workers); undefined without DNSSEC. */
  dnssecStats(): SignerStats | undefined;
  /** DNS cookies: make and check with these secrets from now on (every DNS process; a rotation, here or on another node). */
  setCookies(secrets: DnsCookieSecrets): void;
  /** Sustained rate limiting of this node (every DNS process folded into one period, rrl-alerts.ts); without `--rrl`, never. */
  onRrl(listener: (alert: RrlAlert) => void): () => void;
  /** The decision log of this node (every DNS process's sampled records), matching `q`, oldest first. */
  decisions(q: DecisionQuery): DecisionRecord[];
  /** The decision log's records added after `mark` (a count; start with 0) and the count to pass next time. */
  decisionsAfter(mark: number): { records: DecisionRecord[]; mark: number };
  /** dnstap's figures (summed over the DNS processes); undefined without `--dnstap`. */
  dnstapStats(): DnstapStats | undefined;
}

/** How DNS worker processes hold the port: each its own sockets (SO_REUSEPORT), or one socket through the primary. */
export type DnsSockets = 'per-worker' | 'shared';

/** One DNS worker process as `/metrics` and `tmkit dns`'s stop summary show it. */
export interface DnsWorkerReport {
  /** 1..N; a worker that replaces a dead one takes its slot. */
  slot: number;
  pid: number;
  /** False once the process has exited (its last report still counts in the totals). */
  live: boolean;
  /** It exited while DNS was running (not stopped) and another process took its slot. */
  replaced: boolean;
  /** Its latest cumulative counters (every second while it answers, and when it stops). */
  stats: ResponderStats;
}

/** What the zone says about itself: apex NS names, their in-zone addresses (glue) and the SOA contact. */
export interface DnsAuthority {
  nsNames?: string[];
  nsAddresses?: Record<string, string[]>;
  soa?: { rname: string };
}

/** What `serve --max-udp-payload`, `--tcp-idle-timeout`, `--tcp-message-timeout`, `--tcp-max-connections(-per-client)`, `--rrl*`, `--proxy-protocol-from` set. */
export interface DnsLimits {
  udpPayloadCap?: number;
  tcp?: Partial<TcpOptions>;
  /** Response rate limiting (`--rrl RATE` and its flags): each DNS process keeps its own fixed-size table. */
  rrl?: RrlOptions;
  /** PROXY protocol v2 fronts (`--proxy-protocol-from`): their header is required, anyone else's refused. */
  proxyProtocolFrom?: string[];
  /** dnstap and the decision log (`--dnstap`, `--dnstap-sample`, `--decision-sample`): each DNS process its own tap. */
  tap?: DnsTapOptions;
}

/** The DNS cookie secrets (`serve`, on unless `--no-cookies`): every DNS process of a node makes and checks with them. */
export interface DnsCookieSecrets {
  current: Uint8Array;
  previous?: Uint8Array;
}

/**
 * The DnsServer options for the limits and the cookies: the UDP payload cap and TCP limits as they are, a
 * rate limiter of this process's own (RRL tables are per DNS process), a cookie jar over the node's secrets.
 */
export function admission(
  limits: DnsLimits | undefined,
  cookies: DnsCookieSecrets | undefined,
  worker = false,
  onProblem?: (message: string) => void,
): Pick<ResponderOptions, 'udpPayloadCap' | 'cookies' | 'rrl'> & {
  tcp?: Partial<TcpOptions>;
  proxyProtocolFrom?: string[];
  tap?: QueryTap;
} {
  const { rrl, tap, ...rest } = limits ?? {};
  return {
    ...rest,
    ...(rrl ? { rrl: new ResponseRateLimiter(rrl) } : {}),
    ...(cookies ? { cookies: CookieJar.fromSecrets(cookies) } : {}),
    // A DNS worker keeps no ring of its own: it reports its records to the primary's (workers.ts).
    ...(tap && (tap.dnstap || decisionEvery(tap) > 0) ? { tap: new QueryTap(tap, worker, onProblem) } : {}),
  };
}
