/**
 * The management API's contract (docs/api.md): every request and response body, declared once. The server
 * (src/runtime/api) types its handlers with these and the client (src/client) its methods, so the two
 * cannot drift. Property names on the wire are exactly these.
 */
import type { Diagnostic } from './diagnostics';
import type { EndpointMonitorStatus, ProfileMonitorStatus } from './health/types';
import type { Endpoint, Profile } from './model/types';
import type { AzureResource } from './ports';
import type { AnswerRecord, ExplanationStep, RoutingOutcome, RoutingRcode } from './routing/types';

/**
 * The error body of every failed request: `{"errors": [...]}`. Each entry is a Diagnostic; on the wire
 * `path` is left out when it is empty (the problem is not about one place).
 */
export interface ApiErrorBody {
  errors: WireDiagnostic[];
}

/** A Diagnostic as JSON: `path` absent when empty; `severity` absent only in bodies of older servers. */
export type WireDiagnostic = Omit<Diagnostic, 'path' | 'severity'> & { path?: string; severity?: Diagnostic['severity'] };

export function toWire(d: Diagnostic): WireDiagnostic {
  const w: WireDiagnostic = { code: d.code, message: d.message, severity: d.severity };
  if (d.path !== '') w.path = d.path;
  if (d.hint !== undefined) w.hint = d.hint;
  return w;
}

export function fromWire(w: WireDiagnostic): Diagnostic {
  const d: Diagnostic = { severity: w.severity ?? 'error', code: String(w.code), path: w.path ?? '', message: String(w.message) };
  if (w.hint !== undefined) d.hint = w.hint;
  return d;
}

/** `GET /healthz`: the watchdog (503 with `status: "degraded"` and a reason when DNS lags the store). */
export interface HealthzBody {
  status: 'ok' | 'degraded';
  /** The store's revision. */
  revision: number;
  /** The revision of the snapshot DNS answers from. */
  servedRevision?: number;
  lagRevisions?: number;
  /** How long the oldest change not yet served has waited. */
  lagSeconds?: number;
  reason?: string;
  /** Cluster mode (`serve --store etcd://…`): this node, its etcd connection and the live locations. */
  cluster?: ClusterHealthBody;
}

/** `GET /healthz` in cluster mode: who this node is and whether it reaches etcd (degraded while it does not). */
export interface ClusterHealthBody {
  store: 'etcd';
  node: string;
  location: string;
  etcd: {
    endpoints: string[];
    connected: boolean;
    /** ISO time etcd became unreachable (while it is). */
    since?: string;
    error?: string;
    /** The node started while etcd was down and serves the configuration it had saved locally. */
    fromLocalCopy?: boolean;
  };
  /** The etcd revision this node's state reflects (also its SOA serial). */
  etcdRevision: number;
  /** Probing locations whose node is alive (its lease has not expired). */
  liveLocations: string[];
  nodes: Array<{ node: string; location: string }>;
}

export interface ProfileEntry {
  name: string;
  stack: string;
  etag: string;
  profile: Profile;
}

export interface ProfileList {
  revision: number;
  profiles: ProfileEntry[];
}

/**
 * One profile in `GET /v1/profiles?view=summary`: what a plan needs to know of every deployed profile
 * (ownership, ETag, the FQDN it takes, whom it nests) without its body, so a plan reads in full only the
 * profiles it can touch (core/plan/scope.ts).
 */
export interface ProfileSummary {
  name: string;
  stack: string;
  etag: string;
  relativeName: string;
  /** Child profile names of its nested endpoints, as their targetResourceIds name them. */
  nested: string[];
}

export interface ProfileSummaryList {
  revision: number;
  profiles: ProfileSummary[];
}

/** Response of PUT /v1/profiles/{name} and PATCH .../endpoints/{endpoint}. */
export interface WriteResult {
  name: string;
  stack: string;
  etag: string;
  revision: number;
  created: boolean;
  /** False when the stored profile was already identical (nothing written). */
  changed: boolean;
  /** The stored, normalized profile. */
  profile: Profile;
  /** Warning diagnostics (errors never get here: the write is refused). */
  warnings: WireDiagnostic[];
}

export interface DeleteResult { name: string; deleted: true; revision: number }

/** `GET /v1/profiles/{name}/endpoints/{endpoint}`: the body is the normalized endpoint; headers ETag (the endpoint's), Tmkit-Stack, Tmkit-Profile-Etag. */
export type EndpointEntry = Endpoint;

