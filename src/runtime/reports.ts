/**
 * What `GET /v1/profiles/{name}/status` and `POST /v1/resolve` answer (their shapes are the API contract in
 * core/api.ts), built from the served snapshot and the prober's state.
 */
import type { LocationVerdictReport, ProfileStatusReport, ResolveResult } from '../core/api';
import type { ProbeVerdict } from '../core/health/types';
import { profileFqdn } from '../core/model/names';
import type { Rng } from '../core/ports';
import { answer, profileStatusReport, resolve, type CompiledSnapshot } from '../core/routing';
import type { StoredProfile } from '../core/store';
import type { EndpointProbeStatus, EndpointTransition } from './monitor';

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
  /** Transitions saved by the previous run. */
  previousHistory: readonly EndpointTransition[];
  /**
   * Cluster mode: `verdicts` are this location's, `aggregate` what DNS uses (over every live location), and
   * `locations` each location's verdict of an endpoint.
   */
  cluster?: { aggregate: Map<string, ProbeVerdict>; locations: (key: string) => LocationVerdictReport[] };
}

/** A profile's monitor status (Azure's statuses, derived by core), each endpoint's last probe, recent transitions. */
export function statusReport(i: StatusInputs): ProfileStatusReport {
  const name = i.profile.profile.name;
  const current = i.profile;
  const report = profileStatusReport(i.snapshot, name);
  const probes = new Map(i.probes.map((s) => [s.endpoint, s]));
  const live = i.probes.flatMap((s) => s.history);
  const seen = new Set(live.map((t) => `${t.key}@${t.at}`));
  const history = [...i.previousHistory.filter((t) => t.profile === name && !seen.has(`${t.key}@${t.at}`)), ...live]
    .sort((a, b) => b.at - a.at).slice(0, 100);
  return {
    name,
    stack: current.stack,
    etag: current.etag,
    revision: i.revision,
    fqdn: profileFqdn(current.profile.dnsConfig.relativeName, i.zone),
    profileStatus: current.profile.profileStatus,
    profileMonitorStatus: report?.profileMonitorStatus ?? 'CheckingEndpoints',
    allDegradedFallback: report?.allDegradedFallback ?? false,
    endpoints: current.profile.endpoints.map((e) => {
      const r = report?.endpoints.find((x) => x.name === e.name);
      const s = probes.get(e.name);
      const own = s ? i.verdicts.get(s.key) ?? s.verdict : undefined;
      const verdict = s && i.cluster ? i.cluster.aggregate.get(s.key) ?? own : own;
      return {
        name: e.name,
        type: e.type,
        ...(e.target !== undefined ? { target: e.target } : {}),
        ...(e.targetResourceId !== undefined ? { targetResourceId: e.targetResourceId } : {}),
        endpointStatus: e.endpointStatus,
        endpointMonitorStatus: r?.endpointMonitorStatus ?? 'CheckingEndpoint',
        reason: r?.reason ?? '',
        probed: s !== undefined,
        ...(s ? {
          verdict,
          ...(own !== s.verdict ? { verdictCarriedOver: true } : {}),
          consecutiveFailures: s.consecutiveFailures,
          since: iso(s.since),
          location: s.location,
          ...(i.cluster ? { locations: i.cluster.locations(s.key) } : {}),
          ...(s.lastProbe ? { lastProbe: { at: iso(s.lastProbe.at), ok: s.lastProbe.ok, reason: s.lastProbe.reason, latencyMs: Math.round(s.lastProbe.latencyMs * 10) / 10, ...(s.lastProbe.statusCode !== undefined ? { statusCode: s.lastProbe.statusCode } : {}), ...(s.lastProbe.address !== undefined ? { address: s.lastProbe.address } : {}) } } : {}),
        } : {}),
      };
    }),
    transitions: history.map((t) => ({ at: iso(t.at), endpoint: t.endpoint, from: t.from, to: t.to, reason: t.reason, location: t.location })),
  };
}

/** The answer DNS would give now (one sampled), every outcome with its probability, and why. */
export function resolveReport(snapshot: CompiledSnapshot, q: { name: string; type: string; clientIp: string }, rng: Rng, revision: number): ResolveResult {
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
