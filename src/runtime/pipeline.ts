/**
 * The snapshot pipeline: the runtime's copy of the store (profiles, catalog, revision), the changes not yet
 * served, and the single-flight rebuild that turns them into the snapshot DNS answers from.
 *
 *   store ──watch──▶ pending ──rebuildOnce──▶ buildSnapshot ──▶ sinks (DNS and its workers, Traffic View, events)
 *   health ledger ──onChange──▶ ▲     ├──retarget──▶ health ledger (the prober follows: new endpoints start
 *                                     │                             CheckingEndpoint)
 *                                     └──verdictOf──▶ health ledger (one key per changed endpoint)
 *
 * It depends only on what is below it: the store (read, watch), the health ledger as a port (ledger/), and
 * its sinks (snapshot-sink.ts's SnapshotSink). Nothing calls up into the engine.
 *
 * Every committed store change and every health transition schedules one rebuild on the next turn of the
 * event loop (changes arriving meanwhile are folded into it), so a write reaches DNS answers within
 * milliseconds of its commit and DNS only ever sees whole snapshots. A rebuild costs what changed, not
 * what is served: it re-reads the changed profiles, asks for the verdicts of their endpoints
 * and of the endpoints that had a transition (one key each), and hands exactly that to updateSnapshot();
 * DNS workers get the same delta. Only a resync, a new resource catalog or a change of which locations are
 * live (cluster mode) reads every verdict again. The watchdog (`lag()`) says how far the
 * served snapshot is behind, and heals a change whose event never arrived.
 */
import type { Logger } from 'pino';
import { EMPTY_LATENCY_VIEW, measuredProfiles, nextLatencyView, type LatencyView, type MeasuredProfiles } from '../core/health/latency';
import type { EndpointOverride, ProbeVerdict } from '../core/health/types';
import { toResourceCatalog, type ResourceCatalogRecord } from '../core/model/catalog';
import type { Profile } from '../core/model/types';
import type { GeoLookup, ResourceCatalog } from '../core/ports';
import { overriddenProfilesChanged } from '../core/operations/overrides';
import { buildSnapshot, updateSnapshot, type CompiledSnapshot } from '../core/routing';
import { canonicalJson, type Store, type StoreChange, type StoredProfile } from '../core/store';
import type { SnapshotSink, SnapshotUpdate } from './snapshot-sink';
import type { HealthPort, LatencyPort } from './ledger';
import type { RuntimeMetrics } from './metrics';
import { RebuildLoop } from './rebuild-loop';

/** What `/healthz` and the lag metrics report (see `SnapshotPipeline.lag`). */
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

export interface PipelineOptions {
  store: Store;
  zone: string;
  geo: GeoLookup;
  metrics: RuntimeMetrics;
  logger: Logger;
  /** The health ledger: the prober's targets follow the configuration through it, and it has the verdicts. */
  health: HealthPort;
  /**
   * What this node's prober measured (ledger/latency.ts), for Performance profiles whose
   * `performanceLatency.source` is Measured; absent: they rank by the distance model.
   */
  latency?: LatencyPort;
  /** Extra delay before a rebuild, folding bursts of changes (default 0: next event-loop turn). */
  debounceMs?: number;
  /** The watchdog degrades when a change has waited longer than this (default 5000 ms). */
  lagLimitMs?: number;
}

