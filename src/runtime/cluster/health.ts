/**
 * Probing from several locations (docs/cluster.md). Each node is one probing location: it writes only
 * its verdict *transitions*, one key per endpoint per location (`health/<profile>/<endpoint>/<location>`),
 * attached to its lease, and reads every other location's keys from the session's mirror. The verdict DNS
 * answers with is core's `aggregate()` over the live locations (those with a registered node): Degraded only
 * when strictly more than half of them say Degraded.
 *
 * - Steady state writes nothing: a key is written when this location's verdict (or the probe settings it
 *   belongs to) changes, and deleted when the verdict goes back to CheckingEndpoint or the endpoint goes.
 *   Lease keep-alives are not writes (etcd's revision does not move).
 * - A verdict reached with other probe settings than this node's (a location whose configuration is behind or
 *   ahead) counts as undecided, never as a vote about the new settings.
 * - This node's own verdicts always come from its own prober (also while etcd is down: static stability);
 *   the others from the last state the mirror saw.
 * - When the lease is granted anew (etcd was unreachable longer than the TTL), everything is rewritten.
 */
import type { Logger } from 'pino';
import { aggregate } from '../../core/health/machine';
import { splitTargetKey } from '../../core/health/targets';
import type { ProbeVerdict } from '../../core/health/types';
import { isoNow, type RuntimeClock } from '../clock';
import { NodeLease } from './lease';
import { keyOfNode, keyOfVerdict, type LocationVerdict, type NodeRecord } from '../etcd/keys';
import type { EtcdSession } from '../etcd/session';

/** This location's current verdict on a probed endpoint. */
export interface OwnVerdict {
  verdict: ProbeVerdict;
  fingerprint: string;
  /** ms since epoch of the transition that reached it. */
  at: number;
  reason: string;
}

/** One location's view of one endpoint, for `tmkit status` and the status API. */
export interface LocationReport {
  location: string;
  /** The node probing from there. */
  node?: string;
  verdict: ProbeVerdict;
  /** ISO time of that location's last transition. */
  since?: string;
  reason?: string;
  /** A verdict of a location with a registered node (only those count). */
  live: boolean;
  /** This node's own location. */
  self: boolean;
  /** Its verdict belongs to other probe settings (it is behind or ahead): counted as undecided. */
  otherSettings?: boolean;
}

/** This location as the health ledger has it (ledger/ledger.ts attaches itself). */
export interface LocationSource {
  /** This node's effective verdict of a probed endpoint (`profile/endpoint`); undefined when it is not probed. */
  own(key: string): OwnVerdict | undefined;
  /** The probed endpoints and their probe-settings fingerprints, as this node's configuration has them. */
  targets(): ReadonlyMap<string, string>;
}

export interface ClusterHealthOptions {
  session: EtcdSession;
  node: string;
  location: string;
  leaseTtlSeconds: number;
  logger?: Logger;
  clock: RuntimeClock;
  /** What the node record says about this node (where it answers). */
  info?: { dns?: string[]; api?: string };
}

const MAX_OPS = 100;

type Op = { request_put: { key: Buffer; value: Buffer; lease: string } } | { request_delete_range: { key: Buffer } };

export class ClusterHealth {
  readonly lease: NodeLease;
  readonly node: string;
  readonly location: string;
  /** Identity (`verdict|fingerprint`) of what this location has committed under the current lease, by `profile/endpoint`. */
  private written = new Map<string, string>();
  private readonly dirty = new Set<string>();
  /** The targets (probe-settings fingerprints) at the last retarget. */
  private lastTargets = new Map<string, string>();
  private nodeWritten = false;
  private flushing: Promise<void> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly startedAt: string;
  /** This location's verdicts and targets; nothing until the ledger attaches. */
  private self: LocationSource = { own: () => undefined, targets: () => new Map() };
  private info: { dns?: string[]; api?: string };
  /** Verdict keys written and deleted, and transactions, since start (steady state: no change). */
  readonly stats = { puts: 0, deletes: 0, txns: 0, failedTxns: 0 };

  constructor(private readonly deps: ClusterHealthOptions) {
    this.node = deps.node;
    this.location = deps.location;
    this.info = deps.info ?? {};
    this.startedAt = isoNow(deps.clock);
    this.lease = new NodeLease(deps.session, deps.leaseTtlSeconds, deps.logger);
  }