/** Response of `PUT /v1/profiles/{name}/endpoints/{endpoint}` (201 created, 200 replaced). */
export interface EndpointWriteResult {
  /** The profile's stored name. */
  profile: string;
  stack: string;
  /** The endpoint's ETag (also the `ETag` header). */
  etag: string;
  /** The whole profile's new ETag. */
  profileEtag: string;
  revision: number;
  created: boolean;
  changed: boolean;
  /** The stored, normalized endpoint. */
  endpoint: Endpoint;
  warnings: WireDiagnostic[];
}

/** Response of `DELETE /v1/profiles/{name}/endpoints/{endpoint}`. */
export interface EndpointDeleteResult {
  profile: string;
  endpoint: string;
  deleted: true;
  profileEtag: string;
  revision: number;
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
}

export interface PreviewReport {
  profile: string;
  trafficRoutingMethod: string;
  down: string[];
  rows: PreviewRow[];
}

// ---------------------------------------------------------------------------------------------------
// Traffic operations (docs/operations.md): overrides, failback, drills, the audit log. Runtime controls,
// never configuration: they live beside the profiles in the store, not in them.

/** `down`: the endpoint is out of DNS (Always Serve too); `weight`: Weighted routing uses this weight. */
export type OverrideKind = 'down' | 'weight';

/** One override as the server keeps it (`GET /v1/overrides`). Every one expires by itself. */
export interface OverrideRecord {
  id: string;
  kind: OverrideKind;
  profile: string;
  endpoint: string;
  /** `weight` overrides: 1–1000. */
  weight?: number;
  reason: string;
  /** Who made it: the name the caller gave (`cli`, `dashboard`, `shift`, `drill`), else `api`. */
  who: string;
  /** ISO times. */
  createdAt: string;
  expiresAt: string;
  /** The drill that made it (`tmkit drill`). */
  drill?: string;
}

/** `POST /v1/overrides`. */
export interface OverrideRequest {
  kind: OverrideKind;
  profile: string;
  endpoint: string;
  weight?: number;
  /** How long: a duration (`90s`, `30m`, `2h`, `1d`, `1h30m`) or a number of seconds; at most 7 days. */
  for: string | number;
  reason?: string;
  who?: string;
  /** Skip the safety rule (a `down` override that leaves a profile with no endpoint able to serve). */
  force?: boolean;
  drill?: string;
}

/** Response of `POST /v1/overrides` (201). `replaced`: ids of the same kind on the same endpoint it ended. */
export interface OverrideResult { override: OverrideRecord; replaced: string[] }

export interface OverrideList { overrides: OverrideRecord[] }

/** `DELETE /v1/overrides/{id}`. */
export interface OverrideDeleteResult { id: string; deleted: true; override: OverrideRecord }

/** `POST /v1/profiles/{name}/endpoints/{endpoint}/failback` (failback mode Manual). */
export interface FailbackResult {
  profile: string;
  endpoint: string;
  /** ISO time of the approval: it releases every outage of the endpoint that began before it. */
  approvedAt: string;
  /** The endpoint's monitor status before (AwaitingFailback, or Degraded: released once it recovers). */
  status: EndpointMonitorStatus;
  who: string;
}

/** One line of the audit log (`GET /v1/audit`): who did what, when and why. Newest first. */
export interface AuditEntry {
  at: string;
  who: string;
  /** `override.create`, `override.clear`, `override.expire`, `override.refuse`, `failback`, `drill`, `shift`. */
  action: string;
  /** `profile/endpoint`, or an override id. */
  target: string;
  reason?: string;
  details?: Record<string, unknown>;
}

export interface AuditList { entries: AuditEntry[] }

/** What one DNS server (a node) did during a drill. */
export interface DrillNodeReport {
  /** `ADDR:PORT` of the node's DNS. */
  dns: string;
  node?: string;
  switchSeconds?: number;
  revertSeconds?: number;
  /** Every answer during the hold named another endpoint (not NODATA/NXDOMAIN, never the drilled one). */
  answeredDuringHold: boolean;
  /** What it answered during the hold (distinct record sets). */
  heldAnswers: string[];
}

/** `tmkit drill`'s report (`POST /v1/drills` keeps it, `GET /v1/drills` lists them). */
export interface DrillReport {
  id: string;
  profile: string;
  endpoint: string;
  who: string;
  reason?: string;
  status: 'running' | 'passed' | 'failed' | 'aborted';
  startedAt: string;
  finishedAt?: string;
  holdSeconds: number;
  /** From the override stored until every node's DNS stopped naming the endpoint (authoritative answers). */
  switchSeconds?: number;
  /** From the override cleared until every node's DNS could name it again. */
  revertSeconds?: number;
  /** The profile's worst-case failover as `tmkit plan` computes it (detection + TTL). */
  boundSeconds: number | null;
  /** The bound's formula with its numbers (`10 × (0 + 1) + 5 + TTL 0 = 15 s`). */
  bound: string;
  /** Resolvers may keep the old answer for the TTL: switch + TTL and revert + TTL are held against the bound. */
  ttl: number;
  passed: boolean;
  nodes: DrillNodeReport[];
  overrideId?: string;
  notes: string[];
}

