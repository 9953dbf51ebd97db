/**
 * buildSnapshot(): turns profiles + health + resource catalog into a compiled, read-only snapshot with every
 * per-profile fact the resolver needs precomputed once (monitor statuses through nesting, the all-degraded
 * fallback, priority order, geo and subnet indexes, record kinds). The runtime rebuilds it on every
 * configuration change or health transition; resolve() then does no status work per query.
 */
import { findAzureRegion } from '../data';
import {
  countChildEndpoints,
  endpointMonitorStatus,
  isAvailable,
  isEligible,
  nestedEndpointStatus,
  profileMonitorStatus,
  type NestedStatus,
  type ResourceState,
} from '../health/status';
import type { EndpointMonitorStatus, HealthView, ProbeVerdict, ProfileMonitorStatus } from '../health/types';
import { childProfileName, profileFqdn } from '../model/names';
import type { Endpoint, Profile } from '../model/types';
import type { GeoLookup, ResourceCatalog } from '../ports';
import { isIPv4, isIPv6, subnetRange, type IpRange } from './ip';
import type { RoutingSnapshot } from './types';

export type RecordKind = 'A' | 'AAAA' | 'CNAME';
/** What an endpoint answers with: a record kind, a child profile, or nothing (cannot be answered). */
export type EndpointKind = RecordKind | 'nested' | 'none';

export interface CompiledEndpoint {
  readonly endpoint: Endpoint;
  readonly index: number;
  /** `profile/endpoint`. */
  readonly path: string;
  readonly status: EndpointMonitorStatus;
  /** Why it has that status, for explanations (`verdict Degraded from the prober`, `child profile ... Inactive`). */
  readonly statusReason: string;
  readonly kind: EndpointKind;
  /** Record data for leaf kinds: the IP literal or the CNAME target (no trailing dot). */
  readonly data?: string;
  /** Nested endpoints: the child profile (undefined when it does not exist). */
  readonly child?: CompiledProfile;
  /** Azure region (canonical name) for Performance routing. */
  readonly location?: string;
  readonly subnets: readonly IpRange[];
  /** Upper-cased geographic codes. */
  readonly geoMapping: readonly string[];
  /** Answerable now: available, or Degraded while the profile's all-degraded fallback is active. */
  readonly usable: boolean;
}

export interface RegionGroup {
  /** Canonical region name; '' for endpoints without a location. */
  readonly region: string;
  /** Non-disabled endpoints in the region, declaration order. */
  readonly endpoints: readonly CompiledEndpoint[];
}

export interface CompiledProfile {
  readonly profile: Profile;
  /** `<relativeName>.<zone>`, lower case, no trailing dot. */
  readonly fqdn: string;
  readonly status: ProfileMonitorStatus;
  readonly endpoints: readonly CompiledEndpoint[];
  /** Every endpoint Disabled (or none at all): the profile answers NXDOMAIN. */
  readonly allDisabled: boolean;
  /** Every eligible endpoint is Degraded: answer as if they were all Online (behaviors.md §4). */
  readonly allDegraded: boolean;
  /** Endpoints in priority order (ties by declaration order). */
  readonly byPriority: readonly CompiledEndpoint[];
  /** Non-disabled endpoints with subnets, declaration order. */
  readonly subnetEndpoints: readonly CompiledEndpoint[];
  /** Disabled endpoints with subnets (Subnet routing: their ranges are ignored, but explained). */
  readonly disabledSubnetEndpoints: readonly CompiledEndpoint[];
  /** Subnet routing: the first non-disabled endpoint without subnets. */
  readonly fallback?: CompiledEndpoint;
  /** Geographic: code → the non-disabled endpoint mapping it (first one wins). */
  readonly geo: ReadonlyMap<string, CompiledEndpoint>;
  /** Performance: non-disabled endpoints grouped by region. */
  readonly regions: readonly RegionGroup[];
  /** Resolutions of client-independent subtrees, by query class (filled lazily by resolve()). */
  readonly cache: Map<string, unknown>;
  /** Client-independent top-level resolutions (this profile named by the query), by query class. */
  readonly topCache: Map<string, unknown>;
}

