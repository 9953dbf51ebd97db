/** The live events of `GET /v1/events` (Server-Sent Events), which the webhooks deliver too. */
import type { DrillReport, OverrideRecord } from './operations';
import type { TrafficBucket } from './reports';

/** `event: override`: an override made, cleared or expired (on every node of a cluster). */
export interface OverrideEvent {
  action: 'created' | 'cleared' | 'expired';
  override: OverrideRecord;
}
/** `event: drill`: a drill started or finished. */
export interface DrillEvent {
  action: 'started' | 'finished';
  drill: DrillReport;
}

/** `event: node`: this node drained or undrained by hand (`tmkit node drain`); DNS keeps answering either way. */
export interface NodeEvent {
  action: 'drained' | 'undrained';
  at: string;
  who: string;
  reason?: string;
}

/**
 * `event: rrl`: this node's response rate limiting (`serve --rrl`) became sustained, or recovered. One event
 * when some bucket has been limited for 5 s, one when nothing was limited for 30 s: never one per second.
 */
export interface RrlEvent {
  action: 'sustained' | 'recovered';
  at: string;
  /** `enforce`, or `log` (`--rrl-mode log`: counted, nothing limited). */
  mode: 'enforce' | 'log';
  /** The client prefix of the bucket that made it sustained, as `198.51.100.0/24`: the flood's source, or the victim its spoofed queries name. */
  prefix: string;
  /** The response class (`positive`, `nxdomain`, `nodata`, `error`, `any`, `large`) and its key (the name, or the zone). */
  class: string;
  key: string;
  /** When that bucket's run of limited answers began (ISO 8601). */
  since: string;
  /** sustained: how long that bucket has been limited; recovered: from `since` to the last limited answer. Seconds. */
  durationSeconds: number;
  /** sustained: that bucket's limited answers so far; recovered: every limited answer of the period, in all DNS processes together. */
  limited: number;
  /** recovered: the last limited answer (ISO 8601). */
  lastLimited?: string;
  /** DNS processes (`--workers`) that were limiting in the period. */
  processes: number;
  /** Where it happened: the node and location in a cluster, absent for a single node. */
  node?: string;
}

/** `GET /v1/events` (Server-Sent Events): `event: transition|revision|traffic|override|drill|node|rrl`, `data: <JSON>`. */
export interface TransitionEvent {
  at: string;
  profile: string;
  endpoint: string;
  from: string;
  to: string;
  reason: string;
  location: string;
  /** What moved the status: this location's probes (absent in events of older servers), or health pushed from outside. */
  source?: 'probe' | 'pushed';
}
export interface RevisionEvent {
  revision: number;
}
export interface TrafficEvent {
  profile: string;
  bucket: TrafficBucket;
}
/** One event of `GET /v1/events`, by its `event:` name. */
export type LiveEvent =
  | { type: 'transition'; data: TransitionEvent }
  | { type: 'revision'; data: RevisionEvent }
  | { type: 'traffic'; data: TrafficEvent }
  | { type: 'override'; data: OverrideEvent }
  | { type: 'drill'; data: DrillEvent }
  | { type: 'node'; data: NodeEvent }
  | { type: 'rrl'; data: RrlEvent };

/** Every `LiveEvent` type once (a Record: the compiler refuses a missing or an extra one). */
const EVENT_TYPES: Record<LiveEvent['type'], true> = {
  transition: true,
  revision: true,
  traffic: true,
  override: true,
  drill: true,
  node: true,
  rrl: true,
};

/** The live event types, which a webhook's `events` filter names (`tmkit webhooks add --events`). */
export const LIVE_EVENT_TYPES = Object.keys(EVENT_TYPES) as ReadonlyArray<LiveEvent['type']>;

/** The names in `names` that are no live event type (a typo would never fire), in their order, once each. */
export function unknownEventTypes(names: readonly string[]): string[] {
  return [...new Set(names.filter((n) => !Object.hasOwn(EVENT_TYPES, n)))];
}
