/**
 * DNS for the runtime and for `tmkit dns`: one path that either answers in this process (local.ts) or runs N
 * worker processes sharing the port (workers.ts), each rebuilding the same snapshot from the inputs the
 * primary publishes. `tmkit serve` (the engine) and `tmkit dns` (a static document) both start DNS through
 * `startDnsFleet`, so the listener, the worker protocol and the limits are the same in both.
 */
import type { Logger } from 'pino';
import type { Rng } from '../../core/ports';
import { resolve, type CompiledSnapshot } from '../../core/routing';
import type { SnapshotSink, SnapshotUpdate } from '../snapshot-sink';
import type { KeySetDocument } from './dnssec/keys';
import { LocalDns } from './local';
import { reusePortSupport } from './reuse-port';
import { DnsServer, type ListenAddress } from './server';
import { admission, type DnsAuthority, type DnsCookieSecrets, type DnsLimits, type DnsSockets, type DnsTarget } from './target';
import { DnsWorkerPool } from './workers';

/** DNS as a sink of the pipeline: each snapshot goes to DNS with the SOA serial `serials` gives (cluster mode: the etcd revision). */
export function dnsSink(dns: DnsTarget, serials?: { serial(): number }): SnapshotSink {
  return { publish: (p) => dns.publish(p.snapshot, p.delta, p.full, serials?.serial(), p.revision) };
}

export interface DnsFleetOptions {
  zone: string;
  listen: ListenAddress[];
  /** 1: DNS in this process; more: worker processes (this process must be the cluster primary, and its main
   * script must call `runDnsWorker()` in the workers, as `tmkit serve` and `tmkit dns` do). */
  workers: number;
  /**
   * With workers: whether each binds its own sockets with SO_REUSEPORT ('per-worker') or they share one
   * ('shared'). Default: per-worker where this Node and platform support it (reusePortSupport()).
   */
  sockets?: DnsSockets;
  authority?: DnsAuthority;
  limits?: DnsLimits;
  rng?: Rng;
  logger: Logger;
  /** What DNS answers from at start. */
  snapshot: CompiledSnapshot;
  /** The whole state for a worker that (re)starts; called only with workers. */
  full: () => SnapshotUpdate;
  /** The SOA serial of `snapshot` (cluster mode); default: the Unix time, +1 per swap. */
  serial?: number;
  /** DNSSEC (`serve --dnssec`): sign with this key set from the first answer. */
  dnssec?: KeySetDocument;
  /** DNS cookies (RFC 7873/9018): answer COOKIE options with server cookies made from these secrets. */
  cookies?: DnsCookieSecrets;
}

/** Starts DNS (in this process or in workers), serving `snapshot` until the first `publish`. */
export async function startDnsFleet(o: DnsFleetOptions): Promise<DnsTarget> {
  const sockets = o.workers > 1 ? (o.sockets ?? ((await reusePortSupport()).supported ? 'per-worker' : 'shared')) : undefined;
  const dns: DnsTarget =
    o.workers > 1
      ? new DnsWorkerPool(o.workers, o.listen, o.logger, sockets, o.cookies, o.limits?.tap)
      : new LocalDns(
          new DnsServer({
            zone: o.zone,
            snapshot: o.snapshot,
            resolve,
            rng: o.rng ?? Math.random,
            listen: o.listen,
            ...o.authority,
            ...admission(o.limits, o.cookies, false, (message) => o.logger.warn(message)),
          }),
        );
  if (o.dnssec) dns.setDnssec(o.dnssec);
  dns.publish(o.snapshot, o.full, o.full, o.serial);
  await dns.start();
  return dns;
}
