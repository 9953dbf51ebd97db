/**
 * Terraform values ↔ tmkit's ARM-named model, and tmkit diagnostics → Terraform diagnostics with attribute
 * paths. Pure (no client): the resources (./resources) and `tmkit plan --from-terraform` (./from-plan) use it.
 *
 * From Terraform: unknown values ("known after apply") are left out of the ARM input and their ARM paths are
 * returned, so validation of a partly unknown configuration drops what it cannot judge yet.
 * To Terraform: the state is built from what the runtime stored, keeping the configuration's spelling
 * where the runtime normalized an equivalent value (`West Europe` stored as `westeurope`, `200` as
 * `200-200`), and an empty list where the configuration had none as null, so a plan always agrees with
 * what apply stores.
 */
import { findAzureRegion } from '../../../../src/core/data';
import type { Diagnostic as CoreDiagnostic } from '../../../../src/core/diagnostics';
import { childProfileName, parseEndpointType } from '../../../../src/core/model/names';
import { DEFAULTS } from '../../../../src/core/model/normalize';
import type { Endpoint, EndpointInput, EndpointType, MonitorConfigInput, ProfileInput } from '../../../../src/core/model/types';
import { idEndpointType, TERRAFORM_IDS } from '../../../../src/client/ids';
import type { ProfileSettings, ProfileSettingsInput } from '../../../../src/client/resources';
import { isObject, isUnknown, PreciseNumber, type Value, type ValueObject } from '../cty';
import { error, warning, type AttributePath, type Diagnostic, type PathStep } from '../tfprotov6';

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

// ------------------------------------------------------------------------------------------ to state

/** Two region spellings of the same Azure region (`West Europe` = `westeurope`). */
export function sameLocation(a: string, b: string): boolean {
  const ca = findAzureRegion(a)?.name ?? a.toLowerCase();
  const cb = findAzureRegion(b)?.name ?? b.toLowerCase();
  return ca === cb;
}

/** The configuration's spelling when it means what the runtime stored, else the stored value. */
function keep(stored: string | null, base: Value | undefined, same: (a: string, b: string) => boolean): string | null {
  if (stored !== null && typeof base === 'string' && same(base, stored)) return base;
  return stored;
}

/** An empty stored list is null when the base (plan or prior state) has null there. */
function list<T extends Value>(stored: T[] | undefined, base: Value | undefined): T[] | null {
  if (stored === undefined || stored.length === 0) return Array.isArray(base) && base.length === 0 ? [] : null;
  return stored;
}

const headersState = (h: Array<{ name: string; value: string }>): Obj[] => h.map((x) => ({ name: x.name, value: x.value }));

/** True when the monitor settings are exactly tmkit's defaults (what a profile without monitor_config gets). */
function defaultMonitor(m: ProfileSettings['monitorConfig']): boolean {
  return (
    m.protocol === DEFAULTS.protocol &&
    m.port === DEFAULTS.portHttp &&
    m.path === DEFAULTS.path &&
    m.intervalInSeconds === DEFAULTS.intervalInSeconds &&
    m.timeoutInSeconds === DEFAULTS.timeoutFor(DEFAULTS.intervalInSeconds) &&
    m.toleratedNumberOfFailures === DEFAULTS.toleratedNumberOfFailures &&
    m.customHeaders.length === 0 &&
    m.expectedStatusCodeRanges.length === 0 &&
    m.certificateValidation === undefined &&
    m.caCertificates === undefined &&
    m.certificateExpiryWarningDays === undefined &&
    m.degradedLatencyMs === undefined
  );
}

/**
 * tmkit_profile state from the stored settings. `base` is the plan (after create/update) or the prior state
 * (read); `full` (import) always writes the monitor_config block.
 */
