/**
 * updateSnapshot(): the next snapshot from the previous one and what changed, in time proportional to the
 * change — the changed profiles, the profiles whose verdicts the caller names, and every profile nesting
 * them — not to the number of profiles (issue 17 §4: at 10,000 profiles a change must reach DNS in
 * milliseconds).
 *
 * buildSnapshot(input, previous) is incremental too, but it is handed every profile and finds the changes
 * itself, which reads every endpoint's verdict and builds every index again: O(endpoints) per build. Here
 * the caller says what changed, and the previous snapshot's indexes (profiles by name, compiled profiles,
 * FQDN index, empty non-terminals, who nests whom) are *moved* into the new snapshot and edited in place:
 * `previous` is consumed. Its maps now describe the new snapshot, and a later buildSnapshot/updateSnapshot
 * with it as `previous` builds from scratch (its build record is gone). The runtime swaps snapshots
 * synchronously right after the update, so no resolver ever reads a half-edited one.
 *
 * The result equals buildSnapshot() of the whole new input as long as the caller names every profile whose
 * document changed and every profile with an endpoint whose verdict may differ from what `previous` read
 * (naming more is harmless: an unchanged profile is kept; a named profile's verdicts are compared first).
 * Whatever updateSnapshot cannot do in place — a nesting loop, two names equal but for case, two profiles
 * with one FQDN, a new resource catalog — falls back to the full build, which is always right.
 */
import type { LatencyView } from '../health/latency';
import type { HealthView } from '../health/types';
import type { Profile } from '../model/types';
import type { ResourceCatalog } from '../ports';
import { buildRecord, forgetBuild, rememberBuild, sameVerdicts, type BuildRecord, type LiveIndex, type ProfileFacts } from './changes';
import { ProfileCompiler } from './compile-profile';
import type { BuildInputs, CompiledProfile, CompiledSnapshot } from './compiled';
import { buildSnapshot, nameIndex } from './snapshot';

export interface SnapshotChange {
  /** Profiles written (the profile now) or deleted (undefined) since `previous`, by name. */
  readonly profiles?: ReadonlyMap<string, Profile | undefined>;
  /** Names of profiles one of whose endpoints' probe verdicts may differ from what `previous` read. */
  readonly verdicts?: Iterable<string>;
  /** Any verdict may have changed: every profile's verdicts are compared (O(endpoints), no recompiles beyond the changed). */
  readonly allVerdicts?: boolean;
  /** The verdicts now. */
  readonly health: HealthView;
  /** The resource catalog now, when it may be another one than `previous` had. */
  readonly resources?: ResourceCatalog;
  /** The measured latency now, when it may be another one than `previous` had (absent: `previous`'s). */
  readonly latency?: LatencyView;
}

/** The latency the next snapshot carries: the change's, else the previous snapshot's. */
function latencyOf(previous: CompiledSnapshot, change: SnapshotChange): { latency?: LatencyView } {
  const l = change.latency ?? previous.latency;
  return l !== undefined ? { latency: l } : {};
}

/** The FQDN index walk of nameIndex(): the names strictly between `fqdn` and the zone. */
function ancestors(fqdn: string, zone: string, visit: (name: string) => void): void {
  let n = fqdn;
  for (;;) {
    const dot = n.indexOf('.');
    if (dot < 0) return;
    n = n.slice(dot + 1);
    if (n === zone || n.length <= zone.length) return;
    visit(n);
  }
}

/** The live indexes of a snapshot, built once (O(profiles)) the first time it is updated. */
function liveIndex(s: CompiledSnapshot, record: BuildRecord): LiveIndex {
  const byLowerName = new Map<string, Profile>();
  for (const p of s.profiles.values()) {
    const held = byLowerName.get(p.name.toLowerCase());
    if (held === undefined || p.name < held.name) byLowerName.set(p.name.toLowerCase(), p);
  }
  const parents = new Map<string, Set<string>>();
  for (const [key, f] of record.facts) for (const child of f.children) addEdge(parents, child, key);
  const claims = new Map<string, number>();
  for (const cp of s.compiled.values()) claims.set(cp.fqdn, (claims.get(cp.fqdn) ?? 0) + 1);
  const below = new Map<string, number>();
  for (const fqdn of s.byFqdn.keys()) ancestors(fqdn, s.zone, (a) => below.set(a, (below.get(a) ?? 0) + 1));
  return { byLowerName, parents, claims, below };
}

function addEdge(parents: Map<string, Set<string>>, child: string, parent: string): void {
  const set = parents.get(child);
  if (set) set.add(parent);
  else parents.set(child, new Set([parent]));
}

function removeEdge(parents: Map<string, Set<string>>, child: string, parent: string): void {
  const set = parents.get(child);
  if (set?.delete(parent) && set.size === 0) parents.delete(child);
}

/** The whole new input, for the fallbacks (O(profiles)). */
function fullInput(previous: CompiledSnapshot, change: SnapshotChange): Parameters<typeof buildSnapshot>[0] {
  const profiles = new Map(previous.profiles);
  for (const [name, p] of change.profiles ?? [])
    if (p === undefined) profiles.delete(name);
    else profiles.set(name, p);
  return {
    zone: previous.zone,
    profiles: [...profiles.values()],
    health: change.health,
    ...latencyOf(previous, change),
    resources: change.resources ?? previous.resources,
    geo: previous.geo,
  };
}

