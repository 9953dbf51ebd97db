/**
 * The composition root of `tmkit serve`: the one place where the real clock, RNG, sockets, files and timers
 * are created and wired. It builds the parts, connects them once, and starts and stops them in order; it is
 * on no request's path (docs/ARCHITECTURE.md walks a query and a write through the parts):
 *
 *   ApiServer (api/) ──writes──▶ Store (store/: validates, commits, notifies)
 *        │ reads                   │ watch
 *        ▼                         ▼
 *   Reports (reports.ts) ──▶ SnapshotPipeline (pipeline.ts) ──publish──▶ DNS (dns/), Traffic View, events
 *                                  │ retarget, verdictOf
 *                                  ▼
 *                            HealthLedger (ledger/) ──▶ Monitor (monitor/), ClusterNode (cluster/), the store's saved records
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { splitTargetKey } from '../core/health/targets';
import type { GeoLookup, Rng } from '../core/ports';
import type { CompiledSnapshot } from '../core/routing';
import { MmdbGeoLookup } from '../geo';
import { packageRoot, packageVersion } from '../package';
import { ApiServer, loadOrCreateToken, type TokenSource } from './api';
import { systemClock, type RuntimeClock } from './clock';
import {
  connectDnssec,
  dnsSink,
  geoOptions,
  openDnssec,
  startDnsFleet,
  decisionEvery,
  openCookieSecrets,
  type BoundAddress,
  type CookieSecrets,
  type CookieSecretSource,
  type DnsCookieSecrets,
  type DnsAuthority,
  type DnsLimits,
  type DnsSockets,
  type DnsTarget,
  type DnssecService,
  type KeyPolicy,
  type ListenAddress,
} from './dns';
import { LiveEvents, reportRrl, revisionEvents } from './events';
import { HealthLedger, ProbeLatencies } from './ledger';
import { OperationsFeed } from './ledger/operations-feed';
import { Operations } from './operations';
import { MemoryOperations } from './store/memory-operations';
import { RuntimeMetrics } from './metrics';
import { Monitor, probe as realProbe, type EndpointProbeStatus, type MonitorOptions } from './monitor';
import { ProbeFailures } from './monitor/probe-failures';
import { reportOverrideEvents, reportProbes, reportTransitions } from './ledger/reporting';
import { SnapshotPipeline, type SnapshotLag } from './pipeline';
import { Reports } from './read-models';
import { SqliteStore, StateDirLock, parseResourceCatalog, canonicalJson, hasOperations, type Store } from './store';
import { TrafficView } from './traffic-view';
import { ClusterNode, type ClusterOptions } from './cluster';
import { Webhooks, type DeliveryTuning, type WebhookFlag } from './webhooks';
import { DecisionLogFile } from './decision-log-file';

export { geoOptions, runDnsWorker, isDnsWorker, type DnsAuthority, type DnsLimits, type DnsSockets, type SnapshotUpdate } from './dns';
export type { SnapshotLag } from './pipeline';

export interface EngineOptions {
  stateDir: string;
  /** Authoritative zone; default `tm.internal`. */
  zone?: string;
  /** DNS listen addresses (UDP+TCP); default 127.0.0.1:5300. */
  dns?: ListenAddress[];
  /** API address; default 127.0.0.1:5380. */
  api?: { host: string; port: number };
  /** A resource catalog file loaded into the store at start (`serve --resources`, docs/document.md). */
  resourcesFile?: string;
  /** City-level MMDB consulted before the shipped country database. */
  geoip?: string;
  /** Measured latency table (JSON file, docs/geo.md) overriding the distance model for Performance. */
  latencyTable?: string;
  /** Apex NS names (with in-zone addresses for glue) and SOA contact; defaults ns1.<zone>, hostmaster.<zone>. */
  authority?: DnsAuthority;
  /** UDP payload cap and TCP limits of the DNS server (in every DNS worker too); the DnsServer defaults otherwise. */
  dnsLimits?: DnsLimits;
  /** Use this store instead of the SQLite one in stateDir (tests). */
  store?: Store;
  /**
   * Cluster mode (`serve --store etcd://… --node … --location …`, docs/cluster.md): the configuration lives
   * in etcd, this node is one probing location, verdicts are aggregated over the live locations.
   */
  cluster?: ClusterOptions;
  /** Start with an empty store even if `tmkit.db` looks truncated or replaced (`serve --force-empty`). */
  forceEmpty?: boolean;
  /** Use this geo lookup instead of opening the MMDB databases (tests). */
  geo?: GeoLookup;
  logger?: Logger;
  env?: NodeJS.ProcessEnv;
  rng?: Rng;
  /** Time and timers of the prober, the ledger, Traffic View and the store (tests: fake timers). */
  clock?: RuntimeClock;
  /** Monitor overrides (tests shorten probe intervals). */
  monitor?: MonitorOptions;
  /** Extra delay before a rebuild, folding bursts of changes (default 0: next event-loop turn). */
  debounceMs?: number;
  /** `/healthz` reports degraded when a change has waited longer than this to be served (default 5000 ms). */
  lagLimitMs?: number;
  /**
   * DNS worker processes (node:cluster) sharing the DNS port; 1 (default) answers DNS in this process.
   * With more, this process must be the cluster primary and its main script must call `runDnsWorker()`
   * in the workers (`tmkit serve` does).
   */
  workers?: number;
  /**
   * With workers: each binds its own UDP/TCP sockets with SO_REUSEPORT ('per-worker', the default where
   * Node ≥ 22.12 on Linux allows it) or all share one socket ('shared').
   */
  dnsSockets?: DnsSockets;
  /** DNSSEC (`serve --dnssec`): sign answers with keys from the state dir (or etcd in cluster mode), made on first start. */
  dnssec?: KeyPolicy;
  /**
   * DNS cookies (RFC 7873/9018), on unless false (`serve --no-cookies`): the server secret lives in the state
   * dir (`dns-cookie-secret.json`, mode 0600), so a restart keeps every client's cookie valid; in cluster mode
   * in etcd, one for every node (dns/cookie-secrets.ts).
   */
  cookies?: boolean;
  /** Webhooks (`serve --webhook`, `--webhook-allow-private`, docs/webhooks.md); tests also tune delivery. */
  webhooks?: { flags?: WebhookFlag[]; allowPrivate?: boolean; tuning?: Partial<DeliveryTuning> };
  /** `serve --decision-log FILE`: the decision records as NDJSON, rotated (decision-log-file.ts). */
  decisionLog?: string;
}

