import type { LatencyView } from '../health/latency';
import type { HealthView } from '../health/types';
import type { Profile } from '../model/types';
import type { GeoLookup, ResourceCatalog, Rng } from '../ports';

/**
 * Everything the routing engine needs to answer, frozen at one moment. The runtime builds a new snapshot
 * on every configuration change or monitor transition and swaps it in (gdnsd-style: resolvers read a
 * snapshot, they never see a half-applied change).
 */
export interface RoutingSnapshot {
  /** The authoritative zone, lower case, no trailing dot (`tm.internal`). */
  zone: string;
  /** Normalized, validated profiles by name. */
  profiles: ReadonlyMap<string, Profile>;
  health: HealthView;
  /**
   * What the probing locations measured, for Performance profiles whose `performanceLatency.source` is
   * Measured (absent: nothing measured; those profiles rank by the distance model). Read per query.
   */
  latency?: LatencyView;
  resources: ResourceCatalog;
  geo: GeoLookup;
}

export type QueryType = 'A' | 'AAAA' | 'CNAME' | 'ANY' | string;

export interface RoutingQuery {
  /** The query name as received (any case, with or without a trailing dot). */
  name: string;
  type: QueryType;
  /** The address routing uses: the ECS address when present, else the source address. */
  clientAddress: string;
  /** The ECS source prefix length when the query carried EDNS Client Subnet. */
  ecsSourcePrefix?: number;
  /**
   * The query stands for every client routed like `clientAddress` (a region or a range in the routing
   * preview), not for one client. Performance splits a tier evenly over clients by a hash of the client,
   * so for one client (the default: DNS, `tmkit resolve`, `/v1/resolve`) a tie is one outcome with
   * probability 1, the endpoint the client's hash picks; for a population it is the split, 1/n each.
   */
  population?: boolean;
}

export type AnswerRecord =
  | { type: 'CNAME'; name: string; ttl: number; data: string }
  | { type: 'A'; name: string; ttl: number; data: string }
  | { type: 'AAAA'; name: string; ttl: number; data: string };

/** NOERROR with no records is NODATA. REFUSED: outside the zone. */
export type RoutingRcode = 'NOERROR' | 'NXDOMAIN' | 'REFUSED';

export interface ExplanationStep {
  /** Profile the step happened in. */
  profile: string;
  /** e.g. `method`, `subnet-override`, `geo-match`, `skip`, `select`, `fallback`, `nested`, `nodata`. */
  kind: string;
  /** Endpoint concerned, if any. */
  endpoint?: string;
  /** Human-readable reason (names the rule: "Degraded: excluded", "all degraded: answering as if online"). */
  detail: string;
}

export interface RoutingAnswer {
  rcode: RoutingRcode;
  /** Answer-section records (empty for NXDOMAIN / NODATA / REFUSED). */
  records: AnswerRecord[];
  /**
   * ECS scope prefix for the response: how much of the client address the answer depended on
   * (0 when it did not depend on the address at all). Undefined when the query carried no ECS.
   */
  ecsScopePrefix?: number;
  /** The profile that matched the name (the top-level one), if any. */
  profile?: string;
  /** The leaf endpoint(s) answered, as `profile/endpoint` paths through nesting. */
  endpoints: string[];
  explanation: ExplanationStep[];
}

export type { Rng };

/** One possible answer and its probability (Weighted and MultiValue have several; others one). */
export interface RoutingOutcome {
  probability: number;
  records: AnswerRecord[];
  /** Leaf endpoints answered, as `profile/endpoint` paths through nesting. */
  endpoints: string[];
  /** The trail that leads to this outcome (what answer() reports when it picks it). */
  explanation?: ExplanationStep[];
}

/**
 * Every answer the engine could give to a query right now, with probabilities: what `answer()` samples
 * from with the RNG, what the preview reports exactly, and what the DNS server pre-encodes and caches.
 */
export interface RoutingResolution {
  rcode: RoutingRcode;
  /** NODATA and NXDOMAIN: one outcome with no records. REFUSED: none. Probabilities sum to 1. */
  outcomes: RoutingOutcome[];
  /** True when the outcomes depend on the client address (Geographic, Performance, Subnet, subnet override). */
  clientDependent: boolean;
  ecsScopePrefix?: number;
  profile?: string;
  explanation: ExplanationStep[];
}