export function profileState(s: ProfileSettings, o: { id: string; fqdn: string; base: Obj | null; full?: boolean }): Obj {
  const b = o.base ?? {};
  const bm = first(b.monitor_config);
  const noBlock = !o.full && Array.isArray(b.monitor_config) && b.monitor_config.length === 0 && defaultMonitor(s.monitorConfig);
  const m = s.monitorConfig;
  return {
    id: o.id,
    name: s.name,
    profile_status: s.profileStatus,
    traffic_routing_method: s.trafficRoutingMethod,
    fqdn: o.fqdn,
    traffic_view_enabled: s.trafficViewEnrollmentStatus === 'Enabled',
    max_return: s.maxReturn ?? null,
    tags: s.tags && Object.keys(s.tags).length > 0 ? { ...s.tags } : isObject(b.tags) && Object.keys(b.tags).length === 0 ? {} : null,
    dns_config: [{ relative_name: s.dnsConfig.relativeName, ttl: s.dnsConfig.ttl }],
    monitor_config: noBlock
      ? []
      : [
          {
            protocol: m.protocol,
            port: m.port,
            path: m.path ?? null,
            interval_in_seconds: m.intervalInSeconds,
            timeout_in_seconds: m.timeoutInSeconds,
            tolerated_number_of_failures: m.toleratedNumberOfFailures,
            expected_status_code_ranges: list(
              m.expectedStatusCodeRanges.map((r, i) => {
                const spelled = Array.isArray(bm?.expected_status_code_ranges) ? bm!.expected_status_code_ranges[i] : undefined;
                const p = typeof spelled === 'string' ? parseStatusRange(spelled) : undefined;
                return p && p.min === r.min && p.max === r.max ? (spelled as string) : `${r.min}-${r.max}`;
              }),
              bm?.expected_status_code_ranges,
            ),
            custom_header: headersState(m.customHeaders),
            certificate_validation: m.certificateValidation ?? null,
            ca_certificates: m.caCertificates ?? null,
            certificate_expiry_warning_days: m.certificateExpiryWarningDays ?? null,
            degraded_latency_ms: m.degradedLatencyMs ?? null,
          },
        ],
    failback: s.failback
      ? [{ mode: s.failback.mode, successes_to_recover: s.failback.successesToRecover, hold_down_seconds: s.failback.holdDownSeconds }]
      : [],
    endpoint: [],
    timeouts: isObject(b.timeouts) ? b.timeouts : null,
  };
}

/** A tmkit_*_endpoint state from the stored endpoint (see profileState for `base`). */
export function endpointState(e: Endpoint, o: { id: string; profileId: string; base: Obj | null }): Obj {
  const b = o.base ?? {};
  const out: Obj = {
    id: o.id,
    name: e.name,
    profile_id: typeof b.profile_id === 'string' ? b.profile_id : o.profileId,
    weight: e.weight,
    priority: e.priority,
    enabled: e.endpointStatus === 'Enabled',
    geo_mappings: list(e.geoMapping.slice(), b.geo_mappings),
    custom_header: headersState(e.customHeaders),
    subnet: e.subnets.map((s) => ({ first: s.first, last: s.last ?? null, scope: s.scope ?? null })),
    timeouts: isObject(b.timeouts) ? b.timeouts : null,
  };
  if (e.type !== 'nestedEndpoints') out.always_serve_enabled = e.alwaysServe === 'Enabled';
  if (e.type === 'externalEndpoints') out.target = e.target ?? null;
  if (e.type === 'azureEndpoints') out.target = keep(e.target ?? null, b.target, (x, y) => x === y);
  if (e.type !== 'externalEndpoints') {
    out.target_resource_id = keep(e.targetResourceId ?? null, b.target_resource_id, (x, y) =>
      e.type === 'nestedEndpoints'
        ? childProfileName(x).toLowerCase() === childProfileName(y).toLowerCase()
        : x.toLowerCase() === y.toLowerCase(),
    );
  }
  out.endpoint_location = keep(e.endpointLocation ?? null, b.endpoint_location, sameLocation);
  if (e.type === 'nestedEndpoints') {
    out.minimum_child_endpoints = e.minChildEndpoints ?? 1;
    out.minimum_required_child_endpoints_ipv4 = e.minChildEndpointsIPv4 ?? null;
    out.minimum_required_child_endpoints_ipv6 = e.minChildEndpointsIPv6 ?? null;
  }
  return out;
}

