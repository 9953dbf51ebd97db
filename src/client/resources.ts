/**
 * Resource-level operations for tools that manage a profile's settings and each endpoint as separate
 * resources (Terraform's tmkit_profile / tmkit_*_endpoint, Pulumi's Profile / Endpoint; design §8): one
 * profile's settings, or one endpoint, created, read, updated and deleted through the endpoint-level API,
 * always with the owner's stack and with ETag preconditions. Provider-neutral: inputs and outputs are ARM
 * names (core/model/types); mapping to a tool's own attribute names is the provider's job.
 *
 * Ownership rules (design §8 "Ownership"): nothing here writes a profile of another stack (409 from the
 * server, or RESOURCE_NOT_OWNED before any write), an update or delete whose object changed since the
 * caller last saw it fails with RESOURCE_CHANGED (never overwrites), a create that finds the object fails
 * with RESOURCE_EXISTS (never adopts it: import it instead), and deleting a profile that still has endpoints
 * fails with RESOURCE_HAS_ENDPOINTS (they belong to other resources or to nobody we know).
 */
import { TmkitError, type Diagnostic } from '../core/diagnostics';
import { normalizeProfile } from '../core/model/normalize';
import { jsonEqual } from '../core/plan/attributes';
import type { Endpoint, EndpointInput, Profile, ProfileInput } from '../core/model/types';
import type { TmkitClient } from './client';
import { TmkitApiError } from './errors';

/** A profile's settings as written: everything of a profile input but its endpoints. */
export type ProfileSettingsInput = Omit<ProfileInput, 'endpoints'>;
/** A profile's stored (normalized) settings. */
export type ProfileSettings = Omit<Profile, 'endpoints'>;

export interface OwnedProfile {
  settings: ProfileSettings;
  /** Names of the endpoints the profile has now (whoever manages them). */
  endpointNames: string[];
  /** The profile's ETag (changes with any write to the profile, endpoints included). */
  etag: string;
  stack: string;
}

export interface OwnedEndpoint {
  /** The profile's stored name. */
  profile: string;
  endpoint: Endpoint;
  /** The endpoint's own ETag (changes only when this endpoint changes). */
  etag: string;
  stack: string;
  profileEtag: string;
}

export type ResourceErrorCode = 'RESOURCE_EXISTS' | 'RESOURCE_NOT_OWNED' | 'RESOURCE_CHANGED' | 'RESOURCE_GONE' | 'RESOURCE_HAS_ENDPOINTS';

/** A refused resource operation; `hint` says what to do. Server validation errors stay `TmkitApiError`s. */
export class ResourceError extends TmkitError {
  constructor(code: ResourceErrorCode, message: string, readonly hint: string, diagnostics: readonly Diagnostic[] = []) {
    super(code, `${message}; ${hint}`, diagnostics);
  }
}

const settingsOf = (p: Profile): ProfileSettings => {
  const { endpoints: _e, ...s } = p;
  return s;
};

/** A copy without the `keys` a tool does not model (they are neither compared nor written). */
function without<T extends object>(o: T, keys: readonly string[]): T {
  if (keys.length === 0) return o;
  const out = { ...o } as Record<string, unknown>;
  for (const k of keys) delete out[k];
  return out as T;
}

/** The normalized form of settings as written (defaults filled in). */
export function normalizeSettings(input: ProfileSettingsInput): ProfileSettings {
  return settingsOf(normalizeProfile({ ...input, endpoints: [] }));
}

/** The normalized form of one endpoint as written (in a profile of `method`; a missing priority stays missing). */
export function normalizeEndpoint(input: EndpointInput, priority?: number): Endpoint {
  const e = normalizeProfile({ name: '_', trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: '_' }, endpoints: [input] }).endpoints[0]!;
  if (input.priority === undefined && priority !== undefined) e.priority = priority;
  return e;
}