export interface DrillList { drills: DrillReport[] }

/** `GET /v1/nodes`: where each node answers (a single server is one node), for drills that query every one. */
export interface NodeList { nodes: Array<{ node: string; location?: string; dns: string[]; api?: string; self: boolean }> }

/** `event: override`: an override made, cleared or expired (on every node of a cluster). */
export interface OverrideEvent { action: 'created' | 'cleared' | 'expired'; override: OverrideRecord }
/** `event: drill`: a drill started or finished. */
export interface DrillEvent { action: 'started' | 'finished'; drill: DrillReport }

/** `GET /v1/events` (Server-Sent Events): `event: transition|revision|traffic|override|drill`, `data: <JSON>`. */
export interface TransitionEvent {
  at: string; profile: string; endpoint: string; from: string; to: string; reason: string; location: string;
  /** What moved the status: this location's probes (absent in events of older servers), or health pushed from outside. */
  source?: 'probe' | 'pushed';
}
export interface RevisionEvent { revision: number }
export interface TrafficEvent { profile: string; bucket: TrafficBucket }
/** One event of `GET /v1/events`, by its `event:` name. */
export type LiveEvent =
  | { type: 'transition'; data: TransitionEvent }
  | { type: 'revision'; data: RevisionEvent }
  | { type: 'traffic'; data: TrafficEvent }
  | { type: 'override'; data: OverrideEvent }
  | { type: 'drill'; data: DrillEvent };

/** The API's routes with their bodies (docs/api.md): what the server handles and the client calls. */
export interface ApiRoutes {
  'GET /healthz': { response: HealthzBody };
  'GET /v1/profiles': { response: ProfileList };
  'GET /v1/profiles?view=summary': { response: ProfileSummaryList };
  'GET /v1/profiles/{name}': { response: Profile };
  'PUT /v1/profiles/{name}': { request: unknown; response: WriteResult };
  'PATCH /v1/profiles/{name}': { request: Record<string, unknown>; response: WriteResult };
  'DELETE /v1/profiles/{name}': { response: DeleteResult };
  'GET /v1/profiles/{name}/endpoints/{endpoint}': { response: EndpointEntry };
  'PUT /v1/profiles/{name}/endpoints/{endpoint}': { request: unknown; response: EndpointWriteResult };
  'PATCH /v1/profiles/{name}/endpoints/{endpoint}': { request: Record<string, unknown>; response: WriteResult };
  'DELETE /v1/profiles/{name}/endpoints/{endpoint}': { response: EndpointDeleteResult };
  'GET /v1/profiles/{name}/status': { response: ProfileStatusReport };
  'POST /v1/resolve': { request: ResolveQuery; response: ResolveResult };
  'GET /v1/profiles/{name}/traffic': { response: TrafficReport };
  'POST /v1/preview': { request: PreviewRequest; response: PreviewReport };
  'GET /v1/events': { response: 'text/event-stream' };
  'GET /v1/resources': { response: ResourceCatalogResponse };
  'PUT /v1/resources': { request: unknown; response: { revision: number; count: number } };
  'PUT /v1/profiles/{name}/endpoints/{endpoint}/health': { request: PushedHealthRequest; response: PushedHealthReport };
  'DELETE /v1/profiles/{name}/endpoints/{endpoint}/health': { response: { profile: string; endpoint: string; cleared: boolean } };
  'GET /v1/webhooks': { response: WebhookList };
  'POST /v1/webhooks': { request: WebhookRequest; response: WebhookReport };
  'DELETE /v1/webhooks/{id}': { response: { id: string; deleted: true } };
  'GET /v1/dnssec': { response: DnssecReport };
  'POST /v1/dnssec/rollover': { request: DnssecRolloverRequest; response: DnssecRolloverResult };
  'POST /v1/overrides': { request: OverrideRequest; response: OverrideResult };
  'GET /v1/overrides': { response: OverrideList };
  'DELETE /v1/overrides/{id}': { response: OverrideDeleteResult };
  'POST /v1/profiles/{name}/endpoints/{endpoint}/failback': { request: { who?: string; reason?: string }; response: FailbackResult };
  'GET /v1/audit': { response: AuditList };
  'POST /v1/drills': { request: DrillReport; response: DrillReport };
  'GET /v1/drills': { response: DrillList };
  'GET /v1/nodes': { response: NodeList };
}

