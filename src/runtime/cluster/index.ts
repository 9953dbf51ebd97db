/**
 * A tmkit node of a cluster on etcd (docs/cluster.md): the etcd session and store, this node's probing
 * location, and what the runtime asks of them: the health ledger the aggregated verdicts (it is the
 * ledger's ClusterVerdicts), DNS the SOA serial, /healthz and /metrics the node's state. Everything
 * cluster-specific lives here.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { ClusterHealthBody } from '../../core/api';
import type { ProbeVerdict } from '../../core/health/types';
import { EtcdStore } from '../store/etcd';
import { systemClock, type RuntimeClock } from '../clock';
import { ClusterHealth, type LocationReport, type LocationSource } from './health';
import { ClusterLatency } from './latency';
import { EtcdSession } from '../etcd/session';
import { parseEtcdUrl } from '../etcd/url';

export { parseEtcdUrl, type EtcdTarget } from '../etcd/url';
export type { LocationReport, LocationSource, OwnVerdict } from './health';

/** `tmkit serve --store etcd://… --node … --location …` and the etcd client settings. */
export interface ClusterOptions {
  /** `etcd://HOST:PORT[,HOST:PORT…][/PREFIX]` or `etcds://…`. */
  store: string;
  node: string;
  location: string;
  /** Lease TTL: a dead node's verdicts expire this long after its last keep-alive (default 10 s). */
  leaseTtlSeconds?: number;
  /** PEM files for TLS (etcds://): CA bundle, client certificate and key. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  /** etcd user (RBAC). */
  auth?: { username: string; password: string };
  /** Deadline of one etcd request (default 5000 ms). */
  requestTimeoutMs?: number;
  /** How long start-up waits for etcd before serving the local copy (default 5000 ms). */
  connectTimeoutMs?: number;
}

const NODE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Checks the node and location names; throws naming the flag. */
export function checkClusterNames(node: string, location: string): void {
  if (!NODE_RE.test(node)) throw new Error(`--node ${node}: 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit`);
  if (!NODE_RE.test(location))
    throw new Error(`--location ${location}: 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit`);
}

export class ClusterNode {
  readonly health: ClusterHealth;
  /** This location's measured latency written to etcd, and the other locations' read (ledger/latency.ts's ClusterLatencies). */
  readonly latency: ClusterLatency;
  private constructor(
    readonly session: EtcdSession,
    readonly store: EtcdStore,
    health: ClusterHealth,
    readonly options: ClusterOptions,
    private readonly clock: RuntimeClock,
    logger: Logger,
  ) {
    this.health = health;
    this.latency = new ClusterLatency({
      session,
      lease: health.lease,
      node: options.node,
      location: options.location,
      clock,
      logger: logger.child({ component: 'cluster' }),
    });
  }