/**
 * A JSON merge patch (RFC 7396) that turns `current` into `desired`: changed values, nested objects
 * recursively, and `null` for every member `desired` no longer has.
 */
export function replacementPatch(current: Record<string, unknown>, desired: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  for (const k of Object.keys(current)) if (desired[k] === undefined && current[k] !== undefined) patch[k] = null;
  for (const [k, v] of Object.entries(desired)) {
    if (v === undefined) continue;
    const c = current[k];
    if (isObj(c) && isObj(v)) {
      const inner = replacementPatch(c, v);
      if (Object.keys(inner).length > 0) patch[k] = inner;
    } else if (!jsonEqual(c, v)) patch[k] = v;
  }
  return patch;
}

const status = (err: unknown): number | undefined => (err instanceof TmkitApiError ? err.status : undefined);

/**
 * Profile settings and single endpoints of one stack. `stack` is the owner every write carries (Terraform's
 * provider `stack`, default "terraform"; Pulumi's `tmkit:stack`, default "pulumi").
 */
export class StackResources {
  constructor(readonly client: TmkitClient, readonly stack: string) {}

  private notOwned(what: string, owner: string): ResourceError {
    return new ResourceError('RESOURCE_NOT_OWNED', `${what} is owned by stack '${owner}', not '${this.stack}'`,
      `leave it to its owner, or manage it from stack '${owner}'; this configuration never writes another stack's profiles`);
  }

  // ------------------------------------------------------------------------------------ profile settings

  /** The profile's settings, or undefined when it does not exist. Another stack's profile is RESOURCE_NOT_OWNED. */
  async readProfile(name: string): Promise<OwnedProfile | undefined> {
    const entry = await this.client.findProfile(name);
    if (!entry) return undefined;
    if (entry.stack !== this.stack) throw this.notOwned(`profile '${entry.profile.name}'`, entry.stack);
    return { settings: settingsOf(entry.profile), endpointNames: entry.profile.endpoints.map((e) => e.name), etag: entry.etag, stack: entry.stack };
  }

  /** Creates the profile with no endpoints (`If-None-Match: *`). An existing one is RESOURCE_EXISTS, never adopted. */
  async createProfile(settings: ProfileSettingsInput, importHint = 'import it instead of creating it'): Promise<OwnedProfile> {
    try {
      const r = await this.client.putProfile({ ...settings, endpoints: [] }, { stack: this.stack, ifNoneMatch: '*' });
      return { settings: settingsOf(r.profile), endpointNames: [], etag: r.etag, stack: r.stack ?? this.stack };
    } catch (err) {
      if (status(err) === 412 || (err instanceof TmkitApiError && err.code === 'STACK_CONFLICT')) {
        const existing = await this.client.findProfile(settings.name);
        const owner = existing ? ` (stack '${existing.stack}')` : '';
        throw new ResourceError('RESOURCE_EXISTS', `profile '${settings.name}' already exists${owner}`,
          existing && existing.stack !== this.stack ? `choose another name; stack '${existing.stack}' owns this one` : importHint);
      }
      throw err;
    }
  }

