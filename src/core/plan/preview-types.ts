import type { TrafficRoutingMethod } from '../model/types';

/**
 * The routing preview's data: what real clients get, before vs after a plan, computed with the routing
 * engine's `resolve()` (so it equals what the DNS server does). Renderers present it; nothing here formats.
 *
 * Endpoint labels are leaf endpoints as `profile/endpoint` paths (through nesting), `NODATA`, `NXDOMAIN`,
 * or for a split answer the leaves joined with ` + `.
 */
export type AnswerLabel = string;

/** Weighted / MultiValue: an endpoint's share of answers (0–1), exact through nesting. */
export interface ShareRow {
  endpoint: string;
  before: number | null;
  after: number | null;
  /** Change in percentage points (after − before), 0 when one side is absent. */
  deltaPoints: number;
}

/** Geographic / Performance / Subnet: the answer for one client class (a region, a country, a range). */
export interface ClientRow {
  /** Region code (`FR`, `US-CA`), range (`10.0.0.0/8`) or `fallback` / `unknown location`. */
  client: string;
  /** Display name (`France`). */
  name: string;
  /** Regional grouping for summaries (`GEO-EU`), or the profile for ranges. */
  group: string;
  before: AnswerLabel | null;
  after: AnswerLabel | null;
}

/** Rows with the same group and the same before → after, counted ("GEO-EU: eu → eu-canary (47 countries)"). */
export interface ClientGroupSummary {
  group: string;
  before: AnswerLabel | null;
  after: AnswerLabel | null;
  count: number;
  clients: string[];
}

export interface PriorityView {
  active: AnswerLabel;
  /** Enabled endpoints in failover order (lowest priority value first). */
  order: string[];
}

/** One failure: `down` (an endpoint, or `child/*` for a whole nested child) stops answering probes. */
export interface ScenarioRow {
  down: string;
  /** Where the traffic that went to `down` goes now (`us-east 100%`, or per-client summary). */
  goesTo: string;
  /** Share of answers (client-independent) or client classes (client-dependent) still sent to the dead endpoint. */
  stillDown: string | null;
  /** Client classes that get NODATA / NXDOMAIN in this scenario. */
  noAnswer: string[];
  flags: Array<'single-point-of-failure' | 'no-answer' | 'new'>;
}

export interface ProfilePreview {
  profile: string;
  /** `affected`: unchanged but nests a changed profile; `preview`: `tmkit preview` of a document without a comparison. */
  action: 'create' | 'update' | 'replace' | 'delete' | 'affected' | 'preview';
  /** Why an unchanged profile is previewed (`nests contoso-eu, which changes`). */
  reason?: string;
  methodBefore: TrafficRoutingMethod | null;
  methodAfter: TrafficRoutingMethod | null;
  /** Weighted and MultiValue (client-independent profiles): exact shares. */
  shares?: ShareRow[];
  priority?: { before: PriorityView | null; after: PriorityView | null };
  /** MultiValue: every endpoint that can be in the returned set, and maxReturn. */
  multiValue?: { before: { set: string[]; maxReturn: number } | null; after: { set: string[]; maxReturn: number } | null };
  /** Client-dependent methods: every client class (only with `clientRows: true`; `clientGroups` carries the same answers). */
  clients?: ClientRow[];
  /** `clients` summarised; changed groups first. */
  clientGroups?: ClientGroupSummary[];
  /** Client classes that had an answer before and have none after. */
  lostAnswer: string[];
  /** Failure scenarios for the after state (before state for a delete). */
  scenarios: ScenarioRow[];
  /** Endpoints that no client gets even when every other endpoint is down. */
  neverReceive: string[];
  notes: string[];
}

export interface PlanPreview {
  profiles: ProfilePreview[];
  /** How client locations were modelled (`one client per country and subdivision; great-circle latency`). */
  clientModel: string;
}
