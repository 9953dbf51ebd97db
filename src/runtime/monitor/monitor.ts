/**
 * The prober of one probing location: keeps one probe state per target (src/core/health/machine.ts),
 * probes on the scheduler, exposes the verdicts as a HealthView and reports every status change.
 */
import { hostname } from 'node:os';
import {
  initialProbeState,
  isAzureFailback,
  transition,
  type EndpointProbeState,
  type FailbackSettings,
  type StatusTransition,
} from '../../core/health/machine';
import { compositeRound } from '../../core/health/checks';
import { checkProbeTarget, targetKey, type ProbeTarget } from '../../core/health/targets';
import type { HealthView, ProbeVerdict } from '../../core/health/types';
import { probe as realProbe, type ProbeOptions, type ProbeOutcome } from './probe';
import { ProbeResolver, type ProbeResolverOptions } from './resolver';
import { LoopStalls } from './loop-stalls';
import { systemClock } from '../clock';
import { Scheduler, type Timers } from './scheduler';

/** A status change of one endpoint at this location. */
export interface EndpointTransition extends StatusTransition {
  key: string;
  profile: string;
  endpoint: string;
  location: string;
}

/** The last probe of an endpoint, for the status API. */
export interface LastProbe extends ProbeOutcome {
  /** When it finished (ms since epoch). */
  at: number;
  /**
   * Composite checks (docs/health.md "Composite checks"): each check's probe of this round, in the profile's
   * order; then `ok` and `reason` are the round's, `latencyMs` the slowest check's.
   */
  checks?: CheckProbe[];
}

/** One composite check's probe in the last round, with its consecutive failures after it. */
export interface CheckProbe extends ProbeOutcome {
  name: string;
  mustBeHealthy: boolean;
  monitoringOnly: boolean;
  consecutiveFailures: number;
}

export interface EndpointProbeStatus {
  key: string;
  profile: string;
  endpoint: string;
  location: string;
  target: string;
  protocol: ProbeTarget['protocol'];
  verdict: ProbeVerdict;
  consecutiveFailures: number;
  /** Time of the last status change (or of the first sighting). */
  since: number;
  lastProbe?: LastProbe;
  /** Oldest first, at most `historySize`. */
  history: EndpointTransition[];
}

export type ProbeFn = (target: ProbeTarget, opts: ProbeOptions) => Promise<ProbeOutcome>;

export interface MonitorOptions {
  /** This prober's location name (default: the host name). */
  location?: string;
  /** Probes in flight at most (default 1000). */
  concurrency?: number;
  /** Transitions kept per endpoint (default 50). */
  historySize?: number;
  /** Time and timers (tests of the scheduling only). */
  timers?: Timers;
  /** The probe implementation (default: the real HTTP/HTTPS/TCP probe). */
  probe?: ProbeFn;
  /** Per-key phase in [0,1) (default: hash of the key). */
  phase?: (key: string) => number;
  /** How FQDN targets are resolved (DNS servers, hosts file); cancelled when the monitor stops. */
  resolver?: ProbeResolverOptions;
  /** Overrides of the probe period and timeout, for tests that cannot wait 10 s (default: the target's seconds). */
  intervalMs?: (t: ProbeTarget) => number;
  timeoutMs?: (t: ProbeTarget) => number;
}

/**
 * A probe whose latency only a stall of tmkit's own event loop made look slow (ProbeOutcome.latencyUnknown) is
 * measured again once the loop has gone QUIET_MS without a stall (waiting at most the probe's timeout), at most
 * MEASURE_AGAIN times; the last measurement stands (still unknown: a success, the benefit of the doubt).
 */
const MEASURE_AGAIN = 2;
const QUIET_MS = 100;

interface Entry {
  target: ProbeTarget;
  generation: number;
  state: EndpointProbeState;
  lastProbe?: LastProbe;
  history: EndpointTransition[];
}

type Listener<T> = (e: T) => void;