export class Engine {
  readonly store: Store;
  readonly metrics: RuntimeMetrics;
  readonly logger: Logger;
  readonly zone: string;
  readonly token: TokenSource;
  /** Server-Sent Events (`GET /v1/events`): transitions, revisions, traffic. */
  readonly events = new LiveEvents();
  /** Cluster mode: the etcd session, this node's location and the other locations' verdicts. */
  readonly cluster: ClusterNode | undefined;
  private readonly clock: RuntimeClock;
  private readonly monitor: Monitor;
  /** Probe failures injected by detection drills (`…/probe-failure`), in front of the monitor's probe. */
  private readonly probeFailures: ProbeFailures;
  private readonly traffic: TrafficView;
  /** Made in boot(), once the previous run's records are read. */
  private ledger!: HealthLedger;
  /** The overrides and failback approvals the store keeps (ledger/operations-feed.ts), made in boot(). */
  private feed: OperationsFeed | undefined;
  private pipeline!: SnapshotPipeline;
  private dns: DnsTarget | undefined;
  private api: ApiServer | undefined;
  private readonly unwatch: Array<() => void> = [];
  private stopped = false;
  /** The state dir's lock, held until stop(). */
  private lock: StateDirLock | undefined;
  /** The zone's DNSSEC keys (`serve --dnssec`). */
  private dnssec: DnssecService | undefined;
  /** Every live event, POSTed to the webhooks (webhooks/). */
  private webhooks: Webhooks | undefined;
  private decisionLog: DecisionLogFile | undefined;
  /** This location's measured probe latencies (Measured Performance profiles). */
  private latencies: ProbeLatencies | undefined;
  /** The DNS cookie secrets (state dir or etcd) and their rotation; undefined with `--no-cookies`. */
  private cookieSecrets: CookieSecretSource | undefined;

