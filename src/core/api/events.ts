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

/** `GET /v1/events` (Server-Sent Events): `event: transition|revision|traffic|override|drill|node`, `data: <JSON>`. */
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
  | { type: 'node'; data: NodeEvent };
