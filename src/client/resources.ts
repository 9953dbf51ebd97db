/**
 * Resource-level writes for the providers (docs/ARCHITECTURE.md, "Providers"): one profile or one endpoint at a time,
 * as Terraform's tmkit_profile / tmkit_*_endpoint and Pulumi's Profile / Endpoint manage them. One module for
 * both: `new StackResources(client, { stack, refreshHint })`. Every write carries the provider's stack and a
 * precondition, so a provider never overwrites or deletes what it does not own, and a write that finds the
 * object changed by someone else fails with a message that says what changed and what to do (the provider's
 * `refreshHint`). Nothing is validated here: the server validates every write whole (400 names the path).
 * Names are ARM's (the tmkit model's); mapping to a tool's own attribute names is the provider's job.
 *
 * Two kinds of profile resource:
 * - one that **owns its endpoints** (azure-native's Profile with `endpoints`): a PUT of the whole profile,
 *   `If-Match` with the ETag the provider last saw (any change by someone else is a conflict);
 * - one that **owns only its settings** (its endpoints are separate resources: every Terraform tmkit_profile,
 *   a Pulumi Profile without `endpoints`): a merge patch of the settings that never touches endpoints. Its
 *   conflict check compares the settings the provider last saw with the stored ones, since the profile's ETag
 *   moves whenever one of its endpoint resources writes; the patch is then sent with `If-Match` of the version
 *   compared, and re-done when an endpoint write slipped in.
 * Endpoints are written one at a time with their own ETag, which changes only when that endpoint changes. A
 * provider that keeps no ETag in its state (Terraform) gives the endpoint it last saw instead: it is compared
 * with the stored one, and the write is `If-Match` the version compared.
 *
 * Creates are idempotent: a create that finds the object (412), or whose answer was lost on the way back (the
 * connection broke after the request was sent, so it may have been written), reads it back and adopts it when
 * it is exactly what this create writes, in this stack; a lost create that wrote nothing is sent once more.
 * So a run whose create reached the server but never heard back converges on the next try instead of failing
 * with RESOURCE_EXISTS until a manual import.
 *
 * Refusals (ResourceError, codes catalogued in core/codes): RESOURCE_EXISTS (a create found the object with other
 * content: import it), RESOURCE_NOT_OWNED (another stack's profile), RESOURCE_CHANGED (changed since it was read), RESOURCE_GONE
 * (deleted since it was read), RESOURCE_HAS_ENDPOINTS (a settings-only profile to delete still has endpoints),
 * RESOURCE_PROFILE_MISSING (an endpoint's profile does not exist). Server validation errors stay TmkitApiErrors.
 */
import { TmkitError, type Diagnostic } from '../core/diagnostics';
import { fromWire, type EndpointDeleteResult, type EndpointWriteResult, type ProfileEntry } from '../core/api';
import { mergePatchFrom } from '../core/model/edit';
import { normalizeProfile } from '../core/model/normalize';
import type { Endpoint, EndpointInput, Profile, ProfileInput } from '../core/model/types';
import { diffAttributes } from '../core/plan/attributes';
import type { AttributeChange } from '../core/plan/types';
import { responseLost, type TmkitClient } from './client';
import { TmkitApiError } from './errors';

/** A profile's settings as written: everything of a profile input but its endpoints. */
export type ProfileSettingsInput = Omit<ProfileInput, 'endpoints'>;
/** A profile's stored (normalized) settings. */
export type ProfileSettings = Omit<Profile, 'endpoints'>;

export type ResourceErrorCode =
  | 'RESOURCE_EXISTS'
  | 'RESOURCE_NOT_OWNED'
  | 'RESOURCE_CHANGED'
  | 'RESOURCE_GONE'
  | 'RESOURCE_HAS_ENDPOINTS'
  | 'RESOURCE_PROFILE_MISSING';

/**
 * A resource-level write that was refused before or by the server; nothing was written. The message is
 * `${reason}: ${hint}`: `reason` says what was found, `hint` what to do.
 */
export class ResourceError extends TmkitError {
  constructor(
    code: ResourceErrorCode,
    readonly reason: string,
    readonly hint: string,
    override readonly cause?: unknown,
  ) {
    super(code, `${reason}: ${hint}`);
  }
}

