/**
 * What the running server answers about itself (the shapes are the API contract in core/api/): a
 * profile's live status, what DNS would answer and why, the routing map under a failure scenario, Traffic
 * View and the watchdog. Read-only: built from the served snapshot (pipeline.ts), the health ledger
 * (ledger/) and Traffic View (traffic-view.ts). The API's read routes (api/reads.ts) call `RuntimeReports`.
 */
import type {
  ClusterHealthBody,
  DecisionRecord,
  DecisionsReport,
  LocationVerdictReport,
  OverrideRecord,
  PreviewReport,
  ProfileStatusReport,
  ResolveResult,
  TrafficReport,
} from '../core/api';
import type { HealthView, ProbeVerdict } from '../core/health/types';
import { profileFqdn } from '../core/model/names';
import { routingMap } from '../core/plan';
import type { GeoLookup, Rng } from '../core/ports';
import { answer, profileMonitorStatuses, resolve, type CompiledSnapshot } from '../core/routing';
import type { StoredProfile } from '../core/store';
import { systemClock, type RuntimeClock } from './clock';
import { endpointHealthExtras, type HealthExtras } from './ledger/health-report';
import type { HealthLedger, LedgerTransition } from './ledger';
import type { EndpointProbeStatus } from './monitor';
import type { SnapshotLag, SnapshotPipeline } from './pipeline';
import type { TrafficView } from './traffic-view';
import type { DecisionQuery } from './dns';

/** What `POST /v1/resolve` takes. */
export interface ResolveRequest {
  name: string;
  type: string;
  clientIp: string;
}

/** What the watchdog reports to `/healthz` (docs/api.md): the pipeline's lag, and etcd in cluster mode. */
export interface HealthReport extends SnapshotLag {
  /** The zone DNS answers for (`serve --zone`). */
  zone?: string;
  cluster?: ClusterHealthBody;
}

/** The answers of the API's read-only routes (api/reads.ts); `Reports` below is the running server's. */
export interface RuntimeReports {
  /** A stored profile's live monitor status. */
  status(profile: StoredProfile): Promise<ProfileStatusReport> | ProfileStatusReport;
  /** The answer the DNS server would give now (`clientIp` is an IP address: the route checked it). */
  resolve(query: ResolveRequest): Promise<ResolveResult> | ResolveResult;
  /** The watchdog: how far the served DNS snapshot lags the store (degraded → 503 with the reason). */
  health(): Promise<HealthReport>;
  /** Traffic View of a stored profile since `since` (ms). */
  traffic(profile: StoredProfile, since: number): TrafficReport;
  /** The routing map of a stored profile with the `down` endpoints Degraded. */
  preview(profile: StoredProfile, down: string[]): Promise<PreviewReport> | PreviewReport;
  /** The decision log of this node (`client` checked by the route). */
  decisions(q: DecisionQuery): DecisionsReport;
}

export interface ReportsOptions {
  pipeline: SnapshotPipeline;
  ledger: HealthLedger;
  traffic: TrafficView;
  geo: GeoLookup;
  zone: string;
  rng: Rng;
  /** Cluster mode: the node's etcd connection for /healthz (degradedReason when etcd is unreachable). */
  cluster?: { healthz(): { body: ClusterHealthBody; degradedReason?: string } };
  /** The time certificates' days left are counted from (default: the system clock). */
  clock?: RuntimeClock;
  /** The overrides in force (ledger/operations-feed.ts), shown under each endpoint. */
  overrides?: { active(): OverrideRecord[] };
  /** DNS's decision log (dns/decisions.ts) and how it samples. */
  decisions?: { decisions(q: DecisionQuery): DecisionRecord[]; sample: number; capacity: number };
}

/** The running server's reports. Each waits until DNS serves every committed change first (settle). */
export class Reports implements RuntimeReports {
  constructor(private readonly deps: ReportsOptions) {}

  decisions(q: DecisionQuery): DecisionsReport {
    const d = this.deps.decisions;
    return { decisions: d?.decisions(q) ?? [], sample: d?.sample ?? 0, capacity: d?.capacity ?? 0 };
  }

