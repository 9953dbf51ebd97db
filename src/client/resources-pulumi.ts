/**
 * Resource-level writes for the providers (design §8, "Ownership"): one profile or one endpoint at a time,
 * as Terraform and Pulumi resources manage them. Every write carries the provider's stack and a
 * precondition, so a provider never overwrites or deletes what it does not own, and a write that finds the
 * object changed by someone else fails with a message that says what changed and what to do. Nothing is
 * validated here: the server validates every write whole (400 names the path). Names are ARM's (the tmkit
 * model's). Provider-neutral: the caller says how its users refresh (`refreshHint`).
 *
 * Two kinds of profile resource:
 * - one that **owns its endpoints** (azure-native's Profile with `endpoints`, or a document): a PUT of the
 *   whole profile, `If-Match` with the ETag the provider last saw (any change by someone else is a conflict);
 * - one that **owns only its settings** (its endpoints are separate resources): a merge patch of the
 *   settings that never touches endpoints. Its conflict check compares the settings the provider last saw
 *   with the stored ones, since the profile's ETag moves whenever one of its endpoint resources writes; the
 *   patch is then sent with `If-Match` of the version compared, and re-done when an endpoint write slipped in.
 * Endpoints are written one at a time with their own ETag, which changes only when that endpoint changes.
 */
import { TmkitError } from '../core/diagnostics';
import type { ProfileEntry } from '../core/api';
import { mergePatchFrom } from '../core/model/edit';
import { normalizeProfile } from '../core/model/normalize';
import type { Endpoint, EndpointInput, Profile, ProfileInput } from '../core/model/types';
import { diffAttributes, jsonEqual } from '../core/plan/attributes';
import type { AttributeChange } from '../core/plan/types';
import type { TmkitClient } from './client';
import { TmkitApiError } from './errors';

export type ResourceErrorCode = 'RESOURCE_CHANGED' | 'RESOURCE_EXISTS' | 'RESOURCE_NOT_OWNED' | 'RESOURCE_HAS_ENDPOINTS' | 'RESOURCE_PROFILE_MISSING';

/** A resource-level write that was refused before or by the server; nothing was written. */
export class ResourceError extends TmkitError {
  constructor(code: ResourceErrorCode, message: string, override readonly cause?: unknown) {
    super(code, message);
  }
}

export interface ResourceOptions {
  /** The provider's tmkit stack: it owns what it creates, and never writes another stack's profiles. */
  stack: string;
  /** How the provider's users bring their state up to date, appended to conflict messages. */
  refreshHint?: string;
}

/** What the provider recorded of a profile after its last write or read. */
export interface PriorProfile {
  /** The stored (normalized) profile as last seen. */
  profile: Profile;
  /** Its ETag then (needed when the resource owns its endpoints; read again when absent). */
  etag?: string;
}

export interface PriorEndpoint {
  endpoint: Endpoint;
  /** The endpoint's own ETag then. */
  etag: string;
}

/** One endpoint as stored, with its ETag and its profile's stack and ETag. */
export interface EndpointState {
  profile: string;
  endpoint: Endpoint;
  etag: string;
  stack: string;
  profileEtag: string;
}

const DEFAULT_REFRESH = 'refresh the state to see the change (or to take it in), then apply again';
/** Times a settings patch is redone when an endpoint write changed the profile's ETag in between. */
const PATCH_ATTEMPTS = 8;

const apiError = (err: unknown, status: number, code?: string): boolean =>
  err instanceof TmkitApiError && err.status === status && (code === undefined || err.code === code);

/** A profile's settings: everything but its endpoints. */
export function profileSettings(p: Profile): Omit<Profile, 'endpoints'> {
  const { endpoints: _e, ...settings } = p;
  return settings;
}

