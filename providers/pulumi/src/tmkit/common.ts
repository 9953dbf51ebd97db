/**
 * What the Profile and Endpoint resources share: the configured provider they write through (TmkitContext),
 * the stack's resources with Pulumi's hints, an expected failure as the engine should show it, and the notes
 * of in-place replacements (resources.ts tells how those work).
 */
import type { Diagnostic } from '../../../../src/core/diagnostics';
import { TmkitError } from '../../../../src/core/diagnostics';
import type { TmkitClient } from '../../../../src/client/client';
import { TmkitApiError } from '../../../../src/client/errors';
import { StackResources } from '../../../../src/client/resources';
import type { ErrorCode, RequestContext } from '../provider';
import { ProviderError } from '../provider';
import type { PlainMap, PropertyMap } from '../values';
import { reasonOf } from './check';

/** What the resources need from the configured provider. */
export interface TmkitContext {
  /** The provider's tmkit stack (after Configure). */
  stack(): string;
  /** The management-API client (after Configure). */
  client(): Promise<TmkitClient>;
}

const REFRESH =
  'run `pulumi refresh` to take the change into the state (the next `pulumi up` then shows what it would undo), then `pulumi up`';

/** The stack's resources through the configured client, with Pulumi's words for what to do. */
export async function stackResources(ctx: TmkitContext): Promise<StackResources> {
  return new StackResources(await ctx.client(), {
    stack: ctx.stack(),
    refreshHint: REFRESH,
    strayEndpointsHint: 'or declare endpoints on the profile to own them',
    profileFirstHint: "give the endpoint the profile resource's name output, so the profile is created before its endpoints",
  });
}

const CODE: Partial<Record<string, ErrorCode>> = {
  RESOURCE_CHANGED: 'FAILED_PRECONDITION',
  RESOURCE_GONE: 'FAILED_PRECONDITION',
  RESOURCE_EXISTS: 'ALREADY_EXISTS',
  RESOURCE_NOT_OWNED: 'PERMISSION_DENIED',
  RESOURCE_HAS_ENDPOINTS: 'FAILED_PRECONDITION',
  RESOURCE_PROFILE_MISSING: 'FAILED_PRECONDITION',
  UNREACHABLE: 'UNAVAILABLE',
  UNAUTHORIZED: 'UNAUTHENTICATED',
};

/** Where a server diagnostic points, in the resource's terms: its Pulumi path when it is about this resource. */
export type Locate = (d: Diagnostic) => string | undefined;

/** An expected failure as the engine should show it: the resource, what the server said, at Pulumi paths. */
function failure(op: string, ctx: RequestContext, err: unknown, locate: Locate): unknown {
  if (!(err instanceof TmkitError)) return err;
  const what = `${ctx.type} "${ctx.name}"`;
  if (err instanceof TmkitApiError && err.status === 400 && err.errors.length > 0) {
    const lines = err.errors
      .filter((d) => d.severity === 'error')
      .map((d) => {
        const at = locate(d);
        return `  ${at !== undefined ? (at === '' ? '(the resource)' : at) : d.path}: ${reasonOf(d)}`;
      });
    return new ProviderError(
      `${what}: the tmkit server refused to ${op} it, nothing was written:\n${lines.join('\n')}`,
      'INVALID_ARGUMENT',
    );
  }
  if (err instanceof TmkitApiError && err.status === 401) {
    return new ProviderError(
      `${what}: the tmkit server refused the token (HTTP 401): ` +
        "set tmkit:token (`pulumi config set --secret tmkit:token …`) or TMKIT_TOKEN to the server's token",
      'UNAUTHENTICATED',
    );
  }
  return new ProviderError(`${what}: ${err.message}`, CODE[err.code] ?? 'UNKNOWN');
}

export async function guard<T>(op: string, ctx: RequestContext, locate: Locate, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw failure(op, ctx, err, locate);
  }
}

/** Check's default (the logical name) again, for inputs that did not come through Check. */
export function withDefault(inputs: PlainMap, key: 'profileName' | 'endpointName', logical: string): PlainMap {
  if (inputs[key] !== undefined && inputs[key] !== null) return inputs;
  return { ...inputs, [key]: key === 'endpointName' && typeof inputs.name === 'string' ? inputs.name : logical };
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A noted in-place replacement (see resources.ts). */
export interface InPlace {
  identity: string;
  olds: PropertyMap;
  oldInputs: PropertyMap;
  created: boolean;
  deleted: boolean;
}

export function inPlaceNotes() {
  const notes = new Map<string, InPlace>();
  return {
    note(urn: string, identity: string | undefined, replaces: readonly string[], olds: PropertyMap, oldInputs: PropertyMap): void {
      if (identity !== undefined && replaces.length > 0) notes.set(urn, { identity, olds, oldInputs, created: false, deleted: false });
      else notes.delete(urn);
    },
    get(urn: string, identity: string | undefined): InPlace | undefined {
      const n = notes.get(urn);
      return n && identity !== undefined && n.identity === identity ? n : undefined;
    },
    done(urn: string, n: InPlace, step: 'created' | 'deleted'): void {
      n[step] = true;
      if (n.created && n.deleted) notes.delete(urn);
    },
  };
}

/** A `read` whose id does not parse: the error names the resource, the id and the forms an id may take. */
export function notAnId(req: { type: string; name: string; id: string }, what: string, forms: string): ProviderError {
  return new ProviderError(`${req.type} "${req.name}": "${req.id}" is not ${what} id: give ${forms}`, 'INVALID_ARGUMENT');
}

/** A `read` with failures reported as every other operation's (no locator: nothing was declared). */
export function guardRead<T>(ctx: RequestContext, fn: () => Promise<T>): Promise<T> {
  return guard('read', ctx, () => undefined, fn);
}