  async status(stored: StoredProfile): Promise<ProfileStatusReport> {
    const { pipeline, ledger } = this.deps;
    await pipeline.settle();
    const name = stored.profile.name;
    return statusReport({
      snapshot: pipeline.snapshot(),
      zone: this.deps.zone,
      revision: pipeline.servedRevision(),
      profile: pipeline.stored(name) ?? stored,
      probes: ledger.statuses(name),
      history: ledger.historyOf(name),
      extras: { pushed: ledger.pushed, now: (this.deps.clock ?? systemClock).now() },
      ...(this.deps.overrides ? { overrides: this.deps.overrides.active().filter((o) => o.profile === name) } : {}),
      // This location's own verdicts (what probing says here); pushed health is applied on top (health-report.ts).
      ...(this.deps.cluster
        ? {
            verdicts: ledger.ownVerdicts(),
            cluster: { aggregate: ledger.probeVerdicts(), locations: (key: string) => ledger.locations(key) ?? [] },
          }
        : { verdicts: ledger.ownVerdicts() }),
    });
  }

  async resolve(q: ResolveRequest): Promise<ResolveResult> {
    await this.deps.pipeline.settle();
    return resolveReport(this.deps.pipeline.snapshot(), q, this.deps.rng, this.deps.pipeline.servedRevision());
  }

  async health(): Promise<HealthReport> {
    const lag = { ...(await this.deps.pipeline.lag()), zone: this.deps.zone };
    if (!this.deps.cluster) return lag;
    const c = this.deps.cluster.healthz();
    if (c.degradedReason === undefined) return { ...lag, cluster: c.body };
    return { ...lag, degraded: true, reason: lag.degraded ? `${c.degradedReason}; ${lag.reason}` : c.degradedReason, cluster: c.body };
  }

  traffic(stored: StoredProfile, since: number): TrafficReport {
    return this.deps.traffic.report(stored, since);
  }