export class SnapshotPipeline {
  private profilesByName = new Map<string, StoredProfile>();
  private resources: ResourceCatalog = new Map();
  private resourcesRecord: ResourceCatalogRecord = {};
  /** The store revision the served snapshot reflects. */
  private revision = 0;
  private snap!: CompiledSnapshot;
  private pendingNames = new Set<string>();
  private pendingResources = false;
  /**
   * What the store's events said the changed profiles are now (null: deleted), so a rebuild need not read
   * them back; a name whose latest event carried no value is read from the store.
   */
  private pendingValues = new Map<string, StoredProfile | null>();
  /** Profiles deleted (a delete event) since the last retarget: the ledger lets them start fresh. */
  private pendingDeleted = new Set<string>();
  /** Endpoints (`profile/endpoint`) whose verdict may have changed since the served snapshot. */
  private pendingVerdicts = new Set<string>();
  /** Any verdict may have changed (cluster liveness, other locations): read them all. */
  private pendingHealth = false;
  /**
   * The verdicts the served snapshot was built from, kept current by each rebuild (one entry per changed
   * endpoint); the snapshots' HealthView reads it. Resolvers never read a snapshot's HealthView (statuses
   * are compiled in), so a snapshot's view moving on with the next build changes no answer.
   */
  private verdictMap = new Map<string, ProbeVerdict>();
  /**
   * The overrides the served snapshot was built from (the ledger's map, replaced on every change). Weight and
   * `down` overrides are read by the core when it compiles an endpoint (compile-endpoint.ts): the snapshot is
   * built from the stored profiles and these, so the profiles never change (docs/ARCHITECTURE.md).
   */
  private overrideMap: ReadonlyMap<string, EndpointOverride> = new Map();
  private readonly health = {
    verdict: (p: string, e: string): ProbeVerdict | undefined => this.verdictMap.get(`${p}/${e}`),
    override: (p: string, e: string): EndpointOverride | undefined => this.overrideMap.get(`${p}/${e}`),
  };
  /**
   * The measured latency the served snapshot carries, and the one the next rebuild publishes (undefined:
   * nothing new). A new view is made only when routing would see the difference (`nextLatencyView`), so
   * probes alone never rebuild the snapshot.
   */
  private latencyView: LatencyView = EMPTY_LATENCY_VIEW;
  private pendingLatency: LatencyView | undefined;
  /** The Measured Performance profiles served now, by name (kept with every rebuild). */
  private measured: MeasuredProfiles = new Map();
  /** A full re-read of the store is due (the served revision fell behind with nothing pending). */
  private pendingFull = false;
  /** When the oldest change not yet served arrived (performance.now()); undefined when DNS is current. */
  private unservedSince: number | undefined;
  private readonly loop: RebuildLoop;
  private readonly lagLimitMs: number;
  private stopped = false;
  private readonly sinks: SnapshotSink[] = [];
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: PipelineOptions) {
    this.lagLimitMs = deps.lagLimitMs ?? 5_000;
    this.loop = new RebuildLoop({
      step: () => this.rebuildOnce(),
      hasPending: () => this.hasPending(),
      debounceMs: deps.debounceMs ?? 0,
      onError: (err, failures) => {
        deps.metrics.rebuildFailures.inc();
        deps.logger.error({ err, failures }, 'snapshot rebuild failed; DNS keeps answering from the previous snapshot; retrying');
      },
    });
  }

  /**
   * Follows the store and the health ledger from now on, reads the whole store, points the prober at it and
   * builds the first snapshot (published to each sink as it is added).
   */
  async load(): Promise<CompiledSnapshot> {
    this.unsubscribe.push(
      this.deps.store.watch((c) => this.onStoreChange(c)),
      this.deps.health.onChange((key) => this.onHealthChange(key)),
    );
    if (this.deps.latency) this.unsubscribe.push(this.deps.latency.onChange(() => this.onLatencyChange()));
    const [stored, resources, revision] = await Promise.all([
      this.deps.store.getProfiles(),
      this.deps.store.getResources(),
      this.deps.store.revision(),
    ]);
    this.profilesByName = new Map(stored.map((p) => [p.profile.name, p]));
    this.setCatalog(resources);
    this.revision = revision;
    this.measured = measuredProfiles(this.profiles());
    this.deps.health.retarget({ profiles: () => this.profiles(), resources: this.resources, changed: undefined, deleted: new Set() });
    this.snap = this.build();
    return this.snap;
  }

  /**
   * Publishes every snapshot from now on to `sink`. `seen` is the snapshot the sink started with (DNS starts
   * with `snapshot()`); when a rebuild has swapped it since, the sink gets the current one at once.
   */
  addSink(sink: SnapshotSink, seen?: CompiledSnapshot): void {
    this.sinks.push(sink);
    if (seen !== undefined && seen !== this.snap)
      sink.publish({
        snapshot: this.snap,
        revision: this.revision,
        deleted: [],
        delta: () => this.workerUpdate(),
        full: () => this.workerUpdate(),
      });
  }

  /** The snapshot DNS answers from right now. */
  snapshot(): CompiledSnapshot {
    return this.snap;
  }

  /** The store revision the served snapshot reflects. */
  servedRevision(): number {
    return this.revision;
  }

  /** The served configuration's profiles. */
  profiles(): Profile[] {
    return [...this.profilesByName.values()].map((p) => p.profile);
  }

  /** The served resource catalog. */
  catalog(): ResourceCatalog {
    return this.resources;
  }

  /** One profile of the served configuration (with its stack and ETag). */
  stored(name: string): StoredProfile | undefined {
    return this.profilesByName.get(name);
  }

  /** A committed store change: re-read what it names. */
  onStoreChange(c: StoreChange): void {
    if (c.kind === 'resources') this.pendingResources = true;
    else if (c.name !== undefined) {
      this.pendingNames.add(c.name);
      if (c.op === 'delete') {
        this.pendingDeleted.add(c.name);
        this.pendingValues.set(c.name, null);
      } else if (c.op === 'put' && c.stored !== undefined) this.pendingValues.set(c.name, c.stored);
      else this.pendingValues.delete(c.name);
    }
    this.schedule();
  }

  /**
   * A health transition of endpoint `key` (`profile/endpoint`): rebuild with its verdict now. Without a key,
   * any verdict may have changed (another location's verdicts or liveness): every one is read again.
   */
  onHealthChange(key?: string): void {
    if (key === undefined) this.pendingHealth = true;
    else this.pendingVerdicts.add(key);
    this.schedule();
  }

  /**
   * The measurements moved: rebuild only if routing would see it (a leader, a pair reaching minSamples, a
   * value beyond half the profile's tolerance; core/health/latency.ts `nextLatencyView`).
   */
  onLatencyChange(): void {
    const next = this.nextLatency();
    if (next === undefined) return;
    this.pendingLatency = next;
    this.schedule();
  }

  /** The measured latency DNS reads now. */
  latency(): LatencyView {
    return this.latencyView;
  }

  /** The view to publish when it differs from the served (or pending) one; undefined: no difference. */
  private nextLatency(): LatencyView | undefined {
    const l = this.deps.latency;
    if (l === undefined) return undefined;
    const base = this.pendingLatency ?? this.latencyView;
    const next = nextLatencyView(base, l.locations(), l.samples(), this.measured);
    return next === base ? undefined : next;
  }

  /** The largest DNS TTL of the profiles served now (0 without profiles): DNSSEC rollovers wait it out. */
  maxTtl(): number {
    let max = 0;
    for (const p of this.profiles()) max = Math.max(max, p.dnsConfig.ttl);
    return max;
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
      const storeRev = await this.deps.store.revision();
      if (!this.hasPending() && storeRev <= this.revision) return;
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
    const storeRevision = await this.deps.store.revision();
    const servedRevision = this.revision;
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
      out.reason =
        `the DNS snapshot has not followed the configuration for ${out.lagSeconds.toFixed(1)} s (served ` +
        `revision ${servedRevision}, store revision ${storeRevision}` +
        `${out.rebuildFailures > 0 ? `, ${out.rebuildFailures} consecutive rebuild failures: see the log` : ''}); ` +
        `DNS answers from the older snapshot`;
    }
    return out;
  }

  /** No new rebuilds; a running one finishes. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const u of this.unsubscribe) u();
    await this.loop.stop();
  }

  /**
   * The whole state (`names` undefined), or only what changed: the named profiles, the catalog if it did,
   * and the verdicts that changed (`verdicts`; undefined: all of them, replacing the worker's).
   */
  workerUpdate(
    names?: readonly string[],
    resources = true,
    verdicts?: ReadonlyMap<string, ProbeVerdict | null>,
    latencyChanged = true,
  ): SnapshotUpdate {
    const u: SnapshotUpdate = {
      type: 'tmkit-snapshot',
      revision: this.revision,
      full: names === undefined,
      profiles:
        names === undefined
          ? this.profiles()
          : names.flatMap((n) => {
              const p = this.profilesByName.get(n);
              return p ? [p.profile] : [];
            }),
      deleted: names === undefined ? [] : names.filter((n) => !this.profilesByName.has(n)),
      verdicts: Object.fromEntries(names === undefined || verdicts === undefined ? this.verdictMap : verdicts),
      verdictsComplete: names === undefined || verdicts === undefined,
      overrides: Object.fromEntries(this.overrideMap),
    };
    if (this.latencyView !== EMPTY_LATENCY_VIEW && (names === undefined || latencyChanged)) u.latency = this.latencyView;
    if (resources) u.resources = this.resourcesRecord;
    return u;
  }

  private setCatalog(record: ResourceCatalogRecord): void {
    this.resources = toResourceCatalog(record);
    this.resourcesRecord = record;
  }

  /**
   * Builds from everything: every verdict read again, every profile compared (buildSnapshot's detector keeps
   * the unchanged ones compiled). At load, after a resync and when the catalog changed.
   */
  private build(): CompiledSnapshot {
    this.verdictMap = this.deps.health.verdicts();
    this.overrideMap = this.deps.health.overrides();
    const snap = buildSnapshot(
      {
        zone: this.deps.zone,
        profiles: this.profiles(),
        health: this.health,
        latency: this.latencyView,
        resources: this.resources,
        geo: this.deps.geo,
      },
      this.snap,
    );
    return this.built(snap);
  }

  private built(snap: CompiledSnapshot): CompiledSnapshot {
    this.deps.metrics.snapshotBuilds.inc();
    this.deps.metrics.storeRevision.set(this.revision);
    this.deps.metrics.profiles.set(this.profilesByName.size);
    return snap;
  }

  /**
   * Builds from what changed: the `changed` profiles (the profile now, undefined: deleted; `before`: what they
   * were) and the endpoints with a pending transition; every verdict too when `allVerdicts`. Returns the
   * snapshot and the verdicts that changed (null: gone), for the workers (undefined: all of them).
   */
  private update(
    changed: ReadonlyMap<string, Profile | undefined>,
    before: ReadonlyMap<string, Profile | undefined>,
    keys: ReadonlySet<string>,
    allVerdicts: boolean,
  ): { snap: CompiledSnapshot; verdicts?: Map<string, ProbeVerdict | null> } {
    const overridden = this.takeOverrides();
    if (allVerdicts) {
      this.verdictMap = this.deps.health.verdicts();
      return {
        snap: this.built(
          updateSnapshot(this.snap, { profiles: changed, allVerdicts: true, health: this.health, latency: this.latencyView }),
        ),
      };
    }
    // The changed profiles' endpoints (old and new names: a new endpoint starts CheckingEndpoint, a removed
    // one's verdict goes) and the transitioned ones.
    const ask = new Set(keys);
    const endpointKeys = (name: string, p: Profile | undefined): void => {
      for (const e of Array.isArray(p?.endpoints) ? p!.endpoints : []) if (e.type !== 'nestedEndpoints') ask.add(`${name}/${e.name}`);
    };
    for (const [name, p] of changed) {
      endpointKeys(name, p);
      endpointKeys(name, before.get(name));
    }
    const verdicts = new Map<string, ProbeVerdict | null>();
    const profiles = new Set<string>(overridden);
    for (const key of ask) {
      const v = this.deps.health.verdictOf(key);
      if (v === this.verdictMap.get(key)) continue;
      if (v === undefined) this.verdictMap.delete(key);
      else this.verdictMap.set(key, v);
      verdicts.set(key, v ?? null);
      const slash = key.indexOf('/');
      profiles.add(slash < 0 ? key : key.slice(0, slash));
    }
    return {
      snap: this.built(
        updateSnapshot(this.snap, { profiles: changed, verdicts: profiles, health: this.health, latency: this.latencyView }),
      ),
      verdicts,
    };
  }

  /** Keeps `measured` current for one changed profile. */
  private trackMeasured(name: string): void {
    const p = this.profilesByName.get(name)?.profile;
    const m = p === undefined ? undefined : measuredProfiles([p]).get(name);
    if (m === undefined) this.measured.delete(name);
    else this.measured.set(name, m);
  }

  /** Takes the ledger's overrides when they changed; returns the profiles whose overrides differ. */
  private takeOverrides(): Set<string> {
    const next = this.deps.health.overrides();
    const out = overriddenProfilesChanged(this.overrideMap, next);
    this.overrideMap = next;
    return out;
  }

  private hasPending(): boolean {
    return (
      this.pendingNames.size > 0 ||
      this.pendingResources ||
      this.pendingHealth ||
      this.pendingVerdicts.size > 0 ||
      this.pendingFull ||
      this.pendingLatency !== undefined
    );
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
    const keys = this.pendingVerdicts;
    const deleted = this.pendingDeleted;
    this.pendingDeleted = new Set();
    const values = this.pendingValues;
    this.pendingValues = new Map();
    this.pendingNames.clear();
    this.pendingResources = false;
    this.pendingFull = false;
    this.pendingHealth = false;
    this.pendingVerdicts = new Set();
    const latency = this.pendingLatency;
    this.pendingLatency = undefined;
    const since = this.unservedSince;
    /** updateSnapshot() started: it edits the served snapshot's indexes, so a failure after it needs a full build. */
    let consumed = false;
    try {
      const store = this.deps.store;
      const [fetched, all, catalog, revision] = await Promise.all([
        full ? Promise.resolve([]) : Promise.all(names.map((n) => (values.has(n) ? (values.get(n) ?? undefined) : store.getProfile(n)))),
        full ? store.getProfiles() : Promise.resolve(undefined),
        resources ? store.getResources() : Promise.resolve(undefined),
        store.revision(),
      ]);
      let changed = names;
      const before = new Map<string, Profile | undefined>();
      if (all) {
        const next = new Map(all.map((p) => [p.profile.name, p]));
        changed = [...new Set([...this.profilesByName.keys(), ...next.keys()])].filter(
          (n) => this.profilesByName.get(n)?.etag !== next.get(n)?.etag,
        );
        this.profilesByName = next;
      } else {
        names.forEach((n, i) => {
          const p = fetched[i];
          before.set(n, this.profilesByName.get(n)?.profile);
          if (p) this.profilesByName.set(n, p);
          else this.profilesByName.delete(n);
        });
      }
      const catalogChanged = catalog !== undefined && canonicalJson(catalog) !== canonicalJson(this.resourcesRecord);
      if (catalogChanged) this.setCatalog(catalog);
      this.revision = Math.max(this.revision, revision);
      // Targets first, so a new endpoint's verdict starts at CheckingEndpoint in the same snapshot. A
      // transition the retarget causes (probe settings changed) is of a changed profile's endpoint, whose
      // verdict this build reads anyway. Only the changed profiles' endpoints are looked at; a catalog
      // change can move any endpoint: all of them.
      if (catalogChanged)
        this.deps.health.retarget({ profiles: () => this.profiles(), resources: this.resources, changed: undefined, deleted });
      else if (changed.length > 0 || deleted.size > 0) {
        this.deps.health.retarget({
          profiles: () => this.profiles(),
          resources: this.resources,
          changed: new Map(changed.map((n) => [n, this.profilesByName.get(n)?.profile])),
          deleted,
        });
      }
      // The Measured profiles follow the configuration (only the changed ones are looked at), and the
      // measurements are ranked again for them: a profile that became Measured uses what was probed.
      if (all) this.measured = measuredProfiles(this.profiles());
      else for (const n of changed) this.trackMeasured(n);
      const servedLatency = this.latencyView;
      this.latencyView = latency ?? this.latencyView;
      if (all || changed.length > 0) {
        const next = this.nextLatency();
        if (next !== undefined) this.latencyView = next;
      }
      // Verdict changes announced while this rebuild read the store: this build reads them.
      for (const k of this.pendingVerdicts) keys.add(k);
      this.pendingVerdicts.clear();
      const allVerdicts = health || this.pendingHealth;
      this.pendingHealth = false;
      let verdicts: Map<string, ProbeVerdict | null> | undefined;
      if (full || catalogChanged) this.snap = this.build();
      else {
        consumed = true;
        ({ snap: this.snap, verdicts } = this.update(
          new Map(changed.map((n) => [n, this.profilesByName.get(n)?.profile])),
          before,
          keys,
          allVerdicts,
        ));
      }
      const latencyChanged = this.latencyView !== servedLatency;
      const published = {
        snapshot: this.snap,
        revision: this.revision,
        deleted: [...deleted],
        delta: () => this.workerUpdate(full ? undefined : changed, resources, verdicts, latencyChanged),
        full: () => this.workerUpdate(),
      };
      for (const sink of this.sinks) sink.publish(published);
    } catch (err) {
      for (const n of names) this.pendingNames.add(n);
      for (const n of deleted) this.pendingDeleted.add(n);
      for (const k of keys) this.pendingVerdicts.add(k);
      this.pendingLatency ??= latency;
      this.pendingResources ||= resources && !full;
      this.pendingFull ||= full || consumed;
      this.pendingHealth ||= health;
      if (since !== undefined) this.unservedSince = Math.min(this.unservedSince ?? since, since);
      throw err;
    }
    if (!this.hasPending()) this.unservedSince = undefined;
    if (since !== undefined) this.deps.metrics.configLatency.observe((performance.now() - since) / 1000);
  }
}