/** `a.b "x" → "y"; c (added)`: the changes someone else made, for conflict messages (at most 5 shown). */
export function describeChanges(changes: readonly AttributeChange[]): string {
  const show = (v: unknown): string => (v === undefined ? '∅' : JSON.stringify(v));
  const parts = changes.slice(0, 5).map((c) => {
    const at = c.path === '' ? '(the whole object)' : c.path;
    if (c.kind === 'add') return `${at} added`;
    if (c.kind === 'remove') return `${at} removed`;
    if (c.kind === 'reorder') return `${at} reordered`;
    return `${at} ${show(c.before)} → ${show(c.after)}`;
  });
  return parts.join('; ') + (changes.length > 5 ? `; and ${changes.length - 5} more` : '');
}

function changedError(what: string, changes: readonly AttributeChange[] | 'deleted', o: ResourceOptions, cause?: unknown): ResourceError {
  const detail = changes === 'deleted' ? 'it was deleted' : changes.length > 0 ? describeChanges(changes) : 'its ETag changed';
  const verb = what.startsWith('the settings') ? 'were' : 'was';
  return new ResourceError('RESOURCE_CHANGED', `${what} ${verb} changed by someone else since it was last read (${detail}); nothing was written: ${o.refreshHint ?? DEFAULT_REFRESH}`, cause);
}

function notOwned(name: string, owner: string, o: ResourceOptions, cause?: unknown): ResourceError {
  return new ResourceError('RESOURCE_NOT_OWNED',
    `profile '${name}' belongs to tmkit stack '${owner}', not to this provider's stack '${o.stack}', so it is never written: ` +
      `use another profile name, or set the provider's stack to '${owner}' if this program is meant to own it`, cause);
}

function exists(what: string, hint: string, cause?: unknown): ResourceError {
  return new ResourceError('RESOURCE_EXISTS', `${what} already exists, so it was not created: ${hint}`, cause);
}

/** Throws RESOURCE_NOT_OWNED when the stored profile belongs to another stack. */
function assertOwned(entry: ProfileEntry, o: ResourceOptions): void {
  if (entry.stack !== o.stack) throw notOwned(entry.profile.name, entry.stack, o);
}

/** Translates the server's ownership refusals; anything else is rethrown as is (it carries every diagnostic). */
async function ownershipOf(err: unknown, client: TmkitClient, name: string, o: ResourceOptions): Promise<never> {
  if (apiError(err, 409, 'STACK_CONFLICT')) {
    const current = await client.findProfile(name);
    throw notOwned(current?.profile.name ?? name, current?.stack ?? 'another stack', o, err);
  }
  throw err;
}

// ---------------------------------------------------------------------------------------------------
// Profiles

export function readProfile(client: TmkitClient, name: string): Promise<ProfileEntry | undefined> {
  return client.findProfile(name);
}

/**
 * Creates the profile (`If-None-Match: *`): with its endpoints when the resource owns them, else with none
 * (its endpoint resources add theirs). An existing profile is never overwritten.
 */
export async function createProfile(client: TmkitClient, input: ProfileInput, o: ResourceOptions & { ownsEndpoints: boolean }): Promise<ProfileEntry> {
  const body: ProfileInput = o.ownsEndpoints ? input : { ...input, endpoints: [] };
  try {
    const r = await client.putProfile(body, { stack: o.stack, ifNoneMatch: '*' });
    return { name: r.name, stack: r.stack, etag: r.etag, profile: r.profile };
  } catch (err) {
    if (apiError(err, 412) || apiError(err, 409, 'STACK_CONFLICT')) {
      const current = await client.findProfile(input.name);
      if (current && current.stack !== o.stack) throw notOwned(current.profile.name, current.stack, o, err);
      throw exists(`profile '${current?.profile.name ?? input.name}' (tmkit stack '${current?.stack ?? o.stack}')`,
        'import it into this program (its id, or its name), or choose another profileName', err);
    }
    throw err;
  }
}

/**
 * Updates the profile. Owning its endpoints: a PUT of the whole profile with `If-Match` (the prior ETag, or
 * that of the stored version after comparing it with the prior profile). `adoptEndpoints`: the resource
 * declares endpoints from now on, so it takes over the whole set (its settings are compared). Owning only its
 * settings: a merge patch of the settings, after checking that nobody else changed them.
 */