export interface StackOptions {
  /** The provider's tmkit stack: it owns what it creates, and never writes another stack's profiles. */
  stack: string;
  /** How the provider's users bring their state up to date (`run terraform refresh …`), ending conflict messages. */
  refreshHint?: string;
  /** What to do about endpoints left on a settings-only profile to delete, after "delete those endpoints (or their resources) first". */
  strayEndpointsHint?: string;
  /** How to make a profile exist before its endpoints, after "create the profile first". */
  profileFirstHint?: string;
}

/** What the provider recorded of a profile after its last write or read. */
export interface PriorProfile {
  /** The profile as last seen (normalized here; a settings-only resource may give its settings with no endpoints). */
  profile: Profile | ProfileInput;
  /** Its ETag then (needed when the resource owns its endpoints; compared by content when absent). */
  etag?: string;
}

/** What the provider recorded of an endpoint. */
export interface PriorEndpoint {
  /** The endpoint as last seen (normalized here; a missing priority is the stored one's). */
  endpoint: Endpoint | EndpointInput;
  /** The endpoint's own ETag then; when absent (or empty) the endpoint is compared by content instead. */
  etag?: string;
}

/** One endpoint as stored, with its ETag and its profile's stack and ETag. */
export interface EndpointState {
  /** The profile's name (as stored, when read through `readEndpoint`). */
  profile: string;
  endpoint: Endpoint;
  etag: string;
  stack: string;
  profileEtag: string;
  /** The rule warnings the server answered a write with (about the whole profile; none on a read). */
  warnings?: Diagnostic[];
}

const DEFAULT_REFRESH = 'refresh the state to see the change (or to take it in), then apply again';
const DEFAULT_IMPORT = 'import it instead of creating it, or choose another name';
/** Times a settings patch (or a delete) is redone when an endpoint write changed the profile's ETag in between. */
const PATCH_ATTEMPTS = 8;

const apiError = (err: unknown, status: number, code?: string): boolean =>
  err instanceof TmkitApiError && err.status === status && (code === undefined || err.code === code);

/** A profile's settings: everything but its endpoints. */
export function profileSettings(p: Profile): ProfileSettings {
  const { endpoints: _e, ...settings } = p;
  return settings;
}

/** The normalized form of settings as written (defaults filled in). */
export function normalizeSettings(input: ProfileSettingsInput): ProfileSettings {
  return profileSettings(normalizeProfile({ ...input, endpoints: [] }));
}

/** The normalized form of one endpoint as written (a missing priority is `priority` when given, else stays missing). */
export function normalizeEndpoint(input: EndpointInput | Endpoint, priority?: number): Endpoint {
  const e = normalizeProfile({
    name: '_',
    trafficRoutingMethod: 'Weighted',
    dnsConfig: { relativeName: '_' },
    endpoints: [input as EndpointInput],
  }).endpoints[0]!;
  if (input.priority === undefined && priority !== undefined) e.priority = priority;
  return e;
}

/** A copy without the `keys` a tool does not model (they are neither compared nor written). */
function without<T extends object>(o: T, keys: readonly string[]): T {
  if (keys.length === 0) return o;
  const out = { ...o } as Record<string, unknown>;
  for (const k of keys) delete out[k];
  return out as T;
}

/** `a.b "x" → "y"; c added`: the changes someone else made, for conflict messages (at most 5 shown). */
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

/** What changed between the endpoint a provider last saw and the stored one (a missing priority is the stored one's). */
const endpointChanges = (prior: PriorEndpoint, stored: Endpoint): AttributeChange[] =>
  diffAttributes(normalizeEndpoint(prior.endpoint, stored.priority), stored);

const entryOf = (r: { name: string; stack: string; etag: string; profile: Profile }): ProfileEntry => ({
  name: r.name,
  stack: r.stack,
  etag: r.etag,
  profile: r.profile,
});
const endpointOf = (r: EndpointWriteResult): EndpointState => ({
  profile: r.profile,
  endpoint: r.endpoint,
  etag: r.etag,
  stack: r.stack,
  profileEtag: r.profileEtag,
  ...(r.warnings && r.warnings.length > 0 ? { warnings: r.warnings.map(fromWire) } : {}),
});

/**
 * Profiles and single endpoints of one stack: `stack` is the owner every write carries (Terraform's provider
 * `stack`, default "terraform"; Pulumi's `tmkit:stack`, default "pulumi").
 */
