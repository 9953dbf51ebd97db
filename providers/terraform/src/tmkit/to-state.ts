/**
 * tmkit's stored model → Terraform state (see convert.ts): built from what the runtime stored, keeping the
 * configuration's spelling where the runtime normalized an equivalent value, and an empty list where the
 * configuration had none as null.
 */
import { findAzureRegion } from '../../../../src/core/data';
import { childProfileName, parseEndpointType } from '../../../../src/core/model/names';
import { DEFAULTS } from '../../../../src/core/model/normalize';
import type { Endpoint } from '../../../../src/core/model/types';
import { idEndpointType, TERRAFORM_IDS } from '../../../../src/client/ids';
import type { ProfileSettings } from '../../../../src/client/resources';
import { isObject, type Value } from '../cty';
import { endpointBlocks, first, parseStatusRange, type Obj } from './to-model';

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
    m.degradedLatencyMs === undefined &&
    m.checks === undefined &&
    m.quorum === undefined
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
            quorum: m.quorum ?? null,
            check: (m.checks ?? []).map((c, i) => {
              const bc = Array.isArray(bm?.check) && isObject(bm!.check[i]) ? (bm!.check[i] as Obj) : undefined;
              return {
                name: c.name,
                protocol: c.protocol,
                port: c.port,
                path: c.path ?? null,
                expected_status_code_ranges: c.expectedStatusCodeRanges.map((r, j) => {
                  const spelled = Array.isArray(bc?.expected_status_code_ranges) ? bc!.expected_status_code_ranges[j] : undefined;
                  const p = typeof spelled === 'string' ? parseStatusRange(spelled) : undefined;
                  return p && p.min === r.min && p.max === r.max ? (spelled as string) : `${r.min}-${r.max}`;
                }),
                must_be_healthy: c.mustBeHealthy,
                monitoring_only: c.monitoringOnly,
              };
            }),
          },
        ],
    failback: s.failback
      ? [{ mode: s.failback.mode, successes_to_recover: s.failback.successesToRecover, hold_down_seconds: s.failback.holdDownSeconds }]
      : [],
    performance_latency: s.performanceLatency
      ? [
          {
            source: s.performanceLatency.source,
            tolerance_ms: s.performanceLatency.toleranceMs,
            min_samples: s.performanceLatency.minSamples,
          },
        ]
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
