/**
 * The health ledger: the one owner of what the runtime believes about every probed endpoint's health, and of
 * that belief's memory across restarts. Below the snapshot pipeline (which asks it for verdicts) and above
 * the prober and the cluster (which it asks).
 *
 *   config change ──retarget()──▶ probe targets and their fingerprints ──▶ Monitor (monitor/) probes them
 *                                                                            │ transitions
 *   effective verdict of an endpoint = aggregate over the live locations ◀──┤ (cluster/, in cluster mode)
 *        of this location's own verdict = the monitor's, or the one carried over from the previous run
 *        (previous-run.ts) until the monitor decides again
 *   every change of a record (transition, new probe settings, gone) ──▶ saver.ts ──▶ the store
 *
 * Inputs that change what routing reads belong here too, so DNS, status, plans and the cluster see them
 * alike: overrides (operations-feed.ts, beside the verdicts: `overrides()`), failback approvals and the failback
 * state carried over a restart (failback.ts, into the prober's state machines). `onChange` tells the pipeline
 * which endpoint's effective verdict may have changed; `onTransition` tells observers (logs, metrics, live
 * events) about real status changes — not the first probe confirming a carried-over verdict.
 */
import type { Logger } from 'pino';
import { probeDecision, probeTargets, splitTargetKey } from '../../core/health/targets';
import type { EndpointOverride, ProbeVerdict } from '../../core/health/types';
import type { Profile } from '../../core/model/types';
import type { ResourceCatalog } from '../../core/ports';
import type { Store } from '../../core/store';
import type { RuntimeClock } from '../clock';
import type { LocationReport, OwnVerdict } from '../cluster/health';
import type { EndpointProbeStatus, EndpointTransition, Monitor } from '../monitor';
import { applyApproval, seedCarried } from './failback';
import type { OperationsFeed } from './operations-feed';
import { PreviousRun, type LedgerTransition, type SavedEndpoint } from './previous-run';
import { memoryPushedHealthStore, PushedHealth, pushedTransition } from './pushed-health';
import { RecordSaver } from './saver';

/** A configuration change the prober's targets follow (the pipeline hands it over before each build). */
export interface RetargetChange {
  /** Every served profile (built on demand: the full retarget's input). */
  profiles: () => Profile[];
  resources: ResourceCatalog;
  /** The changed profiles (undefined value: deleted), or undefined for a full retarget. */
  changed: ReadonlyMap<string, Profile | undefined> | undefined;
  /** Profiles deleted since the previous retarget: they start fresh even when they are back already. */
  deleted: ReadonlySet<string>;
}

/** What the snapshot pipeline asks of the ledger (its port below it). */
export interface HealthPort {
  /** The prober follows the configuration (called before a build whenever the configuration changed). */
  retarget(change: RetargetChange): void;
  /** Every probed endpoint's effective verdict, by `profile/endpoint`. */
  verdicts(): Map<string, ProbeVerdict>;
  /** One endpoint's effective verdict (what `verdicts()` holds for it). */
  verdictOf(key: string): ProbeVerdict | undefined;
  /** The overrides in force, by `profile/endpoint` (a new map whenever one changes; `onChange` names the keys). */
  overrides(): ReadonlyMap<string, EndpointOverride>;
  /** `key`'s effective verdict may have changed; no key: any may have (another location's, liveness). */
  onChange(listener: (key?: string) => void): () => void;
}

/** The cluster as the ledger uses it (cluster/index.ts, ClusterNode); absent on a single node. */
export interface ClusterVerdicts {
  /** The node reads this location's verdicts and targets from here (to publish them to etcd). */
  attach(self: { own(key: string): OwnVerdict | undefined; targets(): ReadonlyMap<string, string> }): void;
  verdicts(own: ReadonlyMap<string, ProbeVerdict>): Map<string, ProbeVerdict>;
  verdictOf(key: string, own: ProbeVerdict | undefined): ProbeVerdict | undefined;
  locations(key: string): LocationReport[];
  /** Endpoints added, removed or with new probe settings (all of them when `keys` is undefined). */
  retargeted(keys?: Iterable<string>): void;
  /** This location's verdict on `key` changed. */
  ownChanged(key: string): void;
  /** Another location's verdicts, or which locations are live, changed. */
  onChange(listener: () => void): () => void;
}