/** One DNSSEC key as `GET /v1/dnssec` shows it (no private key ever leaves the server). */
export interface DnssecKeyReport {
  keyTag: number;
  role: 'csk' | 'ksk' | 'zsk';
  algorithm: number;
  /** 257 (CSK, KSK) or 256 (ZSK). */
  flags: number;
  /** published: in the DNSKEY RRset, not signing yet; active: signing; retired: still published, no longer signing the zone's data; removed. */
  state: 'published' | 'active' | 'retired' | 'removed';
  publish: string;
  activate: string;
  retire?: string;
  remove?: string;
  /** The DNSKEY record in presentation form (a trust anchor). */
  dnskey: string;
  /** The DS record for the parent (SHA-256), for a CSK or KSK. */
  ds?: string;
}

/** `GET /v1/dnssec`: the zone's keys, the DS for the parent, and the signer's figures. */
export interface DnssecReport {
  zone: string;
  enabled: true;
  algorithm: number;
  algorithmName: string;
  /** One combined signing key, or a KSK and a ZSK. */
  keyMode: 'csk' | 'split';
  /** Where the keys are stored. */
  keyStore: string;
  keys: DnssecKeyReport[];
  /** DS records of the published CSK/KSKs: what the parent zone should hold. */
  ds: string[];
  denial: 'compact (RFC 9824)';
  validitySeconds: number;
  refreshSeconds: number;
  backdateSeconds: number;
  /** Summed over the DNS processes (absent before DNS answered anything with a worker). */
  signatures?: { made: number; refreshed: number; cacheHits: number; cached: number; nextRefresh: string };
}

/** `POST /v1/dnssec/rollover`: start a rollover of the zone-signing key (CSK/ZSK) or of the KSK, or finish one. */
export interface DnssecRolloverRequest {
  kind?: 'zone' | 'ksk';
  finish?: boolean;
}

export interface DnssecRolloverResult {
  steps: string[];
  keyTags: number[];
  report: DnssecReport;
}

/**
 * `PUT /v1/profiles/{name}/endpoints/{endpoint}/health`: an external system (a deploy pipeline, an APM alert)
 * marks an endpoint. Until `ttlSeconds` pass, the endpoint's status is the worse of its probes' and this one
 * (docs/health.md "Health pushed from outside").
 */
export interface PushedHealthRequest {
  status: 'Online' | 'Degraded';
  /** 1–86400. */
  ttlSeconds: number;
  /** Why, shown wherever the status is (at most 500 characters). */
  reason?: string;
}

/** Health pushed from outside, as the API shows it. */
export interface PushedHealthReport {
  profile: string;
  endpoint: string;
  status: 'Online' | 'Degraded';
  reason: string;
  /** ISO time it was pushed. */
  at: string;
  /** ISO time it ends by itself. */
  expiresAt: string;
}

/** What `certificateValidation` checks and the expiry warning see of an HTTPS endpoint's certificate. */
export interface CertificateReport {
  /** ISO time of notAfter. */
  validTo: string;
  /** Whole days left (negative: expired). */
  expiresInDays: number;
  /** Subject CN and subjectAltName entries. */
  names: string[];
  /** Inside `certificateExpiryWarningDays` (certificateValidation Enabled): `certificate expires in 5 days (…)`. */
  warning?: string;
}

/** A webhook target: `POST /v1/webhooks` (or `tmkit serve --webhook URL[,secret-file]`). */
export interface WebhookRequest {
  /** http(s) URL; loopback and private addresses only with `serve --webhook-allow-private` (docs/webhooks.md). */
  url: string;
  /** Event types to deliver (default: all; `transition`, `revision`, and whatever else the live events carry). */
  events?: string[];
  /** A file on the server holding the HMAC secret (X-Tmkit-Signature); none: deliveries are unsigned. */
  secretFile?: string;
  /** `json` (default: the event as it is) or `slack` (a Slack/Teams-compatible `{"text": …}` body). */
  format?: 'json' | 'slack';
}

/** One delivery attempt's outcome in the webhook's delivery log. */
export interface WebhookDeliveryReport {
  /** The event's id (one per event: retries keep it; receivers deduplicate on X-Tmkit-Delivery). */
  id: string;
  event: string;
  /** ISO time of the attempt. */
  at: string;
  attempt: number;
  /** `delivered` (2xx), `retrying`, `failed` (gave up), `dropped` (the queue was full). */
  outcome: 'delivered' | 'retrying' | 'failed' | 'dropped';
  status?: number;
  error?: string;
  /** Event → acknowledged, for delivered ones. */
  latencyMs?: number;
}

