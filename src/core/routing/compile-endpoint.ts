/**
 * Compiling one endpoint: what its target answers with (record kind and data, the Azure resource behind
 * it, or the child profile it nests), its monitor status and the reason for that status. The profile-level
 * facts (usable, all-degraded fallback, method indexes) are compile-profile.ts's.
 */
import { findAzureRegion } from '../data';
import { countChildEndpoints, endpointMonitorStatus, nestedEndpointStatus, type NestedStatus, type ResourceState } from '../health/status';
import type { EndpointMonitorStatus, EndpointOverride, HealthView, ProbeVerdict } from '../health/types';
import { childProfileName } from '../model/names';
import type { Endpoint, Profile } from '../model/types';
import type { ResourceCatalog } from '../ports';
import { overrideSignature } from './changes';
import type { CompiledEndpoint, CompiledProfile, EndpointKind, RecordKind } from './compiled';
import { isIPv4, isIPv6, subnetRange, type IpRange } from './ip';

/** A compiled endpoint before the profile decides whether it is usable (that needs all its siblings). */
export type PreEndpoint = Omit<CompiledEndpoint, 'usable'>;

/** What compileEndpoint read for one endpoint, for change detection (changes.ts): its verdict and override. */
export interface EndpointInputs {
  verdicts: (ProbeVerdict | undefined)[];
  /** A stable text of each endpoint's override (undefined: none). */
  overrides: (string | undefined)[];
}

/** The child profile a nested endpoint names, as the build finds it. */
export type ChildLookup =
  | { readonly kind: 'compiled'; readonly child: CompiledProfile }
  | { readonly kind: 'missing' }
  /** The child is being compiled further up this nesting chain: the endpoint nests back into itself. */
  | { readonly kind: 'loop'; readonly child: Profile };

/** What compiling an endpoint reads from the build. */
export interface EndpointEnv {
  readonly health: HealthView;
  readonly resources: ResourceCatalog;
  /** Finds the child profile named `name` (compiling it first if need be). */
  child(name: string): ChildLookup;
}

/** What an endpoint's target resolves to, before its health is read. */
interface Target {
  kind: EndpointKind;
  data?: string;
  child?: CompiledProfile;
  location?: string;
  resource?: ResourceState;
  nested?: NestedStatus;
  /** Why it cannot be answered, or what its child profile says ('' when there is nothing to say). */
  reason: string;
}

/** `s` without one trailing dot. */
export const stripDot = (s: string): string => (s.endsWith('.') ? s.slice(0, -1) : s);

function canonicalRegion(loc: string | undefined): string | undefined {
  if (loc === undefined || loc === null || String(loc).trim() === '') return undefined;
  return findAzureRegion(String(loc))?.name ?? String(loc).trim().toLowerCase();
}

function leafKind(target: string): RecordKind {
  if (isIPv4(target)) return 'A';
  if (isIPv6(target)) return 'AAAA';
  return 'CNAME';
}

function externalTarget(e: Endpoint, location: string | undefined): Target {
  const target = e.target === undefined ? '' : String(e.target).trim();
  if (target === '') return { kind: 'none', location, resource: 'missing', reason: 'endpoint has no target: cannot be answered' };
  const data = stripDot(target);
  return { kind: leafKind(data), data, location, reason: '' };
}

function azureTarget(e: Endpoint, location: string | undefined, resources: ResourceCatalog): Target {
  const id = String(e.targetResourceId ?? '');
  const res = resources.get(id.toLowerCase());
  // The catalog describes the real resource (Azure: the endpoint's region is the resource's region);
  // inline target/endpointLocation are the fallback for resources the catalog does not list.
  const target = res?.target ?? e.target;
  const where = canonicalRegion(res?.location) ?? location;
  if (target === undefined || String(target).trim() === '') {
    return {
      kind: 'none',
      location: where,
      resource: 'missing',
      reason:
        `Azure resource '${id}' is not in the resource catalog and the endpoint has ` +
        `no inline target: cannot be answered (add it to the catalog, --resources)`,
    };
  }
  const data = stripDot(String(target).trim());
  const stopped = res?.state === 'stopped';
  return {
    kind: leafKind(data),
    data,
    location: where,
    resource: stopped ? 'stopped' : 'running',
    reason: stopped ? `Azure resource '${id}' is stopped: Stopped` : '',
  };
}

