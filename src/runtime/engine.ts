/**
 * The composition root of `tmkit serve` (design §2, §4): the one place where the real clock, RNG, sockets,
 * files and timers are created and wired. The parts:
 *
 *   store ──watch──▶ SnapshotPipeline (pipeline.ts) ──publish──▶ DNS fleet (dns-fleet.ts: here or workers)
 *     ▲                 ▲  └──retarget──▶ Monitor (monitor/)        verdicts carried over restarts (verdicts.ts)
 *     │                 └──── transitions ◀──┘
 *   ApiServer (api/: validated conditional writes; status and resolve from reports.ts)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isIP } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import type { PreviewReport, ProfileStatusReport, ResolveResult, TrafficReport } from '../core/api';
import { probeTargets, splitTargetKey } from '../core/health/targets';
import type { HealthView, ProbeVerdict } from '../core/health/types';
import { routingMap } from '../core/plan';
import type { GeoLookup, Rng } from '../core/ports';
import type { Profile } from '../core/model/types';
import type { CompiledSnapshot } from '../core/routing';
import { MmdbGeoLookup } from '../geo';
import { packageRoot } from '../package';
import { ApiProblem, ApiServer, RuntimeMetrics, defaultValidator, loadOrCreateToken, type ResolveRequest, type TokenSource } from './api';
import { TrafficStore, type BoundAddress, type ListenAddress } from './dns';
import { LiveEvents } from './api/events';
import { geoOptions, startDnsFleet, type DnsAuthority, type DnsLimits, type DnsSockets, type DnsTarget } from './dns-fleet';
import { Monitor, type EndpointProbeStatus, type MonitorOptions } from './monitor';
import { SnapshotPipeline, type RetargetChange, type SnapshotLag } from './pipeline';
import { resolveReport, statusReport } from './reports';
import { SqliteStore, StateDirLock, parseResourceCatalog, canonicalJson, type Store, type StoredProfile } from './store';
import { VerdictBook, type SavedEndpoint, type SavedMonitorMeta } from './verdicts';
import { ClusterNode, type ClusterOptions, type OwnVerdict } from './cluster';
import { connectDnssec, openDnssec, type DnssecService, type KeyPolicy } from './dnssec';

export { geoOptions, runDnsWorker, isDnsWorker, type DnsAuthority, type DnsLimits, type DnsSockets, type SnapshotUpdate } from './dns-fleet';
export type { SnapshotLag } from './pipeline';

export interface EngineOptions {
  stateDir: string;
  /** Authoritative zone; default `tm.internal`. */
  zone?: string;
  /** DNS listen addresses (UDP+TCP); default 127.0.0.1:5300. */
  dns?: ListenAddress[];
  /** API address; default 127.0.0.1:5380. */
  api?: { host: string; port: number };
  /** A resource catalog file loaded into the store at start (design §3). */
  resourcesFile?: string;
  /** City-level MMDB consulted before the shipped country database. */
  geoip?: string;
  /** Measured latency table (JSON file, README "Geo data") overriding the distance model for Performance. */
  latencyTable?: string;
  /** Apex NS names (with in-zone addresses for glue) and SOA contact; defaults ns1.<zone>, hostmaster.<zone>. */
  authority?: DnsAuthority;
  /** UDP payload cap and TCP limits of the DNS server (in every DNS worker too); the DnsServer defaults otherwise. */
  dnsLimits?: DnsLimits;
  /** Use this store instead of the SQLite one in stateDir (tests). */
  store?: Store;
  /**
   * Cluster mode (`serve --store etcd://… --node … --location …`, design §7): the configuration lives in
   * etcd, this node is one probing location, verdicts are aggregated over the live locations.
   */
  cluster?: ClusterOptions;
  /** Start with an empty store even if `tmkit.db` looks truncated or replaced (`serve --force-empty`). */
  forceEmpty?: boolean;
  /** Use this geo lookup instead of opening the MMDB databases (tests). */
  geo?: GeoLookup;
  logger?: Logger;
  env?: NodeJS.ProcessEnv;
  rng?: Rng;
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
}


/** Monitor records per store call (see Engine.saveMonitor). */
const SAVE_CHUNK = 1_000;


