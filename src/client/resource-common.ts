/**
 * What the resource-level writes (resources.ts) share: the types a provider records and passes, the refusals
 * (`ResourceError` and the messages of each code), the normalization and comparison helpers, and `StackBase`,
 * the stack that owns every write and turns the server's refusals into ResourceErrors.
 */
import { TmkitError, type Diagnostic } from '../core/diagnostics';
import { fromWire, type EndpointWriteResult, type ProfileEntry } from '../core/api';
import { normalizeProfile } from '../core/model/normalize';
import type { Endpoint, EndpointInput, Profile, ProfileInput } from '../core/model/types';
import { diffAttributes } from '../core/plan/attributes';
import type { AttributeChange } from '../core/plan/types';
import type { TmkitClient } from './client';
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

export const DEFAULT_REFRESH = 'refresh the state to see the change (or to take it in), then apply again';
export const DEFAULT_IMPORT = 'import it instead of creating it, or choose another name';
/** Times a settings patch (or a delete) is redone when an endpoint write changed the profile's ETag in between. */
export const PATCH_ATTEMPTS = 8;

export const apiError = (err: unknown, status: number, code?: string): boolean =>
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
export function without<T extends object>(o: T, keys: readonly string[]): T {
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
export const endpointChanges = (prior: PriorEndpoint, stored: Endpoint): AttributeChange[] =>
  diffAttributes(normalizeEndpoint(prior.endpoint, stored.priority), stored);

export const entryOf = (r: { name: string; stack: string; etag: string; profile: Profile }): ProfileEntry => ({
  name: r.name,
  stack: r.stack,
  etag: r.etag,
  profile: r.profile,
});
export const endpointOf = (r: EndpointWriteResult): EndpointState => ({
  profile: r.profile,
  endpoint: r.endpoint,
  etag: r.etag,
  stack: r.stack,
  profileEtag: r.profileEtag,
  ...(r.warnings && r.warnings.length > 0 ? { warnings: r.warnings.map(fromWire) } : {}),
});

/** The stack every write carries, and the refusals the profile and endpoint writes share. */
export abstract class StackBase {
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

  protected changed(what: string, changes: readonly AttributeChange[], cause?: unknown): ResourceError {
    const detail = changes.length > 0 ? describeChanges(changes) : 'its ETag changed';
    const verb = what.startsWith('the settings') ? 'were' : 'was';
    return new ResourceError(
      'RESOURCE_CHANGED',
      `${what} ${verb} changed by someone else since it was last read (${detail}); nothing was written`,
      this.refreshHint,
      cause,
    );
  }

  protected gone(what: string, cause?: unknown): ResourceError {
    return new ResourceError(
      'RESOURCE_GONE',
      `${what} was deleted by someone else since it was last read; nothing was written`,
      this.refreshHint,
      cause,
    );
  }

  protected notOwned(name: string, owner: string, cause?: unknown): ResourceError {
    return new ResourceError(
      'RESOURCE_NOT_OWNED',
      `profile '${name}' belongs to tmkit stack '${owner}', not to this provider's stack '${this.stack}', so it is never written`,
      `use another profile name, or set the provider's stack to '${owner}' if this configuration is meant to own it`,
      cause,
    );
  }

  protected exists(what: string, hint: string, cause?: unknown): ResourceError {
    return new ResourceError('RESOURCE_EXISTS', `${what} already exists, so it was not created`, hint, cause);
  }

  /** Throws RESOURCE_NOT_OWNED when the stored profile belongs to another stack (for reads the provider serves itself). */
  assertOwned(entry: { stack: string; name: string }): void {
    if (entry.stack !== this.stack) throw this.notOwned(entry.name, entry.stack);
  }

  /** Translates the server's ownership refusal; anything else is rethrown as is (it carries every diagnostic). */
  protected async ownership(err: unknown, name: string): Promise<never> {
    if (apiError(err, 409, 'STACK_CONFLICT')) {
      const current = await this.client.findProfile(name);
      throw this.notOwned(current?.profile.name ?? name, current?.stack ?? 'another stack', err);
    }
    throw err;
  }
}
