/**
 * What the resource handlers (profiles.ts, endpoints.ts, reads.ts, …) share: the request's stack and
 * conditions, finding a stored profile by its case-insensitive name, and edits of one stored profile.
 * Writes go to the store, which validates them itself (core/store/admission.ts): nothing here validates.
 */
import type { WriteResult } from '../../core/api';
import { toWire } from '../../core/api';
import { DEFAULT_STACK } from '../../core/model/types';
import {
  StoreError,
  type EditProfileResult,
  type ProfileEdit,
  type PutProfileResult,
  type Store,
  type StoredProfile,
} from '../../core/store';
import { ApiProblem } from './errors';
import { header, readJson, type Ctx, type Reply } from './http';
import type { SummaryIndex } from './summaries';

/** What every handler module is given. */
export interface ApiContext {
  store: Store;
  summaries: SummaryIndex;
  /** Request body limit in bytes. */
  maxBody: number;
}

const STACK_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/**
 * Edits without the client's own If-Match on a store that cannot run them inside its write (etcd) re-apply
 * their edit to a concurrently changed profile at most this often.
 */
const RETRIES = 64;

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The request's JSON body, which must be an object: else 400 BAD_REQUEST, `the body must be ${mustBe}`. */
export async function readObject(c: { maxBody: number }, ctx: Ctx, mustBe: string): Promise<Record<string, unknown>> {
  const body = await readJson(ctx.req, c.maxBody);
  if (!isObj(body)) throw ApiProblem.of(400, 'BAD_REQUEST', `the body must be ${mustBe}`, { path: '$' });
  return body;
}

/**
 * A PUT body's `name` against the URL's (`kind` 'profile' or 'endpoint'): absent, it is set to the URL's;
 * else it must equal the URL's but for case (400 NAME_MISMATCH). The URL is case-insensitive; the body's
 * name is the stored name.
 */
export function nameAsInUrl(body: Record<string, unknown>, urlName: string, kind: 'profile' | 'endpoint'): void {
  if (body.name === undefined) body.name = urlName;
  else if (typeof body.name !== 'string' || body.name.toLowerCase() !== urlName.toLowerCase()) {
    throw ApiProblem.of(
      400,
      'NAME_MISMATCH',
      `the body names ${kind} '${String(body.name)}' but the URL names '${urlName}'; they must be equal`,
      { path: `${kind}s[${urlName}].name` },
    );
  }
}

/** A part of the server that may not be attached: the getter gives it, or throws 503 NOT_AVAILABLE saying `missing`. */
export function attached<T>(part: T | undefined, missing: string): () => T {
  return () => {
    if (!part) throw ApiProblem.of(503, 'NOT_AVAILABLE', missing);
    return part;
  };
}

/** The `?stack=` / `Tmkit-Stack` of a request (`default` when required and absent). */
export function stackOf(ctx: Ctx, required: boolean): string | undefined {
  const s = ctx.url.searchParams.get('stack') ?? header(ctx.req, 'tmkit-stack');
  if (s === undefined || s === null) return required ? DEFAULT_STACK : undefined;
  if (!STACK_RE.test(s))
    throw ApiProblem.of(400, 'BAD_REQUEST', `stack '${s}' is not a valid stack name (1–64 letters, digits, '.', '_', '-')`, {
      path: 'stack',
    });
  return s;
}

export function conditions(ctx: Ctx): { ifMatch?: string; ifNoneMatch?: string } {
  const ifMatch = header(ctx.req, 'if-match');
  const ifNoneMatch = header(ctx.req, 'if-none-match');
  return { ...(ifMatch !== undefined ? { ifMatch } : {}), ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}) };
}

/** A whole-profile write's answer: the stored profile and the validation warnings. */
export function profileReply(status: number, stack: string, r: PutProfileResult): Reply<WriteResult> {
  return {
    status,
    headers: { etag: r.etag },
    body: {
      name: r.profile.name,
      stack,
      etag: r.etag,
      revision: r.revision,
      created: r.created,
      changed: r.changed,
      profile: r.profile,
      warnings: r.warnings.map(toWire),
    },
  };
}