export class Engine {
  readonly store: Store;
  readonly metrics: RuntimeMetrics;
  readonly logger: Logger;
  readonly zone: string;
  readonly token: TokenSource;
  private readonly monitor: Monitor;
  private readonly rng: Rng;
  private readonly pipeline: SnapshotPipeline;
  private verdictBook!: VerdictBook;
  private dns: DnsTarget | undefined;
  private api: ApiServer | undefined;
  private unwatch: Array<() => void> = [];
  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | undefined;
  /** Endpoints whose saved record is out of date (a transition, new probe settings, no longer probed). */
  private readonly unsaved = new Set<string>();
  private trafficTimer: NodeJS.Timeout | undefined;
  /** Traffic View: one-minute buckets for 24 h, fed by DNS (this process or the workers). */
  readonly traffic = new TrafficStore();
  /** Server-Sent Events (`GET /v1/events`): transitions, revisions, traffic. */
  readonly events = new LiveEvents();
  private publishedRevision = -1;
  /** Profiles deleted since the last retarget: the monitor drops their state even if they are back already. */
  private readonly deletedProfiles = new Set<string>();
  private readonly geo: GeoLookup;
  private stopped = false;
  /** The state dir's lock, held until stop(). */
  private lock: StateDirLock | undefined;
  /** Cluster mode: the etcd session, this node's location and the other locations' verdicts. */
  readonly cluster: ClusterNode | undefined;
  /** Probe-settings fingerprint of every probed endpoint (one map, updated in place; the verdict book reads it). */
  private readonly targetFingerprints = new Map<string, string>();
  /** The zone's DNSSEC keys (`serve --dnssec`). */
  private dnssec: DnssecService | undefined;

  private constructor(private readonly o: EngineOptions, store: Store, geo: GeoLookup, token: TokenSource, cluster?: ClusterNode) {
    this.store = store;
    this.cluster = cluster;
    this.token = token;
    this.geo = geo;
    this.zone = (o.zone ?? 'tm.internal').replace(/\.$/, '').toLowerCase();
    this.logger = o.logger ?? pino({ level: 'info' });
    this.metrics = new RuntimeMetrics({ defaultMetrics: true });
    this.metrics.attachStoreInfo(store.kind, store instanceof SqliteStore ? store.driver : '');
    this.rng = o.rng ?? Math.random;
    this.monitor = new Monitor({ ...o.monitor, ...(o.cluster ? { location: o.cluster.location } : {}) });
    this.pipeline = new SnapshotPipeline({
      store, zone: this.zone, geo, metrics: this.metrics, logger: this.logger,
      verdicts: () => this.verdicts(),
      verdictOf: (key) => this.verdictOf(key),
      retarget: (change) => this.retarget(change),
      publish: (snapshot, delta, full) => {
        this.dns?.publish(snapshot, delta, full, this.cluster?.serial());
        const revision = this.pipeline.servedRevision();
        if (revision !== this.publishedRevision) {
          this.publishedRevision = revision;
          this.events.publish('revision', { revision });
        }
      },
      ...(o.debounceMs !== undefined ? { debounceMs: o.debounceMs } : {}),
      ...(o.lagLimitMs !== undefined ? { lagLimitMs: o.lagLimitMs } : {}),
    });
  }