export class StackResources {
  readonly stack: string;
  private readonly refreshHint: string;

  constructor(
    readonly client: TmkitClient,
    readonly options: StackOptions,
  ) {
    this.stack = options.stack;
    this.refreshHint = options.refreshHint ?? DEFAULT_REFRESH;
  }

  // ------------------------------------------------------------------------------------------- refusals

  private changed(what: string, changes: readonly AttributeChange[], cause?: unknown): ResourceError {
    const detail = changes.length > 0 ? describeChanges(changes) : 'its ETag changed';
    const verb = what.startsWith('the settings') ? 'were' : 'was';
    return new ResourceError(
      'RESOURCE_CHANGED',
      `${what} ${verb} changed by someone else since it was last read (${detail}); nothing was written`,
      this.refreshHint,
      cause,
    );
  }

  private gone(what: string, cause?: unknown): ResourceError {
    return new ResourceError(
      'RESOURCE_GONE',
      `${what} was deleted by someone else since it was last read; nothing was written`,
      this.refreshHint,
      cause,
    );
  }

  private notOwned(name: string, owner: string, cause?: unknown): ResourceError {
    return new ResourceError(
      'RESOURCE_NOT_OWNED',
      `profile '${name}' belongs to tmkit stack '${owner}', not to this provider's stack '${this.stack}', so it is never written`,
      `use another profile name, or set the provider's stack to '${owner}' if this configuration is meant to own it`,
      cause,
    );
  }

  private exists(what: string, hint: string, cause?: unknown): ResourceError {
    return new ResourceError('RESOURCE_EXISTS', `${what} already exists, so it was not created`, hint, cause);
  }

  /** Throws RESOURCE_NOT_OWNED when the stored profile belongs to another stack (for reads the provider serves itself). */
  assertOwned(entry: { stack: string; name: string }): void {
    if (entry.stack !== this.stack) throw this.notOwned(entry.name, entry.stack);
  }

  /** Translates the server's ownership refusal; anything else is rethrown as is (it carries every diagnostic). */
  private async ownership(err: unknown, name: string): Promise<never> {
    if (apiError(err, 409, 'STACK_CONFLICT')) {
      const current = await this.client.findProfile(name);
      throw this.notOwned(current?.profile.name ?? name, current?.stack ?? 'another stack', err);
    }
    throw err;
  }

  // ------------------------------------------------------------------------------------------- profiles

  /**
   * The stored profile, or undefined when it does not exist. Another stack's profile is RESOURCE_NOT_OWNED,
   * unless `anyStack` (the caller then looks at `stack` itself, e.g. to refuse an import with its own words).
   */
  async readProfile(name: string, opts: { anyStack?: boolean } = {}): Promise<ProfileEntry | undefined> {
    const entry = await this.client.findProfile(name);
    if (entry && !opts.anyStack) this.assertOwned(entry);
    return entry;
  }

  /**
   * Creates the profile (`If-None-Match: *`): with its endpoints when the resource owns them, else with none
   * (its endpoint resources add theirs). An existing profile is never overwritten nor adopted: this stack's is
   * RESOURCE_EXISTS with `importHint`, another stack's RESOURCE_NOT_OWNED.
   */
  async createProfile(
    input: ProfileInput | ProfileSettingsInput,
    opts: { ownsEndpoints?: boolean; importHint?: string; resent?: boolean } = {},
  ): Promise<ProfileEntry> {
    const body: ProfileInput = opts.ownsEndpoints ? input : { ...input, endpoints: [] };
    try {
      return entryOf(await this.client.putProfile(body, { stack: this.stack, ifNoneMatch: '*' }));
    } catch (err) {
      const lost = responseLost(err);
      if (!lost && !apiError(err, 412) && !apiError(err, 409, 'STACK_CONFLICT')) throw err;
      const current = await this.client.findProfile(input.name);
      if (!current) {
        if (lost && !opts.resent) return this.createProfile(input, { ...opts, resent: true });
        throw err;
      }
      if (current.stack !== this.stack) throw this.notOwned(current.profile.name, current.stack, err);
      // Adopted when it is what this create writes: the whole profile, or the settings of one that owns only them.
      const same = opts.ownsEndpoints
        ? diffAttributes(normalizeProfile(body), current.profile).length === 0
        : diffAttributes(normalizeSettings(input), profileSettings(current.profile)).length === 0;
      if (same) return current;
      throw this.exists(`profile '${current.profile.name}' (tmkit stack '${current.stack}')`, opts.importHint ?? DEFAULT_IMPORT, err);
    }
  }