  private constructor(
    private readonly options: EngineOptions,
    store: Store,
    private readonly geo: GeoLookup,
    token: TokenSource,
    cluster: ClusterNode | undefined,
    private readonly rng: Rng,
  ) {
    this.store = store;
    this.cluster = cluster;
    this.token = token;
    this.clock = options.clock ?? systemClock;
    this.zone = (options.zone ?? 'tm.internal').replace(/\.$/, '').toLowerCase();
    this.logger = options.logger ?? pino({ level: 'info' });
    this.metrics = new RuntimeMetrics({ defaultMetrics: true });
    this.metrics.attachStoreInfo(store.kind, store instanceof SqliteStore ? store.driver : '');
    this.probeFailures = new ProbeFailures(this.clock);
    this.monitor = new Monitor({
      timers: this.clock,
      ...options.monitor,
      // A detection drill's injected failures (monitor/probe-failures.ts) stand in for the probe; the rest is real.
      probe: this.probeFailures.wrap(options.monitor?.probe ?? realProbe),
      ...(options.cluster ? { location: options.cluster.location } : {}),
    });
    this.traffic = new TrafficView({ events: this.events, clock: this.clock });
  }

  /** Opens the store, loads the catalog, starts probing, DNS and the API. */
  static async start(o: EngineOptions): Promise<Engine> {
    const env = o.env ?? process.env;
    // First the state dir's lock: a second serve on the same dir stops here, before it touches anything.
    const lock = o.stateDir === ':memory:' ? undefined : StateDirLock.acquire(o.stateDir);
    let store: Store | undefined;
    let engine: Engine | undefined;
    let cluster: ClusterNode | undefined;
    try {
      // The geo databases first: a missing one (GEO_DB_MISSING, GEO_DATABASE_INVALID) stops the start
      // before the store, the cluster or the token file is touched.
      const geo = o.geo ?? (await MmdbGeoLookup.open(geoOptions(o)));
      if (o.cluster) {
        o = { ...o, logger: o.logger ?? pino({ level: 'info' }) };
        cluster = await ClusterNode.open(o.cluster!, o.stateDir, o.logger!, o.clock ?? systemClock);
      }
      // The store before the token: a token file written now must not count as "this dir was used before".
      store =
        o.store ??
        cluster?.store ??
        SqliteStore.open({
          stateDir: o.stateDir,
          ...(lock ? { lockHeld: true, driver: lock.driver } : {}),
          ...(o.forceEmpty ? { forceEmpty: true } : {}),
          ...(lock && lock.previousPid > 0 ? { usedBefore: [`a lock last held by pid ${lock.previousPid}`] } : {}),
          ...(o.clock ? { clock: o.clock } : {}),
        });
      const token = loadOrCreateToken(o.stateDir, env);
      engine = new Engine(o, store, geo, token, cluster, o.rng ?? Math.random);
      engine.lock = lock;
      await engine.boot();
      return engine;
    } catch (err) {
      if (engine) await engine.stop().catch(() => undefined);
      else if (cluster) await cluster.close().catch(() => undefined);
      else await store?.close();
      lock?.release();
      throw err;
    }
  }