  /**
   * The prober follows the configuration. Only the changed profiles' endpoints are looked at when only
   * profiles changed (a write of one profile costs its endpoints, at any number of profiles); everything
   * when the catalog changed or at load. Endpoints whose probe settings are unchanged keep their state.
   */
  private retarget({ profiles, resources, changed }: RetargetChange): void {
    // A profile deleted and created again within one rebuild still starts fresh: drop it, then add it.
    const recreated = [...this.deletedProfiles].filter((n) => changed === undefined || changed.has(n));
    for (const n of recreated) this.deletedProfiles.delete(n);
    if (changed === undefined) {
      const targets = probeTargets(profiles(), resources);
      // The records to rewrite: new or changed probe settings, and gone endpoints (at load: compared with
      // the saved records; all of them once when the store held the earlier whole-state blob).
      const saved = this.verdictBook.takeSaved();
      const previous = saved ?? new Map(this.targetFingerprints);
      const rewriteAll = saved !== undefined && this.verdictBook.legacy;
      this.targetFingerprints.clear();
      for (const t of targets) {
        this.targetFingerprints.set(t.key, t.fingerprint);
        if (rewriteAll || previous.get(t.key) !== t.fingerprint) this.unsaved.add(t.key);
      }
      for (const k of previous.keys()) if (!this.targetFingerprints.has(k)) this.unsaved.add(k);
      this.scheduleSave();
      if (recreated.length > 0) this.monitor.updateTargets(recreated, []);
      this.monitor.setTargets(targets);
      this.cluster?.health.retargeted();
      return;
    }
    const names = [...changed.keys()];
    const targets = probeTargets([...changed.values()].filter((p): p is Profile => p !== undefined), resources);
    const before = names.flatMap((n) => this.monitor.keysOf(n));
    for (const k of before) { this.targetFingerprints.delete(k); this.unsaved.add(k); }
    for (const t of targets) { this.targetFingerprints.set(t.key, t.fingerprint); this.unsaved.add(t.key); }
    this.scheduleSave();
    if (recreated.length > 0) this.monitor.updateTargets(recreated, []);
    this.monitor.updateTargets(names, targets);
    this.cluster?.health.retargeted([...before, ...targets.map((t) => t.key)]);
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
      const geo = o.geo ?? await MmdbGeoLookup.open(geoOptions(o));
      if (o.cluster) {
        // The engine's own verdicts and targets are read through `engine` once it exists (the cluster calls
        // them only after join(), in boot()).
        o = { ...o, logger: o.logger ?? pino({ level: 'info' }) };
        cluster = await ClusterNode.open(o.cluster!, o.stateDir, o.logger!, (key) => engine?.ownVerdict(key), () => engine?.targetFingerprints ?? new Map());
      }
      // The store before the token: a token file written now must not count as "this dir was used before".
      store = o.store ?? cluster?.store ?? SqliteStore.open({
        stateDir: o.stateDir,
        ...(lock ? { lockHeld: true, driver: lock.driver } : {}),
        ...(o.forceEmpty ? { forceEmpty: true } : {}),
        ...(lock && lock.previousPid > 0 ? { usedBefore: [`a lock last held by pid ${lock.previousPid}`] } : {}),
      });
      const token = loadOrCreateToken(o.stateDir, env);
      engine = new Engine(o, store, geo, token, cluster);
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

  private async boot(): Promise<void> {
    if (this.o.resourcesFile !== undefined) await this.loadResourcesFile(this.o.resourcesFile);
    this.verdictBook = new VerdictBook(await this.store.loadMonitorState(), this.targetFingerprints);
    this.unwatch.push(this.store.watch((c) => {
      // A deleted profile's Traffic View goes with it: a profile recreated later starts fresh.
      if (c.kind === 'profile' && c.op === 'delete' && c.name !== undefined) {
        this.traffic.forget(c.name);
        this.verdictBook.forgetProfile(c.name);
        this.deletedProfiles.add(c.name);
      }
      this.pipeline.onStoreChange(c);
    }));
    this.unwatch.push(this.monitor.onTransition((t) => {
      if (this.verdictBook.decided(t)) {
        // The first verdict after a restart confirms the carried one: the endpoint's status never changed
        // (nor its saved record).
        this.logger.debug({ profile: t.profile, endpoint: t.endpoint, status: t.to }, 'carried-over endpoint status confirmed by probing');
        return;
      }
      this.cluster?.health.ownChanged(t.key);
      this.metrics.transitions.inc({ profile: t.profile, endpoint: t.endpoint, from: t.from, to: t.to });
      this.logger.info({ profile: t.profile, endpoint: t.endpoint, from: t.from, to: t.to, reason: t.reason }, 'endpoint status changed');
      this.pipeline.onHealthChange(t.key);
      this.unsaved.add(t.key);
      this.scheduleSave();
      this.events.publish('transition', { at: new Date(t.at).toISOString(), profile: t.profile, endpoint: t.endpoint, from: t.from, to: t.to, reason: t.reason, location: t.location });
    }));
    this.unwatch.push(this.monitor.onProbe(({ key, probe }) => {
      const [profile, endpoint] = splitTargetKey(key);
      this.metrics.probes.inc({ profile, endpoint, result: probe.ok ? 'success' : 'failure' });
      this.metrics.probeLatency.observe({ profile, endpoint }, probe.latencyMs / 1000);
    }));
    const snapshot = await this.pipeline.load();
    if (this.cluster) {
      // Other locations' verdicts and liveness rebuild the snapshot like this node's own transitions do.
      this.unwatch.push(this.cluster.session.onCluster(() => this.pipeline.onHealthChange()));
      await this.cluster.join();
      this.cluster.attachMetrics(this.metrics.registry, () => (this.stopped ? undefined : this.targetFingerprints));
    }
    this.monitor.start();

    if (this.o.dnssec) this.dnssec = await openDnssec({ zone: this.zone, policy: this.o.dnssec, stateDir: this.o.stateDir, logger: this.logger, ...(this.cluster ? { session: this.cluster.session } : {}) });
    this.dns = await startDnsFleet({
      ...(this.dnssec ? { dnssec: this.dnssec.doc } : {}),
      zone: this.zone, listen: this.o.dns ?? [{ address: '127.0.0.1', port: 5300 }], workers: this.o.workers ?? 1,
      ...(this.o.dnsSockets ? { sockets: this.o.dnsSockets } : {}),
      rng: this.rng, logger: this.logger, snapshot, full: () => this.pipeline.workerUpdate(),
      ...(this.cluster ? { serial: this.cluster.serial() } : {}),
      ...(this.o.authority ? { authority: this.o.authority } : {}),
      ...(this.o.dnsLimits ? { limits: this.o.dnsLimits } : {}),
    });
    this.metrics.attachDns(() => (this.stopped ? undefined : this.dns));
    this.trafficTimer = setInterval(() => this.collectTraffic(), 1000);
    this.trafficTimer.unref();
    this.metrics.attachLag(() => (this.stopped ? undefined : this.pipeline.lag()));

    this.api = new ApiServer({
      store: this.store,
      token: this.token.token,
      validator: defaultValidator,
      metrics: this.metrics,
      logger: this.logger.child({ component: 'api' }),
      status: (p) => this.statusReport(p),
      resolve: (q) => this.resolveQuery(q),
      health: () => this.health(),
      traffic: (p, since) => this.trafficReport(p, since),
      preview: (p, down) => this.previewReport(p, down),
      events: this.events,
      ...(uiDirectory() !== undefined ? { uiDir: uiDirectory()! } : {}),
      stateDir: this.o.stateDir,
      ...(this.dnssec ? { dnssec: connectDnssec(this.dnssec, () => (this.stopped ? undefined : this.dns), this.metrics.registry, () => Math.max(0, ...this.pipeline.profiles().map((p) => p.dnsConfig.ttl))) } : {}),
    });
    const api = this.o.api ?? { host: '127.0.0.1', port: 5380 };
    const bound = await this.api.listen(api.host, api.port);
    this.cluster?.health.setInfo({ dns: this.dns.addresses().map((a) => `${a.address}:${a.port}`), api: `${bound.address}:${bound.port}` });
  }

  /** The watchdog, and in cluster mode the etcd connection: unreachable etcd is a degraded mode. */
  private async health(): Promise<SnapshotLag & { cluster?: ReturnType<ClusterNode['healthz']>['body'] }> {
    const lag = await this.pipeline.lag();
    if (!this.cluster) return lag;
    const c = this.cluster.healthz();
    if (c.degradedReason === undefined) return { ...lag, cluster: c.body };
    return { ...lag, degraded: true, reason: lag.degraded ? `${c.degradedReason}; ${lag.reason}` : c.degradedReason, cluster: c.body };
  }

  /** This location's effective verdict of one probed endpoint (what the cluster publishes for it). */
  private ownVerdict(key: string): OwnVerdict | undefined {
    const fingerprint = this.targetFingerprints.get(key);
    if (fingerprint === undefined) return undefined;
    const [profile, endpoint] = splitTargetKey(key);
    const s = this.monitor.status(profile, endpoint);
    const verdict = this.verdictBook.effectiveOf(key, s?.verdict);
    if (verdict === undefined) return undefined;
    const last = s?.history[s.history.length - 1];
    return { verdict, fingerprint, at: last?.at ?? s?.since ?? 0, reason: last?.reason ?? (verdict !== s?.verdict ? 'carried over from before the restart' : '') };
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

  /**
   * The verdicts DNS answers with: the monitor's, with verdicts carried over from the previous run where it
   * has not decided yet; in cluster mode those are this location's, aggregated with the live other locations'.
   */
  private verdicts(): Map<string, ProbeVerdict> {
    const own = this.verdictBook.effective(this.monitor.verdicts());
    return this.cluster ? this.cluster.verdicts(own) : own;
  }

  /** One endpoint's verdict as verdicts() has it, without building the map of all of them. */
  private verdictOf(key: string): ProbeVerdict | undefined {
    const own = this.verdictBook.effectiveOf(key, this.monitor.verdictOf(key));
    return this.cluster ? this.cluster.verdictOf(key, own) : own;
  }

  /** Resolves when every change committed so far is in the snapshot DNS serves (see SnapshotPipeline.settle). */
  settle(timeoutMs?: number): Promise<void> { return this.pipeline.settle(timeoutMs); }

  /** The watchdog: how far the served snapshot lags the store. */
  lag(): Promise<SnapshotLag> { return this.pipeline.lag(); }

  /** The snapshot DNS answers from right now. */
  snapshot(): CompiledSnapshot { return this.pipeline.snapshot(); }

  dnsAddresses(): BoundAddress[] { return this.dns!.addresses(); }

  /** The zone's DNSSEC keys; undefined without `serve --dnssec`. */
  dnssecService(): DnssecService | undefined { return this.dnssec; }

  /** How the DNS workers hold the port; undefined when DNS answers in this process. */
  dnsSockets(): DnsSockets | undefined { return this.dns!.sockets; }

  /** The prober's counters: targets, probes, and retargets (full / incremental, endpoints looked at). */
  proberStats(): ReturnType<Monitor['stats']> { return this.monitor.stats(); }

  /** Endpoints whose monitor record is not saved yet (benchmarks wait for the first start's full save). */
  unsavedMonitorRecords(): number { return this.unsaved.size; }

  /** The prober's status of every endpoint of one profile (what a retarget must leave alone). */
  proberStatuses(profile: string): EndpointProbeStatus[] { return this.monitor.statuses(profile); }

  apiAddress(): AddressInfo { return this.api!.server.address() as AddressInfo; }

  private async statusReport(stored: StoredProfile): Promise<ProfileStatusReport> {
    await this.settle();
    const name = stored.profile.name;
    return statusReport({
      snapshot: this.pipeline.snapshot(), zone: this.zone, revision: this.pipeline.servedRevision(),
      profile: this.pipeline.stored(name) ?? stored,
      probes: this.liveStatuses(name), previousHistory: this.verdictBook.previousHistoryOf(name),
      ...(this.cluster
        ? { verdicts: this.verdictBook.effective(this.monitor.verdicts()), cluster: { aggregate: this.verdicts(), locations: (key: string) => this.cluster!.locations(key) } }
        : { verdicts: this.verdicts() }),
    });
  }

  private async resolveQuery(q: ResolveRequest): Promise<ResolveResult> {
    if (isIP(q.clientIp) === 0) throw ApiProblem.of(400, 'BAD_REQUEST', `clientIp '${q.clientIp}' is not an IPv4 or IPv6 address`, { path: 'clientIp' });
    await this.settle();
    return resolveReport(this.pipeline.snapshot(), q, this.rng, this.pipeline.servedRevision());
  }

  /** Moves DNS's Traffic View counts into the store (every second) and tells event subscribers. */
  private collectTraffic(): void {
    const rows = this.dns?.drainTraffic() ?? [];
    if (rows.length === 0) return;
    const now = Date.now();
    for (const profile of this.traffic.add(now, rows)) {
      const bucket = this.traffic.current(profile, now);
      if (bucket) this.events.publish('traffic', { profile, bucket });
    }
  }

  private trafficReport(stored: StoredProfile, since: number): TrafficReport {
    this.collectTraffic();
    const buckets = this.traffic.series(stored.profile.name, since);
    const now = Date.now();
    return {
      profile: stored.profile.name,
      trafficViewEnrollmentStatus: stored.profile.trafficViewEnrollmentStatus,
      bucketSeconds: 60,
      from: buckets[0]?.start ?? new Date(Math.max(since, now - 24 * 3600_000)).toISOString(),
      to: new Date(now).toISOString(),
      buckets,
    };
  }

  /** The routing map now, with the `down` endpoints (names of the profile, or child/endpoint paths) Degraded. */
  private async previewReport(stored: StoredProfile, down: string[]): Promise<PreviewReport> {
    await this.settle();
    const name = stored.profile.name;
    const verdicts = this.verdicts();
    const keys = new Set(down.map((d) => (d.includes('/') ? d : `${name}/${d}`)));
    const health: HealthView = { verdict: (p, e) => (keys.has(`${p}/${e}`) ? 'Degraded' : verdicts.get(`${p}/${e}`)) };
    const profiles = new Map(this.pipeline.profiles().map((p) => [p.name, p]));
    const rows = routingMap({ name, profiles, geo: this.geo, health, resources: this.pipeline.catalog() });
    return { profile: name, trafficRoutingMethod: stored.profile.trafficRoutingMethod, down, rows };
  }

  /** The prober's statuses, without the transitions that only confirmed a carried-over verdict. */
  private liveStatuses(profile?: string): EndpointProbeStatus[] {
    return this.monitor.statuses(profile).map((s) => ({ ...s, history: s.history.filter((t) => !this.verdictBook.isConfirmation(t)) }));
  }

  /** Saves the unsaved records a second after the first change (one save at a time). */
  private scheduleSave(): void {
    if (this.saveTimer || this.saving || this.stopped || this.unsaved.size === 0) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.saving = this.saveMonitor().finally(() => { this.saving = undefined; this.scheduleSave(); });
    }, 1000);
    this.saveTimer.unref();
  }

