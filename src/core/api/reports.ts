/** The read-only answers about routing: `POST /v1/resolve`, `POST /v1/preview` and Traffic View. */
import type { AnswerRecord, ExplanationStep, RoutingOutcome, RoutingRcode } from '../routing/types';

/** `POST /v1/resolve` body. */
export interface ResolveQuery {
  name: string;
  /** Default `A`. */
  type?: string;
  /** Default `127.0.0.1`. */
  clientIp?: string;
}

/** POST /v1/resolve: one sampled answer (what a DNS client would get now) and every possible outcome. */
export interface ResolveResult {
  query: { name: string; type: string; clientIp: string };
  rcode: RoutingRcode;
  records: AnswerRecord[];
  profile?: string;
  endpoints: string[];
  /** Every answer possible now, with probabilities (Weighted, MultiValue: several). */
  outcomes: RoutingOutcome[];
  /** True when the answer depends on the client address (Geographic, Performance, Subnet). */
  clientDependent: boolean;
  explanation: ExplanationStep[];
  /** Store revision the answer was computed from. */
  revision: number;
}

/** `POST /v1/preview`: the routing map of one deployed profile under a failure scenario. */
export interface PreviewRequest {
  profile: string;
  /** Endpoint names of the profile (or `child/endpoint` paths) to treat as Degraded. */
  down?: string[];
}

/** What one class of clients would get now. */
export interface PreviewRow {
  /** `DE`, `US-CA`, a range, or `unknown location`. */
  client: string;
  label: string;
  /** The region grouping (`GEO-EU`). */
  group: string;
  /** Leaf endpoint path, or `''` for no answer. */
  endpoint: string;
  /** Share of the class's clients (Performance ties, Weighted below) that get it. */
  probability: number;
  /**
   * A Performance profile with `performanceLatency` Measured: what ranked this class's answer, the probes'
   * measurements or the distance model (docs/routing.md "Measured latency"); absent for other profiles.
   */
  performanceSource?: 'measured' | 'distance model';
}

export interface PreviewReport {
  profile: string;
  trafficRoutingMethod: string;
  down: string[];
  rows: PreviewRow[];
}

/** One (country, endpoint) cell of a Traffic View bucket. */
export interface TrafficCount {
  /** ISO 3166 alpha-2 of the client (the ECS address when the query carried one, else the source); `ZZ` unknown. */
  country: string;
  /** The leaf endpoint answered, as a `profile/endpoint` path through nesting; `''` when there was no answer. */
  endpoint: string;
  queries: number;
}

export interface TrafficBucket {
  /** ISO time the bucket starts (buckets are `bucketSeconds` long, aligned to the minute). */
  start: string;
  counts: TrafficCount[];
}

/** `GET /v1/profiles/{name}/traffic[?since=ISO]`: Traffic View (profiles with trafficViewEnrollmentStatus Enabled). */
export interface TrafficReport {
  profile: string;
  /** Whether the profile is enrolled; counting only happens when it is (as in Azure). */
  trafficViewEnrollmentStatus: 'Enabled' | 'Disabled';
  bucketSeconds: number;
  from: string;
  to: string;
  /** Oldest first; only buckets with queries. */
  buckets: TrafficBucket[];
}
