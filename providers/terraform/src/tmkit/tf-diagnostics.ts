/**
 * tmkit diagnostics → Terraform diagnostics (see convert.ts): ARM paths relative to a profile or an endpoint
 * as Terraform attribute paths, and the advice Terraform users need for some rules.
 */
import type { Diagnostic as CoreDiagnostic } from '../../../../src/core/diagnostics';
import { error, warning, type AttributePath, type Diagnostic, type PathStep } from '../tfprotov6';

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
  checks: 'check',
  quorum: 'quorum',
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
const PERFORMANCE_LATENCY_NAMES: Record<string, string> = { source: 'source', toleranceMs: 'tolerance_ms', minSamples: 'min_samples' };
const ITEM_NAMES: Record<string, string> = { first: 'first', last: 'last', scope: 'scope', name: 'name', value: 'value' };

/** The profile's single blocks (a list of one in Terraform): the ARM property → the block and its names. */
const SINGLE_BLOCKS: Record<string, { attribute: string; names: Record<string, string> }> = {
  dnsConfig: { attribute: 'dns_config', names: DNS_NAMES },
  monitorConfig: { attribute: 'monitor_config', names: MONITOR_NAMES },
  failback: { attribute: 'failback', names: FAILBACK_NAMES },
  performanceLatency: { attribute: 'performance_latency', names: PERFORMANCE_LATENCY_NAMES },
};

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
    const block = kind === 'profile' && i === 0 ? SINGLE_BLOCKS[s.prop] : undefined;
    if (block !== undefined) {
      out.push({ attribute: block.attribute }, { index: 0 });
      names = block.names;
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
    'To swap the priorities of two endpoints, move one of them to a free priority first and apply, ' +
    'then give the other its old priority (as with azurerm).',
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
