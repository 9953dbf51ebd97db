/**
 * buildSnapshot(): turns profiles + health + resource catalog into a compiled, read-only snapshot with every
 * per-profile fact the resolver needs precomputed once (monitor statuses through nesting, the all-degraded
 * fallback, priority order, geo and subnet indexes, record kinds). The runtime rebuilds it on every
 * configuration change or health transition; resolve() then does no status work per query.
 *
 * The work is split by responsibility: changes.ts decides which profiles of the previous snapshot can be
 * kept, compile-profile.ts and compile-endpoint.ts compile the others, each methods/<method>.ts builds the
 * index its method reads; this module assembles the snapshot and its name index.
 */
import type { EndpointMonitorStatus, ProfileMonitorStatus } from '../health/types';
import { rememberBuild, reusableProfiles } from './changes';
import { buildInputs, ProfileCompiler, type BuildInputs } from './compile-profile';
import type { CompiledProfile, CompiledSnapshot, SnapshotInput } from './compiled';
import type { RoutingSnapshot } from './types';

export type { CompiledEndpoint, CompiledProfile, CompiledSnapshot, EndpointKind, RecordKind, SnapshotInput } from './compiled';
export type { RegionGroup } from './compiled';

/** Canonical order of profile names: lower-cased first, then exact (so no result depends on listing order). */
export function byProfileName(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  return la < lb ? -1 : la > lb ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Profiles by FQDN, and the empty non-terminals above them. Two profiles with one FQDN (validation forbids
 * it) resolve to the one first in name order, whatever order the profiles are listed in: an incremental
 * build, which keeps its own order, agrees with a full build of the store's listing.
 */
export function nameIndex(
  inputs: BuildInputs,
  compiled: ReadonlyMap<string, CompiledProfile>,
): Pick<CompiledSnapshot, 'byFqdn' | 'emptyNonTerminals'> {
  const byFqdn = new Map<string, CompiledProfile>();
  for (const p of inputs.profiles.values()) {
    const cp = compiled.get(p.name.toLowerCase());
    if (!cp) continue;
    const held = byFqdn.get(cp.fqdn);
    if (held === undefined || byProfileName(cp.profile.name, held.profile.name) < 0) byFqdn.set(cp.fqdn, cp);
  }
  const zone = inputs.zone;
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
  return { byFqdn, emptyNonTerminals };
}

/**
 * Builds the compiled snapshot. Pure; never throws on a validated document.
 *
 * With `previous` (the snapshot this one replaces) the build is incremental: a profile whose document is
 * the same object as before, whose endpoints' probe verdicts are unchanged and (when it has Azure
 * endpoints) whose resource catalog is the same object keeps its compiled form, caches included; only
 * the other profiles and every profile that nests them, directly or through other profiles, are compiled
 * again. The changes are detected here (changes.ts: document identity, verdicts read again, catalog
 * identity), so a caller cannot forget one: the result always equals a full build. Callers must treat
 * profiles as immutable (replace, never mutate). A different zone or GeoLookup, or a previous build whose
 * result depended on compile order (a nesting loop), means a full build.
 */
export function buildSnapshot(input: SnapshotInput, previous?: CompiledSnapshot): CompiledSnapshot {
  const inputs = buildInputs(input);
  const reuse = reusableProfiles(previous, inputs);
  let compiler = new ProfileCompiler(inputs, reuse);
  for (const p of inputs.profiles.values()) compiler.compile(p);
  // A loop makes the result depend on which profile was compiled first: only a full build in name order is
  // canonical (the same whatever order the profiles are listed in, so an incremental build agrees with it).
  if (compiler.loop) {
    compiler = new ProfileCompiler(inputs);
    for (const p of [...inputs.profiles.values()].sort((a, b) => byProfileName(a.name, b.name))) compiler.compile(p);
  }

  const { zone, profiles, health, resources, geo } = inputs;
  const { byFqdn, emptyNonTerminals } = nameIndex(inputs, compiler.compiled);
  const snap: CompiledSnapshot = {
    zone,
    profiles,
    health,
    ...(input.latency !== undefined ? { latency: input.latency } : {}),
    resources,
    geo,
    byFqdn,
    compiled: compiler.compiled,
    emptyNonTerminals,
  };
  rememberBuild(snap, {
    zone,
    geo,
    resources,
    facts: compiler.facts,
    reusable: !compiler.loop && inputs.byLowerName.size === profiles.size,
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
    c = buildSnapshot({
      zone: s.zone,
      profiles: s.profiles.values(),
      health: s.health,
      ...(s.latency !== undefined ? { latency: s.latency } : {}),
      resources: s.resources,
      geo: s.geo,
    });
    lazilyCompiled.set(s, c);
  }
  return c;
}

/**
 * Monitor statuses of one profile and its endpoints, derived from a snapshot: what the management API's
 * status report (`ProfileStatusReport` in core/api/) is built from.
 */
export interface ProfileMonitorStatuses {
  profile: string;
  profileMonitorStatus: ProfileMonitorStatus;
  /** True when every eligible endpoint is Degraded and they are answered as if Online. */
  allDegradedFallback: boolean;
  endpoints: { name: string; endpointMonitorStatus: EndpointMonitorStatus; reason: string }[];
}

export function profileMonitorStatuses(s: RoutingSnapshot, profileName: string): ProfileMonitorStatuses | undefined {
  const cp = compiledSnapshot(s).compiled.get(profileName.toLowerCase());
  if (!cp) return undefined;
  return {
    profile: cp.profile.name,
    profileMonitorStatus: cp.status,
    allDegradedFallback: cp.allDegraded,
    endpoints: cp.endpoints.map((e) => ({ name: e.endpoint.name, endpointMonitorStatus: e.status, reason: e.statusReason })),
  };
}

/** @deprecated The old name of `profileMonitorStatuses` (kept for scripts that import it). */
export const profileStatusReport = profileMonitorStatuses;
