import { compositeRound, type CheckResult } from './checks';
import type { ProbeVerdict } from './types';

/**
 * The per-endpoint probe state machine (pure, xstate-style: `transition(state, event)` returns the next
 * state and the actions for the shell to perform). Monitors report raw pass/fail with a reason; this
 * module alone applies the threshold (gdnsd's split).
 */

/**
 * How an endpoint comes back after an outage: the profile's `failback` property (a tmkit extension,
 * docs/health.md "Failback"). The default is Azure's behaviour: Online again on the first good probe.
 */
export interface FailbackSettings {
  /** Automatic: Online once recovered. Manual: AwaitingFailback once recovered, Online after `failback`. */
  mode: 'Automatic' | 'Manual';
  /** Consecutive good probes before a Degraded endpoint counts as recovered (1–10). */
  successesToRecover: number;
  /** At least this long (seconds) after it became Degraded before it counts as recovered (0–3600). */
  holdDownSeconds: number;
}

/** Azure's behaviour: the first good probe brings a Degraded endpoint back. */
export const AZURE_FAILBACK: FailbackSettings = Object.freeze({ mode: 'Automatic', successesToRecover: 1, holdDownSeconds: 0 });

/** The state of one endpoint at one probing location. */
export interface EndpointProbeState {
  status: ProbeVerdict;
  /** Consecutive failed probes since the last success (or since the state was created). */
  consecutiveFailures: number;
  /** `monitorConfig.toleratedNumberOfFailures` the state was created with (0–9). */
  tolerated: number;
  /** Time (ms since epoch) of the last status change, or of creation. */
  since: number;
  /** Consecutive good probes since the last failure, counted while Degraded (absent: 0). */
  consecutiveSuccesses?: number;
  /** When it last became Degraded (ms); absent while it has not failed since it was created or reset. */
  failedAt?: number;
  /** How it comes back (absent: AZURE_FAILBACK). */
  failback?: FailbackSettings;
  /** Manual mode: an operator approved the failback of this outage before it had recovered. */
  failbackApproved?: boolean;
  /** Composite checks: each check's consecutive failures, by check name (absent: the single probe). */
  checkFailures?: Record<string, number>;
}

/** One probe's result, as the shell reports it. */
export interface ProbeResultEvent {
  type: 'probe';
  /** When the probe finished (ms since epoch). */
  at: number;
  ok: boolean;
  /** `status 200`, `connected`, `status 503`, `timeout`, `connection refused`, `TLS error`, `DNS: no address`... */
  reason: string;
}

/**
 * One round of composite checks (docs/health.md "Composite checks"): every check's result; checks.ts makes
 * it a success, a failure past the tolerance or one within it, and counts each check's failures.
 */
export interface ChecksResultEvent {
  type: 'checks';
  at: number;
  results: CheckResult[];
  /** Counting checks that must pass (0 when only mustBeHealthy checks decide). */
  quorum: number;
}

/** Settings changed (or the endpoint was re-enabled): forget the history, wait for a first result again. */
export interface ResetEvent {
  type: 'reset';
  at: number;
  tolerated: number;
  reason: string;
  failback?: FailbackSettings;
}

/**
 * An operator approved the failback (`tmkit endpoint failback`) at `approvedAt`: it releases an outage that
 * began (`failedAt`) no later than that, whether the endpoint is AwaitingFailback already or still Degraded.
 */
export interface FailbackEvent {
  type: 'failback';
  at: number;
  approvedAt: number;
  reason: string;
}

/** The profile's failback property changed (not a probe setting: the state is kept). */
export interface ConfigureEvent {
  type: 'configure';
  at: number;
  failback: FailbackSettings;
}

export type MachineEvent = ProbeResultEvent | ChecksResultEvent | ResetEvent | FailbackEvent | ConfigureEvent;

/** A status change: what the runtime re-renders DNS on and what the status API lists. */
export interface StatusTransition {
  at: number;
  from: ProbeVerdict;
  to: ProbeVerdict;
  reason: string;
  /** Consecutive failures when the change happened (0 on recovery). */
  consecutiveFailures: number;
}

export type MachineAction = { type: 'transition'; transition: StatusTransition };

export interface MachineStep {
  state: EndpointProbeState;
  actions: MachineAction[];
}

/** A new endpoint (or one just re-enabled): CheckingEndpoint until its first decisive result. */
export function initialProbeState(tolerated: number, at: number, failback?: FailbackSettings): EndpointProbeState {
  const s: EndpointProbeState = {
    status: 'CheckingEndpoint',
    consecutiveFailures: 0,
    tolerated: Math.max(0, Math.floor(tolerated)),
    since: at,
  };
  if (failback !== undefined && !isAzureFailback(failback)) s.failback = failback;
  return s;
}

/** The failback settings are Azure's (the state then carries none). */
export function isAzureFailback(f: FailbackSettings): boolean {
  return (
    f.mode === AZURE_FAILBACK.mode &&
    f.successesToRecover === AZURE_FAILBACK.successesToRecover &&
    f.holdDownSeconds === AZURE_FAILBACK.holdDownSeconds
  );
}