  /**
   * Writes the records of the endpoints marked unsaved, SAVE_CHUNK per store call, yielding between calls:
   * a save costs what changed and never holds the event loop for long (100,000 endpoints at start-up are 20
   * calls). The meta goes with the last call, so the earlier whole-state blob is replaced only once every
   * record it held is written anew. A failed call puts its endpoints back; the next save retries them.
   */
  private async saveMonitor(): Promise<void> {
    while (this.unsaved.size > 0) {
      const endpoints: Record<string, SavedEndpoint | null> = {};
      let n = 0;
      for (const key of this.unsaved) {
        this.unsaved.delete(key);
        endpoints[key] = this.savedRecord(key);
        if (++n >= SAVE_CHUNK) break;
      }
      const last = this.unsaved.size === 0;
      const meta: SavedMonitorMeta = { format: 2, savedAt: Date.now() };
      try {
        await this.store.saveMonitorState({ endpoints, ...(last ? { meta } : {}) });
      } catch (err) {
        for (const key of Object.keys(endpoints)) this.unsaved.add(key);
        this.logger.warn({ err }, 'could not save the monitor state; retrying in a second');
        return;
      }
      if (!last) await new Promise((r) => setImmediate(r));
    }
  }

  /** What to save for one endpoint: null when it is no longer probed. */
  private savedRecord(key: string): SavedEndpoint | null {
    const fingerprint = this.targetFingerprints.get(key);
    if (fingerprint === undefined) return null;
    const [profile, endpoint] = splitTargetKey(key);
    const s = this.monitor.status(profile, endpoint);
    const verdict = this.verdictBook.effectiveOf(key, s?.verdict) ?? 'CheckingEndpoint';
    return this.verdictBook.record(key, fingerprint, verdict, s?.history ?? []);
  }

  /** Drains the API (in-flight requests finish), stops probing and DNS, saves monitor state, closes the store. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.saveTimer) { clearTimeout(this.saveTimer); this.saveTimer = undefined; }
    if (this.trafficTimer) { clearInterval(this.trafficTimer); this.trafficTimer = undefined; }
    this.events.close();
    this.dnssec?.close();
    await this.api?.close();
    await this.pipeline.stop();
    await this.monitor.stop();
    await this.dns?.close();
    await this.saving;
    if (this.verdictBook) await this.saveMonitor();
    for (const u of this.unwatch) u();
    if (this.cluster) await this.cluster.close(); else await this.store.close();
    this.lock?.release();
  }
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