const sameFailback = (a: FailbackSettings, b: FailbackSettings): boolean =>
  (isAzureFailback(a) && isAzureFailback(b)) ||
  (a.mode === b.mode && a.successesToRecover === b.successesToRecover && a.holdDownSeconds === b.holdDownSeconds);

export class Monitor implements HealthView {
  readonly location: string;
  private readonly entries = new Map<string, Entry>();
  /** Keys of `entries` by profile (what `updateTargets` looks at). */
  private readonly byProfile = new Map<string, Set<string>>();
  /** Retargets so far (full: setTargets; incremental: updateTargets) and endpoints they looked at. */
  private readonly retargets = { full: 0, incremental: 0, endpoints: 0 };
  private readonly scheduler: Scheduler;
  private readonly timers: Timers;
  private readonly historySize: number;
  private readonly probeFn: ProbeFn;
  private readonly intervalMs: (t: ProbeTarget) => number;
  private readonly timeoutMs: (t: ProbeTarget) => number;
  private readonly transitionListeners = new Set<Listener<EndpointTransition>>();
  private readonly probeListeners = new Set<Listener<{ key: string; probe: LastProbe }>>();
  private probes = 0;
  private readonly resolver: ProbeResolver;
  /** How long the event loop was blocked: not the endpoints' latency (loop-stalls.ts). */
  private readonly stalls = new LoopStalls();

  constructor(opts: MonitorOptions = {}) {
    this.location = opts.location ?? hostname();
    this.timers = opts.timers ?? systemClock;
    this.resolver = new ProbeResolver({ clock: this.timers, ...opts.resolver });
    this.historySize = Math.max(1, opts.historySize ?? 50);
    this.probeFn = opts.probe ?? realProbe;
    this.intervalMs = opts.intervalMs ?? ((t) => t.intervalInSeconds * 1000);
    this.timeoutMs = opts.timeoutMs ?? ((t) => t.timeoutInSeconds * 1000);
    this.scheduler = new Scheduler({
      run: (key, generation, signal) => this.runProbe(key, generation, signal),
      timers: this.timers,
      ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
      ...(opts.phase ? { phase: opts.phase } : {}),
    });
  }

  /**
   * Replaces the set of targets (from `probeTargets()`): new ones start CheckingEndpoint and are probed
   * at once; ones whose settings fingerprint changed are reset to CheckingEndpoint (a transition event
   * when they were not) and probed at once; unchanged ones keep their state; missing ones stop.
   */
  setTargets(targets: readonly ProbeTarget[]): void {
    const now = this.timers.now();
    const seen = new Set<string>();
    for (const t of targets) {
      if (seen.has(t.key)) continue;
      seen.add(t.key);
      this.put(t, now);
    }
    for (const key of [...this.entries.keys()]) if (!seen.has(key)) this.drop(key);
    this.retargets.full++;
    this.retargets.endpoints += seen.size;
  }

  /**
   * Retargets only the endpoints of `changedProfiles` (design: no O(N) work per change): `targets` are the
   * probe targets of exactly those profiles now (`probeTargets()` of them; none for a deleted or disabled
   * one). Their endpoints are added, reset or removed as `setTargets` would; every endpoint of any other
   * profile is not looked at: its state, timer and history stay exactly as they are. A target of a profile
   * not listed counts as listed. Returns the keys it looked at (the changed profiles' old and new endpoints).
   */
  updateTargets(changedProfiles: Iterable<string>, targets: readonly ProbeTarget[]): string[] {
    const now = this.timers.now();
    const profiles = new Set(changedProfiles);
    for (const t of targets) profiles.add(t.profile);
    const looked = new Set<string>();
    for (const p of profiles) for (const k of this.byProfile.get(p) ?? []) looked.add(k);
    const seen = new Set<string>();
    for (const t of targets) {
      if (seen.has(t.key)) continue;
      seen.add(t.key);
      looked.add(t.key);
      this.put(t, now);
    }
    for (const k of looked) if (!seen.has(k)) this.drop(k);
    this.retargets.incremental++;
    this.retargets.endpoints += looked.size;
    return [...looked];
  }