/** A nested endpoint's status from its compiled child (MinChildEndpoints thresholds), and why. */
function childStatus(e: Endpoint, child: CompiledProfile): { nested: NestedStatus; reason: string } {
  const counts = countChildEndpoints(
    child.endpoints.map((c) => c.status),
    child.endpoints.map((c) => c.kind),
  );
  const min = {
    minChildEndpoints: e.minChildEndpoints ?? 1,
    ...(e.minChildEndpointsIPv4 !== undefined ? { minChildEndpointsIPv4: e.minChildEndpointsIPv4 } : {}),
    ...(e.minChildEndpointsIPv6 !== undefined ? { minChildEndpointsIPv6: e.minChildEndpointsIPv6 } : {}),
  };
  const nested = nestedEndpointStatus(child.status, counts, min);
  const name = child.profile.name;
  if (child.status === 'Disabled' || child.status === 'Inactive')
    return { nested, reason: `child profile '${name}' is ${child.status}: Stopped` };
  const thresholds = [`MinChildEndpoints=${min.minChildEndpoints}: ${counts.online} online + ${counts.checking} checking`];
  if (min.minChildEndpointsIPv4)
    thresholds.push(`MinChildEndpointsIPv4=${min.minChildEndpointsIPv4}: ${counts.onlineIPv4} online + ${counts.checkingIPv4} checking`);
  if (min.minChildEndpointsIPv6)
    thresholds.push(`MinChildEndpointsIPv6=${min.minChildEndpointsIPv6}: ${counts.onlineIPv6} online + ${counts.checkingIPv6} checking`);
  return { nested, reason: `child profile '${name}' is ${child.status}; ${thresholds.join('; ')} → ${nested}` };
}

function nestedTarget(p: Profile, e: Endpoint, location: string | undefined, env: EndpointEnv): Target {
  const childName = childProfileName(String(e.targetResourceId ?? ''));
  const found = env.child(childName);
  if (found.kind === 'missing')
    return { kind: 'nested', location, nested: 'Stopped', reason: `child profile '${childName}' does not exist: Stopped` };
  if (found.kind === 'loop') {
    return {
      kind: 'nested',
      location,
      nested: 'Stopped',
      reason: `child profile '${found.child.name}' nests back into '${p.name}' (a loop): Stopped`,
    };
  }
  return { kind: 'nested', child: found.child, location, ...childStatus(e, found.child) };
}

function resolveTarget(p: Profile, e: Endpoint, env: EndpointEnv): Target {
  const location = canonicalRegion(e.endpointLocation);
  if (e.type === 'nestedEndpoints') return nestedTarget(p, e, location, env);
  if (e.type === 'azureEndpoints') return azureTarget(e, location, env.resources);
  return externalTarget(e, location);
}

function statusReason(
  status: EndpointMonitorStatus,
  e: Endpoint,
  t: Target,
  verdict: ProbeVerdict | undefined,
  override: EndpointOverride | undefined,
): string {
  if (status === 'Disabled') return 'endpointStatus Disabled';
  if (status === 'Inactive') return 'profile Disabled: Inactive';
  if (override?.down && status === 'Degraded') return `${override.reason}: taken out of DNS`;
  if (t.reason !== '' && (status === 'Stopped' || e.type === 'nestedEndpoints')) return t.reason;
  if (status === 'Unmonitored') return 'Always Serve: Unmonitored';
  if (verdict === undefined) return 'no probe result yet: CheckingEndpoint';
  if (verdict === 'AwaitingFailback')
    return 'probe verdict AwaitingFailback: recovered, waiting for `tmkit endpoint failback` (failback mode Manual)';
  return `probe verdict ${verdict}`;
}

/**
 * Compiles endpoint `index` of profile `p`. Appends the probe verdict it read (undefined for nested
 * endpoints, whose status comes from their child) and its override to `read`, for change detection.
 */
export function compileEndpoint(p: Profile, e: Endpoint, index: number, env: EndpointEnv, read: EndpointInputs): PreEndpoint {
  const t = resolveTarget(p, e, env);
  const verdict = e.type === 'nestedEndpoints' ? undefined : env.health.verdict(p.name, e.name);
  const override = env.health.override?.(p.name, e.name);
  read.verdicts.push(verdict);
  read.overrides.push(overrideSignature(override));
  const status = endpointMonitorStatus({
    profileStatus: p.profileStatus,
    endpointStatus: e.endpointStatus,
    alwaysServe: e.alwaysServe,
    ...(verdict !== undefined ? { verdict } : {}),
    // External endpoints have no catalog resource; their target has a resource state only when it is missing.
    ...(t.resource !== undefined ? { resource: t.resource } : {}),
    ...(t.nested !== undefined ? { nested: t.nested } : {}),
    ...(override?.down ? { overriddenDown: true } : {}),
  });
  return {
    endpoint: e,
    index,
    path: `${p.name}/${e.name}`,
    status,
    statusReason: statusReason(status, e, t, verdict, override),
    weight: override?.weight ?? e.weight,
    ...(override !== undefined ? { override } : {}),
    kind: t.kind,
    ...(t.data !== undefined ? { data: t.data } : {}),
    ...(t.child !== undefined ? { child: t.child } : {}),
    ...(t.location !== undefined ? { location: t.location } : {}),
    subnets: (Array.isArray(e.subnets) ? e.subnets : []).map(subnetRange).filter((r): r is IpRange => r !== undefined),
    geoMapping: (Array.isArray(e.geoMapping) ? e.geoMapping : []).map((c) => String(c).toUpperCase()),
  };
}