export async function updateProfile(client: TmkitClient, input: ProfileInput, o: ResourceOptions & { ownsEndpoints: boolean; prior: PriorProfile; adoptEndpoints?: boolean }): Promise<ProfileEntry> {
  const name = o.prior.profile.name;
  if (o.ownsEndpoints) {
    let ifMatch = o.adoptEndpoints ? undefined : o.prior.etag;
    if (ifMatch === undefined) {
      // No ETag to hold the profile to: compare what was seen with what is stored (only the settings when the
      // resource starts owning the endpoints now), then PUT If-Match the version compared.
      const current = await client.findProfile(name);
      if (!current) throw changedError(`profile '${name}'`, 'deleted', o);
      assertOwned(current, o);
      const changes = o.adoptEndpoints
        ? diffAttributes(profileSettings(o.prior.profile), profileSettings(current.profile))
        : diffAttributes(o.prior.profile, current.profile);
      if (changes.length > 0) throw changedError(o.adoptEndpoints ? `the settings of profile '${name}'` : `profile '${name}'`, changes, o);
      ifMatch = current.etag;
    }
    try {
      const r = await client.putProfile(input, { stack: o.stack, ifMatch });
      return { name: r.name, stack: r.stack, etag: r.etag, profile: r.profile };
    } catch (err) {
      if (apiError(err, 412)) {
        const current = await client.findProfile(name);
        throw changedError(`profile '${name}'`, current ? diffAttributes(o.prior.profile, current.profile) : 'deleted', o, err);
      }
      return ownershipOf(err, client, name, o);
    }
  }
  const desired = profileSettings(normalizeProfile({ ...input, endpoints: [] }));
  for (let attempt = 1; ; attempt++) {
    const current = await client.findProfile(name);
    if (!current) throw changedError(`profile '${name}'`, 'deleted', o);
    assertOwned(current, o);
    const theirs = diffAttributes(profileSettings(o.prior.profile), profileSettings(current.profile));
    if (theirs.length > 0) throw changedError(`the settings of profile '${name}'`, theirs, o);
    const patch = mergePatchFrom(profileSettings(current.profile), { ...desired, name: current.profile.name }) as Record<string, unknown>;
    if (Object.keys(patch).length === 0) return current;
    try {
      const r = await client.patchProfile(current.profile.name, patch, { stack: o.stack, ifMatch: current.etag });
      return { name: r.name, stack: r.stack, etag: r.etag, profile: r.profile };
    } catch (err) {
      // An endpoint resource wrote in between (the ETag moved); compare and patch again.
      if (apiError(err, 412) && attempt < PATCH_ATTEMPTS) continue;
      return ownershipOf(err, client, name, o);
    }
  }
}

/**
 * Deletes the profile. Owning its endpoints: `If-Match` with the prior ETag. Owning only its settings: after
 * checking its settings, and only once it has no endpoints left (those belong to other resources, which
 * delete their own).
 */
