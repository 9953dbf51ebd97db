import type { Endpoint, MonitorConfig, MonitorHeader, Profile, StatusCodeRange, TargetKind } from '../model/types';
import type { ResourceCatalog } from '../ports';
import { AZURE_FAILBACK, type FailbackSettings } from './machine';

/**
 * One endpoint to probe, with the effective settings (profile monitorConfig + endpoint overrides).
 * Property names follow ARM's `monitorConfig` so they read like the document.
 */
export interface ProbeTarget
  extends Pick<MonitorConfig, 'protocol' | 'port' | 'intervalInSeconds' | 'timeoutInSeconds' | 'toleratedNumberOfFailures'> {
  /** Stable identity: `profile/endpoint`. */
  key: string;
  profile: string;
  endpoint: string;
  /** Host name or IP literal (an IPv6 literal without brackets). */
  target: string;
  targetKind: TargetKind;
  /** Request path for HTTP/HTTPS (always starts with `/`); undefined for TCP. */
  path?: string;
  /**
   * Request headers for HTTP/HTTPS: profile headers overridden by endpoint headers (names compared
   * case-insensitively), plus `Host: <target>` when the target is an FQDN and no Host header was given.
   * Empty for TCP.
   */
  headers: MonitorHeader[];
  /**
   * Healthy status codes for HTTP/HTTPS **in addition to 200** (always healthy, see `statusExpected`);
   * `[{min:200,max:200}]` when the profile lists none. Empty for TCP.
   */
  expectedStatusCodeRanges: StatusCodeRange[];
  /**
   * tmkit: HTTPS probes with `certificateValidation: Enabled` check the server's certificate (docs/health.md
   * "Certificates"): its chain (to `ca`, or the system CAs), `host` (the custom Host header's name, else the
   * target) and its validity dates; `warningDays` before expiry it is warned about. Absent: any certificate.
   */
  certificate?: { host: string; ca?: string; warningDays: number };
  /** tmkit: a probe slower than this (ms) fails with `slow: …` (docs/health.md "Slow is Degraded"). */
  degradedLatencyMs?: number;
  /**
   * tmkit: composite checks (`monitorConfig.checks`, docs/health.md "Composite checks"), each with its own
   * effective settings; absent: the single probe of the settings above. Every round probes all of them.
   */
  checks?: ProbeCheck[];
  /** How many counting checks must pass (the profile's `quorum`, else all of them); with `checks` only. */
  quorum?: number;
  /**
   * How it comes back after an outage (the profile's `failback`, else Azure's). Not a probe setting: a change
   * keeps the endpoint's state (the prober hands it to the state machine as a `configure` event).
   */
  failback: FailbackSettings;
  /**
   * Every setting that changes how the endpoint is probed, as one string. When it changes the prober
   * throws the endpoint's state away and probes it again at once (its old counts no longer mean anything).
   */
  fingerprint: string;
}

/** One composite check of a target: what is probed (as a target's settings) and how its result counts. */
export interface ProbeCheck
  extends Pick<ProbeTarget, 'protocol' | 'port' | 'path' | 'headers' | 'expectedStatusCodeRanges' | 'certificate'> {
  name: string;
  mustBeHealthy: boolean;
  monitoringOnly: boolean;
}

/** The target a check probes: the endpoint's target with the check's settings (and no checks of its own). */
export function checkProbeTarget(t: ProbeTarget, c: ProbeCheck): ProbeTarget {
  const out: ProbeTarget = {
    ...t,
    protocol: c.protocol,
    port: c.port,
    headers: c.headers,
    expectedStatusCodeRanges: c.expectedStatusCodeRanges,
  };
  delete out.checks;
  delete out.quorum;
  if (c.path !== undefined) out.path = c.path;
  else delete out.path;
  if (c.certificate !== undefined) out.certificate = c.certificate;
  else delete out.certificate;
  return out;
}

/** The key of an endpoint's probe state. */
export const targetKey = (profile: string, endpoint: string): string => `${profile}/${endpoint}`;

/** targetKey's parts: the profile (before the first `/`; profile names have none) and the endpoint. */
export const splitTargetKey = (key: string): [string, string] => {
  const i = key.indexOf('/');
  return i < 0 ? [key, ''] : [key.slice(0, i), key.slice(i + 1)];
};

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6ISH = /^[0-9a-f:.]+$/i;

/** IPv4 literal, IPv6 literal (brackets allowed, stripped by the caller) or anything else (FQDN). */
export function targetKind(target: string): TargetKind {
  if (IPV4.test(target)) return 'ipv4';
  if (target.includes(':') && IPV6ISH.test(target)) return 'ipv6';
  return 'fqdn';
}

/** Only 200 is healthy when the profile lists no ranges (Azure's default; 200 is healthy with ranges too). */
export const DEFAULT_EXPECTED_STATUS: readonly StatusCodeRange[] = [{ min: 200, max: 200 }];

/**
 * Profile headers, then endpoint headers replacing same-named ones (case-insensitive), in first-seen
 * order; later duplicates within one list win as well.
 */