  /**
   * Opens the etcd session (or the local copy in `stateDir` while etcd is down) and the store. The health
   * ledger attaches this location's verdicts (`attach`); call `join()` once the prober has targets.
   */
  static async open(
    o: ClusterOptions,
    stateDir: string | undefined,
    logger: Logger,
    clock: RuntimeClock = systemClock,
  ): Promise<ClusterNode> {
    checkClusterNames(o.node, o.location);
    const target = parseEtcdUrl(o.store);
    const read = (f: string | undefined, what: string): Buffer | undefined => {
      if (f === undefined) return undefined;
      try {
        return readFileSync(f);
      } catch (err) {
        throw new Error(`${what} ${f}: ${(err as Error).message}`);
      }
    };
    const tls = o.tls
      ? { ca: read(o.tls.caFile, '--etcd-ca'), cert: read(o.tls.certFile, '--etcd-cert'), key: read(o.tls.keyFile, '--etcd-key') }
      : undefined;
    if (!target.tls && tls && (tls.ca || tls.cert))
      throw new Error(`--store ${o.store}: TLS files are given, so write etcds://… (TLS) instead of etcd://`);
    const session = await EtcdSession.open({
      hosts: target.hosts,
      prefix: target.prefix,
      logger: logger.child({ component: 'etcd' }),
      clock,
      ...(stateDir !== undefined && stateDir !== ':memory:' ? { stateDir } : {}),
      ...(tls ? { tls: Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined)) } : {}),
      ...(o.auth ? { auth: o.auth } : {}),
      ...(o.requestTimeoutMs !== undefined ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
      ...(o.connectTimeoutMs !== undefined ? { connectTimeoutMs: o.connectTimeoutMs } : {}),
    });
    const store = new EtcdStore(session, { ...(stateDir !== undefined && stateDir !== ':memory:' ? { stateDir } : {}), ownsSession: true });
    const health = new ClusterHealth({
      session,
      node: o.node,
      location: o.location,
      leaseTtlSeconds: o.leaseTtlSeconds ?? 10,
      logger: logger.child({ component: 'cluster' }),
      clock,
    });
    return new ClusterNode(session, store, health, o, clock, logger);
  }

  /** The health ledger's view of this location: its own verdicts and probe targets (what this node publishes). */
  attach(self: LocationSource): void {
    this.health.attach(self);
  }

  /** Other locations' verdicts or liveness changed (the mirror saw it). */
  onChange(listener: () => void): () => void {
    return this.session.onCluster(listener);
  }

  /** Endpoints added, removed or with new probe settings (all when `keys` is undefined). */
  retargeted(keys?: Iterable<string>): void {
    this.health.retargeted(keys);
  }

  /** This location's verdict on `key` changed: publish it. */
  ownChanged(key: string): void {
    this.health.ownChanged(key);
  }

  /** Registers this node and starts writing its verdict transitions. */
  async join(): Promise<void> {
    try {
      await this.health.start();
    } catch (err) {
      await this.store.close();
      throw err;
    }
  }

  /**
   * The SOA serial: the etcd revision the mirror has applied, taken when a snapshot is published. It covers
   * everything a snapshot is built from (configuration, verdicts, which nodes are live), so nodes at the same
   * revision serve the same serial; a revision that changes no snapshot (a verdict the aggregate had) is not served.
   */
  serial(): number {
    return this.session.appliedRevision >>> 0;
  }

  verdicts(own: ReadonlyMap<string, ProbeVerdict>): Map<string, ProbeVerdict> {
    return this.health.verdicts(own);
  }

  /** One endpoint's aggregated verdict, given this location's (undefined: not probed here). */
  verdictOf(key: string, own: ProbeVerdict | undefined): ProbeVerdict | undefined {
    return this.health.verdictOf(key, own);
  }

  locations(key: string): LocationReport[] {
    return this.health.locations(key);
  }

  /** What /healthz adds in cluster mode; `reason` when etcd is unreachable (the node is degraded). */
  healthz(): { body: ClusterHealthBody; degradedReason?: string } {
    const st = this.session.state();
    const body: ClusterHealthBody = {
      store: 'etcd',
      node: this.health.node,
      location: this.health.location,
      etcd: {
        endpoints: this.session.hosts,
        connected: st.connected,
        ...(st.since !== undefined ? { since: new Date(st.since).toISOString() } : {}),
        ...(st.error !== undefined ? { error: st.error } : {}),
        ...(st.fromLocalCopy ? { fromLocalCopy: true } : {}),
      },
      etcdRevision: this.session.appliedRevision,
      liveLocations: this.health.liveLocations(),
      nodes: this.health.nodes().map((n) => ({ node: n.node, location: n.location })),
    };
    if (st.connected) return { body };
    const secs = st.since !== undefined ? Math.round((this.clock.now() - st.since) / 1000) : 0;
    return {
      body,
      degradedReason:
        `etcd (${this.session.hosts.join(', ')}) is unreachable since ` +
        `${st.since !== undefined ? new Date(st.since).toISOString() : 'start'} (${secs} s${st.error ? `: ${st.error}` : ''}): ` +
        `this node answers DNS and probes from the last state it has (configuration revision ` +
        `${this.session.configRevision}${st.fromLocalCopy ? ', read from the local copy at start' : ''}); ` +
        'API writes are refused with 503 until etcd is back, then it resyncs by itself',
    };
  }

  /** Set by close(): scrapes read the ledger no more. */
  private closed = false;

  /** Per-location verdicts and the etcd connection on /metrics. */
  attachMetrics(registry: Registry, ledger: { targets(): ReadonlyMap<string, string> }): void {
    const probed = (): ReadonlyMap<string, string> | undefined => (this.closed ? undefined : ledger.targets());
    const registers = [registry];
    const self = this;
    new Gauge({
      name: 'tmkit_location_verdict',
      help: "Each live probing location's verdict per endpoint (1 Online, 0 Degraded; no series: no verdict yet), from the shared cluster state",
      labelNames: ['profile', 'endpoint', 'location'],
      registers,
      collect() {
        this.reset();
        const keys = probed();
        if (!keys) return;
        for (const key of keys.keys()) {
          const i = key.indexOf('/');
          const profile = key.slice(0, i);
          const endpoint = key.slice(i + 1);
          for (const l of self.health.locations(key)) {
            if (!l.live || l.verdict === 'CheckingEndpoint') continue;
            this.set({ profile, endpoint, location: l.location }, l.verdict === 'Online' ? 1 : 0);
          }
        }
      },
    });
    new Gauge({
      name: 'tmkit_cluster_etcd_connected',
      help: '1 while etcd is reachable, 0 while this node runs on its last state',
      registers,
      collect() {
        this.set(self.session.isConnected() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'tmkit_cluster_live_locations',
      help: 'Probing locations with a live node (leases not expired)',
      registers,
      collect() {
        this.set(self.health.liveLocations().length);
      },
    });
    new Gauge({
      name: 'tmkit_cluster_etcd_revision',
      help: 'The etcd revision this node has applied (the SOA serial)',
      registers,
      collect() {
        this.set(self.session.appliedRevision);
      },
    });
    new Gauge({
      name: 'tmkit_cluster_lease_grants_total',
      help:
        'Leases this node was granted since start: 1, plus one each time etcd was unreachable longer ' +
        'than the lease TTL (every verdict is then written again)',
      registers,
      collect() {
        this.set(self.health.lease.stats.grants);
      },
    });
    new Gauge({
      name: 'tmkit_cluster_verdict_writes_total',
      help: 'Verdict keys this node wrote (put) or removed (delete) in etcd since start: only transitions',
      labelNames: ['op'],
      registers,
      collect() {
        this.set({ op: 'put' }, self.health.stats.puts);
        this.set({ op: 'delete' }, self.health.stats.deletes);
      },
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.latency.stop();
    await this.health.stop();
    await this.store.close();
  }
}
