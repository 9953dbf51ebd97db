/**
 * The composition root of `tmkit serve` (design §2, §4): the one place where the real clock, RNG,
 * sockets, files and timers are created and wired.
 *
 *   store ──watch──▶ rebuild ──buildSnapshot──▶ DNS server (setSnapshot)
 *     ▲                 ▲  └──probeTargets──▶ Monitor (setTargets)
 *     │                 └──── onTransition ◀──┘
 *   API (validated conditional writes)
 *
 * Every committed store change and every monitor transition schedules one rebuild on the next turn of
 * the event loop (changes arriving meanwhile are folded into it), so a write reaches DNS answers within
 * milliseconds of its commit, and the DNS server only ever sees whole snapshots.
 */
import cluster, { type Worker } from 'node:cluster';
import { readFileSync } from 'node:fs';
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import { isIP } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { Counter, Gauge } from 'prom-client';
import { profileFqdn } from '../core/model/names';
import type { Profile } from '../core/model/types';
import { probeTargets } from '../core/health/targets';
import { answer, buildSnapshot, profileStatusReport, resolve, type CompiledSnapshot } from '../core/routing';
import type { GeoLookup, ResourceCatalog, Rng } from '../core/ports';
import type { ProbeVerdict } from '../core/health/types';
import { MmdbGeoLookup } from '../geo';
import { ApiProblem, ApiServer, RuntimeMetrics, defaultValidator, loadOrCreateToken, type ResolveRequest, type TokenSource } from './api';
import { DnsCountsAggregate, DnsServer, type BoundAddress, type DnsCounts, type ListenAddress, type ResponderStats } from './dns';
import { Monitor, type EndpointTransition, type MonitorOptions } from './monitor';
import { RebuildLoop } from './rebuild-loop';
import { SqliteStore, parseResourceCatalog, toResourceCatalog, canonicalJson, type ResourceCatalogRecord, type Store, type StoredProfile, type StoreChange } from './store';

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
  /** Use this store instead of the SQLite one in stateDir (tests). */
  store?: Store;
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
}