  /**
   * Writes the profile's settings (a merge patch that never touches its endpoints). `basedOn`: the settings
   * the caller last saw; when the stored ones differ, someone else changed them and this is RESOURCE_CHANGED.
   * A concurrent endpoint write (which changes the profile's ETag) is retried. `unmanaged`: settings the
   * tool does not model (e.g. `allowedEndpointRecordTypes`), kept as stored and left out of the comparison.
   */
  async updateProfile(name: string, settings: ProfileSettingsInput, basedOn?: ProfileSettingsInput | ProfileSettings, opts: { unmanaged?: readonly string[] } = {}): Promise<OwnedProfile> {
    const unmanaged = opts.unmanaged ?? [];
    const desired = without(normalizeSettings(settings), unmanaged);
    for (let attempt = 0; ; attempt++) {
      const current = await this.readProfile(name);
      if (!current) {
        throw new ResourceError('RESOURCE_GONE', `profile '${name}' no longer exists`, 'someone deleted it; refresh (terraform refresh / pulumi refresh) and create it again');
      }
      if (basedOn && !jsonEqual(without(current.settings, unmanaged), without(normalizeSettings(basedOn as ProfileSettingsInput), unmanaged))) {
        throw new ResourceError('RESOURCE_CHANGED', `profile '${name}' was changed by someone else since it was last read`,
          'refresh (terraform refresh / pulumi refresh) to see the change, then plan and apply again');
      }
      const patch = replacementPatch(without(current.settings, unmanaged) as unknown as Record<string, unknown>, desired as unknown as Record<string, unknown>);
      delete patch.name;
      if (Object.keys(patch).length === 0) return current;
      try {
        const r = await this.client.patchProfile(current.settings.name, patch, { stack: this.stack, ifMatch: current.etag });
        return { settings: settingsOf(r.profile), endpointNames: r.profile.endpoints.map((e) => e.name), etag: r.etag, stack: r.stack ?? this.stack };
      } catch (err) {
        if (status(err) === 412 && attempt < 3) continue;
        throw err;
      }
    }
  }

  /**
   * Deletes the profile. It must have no endpoints left (they are other resources'); a profile that is gone
   * already is fine. `basedOn` as in updateProfile.
   */
  async deleteProfile(name: string, basedOn?: ProfileSettingsInput | ProfileSettings, opts: { unmanaged?: readonly string[] } = {}): Promise<void> {
    const unmanaged = opts.unmanaged ?? [];
    for (let attempt = 0; ; attempt++) {
      const current = await this.readProfile(name);
      if (!current) return;
      if (current.endpointNames.length > 0) {
        throw new ResourceError('RESOURCE_HAS_ENDPOINTS', `profile '${current.settings.name}' still has endpoint(s) ${current.endpointNames.map((e) => `'${e}'`).join(', ')} that this configuration does not manage`,
          'delete them first (or manage them here: import them), then destroy the profile');
      }
      if (basedOn && !jsonEqual(without(current.settings, unmanaged), without(normalizeSettings(basedOn as ProfileSettingsInput), unmanaged))) {
        throw new ResourceError('RESOURCE_CHANGED', `profile '${name}' was changed by someone else since it was last read`, 'refresh to see the change, then destroy again');
      }
      try {
        await this.client.deleteProfile(current.settings.name, { stack: this.stack, ifMatch: current.etag });
        return;
      } catch (err) {
        if (status(err) === 404) return;
        if (status(err) === 412 && attempt < 3) continue;
        throw err;
      }
    }
  }

  // ------------------------------------------------------------------------------------------ endpoints

  /** One endpoint, or undefined when it (or its profile) does not exist. Another stack's is RESOURCE_NOT_OWNED. */
  async readEndpoint(profile: string, name: string): Promise<OwnedEndpoint | undefined> {
    try {
      const r = await this.client.getEndpoint(profile, name);
      if (r.stack !== this.stack) throw this.notOwned(`endpoint '${profile}/${r.endpoint.name}' (its profile)`, r.stack);
      const entry = await this.client.findProfile(profile);
      return { profile: entry?.profile.name ?? profile, endpoint: r.endpoint, etag: r.etag, stack: r.stack, profileEtag: r.profileEtag };
    } catch (err) {
      if (status(err) === 404) return undefined;
      throw err;
    }
  }