export interface CompiledSnapshot extends RoutingSnapshot {
  /** Profiles by `<relativeName>.<zone>` (lower case, no trailing dot). */
  readonly byFqdn: ReadonlyMap<string, CompiledProfile>;
  /** Profiles by lower-cased name (nested endpoints name their child by profile name). */
  readonly compiled: ReadonlyMap<string, CompiledProfile>;
  /** Names under the zone that exist only because a profile name is below them (`b.zone` for `a.b.zone`). */
  readonly emptyNonTerminals: ReadonlySet<string>;
}

export interface SnapshotInput {
  zone: string;
  profiles: Iterable<Profile>;
  health?: HealthView;
  resources?: ResourceCatalog;
  geo: GeoLookup;
}

const NO_HEALTH: HealthView = { verdict: () => undefined };
const NO_RESOURCES: ResourceCatalog = new Map();

const stripDot = (s: string): string => (s.endsWith('.') ? s.slice(0, -1) : s);

function canonicalRegion(loc: string | undefined): string | undefined {
  if (loc === undefined || loc === null || String(loc).trim() === '') return undefined;
  return findAzureRegion(String(loc))?.name ?? String(loc).trim().toLowerCase();
}

function leafKind(target: string): RecordKind {
  if (isIPv4(target)) return 'A';
  if (isIPv6(target)) return 'AAAA';
  return 'CNAME';
}

/**
 * What a build remembers about itself so the next build can reuse unchanged profiles (kept beside the
 * snapshot, not in it, so the snapshot's shape stays what resolvers see).
 */
interface BuildInfo {
  readonly zone: string;
  readonly geo: GeoLookup;
  readonly resources: ResourceCatalog;
  /** False when the build's result depends on compile order (a nesting loop, two names equal but for case). */
  readonly reusable: boolean;
  /** Lower-cased profile name → lower-cased names its nested endpoints point at (existing or not). */
  readonly children: ReadonlyMap<string, readonly string[]>;
  /** Lower-cased profile name → the probe verdict read for each endpoint (undefined for nested ones). */
  readonly verdicts: ReadonlyMap<string, readonly (ProbeVerdict | undefined)[]>;
  /** Lower-cased names of profiles with Azure endpoints (they depend on the resource catalog). */
  readonly usesResources: ReadonlySet<string>;
}

const buildInfo = new WeakMap<CompiledSnapshot, BuildInfo>();

function childKeys(p: Profile): string[] {
  const out: string[] = [];
  for (const e of Array.isArray(p.endpoints) ? p.endpoints : []) {
    if (e.type === 'nestedEndpoints') out.push(childProfileName(String(e.targetResourceId ?? '')).toLowerCase());
  }
  return out;
}

/**
 * Builds the compiled snapshot. Pure; never throws on a validated document.
 *
 * With `previous` (the snapshot this one replaces) the build is incremental: a profile whose document is
 * the same object as before, whose endpoints' probe verdicts are unchanged and (when it has Azure
 * endpoints) whose resource catalog is the same object keeps its compiled form, caches included; only
 * the other profiles and every profile that nests them, directly or through other profiles, are compiled
 * again. The changes are detected here (document identity, verdicts read again, catalog identity), so a
 * caller cannot forget one: the result always equals a full build. Callers must treat profiles as
 * immutable (replace, never mutate). A different zone or GeoLookup, or a previous build whose result
 * depended on compile order (a nesting loop), means a full build.
 */