export function updateSnapshot(previous: CompiledSnapshot, change: SnapshotChange): CompiledSnapshot {
  const record = buildRecord(previous);
  const resources = change.resources ?? previous.resources;
  // A new catalog can change any Azure endpoint: buildSnapshot's detector finds which (it reads them all).
  if (record === undefined || !record.reusable || resources !== record.resources)
    return buildSnapshot(fullInput(previous, change), previous);
  const live = record.live ?? liveIndex(previous, record);
  const profiles = previous.profiles as Map<string, Profile>;
  // Two names equal but for case make the result depend on order: only a full build is canonical.
  for (const [name, p] of change.profiles ?? []) {
    const holder = live.byLowerName.get(name.toLowerCase());
    if (p !== undefined && holder !== undefined && holder.name !== name) return buildSnapshot(fullInput(previous, change));
  }
  forgetBuild(previous); // from here on its indexes are the new snapshot's

  const compiled = previous.compiled as Map<string, CompiledProfile>;
  const facts = record.facts as Map<string, ProfileFacts>;
  const dirty = new Set<string>();
  for (const [name, p] of change.profiles ?? []) {
    const key = name.toLowerCase();
    if (p === undefined) {
      if (profiles.delete(name)) live.byLowerName.delete(key);
    } else {
      profiles.set(name, p);
      live.byLowerName.set(key, p);
    }
    dirty.add(key);
  }
  const inputs: BuildInputs = {
    zone: previous.zone,
    health: change.health,
    resources,
    geo: previous.geo,
    profiles,
    byLowerName: live.byLowerName,
  };
  const named = change.allVerdicts ? live.byLowerName.keys() : (change.verdicts ?? []);
  for (const name of named) {
    const key = name.toLowerCase();
    if (dirty.has(key)) continue;
    const p = live.byLowerName.get(key);
    const old = compiled.get(key);
    const f = facts.get(key);
    if (p !== undefined && (old === undefined || f === undefined || !sameVerdicts(p, old, f, inputs))) dirty.add(key);
  }
  // Every profile nesting a dirty one, through any number of levels (the index holds the edges as built).
  const queue = [...dirty];
  for (let i = 0; i < queue.length; i++) {
    for (const parent of live.parents.get(queue[i]!) ?? [])
      if (!dirty.has(parent)) {
        dirty.add(parent);
        queue.push(parent);
      }
  }

  // Take the dirty profiles out (remembering their children and FQDNs), compile them again.
  const oldChildren = new Map<string, readonly string[]>();
  const oldFqdns: string[] = [];
  for (const key of dirty) {
    const f = facts.get(key);
    if (f) oldChildren.set(key, f.children);
    const cp = compiled.get(key);
    if (cp) oldFqdns.push(cp.fqdn);
    compiled.delete(key);
    facts.delete(key);
  }
  const compiler = new ProfileCompiler(inputs, { compiled, facts });
  for (const key of dirty) {
    const p = live.byLowerName.get(key);
    if (p) compiler.compile(p);
  }
  if (compiler.loop)
    return buildSnapshot({
      zone: previous.zone,
      profiles: [...profiles.values()],
      health: change.health,
      ...latencyOf(previous, change),
      resources,
      geo: previous.geo,
    });

  // Who nests whom: the dirty profiles' old edges out, their new ones in.
  for (const [key, kids] of oldChildren) for (const k of kids) removeEdge(live.parents, k, key);
  for (const key of dirty) for (const k of facts.get(key)?.children ?? []) addEdge(live.parents, k, key);

  // The FQDN index and the empty non-terminals, edited for the FQDNs that left and came.
  const newFqdns: string[] = [];
  for (const key of dirty) {
    const cp = compiled.get(key);
    if (cp) newFqdns.push(cp.fqdn);
  }
  const byFqdn = previous.byFqdn as Map<string, CompiledProfile>;
  const ent = previous.emptyNonTerminals as Set<string>;
  let shared = false;
  for (const f of oldFqdns) {
    const n = (live.claims.get(f) ?? 0) - 1;
    if (n > 0) {
      live.claims.set(f, n);
      shared = true;
    } else live.claims.delete(f);
  }
  for (const f of newFqdns) {
    const n = (live.claims.get(f) ?? 0) + 1;
    live.claims.set(f, n);
    if (n > 1) shared = true;
  }
  let names: Pick<CompiledSnapshot, 'byFqdn' | 'emptyNonTerminals'> = { byFqdn, emptyNonTerminals: ent };
  if (shared) {
    // Two profiles with one FQDN (validation forbids it; the first in name order answers): index it all.
    names = nameIndex(inputs, compiled);
    live.below.clear();
    for (const fqdn of names.byFqdn.keys()) ancestors(fqdn, previous.zone, (a) => live.below.set(a, (live.below.get(a) ?? 0) + 1));
  } else {
    for (const f of oldFqdns) {
      if (!byFqdn.delete(f)) continue;
      ancestors(f, previous.zone, (a) => {
        const n = (live.below.get(a) ?? 0) - 1;
        if (n > 0) live.below.set(a, n);
        else {
          live.below.delete(a);
          ent.delete(a);
        }
      });
      if ((live.below.get(f) ?? 0) > 0) ent.add(f);
    }
    for (const key of dirty) {
      const cp = compiled.get(key);
      if (!cp) continue;
      const fresh = !byFqdn.has(cp.fqdn);
      byFqdn.set(cp.fqdn, cp);
      if (!fresh) continue;
      ent.delete(cp.fqdn);
      ancestors(cp.fqdn, previous.zone, (a) => {
        live.below.set(a, (live.below.get(a) ?? 0) + 1);
        if (!byFqdn.has(a)) ent.add(a);
      });
    }
  }

  const snap: CompiledSnapshot = {
    zone: previous.zone,
    profiles,
    health: change.health,
    ...latencyOf(previous, change),
    resources,
    geo: previous.geo,
    ...names,
    compiled,
  };
  rememberBuild(snap, { ...record, facts, live, reusable: live.byLowerName.size === profiles.size });
  return snap;
}