/**
 * The stored profile a URL names. Profile names are case-insensitive (as in Azure): the exact name first,
 * else the one stored profile whose name differs only in case (found in the summary index: no full read).
 */
export async function findProfile(c: ApiContext, name: string): Promise<StoredProfile | undefined> {
  const exact = await c.store.getProfile(name);
  if (exact) return exact;
  const stored = await c.summaries.resolve(name);
  return stored === undefined ? undefined : c.store.getProfile(stored);
}

export async function mustGet(c: ApiContext, name: string): Promise<StoredProfile> {
  const p = await findProfile(c, name);
  if (!p) throw ApiProblem.of(404, 'NOT_FOUND', `profile '${name}' does not exist`, { path: `profiles[${name}]` });
  return p;
}

/** The stored profile for a write that names a stack: 409 when another stack owns it. */
async function mustGetOwned(c: ApiContext, name: string, stack: string | undefined): Promise<StoredProfile> {
  const current = await mustGet(c, name);
  if (stack !== undefined && current.stack !== stack) {
    throw ApiProblem.of(409, 'STACK_CONFLICT', `profile '${current.profile.name}' is owned by stack '${current.stack}', not '${stack}'`, {
      path: 'stack',
    });
  }
  return current;
}

/**
 * Stores `edit` of one profile (case-insensitive URL name). `edit` is pure and synchronous: it gets the stored
 * profile and returns the input to store (or throws to refuse). With an explicit `If-Match` (the profile's
 * ETag) the edit applies to that version only. Without one, it applies to the profile as it stands when the
 * write runs: the store runs it inside its write (Store.editProfile), so concurrent edits of one profile, as
 * Terraform's parallel endpoint writes, commit together; a store without that (etcd) gets the edit re-applied
 * to a concurrently changed profile, up to RETRIES times.
 */
export async function editProfile<T>(
  c: ApiContext,
  name: string,
  stack: string | undefined,
  explicitIfMatch: string | undefined,
  edit: (current: StoredProfile) => ProfileEdit<T>,
): Promise<EditProfileResult<T>> {
  for (let attempt = 0; ; attempt++) {
    // Resolves the stored name and answers 404 / 409 with the API's words before anything is queued.
    const current = await mustGetOwned(c, name, stack);
    const exact = current.profile.name;
    try {
      if (c.store.editProfile) {
        return await c.store.editProfile(exact, edit, {
          ...(stack !== undefined ? { stack } : {}),
          ...(explicitIfMatch !== undefined ? { ifMatch: explicitIfMatch } : {}),
        });
      }
      const { input, value } = edit(current);
      const r = await c.store.putProfile(input, { stack: current.stack, ifMatch: explicitIfMatch ?? current.etag });
      return { ...r, stack: current.stack, value };
    } catch (err) {
      // Gone, or re-owned, between the read above and the write: read again (and answer with the read's words).
      const raced =
        err instanceof StoreError &&
        (err.code === 'NOT_FOUND' ||
          err.code === 'STACK_CONFLICT' ||
          (err.code === 'PRECONDITION_FAILED' && explicitIfMatch === undefined));
      if (raced && attempt < RETRIES) continue;
      throw err;
    }
  }
}

/** 400 naming the first field of `body` that is not one of `fields` (a typo such as `forse` is never silently ignored). */
export function refuseUnknown(body: unknown, fields: readonly string[], example: string): void {
  if (!isObj(body)) return;
  const unknown = Object.keys(body).filter((k) => !fields.includes(k));
  if (unknown.length > 0)
    throw ApiProblem.of(
      400,
      'BAD_REQUEST',
      `unknown field${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => JSON.stringify(k)).join(', ')}: the body is ${example}`,
      { path: unknown[0]! },
    );
}
