/**
 * What a store admits: the one write path's rules, applied by every Store implementation inside its write
 * against the view the write commits on (SQLite: in its transaction; etcd: in the optimistic transaction
 * that commits only if nothing changed since). Pure. Because the store applies them itself, no caller can
 * store an invalid profile, and two concurrent writers are judged against the state each one commits on.
 *
 *   putProfile(input)  ── name clash (case-insensitive) ──▶ PROFILE_NAME_CONFLICT (409)
 *                      ── every validation rule, with the other stored profiles as context ──▶ PROFILE_INVALID (400)
 *                      ──▶ the normalized profile and the warnings
 *   deleteProfile(name) ── still a nested endpoint's child ──▶ PROFILE_REFERENCED (409)
 *   editProfile(name, edit) ── missing, If-Match, stack, a renaming edit (admitEdit) ──▶ then as putProfile
 *
 * docs/ARCHITECTURE.md ("One write path") says why the rules live here and not in the API.
 */
import type { Diagnostic } from '../diagnostics';
import { normalizeProfile } from '../model/normalize';
import type { Profile, ProfileInput } from '../model/types';
import { deleteReferenced, nameClash, validateProfile } from '../validate';
import type { ProfileIndex } from '../validate/context';
import { checkPreconditions, checkStack } from './conditions';
import { StoreError, type EditProfileOptions, type ProfileEdit, type StoredProfile, type StoreView } from './types';

/**
 * Store.editProfile's checks and the edit itself, for every store alike: the profile `name` (its stored row,
 * `current`) must exist, match `ifMatch` and belong to `stack` when given; `edit` then builds the input, which
 * must keep the name. What it returns goes to admitProfile like any put, with the stored stack kept.
 */
export function admitEdit<T>(
  name: string,
  current: StoredProfile | undefined,
  edit: (current: StoredProfile) => ProfileEdit<T>,
  options: EditProfileOptions = {},
): ProfileEdit<T> & { current: StoredProfile } {
  if (!current) throw new StoreError('NOT_FOUND', `profile '${name}' does not exist`, { name });
  checkPreconditions(name, current, options.ifMatch, undefined);
  checkStack(name, current, options.stack);
  const { input, value } = edit(current);
  if (writeName(input) !== name)
    throw new StoreError('PRECONDITION_FAILED', `an edit of profile '${name}' must keep its name (it wrote '${String(input.name)}')`, {
      name,
    });
  return { input, value, current };
}

/** A profile the store may write: normalized, with the rule warnings to hand back to the writer. */
export interface Admitted {
  profile: Profile;
  warnings: Diagnostic[];
}

/** The name a write is for, or undefined when the input has none (admitProfile then says what is wrong). */
export function writeName(input: unknown): string | undefined {
  const name = typeof input === 'object' && input !== null ? (input as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * Judges one profile write against `view` (the profile's own stored version, if any, is not context).
 * Throws a StoreError carrying every diagnostic: PROFILE_NAME_CONFLICT, or PROFILE_INVALID with the
 * errors first and then the warnings.
 */
export function admitProfile(view: StoreView, input: unknown): Admitted {
  const name = writeName(input);
  if (name !== undefined) {
    const same = view.index?.byName(name.toLowerCase());
    const clash = nameClash(name, view.index ? (same ? [same.name] : []) : view.profiles.keys());
    if (clash) throw new StoreError('PROFILE_NAME_CONFLICT', clash.message, { name }, [clash]);
  }
  let context: ProfileIndex | Profile[];
  if (view.index) context = view.index;
  else {
    context = [];
    for (const [n, p] of view.profiles) if (n !== name) context.push(p.profile);
  }
  const diagnostics = validateProfile(input, { context });
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0 || name === undefined) {
    const all = [...errors, ...diagnostics.filter((d) => d.severity !== 'error')];
    throw new StoreError(
      'PROFILE_INVALID',
      `profile ${name === undefined ? '(no name)' : `'${name}'`} is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ') || 'it has no name'}`,
      { name },
      all,
    );
  }
  return { profile: normalizeProfile(input as ProfileInput), warnings: diagnostics };
}

/** Judges a delete of `name` against `view`: a profile still nested by another stays (PROFILE_REFERENCED). */
export function admitDelete(view: StoreView, name: string): void {
  let profiles: Profile[];
  if (view.index) profiles = view.index.parentsOf(name.toLowerCase());
  else {
    profiles = [];
    for (const p of view.profiles.values()) profiles.push(p.profile);
  }
  const referenced = deleteReferenced(name, profiles);
  if (referenced) throw new StoreError('PROFILE_REFERENCED', referenced.message, { name }, [referenced]);
}