export function buildSnapshot(input: SnapshotInput, previous?: CompiledSnapshot): CompiledSnapshot {
  const zone = stripDot(input.zone.trim()).toLowerCase();
  const health = input.health ?? NO_HEALTH;
  const resources = input.resources ?? NO_RESOURCES;
  const profiles = new Map<string, Profile>();
  for (const p of input.profiles) profiles.set(p.name, p);
  const byLowerName = new Map<string, Profile>();
  for (const p of profiles.values()) if (!byLowerName.has(p.name.toLowerCase())) byLowerName.set(p.name.toLowerCase(), p);

  const prevInfo = previous !== undefined ? buildInfo.get(previous) : undefined;
  const incremental = prevInfo !== undefined && previous !== undefined && prevInfo.reusable && prevInfo.zone === zone
    && prevInfo.geo === input.geo && byLowerName.size === profiles.size;

  const compiled = new Map<string, CompiledProfile>();
  const inProgress = new Set<string>();
  const children = new Map<string, readonly string[]>();
  const verdicts = new Map<string, readonly (ProbeVerdict | undefined)[]>();
  const usesResources = new Set<string>();
  let loop = false;

  if (incremental) {
    const prev = previous.compiled;
    const resourcesChanged = prevInfo.resources !== resources;
    const dirty = new Set<string>();
    for (const [key, p] of byLowerName) {
      const old = prev.get(key);
      if (old === undefined || old.profile !== p || (resourcesChanged && prevInfo.usesResources.has(key))) { dirty.add(key); continue; }
      const seen = prevInfo.verdicts.get(key);
      const eps = old.endpoints;
      let same = seen !== undefined;
      for (let i = 0; same && i < eps.length; i++) {
        const e = eps[i]!.endpoint;
        if (e.type !== 'nestedEndpoints' && health.verdict(p.name, e.name) !== seen![i]) same = false;
      }
      if (!same) dirty.add(key);
    }
    for (const key of prev.keys()) if (!byLowerName.has(key)) dirty.add(key); // deleted: their parents change
    // Parents of every name in the new graph; unchanged profiles nest what they nested before.
    const parents = new Map<string, string[]>();
    for (const [key, p] of byLowerName) {
      const kids = dirty.has(key) ? childKeys(p) : prevInfo.children.get(key) ?? childKeys(p);
      for (const k of kids) {
        const list = parents.get(k);
        if (list) list.push(key); else parents.set(k, [key]);
      }
    }
    const queue = [...dirty];
    for (let i = 0; i < queue.length; i++) {
      for (const parent of parents.get(queue[i]!) ?? []) {
        if (!dirty.has(parent)) { dirty.add(parent); queue.push(parent); }
      }
    }
    for (const key of byLowerName.keys()) {
      if (dirty.has(key)) continue;
      compiled.set(key, prev.get(key)!);
      children.set(key, prevInfo.children.get(key)!);
      verdicts.set(key, prevInfo.verdicts.get(key)!);
      if (prevInfo.usesResources.has(key)) usesResources.add(key);
    }
  }

  const compileProfile = (p: Profile): CompiledProfile => {
    const key = p.name.toLowerCase();
    const done = compiled.get(key);
    if (done) return done;
    inProgress.add(key);
    const fqdn = profileFqdn(p.dnsConfig?.relativeName ?? p.name, zone);
    const eps = Array.isArray(p.endpoints) ? p.endpoints : [];
    const read: (ProbeVerdict | undefined)[] = [];
    const pre = eps.map((e, index) => compileEndpoint(p, e, index, read));
    inProgress.delete(key);
    children.set(key, childKeys(p));
    verdicts.set(key, read);
    if (eps.some((e) => e.type === 'azureEndpoints')) usesResources.add(key);

    const eligible = pre.filter((e) => isEligible(e.status));
    const allDegraded = eligible.length > 0 && eligible.every((e) => e.status === 'Degraded');
    const endpoints: CompiledEndpoint[] = pre.map((e) => ({
      ...e,
      usable: isAvailable(e.status) || (allDegraded && e.status === 'Degraded'),
    }));
    const enabled = endpoints.filter((e) => e.endpoint.endpointStatus !== 'Disabled');
    const geo = new Map<string, CompiledEndpoint>();
    for (const e of enabled) for (const code of e.geoMapping) if (!geo.has(code)) geo.set(code, e);
    const regionMap = new Map<string, CompiledEndpoint[]>();
    for (const e of enabled) {
      const r = e.location ?? '';
      const list = regionMap.get(r);
      if (list) list.push(e); else regionMap.set(r, [e]);
    }
    const cp: CompiledProfile = {
      profile: p,
      fqdn,
      status: profileMonitorStatus(p.profileStatus, endpoints.map((e) => e.status)),
      endpoints,
      allDisabled: enabled.length === 0,
      allDegraded,
      byPriority: endpoints.slice().sort((a, b) => (a.endpoint.priority - b.endpoint.priority) || (a.index - b.index)),
      subnetEndpoints: enabled.filter((e) => e.subnets.length > 0),
      disabledSubnetEndpoints: endpoints.filter((e) => e.endpoint.endpointStatus === 'Disabled' && e.subnets.length > 0),
      ...(() => {
        const f = enabled.find((e) => (e.endpoint.subnets ?? []).length === 0);
        return f ? { fallback: f } : {};
      })(),
      geo,
      regions: [...regionMap].map(([region, list]) => ({ region, endpoints: list })),
      cache: new Map(),
      topCache: new Map(),
    };
    compiled.set(key, cp);
    return cp;
  };

  type PreEndpoint = Omit<CompiledEndpoint, 'usable'>;

  const compileEndpoint = (p: Profile, e: Endpoint, index: number, read: (ProbeVerdict | undefined)[]): PreEndpoint => {
    const path = `${p.name}/${e.name}`;
    const subnets = (Array.isArray(e.subnets) ? e.subnets : []).map(subnetRange).filter((r): r is IpRange => r !== undefined);
    const geoMapping = (Array.isArray(e.geoMapping) ? e.geoMapping : []).map((c) => String(c).toUpperCase());
    let kind: EndpointKind = 'none';
    let data: string | undefined;
    let child: CompiledProfile | undefined;
    let location = canonicalRegion(e.endpointLocation);
    let resource: ResourceState | undefined;
    let nested: NestedStatus | undefined;
    let reason = '';

    if (e.type === 'nestedEndpoints') {
      kind = 'nested';
      const childName = childProfileName(String(e.targetResourceId ?? ''));
      const childProfile = byLowerName.get(childName.toLowerCase());
      if (!childProfile) {
        nested = 'Stopped';
        reason = `child profile '${childName}' does not exist: Stopped`;
      } else if (inProgress.has(childProfile.name.toLowerCase())) {
        nested = 'Stopped';
        reason = `child profile '${childProfile.name}' nests back into '${p.name}' (a loop): Stopped`;
        loop = true;
      } else {
        child = compileProfile(childProfile);
        const counts = countChildEndpoints(child.endpoints.map((c) => c.status), child.endpoints.map((c) => c.kind));
        const min = {
          minChildEndpoints: e.minChildEndpoints ?? 1,
          ...(e.minChildEndpointsIPv4 !== undefined ? { minChildEndpointsIPv4: e.minChildEndpointsIPv4 } : {}),
          ...(e.minChildEndpointsIPv6 !== undefined ? { minChildEndpointsIPv6: e.minChildEndpointsIPv6 } : {}),
        };
        nested = nestedEndpointStatus(child.status, counts, min);
        const thresholds = [`MinChildEndpoints=${min.minChildEndpoints}: ${counts.online} online + ${counts.checking} checking`];
        if (min.minChildEndpointsIPv4) thresholds.push(`MinChildEndpointsIPv4=${min.minChildEndpointsIPv4}: ${counts.onlineIPv4} online + ${counts.checkingIPv4} checking`);
        if (min.minChildEndpointsIPv6) thresholds.push(`MinChildEndpointsIPv6=${min.minChildEndpointsIPv6}: ${counts.onlineIPv6} online + ${counts.checkingIPv6} checking`);
        reason = child.status === 'Disabled' || child.status === 'Inactive'
          ? `child profile '${child.profile.name}' is ${child.status}: Stopped`
          : `child profile '${child.profile.name}' is ${child.status}; ${thresholds.join('; ')} → ${nested}`;
      }
    } else if (e.type === 'azureEndpoints') {
      const id = String(e.targetResourceId ?? '');
      const res = resources.get(id.toLowerCase());
      // The catalog describes the real resource (Azure: the endpoint's region is the resource's region);
      // inline target/endpointLocation are the fallback for resources the catalog does not list.
      const target = res?.target ?? e.target;
      location = canonicalRegion(res?.location) ?? location;
      if (target === undefined || String(target).trim() === '') {
        resource = 'missing';
        reason = `Azure resource '${id}' is not in the resource catalog and the endpoint has no inline target: cannot be answered (add it to the catalog, --resources)`;
      } else {
        data = stripDot(String(target).trim());
        kind = leafKind(data);
        if (res?.state === 'stopped') {
          resource = 'stopped';
          reason = `Azure resource '${id}' is stopped: Stopped`;
        } else {
          resource = 'running';
        }
      }
    } else {
      const target = e.target === undefined ? '' : String(e.target).trim();
      if (target === '') {
        resource = 'missing';
        reason = 'endpoint has no target: cannot be answered';
      } else {
        data = stripDot(target);
        kind = leafKind(data);
      }
    }

    const verdict = e.type === 'nestedEndpoints' ? undefined : health.verdict(p.name, e.name);
    read.push(verdict);
    const status = endpointMonitorStatus({
      profileStatus: p.profileStatus,
      endpointStatus: e.endpointStatus,
      alwaysServe: e.alwaysServe,
      ...(verdict !== undefined ? { verdict } : {}),
      // External endpoints have no catalog resource; only a missing target makes them unanswerable.
      ...(resource !== undefined && (e.type === 'azureEndpoints' || resource === 'missing') ? { resource } : {}),
      ...(nested !== undefined ? { nested } : {}),
    });
    let statusReason: string;
    if (status === 'Disabled') statusReason = 'endpointStatus Disabled';
    else if (status === 'Inactive') statusReason = 'profile Disabled: Inactive';
    else if (reason !== '' && (status === 'Stopped' || e.type === 'nestedEndpoints')) statusReason = reason;
    else if (status === 'Unmonitored') statusReason = 'Always Serve: Unmonitored';
    else if (verdict === undefined) statusReason = 'no probe result yet: CheckingEndpoint';
    else statusReason = `probe verdict ${verdict}`;

    return {
      endpoint: e,
      index,
      path,
      status,
      statusReason,
      kind,
      ...(data !== undefined ? { data } : {}),
      ...(child !== undefined ? { child } : {}),
      ...(location !== undefined ? { location } : {}),
      subnets,
      geoMapping,
    };
  };

  for (const p of profiles.values()) compileProfile(p);
  // A loop makes the result depend on which profile was compiled first: only a full build is canonical.
  if (incremental && loop) return buildSnapshot(input);

  const byFqdn = new Map<string, CompiledProfile>();
  for (const p of profiles.values()) {
    const cp = compiled.get(p.name.toLowerCase());
    if (cp && !byFqdn.has(cp.fqdn)) byFqdn.set(cp.fqdn, cp);
  }
  const emptyNonTerminals = new Set<string>();
  for (const fqdn of byFqdn.keys()) {
    let n = fqdn;
    for (;;) {
      const dot = n.indexOf('.');
      if (dot < 0) break;
      n = n.slice(dot + 1);
      if (n === zone || n.length <= zone.length) break;
      if (!byFqdn.has(n)) emptyNonTerminals.add(n);
    }
  }

  const snap: CompiledSnapshot = {
    zone,
    profiles,
    health,
    resources,
    geo: input.geo,
    byFqdn,
    compiled,
    emptyNonTerminals,
  };
  buildInfo.set(snap, {
    zone, geo: input.geo, resources, children, verdicts, usesResources,
    reusable: !loop && byLowerName.size === profiles.size,
  });
  return snap;
}