export interface HealthLedgerOptions {
  store: Pick<Store, 'saveMonitorState' | 'loadMonitorState' | 'pushedHealth'>;
  monitor: Monitor;
  clock: RuntimeClock;
  logger: Logger;
  cluster?: ClusterVerdicts;
  /** Transitions kept per endpoint (default 50; the last SAVED_HISTORY of them survive a restart). */
  historySize?: number;
  /** The overrides and failback approvals the store keeps (operations-feed.ts). */
  operations?: OperationsFeed;
}

type Listener<T> = (e: T) => void;
const NO_OVERRIDES: ReadonlyMap<string, EndpointOverride> = new Map();

export class HealthLedger implements HealthPort {
  private readonly monitor: Monitor;
  private readonly cluster: ClusterVerdicts | undefined;
  private readonly logger: Logger;
  /** Probe-settings fingerprint of every probed endpoint (one map, updated in place; PreviousRun reads it). */
  private readonly fingerprints = new Map<string, string>();
  private readonly previous: PreviousRun;
  private readonly saver: RecordSaver;
  private readonly changeListeners = new Set<Listener<string | undefined>>();
  private readonly transitionListeners = new Set<Listener<LedgerTransition>>();
  /** Health pushed from outside (pushed-health.ts): the worse of it and probing is the effective verdict. */
  readonly pushed: PushedHealth;
  /**
   * Every endpoint's recent transitions, oldest first, as long as the endpoint is in its profile: probing
   * stopping (the endpoint or profile disabled for maintenance) and starting again are entries of it, not
   * the end of it, and so are the changes pushed health causes. Only removing the endpoint, or deleting its
   * profile, forgets them.
   */
  private readonly history: Map<string, LedgerTransition[]>;
  private readonly historySize: number;
  private readonly clock: RuntimeClock;
  private readonly unsubscribe: Array<() => void> = [];
  /** A retarget is running: its own transitions are read by the build that asked for it, not announced. */
  private retargeting = false;
  private readonly feed: OperationsFeed | undefined;

  private constructor(o: HealthLedgerOptions, saved: Awaited<ReturnType<Store['loadMonitorState']>>, pushed: PushedHealth) {
    this.monitor = o.monitor;
    this.pushed = pushed;
    this.cluster = o.cluster;
    this.logger = o.logger;
    this.previous = new PreviousRun(saved, this.fingerprints);
    this.history = this.previous.takeHistory();
    this.historySize = Math.max(1, o.historySize ?? 50);
    this.clock = o.clock;
    this.saver = new RecordSaver({ store: o.store, clock: o.clock, logger: o.logger, record: (key) => this.record(key) });
    this.unsubscribe.push(this.monitor.onTransition((t) => this.onMonitorTransition(t)));
    this.unsubscribe.push(pushed.onChange((key, before, after) => this.onPushedChange(key, before, after, o.clock.now())));
    if (this.cluster) {
      this.cluster.attach({ own: (key) => this.own(key), targets: () => this.fingerprints });
      this.unsubscribe.push(this.cluster.onChange(() => this.changed(undefined)));
    }
    this.feed = o.operations;
    if (this.feed) {
      this.unsubscribe.push(
        this.feed.onChange((keys) => {
          for (const k of keys) this.changed(k);
        }),
      );
      this.unsubscribe.push(this.feed.onFailback((a) => applyApproval(this.monitor, a)));
    }
  }

  /** Reads what the previous run saved. */
  static async open(o: HealthLedgerOptions): Promise<HealthLedger> {
    const pushed = await PushedHealth.open({
      store: o.store.pushedHealth?.() ?? memoryPushedHealthStore(),
      clock: o.clock,
      logger: o.logger,
    });
    return new HealthLedger(o, await o.store.loadMonitorState(), pushed);
  }