export interface WebhookReport {
  id: string;
  url: string;
  events: string[];
  format: 'json' | 'slack';
  signed: boolean;
  /** Where it came from: `serve --webhook` (fixed while the server runs) or the API (kept in the state dir). */
  origin: 'flag' | 'api';
  /** Events waiting to be delivered. */
  queued: number;
  delivered: number;
  dropped: number;
  failed: number;
  /** The most recent attempts, newest first (at most 50). */
  deliveries: WebhookDeliveryReport[];
}

export interface WebhookList { webhooks: WebhookReport[] }

/** The last probe of an endpoint, as the status endpoint reports it. */
export interface ProbeResultReport {
  /** ISO time the probe finished. */
  at: string;
  ok: boolean;
  /** e.g. `status 200`, `timeout`, `connection refused`. */
  reason: string;
  statusCode?: number;
  /** The address probed (after resolving an FQDN). */
  address?: string;
  latencyMs: number;
  /** HTTPS: the server certificate seen. */
  certificate?: CertificateReport;
}

export interface StatusTransitionReport {
  at: string;
  endpoint: string;
  from: string;
  to: string;
  reason: string;
  /** The probing location (host) that saw it. */
  location: string;
  /** `pushed`: health pushed from outside caused it (docs/health.md); absent: probing or maintenance. */
  source?: 'pushed';
}

export interface EndpointStatusReport {
  name: string;
  type: string;
  target?: string;
  targetResourceId?: string;
  endpointStatus: string;
  /** Azure's endpoint monitor status, derived from configuration and probing (behaviors.md §6). */
  endpointMonitorStatus: EndpointMonitorStatus;
  /** Why it has that status. */
  reason: string;
  /** False for endpoints that are not probed (disabled, nested, Always Serve, stopped resource). */
  probed: boolean;
  /** What probing says (Online / Degraded / CheckingEndpoint). */
  verdict?: string;
  /**
   * True while the verdict is the one saved before the last restart: the prober has not decided the
   * endpoint again yet (it is being re-probed).
   */
  verdictCarriedOver?: boolean;
  consecutiveFailures?: number;
  /** ISO time of the last verdict change. */
  since?: string;
  location?: string;
  lastProbe?: ProbeResultReport;
  /**
   * Cluster mode: every probing location's verdict (`verdict` above is their aggregate, the one DNS uses:
   * Degraded only when strictly more than half of the live locations say Degraded).
   */
  locations?: LocationVerdictReport[];
  /** Health pushed from outside that has not expired (`verdict` is the worse of the probes' and it). */
  pushedHealth?: PushedHealthReport;
  /** Where `verdict` comes from: `pushed` while health pushed from outside makes it worse than probing says. */
  verdictSource?: 'probe' | 'pushed';
  /** Things to act on that do not fail the probe (a certificate about to expire). */
  warnings?: string[];
  /** The overrides in force on this endpoint (docs/operations.md). */
  overrides?: OverrideRecord[];
  /** The weight routing uses now when a `weight` override replaces the configured one. */
  effectiveWeight?: number;
}

/** One probing location's verdict on an endpoint (cluster mode). */
export interface LocationVerdictReport {
  location: string;
  /** The node that probes from there. */
  node?: string;
  verdict: string;
  /** ISO time of that location's last transition. */
  since?: string;
  reason?: string;
  /** Only live locations (their node's lease has not expired) count in the aggregate. */
  live: boolean;
  /** The location of the node that answered this request. */
  self: boolean;
  /** The verdict was reached with other probe settings (that node's configuration is behind or ahead): counted as undecided. */
  otherSettings?: boolean;
}

/** GET /v1/profiles/{name}/status. */
export interface ProfileStatusReport {
  name: string;
  stack: string;
  etag: string;
  /** Store revision of the configuration the statuses were derived from. */
  revision: number;
  fqdn: string;
  profileStatus: string;
  profileMonitorStatus: ProfileMonitorStatus;
  /** Every eligible endpoint Degraded: they are answered as if Online (behaviors.md §4). */
  allDegradedFallback: boolean;
  endpoints: EndpointStatusReport[];
  /** Recent status transitions, newest first (including those saved before a restart). */
  transitions: StatusTransitionReport[];
  /** The profile's failback property when it has one (absent: Azure's, Automatic after one good probe). */
  failback?: { mode: 'Automatic' | 'Manual'; successesToRecover: number; holdDownSeconds: number };
}

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

export interface ResourceCatalogResponse {
  revision: number;
  resources: Record<string, AzureResource>;
}