  /**
   * Joins the cluster: refuses a location another live node already probes from, takes over this node's
   * previous lease (a restart), grants the lease and registers. With etcd down, it joins when etcd is back.
   */
  async start(): Promise<void> {
    const s = this.deps.session;
    for (const n of s.nodes.values()) {
      if (n.node !== this.node && n.location === this.location && s.isConnected()) {
        throw new Error(
          `location '${this.location}' is already probed by node '${n.node}' (registered ${n.startedAt}); ` +
            `each node is its own probing location: give this one another --location (or stop '${n.node}')`,
        );
      }
    }
    const previous = s.nodes.get(this.node);
    if (previous && s.isConnected()) {
      // A restart: the old process's lease still holds its keys until its TTL runs out. Drop them now.
      await s.call((c) => c.leaseClient.leaseRevoke({ ID: previous.lease })).catch(() => undefined);
    }
    this.unsubscribe.push(
      this.lease.onGranted(() => {
        this.written.clear();
        this.nodeWritten = false;
        this.markAll();
        this.scheduleFlush();
      }),
    );
    this.unsubscribe.push(
      s.onState((up) => {
        if (up) this.scheduleFlush();
      }),
    );
    this.markAll();
    await this.lease.start();
    await this.flush();
  }

  /** The health ledger's view of this location (before `start()`). */
  attach(self: LocationSource): void {
    this.self = self;
  }

  /** Where this node answers (set once DNS and the API listen). */
  setInfo(info: { dns?: string[]; api?: string }): void {
    this.info = info;
    this.nodeWritten = false;
    this.scheduleFlush();
  }

  /** This location's verdict on `key` may have changed. */
  ownChanged(key: string): void {
    this.dirty.add(key);
    this.scheduleFlush();
  }

  /**
   * The configuration changed: endpoints added, removed or with new probe settings are looked at again (a
   * write of one profile costs a map comparison here, not a pass over every endpoint's verdict).
   */
  retargeted(keys?: Iterable<string>): void {
    const now = this.self.targets();
    if (keys !== undefined) {
      // Only these endpoints can have changed (the engine's incremental retarget): look at them alone.
      for (const k of keys) {
        const fp = now.get(k);
        if (this.lastTargets.get(k) === fp) continue;
        this.dirty.add(k);
        if (fp === undefined) this.lastTargets.delete(k);
        else this.lastTargets.set(k, fp);
      }
    } else {
      for (const [k, fp] of now) if (this.lastTargets.get(k) !== fp) this.dirty.add(k);
      for (const k of this.lastTargets.keys()) if (!now.has(k)) this.dirty.add(k);
      this.lastTargets = new Map(now);
    }
    if (this.dirty.size > 0) this.scheduleFlush();
  }

  private markAll(): void {
    for (const k of this.written.keys()) this.dirty.add(k);
    for (const k of this.self.targets().keys()) this.dirty.add(k);
    this.lastTargets = new Map(this.self.targets());
  }

  /** Locations that count: those with a registered node, and always this one. */
  liveLocations(): string[] {
    const out = new Set<string>([this.location]);
    for (const n of this.deps.session.nodes.values()) out.add(n.location);
    return [...out].sort();
  }

  /** The verdict of every endpoint this node probes, aggregated over the live locations. */
  verdicts(own: ReadonlyMap<string, ProbeVerdict>): Map<string, ProbeVerdict> {
    const live = this.liveLocations();
    // One location (this node alone): its own verdicts, as a single serve.
    if (live.length === 1) return new Map(own);
    const targets = this.self.targets();
    const out = new Map<string, ProbeVerdict>();
    const byLocation = new Map<string, ProbeVerdict | undefined>();
    for (const [key, mine] of own) out.set(key, this.aggregateOne(key, mine, live, targets, byLocation));
    return out;
  }

  /** One endpoint's aggregated verdict (what verdicts() holds for `key`), given this location's. */
  verdictOf(key: string, mine: ProbeVerdict | undefined): ProbeVerdict | undefined {
    if (mine === undefined) return undefined;
    const live = this.liveLocations();
    return live.length === 1 ? mine : this.aggregateOne(key, mine, live, this.self.targets(), new Map());
  }

  private aggregateOne(
    key: string,
    mine: ProbeVerdict,
    live: readonly string[],
    targets: ReadonlyMap<string, string>,
    byLocation: Map<string, ProbeVerdict | undefined>,
  ): ProbeVerdict {
    byLocation.clear();
    byLocation.set(this.location, mine);
    const shared = this.deps.session.health.get(key);
    if (shared) {
      const fp = targets.get(key);
      for (const [loc, v] of shared) if (loc !== this.location && v.fingerprint === fp) byLocation.set(loc, v.verdict);
    }
    return aggregate(byLocation, live);
  }