export async function deleteProfile(client: TmkitClient, o: ResourceOptions & { ownsEndpoints: boolean; prior: PriorProfile }): Promise<void> {
  const name = o.prior.profile.name;
  for (let attempt = 1; ; attempt++) {
    const current = await client.findProfile(name);
    if (!current) return; // already gone: the goal of a delete
    assertOwned(current, o);
    let ifMatch: string;
    if (o.ownsEndpoints) {
      if (o.prior.etag !== undefined && current.etag !== o.prior.etag || o.prior.etag === undefined && !jsonEqual(o.prior.profile, current.profile)) {
        throw changedError(`profile '${name}'`, diffAttributes(o.prior.profile, current.profile), o);
      }
      ifMatch = current.etag;
    } else {
      const theirs = diffAttributes(profileSettings(o.prior.profile), profileSettings(current.profile));
      if (theirs.length > 0) throw changedError(`the settings of profile '${name}'`, theirs, o);
      if (current.profile.endpoints.length > 0) {
        throw new ResourceError('RESOURCE_HAS_ENDPOINTS',
          `profile '${name}' still has endpoint(s) ${current.profile.endpoints.map((e) => `'${e.name}'`).join(', ')}, which this profile resource does not manage ` +
            '(it declares no endpoints), so it is not deleted: delete those endpoints (or their resources) first, or declare endpoints on the profile to own them');
      }
      ifMatch = current.etag;
    }
    try {
      await client.deleteProfile(current.profile.name, { stack: o.stack, ifMatch });
      return;
    } catch (err) {
      if (apiError(err, 404)) return;
      if (apiError(err, 412) && attempt < PATCH_ATTEMPTS) continue;
      return ownershipOf(err, client, name, o);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Endpoints

/** One endpoint with its ETag, or undefined when it (or its profile) does not exist. */
export async function readEndpoint(client: TmkitClient, profile: string, name: string): Promise<EndpointState | undefined> {
  try {
    const r = await client.getEndpoint(profile, name);
    return { profile, ...r };
  } catch (err) {
    if (apiError(err, 404)) return undefined;
    throw err;
  }
}

async function endpointWriteError(err: unknown, client: TmkitClient, profile: string, o: ResourceOptions): Promise<never> {
  if (apiError(err, 404)) {
    throw new ResourceError('RESOURCE_PROFILE_MISSING',
      `profile '${profile}' does not exist, so its endpoint cannot be written: create the profile first ` +
        '(give the endpoint the profile resource\'s name output, so the profile is created before its endpoints)', err);
  }
  return ownershipOf(err, client, profile, o);
}

/** Creates one endpoint (`If-None-Match: *`); an existing endpoint of that name is never overwritten. */
export async function createEndpoint(client: TmkitClient, profile: string, input: EndpointInput, o: ResourceOptions): Promise<EndpointState> {
  try {
    const r = await client.putEndpoint(profile, input, { stack: o.stack, ifNoneMatch: '*' });
    return { profile: r.profile, endpoint: r.endpoint, etag: r.etag, stack: r.stack, profileEtag: r.profileEtag };
  } catch (err) {
    if (apiError(err, 412)) {
      throw exists(`endpoint '${input.name}' of profile '${profile}'`, 'import it into this program (its id), or choose another endpointName', err);
    }
    return endpointWriteError(err, client, profile, o);
  }
}

/** Replaces one endpoint, `If-Match` its prior ETag: a change by someone else is refused with what changed. */
export async function updateEndpoint(client: TmkitClient, profile: string, input: EndpointInput, o: ResourceOptions & { prior: PriorEndpoint }): Promise<EndpointState> {
  try {
    const r = await client.putEndpoint(profile, input, { stack: o.stack, ifMatch: o.prior.etag });
    return { profile: r.profile, endpoint: r.endpoint, etag: r.etag, stack: r.stack, profileEtag: r.profileEtag };
  } catch (err) {
    if (apiError(err, 412)) {
      const current = await readEndpoint(client, profile, o.prior.endpoint.name);
      throw changedError(`endpoint '${profile}/${o.prior.endpoint.name}'`, current ? diffAttributes(o.prior.endpoint, current.endpoint) : 'deleted', o, err);
    }
    return endpointWriteError(err, client, profile, o);
  }
}

/** Deletes one endpoint, `If-Match` its prior ETag; one already gone (or whose profile is) is fine. */
export async function deleteEndpoint(client: TmkitClient, profile: string, o: ResourceOptions & { prior: PriorEndpoint }): Promise<void> {
  try {
    await client.deleteEndpoint(profile, o.prior.endpoint.name, { stack: o.stack, ifMatch: o.prior.etag });
  } catch (err) {
    if (apiError(err, 404)) return;
    if (apiError(err, 412)) {
      const current = await readEndpoint(client, profile, o.prior.endpoint.name);
      if (!current) return;
      throw changedError(`endpoint '${profile}/${o.prior.endpoint.name}'`, diffAttributes(o.prior.endpoint, current.endpoint), o, err);
    }
    return ownershipOf(err, client, profile, o);
  }
}
