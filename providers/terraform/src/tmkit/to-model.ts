/**
 * Terraform values → tmkit's ARM-named model (see convert.ts): tmkit_profile and the tmkit_*_endpoint
 * resources (config, plan or state) as profile settings, endpoints or a whole profile, with the ARM paths of
 * the values that are unknown yet and the problems found on the way.
 */
import { parseEndpointType } from '../../../../src/core/model/names';
import type { EndpointInput, EndpointType, MonitorCheckInput, MonitorConfigInput, ProfileInput } from '../../../../src/core/model/types';
import type { ProfileSettingsInput } from '../../../../src/client/resources';
import { isObject, isUnknown, PreciseNumber, type Value, type ValueObject } from '../cty';
import { error, type Diagnostic } from '../tfprotov6';

export type Obj = ValueObject;

/** The stack a Terraform configuration owns when the provider block names none. */
export const DEFAULT_TERRAFORM_STACK = 'terraform';

/** A JS number from a cty number (undefined for null, the Unknown itself for unknown). */
export function num(v: Value | undefined): number | undefined {
  if (v === null || v === undefined || isUnknown(v)) return undefined;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof PreciseNumber) return Number(v.text);
  return undefined;
}
const str = (v: Value | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const bool = (v: Value | undefined): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
const known = (v: Value | undefined): boolean => v !== null && v !== undefined && !isUnknown(v);
/** The first element of a list block (dns_config, monitor_config), undefined when absent or unknown. */
export function first(v: Value | undefined): Obj | undefined {
  return Array.isArray(v) && isObject(v[0]) ? v[0] : undefined;
}
const blocks = (v: Value | undefined): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

export interface Converted<T> {
  value: T;
  /** ARM paths (relative to the profile or endpoint) whose value is unknown. */
  unknown: string[];
  /** Problems found while converting (e.g. a malformed status code range), with Terraform paths. */
  problems: Diagnostic[];
}

/** `"200-299"` or `"200"` → {min, max}; undefined when malformed. */
export function parseStatusRange(s: string): { min: number; max: number } | undefined {
  const m = /^\s*(\d{3})\s*(?:-\s*(\d{3})\s*)?$/.exec(s);
  if (!m) return undefined;
  return { min: Number(m[1]), max: Number(m[2] ?? m[1]) };
}

function headers(list: Value | undefined, unknown: string[], at: string): Array<{ name: string; value: string }> | undefined {
  if (isUnknown(list)) {
    unknown.push(at);
    return undefined;
  }
  const out: Array<{ name: string; value: string }> = [];
  blocks(list).forEach((h, i) => {
    if (!known(h.name) || !known(h.value)) unknown.push(`${at}[${i}]`);
    out.push({ name: str(h.name) ?? '', value: str(h.value) ?? '' });
  });
  return out.length > 0 ? out : undefined;
}

/** tmkit_profile (config, plan or state) → the profile's settings in ARM names. */
export function profileSettingsFromTf(o: Obj): Converted<ProfileSettingsInput> {
  const unknown: string[] = [];
  const problems: Diagnostic[] = [];
  const pick = <T>(tf: string, arm: string, get: (v: Value | undefined) => T | undefined): T | undefined => {
    const v = o[tf];
    if (isUnknown(v)) unknown.push(arm);
    return get(v);
  };
  const out: ProfileSettingsInput = {
    name: pick('name', 'name', str) ?? '',
    trafficRoutingMethod: (pick('traffic_routing_method', 'trafficRoutingMethod', str) ?? '') as ProfileInput['trafficRoutingMethod'],
    dnsConfig: { relativeName: '' },
  };
  const status = pick('profile_status', 'profileStatus', str);
  if (status !== undefined) out.profileStatus = status as ProfileInput['profileStatus'];
  const tv = pick('traffic_view_enabled', 'trafficViewEnrollmentStatus', bool);
  if (tv !== undefined) out.trafficViewEnrollmentStatus = tv ? 'Enabled' : 'Disabled';
  const mr = pick('max_return', 'maxReturn', num);
  if (mr !== undefined) out.maxReturn = mr;
  const tags = o.tags;
  if (isUnknown(tags)) unknown.push('tags');
  else if (isObject(tags)) {
    out.tags = {};
    for (const [k, v] of Object.entries(tags)) {
      if (isUnknown(v)) unknown.push('tags');
      else if (typeof v === 'string') out.tags[k] = v;
    }
  }
  const dnsList = o.dns_config;
  const dns = first(dnsList);
  if (isUnknown(dnsList) || (Array.isArray(dnsList) && isUnknown(dnsList[0] as Value))) unknown.push('dnsConfig');
  if (dns) {
    if (isUnknown(dns.relative_name)) unknown.push('dnsConfig.relativeName');
    if (isUnknown(dns.ttl)) unknown.push('dnsConfig.ttl');
    out.dnsConfig = { relativeName: str(dns.relative_name) ?? '', ...(num(dns.ttl) !== undefined ? { ttl: num(dns.ttl)! } : {}) };
  }
  const monList = o.monitor_config;
  if (isUnknown(monList)) unknown.push('monitorConfig');
  const mon = first(monList);
  if (mon) {
    const m: MonitorConfigInput = {};
    const field = (tf: string, arm: keyof MonitorConfigInput, get: (v: Value | undefined) => unknown): void => {
      if (isUnknown(mon[tf])) unknown.push(`monitorConfig.${arm}`);
      const v = get(mon[tf]);
      if (v !== undefined) (m as Record<string, unknown>)[arm] = v;
    };
    field('protocol', 'protocol', str);
    field('port', 'port', num);
    field('path', 'path', str);
    field('interval_in_seconds', 'intervalInSeconds', num);
    field('timeout_in_seconds', 'timeoutInSeconds', num);
    field('tolerated_number_of_failures', 'toleratedNumberOfFailures', num);
    field('certificate_validation', 'certificateValidation', str);
    field('ca_certificates', 'caCertificates', str);
    field('certificate_expiry_warning_days', 'certificateExpiryWarningDays', num);
    field('degraded_latency_ms', 'degradedLatencyMs', num);
    field('quorum', 'quorum', num);
    const checks = mon.check;
    if (isUnknown(checks)) unknown.push('monitorConfig.checks');
    else if (Array.isArray(checks) && checks.length > 0) {
      m.checks = checks.map((raw, i): MonitorCheckInput => {
        const c = (isObject(raw) ? raw : {}) as Obj;
        const k: MonitorCheckInput = { name: str(c.name) ?? '' };
        for (const [tf, arm, get] of [
          ['name', 'name', str],
          ['protocol', 'protocol', str],
          ['port', 'port', num],
          ['path', 'path', str],
          ['must_be_healthy', 'mustBeHealthy', bool],
          ['monitoring_only', 'monitoringOnly', bool],
        ] as const) {
          if (isUnknown(c[tf])) unknown.push(`monitorConfig.checks[${i}].${arm}`);
          const v = (get as (x: Value | undefined) => unknown)(c[tf]);
          if (v !== undefined) (k as unknown as Record<string, unknown>)[arm] = v;
        }
        const r = c.expected_status_code_ranges;
        if (isUnknown(r)) unknown.push(`monitorConfig.checks[${i}].expectedStatusCodeRanges`);
        else if (Array.isArray(r)) {
          k.expectedStatusCodeRanges = [];
          r.forEach((x, j) => {
            const p = typeof x === 'string' ? parseStatusRange(x) : undefined;
            if (p) k.expectedStatusCodeRanges!.push(p);
            else if (!isUnknown(x))
              problems.push(
                error(
                  `check ${JSON.stringify(k.name)}: expected_status_code_ranges[${j}] ${JSON.stringify(x)} is not a status code range`,
                  'Write a range as "MIN-MAX" with three-digit codes, e.g. "200-299", or one code such as "301".',
                  [
                    { attribute: 'monitor_config' },
                    { index: 0 },
                    { attribute: 'check' },
                    { index: i },
                    { attribute: 'expected_status_code_ranges' },
                    { index: j },
                  ],
                ),
              );
          });
        }
        return k;
      });
    }
    const h = headers(mon.custom_header, unknown, 'monitorConfig.customHeaders');
    if (h) m.customHeaders = h;
    const ranges = mon.expected_status_code_ranges;
    if (isUnknown(ranges)) unknown.push('monitorConfig.expectedStatusCodeRanges');
    else if (Array.isArray(ranges)) {
      const parsed: Array<{ min: number; max: number }> = [];
      ranges.forEach((r, i) => {
        if (isUnknown(r)) {
          unknown.push(`monitorConfig.expectedStatusCodeRanges[${i}]`);
          return;
        }
        const p = typeof r === 'string' ? parseStatusRange(r) : undefined;
        if (!p) {
          problems.push(
            error(
              `expected_status_code_ranges[${i}] ${JSON.stringify(r)} is not a status code range`,
              'Write a range as "MIN-MAX" with three-digit codes, e.g. "200-299", or one code such as "301".',
              [{ attribute: 'monitor_config' }, { index: 0 }, { attribute: 'expected_status_code_ranges' }, { index: i }],
            ),
          );
        } else parsed.push(p);
      });
      m.expectedStatusCodeRanges = parsed;
    }
    out.monitorConfig = m;
  }
  const fbList = o.failback;
  if (isUnknown(fbList)) unknown.push('failback');
  const fb = first(fbList);
  if (fb) {
    const f: NonNullable<ProfileInput['failback']> = {};
    for (const [tf, arm, get] of [
      ['mode', 'mode', str],
      ['successes_to_recover', 'successesToRecover', num],
      ['hold_down_seconds', 'holdDownSeconds', num],
    ] as const) {
      if (isUnknown(fb[tf])) unknown.push(`failback.${arm}`);
      const v = (get as (x: Value | undefined) => unknown)(fb[tf]);
      if (v !== undefined) (f as Record<string, unknown>)[arm] = v;
    }
    out.failback = f;
  }
  const plList = o.performance_latency;
  if (isUnknown(plList)) unknown.push('performanceLatency');
  const pl = first(plList);
  if (pl) {
    const l: NonNullable<ProfileInput['performanceLatency']> = {};
    for (const [tf, arm, get] of [
      ['source', 'source', str],
      ['tolerance_ms', 'toleranceMs', num],
      ['min_samples', 'minSamples', num],
    ] as const) {
      if (isUnknown(pl[tf])) unknown.push(`performanceLatency.${arm}`);
      const v = (get as (x: Value | undefined) => unknown)(pl[tf]);
      if (v !== undefined) (l as Record<string, unknown>)[arm] = v;
    }
    out.performanceLatency = l;
  }
  return { value: out, unknown, problems };
}

/** A tmkit_*_endpoint (config, plan or state) → one endpoint in ARM names. */
export function endpointFromTf(o: Obj, type: EndpointType): Converted<EndpointInput> {
  const unknown: string[] = [];
  const out: EndpointInput = { name: str(o.name) ?? '', type };
  if (isUnknown(o.name)) unknown.push('name');
  const set = (tf: string, arm: keyof EndpointInput, get: (v: Value | undefined) => unknown): void => {
    if (!(tf in o)) return;
    if (isUnknown(o[tf])) unknown.push(arm);
    const v = get(o[tf]);
    if (v !== undefined) (out as unknown as Record<string, unknown>)[arm] = v;
  };
  set('target', 'target', str);
  set('target_resource_id', 'targetResourceId', str);
  set('weight', 'weight', num);
  set('priority', 'priority', num);
  set('enabled', 'endpointStatus', (v) => (bool(v) === undefined ? undefined : bool(v) ? 'Enabled' : 'Disabled'));
  set('always_serve_enabled', 'alwaysServe', (v) => (bool(v) === undefined ? undefined : bool(v) ? 'Enabled' : 'Disabled'));
  set('endpoint_location', 'endpointLocation', str);
  set('minimum_child_endpoints', 'minChildEndpoints', num);
  set('minimum_required_child_endpoints_ipv4', 'minChildEndpointsIPv4', num);
  set('minimum_required_child_endpoints_ipv6', 'minChildEndpointsIPv6', num);
  const geo = o.geo_mappings;
  if (isUnknown(geo)) unknown.push('geoMapping');
  else if (Array.isArray(geo)) {
    geo.forEach((g, i) => {
      if (isUnknown(g)) unknown.push(`geoMapping[${i}]`);
    });
    out.geoMapping = geo.filter((g): g is string => typeof g === 'string');
  }
  const subnets = o.subnet;
  if (isUnknown(subnets)) unknown.push('subnets');
  else {
    const list = blocks(subnets);
    if (list.length > 0) {
      out.subnets = list.map((s, i) => {
        for (const [tf, arm] of [
          ['first', 'first'],
          ['last', 'last'],
          ['scope', 'scope'],
        ] as const)
          if (isUnknown(s[tf])) unknown.push(`subnets[${i}].${arm}`);
        return {
          first: str(s.first) ?? '',
          ...(str(s.last) !== undefined ? { last: str(s.last)! } : {}),
          ...(num(s.scope) !== undefined ? { scope: num(s.scope)! } : {}),
        };
      });
    }
  }
  const h = headers(o.custom_header, unknown, 'customHeaders');
  if (h) out.customHeaders = h;
  return { value: out, unknown, problems: [] };
}

/** The inline `endpoint` blocks of a tmkit_profile (config, plan or state); [] when it has none (or they are unknown). */
export function endpointBlocks(o: Obj | null | undefined): Obj[] {
  return blocks(o?.endpoint);
}

/** An inline endpoint block's type: its `type` (default ExternalEndpoints); undefined when unknown or not a type. */
export function blockType(b: Obj): EndpointType | undefined {
  const t = b.type;
  if (t === null || t === undefined) return 'externalEndpoints';
  return typeof t === 'string' ? parseEndpointType(t) : undefined;
}

/** A tmkit_profile with inline endpoint blocks → the whole profile in ARM names (unknowns as in the two above). */
export function profileFromTf(o: Obj): Converted<ProfileInput> {
  const settings = profileSettingsFromTf(o);
  const unknown = [...settings.unknown];
  if (isUnknown(o.endpoint)) unknown.push('endpoints');
  // A block whose name is not known yet cannot be told apart from the others: left out until it is.
  const endpoints = endpointBlocks(o)
    .filter((b) => !isUnknown(b.name))
    .map((b) => {
      const c = endpointFromTf(b, blockType(b) ?? 'externalEndpoints');
      const name = c.value.name;
      if (isUnknown(b.type)) unknown.push(`endpoints[${name}].type`);
      unknown.push(...c.unknown.map((u) => `endpoints[${name}].${u}`));
      return c.value;
    });
  return { value: { ...settings.value, endpoints }, unknown, problems: settings.problems };
}
