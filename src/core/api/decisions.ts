/**
 * The decision log (`GET /v1/decisions`, `tmkit decisions`, docs/observability.md#decisions): real answered
 * queries and why routing answered them so, the records dnstap's `extra` field carries too.
 */
import type { ExplanationStep } from '../routing/types';

/** One answered query and why. Field names are short: the record goes into every sampled dnstap frame. */
export interface DecisionRecord {
  /** When it was answered (ISO 8601, ms). */
  t: string;
  /** The client routing used (the ECS address when the query had one) and the transport source. */
  client: string;
  source: string;
  proto: 'udp' | 'tcp';
  qname: string;
  qtype: string;
  rcode: string;
  /** The top-level profile the name matched (absent: apex, name server, outside the zone). */
  profile?: string;
  /** Its trafficRoutingMethod. */
  method?: string;
  /** Leaf endpoints answered, `profile/endpoint` through nesting. */
  endpoints: string[];
  /** The step that decided, in its words (`priority 1: first available in priority order (Online)`). */
  rule?: string;
  /** The all-degraded fallback applied in the profile tree. */
  allDegraded?: boolean;
  /** Overrides of endpoints the decision looked at, as `profile/endpoint: reason`. */
  overrides?: string[];
  /** The drill (`dr-…`) whose override or injected probe failure the decision met. */
  drill?: string;
  /** The answer went out truncated (TC): rate limiting, the signing budget, or the payload size. */
  truncated?: boolean;
  /** The store revision the snapshot reflects and the SOA serial served (it moves with every snapshot swap: configuration or health). */
  revision: number;
  serial: number;
  /** The trail, as `tmkit resolve` prints it. */
  steps: ExplanationStep[];
}

/** `GET /v1/decisions?profile=&client=&since=&limit=`: the matching records of this node, oldest first. */
export interface DecisionsReport {
  decisions: DecisionRecord[];
  /** Every Nth query is kept (`serve --decision-sample`); 0: the decision log is off on this node. */
  sample: number;
  /** Records this node keeps at most (per DNS process; the oldest go first). */
  capacity: number;
}