  /** Each location's view of one endpoint (live ones first, this node's location among them). */
  locations(key: string): LocationReport[] {
    const live = new Set(this.liveLocations());
    const nodeOf = new Map<string, string>();
    for (const n of this.deps.session.nodes.values()) nodeOf.set(n.location, n.node);
    nodeOf.set(this.location, this.node);
    const fp = this.self.targets().get(key);
    const shared = this.deps.session.health.get(key) ?? new Map<string, LocationVerdict>();
    const names = new Set([...live, ...shared.keys()]);
    const out: LocationReport[] = [];
    for (const location of [...names].sort()) {
      const self = location === this.location;
      const r: LocationReport = { location, verdict: 'CheckingEndpoint', live: live.has(location), self };
      const node = nodeOf.get(location);
      if (node !== undefined) r.node = node;
      if (self) {
        const mine = this.self.own(key);
        if (mine) {
          r.verdict = mine.verdict;
          if (mine.at > 0) r.since = new Date(mine.at).toISOString();
          if (mine.reason) r.reason = mine.reason;
        }
      } else {
        const v = shared.get(location);
        if (v) {
          if (v.fingerprint === fp) r.verdict = v.verdict;
          else r.otherSettings = true;
          r.since = new Date(v.at).toISOString();
          r.reason = v.reason;
        }
      }
      out.push(r);
    }
    return out;
  }

  /** Registered nodes (from the mirror). */
  nodes(): NodeRecord[] {
    return [...this.deps.session.nodes.values()].sort((a, b) => (a.node < b.node ? -1 : 1));
  }

  /** Resolves when everything this location decided is committed (or etcd is unreachable). */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.dirty.size > 0 && this.deps.session.isConnected() && this.lease.id) await this.flush();
  }

  private scheduleFlush(): void {
    if (this.stopped || this.flushTimer) return;
    // Fold a burst of transitions (a start, a shared outage) into few transactions.
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, 10);
    this.flushTimer.unref();
  }

  private async flush(): Promise<void> {
    if (this.flushing) {
      await this.flushing;
      if (this.dirty.size === 0 && this.nodeWritten) return;
    }
    this.flushing = this.flushLoop().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  private async flushLoop(): Promise<void> {
    const s = this.deps.session;
    while (!this.stopped && s.isConnected() && this.lease.id && (this.dirty.size > 0 || !this.nodeWritten)) {
      const lease = this.lease.id;
      const ops: Op[] = [];
      const planned: Array<[string, string | undefined]> = [];
      const writeNode = !this.nodeWritten;
      if (writeNode) {
        const rec: NodeRecord = { node: this.node, location: this.location, lease, startedAt: this.startedAt, ...this.info };
        ops.push({ request_put: { key: s.key(keyOfNode(this.node)), value: Buffer.from(JSON.stringify(rec)), lease } });
      }
      for (const key of this.dirty) {
        if (ops.length >= MAX_OPS) break;
        const mine = this.self.own(key);
        const decided = mine && mine.verdict !== 'CheckingEndpoint' ? mine : undefined;
        const identity = decided ? `${decided.verdict}|${decided.fingerprint}` : undefined;
        if (identity === this.written.get(key)) {
          this.dirty.delete(key);
          continue;
        }
        const [profile, endpoint] = splitTargetKey(key);
        const k = s.key(keyOfVerdict(profile, endpoint, this.location));
        if (decided) {
          const v: LocationVerdict = {
            verdict: decided.verdict as LocationVerdict['verdict'],
            fingerprint: decided.fingerprint,
            node: this.node,
            at: decided.at,
            reason: decided.reason,
          };
          ops.push({ request_put: { key: k, value: Buffer.from(JSON.stringify(v)), lease } });
        } else {
          ops.push({ request_delete_range: { key: k } });
        }
        planned.push([key, identity]);
      }
      if (ops.length === 0) return;
      try {
        await s.call((c) => c.kv.txn({ success: ops }));
      } catch (err) {
        this.stats.failedTxns++;
        this.deps.logger?.warn(
          { err: (err as Error).message, pending: this.dirty.size },
          'could not write verdict transitions to etcd; retrying when it is reachable',
        );
        return;
      }
      if (this.lease.id !== lease) continue; // re-granted meanwhile: everything is rewritten
      this.stats.txns++;
      if (writeNode) this.nodeWritten = true;
      for (const [key, identity] of planned) {
        if (identity === undefined) {
          this.written.delete(key);
          this.stats.deletes++;
        } else {
          this.written.set(key, identity);
          this.stats.puts++;
        }
        // Changed again while the transaction was in flight? Then it stays dirty for the next round.
        const mine = this.self.own(key);
        const now = mine && mine.verdict !== 'CheckingEndpoint' ? `${mine.verdict}|${mine.fingerprint}` : undefined;
        if (now === identity) this.dirty.delete(key);
      }
    }
  }

  /** Leaves the cluster: revokes the lease (this location's verdicts and node record go at once). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    await this.flushing?.catch(() => undefined);
    for (const u of this.unsubscribe) u();
    await this.lease.stop(true);
  }
}