  /**
   * Updates the profile. Owning its endpoints: a PUT of the whole profile with `If-Match` (the prior ETag, or
   * that of the stored version after comparing it with the prior profile). `adoptEndpoints`: the resource
   * declares endpoints from now on, so it takes over the whole set (its settings are compared). Owning only its
   * settings: a merge patch of the settings, after checking that nobody else changed them since `prior`.
   * `unmanaged`: settings the tool does not model (e.g. Terraform's `allowedEndpointRecordTypes`), kept as
   * stored and left out of the comparison. Without `prior` nothing is compared (the stored version is written over).
   */
  async updateProfile(
    input: ProfileInput | ProfileSettingsInput,
    opts: { prior?: PriorProfile; ownsEndpoints?: boolean; adoptEndpoints?: boolean; unmanaged?: readonly string[] } = {},
  ): Promise<ProfileEntry> {
    const prior = opts.prior ? normalizeProfile(opts.prior.profile) : undefined;
    const name = prior?.name ?? input.name;
    if (opts.ownsEndpoints) {
      let ifMatch = opts.adoptEndpoints ? undefined : opts.prior?.etag;
      if (ifMatch === undefined) {
        // No ETag to hold the profile to: compare what was seen with what is stored (only the settings when the
        // resource starts owning the endpoints now), then PUT If-Match the version compared.
        const current = await this.readProfile(name);
        if (!current) throw this.gone(`profile '${name}'`);
        if (prior) {
          const changes = opts.adoptEndpoints
            ? diffAttributes(profileSettings(prior), profileSettings(current.profile))
            : diffAttributes(prior, current.profile);
          if (changes.length > 0)
            throw this.changed(opts.adoptEndpoints ? `the settings of profile '${name}'` : `profile '${name}'`, changes);
        }
        ifMatch = current.etag;
      }
      try {
        return entryOf(await this.client.putProfile(input as ProfileInput, { stack: this.stack, ifMatch }));
      } catch (err) {
        if (apiError(err, 412)) {
          const current = await this.client.findProfile(name);
          if (!current) throw this.gone(`profile '${name}'`, err);
          throw this.changed(`profile '${name}'`, prior ? diffAttributes(prior, current.profile) : [], err);
        }
        return this.ownership(err, name);
      }
    }
    const unmanaged = opts.unmanaged ?? [];
    const desired = without(normalizeSettings(input), unmanaged);
    for (let attempt = 1; ; attempt++) {
      const current = await this.readProfile(name);
      if (!current) throw this.gone(`profile '${name}'`);
      const stored = without(profileSettings(current.profile), unmanaged);
      if (prior) {
        const theirs = diffAttributes(without(profileSettings(prior), unmanaged), stored);
        if (theirs.length > 0) throw this.changed(`the settings of profile '${name}'`, theirs);
      }
      const patch = mergePatchFrom(stored, { ...desired, name: current.profile.name }) as Record<string, unknown>;
      if (Object.keys(patch).length === 0) return current;
      try {
        return entryOf(await this.client.patchProfile(current.profile.name, patch, { stack: this.stack, ifMatch: current.etag }));
      } catch (err) {
        // An endpoint resource wrote in between (the ETag moved); compare and patch again.
        if (apiError(err, 412) && attempt < PATCH_ATTEMPTS) continue;
        return this.ownership(err, name);
      }
    }
  }