  onChange(listener: (key?: string) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Called on every real status change of this location (not on confirmations), maintenance ones included. */
  onTransition(listener: Listener<LedgerTransition>): () => void {
    this.transitionListeners.add(listener);
    return () => this.transitionListeners.delete(listener);
  }

  private changed(key: string | undefined): void {
    for (const l of this.changeListeners) {
      try {
        l(key);
      } catch (err) {
        this.logger.error({ err }, 'health change listener failed');
      }
    }
  }

  private onMonitorTransition(t: EndpointTransition): void {
    if (this.previous.decided(t)) {
      // The first verdict after a restart confirms the carried one: the endpoint's status never changed
      // (nor its saved record).
      this.logger.debug({ profile: t.profile, endpoint: t.endpoint, status: t.to }, 'carried-over endpoint status confirmed by probing');
      return;
    }
    this.cluster?.ownChanged(t.key);
    this.noted(t);
    if (!this.retargeting) this.changed(t.key);
  }

  /** Keeps one transition in the endpoint's history, marks its record for saving and tells observers. */
  private noted(t: LedgerTransition): void {
    let list = this.history.get(t.key);
    if (!list) this.history.set(t.key, (list = []));
    list.push(t);
    if (list.length > this.historySize) list.splice(0, list.length - this.historySize);
    this.saver.mark(t.key);
    for (const l of this.transitionListeners) {
      try {
        l(t);
      } catch (err) {
        this.logger.error({ err }, 'transition listener failed');
      }
    }
  }

  /**
   * Probing of `key` stopped while its endpoint stays in `profile`: a maintenance entry when it was disabled
   * (the endpoint or the whole profile), and the history is kept; an endpoint that is gone takes its history.
   */
  private stoppedProbing(
    key: string,
    profile: Profile | undefined,
    resources: ResourceCatalog,
    lastVerdict: ProbeVerdict | undefined,
  ): void {
    const [, name] = splitTargetKey(key);
    const endpoint = profile?.endpoints.find((e) => e.name === name);
    if (!profile || !endpoint) {
      this.history.delete(key);
      return;
    }
    const d = probeDecision(profile, endpoint, resources);
    if (d.probe || (d.why !== 'endpoint-disabled' && d.why !== 'profile-disabled')) return;
    const [p, e] = splitTargetKey(key);
    const last = this.history.get(key)?.at(-1);
    if (last?.to === 'Disabled') return;
    this.noted({
      key,
      profile: p,
      endpoint: e,
      location: this.monitor.location,
      at: this.clock.now(),
      from: lastVerdict ?? last?.to ?? 'CheckingEndpoint',
      to: 'Disabled',
      consecutiveFailures: 0,
      reason:
        d.why === 'endpoint-disabled'
          ? 'endpointStatus Disabled: not probed, not answered'
          : 'profileStatus Disabled: not probed, not answered',
    });
  }

  /** Probing of `key` (re)started: after a maintenance entry, one saying so. */
  private startedProbing(key: string): void {
    const last = this.history.get(key)?.at(-1);
    if (last?.to !== 'Disabled') return;
    this.noted({
      ...last,
      at: this.clock.now(),
      from: 'Disabled',
      to: 'CheckingEndpoint',
      consecutiveFailures: 0,
      reason: 'enabled again: probing',
    });
  }

  /** Pushed health of `key` changed: a transition when the effective verdict moved, and a rebuild either way. */
  private onPushedChange(
    key: string,
    before: Parameters<typeof pushedTransition>[2],
    after: Parameters<typeof pushedTransition>[3],
    at: number,
  ): void {
    const t = pushedTransition(key, this.probeVerdictOf(key), before, after, at, this.monitor.location);
    if (t) this.noted(t);
    this.changed(key);
  }

  /**
   * The prober follows the configuration. Only the changed profiles' endpoints are looked at when only
   * profiles changed (a write of one profile costs its endpoints, at any number of profiles); everything
   * when the catalog changed or at load. Endpoints whose probe settings are unchanged keep their state.
   */
  retarget({ profiles, resources, changed, deleted }: RetargetChange): void {
    this.retargeting = true;
    try {
      // A deleted profile's saved history, carried verdicts, pushed health and overrides go with it, and its
      // prober state too, even when it was created again within the same build: it starts fresh.
      const gone: string[] = [];
      for (const n of deleted) {
        this.previous.forgetProfile(n);
        this.pushed.forgetProfile(n);
        this.feed?.forgetProfile(n);
        const keys = this.monitor.keysOf(n);
        gone.push(...keys);
        for (const k of keys) this.history.delete(k);
        for (const k of this.history.keys()) if (splitTargetKey(k)[0] === n) this.history.delete(k);
      }
      if (deleted.size > 0) this.monitor.updateTargets(deleted, []);
      if (changed === undefined) this.retargetAll(profiles(), resources);
      else this.retargetSome(changed, resources, gone);
    } finally {
      this.retargeting = false;
    }
  }

  private retargetAll(profiles: readonly Profile[], resources: ResourceCatalog): void {
    const targets = probeTargets(profiles, resources);
    // The records to rewrite: new or changed probe settings, and gone endpoints (at load: compared with
    // the saved records; all of them once when the store held the earlier whole-state blob).
    const saved = this.previous.takeSaved();
    const before = saved ?? new Map(this.fingerprints);
    const rewriteAll = saved !== undefined && this.previous.legacy;
    const probedBefore = new Map(this.fingerprints);
    const verdictsBefore = this.monitor.verdicts();
    this.fingerprints.clear();
    for (const t of targets) {
      this.fingerprints.set(t.key, t.fingerprint);
      if (rewriteAll || before.get(t.key) !== t.fingerprint) this.saver.mark(t.key);
    }
    for (const k of before.keys()) if (!this.fingerprints.has(k)) this.saver.mark(k);
    this.monitor.setTargets(targets);
    // Maintenance entries: endpoints no longer probed (at load: those whose record says they were), and back.
    const byName = new Map(profiles.map((p) => [p.name, p]));
    for (const k of new Set([...probedBefore.keys(), ...before.keys()])) {
      if (this.fingerprints.has(k)) continue;
      if (probedBefore.has(k) || (saved !== undefined && saved.get(k) !== ''))
        this.stoppedProbing(k, byName.get(splitTargetKey(k)[0]), resources, verdictsBefore.get(k));
      else if (!byName.get(splitTargetKey(k)[0])?.endpoints.some((e) => e.name === splitTargetKey(k)[1])) this.history.delete(k);
    }
    for (const t of targets) if (!probedBefore.has(t.key)) this.startedProbing(t.key);
    // After a restart: failback rules outlast it, and the stored approvals apply again (failback.ts).
    if (saved !== undefined) {
      seedCarried(this.monitor, this.previous, targets, (key) => this.history.get(key) ?? []);
      for (const a of this.feed?.failbacks() ?? []) applyApproval(this.monitor, a);
    }
    this.cluster?.retargeted();
  }

  /** `gone`: the endpoints of deleted profiles, which the prober has dropped already. */
  private retargetSome(changed: ReadonlyMap<string, Profile | undefined>, resources: ResourceCatalog, gone: readonly string[]): void {
    const names = [...changed.keys()];
    const targets = probeTargets(
      [...changed.values()].filter((p): p is Profile => p !== undefined),
      resources,
    );
    const before = [...gone, ...names.flatMap((n) => this.monitor.keysOf(n))];
    const verdictsBefore = new Map(before.map((k) => [k, this.monitor.verdictOf(k)]));
    for (const k of before) {
      this.fingerprints.delete(k);
      this.saver.mark(k);
    }
    for (const t of targets) {
      this.fingerprints.set(t.key, t.fingerprint);
      this.saver.mark(t.key);
    }
    this.monitor.updateTargets(names, targets);
    const now = new Set(targets.map((t) => t.key));
    for (const k of before) if (!now.has(k)) this.stoppedProbing(k, changed.get(splitTargetKey(k)[0]), resources, verdictsBefore.get(k));
    for (const t of targets) if (!verdictsBefore.has(t.key)) this.startedProbing(t.key);
    this.cluster?.retargeted([...before, ...targets.map((t) => t.key)]);
  }

  /** The probed endpoints and their probe-settings fingerprints. */
  targets(): ReadonlyMap<string, string> {
    return this.fingerprints;
  }

  /** This location's effective verdicts: the monitor's, with carried-over ones where it has not decided yet. */
  ownVerdicts(): Map<string, ProbeVerdict> {
    return this.previous.effective(this.monitor.verdicts());
  }

  /**
   * The verdicts DNS answers with: this location's, aggregated with the live other locations' in a cluster,
   * then the worse of that and any pushed health.
   */
  verdicts(): Map<string, ProbeVerdict> {
    return this.pushed.applyAll(this.probeVerdicts());
  }

  /** What probing alone says (aggregated over the live locations in a cluster), without pushed health. */
  probeVerdicts(): Map<string, ProbeVerdict> {
    const own = this.ownVerdicts();
    return this.cluster ? this.cluster.verdicts(own) : own;
  }

  /** One endpoint's verdict as verdicts() has it, without building the map of all of them. */
  verdictOf(key: string): ProbeVerdict | undefined {
    return this.pushed.apply(key, this.probeVerdictOf(key));
  }

  /** What probing alone says of one endpoint (aggregated over the live locations in a cluster). */
  probeVerdictOf(key: string): ProbeVerdict | undefined {
    const own = this.previous.effectiveOf(key, this.monitor.verdictOf(key));
    return this.cluster ? this.cluster.verdictOf(key, own) : own;
  }

  /** The overrides in force, by `profile/endpoint` (operations-feed.ts). */
  overrides(): ReadonlyMap<string, EndpointOverride> {
    return this.feed?.view() ?? NO_OVERRIDES;
  }

  /** This location's effective verdict of one probed endpoint (what the cluster publishes for it). */
  own(key: string): OwnVerdict | undefined {
    const fingerprint = this.fingerprints.get(key);
    if (fingerprint === undefined) return undefined;
    const [profile, endpoint] = splitTargetKey(key);
    const s = this.monitor.status(profile, endpoint);
    const verdict = this.previous.effectiveOf(key, s?.verdict);
    if (verdict === undefined) return undefined;
    const last = s?.history[s.history.length - 1];
    return {
      verdict,
      fingerprint,
      at: last?.at ?? s?.since ?? 0,
      reason: last?.reason ?? (verdict !== s?.verdict ? 'carried over from before the restart' : ''),
    };
  }

  /** Each location's view of one endpoint (cluster mode); undefined on a single node. */
  locations(key: string): LocationReport[] | undefined {
    return this.cluster?.locations(key);
  }

  /**
   * The prober's statuses of one profile's endpoints, without the transitions that only confirmed a carried
   * verdict, and `since` the endpoint's last real status change: the ledger's, which spans restarts (the prober's
   * own starts over at every start, and its first verdict after a restart only confirms the one carried over).
   */
  statuses(profile: string): EndpointProbeStatus[] {
    return this.monitor.statuses(profile).map((s) => {
      const last = this.history.get(s.key)?.at(-1);
      return { ...s, ...(last ? { since: last.at } : {}), history: s.history.filter((t) => !this.previous.isConfirmation(t)) };
    });
  }

  /** The recent transitions of one profile's endpoints (the previous run's included), oldest first. */
  historyOf(profile: string): LedgerTransition[] {
    const out: LedgerTransition[] = [];
    for (const [k, list] of this.history) if (splitTargetKey(k)[0] === profile) out.push(...list);
    return out.sort((a, b) => a.at - b.at);
  }

  /** Endpoints whose saved record is out of date. */
  unsavedRecords(): number {
    return this.saver.pending;
  }

  /** What to save for one endpoint: its verdict and history; only the history when it is not probed now (disabled); null when it is gone. */
  private record(key: string): SavedEndpoint | null {
    const history = this.history.get(key) ?? [];
    const fingerprint = this.fingerprints.get(key);
    if (fingerprint === undefined) return history.length > 0 ? PreviousRun.record('', 'CheckingEndpoint', history) : null;
    const [profile, endpoint] = splitTargetKey(key);
    const s = this.monitor.status(profile, endpoint);
    const verdict = this.previous.effectiveOf(key, s?.verdict) ?? 'CheckingEndpoint';
    return PreviousRun.record(fingerprint, verdict, history);
  }

  /** Stops listening and saves every record that is out of date (the prober is stopped first). */
  async close(): Promise<void> {
    for (const u of this.unsubscribe) u();
    this.pushed.close();
    this.changeListeners.clear();
    this.transitionListeners.clear();
    await this.saver.close();
  }
}