interface Loaded {
  profiles: Map<string, StoredProfile>;
  resources: ResourceCatalog;
  resourcesRecord: ResourceCatalogRecord;
  resourcesJson: string;
  revision: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export class Engine {
  readonly store: Store;
  readonly metrics: RuntimeMetrics;
  readonly logger: Logger;
  readonly zone: string;
  readonly token: TokenSource;
  private readonly monitor: Monitor;
  private readonly geo: GeoLookup;
  private readonly rng: Rng;
  private readonly debounceMs: number;
  private readonly lagLimitMs: number;
  private dns!: DnsTarget;
  private api!: ApiServer;
  private state!: Loaded;
  private snap!: CompiledSnapshot;
  private pendingNames = new Set<string>();
  private pendingResources = false;
  private pendingHealth = false;
  /** A full re-read of the store is due (the served revision fell behind with nothing pending). */
  private pendingFull = false;
  /** When the oldest change not yet served arrived (performance.now()); undefined when DNS is current. */
  private unservedSince: number | undefined;
  private readonly loop: RebuildLoop;
  private unwatch: Array<() => void> = [];
  private previousHistory: EndpointTransition[] = [];
  /**
   * Verdicts saved by the previous run, by `profile/endpoint`, with the probe settings they were reached
   * with. Until the monitor decides an endpoint again (its first transition after start), the carried
   * verdict stands in for the monitor's initial CheckingEndpoint — as if probing had never stopped: a
   * Degraded endpoint is not answered again just because the runtime restarted.
   */
  private carried = new Map<string, { verdict: ProbeVerdict; fingerprint: string }>();
  /** Current probe settings fingerprint per `profile/endpoint`. */
  private fingerprints = new Map<string, string>();
  /** Profiles deleted since the last rebuild: the monitor drops their state even if they are back already. */
  private deletedProfiles = new Set<string>();
  /** Monitor transitions that only confirmed a carried-over verdict: not status changes, never listed. */
  private confirmations = new WeakSet<EndpointTransition>();
  private saveTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  private constructor(private readonly o: EngineOptions, store: Store, geo: GeoLookup, token: TokenSource) {
    this.store = store;
    this.geo = geo;
    this.token = token;
    this.zone = (o.zone ?? 'tm.internal').replace(/\.$/, '').toLowerCase();
    this.logger = o.logger ?? pino({ level: 'info' });
    this.metrics = new RuntimeMetrics({ defaultMetrics: true });
    this.rng = o.rng ?? Math.random;
    this.debounceMs = o.debounceMs ?? 0;
    this.monitor = new Monitor(o.monitor ?? {});
    this.lagLimitMs = o.lagLimitMs ?? 5_000;
    this.loop = new RebuildLoop({
      step: () => this.rebuildOnce(),
      hasPending: () => this.hasPending(),
      debounceMs: this.debounceMs,
      onError: (err, failures) => {
        this.metrics.rebuildFailures.inc();
        this.logger.error({ err, failures }, 'snapshot rebuild failed; DNS keeps answering from the previous snapshot; retrying');
      },
    });
  }

  /** Opens the store, loads the catalog, starts probing, DNS and the API. */
  static async start(o: EngineOptions): Promise<Engine> {
    const env = o.env ?? process.env;
    const token = loadOrCreateToken(o.stateDir, env);
    const store = o.store ?? SqliteStore.open({ stateDir: o.stateDir });
    let engine: Engine | undefined;
    try {
      const geo = o.geo ?? await MmdbGeoLookup.open(geoOptions(o));
      engine = new Engine(o, store, geo, token);
      await engine.boot();
      return engine;
    } catch (err) {
      if (engine) await engine.stop().catch(() => undefined);
      else await store.close();
      throw err;
    }
  }

  private async boot(): Promise<void> {
    if (this.o.resourcesFile !== undefined) await this.loadResourcesFile(this.o.resourcesFile);
    const prev = await this.store.loadMonitorState() as SavedMonitorState | undefined;
    if (prev && Array.isArray(prev.history)) this.previousHistory = prev.history;
    if (prev && prev.verdicts && prev.fingerprints) {
      for (const [key, verdict] of Object.entries(prev.verdicts)) {
        const fingerprint = prev.fingerprints[key];
        if (fingerprint !== undefined && verdict !== 'CheckingEndpoint') this.carried.set(key, { verdict, fingerprint });
      }
    }

    const [stored, resources, revision] = await Promise.all([this.store.getProfiles(), this.store.getResources(), this.store.revision()]);
    this.state = {
      profiles: new Map(stored.map((p) => [p.profile.name, p])),
      resources: toResourceCatalog(resources),
      resourcesRecord: resources,
      resourcesJson: canonicalJson(resources),
      revision,
    };
    this.unwatch.push(this.store.watch((c) => this.onStoreChange(c)));
    this.unwatch.push(this.monitor.onTransition((t) => this.onTransition(t)));
    this.unwatch.push(this.monitor.onProbe(({ key, probe }) => {
      const [profile, endpoint] = splitKey(key);
      this.metrics.probes.inc({ profile, endpoint, result: probe.ok ? 'success' : 'failure' });
      this.metrics.probeLatency.observe({ profile, endpoint }, probe.latencyMs / 1000);
    }));
    this.setTargets();
    this.snap = this.build();
    this.monitor.start();

    const listen = this.o.dns ?? [{ address: '127.0.0.1', port: 5300 }];
    this.dns = (this.o.workers ?? 1) > 1
      ? new ClusterDns(this.o.workers!, listen, this.logger)
      : new LocalDns(new DnsServer({ zone: this.zone, snapshot: this.snap, resolve, rng: this.rng, listen, ...this.o.authority }));
    this.dns.publish(this.snap, () => this.workerUpdate(undefined, false), () => this.workerUpdate());
    await this.dns.start();
    this.registerDnsMetrics();
    this.registerLagMetrics();

    this.api = new ApiServer({
      store: this.store,
      token: this.token.token,
      validator: defaultValidator,
      metrics: this.metrics,
      logger: this.logger.child({ component: 'api' }),
      status: (p) => this.statusReport(p),
      resolve: (q) => this.resolveQuery(q),
      health: () => this.lag(),
    });
    const api = this.o.api ?? { host: '127.0.0.1', port: 5380 };
    await this.api.listen(api.host, api.port);
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

  private profiles(): Profile[] {
    return [...this.state.profiles.values()].map((p) => p.profile);
  }

  private setTargets(): void {
    const targets = probeTargets(this.profiles(), this.state.resources);
    this.fingerprints = new Map(targets.map((t) => [t.key, t.fingerprint]));
    // A profile deleted and created again within one rebuild still starts fresh: drop it, then add it.
    if (this.deletedProfiles.size > 0) this.monitor.setTargets(targets.filter((t) => !this.deletedProfiles.has(t.profile)));
    this.deletedProfiles.clear();
    this.monitor.setTargets(targets);
  }

  /** A deleted profile's saved history and carried-over verdicts go with it: a new profile of that name starts fresh. */
  private forgetProfile(name: string): void {
    this.previousHistory = this.previousHistory.filter((t) => t.profile !== name);
    for (const key of [...this.carried.keys()]) if (key.startsWith(`${name}/`)) this.carried.delete(key);
    this.deletedProfiles.add(name);
  }

  /** The monitor's verdicts, with verdicts carried over from the previous run where it has not decided yet. */
  private verdicts(): Map<string, ProbeVerdict> {
    const out = this.monitor.verdicts();
    for (const [key, c] of this.carried) {
      if (out.get(key) === 'CheckingEndpoint' && this.fingerprints.get(key) === c.fingerprint) out.set(key, c.verdict);
    }
    return out;
  }

  private build(): CompiledSnapshot {
    // Freeze the verdicts: a snapshot never changes under a resolver; the next transition builds a new one.
    const verdicts = this.verdicts();
    const health = { verdict: (p: string, e: string): ProbeVerdict | undefined => verdicts.get(`${p}/${e}`) };
    // Incremental: profiles whose document, verdicts and catalog are unchanged keep their compiled form.
    const snap = buildSnapshot({ zone: this.zone, profiles: this.profiles(), health, resources: this.state.resources, geo: this.geo }, this.snap);
    this.metrics.snapshotBuilds.inc();
    this.metrics.storeRevision.set(this.state.revision);
    this.metrics.profiles.set(this.state.profiles.size);
    return snap;
  }

  private onStoreChange(c: StoreChange): void {
    if (c.kind === 'profile' && c.op === 'delete' && c.name !== undefined) this.forgetProfile(c.name);
    if (c.kind === 'resources') this.pendingResources = true;
    else if (c.name !== undefined) this.pendingNames.add(c.name);
    this.schedule();
  }

  private onTransition(t: EndpointTransition): void {
    const carried = this.carried.get(t.key);
    this.carried.delete(t.key); // the monitor has decided this endpoint itself now
    if (carried && t.from === 'CheckingEndpoint' && t.to === carried.verdict && this.fingerprints.get(t.key) === carried.fingerprint) {
      // The first verdict after a restart confirms the carried one: the endpoint's status never changed.
      this.confirmations.add(t);
      this.logger.debug({ profile: t.profile, endpoint: t.endpoint, status: t.to }, 'carried-over endpoint status confirmed by probing');
      this.scheduleSave();
      return;
    }
    this.metrics.transitions.inc({ profile: t.profile, endpoint: t.endpoint, from: t.from, to: t.to });
    this.logger.info({ profile: t.profile, endpoint: t.endpoint, from: t.from, to: t.to, reason: t.reason }, 'endpoint status changed');
    this.pendingHealth = true;
    this.schedule();
    this.scheduleSave();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.unservedSince ??= performance.now();
    this.loop.request();
  }

  /**
   * One rebuild: takes everything pending, re-reads the changed profiles (all of them after a resync),
   * rebuilds the snapshot and swaps it into DNS. On failure everything taken is put back for the retry.
   */
  private async rebuildOnce(): Promise<void> {
    const names = [...this.pendingNames];
    const resources = this.pendingResources || this.pendingFull;
    const full = this.pendingFull;
    const health = this.pendingHealth;
    this.pendingNames.clear();
    this.pendingResources = false;
    this.pendingFull = false;
    this.pendingHealth = false;
    const since = this.unservedSince;
    try {
      const [fetched, all, catalog, revision] = await Promise.all([
        full ? Promise.resolve([]) : Promise.all(names.map((n) => this.store.getProfile(n))),
        full ? this.store.getProfiles() : Promise.resolve(undefined),
        resources ? this.store.getResources() : Promise.resolve(undefined),
        this.store.revision(),
      ]);
      let changed = names;
      if (all) {
        const next = new Map(all.map((p) => [p.profile.name, p]));
        changed = [...new Set([...this.state.profiles.keys(), ...next.keys()])].filter((n) => this.state.profiles.get(n)?.etag !== next.get(n)?.etag);
        this.state.profiles = next;
      } else {
        names.forEach((n, i) => {
          const p = fetched[i];
          if (p) this.state.profiles.set(n, p); else this.state.profiles.delete(n);
        });
      }
      if (catalog) {
        this.state.resources = toResourceCatalog(catalog);
        this.state.resourcesRecord = catalog;
        this.state.resourcesJson = canonicalJson(catalog);
      }
      this.state.revision = Math.max(this.state.revision, revision);
      // Targets first, so a new endpoint's verdict starts at CheckingEndpoint in the same snapshot. A
      // transition setTargets() emits (probe settings changed) is already in the verdicts build() reads.
      if (changed.length > 0 || resources) this.setTargets();
      this.pendingHealth = false;
      this.snap = this.build();
      this.dns.publish(this.snap, () => this.workerUpdate(full ? undefined : changed, resources), () => this.workerUpdate());
    } catch (err) {
      for (const n of names) this.pendingNames.add(n);
      this.pendingResources ||= resources && !full;
      this.pendingFull ||= full;
      this.pendingHealth ||= health;
      if (since !== undefined) this.unservedSince = Math.min(this.unservedSince ?? since, since);
      throw err;
    }
    if (!this.hasPending()) this.unservedSince = undefined;
    if (since !== undefined) this.metrics.configLatency.observe((performance.now() - since) / 1000);
  }

  /** The whole state (`names` undefined), or only what changed: the named profiles, the catalog if it did. */
  private workerUpdate(names?: readonly string[], resources = true): SnapshotUpdate {
    const u: SnapshotUpdate = {
      type: 'tmkit-snapshot',
      revision: this.state.revision,
      full: names === undefined,
      profiles: names === undefined ? this.profiles() : names.flatMap((n) => { const p = this.state.profiles.get(n); return p ? [p.profile] : []; }),
      deleted: names === undefined ? [] : names.filter((n) => !this.state.profiles.has(n)),
      verdicts: Object.fromEntries(this.verdicts()),
    };
    if (resources) u.resources = this.state.resourcesRecord;
    return u;
  }

  private hasPending(): boolean {
    return this.pendingNames.size > 0 || this.pendingResources || this.pendingHealth || this.pendingFull;
  }

  /**
   * Resolves when every change committed so far is in the snapshot DNS serves, or after `timeoutMs` when
   * rebuilds keep failing (callers then answer from the served snapshot; /healthz says it lags). A store
   * revision ahead of the served one with nothing pending (a change whose event never arrived) triggers a
   * full re-read.
   */
  async settle(timeoutMs = 5_000): Promise<void> {
    const end = performance.now() + timeoutMs;
    while (!this.stopped && performance.now() < end) {
      await this.loop.idle();
      const storeRev = await this.store.revision();
      if (!this.hasPending() && storeRev <= this.state.revision) return;
      if (!this.hasPending()) this.pendingFull = true;
      this.schedule();
      await new Promise((r) => setTimeout(r, this.loop.consecutiveFailures > 0 ? 50 : 0));
    }
  }

  /**
   * The watchdog behind /healthz and the lag metrics: how far the served snapshot is behind the store, and
   * for how long a change has waited. Degraded once a change has waited longer than the lag limit.
   */
  async lag(): Promise<SnapshotLag> {
    const storeRevision = await this.store.revision();
    const servedRevision = this.state.revision;
    if (storeRevision > servedRevision && !this.hasPending() && !this.stopped) {
      // A committed change nobody told us about: heal it (and count the wait from now).
      this.pendingFull = true;
      this.schedule();
    }
    const waitedMs = this.unservedSince === undefined ? 0 : performance.now() - this.unservedSince;
    const out: SnapshotLag = {
      storeRevision,
      servedRevision,
      lagRevisions: Math.max(0, storeRevision - servedRevision),
      lagSeconds: Math.round(waitedMs) / 1000,
      rebuildFailures: this.loop.consecutiveFailures,
      degraded: waitedMs > this.lagLimitMs,
    };
    if (out.degraded) {
      out.reason = `the DNS snapshot has not followed the configuration for ${out.lagSeconds.toFixed(1)} s (served revision ${servedRevision}, store revision ${storeRevision}${out.rebuildFailures > 0 ? `, ${out.rebuildFailures} consecutive rebuild failures: see the log` : ''}); DNS answers from the older snapshot`;
    }
    return out;
  }

  /** The snapshot DNS answers from right now. */
  snapshot(): CompiledSnapshot { return this.snap; }

  dnsAddresses(): BoundAddress[] { return this.dns.addresses(); }

  apiAddress(): AddressInfo { return this.api.server.address() as AddressInfo; }

  private async statusReport(stored: StoredProfile): Promise<unknown> {
    await this.settle();
    const name = stored.profile.name;
    const report = profileStatusReport(this.snap, name);
    const current = this.state.profiles.get(name) ?? stored;
    const probes = new Map(this.monitor.statuses(name).map((s) => [s.endpoint, s]));
    const effective = this.verdicts();
    const live = [...probes.values()].flatMap((s) => s.history).filter((t) => !this.confirmations.has(t));
    const seen = new Set(live.map((t) => `${t.key}@${t.at}`));
    const history = [...this.previousHistory.filter((t) => t.profile === name && !seen.has(`${t.key}@${t.at}`)), ...live]
      .sort((a, b) => b.at - a.at).slice(0, 100);
    return {
      name,
      stack: current.stack,
      etag: current.etag,
      revision: this.state.revision,
      fqdn: profileFqdn(current.profile.dnsConfig.relativeName, this.zone),
      profileStatus: current.profile.profileStatus,
      profileMonitorStatus: report?.profileMonitorStatus ?? 'CheckingEndpoints',
      allDegradedFallback: report?.allDegradedFallback ?? false,
      endpoints: current.profile.endpoints.map((e) => {
        const r = report?.endpoints.find((x) => x.name === e.name);
        const s = probes.get(e.name);
        return {
          name: e.name,
          type: e.type,
          ...(e.target !== undefined ? { target: e.target } : {}),
          ...(e.targetResourceId !== undefined ? { targetResourceId: e.targetResourceId } : {}),
          endpointStatus: e.endpointStatus,
          endpointMonitorStatus: r?.endpointMonitorStatus ?? 'CheckingEndpoint',
          reason: r?.reason ?? '',
          probed: s !== undefined,
          ...(s ? {
            verdict: effective.get(s.key) ?? s.verdict,
            ...(effective.get(s.key) !== s.verdict ? { verdictCarriedOver: true } : {}),
            consecutiveFailures: s.consecutiveFailures,
            since: iso(s.since),
            location: s.location,
            ...(s.lastProbe ? { lastProbe: { at: iso(s.lastProbe.at), ok: s.lastProbe.ok, reason: s.lastProbe.reason, latencyMs: Math.round(s.lastProbe.latencyMs * 10) / 10, ...(s.lastProbe.statusCode !== undefined ? { statusCode: s.lastProbe.statusCode } : {}), ...(s.lastProbe.address !== undefined ? { address: s.lastProbe.address } : {}) } } : {}),
          } : {}),
        };
      }),
      transitions: history.map((t) => ({ at: iso(t.at), endpoint: t.endpoint, from: t.from, to: t.to, reason: t.reason, location: t.location })),
    };
  }

  private async resolveQuery(q: ResolveRequest): Promise<unknown> {
    if (isIP(q.clientIp) === 0) throw ApiProblem.of(400, 'BAD_REQUEST', `clientIp '${q.clientIp}' is not an IPv4 or IPv6 address`, { path: 'clientIp' });
    await this.settle();
    const snap = this.snap;
    const query = { name: q.name, type: q.type, clientAddress: q.clientIp };
    const all = resolve(snap, query);
    const one = answer(snap, query, this.rng);
    return {
      query: { name: q.name, type: q.type, clientIp: q.clientIp },
      rcode: one.rcode,
      records: one.records,
      ...(one.profile !== undefined ? { profile: one.profile } : {}),
      endpoints: one.endpoints,
      outcomes: all.outcomes,
      clientDependent: all.clientDependent,
      explanation: all.explanation,
      revision: this.state.revision,
    };
  }

  private registerLagMetrics(): void {
    const engine = this;
    new Gauge({
      name: 'tmkit_snapshot_lag_seconds',
      help: 'How long the oldest configuration change or health transition not yet served by DNS has waited (0: DNS is current)',
      registers: [this.metrics.registry],
      async collect() { if (!engine.stopped) this.set((await engine.lag()).lagSeconds); },
    });
    new Gauge({
      name: 'tmkit_snapshot_lag_revisions',
      help: 'Store revision minus the revision of the snapshot DNS serves',
      registers: [this.metrics.registry],
      async collect() { if (!engine.stopped) this.set((await engine.lag()).lagRevisions); },
    });
  }

  private registerDnsMetrics(): void {
    const dns = (): DnsTarget | undefined => (this.stopped ? undefined : this.dns);
    new Gauge({
      name: 'tmkit_dns_responder_total',
      help: 'DNS responder counters since start (queries, cacheHits, dropped, errors, truncated); by profile/rcode/qtype: tmkit_dns_queries_total',
      labelNames: ['kind'],
      registers: [this.metrics.registry],
      collect() {
        const s = dns()?.stats();
        if (!s) return;
        for (const [k, v] of Object.entries(s)) this.set({ kind: k }, v as number);
      },
    });
    // Per-answer counts live in the DNS responder (no per-query callback); they are copied in at scrape time.
    new Counter({
      name: 'tmkit_dns_queries_total',
      help: 'DNS queries answered, by profile (empty: no profile matched, e.g. apex, NXDOMAIN, REFUSED, errors), rcode and qtype',
      labelNames: ['profile', 'rcode', 'qtype'],
      registers: [this.metrics.registry],
      collect() {
        const c = dns()?.counts();
        if (!c) return;
        this.reset();
        for (const [profile, rcode, qtype, n] of c.queries) this.inc({ profile, rcode, qtype }, n);
      },
    });
    new Counter({
      name: 'tmkit_dns_answers_total',
      help: 'DNS answers carrying records, by profile and leaf endpoint (profile/endpoint path through nesting); MultiValue answers count every endpoint',
      labelNames: ['profile', 'endpoint'],
      registers: [this.metrics.registry],
      collect() {
        const c = dns()?.counts();
        if (!c) return;
        this.reset();
        for (const [profile, endpoint, n] of c.answers) this.inc({ profile, endpoint }, n);
      },
    });
  }

  private scheduleSave(): void {
    if (this.saveTimer || this.stopped) return;
    this.saveTimer = setTimeout(() => { this.saveTimer = undefined; void this.saveMonitor(); }, 1000);
    this.saveTimer.unref();
  }

  private async saveMonitor(): Promise<void> {
    const history = this.monitor.statuses().flatMap((s) => s.history).filter((t) => !this.confirmations.has(t)).sort((a, b) => a.at - b.at).slice(-1000);
    try {
      const state: SavedMonitorState = {
        savedAt: Date.now(),
        verdicts: Object.fromEntries(this.verdicts()),
        fingerprints: Object.fromEntries(this.fingerprints),
        history,
      };
      await this.store.saveMonitorState(state);
    } catch (err) {
      this.logger.warn({ err }, 'could not save the monitor state');
    }
  }

  /** Drains the API (in-flight requests finish), stops probing and DNS, saves monitor state, closes the store. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.saveTimer) { clearTimeout(this.saveTimer); this.saveTimer = undefined; }
    await this.api?.close();
    await this.loop.stop();
    await this.monitor.stop();
    await this.dns?.close();
    if (this.state) await this.saveMonitor();
    for (const u of this.unwatch) u();
    await this.store.close();
  }
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return i < 0 ? [key, ''] : [key.slice(0, i), key.slice(i + 1)];
}

/** What `/healthz` and the lag metrics report (see `Engine.lag`). */
export interface SnapshotLag {
  storeRevision: number;
  servedRevision: number;
  lagRevisions: number;
  /** How long the oldest change not yet served has waited (0 when DNS is current). */
  lagSeconds: number;
  rebuildFailures: number;
  degraded: boolean;
  reason?: string;
}

/** The monitor state kept in the store across restarts. */
interface SavedMonitorState {
  savedAt: number;
  /** Effective verdicts (`profile/endpoint` → verdict) when saved. */
  verdicts?: Record<string, ProbeVerdict>;
  /** Probe settings fingerprints the verdicts belong to. */
  fingerprints?: Record<string, string>;
  history?: EndpointTransition[];
}

/**
 * What worker processes receive on every rebuild: the snapshot's inputs as plain data. `full`: the whole
 * state (on start and resync); otherwise only the profiles that changed and the ones deleted, the catalog
 * only when it changed. Verdicts are always complete (small: one per probed endpoint).
 */
export interface SnapshotUpdate {
  type: 'tmkit-snapshot';
  revision: number;
  full: boolean;
  profiles: Profile[];
  deleted: string[];
  resources?: ResourceCatalogRecord;
  /** `profile/endpoint` → probe verdict. */
  verdicts: Record<string, ProbeVerdict>;
}

/** Where snapshots go: the DNS server in this process, or DNS worker processes. */
interface DnsTarget {
  start(): Promise<void>;
  /** `delta` and `full` are only computed when a worker needs them. */
  publish(snapshot: CompiledSnapshot, delta: () => SnapshotUpdate, full: () => SnapshotUpdate): void;
  addresses(): BoundAddress[];
  stats(): ResponderStats | undefined;
  counts(): DnsCounts | undefined;
  close(): Promise<void>;
}

class LocalDns implements DnsTarget {
  constructor(private readonly server: DnsServer) {}
  start(): Promise<void> { return this.server.start(); }
  publish(snapshot: CompiledSnapshot): void { this.server.setSnapshot(snapshot); }
  addresses(): BoundAddress[] { return this.server.addresses(); }
  stats(): ResponderStats { return this.server.stats; }
  counts(): DnsCounts { return this.server.counts(); }
  close(): Promise<void> { return this.server.close(); }
}

type WorkerMessage =
  | { type: 'tmkit-dns-listening'; addresses: BoundAddress[] }
  | { type: 'tmkit-dns-stats'; stats: ResponderStats; counts?: DnsCounts }
  | { type: 'tmkit-dns-failed'; message: string };

/**
 * N DNS worker processes sharing the port (node:cluster, as `tmkit dns --workers`). The primary keeps
 * the store, API and prober; on every rebuild it sends each worker the snapshot's inputs and the worker
 * builds the same snapshot. A worker that dies is replaced and gets the latest state when it listens.
 */
class ClusterDns implements DnsTarget {
  private full: (() => SnapshotUpdate) | undefined;
  /** Workers that got a full update since they (re)started listening; the others get one when they do. */
  private readonly synced = new Set<number>();
  private bound: BoundAddress[] = [];
  private readonly workerStats = new Map<number, ResponderStats>();
  private readonly workerCounts = new DnsCountsAggregate();
  private stopping = false;
  private live = 0;

  constructor(private readonly n: number, private readonly listen: ListenAddress[], private readonly logger: Logger) {
    if (!cluster.isPrimary) throw new Error('ClusterDns: only the cluster primary can start DNS workers');
  }

  async start(): Promise<void> {
    // Port 0: choose a port free for both UDP and TCP here, so every worker binds the same concrete one
    // (workers sharing a port-0 UDP handle could otherwise not move on when its TCP twin is taken).
    const listen = await Promise.all(this.listen.map(async (l) => (l.port === 0 ? { address: l.address, port: await freeDnsPort(l.address) } : l)));
    return new Promise((resolveStart, rejectStart) => {
      let ready = 0;
      let started = false;
      const timer = setTimeout(() => fail('the DNS workers did not start within 90 s'), 90_000);
      const fail = (why: string): void => {
        if (started) return;
        started = true;
        clearTimeout(timer);
        void this.close().then(() => rejectStart(new Error(why)));
      };
      const fork = (): void => {
        this.live++;
        const w = cluster.fork({ TMKIT_DNS_WORKER: '1', TMKIT_DNS_LISTEN: JSON.stringify(listen) });
        w.on('message', (m: WorkerMessage) => {
          if (m?.type === 'tmkit-dns-listening') {
            this.bound = m.addresses;
            if (this.full && w.isConnected()) { w.send(this.full()); this.synced.add(w.id); }
            if (!started && ++ready === this.n) { started = true; clearTimeout(timer); resolveStart(); }
          } else if (m?.type === 'tmkit-dns-stats') {
            this.workerStats.set(w.id, m.stats);
            if (m.counts) this.workerCounts.set(w.id, m.counts);
          } else if (m?.type === 'tmkit-dns-failed') {
            fail(m.message);
          }
        });
        w.on('exit', (code, signal) => {
          this.live--;
          this.workerStats.delete(w.id);
          this.workerCounts.retire(w.id);
          this.synced.delete(w.id);
          if (this.stopping) return;
          if (!started) { fail(`a DNS worker exited (${signal ?? code}) before listening`); return; }
          this.logger.warn({ pid: w.process.pid, code, signal }, 'DNS worker exited; starting another');
          fork();
        });
      };
      for (let i = 0; i < this.n; i++) fork();
    });
  }

  publish(_snapshot: CompiledSnapshot, delta: () => SnapshotUpdate, full: () => SnapshotUpdate): void {
    this.full = full;
    let d: SnapshotUpdate | undefined;
    for (const w of Object.values(cluster.workers ?? {})) {
      if (!w || !this.synced.has(w.id) || !w.isConnected()) continue;
      d ??= delta();
      w.send(d);
    }
  }

  addresses(): BoundAddress[] { return this.bound.map((b) => ({ ...b })); }

  stats(): ResponderStats | undefined {
    if (this.workerStats.size === 0) return undefined;
    const out: ResponderStats = { queries: 0, cacheHits: 0, dropped: 0, errors: 0, truncated: 0 };
    for (const s of this.workerStats.values()) for (const k of Object.keys(out) as Array<keyof ResponderStats>) out[k] += s[k] ?? 0;
    return out;
  }

  /** Summed over the workers' latest reports (and the last reports of workers that exited). */
  counts(): DnsCounts { return this.workerCounts.total(); }

  async close(): Promise<void> {
    this.stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    await Promise.all(workers.map((w) => new Promise<void>((r) => {
      if (w.isDead()) { r(); return; }
      w.once('exit', () => r());
      w.process.kill('SIGTERM');
    })));
  }
}

/**
 * The body of a DNS worker process (`tmkit serve --workers N`): a DNS server whose snapshot is rebuilt
 * from every update the primary sends. Resolves when the worker is told to stop (SIGTERM/SIGINT or the
 * primary going away).
 */
/** The geo databases and latency table named by the options (the shipped country database alone by default). */
export function geoOptions(o: { geoip?: string; latencyTable?: string }): { geoip?: string; latencyTable?: string } {
  return { ...(o.geoip !== undefined ? { geoip: o.geoip } : {}), ...(o.latencyTable !== undefined ? { latencyTable: o.latencyTable } : {}) };
}

/** What the zone says about itself: apex NS names, their in-zone addresses (glue) and the SOA contact. */
export interface DnsAuthority {
  nsNames?: string[];
  nsAddresses?: Record<string, string[]>;
  soa?: { rname: string };
}

export async function runDnsWorker(o: { zone: string; dns: ListenAddress[]; geoip?: string; latencyTable?: string; geo?: GeoLookup; authority?: DnsAuthority }): Promise<void> {
  const zone = o.zone.replace(/\.$/, '').toLowerCase();
  // The primary resolves port 0 to a concrete port for all workers.
  const listen = process.env.TMKIT_DNS_LISTEN ? (JSON.parse(process.env.TMKIT_DNS_LISTEN) as ListenAddress[]) : o.dns;
  const geo = o.geo ?? await MmdbGeoLookup.open(geoOptions(o));
  let snapshot = buildSnapshot({ zone, profiles: [], geo });
  const server = new DnsServer({ zone, snapshot, resolve, rng: Math.random, listen, ...o.authority });
  const profiles = new Map<string, Profile>();
  let resources: ResourceCatalog = new Map();
  process.on('message', (m: SnapshotUpdate) => {
    if (m?.type !== 'tmkit-snapshot') return;
    if (m.full) profiles.clear();
    for (const n of m.deleted) profiles.delete(n);
    for (const p of m.profiles) profiles.set(p.name, p);
    if (m.resources) resources = toResourceCatalog(m.resources);
    const verdicts = m.verdicts;
    // Incremental (unchanged profile objects keep their compiled form); a full update brings new objects.
    snapshot = buildSnapshot({
      zone, profiles: profiles.values(), resources, geo,
      health: { verdict: (p, e) => verdicts[`${p}/${e}`] },
    }, snapshot);
    server.setSnapshot(snapshot);
  });
  try {
    await server.start();
  } catch (err) {
    process.send?.({ type: 'tmkit-dns-failed', message: (err as Error).message });
    throw err;
  }
  process.send?.({ type: 'tmkit-dns-listening', addresses: server.addresses() });
  // Cumulative counters to the primary's /metrics: every second when something was answered.
  let reported = -1;
  const report = (): void => {
    if (server.stats.queries === reported) return;
    reported = server.stats.queries;
    process.send?.({ type: 'tmkit-dns-stats', stats: server.stats, counts: server.counts() });
  };
  const statsTimer = setInterval(report, 1000);
  statsTimer.unref();
  await new Promise<void>((r) => {
    // SIGINT (Ctrl-C reaches the whole process group) is left to the primary, which stops the workers.
    process.on('SIGINT', () => undefined);
    process.once('SIGTERM', () => r());
    process.once('disconnect', () => r());
  });
  clearInterval(statsTimer);
  await server.close();
  report();
  if (cluster.isWorker) cluster.worker?.disconnect();
}

/** A port on `address` that is free for both UDP and TCP right now. */
async function freeDnsPort(address: string): Promise<number> {
  const v6 = isIP(address) === 6;
  for (let attempt = 0; attempt < 50; attempt++) {
    const udp = dgram.createSocket({ type: v6 ? 'udp6' : 'udp4', exclusive: true } as dgram.SocketOptions);
    const port = await new Promise<number>((res, rej) => { udp.once('error', rej); udp.bind({ address, port: 0, exclusive: true }, () => res(udp.address().port)); });
    const ok = await new Promise<boolean>((res) => {
      const srv = net.createServer();
      srv.once('error', () => res(false));
      srv.listen({ host: address, port, exclusive: true }, () => srv.close(() => res(true)));
    });
    await new Promise<void>((r) => udp.close(() => r()));
    if (ok) return port;
  }
  throw new Error(`no port on ${address} is free for both UDP and TCP`);
}
