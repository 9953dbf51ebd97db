import type { ProbeVerdict } from './types';

/**
 * The per-endpoint probe state machine (pure, xstate-style: `transition(state, event)` returns the next
 * state and the actions for the shell to perform). Monitors report raw pass/fail with a reason; this
 * module alone applies the threshold (gdnsd's split).
 */

/** The state of one endpoint at one probing location. */
export interface EndpointProbeState {
  status: ProbeVerdict;
  /** Consecutive failed probes since the last success (or since the state was created). */
  consecutiveFailures: number;
  /** `monitorConfig.toleratedNumberOfFailures` the state was created with (0–9). */
  tolerated: number;
  /** Time (ms since epoch) of the last status change, or of creation. */
  since: number;
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

/** Settings changed (or the endpoint was re-enabled): forget the history, wait for a first result again. */
export interface ResetEvent {
  type: 'reset';
  at: number;
  tolerated: number;
  reason: string;
}

export type MachineEvent = ProbeResultEvent | ResetEvent;

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
export function initialProbeState(tolerated: number, at: number): EndpointProbeState {
  return { status: 'CheckingEndpoint', consecutiveFailures: 0, tolerated: Math.max(0, Math.floor(tolerated)), since: at };
}

/*
 * Transition table (reference/behaviors.md §8). f = consecutive failures after counting this result,
 * t = toleratedNumberOfFailures.
 *
 * | status           | event           | next status       | f after | action     |
 * |------------------|-----------------|-------------------|---------|------------|
 * | CheckingEndpoint | success         | Online            | 0       | transition |
 * | CheckingEndpoint | failure, f <= t | CheckingEndpoint  | f       | -          |
 * | CheckingEndpoint | failure, f > t  | Degraded          | f       | transition |
 * | Online           | success         | Online            | 0       | -          |
 * | Online           | failure, f <= t | Online            | f       | -          |
 * | Online           | failure, f > t  | Degraded          | f       | transition |
 * | Degraded         | success         | Online            | 0       | transition |
 * | Degraded         | failure         | Degraded          | f       | -          |
 * | any              | reset           | CheckingEndpoint  | 0       | transition if status was not CheckingEndpoint |
 *
 * So t = 0 ⇒ Degraded on the first failure; t = 3 ⇒ on the 4th consecutive failure. A new endpoint whose
 * first probes fail but stay within the tolerance remains CheckingEndpoint (it has not yet been seen
 * healthy, nor failed enough to be Degraded) — still served, like Online.
 */
export function transition(state: EndpointProbeState, event: MachineEvent): MachineStep {
  if (event.type === 'reset') {
    const next = initialProbeState(event.tolerated, event.at);
    if (state.status === 'CheckingEndpoint') return { state: { ...next, since: state.since }, actions: [] };
    return { state: next, actions: [change(state.status, 'CheckingEndpoint', event.at, event.reason, 0)] };
  }
  if (event.ok) {
    if (state.status === 'Online') {
      return { state: state.consecutiveFailures === 0 ? state : { ...state, consecutiveFailures: 0 }, actions: [] };
    }
    return {
      state: { ...state, status: 'Online', consecutiveFailures: 0, since: event.at },
      actions: [change(state.status, 'Online', event.at, event.reason, 0)],
    };
  }
  const failures = state.consecutiveFailures + 1;
  if (state.status !== 'Degraded' && failures > state.tolerated) {
    return {
      state: { ...state, status: 'Degraded', consecutiveFailures: failures, since: event.at },
      actions: [change(state.status, 'Degraded', event.at, event.reason, failures)],
    };
  }
  return { state: { ...state, consecutiveFailures: failures }, actions: [] };
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
 * | otherwise (undecided locations could tip it either way)    | CheckingEndpoint |
 *
 * Examples: 1 location ⇒ its verdict (missing ⇒ CheckingEndpoint). 2 locations: Online + Degraded (a
 * 1-to-1 tie) ⇒ Online; Online + missing ⇒ Online (the other can at most tie); Degraded + missing ⇒
 * CheckingEndpoint. 4 locations: 2 Online + 2 Degraded ⇒ Online; 3 Degraded + 1 Online ⇒ Degraded.
 */
export function aggregate(
  verdictsByLocation: ReadonlyMap<string, ProbeVerdict | undefined> | Readonly<Record<string, ProbeVerdict | undefined>>,
  liveLocations: readonly string[],
): ProbeVerdict {
  const get = (loc: string): ProbeVerdict | undefined =>
    isMap(verdictsByLocation) ? verdictsByLocation.get(loc) : Object.prototype.hasOwnProperty.call(verdictsByLocation, loc) ? verdictsByLocation[loc] : undefined;
  const live = [...new Set(liveLocations)];
  const n = live.length;
  if (n === 0) return 'CheckingEndpoint';
  let online = 0;
  let degraded = 0;
  for (const loc of live) {
    const v = get(loc);
    if (v === 'Online') online++;
    else if (v === 'Degraded') degraded++;
  }
  if (degraded * 2 > n) return 'Degraded';
  if (online * 2 >= n) return 'Online';
  return 'CheckingEndpoint';
}

function isMap<K, V>(x: unknown): x is ReadonlyMap<K, V> {
  return typeof x === 'object' && x !== null && typeof (x as { get?: unknown }).get === 'function' && typeof (x as { has?: unknown }).has === 'function';
}