  /** The routing map now, with the `down` endpoints (names of the profile, or child/endpoint paths) Degraded. */
  async preview(stored: StoredProfile, down: string[]): Promise<PreviewReport> {
    const { pipeline } = this.deps;
    await pipeline.settle();
    const name = stored.profile.name;
    const verdicts = this.deps.ledger.verdicts();
    const keys = new Set(down.map((d) => (d.includes('/') ? d : `${name}/${d}`)));
    const health: HealthView = { verdict: (p, e) => (keys.has(`${p}/${e}`) ? 'Degraded' : verdicts.get(`${p}/${e}`)) };
    const profiles = new Map(pipeline.profiles().map((p) => [p.name, p]));
    const rows = routingMap({ name, profiles, geo: this.deps.geo, health, resources: pipeline.catalog(), latency: pipeline.latency() });
    return { profile: name, trafficRoutingMethod: stored.profile.trafficRoutingMethod, down, rows };
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();

export interface StatusInputs {
  snapshot: CompiledSnapshot;
  zone: string;
  revision: number;
  profile: StoredProfile;
  /** The prober's state of the profile's endpoints. */
  probes: EndpointProbeStatus[];
  /** Effective verdicts (with carried-over ones), by `profile/endpoint`. */
  verdicts: Map<string, ProbeVerdict>;
  /** The profile's endpoints' recent transitions (the previous run's and maintenance ones included), oldest first. */
  history: readonly LedgerTransition[];
  /**
   * Cluster mode: `verdicts` are this location's, `aggregate` what DNS uses (over every live location), and
   * `locations` each location's verdict of an endpoint.
   */
  cluster?: { aggregate: Map<string, ProbeVerdict>; locations: (key: string) => LocationVerdictReport[] };
  /** Pushed health and certificate warnings (ledger/health-report.ts); absent: none. */
  extras?: HealthExtras;
  /** The profile's overrides in force. */
  overrides?: OverrideRecord[];
}

/**
 * Transitions listed oldest first, newest first. Reversed before the (stable) sort: two in the same millisecond
 * (enabled again, and a probe of a closed port failing at once) keep their order, the later one first.
 */
export function newestFirst<T extends { at: number }>(oldestFirst: readonly T[]): T[] {
  return [...oldestFirst].reverse().sort((a, b) => b.at - a.at);
}

/** A profile's monitor status (Azure's statuses, derived by core), each endpoint's last probe, recent transitions. */
export function statusReport(i: StatusInputs): ProfileStatusReport {
  const name = i.profile.profile.name;
  const current = i.profile;
  const report = profileMonitorStatuses(i.snapshot, name);
  const probes = new Map(i.probes.map((s) => [s.endpoint, s]));
  const history = newestFirst(i.history).slice(0, 100);
  return {
    name,
    stack: current.stack,
    etag: current.etag,
    revision: i.revision,
    fqdn: profileFqdn(current.profile.dnsConfig.relativeName, i.zone),
    profileStatus: current.profile.profileStatus,
    profileMonitorStatus: report?.profileMonitorStatus ?? 'CheckingEndpoints',
    allDegradedFallback: report?.allDegradedFallback ?? false,
    ...(current.profile.failback ? { failback: { ...current.profile.failback } } : {}),
    endpoints: current.profile.endpoints.map((e) => {
      const r = report?.endpoints.find((x) => x.name === e.name);
      const s = probes.get(e.name);
      const overrides = i.overrides?.filter((o) => o.endpoint === e.name) ?? [];
      const weight = overrides.find((o) => o.kind === 'weight')?.weight;
      const own = s ? (i.verdicts.get(s.key) ?? s.verdict) : undefined;
      const verdict = s && i.cluster ? (i.cluster.aggregate.get(s.key) ?? own) : own;
      const extra = s && i.extras ? endpointHealthExtras(i.extras, s, verdict) : undefined;
      return {
        name: e.name,
        type: e.type,
        ...(e.target !== undefined ? { target: e.target } : {}),
        ...(e.targetResourceId !== undefined ? { targetResourceId: e.targetResourceId } : {}),
        endpointStatus: e.endpointStatus,
        endpointMonitorStatus: r?.endpointMonitorStatus ?? 'CheckingEndpoint',
        reason: extra?.reason ?? r?.reason ?? '',
        probed: s !== undefined,
        ...(overrides.length > 0 ? { overrides } : {}),
        ...(weight !== undefined ? { effectiveWeight: weight } : {}),
        ...(s
          ? {
              verdict: extra?.verdict ?? verdict,
              ...(own !== s.verdict ? { verdictCarriedOver: true } : {}),
              consecutiveFailures: s.consecutiveFailures,
              since: iso(s.since),
              location: s.location,
              ...(i.cluster ? { locations: i.cluster.locations(s.key) } : {}),
              ...(s.lastProbe
                ? {
                    lastProbe: {
                      at: iso(s.lastProbe.at),
                      ok: s.lastProbe.ok,
                      reason: s.lastProbe.reason,
                      latencyMs: Math.round(s.lastProbe.latencyMs * 10) / 10,
                      ...(s.lastProbe.stalledMs !== undefined ? { stalledMs: Math.round(s.lastProbe.stalledMs) } : {}),
                      ...(s.lastProbe.statusCode !== undefined ? { statusCode: s.lastProbe.statusCode } : {}),
                      ...(s.lastProbe.address !== undefined ? { address: s.lastProbe.address } : {}),
                      ...(extra?.certificate ? { certificate: extra.certificate } : {}),
                      ...(s.lastProbe.checks
                        ? {
                            checks: s.lastProbe.checks.map((c) => ({
                              name: c.name,
                              ok: c.ok,
                              reason: c.reason,
                              ...(c.statusCode !== undefined ? { statusCode: c.statusCode } : {}),
                              latencyMs: Math.round(c.latencyMs * 10) / 10,
                              mustBeHealthy: c.mustBeHealthy,
                              monitoringOnly: c.monitoringOnly,
                              consecutiveFailures: c.consecutiveFailures,
                            })),
                          }
                        : {}),
                    },
                  }
                : {}),
              ...(extra?.fields ?? {}),
            }
          : {}),
      };
    }),
    transitions: history.map((t) => ({
      at: iso(t.at),
      endpoint: t.endpoint,
      from: t.from,
      to: t.to,
      reason: t.reason,
      location: t.location,
      ...(t.source ? { source: t.source } : {}),
    })),
  };
}

/** The answer DNS would give now (one sampled), every outcome with its probability, and why. */
export function resolveReport(
  snapshot: CompiledSnapshot,
  q: { name: string; type: string; clientIp: string },
  rng: Rng,
  revision: number,
): ResolveResult {
  const query = { name: q.name, type: q.type, clientAddress: q.clientIp };
  const all = resolve(snapshot, query);
  const one = answer(snapshot, query, rng);
  return {
    query: { name: q.name, type: q.type, clientIp: q.clientIp },
    rcode: one.rcode,
    records: one.records,
    ...(one.profile !== undefined ? { profile: one.profile } : {}),
    endpoints: one.endpoints,
    outcomes: all.outcomes,
    clientDependent: all.clientDependent,
    explanation: all.explanation,
    revision,
  };
}
