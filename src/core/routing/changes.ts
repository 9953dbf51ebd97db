/**
 * Change detection for incremental snapshot builds: which compiled profiles of the previous snapshot the
 * next build may keep. A profile is compiled again when
 * - its document is not the same object as before (callers replace profiles, never mutate them),
 * - a probe verdict or a traffic override of one of its endpoints is not the one the previous build read,
 * - it has Azure endpoints and the resource catalog is not the same object as before,
 * - it is new, or
 * - it nests, directly or through other profiles, a profile compiled again or deleted (nested endpoints
 *   point at their child's compiled form, and their status depends on it).
 * Everything else is kept as it is, caches included. The detector reads the inputs itself, so a caller
 * cannot forget to report a change; buildSnapshot() then compiles only what is not kept.
 */
import type { EndpointOverride, ProbeVerdict } from '../health/types';
import { childProfileName } from '../model/names';
import type { Profile } from '../model/types';
import type { GeoLookup, ResourceCatalog } from '../ports';
import type { BuildInputs, CompiledProfile, CompiledSnapshot } from './compiled';

/** What a build remembers about one compiled profile, to tell the next build whether it changed. */
export interface ProfileFacts {
  /** Lower-cased names its nested endpoints point at (existing or not). */
  readonly children: readonly string[];
  /** The probe verdict read for each endpoint, by endpoint index (undefined for nested ones). */
  readonly verdicts: readonly (ProbeVerdict | undefined)[];
  /** The override read for each endpoint (its signature), by endpoint index. */
  readonly overrides: readonly (string | undefined)[];
  /** It has Azure endpoints, so it depends on the resource catalog. */
  readonly usesResources: boolean;
}

/**
 * What a build remembers about itself so the next build can reuse unchanged profiles (kept beside the
 * snapshot, not in it, so the snapshot's shape stays what resolvers see).
 */
export interface BuildRecord {
  readonly zone: string;
  readonly geo: GeoLookup;
  readonly resources: ResourceCatalog;
  /** False when the build's result depends on compile order (a nesting loop, two names equal but for case). */
  readonly reusable: boolean;
  /** By lower-cased profile name. */
  readonly facts: ReadonlyMap<string, ProfileFacts>;
  /** The indexes updateSnapshot() edits in place (built by the first update of this lineage). */
  readonly live?: LiveIndex;
}

/** What updateSnapshot() keeps beside a snapshot so that a change costs only what it touches. */
export interface LiveIndex {
  /** By lower-cased name, the first one wins (the snapshot's profiles, as nested endpoints look them up). */
  readonly byLowerName: Map<string, Profile>;
  /** Lower-cased child name → lower-cased names of the profiles nesting it (as compiled). */
  readonly parents: Map<string, Set<string>>;
  /** FQDN → how many compiled profiles have it. */
  readonly claims: Map<string, number>;
  /** Name under the zone → how many FQDNs of the index are strictly below it. */
  readonly below: Map<string, number>;
}

/**
 * The compiled profiles a build keeps from the previous snapshot, with their facts, by lower-cased name:
 * new maps, handed over to the build, which adds the profiles it compiles.
 */
export interface Reuse {
  readonly compiled: Map<string, CompiledProfile>;
  readonly facts: Map<string, ProfileFacts>;
}

const records = new WeakMap<CompiledSnapshot, BuildRecord>();

export function rememberBuild(snapshot: CompiledSnapshot, record: BuildRecord): void {
  records.set(snapshot, record);
}

/** What the build of `snapshot` remembered (undefined: none, or it was consumed by updateSnapshot). */
export function buildRecord(snapshot: CompiledSnapshot): BuildRecord | undefined {
  return records.get(snapshot);
}

/** `snapshot`'s indexes moved into another one: it can no longer be the base of an incremental build. */
export function forgetBuild(snapshot: CompiledSnapshot): void {
  records.delete(snapshot);
}

/** Lower-cased names of the child profiles `p` nests, as compileEndpoint() looks them up. */
export function nestedChildKeys(p: Profile): string[] {
  const out: string[] = [];
  for (const e of Array.isArray(p.endpoints) ? p.endpoints : []) {
    if (e.type === 'nestedEndpoints') out.push(childProfileName(String(e.targetResourceId ?? '')).toLowerCase());
  }
  return out;
}

export function profileFacts(
  p: Profile,
  read: { verdicts: readonly (ProbeVerdict | undefined)[]; overrides: readonly (string | undefined)[] },
): ProfileFacts {
  const eps = Array.isArray(p.endpoints) ? p.endpoints : [];
  return {
    children: nestedChildKeys(p),
    verdicts: read.verdicts,
    overrides: read.overrides,
    usesResources: eps.some((e) => e.type === 'azureEndpoints'),
  };
}