/** The kind-specific attributes of an inline endpoint block, null unless its kind has them. */
const INLINE_NULLS: Obj = {
  target: null,
  target_resource_id: null,
  always_serve_enabled: null,
  endpoint_location: null,
  minimum_child_endpoints: null,
  minimum_required_child_endpoints_ipv4: null,
  minimum_required_child_endpoints_ipv6: null,
};

/**
 * A tmkit_profile's `endpoint` blocks from the stored endpoints, in stored order. `base` is the plan or the
 * prior state: a block of the same name there keeps its spelling (see endpointState) and its `type` spelling.
 */
export function inlineEndpointsState(stored: readonly Endpoint[], base: Obj | null): Obj[] {
  const byName = new Map(
    endpointBlocks(base)
      .filter((b) => typeof b.name === 'string')
      .map((b) => [String(b.name).toLowerCase(), b]),
  );
  return stored.map((e) => {
    const b = byName.get(e.name.toLowerCase()) ?? null;
    const { id: _id, profile_id: _p, timeouts: _t, ...attrs } = endpointState(e, { id: '', profileId: '', base: b });
    const kind = idEndpointType(e.type, TERRAFORM_IDS);
    const spelled = b && typeof b.type === 'string' && parseEndpointType(b.type) === e.type ? b.type : kind;
    return { ...INLINE_NULLS, ...attrs, type: spelled };
  });
}

// -------------------------------------------------------------------------------------- diagnostics

const PROFILE_NAMES: Record<string, string> = {
  name: 'name',
  profileStatus: 'profile_status',
  trafficRoutingMethod: 'traffic_routing_method',
  maxReturn: 'max_return',
  trafficViewEnrollmentStatus: 'traffic_view_enabled',
  tags: 'tags',
};
const DNS_NAMES: Record<string, string> = { relativeName: 'relative_name', ttl: 'ttl' };
const MONITOR_NAMES: Record<string, string> = {
  protocol: 'protocol',
  port: 'port',
  path: 'path',
  intervalInSeconds: 'interval_in_seconds',
  timeoutInSeconds: 'timeout_in_seconds',
  toleratedNumberOfFailures: 'tolerated_number_of_failures',
  customHeaders: 'custom_header',
  expectedStatusCodeRanges: 'expected_status_code_ranges',
  certificateValidation: 'certificate_validation',
  caCertificates: 'ca_certificates',
  certificateExpiryWarningDays: 'certificate_expiry_warning_days',
  degradedLatencyMs: 'degraded_latency_ms',
};
const ENDPOINT_NAMES: Record<string, string> = {
  name: 'name',
  target: 'target',
  targetResourceId: 'target_resource_id',
  endpointStatus: 'enabled',
  weight: 'weight',
  priority: 'priority',
  endpointLocation: 'endpoint_location',
  geoMapping: 'geo_mappings',
  subnets: 'subnet',
  customHeaders: 'custom_header',
  alwaysServe: 'always_serve_enabled',
  minChildEndpoints: 'minimum_child_endpoints',
  minChildEndpointsIPv4: 'minimum_required_child_endpoints_ipv4',
  minChildEndpointsIPv6: 'minimum_required_child_endpoints_ipv6',
};
const FAILBACK_NAMES: Record<string, string> = {
  mode: 'mode',
  successesToRecover: 'successes_to_recover',
  holdDownSeconds: 'hold_down_seconds',
};
const ITEM_NAMES: Record<string, string> = { first: 'first', last: 'last', scope: 'scope', name: 'name', value: 'value' };