  /**
   * Deletes the profile; one that is gone already is fine. Owning its endpoints: `If-Match` with the prior
   * ETag (or after comparing the whole prior profile). Owning only its settings: after checking its settings,
   * and only once it has no endpoints left (RESOURCE_HAS_ENDPOINTS: those belong to other resources, which
   * delete their own). `unmanaged` as in updateProfile; without `prior` nothing is compared.
   */
  async deleteProfile(
    name: string,
    opts: { prior?: PriorProfile; ownsEndpoints?: boolean; unmanaged?: readonly string[] } = {},
  ): Promise<void> {
    const prior = opts.prior ? normalizeProfile(opts.prior.profile) : undefined;
    const unmanaged = opts.unmanaged ?? [];
    for (let attempt = 1; ; attempt++) {
      const current = await this.readProfile(name);
      if (!current) return; // already gone: the goal of a delete
      if (opts.ownsEndpoints) {
        const etag = opts.prior?.etag;
        if (prior && (etag !== undefined ? current.etag !== etag : diffAttributes(prior, current.profile).length > 0)) {
          throw this.changed(`profile '${name}'`, diffAttributes(prior, current.profile));
        }
      } else {
        if (prior) {
          const theirs = diffAttributes(without(profileSettings(prior), unmanaged), without(profileSettings(current.profile), unmanaged));
          if (theirs.length > 0) throw this.changed(`the settings of profile '${name}'`, theirs);
        }
        if (current.profile.endpoints.length > 0) {
          throw new ResourceError(
            'RESOURCE_HAS_ENDPOINTS',
            `profile '${current.profile.name}' still has endpoint(s) ${current.profile.endpoints.map((e) => `'${e.name}'`).join(', ')}, which this profile resource does not manage ` +
              '(it declares no endpoints), so it is not deleted',
            `delete those endpoints (or their resources) first${this.options.strayEndpointsHint ? `, ${this.options.strayEndpointsHint}` : ''}`,
          );
        }
      }
      try {
        await this.client.deleteProfile(current.profile.name, { stack: this.stack, ifMatch: current.etag });
        return;
      } catch (err) {
        if (apiError(err, 404)) return;
        if (apiError(err, 412) && attempt < PATCH_ATTEMPTS) continue;
        return this.ownership(err, name);
      }
    }
  }

  // ------------------------------------------------------------------------------------------ endpoints

  /**
   * One endpoint with its ETag, or undefined when it (or its profile) does not exist. `profile` is the name as
   * given, or with `storedProfileName` as stored (one more request). An endpoint of another stack's profile is
   * RESOURCE_NOT_OWNED, unless `anyStack`.
   */
  async readEndpoint(
    profile: string,
    name: string,
    opts: { anyStack?: boolean; storedProfileName?: boolean } = {},
  ): Promise<EndpointState | undefined> {
    const r = await this.storedEndpoint(profile, name);
    if (!r) return undefined;
    if (!opts.anyStack) this.assertOwned({ name: profile, stack: r.stack });
    if (!opts.storedProfileName) return r;
    // The endpoint's answer does not spell its profile's name: the profile's does (profile names are case-insensitive).
    const entry = await this.client.findProfile(profile);
    return { ...r, profile: entry?.profile.name ?? profile };
  }

  private async storedEndpoint(profile: string, name: string): Promise<EndpointState | undefined> {
    try {
      return { profile, ...(await this.client.getEndpoint(profile, name)) };
    } catch (err) {
      if (apiError(err, 404)) return undefined;
      throw err;
    }
  }

  private async endpointWriteError(err: unknown, profile: string): Promise<never> {
    if (apiError(err, 404)) {
      throw new ResourceError(
        'RESOURCE_PROFILE_MISSING',
        `profile '${profile}' does not exist, so its endpoint cannot be written`,
        `create the profile first${this.options.profileFirstHint ? ` (${this.options.profileFirstHint})` : ''}`,
        err,
      );
    }
    return this.ownership(err, profile);
  }

  /**
   * The `If-Match` for a write of an endpoint last seen as `prior`: its ETag, or (without one) the stored
   * endpoint's after comparing it with `prior` (RESOURCE_CHANGED when they differ). Undefined: it is gone.
   */
  private async endpointPrecondition(profile: string, name: string, prior: PriorEndpoint | undefined): Promise<string | undefined> {
    if (prior?.etag) return prior.etag;
    const current = await this.storedEndpoint(profile, name);
    if (!current) return undefined;
    this.assertOwned({ name: profile, stack: current.stack });
    if (prior) {
      const changes = endpointChanges(prior, current.endpoint);
      if (changes.length > 0) throw this.changed(`endpoint '${profile}/${name}'`, changes);
    }
    return current.etag;
  }