  /** Wires the parts once, in order: ledger, pipeline (first snapshot), cluster, prober, DNS, API. */
  private async boot(): Promise<void> {
    const { options, store, metrics, logger } = this;
    if (options.resourcesFile !== undefined) await this.loadResourcesFile(options.resourcesFile);
    // First, so they see every event from the first snapshot on.
    this.webhooks = await Webhooks.open({
      events: this.events,
      clock: this.clock,
      logger: logger.child({ component: 'webhooks' }),
      registry: metrics.registry,
      stateDir: options.stateDir,
      version: packageVersion(),
      ...options.webhooks,
    });
    // Traffic operations (docs/operations.md): kept by the store beside the profiles (in memory for a store without them).
    const operations = hasOperations(store) ? store.operations : new MemoryOperations();
    const feed = (this.feed = await OperationsFeed.open({ operations, clock: this.clock, logger }));
    this.unwatch.push(reportOverrideEvents(feed, this.events, logger));
    this.ledger = await HealthLedger.open({
      store,
      monitor: this.monitor,
      clock: this.clock,
      logger,
      operations: feed,
      ...(this.cluster ? { cluster: this.cluster } : {}),
    });
    this.latencies = new ProbeLatencies({
      monitor: this.monitor,
      clock: this.clock,
      targets: this.ledger,
      ...(this.cluster ? { cluster: this.cluster.latency } : {}),
      // Only Measured profiles' round trips go to etcd (the pipeline exists by the first notice, 2 s on).
      shared: (key) => {
        const p = this.pipeline?.stored(splitTargetKey(key)[0])?.profile.performanceLatency;
        return p !== undefined && p.source !== 'Model';
      },
    });
    this.pipeline = new SnapshotPipeline({
      store,
      zone: this.zone,
      geo: this.geo,
      metrics,
      logger,
      health: this.ledger,
      latency: this.latencies,
      ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
      ...(options.lagLimitMs !== undefined ? { lagLimitMs: options.lagLimitMs } : {}),
    });
    // Health transitions and probes are logged, counted and sent to live-event subscribers (the ledger tells the pipeline itself).
    this.unwatch.push(reportTransitions(this.ledger, metrics, this.events, logger), reportProbes(this.monitor, metrics));
    const snapshot = await this.pipeline.load();
    this.pipeline.addSink(this.traffic);
    this.pipeline.addSink(revisionEvents(this.events));
    if (this.cluster) {
      await this.cluster.join();
      this.cluster.attachMetrics(metrics.registry, this.ledger);
    }
    this.monitor.start();

    if (options.dnssec)
      this.dnssec = await openDnssec({
        zone: this.zone,
        policy: options.dnssec,
        stateDir: options.stateDir,
        logger,
        ...(this.cluster ? { session: this.cluster.session } : {}),
      });
    if (options.cookies !== false)
      this.cookieSecrets = await openCookieSecrets({
        stateDir: options.stateDir,
        ...(this.cluster ? { session: this.cluster.session } : {}),
        now: () => this.clock.now(),
        logger,
      });
    const cookies = this.cookieSecrets ? dnsCookies(this.cookieSecrets.current()) : undefined;
    this.dns = await startDnsFleet({
      ...(this.dnssec ? { dnssec: this.dnssec.doc } : {}),
      ...(cookies ? { cookies } : {}),
      zone: this.zone,
      listen: options.dns ?? [{ address: '127.0.0.1', port: 5300 }],
      workers: options.workers ?? 1,
      ...(options.dnsSockets ? { sockets: options.dnsSockets } : {}),
      rng: this.rng,
      logger,
      snapshot,
      full: () => this.pipeline.workerUpdate(),
      ...(this.cluster ? { serial: this.cluster.serial() } : {}),
      ...(options.authority ? { authority: options.authority } : {}),
      ...(options.dnsLimits ? { limits: options.dnsLimits } : {}),
    });
    this.pipeline.addSink(dnsSink(this.dns, this.cluster), snapshot);
    const dns = this.dns;
    if (this.cookieSecrets) this.unwatch.push(this.cookieSecrets.onChange((s) => dns.setCookies(dnsCookies(s))));
    this.unwatch.push(reportRrl(dns, this.events, logger, options.cluster?.node));
    this.traffic.attach(this.dns);
    metrics.attachDns(this.dns);
    metrics.attachLag(this.pipeline);
    if (options.decisionLog !== undefined)
      this.decisionLog = new DecisionLogFile(options.decisionLog, this.dns, logger.child({ component: 'decisions' }));

    const reports = new Reports({
      pipeline: this.pipeline,
      ledger: this.ledger,
      traffic: this.traffic,
      geo: this.geo,
      zone: this.zone,
      rng: this.rng,
      clock: this.clock,
      ...(this.cluster ? { cluster: this.cluster } : {}),
      overrides: feed,
      decisions: {
        decisions: (q) => dns.decisions(q),
        sample: decisionEvery(options.dnsLimits?.tap),
        capacity: options.dnsLimits?.tap?.decisionRing ?? 10_000,
      },
    });
    const ops = new Operations({
      operations,
      feed,
      pipeline: this.pipeline,
      ledger: this.ledger,
      events: this.events,
      clock: this.clock,
      geo: this.geo,
      zone: this.zone,
      ...(this.cluster ? { cluster: this.cluster } : {}),
      dns: this.dns,
    });
    this.unwatch.push(ops.attachMetrics(metrics.registry));
    const ui = uiDirectory();
    this.api = new ApiServer({
      store,
      token: this.token.token,
      metrics,
      logger: logger.child({ component: 'api' }),
      reports,
      events: this.events,
      ...(ui !== undefined ? { uiDir: ui } : {}),
      stateDir: options.stateDir,
      ops,
      pushedHealth: ops.pushedHealth,
      probeFailures: this.probeFailures,
      webhooks: this.webhooks,
      ...(this.cookieSecrets ? { cookies: this.cookieSecrets } : {}),
      ...(this.dnssec ? { dnssec: connectDnssec(this.dnssec, this.dns, metrics.registry, this.pipeline) } : {}),
    });
    const api = options.api ?? { host: '127.0.0.1', port: 5380 };
    const bound = await this.api.listen(api.host, api.port);
    const dnsAddresses = this.dns.addresses();
    ops.serving({
      dns: dnsAddresses.map((a) => `${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`),
      api: `${bound.address}:${bound.port}`,
    });
    this.cluster?.health.setInfo({ dns: dnsAddresses.map((a) => `${a.address}:${a.port}`), api: `${bound.address}:${bound.port}` });
  }