/*
 * Transition table (reference/behaviors.md §8, and the failback property, docs/health.md "Failback").
 * f = consecutive failures after counting this result, t = toleratedNumberOfFailures; s = consecutive
 * good probes after counting this one, N = failback.successesToRecover, H = failback.holdDownSeconds,
 * "recovered" = s >= N and (at - failedAt) >= H seconds; Manual = failback.mode Manual and the outage not
 * approved yet. With the defaults (Automatic, N = 1, H = 0) every row is Azure's.
 *
 * | status           | event                                  | next status       | f after | action     |
 * |------------------|----------------------------------------|-------------------|---------|------------|
 * | CheckingEndpoint | success                                | Online            | 0       | transition |
 * | CheckingEndpoint | failure, f <= t                        | CheckingEndpoint  | f       | -          |
 * | CheckingEndpoint | failure, f > t                         | Degraded          | f       | transition |
 * | Online           | success                                | Online            | 0       | -          |
 * | Online           | failure, f <= t                        | Online            | f       | -          |
 * | Online           | failure, f > t                         | Degraded          | f       | transition |
 * | Degraded         | success, not recovered                 | Degraded (s)      | 0       | -          |
 * | Degraded         | success, recovered, not Manual         | Online            | 0       | transition |
 * | Degraded         | success, recovered, Manual             | AwaitingFailback  | 0       | transition |
 * | Degraded         | failure                                | Degraded (s = 0)  | f       | -          |
 * | AwaitingFailback | success                                | AwaitingFailback  | 0       | -          |
 * | AwaitingFailback | failure, f <= t                        | AwaitingFailback  | f       | -          |
 * | AwaitingFailback | failure, f > t                         | Degraded          | f       | transition |
 * | AwaitingFailback | failback approved at or after failedAt | Online            | 0       | transition |
 * | Degraded         | failback approved at or after failedAt | Degraded, approved| f       | -          |
 * | other            | failback                               | unchanged         | f       | -          |
 * | AwaitingFailback | configure, mode now Automatic          | Online            | 0       | transition |
 * | any other        | configure                              | unchanged (new settings) | f | -          |
 * | any              | reset                                  | CheckingEndpoint  | 0       | transition if status was not CheckingEndpoint |
 *
 * So t = 0 ⇒ Degraded on the first failure; t = 3 ⇒ on the 4th consecutive failure. A new endpoint whose
 * first probes fail but stay within the tolerance remains CheckingEndpoint (it has not yet been seen
 * healthy, nor failed enough to be Degraded) — still served, like Online. successesToRecover and the
 * hold-down apply only to coming back from Degraded (a new endpoint is Online on its first good probe), and
 * the hold-down is checked when a probe arrives: the first good probe at least H seconds after the failure
 * can end it. Entering Degraded (again) starts a new outage: its approval is cleared.
 */
export function transition(state: EndpointProbeState, event: MachineEvent): MachineStep {
  switch (event.type) {
    case 'reset': {
      const next = initialProbeState(event.tolerated, event.at, event.failback ?? state.failback);
      if (state.status === 'CheckingEndpoint') return { state: { ...next, since: state.since }, actions: [] };
      return { state: next, actions: [change(state.status, 'CheckingEndpoint', event.at, event.reason, 0)] };
    }
    case 'failback': {
      if (state.failedAt === undefined || event.approvedAt < state.failedAt) return { state, actions: [] };
      if (state.status === 'AwaitingFailback') return online(state, event.at, event.reason);
      if (state.status === 'Degraded') return { state: { ...state, failbackApproved: true }, actions: [] };
      return { state, actions: [] };
    }
    case 'configure': {
      const next: EndpointProbeState = { ...state };
      if (isAzureFailback(event.failback)) delete next.failback;
      else next.failback = event.failback;
      if (state.status === 'AwaitingFailback' && event.failback.mode !== 'Manual')
        return online(next, event.at, 'failback mode is Automatic now');
      return { state: next, actions: [] };
    }
    case 'probe':
      return event.ok ? success(state, event) : failure(state, event);
    case 'checks': {
      // Composite checks: the tolerance was applied per check (checks.ts), so a bad round trips at once and a
      // soft one (a check still within its tolerance) never does; rows otherwise as the table above.
      const round = compositeRound(event.results, state.checkFailures, state.tolerated, event.quorum);
      const next: EndpointProbeState = { ...state, checkFailures: round.failures };
      const probe: ProbeResultEvent = { type: 'probe', at: event.at, ok: round.kind === 'good', reason: round.reason };
      if (round.kind === 'good') return success(next, probe);
      return failure(next, probe, round.kind === 'bad');
    }
  }
}