export function mergeHeaders(profileHeaders: readonly MonitorHeader[], endpointHeaders: readonly MonitorHeader[]): MonitorHeader[] {
  const byName = new Map<string, MonitorHeader>();
  for (const h of [...profileHeaders, ...endpointHeaders]) {
    const k = h.name.trim().toLowerCase();
    if (k === '') continue;
    const prev = byName.get(k);
    if (prev) byName.set(k, { name: prev.name, value: h.value });
    else byName.set(k, { name: h.name.trim(), value: h.value });
  }
  return [...byName.values()];
}

/** Where an endpoint points, or why it is not probed. */
type Resolution = { probe: true; target: string } | { probe: false; why: NotProbedReason };

/** Why an endpoint has no probe target (the status API and routing derive the status from config). */
export type NotProbedReason = 'profile-disabled' | 'endpoint-disabled' | 'always-serve' | 'nested' | 'resource-stopped' | 'no-target';

/*
 * Which endpoints are probed (reference/behaviors.md §4, §6, §8):
 *
 * | profileStatus | endpointStatus | alwaysServe | type     | resource (azure)         | probed? (reason if not) |
 * |---------------|----------------|-------------|----------|--------------------------|-------------------------|
 * | Disabled      | any            | any         | any      | any                      | no  (profile-disabled)  |
 * | Enabled       | Disabled       | any         | any      | any                      | no  (endpoint-disabled) |
 * | Enabled       | Enabled        | Enabled     | any      | any                      | no  (always-serve)      |
 * | Enabled       | Enabled        | Disabled    | nested   | -                        | no  (nested: derived)   |
 * | Enabled       | Enabled        | Disabled    | azure    | in catalog, stopped      | no  (resource-stopped)  |
 * | Enabled       | Enabled        | Disabled    | azure    | running, or inline target| yes                     |
 * | Enabled       | Enabled        | Disabled    | external | -                        | yes (if it has a target)|
 *
 * Azure target: the endpoint's inline `target` wins, else the catalog's; unknown id and no inline target
 * ⇒ no-target (validation reports unknown ids; the prober just has nothing to probe).
 */
export function probeDecision(profile: Profile, endpoint: Endpoint, resources: ResourceCatalog): Resolution {
  if (profile.profileStatus !== 'Enabled') return { probe: false, why: 'profile-disabled' };
  if (endpoint.endpointStatus !== 'Enabled') return { probe: false, why: 'endpoint-disabled' };
  if (endpoint.alwaysServe === 'Enabled') return { probe: false, why: 'always-serve' };
  if (endpoint.type === 'nestedEndpoints') return { probe: false, why: 'nested' };
  let target = endpoint.target?.trim();
  if (endpoint.type === 'azureEndpoints') {
    const res = endpoint.targetResourceId ? resources.get(endpoint.targetResourceId.trim().toLowerCase()) : undefined;
    if (res && res.state !== 'running') return { probe: false, why: 'resource-stopped' };
    if (!target) target = res?.target.trim();
  }
  if (!target) return { probe: false, why: 'no-target' };
  return { probe: true, target };
}

/** Days before expiry a certificate is warned about when `certificateExpiryWarningDays` is not set. */
export const DEFAULT_EXPIRY_WARNING_DAYS = 14;

/**
 * The certificate check and the latency rule of a target (tmkit extensions, docs/health.md). The name the
 * certificate must carry is the custom Host header's (without a port), else the target itself.
 */
function healthExtensions(
  m: Profile['monitorConfig'],
  target: string,
  headers: readonly MonitorHeader[],
  protocol: MonitorConfig['protocol'] = m.protocol,
): Pick<ProbeTarget, 'certificate' | 'degradedLatencyMs'> {
  const out: Pick<ProbeTarget, 'certificate' | 'degradedLatencyMs'> = {};
  if (protocol === 'HTTPS' && m.certificateValidation === 'Enabled') {
    const custom = headers.find((h) => h.name.toLowerCase() === 'host')?.value.trim() ?? '';
    const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(custom);
    const host = (bracketed ? bracketed[1]! : custom.replace(/^([^:]+):\d+$/, '$1')).replace(/\.$/, '') || target;
    out.certificate = {
      host: host.toLowerCase(),
      ...(m.caCertificates !== undefined ? { ca: m.caCertificates } : {}),
      warningDays: m.certificateExpiryWarningDays ?? DEFAULT_EXPIRY_WARNING_DAYS,
    };
  }
  if (m.degradedLatencyMs !== undefined) out.degradedLatencyMs = m.degradedLatencyMs;
  return out;
}