  /**
   * After a 412: what changed since `prior` (or RESOURCE_GONE; `gone` when it is gone and that is fine). When
   * `prior` has an ETag and the stored endpoint still has the content seen (written again, or changed and
   * changed back), `retry` is its current ETag: the write may go ahead with it.
   */
  private async endpointConflict(
    profile: string,
    name: string,
    prior: PriorEndpoint | undefined,
    err: unknown,
    goneIsFine: boolean,
    retried: boolean,
  ): Promise<ResourceError | { retry: string } | 'gone'> {
    const current = await this.storedEndpoint(profile, name);
    if (!current) return goneIsFine ? 'gone' : this.gone(`endpoint '${profile}/${name}'`, err);
    const changes = prior ? endpointChanges(prior, current.endpoint) : [];
    if (prior?.etag && changes.length === 0 && !retried) {
      this.assertOwned({ name: profile, stack: current.stack });
      return { retry: current.etag };
    }
    return this.changed(`endpoint '${profile}/${name}'`, changes, err);
  }

  /**
   * Creates one endpoint (`If-None-Match: *`): an existing endpoint of that name is RESOURCE_EXISTS (with
   * `importHint`), never replaced; a missing profile RESOURCE_PROFILE_MISSING; another stack's RESOURCE_NOT_OWNED.
   * The server validates the whole resulting profile; its 400 names the conflicting endpoint.
   */
  async createEndpoint(
    profile: string,
    input: EndpointInput,
    opts: { importHint?: string; resent?: boolean } = {},
  ): Promise<EndpointState> {
    try {
      return endpointOf(await this.client.putEndpoint(profile, input, { stack: this.stack, ifNoneMatch: '*' }));
    } catch (err) {
      const lost = responseLost(err);
      if (!lost && !apiError(err, 412)) return this.endpointWriteError(err, profile);
      const current = await this.storedEndpoint(profile, input.name);
      if (!current) {
        if (lost && !opts.resent) return this.createEndpoint(profile, input, { ...opts, resent: true });
        throw err;
      }
      this.assertOwned({ name: profile, stack: current.stack });
      if (endpointChanges({ endpoint: input }, current.endpoint).length === 0) return current; // this create's own write: adopted
      throw this.exists(`endpoint '${input.name}' of profile '${profile}'`, opts.importHint ?? DEFAULT_IMPORT, err);
    }
  }

  /**
   * Replaces one endpoint, `If-Match` what was last seen (`prior`, see PriorEndpoint): a change by someone else
   * is RESOURCE_CHANGED with what changed, a deletion RESOURCE_GONE, and nothing is written. A missing priority
   * keeps the stored one. Without `prior` the stored endpoint is written over.
   */
  async updateEndpoint(profile: string, input: EndpointInput, opts: { prior?: PriorEndpoint } = {}): Promise<EndpointState> {
    const name = opts.prior?.endpoint.name ?? input.name;
    let ifMatch = await this.endpointPrecondition(profile, name, opts.prior);
    if (ifMatch === undefined) throw this.gone(`endpoint '${profile}/${name}'`);
    for (let retried = false; ; retried = true) {
      try {
        return endpointOf(await this.client.putEndpoint(profile, input, { stack: this.stack, ifMatch }));
      } catch (err) {
        if (!apiError(err, 412)) return this.endpointWriteError(err, profile);
        const c = await this.endpointConflict(profile, name, opts.prior, err, false, retried);
        if (c instanceof ResourceError || c === 'gone') throw c;
        ifMatch = c.retry;
      }
    }
  }

  /**
   * Deletes one endpoint, `If-Match` as in updateEndpoint; one already gone (or whose profile is) is fine
   * (undefined). Given the endpoint's ETag (`prior.etag`) it is one request.
   */
  async deleteEndpoint(profile: string, name: string, opts: { prior?: PriorEndpoint } = {}): Promise<EndpointDeleteResult | undefined> {
    let ifMatch = await this.endpointPrecondition(profile, name, opts.prior);
    if (ifMatch === undefined) return undefined;
    for (let retried = false; ; retried = true) {
      try {
        return await this.client.deleteEndpoint(profile, name, { stack: this.stack, ifMatch });
      } catch (err) {
        if (apiError(err, 404)) return undefined;
        if (!apiError(err, 412)) return this.ownership(err, profile);
        const c = await this.endpointConflict(profile, name, opts.prior, err, true, retried);
        if (c === 'gone') return undefined;
        if (c instanceof ResourceError) throw c;
        ifMatch = c.retry;
      }
    }
  }
}