/** A previous build whose profiles can be reused for `next`: same zone and GeoLookup, order-independent. */
function reusableRecord(previous: CompiledSnapshot | undefined, next: BuildInputs): BuildRecord | undefined {
  const record = previous !== undefined ? records.get(previous) : undefined;
  if (record === undefined || !record.reusable || record.zone !== next.zone || record.geo !== next.geo) return undefined;
  return next.byLowerName.size === next.profiles.size ? record : undefined;
}

/** A stable text of an endpoint's override, for change detection (undefined: none). */
export function overrideSignature(o: EndpointOverride | undefined): string | undefined {
  return o === undefined ? undefined : `${o.down ? 'down' : ''}|${o.weight ?? ''}|${o.reason}`;
}

/** The probe verdicts and overrides of `old`'s endpoints are still the ones the previous build read. */
export function sameVerdicts(p: Profile, old: CompiledProfile, seen: ProfileFacts, next: BuildInputs): boolean {
  const eps = old.endpoints;
  for (let i = 0; i < eps.length; i++) {
    const e = eps[i]!.endpoint;
    if (e.type !== 'nestedEndpoints' && next.health.verdict(p.name, e.name) !== seen.verdicts[i]) return false;
    if (
      (next.health.override !== undefined || seen.overrides[i] !== undefined) &&
      overrideSignature(next.health.override?.(p.name, e.name)) !== seen.overrides[i]
    )
      return false;
  }
  return true;
}

/** Profiles that changed themselves (document, verdicts, catalog), are new, or were deleted. */
function changedProfiles(previous: CompiledSnapshot, record: BuildRecord, next: BuildInputs): Set<string> {
  const resourcesChanged = record.resources !== next.resources;
  const changed = new Set<string>();
  for (const [key, p] of next.byLowerName) {
    const old = previous.compiled.get(key);
    const facts = record.facts.get(key);
    const same =
      old !== undefined &&
      old.profile === p &&
      facts !== undefined &&
      !(resourcesChanged && facts.usesResources) &&
      sameVerdicts(p, old, facts, next);
    if (!same) changed.add(key);
  }
  for (const key of previous.compiled.keys()) if (!next.byLowerName.has(key)) changed.add(key); // deleted: their parents change
  return changed;
}

/** Child → the profiles of `next` that nest it (unchanged profiles nest what they nested before). */
function nestingParents(next: BuildInputs, changed: ReadonlySet<string>, record: BuildRecord): Map<string, string[]> {
  const parents = new Map<string, string[]>();
  for (const [key, p] of next.byLowerName) {
    const kids = changed.has(key) ? nestedChildKeys(p) : (record.facts.get(key)?.children ?? nestedChildKeys(p));
    for (const k of kids) {
      const list = parents.get(k);
      if (list) list.push(key);
      else parents.set(k, [key]);
    }
  }
  return parents;
}

/** Adds every profile that nests a member of `dirty`, directly or through others, to it. */
function addAncestors(dirty: Set<string>, parents: ReadonlyMap<string, readonly string[]>): void {
  const queue = [...dirty];
  for (let i = 0; i < queue.length; i++) {
    for (const parent of parents.get(queue[i]!) ?? []) {
      if (!dirty.has(parent)) {
        dirty.add(parent);
        queue.push(parent);
      }
    }
  }
}

/**
 * Lower-cased names of the profiles of `next` that must be compiled again after `previous` (see the
 * module comment), or undefined when `previous` cannot be reused at all and everything is compiled: no
 * previous build, another zone or GeoLookup, or a previous build or input whose result depends on compile
 * order (a nesting loop, two profile names equal but for case).
 */
export function profilesToRecompile(previous: CompiledSnapshot | undefined, next: BuildInputs): ReadonlySet<string> | undefined {
  const record = reusableRecord(previous, next);
  if (record === undefined) return undefined;
  const dirty = changedProfiles(previous!, record, next);
  addAncestors(dirty, nestingParents(next, dirty, record));
  for (const key of dirty) if (!next.byLowerName.has(key)) dirty.delete(key);
  return dirty;
}

/** The compiled profiles (and facts) of `previous` the build of `next` keeps, in `next`'s order; undefined: none. */
export function reusableProfiles(previous: CompiledSnapshot | undefined, next: BuildInputs): Reuse | undefined {
  const dirty = profilesToRecompile(previous, next);
  if (dirty === undefined) return undefined;
  const record = records.get(previous!)!;
  const compiled = new Map<string, CompiledProfile>();
  const facts = new Map<string, ProfileFacts>();
  for (const key of next.byLowerName.keys()) {
    if (dirty.has(key)) continue;
    compiled.set(key, previous!.compiled.get(key)!);
    facts.set(key, record.facts.get(key)!);
  }
  return { compiled, facts };
}