/** What an HTTP/HTTPS probe sends and accepts (none of it for TCP). */
function httpSettings(
  protocol: MonitorConfig['protocol'],
  rawPath: string | undefined,
  ranges: readonly StatusCodeRange[],
  profileHeaders: readonly MonitorHeader[],
  endpoint: Endpoint,
  target: string,
  kind: TargetKind,
): { headers: MonitorHeader[]; expectedStatusCodeRanges: StatusCodeRange[]; path?: string } {
  if (protocol === 'TCP') return { headers: [], expectedStatusCodeRanges: [] };
  const headers = mergeHeaders(profileHeaders, endpoint.customHeaders);
  if (kind === 'fqdn' && !headers.some((h) => h.name.toLowerCase() === 'host')) headers.push({ name: 'Host', value: target });
  const expectedStatusCodeRanges =
    ranges.length > 0 ? ranges.map((r) => ({ min: r.min, max: r.max })) : DEFAULT_EXPECTED_STATUS.map((r) => ({ ...r }));
  const p = rawPath ?? '/';
  return { headers, expectedStatusCodeRanges, path: p.startsWith('/') ? p : `/${p}` };
}

/** The effective probe settings for one endpoint that is probed. */
export function probeTarget(profile: Profile, endpoint: Endpoint, rawTarget: string): ProbeTarget {
  const m = profile.monitorConfig;
  const target = rawTarget.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  const kind = targetKind(target);
  const {
    headers,
    expectedStatusCodeRanges: ranges,
    path,
  } = httpSettings(m.protocol, m.path, m.expectedStatusCodeRanges, m.customHeaders, endpoint, target, kind);
  const checks = m.checks?.map((c): ProbeCheck => {
    const http = httpSettings(c.protocol, c.path, c.expectedStatusCodeRanges, m.customHeaders, endpoint, target, kind);
    const ext = healthExtensions(m, target, http.headers, c.protocol);
    return {
      name: c.name,
      protocol: c.protocol,
      port: c.port,
      ...http,
      ...(ext.certificate ? { certificate: ext.certificate } : {}),
      mustBeHealthy: c.mustBeHealthy === true,
      monitoringOnly: c.monitoringOnly === true,
    };
  });
  const t: Omit<ProbeTarget, 'fingerprint'> = {
    key: targetKey(profile.name, endpoint.name),
    profile: profile.name,
    endpoint: endpoint.name,
    target,
    targetKind: kind,
    protocol: m.protocol,
    port: m.port,
    ...(path !== undefined ? { path } : {}),
    intervalInSeconds: m.intervalInSeconds,
    timeoutInSeconds: m.timeoutInSeconds,
    toleratedNumberOfFailures: m.toleratedNumberOfFailures,
    headers,
    expectedStatusCodeRanges: ranges,
    ...healthExtensions(m, target, headers),
    ...(checks !== undefined ? { checks, quorum: m.quorum ?? checks.filter(countsTowardsQuorum).length } : {}),
    failback: profile.failback ? { ...profile.failback } : AZURE_FAILBACK,
  };
  const fingerprint = JSON.stringify([
    t.target,
    t.protocol,
    t.port,
    t.path ?? null,
    t.intervalInSeconds,
    t.timeoutInSeconds,
    t.toleratedNumberOfFailures,
    t.headers.map((h) => [h.name.toLowerCase(), h.value]),
    t.expectedStatusCodeRanges.map((r) => [r.min, r.max]),
    // Only when set, so targets without them keep the fingerprint they were saved with (no reset on upgrade).
    ...(t.certificate ? [{ certificate: t.certificate }] : []),
    ...(t.degradedLatencyMs !== undefined ? [{ degradedLatencyMs: t.degradedLatencyMs }] : []),
    ...(t.checks !== undefined ? [{ checks: t.checks, quorum: t.quorum }] : []),
  ]);
  return { ...t, fingerprint };
}

/** Does a check count towards the quorum (neither mustBeHealthy nor monitoringOnly)? */
export const countsTowardsQuorum = (c: Pick<ProbeCheck, 'mustBeHealthy' | 'monitoringOnly'>): boolean =>
  !c.mustBeHealthy && !c.monitoringOnly;

/**
 * Every endpoint the prober must probe, with its effective settings, in document order. The decision
 * table is above `probeDecision`.
 */
export function probeTargets(profiles: readonly Profile[], resources: ResourceCatalog): ProbeTarget[] {
  const out: ProbeTarget[] = [];
  for (const profile of profiles) {
    for (const endpoint of profile.endpoints) {
      const d = probeDecision(profile, endpoint, resources);
      if (d.probe) out.push(probeTarget(profile, endpoint, d.target));
    }
  }
  return out;
}

/*
 * Is an HTTP(S) probe's status healthy? (behaviors.md §8: "healthy if the status is 200 or inside
 * expectedStatusCodeRanges"; the ranges add codes, they never take 200 away):
 *
 *   status                              | ranges      | healthy?
 *   ------------------------------------+-------------+---------
 *   200                                 | any, or none| yes
 *   inside one of the (inclusive) ranges| some        | yes
 *   anything else (201, 301, 404, 503…) | any, or none| no
 *
 * The one place the rule is decided: the prober (src/runtime/monitor/probe.ts) calls it for every response.
 */
export function statusExpected(status: number, ranges: readonly StatusCodeRange[]): boolean {
  if (status === 200) return true;
  for (const r of ranges) if (status >= r.min && status <= r.max) return true;
  return false;
}
