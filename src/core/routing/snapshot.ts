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

/** Profiles by FQDN (the first profile of an FQDN wins), and the empty non-terminals above them. */
export function nameIndex(inputs: BuildInputs, compiled: ReadonlyMap<string, CompiledProfile>): Pick<CompiledSnapshot, 'byFqdn' | 'emptyNonTerminals'> {
  const byFqdn = new Map<string, CompiledProfile>();
  for (const p of inputs.profiles.values()) {
    const cp = compiled.get(p.name.toLowerCase());
    if (cp && !byFqdn.has(cp.fqdn)) byFqdn.set(cp.fqdn, cp);
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
  const compiler = new ProfileCompiler(inputs, reuse);
  for (const p of inputs.profiles.values()) compiler.compile(p);
  // A loop makes the result depend on which profile was compiled first: only a full build is canonical.
  // (The retry reads the profiles as indexed: `input.profiles` may be a one-shot iterator, already consumed.)
  if (reuse !== undefined && compiler.loop) return buildSnapshot({ ...input, profiles: [...inputs.profiles.values()] });

  const { zone, profiles, health, resources, geo } = inputs;
  const { byFqdn, emptyNonTerminals } = nameIndex(inputs, compiler.compiled);
  const snap: CompiledSnapshot = { zone, profiles, health, resources, geo, byFqdn, compiled: compiler.compiled, emptyNonTerminals };
  rememberBuild(snap, {
    zone, geo, resources, facts: compiler.facts,
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