  /** The probed endpoints' keys of one profile. */
  keysOf(profile: string): string[] {
    return [...(this.byProfile.get(profile) ?? [])];
  }

  /** Adds a target, resets it when its settings changed, or just takes the new object when they did not. */
  private put(t: ProbeTarget, now: number): void {
    const e = this.entries.get(t.key);
    if (!e) {
      const generation = this.scheduler.schedule(t.key, this.intervalMs(t));
      this.entries.set(t.key, {
        target: t,
        generation,
        state: initialProbeState(t.toleratedNumberOfFailures, now, t.failback),
        history: [],
      });
      let keys = this.byProfile.get(t.profile);
      if (!keys) this.byProfile.set(t.profile, (keys = new Set()));
      keys.add(t.key);
      return;
    }
    if (e.target.fingerprint === t.fingerprint) {
      const failback = !sameFailback(e.target.failback, t.failback);
      e.target = t;
      // The failback property is not a probe setting: the state carries on with the new rules.
      if (failback) this.apply(e, transition(e.state, { type: 'configure', at: now, failback: t.failback }));
      return;
    }
    e.target = t;
    e.generation = this.scheduler.schedule(t.key, this.intervalMs(t));
    this.apply(
      e,
      transition(e.state, {
        type: 'reset',
        at: now,
        tolerated: t.toleratedNumberOfFailures,
        reason: 'probe settings changed',
        failback: t.failback,
      }),
    );
    delete e.lastProbe;
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.scheduler.remove(key);
    this.entries.delete(key);
    const keys = this.byProfile.get(e.target.profile);
    keys?.delete(key);
    if (keys?.size === 0) this.byProfile.delete(e.target.profile);
  }

  start(): void {
    this.stalls.start();
    this.scheduler.start();
  }

  /**
   * Stops probing: in-flight probes are aborted and awaited, and every outstanding name lookup is cancelled
   * (including those of probes that timed out earlier), so nothing of the prober keeps the process alive.
   * States are kept (start() resumes).
   */
  async stop(): Promise<void> {
    const stopping = this.scheduler.stop();
    this.resolver.cancel();
    await stopping;
    this.resolver.cancel();
    this.stalls.stop();
  }

  /**
   * An operator approved the failback of `key` at `approvedAt` (`tmkit endpoint failback`; core/health/machine.ts):
   * an AwaitingFailback endpoint is Online now, a Degraded one once it recovers.
   */
  failback(key: string, approvedAt: number, reason: string): void {
    const e = this.entries.get(key);
    if (e) this.apply(e, transition(e.state, { type: 'failback', at: this.timers.now(), approvedAt, reason }));
  }

  /**
   * Continues an endpoint in the state it was saved in before a restart (the ledger's failback.ts, for
   * endpoints whose failback rules outlast one good probe). Only while nothing was probed yet; false otherwise.
   */
  seed(key: string, state: Omit<EndpointProbeState, 'tolerated' | 'failback'>): boolean {
    const e = this.entries.get(key);
    if (!e || e.lastProbe !== undefined || e.state.status !== 'CheckingEndpoint') return false;
    e.state = { ...state, tolerated: e.state.tolerated, ...(e.state.failback ? { failback: e.state.failback } : {}) };
    return true;
  }

  /** HealthView: this location's verdict; undefined for endpoints that are not probed. */
  verdict(profileName: string, endpointName: string): ProbeVerdict | undefined {
    return this.entries.get(targetKey(profileName, endpointName))?.state.status;
  }

  /** One probed endpoint's verdict by its `profile/endpoint` key (undefined when it is not probed). */
  verdictOf(key: string): ProbeVerdict | undefined {
    return this.entries.get(key)?.state.status;
  }

