/**
 * The safety rule of traffic operations (docs/operations.md), one for `override down` and `endpoint disable`:
 * a change that would leave a profile with no endpoint able to serve is refused unless forced. It is judged
 * by what routing answers before and after the change, both computed by the routing core (buildSnapshot):
 * refused when the profile answered before and answers nothing after, or when a healthy endpoint (Online,
 * CheckingEndpoint, Unmonitored) answered before and after it only the all-degraded fallback would. So with
 * every endpoint already Degraded (the fallback answering), taking one out while the fallback still answers
 * is no loss: not refused. The endpoint's profile and every profile nesting it, directly or not, are checked,
 * with the live verdicts, the overrides in force and nested children (MinChildEndpoints).
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
  /** The endpoint the change is about. */
  profile: string;
  endpoint: string;
}

/** The change judged: a `down` override of the endpoint, or its profile as it would be stored (`endpoint disable`, an endpoint PATCH). */
export type SafetyChange = { kind: 'down' } | { kind: 'edit'; after: Profile; verb?: string };

/** One profile the change would leave with nothing to serve, and what it would have left. */
export interface SafetyRefusal {
  profile: string;
  /** Its other endpoints with their status (none of them able to serve), after the change. */
  left: Array<{ endpoint: string; status: string; override?: string }>;
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

/** What a compiled profile answers with: every endpoint, and the healthy ones (not only through the all-degraded fallback). */
function answers(cp: CompiledProfile | undefined): { any: number; healthy: number } {
  const usable = cp ? cp.endpoints.filter((e) => e.usable) : [];
  return { any: usable.length, healthy: usable.filter((e) => isAvailable(e.status)).length };
}

/** `backup Degraded`, or `primary (override ov-… down)` for one an override holds out whatever its health. */
function leftWords(l: SafetyRefusal['left'][number]): string {
  return l.override ? `${l.endpoint} (override ${l.override} down)` : `${l.endpoint} ${l.status}`;
}

/** Checks taking `profile/endpoint` down now; the refusal's message names the profile, what is left, and --force. */
export function checkDownOverride(i: SafetyInput): SafetyResult {
  return checkSafety(i, { kind: 'down' });
}

/**
 * Checks a change of `profile/endpoint` (a down override, or the profile as an edit would store it) by what
 * routing answers before and after it; the refusal's message names the profile, what is left, and --force.
 */
export function checkSafety(i: SafetyInput, change: SafetyChange): SafetyResult {
  const all = [...i.profiles];
  const own = all.find((p) => p.name === i.profile) ?? all.find((p) => p.name.toLowerCase() === i.profile.toLowerCase());
  if (!own) return { ok: true };
  const above = ancestors(all, own.name);
  const profiles = relevant(all, own.name, above);
  const key = `${own.name}/${i.endpoint}`;
  const afterHealth: HealthView =
    change.kind === 'down'
      ? {
          verdict: (p, e) => i.health.verdict(p, e),
          override: (p, e): EndpointOverride | undefined => {
            const o = i.health.override?.(p, e);
            return `${p}/${e}` === key ? { ...o, down: true, reason: 'the proposed override' } : o;
          },
        }
      : i.health;
  const afterProfiles = change.kind === 'down' ? profiles : profiles.map((p) => (p === own ? change.after : p));
  const input = { zone: i.zone, geo: i.geo, ...(i.resources ? { resources: i.resources } : {}) };
  const before = buildSnapshot({ ...input, profiles, health: i.health });
  const after = buildSnapshot({ ...input, profiles: afterProfiles, health: afterHealth });
  const refusals: SafetyRefusal[] = [];
  for (const name of [own.name.toLowerCase(), ...[...above].sort()]) {
    const cp = after.compiled.get(name);
    if (!cp) continue;
    const was = answers(before.compiled.get(name));
    const now = answers(cp);
    const lost = (was.any > 0 && now.any === 0) || (was.healthy > 0 && now.healthy === 0);
    if (!lost) continue;
    refusals.push({
      profile: cp.profile.name,
      nesting: name !== own.name.toLowerCase(),
      left: cp.endpoints
        .filter((e) => !(cp.profile.name === own.name && e.endpoint.name === i.endpoint))
        .map((e) => ({
          endpoint: e.endpoint.name,
          status: e.status,
          ...(e.override?.down && e.override.downId ? { override: e.override.downId } : {}),
        })),
    });
  }
  if (refusals.length === 0) return { ok: true };
  const r = refusals[0]!;
  const left = r.left.length === 0 ? 'no other endpoint' : r.left.map(leftWords).join(', ');
  const more =
    refusals.length > 1
      ? ` (and ${refusals
          .slice(1)
          .map((x) => x.profile)
          .join(', ')})`
      : '';
  const what = change.kind === 'down' ? `taking ${own.name}/${i.endpoint} down` : `${change.verb ?? 'changing'} ${own.name}/${i.endpoint}`;
  const force =
    change.kind === 'down' ? 'pass --force (API: "force": true) to take it out anyway' : 'pass --force (API: ?force=true) to do it anyway';
  const message =
    `refused: ${what} would leave profile ${r.profile}${r.nesting ? ` (which nests ${own.name})` : ''}${more} ` +
    `with no endpoint able to serve (left: ${left}); ${force}`;
  return { ok: false, refusals, message };
}