function success(state: EndpointProbeState, event: ProbeResultEvent): MachineStep {
  if (state.status === 'Online' || state.status === 'AwaitingFailback') {
    return { state: state.consecutiveFailures === 0 ? state : { ...state, consecutiveFailures: 0 }, actions: [] };
  }
  if (state.status === 'CheckingEndpoint') return online(state, event.at, event.reason);
  // Degraded: recovered yet?
  const f = state.failback ?? AZURE_FAILBACK;
  const successes = (state.consecutiveSuccesses ?? 0) + 1;
  const heldDown = state.failedAt === undefined || event.at - state.failedAt >= f.holdDownSeconds * 1000;
  if (successes < f.successesToRecover || !heldDown) {
    return { state: { ...state, consecutiveFailures: 0, consecutiveSuccesses: successes }, actions: [] };
  }
  if (f.mode === 'Manual' && !state.failbackApproved) {
    const next: EndpointProbeState = { ...state, status: 'AwaitingFailback', consecutiveFailures: 0, since: event.at };
    delete next.consecutiveSuccesses;
    return { state: next, actions: [change('Degraded', 'AwaitingFailback', event.at, event.reason, 0)] };
  }
  return online(state, event.at, event.reason);
}

function failure(state: EndpointProbeState, event: ProbeResultEvent, trip?: boolean): MachineStep {
  const failures = state.consecutiveFailures + 1;
  if (state.status !== 'Degraded' && (trip ?? failures > state.tolerated)) {
    const next: EndpointProbeState = { ...state, status: 'Degraded', consecutiveFailures: failures, since: event.at, failedAt: event.at };
    delete next.consecutiveSuccesses;
    delete next.failbackApproved;
    return { state: next, actions: [change(state.status, 'Degraded', event.at, event.reason, failures)] };
  }
  const next: EndpointProbeState = { ...state, consecutiveFailures: failures };
  delete next.consecutiveSuccesses;
  return { state: next, actions: [] };
}

/** The endpoint is Online from `at`: outage bookkeeping cleared. */
function online(state: EndpointProbeState, at: number, reason: string): MachineStep {
  const next: EndpointProbeState = { ...state, status: 'Online', consecutiveFailures: 0, since: at };
  delete next.consecutiveSuccesses;
  delete next.failedAt;
  delete next.failbackApproved;
  return { state: next, actions: [change(state.status, 'Online', at, reason, 0)] };
}

function change(from: ProbeVerdict, to: ProbeVerdict, at: number, reason: string, consecutiveFailures: number): MachineAction {
  return { type: 'transition', transition: { at, from, to, reason, consecutiveFailures } };
}

/*
 * Aggregation over probing locations (docs/cluster.md; behaviors.md §8: probe health "only matters when fewer
 * than 50% of probes report up"): an endpoint is Degraded only when strictly more than half of the live
 * locations say Degraded; a tie counts as up. n = number of live locations; a live location without a
 * verdict counts as CheckingEndpoint (undecided); verdicts from locations that are not live are ignored.
 * First matching row wins:
 *
 * | condition (over live locations)                           | verdict          |
 * |------------------------------------------------------------|------------------|
 * | n = 0                                                      | CheckingEndpoint |
 * | #Degraded > n/2                                            | Degraded         |
 * | #Online >= n/2 (the rest cannot make Degraded a majority)  | Online           |
 * | #Degraded + #AwaitingFailback > n/2                        | AwaitingFailback |
 * | otherwise (undecided locations could tip it either way)    | CheckingEndpoint |
 *
 * Examples: 1 location ⇒ its verdict (missing ⇒ CheckingEndpoint). 2 locations: Online + Degraded (a
 * 1-to-1 tie) ⇒ Online; Online + missing ⇒ Online (the other can at most tie); Degraded + missing ⇒
 * CheckingEndpoint. 4 locations: 2 Online + 2 Degraded ⇒ Online; 3 Degraded + 1 Online ⇒ Degraded.
 * AwaitingFailback (Manual failback) counts as down but not as Degraded: 3 locations with 2 of them
 * AwaitingFailback and 1 Degraded ⇒ AwaitingFailback (most locations see it recovered; it waits for the
 * operator), with 1 Online ⇒ still AwaitingFailback only when the down ones are a majority.
 */
export function aggregate(
  verdictsByLocation: ReadonlyMap<string, ProbeVerdict | undefined> | Readonly<Record<string, ProbeVerdict | undefined>>,
  liveLocations: readonly string[],
): ProbeVerdict {
  const get = (loc: string): ProbeVerdict | undefined =>
    isMap(verdictsByLocation) ? verdictsByLocation.get(loc) : Object.hasOwn(verdictsByLocation, loc) ? verdictsByLocation[loc] : undefined;
  const live = [...new Set(liveLocations)];
  const n = live.length;
  if (n === 0) return 'CheckingEndpoint';
  let online = 0;
  let degraded = 0;
  let awaiting = 0;
  for (const loc of live) {
    const v = get(loc);
    if (v === 'Online') online++;
    else if (v === 'Degraded') degraded++;
    else if (v === 'AwaitingFailback') awaiting++;
  }
  if (degraded * 2 > n) return 'Degraded';
  if (online * 2 >= n) return 'Online';
  if ((degraded + awaiting) * 2 > n) return 'AwaitingFailback';
  return 'CheckingEndpoint';
}

function isMap<K, V>(x: unknown): x is ReadonlyMap<K, V> {
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as { get?: unknown }).get === 'function' &&
    typeof (x as { has?: unknown }).has === 'function'
  );
}