  /** Every probed endpoint's verdict, by key (what a node publishes for multi-location aggregation). */
  verdicts(): Map<string, ProbeVerdict> {
    const out = new Map<string, ProbeVerdict>();
    for (const [k, e] of this.entries) out.set(k, e.state.status);
    return out;
  }

  /** Status, last probe and transition history of one endpoint (undefined when it is not probed). */
  status(profileName: string, endpointName: string): EndpointProbeStatus | undefined {
    const e = this.entries.get(targetKey(profileName, endpointName));
    return e ? this.describe(e) : undefined;
  }

  /** The same for every probed endpoint (of one profile when given). */
  statuses(profileName?: string): EndpointProbeStatus[] {
    const out: EndpointProbeStatus[] = [];
    if (profileName === undefined) {
      for (const e of this.entries.values()) out.push(this.describe(e));
      return out;
    }
    for (const k of this.byProfile.get(profileName) ?? []) out.push(this.describe(this.entries.get(k)!));
    return out;
  }

  /** Called on every status change; returns an unsubscribe function. Listener errors are swallowed. */
  onTransition(listener: Listener<EndpointTransition>): () => void {
    this.transitionListeners.add(listener);
    return () => this.transitionListeners.delete(listener);
  }

  /** Called after every probe (metrics, benchmarks); returns an unsubscribe function. */
  onProbe(listener: Listener<{ key: string; probe: LastProbe }>): () => void {
    this.probeListeners.add(listener);
    return () => this.probeListeners.delete(listener);
  }

  stats(): {
    targets: number;
    probes: number;
    running: number;
    queued: number;
    skipped: number;
    retargets: { full: number; incremental: number; endpoints: number };
  } {
    const s = this.scheduler.stats();
    return {
      targets: this.entries.size,
      probes: this.probes,
      running: s.running,
      queued: s.queued,
      skipped: s.skipped,
      retargets: { ...this.retargets },
    };
  }

  private describe(e: Entry): EndpointProbeStatus {
    return {
      key: e.target.key,
      profile: e.target.profile,
      endpoint: e.target.endpoint,
      location: this.location,
      target: e.target.target,
      protocol: e.target.protocol,
      verdict: e.state.status,
      consecutiveFailures: e.state.consecutiveFailures,
      since: e.state.since,
      ...(e.lastProbe ? { lastProbe: { ...e.lastProbe } } : {}),
      history: e.history.slice(),
    };
  }

  private readonly now = (): number => this.timers.now();

  private readonly lookup = (hostname: string): ReturnType<ProbeResolver['lookup']> => this.resolver.lookup(hostname);

  private readonly blockedMs = (): number => this.stalls.blockedMs();

  /** One probe of a target, measured again while only a stall of tmkit's event loop made it look slow. */
  private async measure(
    key: string,
    generation: number,
    target: ProbeTarget,
    opts: ProbeOptions,
    signal: AbortSignal,
  ): Promise<ProbeOutcome | undefined> {
    let outcome = await this.probeFn(target, opts);
    for (let again = 0; outcome.latencyUnknown && again < MEASURE_AGAIN && !signal.aborted; again++) {
      await this.stalls.quiet(QUIET_MS, opts.timeoutMs!, signal);
      if (signal.aborted || this.entries.get(key)?.generation !== generation) return undefined;
      outcome = await this.probeFn(target, opts);
    }
    return outcome;
  }