const lazilyCompiled = new WeakMap<RoutingSnapshot, CompiledSnapshot>();

/** The compiled form of any snapshot (a plain RoutingSnapshot is compiled once and remembered). */
export function compiledSnapshot(s: RoutingSnapshot): CompiledSnapshot {
  if ((s as Partial<CompiledSnapshot>).byFqdn !== undefined && (s as Partial<CompiledSnapshot>).compiled !== undefined) {
    return s as CompiledSnapshot;
  }
  let c = lazilyCompiled.get(s);
  if (!c) {
    c = buildSnapshot({ zone: s.zone, profiles: s.profiles.values(), health: s.health, resources: s.resources, geo: s.geo });
    lazilyCompiled.set(s, c);
  }
  return c;
}

/** Monitor statuses of one profile and its endpoints, as the status API shows them. */
export interface ProfileStatusReport {
  profile: string;
  profileMonitorStatus: ProfileMonitorStatus;
  /** True when every eligible endpoint is Degraded and they are answered as if Online. */
  allDegradedFallback: boolean;
  endpoints: { name: string; endpointMonitorStatus: EndpointMonitorStatus; reason: string }[];
}

export function profileStatusReport(s: RoutingSnapshot, profileName: string): ProfileStatusReport | undefined {
  const cp = compiledSnapshot(s).compiled.get(profileName.toLowerCase());
  if (!cp) return undefined;
  return {
    profile: cp.profile.name,
    profileMonitorStatus: cp.status,
    allDegradedFallback: cp.allDegraded,
    endpoints: cp.endpoints.map((e) => ({ name: e.endpoint.name, endpointMonitorStatus: e.status, reason: e.statusReason })),
  };
}
