/**
 * Rules about a profile's relation to the other stored profiles that every write path enforces (the API,
 * any Store implementation's writers, the providers): a profile that a nested endpoint still points at
 * cannot be deleted, and profile names are unique case-insensitively (as in Azure).
 */
import { problem, type Diagnostic } from '../diagnostics';
import { childProfileName } from '../model/names';
import type { Profile } from '../model/types';

/** Nested endpoints (`parent/endpoint`) among `profiles` whose child is `name` (compared case-insensitively). */
export function referrersOf(name: string, profiles: Iterable<Profile>): string[] {
  const lower = name.toLowerCase();
  const out: string[] = [];
  for (const p of profiles) {
    if (p.name.toLowerCase() === lower) continue;
    for (const e of p.endpoints) {
      if (e.type === 'nestedEndpoints' && e.targetResourceId !== undefined && childProfileName(e.targetResourceId).toLowerCase() === lower)
        out.push(`${p.name}/${e.name}`);
    }
  }
  return out;
}

/** PROFILE_REFERENCED when `name` is still a nested endpoint's child; undefined when it may be deleted. */
export function deleteReferenced(name: string, profiles: Iterable<Profile>): Diagnostic | undefined {
  const refs = referrersOf(name, profiles);
  if (refs.length === 0) return undefined;
  const many = refs.length > 1;
  return problem(
    'PROFILE_REFERENCED',
    `profile '${name}' is still the child of nested endpoint${many ? 's' : ''} ` +
      `${refs.map((r) => `'${r}'`).join(', ')}; remove or retarget ${many ? 'them' : 'it'} first`,
    { path: `profiles[${name}]` },
  );
}

/** PROFILE_NAME_CONFLICT when another stored profile has `name` in another case; undefined otherwise. */
export function nameClash(name: string, stored: Iterable<string>): Diagnostic | undefined {
  const lower = name.toLowerCase();
  for (const s of stored) {
    if (s !== name && s.toLowerCase() === lower) {
      return problem(
        'PROFILE_NAME_CONFLICT',
        `profile names are case-insensitive (as in Azure) and profile '${s}' already exists; use that name or delete it first`,
        { path: `profiles[${name}].name` },
      );
    }
  }
  return undefined;
}