  private async runProbe(key: string, generation: number, signal: AbortSignal): Promise<void> {
    const e = this.entries.get(key);
    if (!e || e.generation !== generation) return;
    const target = e.target;
    const opts: ProbeOptions = { timeoutMs: this.timeoutMs(target), signal, lookup: this.lookup, now: this.now, blockedMs: this.blockedMs };
    if (target.checks !== undefined) return this.runChecks(e, key, generation, signal, opts);
    // The single probe: kept inline (no extra async hop), as fast as before composite checks existed.
    let outcome = await this.probeFn(target, opts);
    for (let again = 0; outcome.latencyUnknown && again < MEASURE_AGAIN && !signal.aborted; again++) {
      await this.stalls.quiet(QUIET_MS, opts.timeoutMs!, signal);
      if (signal.aborted || this.entries.get(key)?.generation !== generation) return;
      outcome = await this.probeFn(target, opts);
    }
    if (signal.aborted) return;
    const current = this.entries.get(key);
    if (current !== e || e.generation !== generation) return; // removed or settings changed meanwhile
    const at = this.timers.now();
    this.probes++;
    e.lastProbe = { ...outcome, at };
    this.apply(e, transition(e.state, { type: 'probe', at, ok: outcome.ok, reason: outcome.reason }));
    for (const l of this.probeListeners) {
      try {
        l({ key, probe: e.lastProbe });
      } catch {
        /* a listener's bug must not stop probing */
      }
    }
  }

  /** A round of composite checks: every check probed at once, one verdict of all of them (core/health/checks.ts). */
  private async runChecks(e: Entry, key: string, generation: number, signal: AbortSignal, opts: ProbeOptions): Promise<void> {
    const target = e.target;
    const checks = target.checks ?? [];
    const outcomes = await Promise.all(checks.map((c) => this.measure(key, generation, checkProbeTarget(target, c), opts, signal)));
    if (signal.aborted || outcomes.some((o) => o === undefined)) return;
    const current = this.entries.get(key);
    if (current !== e || e.generation !== generation) return; // removed or settings changed meanwhile
    const at = this.timers.now();
    this.probes++;
    const results = checks.map((c, i) => ({
      name: c.name,
      ok: outcomes[i]!.ok,
      reason: outcomes[i]!.reason,
      mustBeHealthy: c.mustBeHealthy,
      monitoringOnly: c.monitoringOnly,
    }));
    const quorum = target.quorum ?? 0;
    // The same pure function the state machine applies, for the round's own ok and reason.
    const round = compositeRound(results, e.state.checkFailures, e.state.tolerated, quorum);
    // The endpoint's certificate (status warnings, the expiry metric): the one of its HTTPS checks that expires first.
    const certificate = outcomes
      .map((o) => o!.certificate)
      .filter((c) => c !== undefined)
      .sort((a, b) => a.validTo - b.validTo)[0];
    e.lastProbe = {
      ok: round.kind === 'good',
      reason: round.reason,
      latencyMs: Math.max(0, ...outcomes.map((o) => o!.latencyMs)),
      ...(certificate !== undefined ? { certificate } : {}),
      at,
      checks: checks.map((c, i) => ({
        ...outcomes[i]!,
        name: c.name,
        mustBeHealthy: c.mustBeHealthy,
        monitoringOnly: c.monitoringOnly,
        consecutiveFailures: round.failures[c.name] ?? 0,
      })),
    };
    this.apply(e, transition(e.state, { type: 'checks', at, results, quorum }));
    this.probed(key, e.lastProbe);
  }

  private probed(key: string, probe: LastProbe): void {
    for (const l of this.probeListeners) {
      try {
        l({ key, probe });
      } catch {
        /* a listener's bug must not stop probing */
      }
    }
  }

  private apply(e: Entry, step: ReturnType<typeof transition>): void {
    e.state = step.state;
    for (const a of step.actions) {
      const ev: EndpointTransition = {
        ...a.transition,
        key: e.target.key,
        profile: e.target.profile,
        endpoint: e.target.endpoint,
        location: this.location,
      };
      e.history.push(ev);
      if (e.history.length > this.historySize) e.history.splice(0, e.history.length - this.historySize);
      for (const l of this.transitionListeners) {
        try {
          l(ev);
        } catch {
          /* a listener's bug must not stop probing */
        }
      }
    }
  }
}
