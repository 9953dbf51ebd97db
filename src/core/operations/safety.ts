/**
 * The safety rule of `down` overrides (docs/operations.md): an override that would leave a profile with no
 * endpoint able to serve is refused unless forced. "Able to serve" is what routing answers as healthy now:
 * Online, CheckingEndpoint or Unmonitored, with the live verdicts and the overrides already in force, and
 * nested endpoints counted through their child profiles (MinChildEndpoints). The profile of the endpoint
 * and every profile nesting it, directly or not, are checked; a parent that had nothing to serve before is
 * not the override's doing, so only the endpoint's own profile is refused for that.
 */
import { isAvailable } from '../health/status';
import type { EndpointOverride, HealthView } from '../health/types';
import { nestedChildren } from '../model/names';
import type { Profile } from '../model/types';
import type { GeoLookup, ResourceCatalog } from '../ports';
import { buildSnapshot } from '../routing/snapshot';
import type { CompiledProfile } from '../routing/compiled';

export interface SafetyInput {
  /** Every served profile. */
  profiles: Iterable<Profile>;
  /** The verdicts and overrides routing reads now. */
  health: HealthView;
  resources?: ResourceCatalog;
  geo: GeoLookup;
  zone: string;
  /** The endpoint to take down. */
  profile: string;
  endpoint: string;
}

/** One profile the override would leave with nothing to serve, and what it would have left. */
export interface SafetyRefusal {
  profile: string;
  /** Its other endpoints with their status (none of them able to serve). */
  left: Array<{ endpoint: string; status: string }>;
  /** The profile nests the overridden endpoint's profile (directly or not). */
  nesting: boolean;
}

export type SafetyResult = { ok: true } | { ok: false; refusals: SafetyRefusal[]; message: string };

/** Profiles that nest `name`, directly or not (lower-cased names). */
function ancestors(profiles: readonly Profile[], name: string): Set<string> {
  const parents = new Map<string, string[]>();
  for (const p of profiles) for (const c of nestedChildren(p)) parents.set(c, [...(parents.get(c) ?? []), p.name.toLowerCase()]);
  const out = new Set<string>();
  const queue = [name.toLowerCase()];
  while (queue.length > 0)
    for (const p of parents.get(queue.shift()!) ?? [])
      if (!out.has(p)) {
        out.add(p);
        queue.push(p);
      }
  return out;
}

/** The profiles a check compiles: the endpoint's, its ancestors, and everything they nest. */
function relevant(profiles: readonly Profile[], name: string, above: ReadonlySet<string>): Profile[] {
  const byLower = new Map(profiles.map((p) => [p.name.toLowerCase(), p]));
  const keep = new Set<string>([name.toLowerCase(), ...above]);
  const queue = [...keep];
  while (queue.length > 0) {
    const p = byLower.get(queue.shift()!);
    for (const c of p ? nestedChildren(p) : [])
      if (!keep.has(c)) {
        keep.add(c);
        queue.push(c);
      }
  }
  return [...keep].flatMap((k) => {
    const p = byLower.get(k);
    return p ? [p] : [];
  });
}

const serving = (cp: CompiledProfile | undefined): number => (cp ? cp.endpoints.filter((e) => isAvailable(e.status)).length : 0);

/** Checks taking `profile/endpoint` down now; the refusal's message names the profile, what is left, and --force. */
export function checkDownOverride(i: SafetyInput): SafetyResult {
  const all = [...i.profiles];
  const own = all.find((p) => p.name === i.profile) ?? all.find((p) => p.name.toLowerCase() === i.profile.toLowerCase());
  if (!own) return { ok: true };
  const above = ancestors(all, own.name);
  const profiles = relevant(all, own.name, above);
  const key = `${own.name}/${i.endpoint}`;
  const down: HealthView = {
    verdict: (p, e) => i.health.verdict(p, e),
    override: (p, e): EndpointOverride | undefined => {
      const o = i.health.override?.(p, e);
      return `${p}/${e}` === key ? { ...o, down: true, reason: 'the proposed override' } : o;
    },
  };
  const input = { zone: i.zone, profiles, geo: i.geo, ...(i.resources ? { resources: i.resources } : {}) };
  const before = buildSnapshot({ ...input, health: i.health });
  const after = buildSnapshot({ ...input, health: down });
  const refusals: SafetyRefusal[] = [];
  for (const name of [own.name.toLowerCase(), ...[...above].sort()]) {
    const cp = after.compiled.get(name);
    if (!cp || serving(cp) > 0) continue;
    const nesting = name !== own.name.toLowerCase();
    if (nesting && serving(before.compiled.get(name)) === 0) continue;
    refusals.push({
      profile: cp.profile.name,
      nesting,
      left: cp.endpoints
        .filter((e) => !(cp.profile.name === own.name && e.endpoint.name === i.endpoint))
        .map((e) => ({ endpoint: e.endpoint.name, status: e.status })),
    });
  }
  if (refusals.length === 0) return { ok: true };
  const r = refusals[0]!;
  const left = r.left.length === 0 ? 'no other endpoint' : r.left.map((l) => `${l.endpoint} ${l.status}`).join(', ');
  const more =
    refusals.length > 1
      ? ` (and ${refusals
          .slice(1)
          .map((x) => x.profile)
          .join(', ')})`
      : '';
  const message =
    `refused: taking ${own.name}/${i.endpoint} down would leave profile ${r.profile}${r.nesting ? ` (which nests ${own.name})` : ''}${more} ` +
    `with no endpoint able to serve (left: ${left}); pass --force (API: "force": true) to take it out anyway`;
  return { ok: false, refusals, message };
}
