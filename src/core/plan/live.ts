/**
 * Plans that see live health (docs/plan.md "Live health"): what the server planned against says about the
 * profiles the plan can touch — endpoints Degraded, Stopped, AwaitingFailback or overridden now, and for how
 * long; profiles in the all-degraded fallback — and a warning when the planned change leaves a profile with
 * no endpoint Online now (disabling the only Online endpoint, say). The change is judged with the core's
 * own routing: the planned profiles compiled with the live verdicts (an endpoint whose probe settings change
 * starts over, CheckingEndpoint) and the overrides in force.
 */
import type { OverrideRecord, ProfileStatusReport } from '../api';
import type { Diagnostic } from '../diagnostics';
import { probeTargets } from '../health/targets';
import type { EndpointMonitorStatus, HealthView, ProbeVerdict } from '../health/types';
import { describeOverride, endpointOverrides } from '../operations/overrides';
import type { Profile } from '../model/types';
import type { GeoLookup, ResourceCatalog } from '../ports';
import { buildSnapshot } from '../routing/snapshot';
import { plannedProfiles } from './diff';
import type { DeployedProfile, Plan } from './types';

/** What a client read from the server for the plan (client/deploy.ts). */
export interface LiveHealthInput {
  /** ISO time it was read. */
  at: string;
  /** Status reports of the deployed profiles in the plan's scope. */
  statuses: ProfileStatusReport[];
  /** The overrides in force. */
  overrides: OverrideRecord[];
  /** Why some profiles' health was not read (too many), when so. */
  unread?: string;
}

export interface LiveEndpointRow {
  profile: string;
  endpoint: string;
  status: EndpointMonitorStatus;
  /** ISO time of the last verdict change, and how long ago (seconds) from `at`. */
  since?: string;
  seconds?: number;
  reason: string;
  /** The overrides in force on it, one line each. */
  overrides: string[];
}

/** The "Live health" section of a plan. */
export interface LiveHealthReport {
  at: string;
  endpoints: LiveEndpointRow[];
  /** Profiles answering in the all-degraded fallback now. */
  fallback: string[];
  unread?: string;
}

const NO_GEO: GeoLookup = { locate: () => undefined, latencyMs: () => undefined };
const NOTABLE = new Set<EndpointMonitorStatus>(['Degraded', 'Stopped', 'AwaitingFailback']);
const online = (s: EndpointMonitorStatus): boolean => s === 'Online' || s === 'Unmonitored';

/** The section, and the warnings about profiles the change leaves with no endpoint Online now. */
export function liveHealth(
  plan: Plan,
  deployed: readonly DeployedProfile[],
  live: LiveHealthInput,
  resources?: ResourceCatalog,
): { report: LiveHealthReport; warnings: Diagnostic[] } {
  const at = Date.parse(live.at);
  const endpoints: LiveEndpointRow[] = [];
  const fallback: string[] = [];
  for (const s of [...live.statuses].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (s.allDegradedFallback) fallback.push(s.name);
    for (const e of s.endpoints) {
      const overrides = (e.overrides ?? []).map(describeOverride);
      if (!NOTABLE.has(e.endpointMonitorStatus) && overrides.length === 0) continue;
      endpoints.push({
        profile: s.name,
        endpoint: e.name,
        status: e.endpointMonitorStatus,
        reason: e.reason,
        overrides,
        ...(e.since ? { since: e.since, seconds: Math.max(0, Math.round((at - Date.parse(e.since)) / 1000)) } : {}),
      });
    }
  }
  const report: LiveHealthReport = { at: live.at, endpoints, fallback, ...(live.unread ? { unread: live.unread } : {}) };
  return { report, warnings: noOnlineWarnings(plan, deployed, live, resources) };
}

/** Verdicts by `profile/endpoint` from the status reports (the aggregate, what DNS uses). */
function liveVerdicts(live: LiveHealthInput): Map<string, ProbeVerdict> {
  const out = new Map<string, ProbeVerdict>();
  for (const s of live.statuses)
    for (const e of s.endpoints) if (e.probed && e.verdict !== undefined) out.set(`${s.name}/${e.name}`, e.verdict as ProbeVerdict);
  return out;
}

function noOnlineWarnings(
  plan: Plan,
  deployed: readonly DeployedProfile[],
  live: LiveHealthInput,
  resources?: ResourceCatalog,
): Diagnostic[] {
  const before = new Map<string, Profile>(deployed.map((d) => [d.profile.name, d.profile]));
  const after = plannedProfiles(plan, deployed);
  const verdicts = liveVerdicts(live);
  const overrides = endpointOverrides(live.overrides, Date.parse(live.at));
  const catalog = resources ?? new Map();
  // After the change an endpoint keeps its live verdict only if its probe settings stay the same.
  const was = new Map(probeTargets([...before.values()], catalog).map((t) => [t.key, t.fingerprint]));
  const kept = new Set(
    probeTargets([...after.values()], catalog)
      .filter((t) => was.get(t.key) === t.fingerprint)
      .map((t) => t.key),
  );
  const health = (keep: (k: string) => boolean): HealthView => ({
    verdict: (p, e) => (keep(`${p}/${e}`) ? verdicts.get(`${p}/${e}`) : undefined),
    override: (p, e) => overrides.get(`${p}/${e}`),
  });
  const snap = (profiles: Map<string, Profile>, h: HealthView) =>
    buildSnapshot({ zone: 'plan.invalid', profiles: profiles.values(), geo: NO_GEO, health: h, resources: catalog });
  const now = snap(
    before,
    health(() => true),
  );
  const next = snap(
    after,
    health((k) => kept.has(k)),
  );
  const reported = new Set(live.statuses.map((s) => s.name));
  const out: Diagnostic[] = [];
  for (const c of plan.changes) {
    if (c.action === 'no-op' || c.action === 'delete' || !reported.has(c.profile)) continue;
    const b = now.compiled.get(c.profile.toLowerCase());
    const a = next.compiled.get(c.profile.toLowerCase());
    if (!a || !b) continue;
    const onlineBefore = b.endpoints.filter((e) => online(e.status)).map((e) => e.endpoint.name);
    if (onlineBefore.length === 0 || a.endpoints.some((e) => online(e.status))) continue;
    // In the profile's own endpoint order (the compiled profile orders them for routing).
    const status = new Map(a.endpoints.map((e) => [e.endpoint.name, e.status]));
    const order = after.get(c.profile)?.endpoints.map((e) => e.name) ?? [...status.keys()];
    const left =
      order
        .filter((n) => status.has(n))
        .map((n) => `${n} ${status.get(n)!}`)
        .join(', ') || 'no endpoints';
    out.push({
      severity: 'warning',
      code: 'LIVE_NO_ONLINE_ENDPOINT',
      path: `profiles[${c.profile}]`,
      message:
        `with the live health now, this change leaves profile ${c.profile} with no ` +
        `endpoint Online (Online now: ${onlineBefore.join(', ')}; after: ${left})`,
      hint: 'apply it when another endpoint is Online, or keep an Online endpoint enabled',
    });
  }
  return out;
}

/** "3m12s" for a row's age. */
export function ageText(seconds: number | undefined): string {
  if (seconds === undefined) return '';
  const m = Math.floor(seconds / 60);
  const h = Math.floor(m / 60);
  return h > 0 ? `${h}h${m % 60}m` : m > 0 ? `${m}m${seconds % 60}s` : `${seconds}s`;
}