  /**
   * Creates one endpoint (`If-None-Match: *`): an existing endpoint of that name is RESOURCE_EXISTS, never
   * replaced. The server validates the whole resulting profile; its 400 names the conflicting endpoint.
   */
  async createEndpoint(profile: string, endpoint: EndpointInput, importHint = 'import it instead of creating it'): Promise<OwnedEndpoint> {
    await this.ownedProfileFor(profile, endpoint.name);
    try {
      const r = await this.client.putEndpoint(profile, endpoint, { stack: this.stack, ifNoneMatch: '*' });
      return { profile: r.profile, endpoint: r.endpoint, etag: r.etag, stack: r.stack, profileEtag: r.profileEtag };
    } catch (err) {
      if (status(err) === 412) throw new ResourceError('RESOURCE_EXISTS', `endpoint '${profile}/${endpoint.name}' already exists`, importHint);
      throw err;
    }
  }

  /**
   * Replaces one endpoint with `endpoint`, conditionally on the endpoint the caller last saw (`basedOn`):
   * when the stored one differs (someone else changed it), RESOURCE_CHANGED and nothing is written. A
   * missing priority keeps the stored one.
   */
  async updateEndpoint(profile: string, endpoint: EndpointInput, basedOn?: EndpointInput | Endpoint): Promise<OwnedEndpoint> {
    const current = await this.readEndpoint(profile, endpoint.name);
    if (!current) {
      throw new ResourceError('RESOURCE_GONE', `endpoint '${profile}/${endpoint.name}' no longer exists`, 'someone deleted it; refresh (terraform refresh / pulumi refresh) and create it again');
    }
    if (basedOn && !jsonEqual(normalizeEndpoint(basedOn as EndpointInput, current.endpoint.priority), current.endpoint)) {
      throw new ResourceError('RESOURCE_CHANGED', `endpoint '${profile}/${endpoint.name}' was changed by someone else since it was last read`,
        'refresh (terraform refresh / pulumi refresh) to see the change, then plan and apply again');
    }
    const body: EndpointInput = endpoint.priority === undefined ? { ...endpoint, priority: current.endpoint.priority } : endpoint;
    try {
      const r = await this.client.putEndpoint(current.profile, body, { stack: this.stack, ifMatch: current.etag });
      return { profile: r.profile, endpoint: r.endpoint, etag: r.etag, stack: r.stack, profileEtag: r.profileEtag };
    } catch (err) {
      if (status(err) === 412) {
        throw new ResourceError('RESOURCE_CHANGED', `endpoint '${profile}/${endpoint.name}' was changed by someone else while it was being written`, 'refresh, then plan and apply again');
      }
      throw err;
    }
  }

  /** Deletes one endpoint (gone already is fine); `basedOn` as in updateEndpoint. */
  async deleteEndpoint(profile: string, name: string, basedOn?: EndpointInput | Endpoint): Promise<void> {
    const current = await this.readEndpoint(profile, name);
    if (!current) return;
    if (basedOn && !jsonEqual(normalizeEndpoint(basedOn as EndpointInput, current.endpoint.priority), current.endpoint)) {
      throw new ResourceError('RESOURCE_CHANGED', `endpoint '${profile}/${name}' was changed by someone else since it was last read`, 'refresh to see the change, then destroy again');
    }
    try {
      await this.client.deleteEndpoint(current.profile, current.endpoint.name, { stack: this.stack, ifMatch: current.etag });
    } catch (err) {
      if (status(err) === 404) return;
      if (status(err) === 412) throw new ResourceError('RESOURCE_CHANGED', `endpoint '${profile}/${name}' was changed by someone else while it was being deleted`, 'refresh, then destroy again');
      throw err;
    }
  }

  /** The profile an endpoint is written into must exist and be this stack's. */
  private async ownedProfileFor(profile: string, endpoint: string): Promise<Profile> {
    const entry = await this.client.findProfile(profile);
    if (!entry) {
      throw new ResourceError('RESOURCE_GONE', `profile '${profile}' of endpoint '${endpoint}' does not exist`,
        'create the profile first (reference its id, e.g. profile_id = tmkit_profile.x.id, so it is created before its endpoints)');
    }
    if (entry.stack !== this.stack) throw this.notOwned(`profile '${entry.profile.name}'`, entry.stack);
    return entry.profile;
  }
}