  private async loadResourcesFile(file: string): Promise<void> {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`--resources ${file}: cannot read the resource catalog: ${(err as Error).message}`);
    }
    const { catalog, errors } = parseResourceCatalog(json);
    if (errors.length > 0) throw new Error(`--resources ${file}: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
    const current = await this.store.getResources();
    if (canonicalJson(current) !== canonicalJson(catalog)) await this.store.putResources(catalog);
  }

  /** Resolves when every change committed so far is in the snapshot DNS serves (see SnapshotPipeline.settle). */
  settle(timeoutMs?: number): Promise<void> {
    return this.pipeline.settle(timeoutMs);
  }

  /** The watchdog: how far the served snapshot lags the store. */
  lag(): Promise<SnapshotLag> {
    return this.pipeline.lag();
  }

  /** The snapshot DNS answers from right now. */
  snapshot(): CompiledSnapshot {
    return this.pipeline.snapshot();
  }

  dnsAddresses(): BoundAddress[] {
    return this.dns!.addresses();
  }

  /** The zone's DNSSEC keys; undefined without `serve --dnssec`. */
  dnssecService(): DnssecService | undefined {
    return this.dnssec;
  }

  /** How the DNS workers hold the port; undefined when DNS answers in this process. */
  dnsSockets(): DnsSockets | undefined {
    return this.dns!.sockets;
  }

  /** The prober's counters: targets, probes, and retargets (full / incremental, endpoints looked at). */
  proberStats(): ReturnType<Monitor['stats']> {
    return this.monitor.stats();
  }

  /** Endpoints whose monitor record is not saved yet (benchmarks wait for the first start's full save). */
  unsavedMonitorRecords(): number {
    return this.ledger.unsavedRecords();
  }

  /** The prober's status of every endpoint of one profile (what a retarget must leave alone). */
  proberStatuses(profile: string): EndpointProbeStatus[] {
    return this.monitor.statuses(profile);
  }

  apiAddress(): AddressInfo {
    return this.api!.server.address() as AddressInfo;
  }

  /** The API's routes and their methods (ApiServer.routeTable). */
  apiRoutes(): Array<{ name: string; methods: string[]; open: boolean }> {
    return this.api!.routeTable();
  }

  /** Drains the API (in-flight requests finish), stops probing and DNS, saves the ledger's records, closes the store. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.metrics.stop();
    this.traffic.stop();
    this.events.close();
    this.dnssec?.close();
    await this.api?.close();
    await this.webhooks?.close();
    await this.pipeline?.stop();
    await this.monitor.stop();
    await this.decisionLog?.close();
    this.latencies?.stop();
    await this.dns?.close();
    await this.ledger?.close();
    this.feed?.close();
    for (const u of this.unwatch) u();
    this.cookieSecrets?.close();
    if (this.cluster) await this.cluster.close();
    else await this.store.close();
    this.lock?.release();
  }
}

/** The secrets as DNS takes them. */
function dnsCookies(s: CookieSecrets): DnsCookieSecrets {
  return { current: s.current, ...(s.previous ? { previous: s.previous } : {}) };
}

/** The dashboard's built files in this installation (dist/ui next to the code), if they are there. */
function uiDirectory(): string | undefined {
  try {
    const dir = join(packageRoot(), 'dist', 'ui');
    return existsSync(join(dir, 'index.html')) ? dir : undefined;
  } catch {
    return undefined;
  }
}
