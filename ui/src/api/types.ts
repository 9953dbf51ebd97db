/**
 * The API shapes the dashboard reads. The existing routes' types come straight from src/core/api.ts (type
 * imports only: nothing of core is bundled for them). The new routes' types below MIRROR what is being added
 * to src/core/api.ts (issue 19); when they land there, replace these declarations with imports from it.
 */
export type {
  ApiErrorBody, EndpointStatusReport, ProbeResultReport, ProfileEntry, ProfileList, ProfileStatusReport,
  ResolveQuery, ResolveResult, StatusTransitionReport, WireDiagnostic,
} from '../../../src/core/api';
export type { EndpointMonitorStatus, ProfileMonitorStatus } from '../../../src/core/health/types';
export type { Endpoint, Profile, TrafficRoutingMethod } from '../../../src/core/model/types';
export type { AnswerRecord, ExplanationStep, RoutingOutcome } from '../../../src/core/routing/types';

// --- Mirrors of the new routes (issue 19); keep in step with src/core/api.ts ---------------------------

/** One (country, endpoint) cell of a traffic bucket. */
export interface TrafficCount {
  /** ISO 3166 alpha-2; `ZZ` when the client's country is unknown. */
  country: string;
  /** The leaf endpoint that answered, as a `child/endpoint` path; `''` when there was no answer. */
  endpoint: string;
  queries: number;
}

export interface TrafficBucket {
  /** ISO time the bucket starts. */
  start: string;
  counts: TrafficCount[];
}

/** `GET /v1/profiles/{name}/traffic[?since=ISO]`. */
export interface TrafficReport {
  profile: string;
  bucketSeconds: number;
  from: string;
  to: string;
  buckets: TrafficBucket[];
}

/** `POST /v1/preview` body. */
export interface PreviewRequest {
  profile: string;
  /** Endpoint names of the profile to treat as Degraded (a failure scenario). */
  down?: string[];
}

/** One row of the routing preview: what a class of clients would get now. */
export interface PreviewRow {
  /** `DE`, `US-CA`, or a region group such as `GEO-EU`. */
  client: string;
  label: string;
  /** Leaf endpoint path, or `''` for no answer. */
  endpoint: string;
  probability: number;
}

/** `POST /v1/preview` response. */
export interface PreviewReport {
  profile: string;
  rows: PreviewRow[];
}

/** Events of `GET /v1/events` (Server-Sent Events). */
export interface TransitionEvent {
  at: string;
  profile: string;
  endpoint: string;
  from: string;
  to: string;
  reason: string;
  location: string;
}
export interface RevisionEvent { revision: number }
export interface TrafficEvent { profile: string; bucket: TrafficBucket }

export type LiveEvent =
  | { type: 'transition'; data: TransitionEvent }
  | { type: 'revision'; data: RevisionEvent }
  | { type: 'traffic'; data: TrafficEvent };