type Seg = { prop: string } | { index: number };
function segments(rel: string): Seg[] {
  const out: Seg[] = [];
  for (const m of rel.matchAll(/\.?([A-Za-z][A-Za-z0-9]*)|\[(\d+)\]/g))
    out.push(m[1] !== undefined ? { prop: m[1] } : { index: Number(m[2]) });
  return out;
}

/** The Terraform attribute path of an ARM path relative to a profile or an endpoint; undefined when there is none. */
export function tfPath(kind: 'profile' | 'endpoint', rel: string): AttributePath | undefined {
  const segs = segments(rel);
  if (segs.length === 0) return undefined;
  const out: PathStep[] = [];
  let names = kind === 'profile' ? PROFILE_NAMES : ENDPOINT_NAMES;
  for (const [i, s] of segs.entries()) {
    if ('index' in s) {
      out.push({ index: s.index });
      names = ITEM_NAMES;
      continue;
    }
    if (kind === 'profile' && i === 0 && (s.prop === 'dnsConfig' || s.prop === 'monitorConfig' || s.prop === 'failback')) {
      out.push(
        { attribute: s.prop === 'dnsConfig' ? 'dns_config' : s.prop === 'monitorConfig' ? 'monitor_config' : 'failback' },
        { index: 0 },
      );
      names = s.prop === 'dnsConfig' ? DNS_NAMES : s.prop === 'monitorConfig' ? MONITOR_NAMES : FAILBACK_NAMES;
      continue;
    }
    const n = names[s.prop];
    if (n === undefined) break;
    out.push({ attribute: n });
  }
  return out.length > 0 ? out : undefined;
}

/** Extra advice Terraform users need for some rules (what azurerm users know from Azure). */
const ADVICE: Record<string, string> = {
  PRIORITY_DUPLICATE:
    'To swap the priorities of two endpoints, move one of them to a free priority first and apply, then give the other its old priority (as with azurerm).',
  GEO_CODE_DUPLICATE: 'To move a region between endpoints, remove it from the first endpoint and apply, then add it to the other.',
  SUBNET_OVERLAP: 'To move a range between endpoints, remove it from the first endpoint and apply, then add it to the other.',
};

/**
 * tmkit diagnostics about one profile or endpoint (`prefix` is its ARM path, e.g. `profiles[web]` or
 * `profiles[web].endpoints[a]`) as Terraform diagnostics at the matching attribute. Diagnostics under an
 * unknown path are dropped (they cannot be judged yet); `others` keeps those about other places (without
 * a Terraform path) instead of dropping them.
 */
export function tfDiagnostics(
  diags: readonly CoreDiagnostic[],
  o: { prefix: string; kind: 'profile' | 'endpoint'; unknown?: string[]; others?: boolean; subject?: string },
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const unknown = o.unknown ?? [];
  for (const d of diags) {
    const own = d.path === o.prefix || d.path.startsWith(`${o.prefix}.`) || d.path.startsWith(`${o.prefix}[`);
    if (!own && !o.others) continue;
    const rel = own ? d.path.slice(o.prefix.length).replace(/^\./, '') : '';
    if (
      own &&
      unknown.some((u) => rel === u || rel.startsWith(`${u}.`) || rel.startsWith(`${u}[`) || (u.startsWith(`${rel}.`) && rel !== ''))
    )
      continue;
    const at = own ? tfPath(o.kind, rel) : undefined;
    const detail = [
      d.hint ? `${d.hint[0]!.toUpperCase()}${d.hint.slice(1)}.` : '',
      ADVICE[d.code] ?? '',
      `(tmkit rule ${d.code}${own ? '' : ` at ${d.path}`})`,
    ]
      .filter(Boolean)
      .join(' ');
    const make = d.severity === 'error' ? error : warning;
    out.push(make(`${o.subject ? `${o.subject}: ` : ''}${d.message}`, detail, at));
  }
  return out;
}
