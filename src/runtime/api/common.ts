/**
 * What the resource handlers (profiles.ts, endpoints.ts, reports.ts) share: the request's stack and
 * conditions, finding a stored profile by its case-insensitive name, and the edit loop of conditional writes.
 * Writes go to the store, which validates them itself (core/store/admission.ts): nothing here validates.
 */
import type { WriteResult } from '../../core/api';
import { toWire } from '../../core/api';
import { DEFAULT_STACK } from '../../core/model/types';
import { StoreError, type PutProfileResult, type Store, type StoredProfile } from '../../core/store';
import { ApiProblem } from './errors';
import { header, type Ctx, type Reply } from './http';
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
 * Conditional writes without the client's own If-Match on the profile re-apply their edit to a concurrently
 * changed profile at most this often. Writes of one turn commit as a group and only one edit of a profile
 * wins per group, so N writers of one profile (Terraform's parallelism, 10) need up to N rounds.
 */
const RETRIES = 64;

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `?stack=` / `Tmkit-Stack` of a request (`default` when required and absent). */
export function stackOf(ctx: Ctx, required: boolean): string | undefined {
  const s = ctx.url.searchParams.get('stack') ?? header(ctx.req, 'tmkit-stack');
  if (s === undefined || s === null) return required ? DEFAULT_STACK : undefined;
  if (!STACK_RE.test(s)) throw ApiProblem.of(400, 'BAD_REQUEST', `stack '${s}' is not a valid stack name (1–64 letters, digits, '.', '_', '-')`, { path: 'stack' });
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
    body: { name: r.profile.name, stack, etag: r.etag, revision: r.revision, created: r.created, changed: r.changed, profile: r.profile, warnings: r.warnings.map(toWire) },
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
    throw ApiProblem.of(409, 'STACK_CONFLICT', `profile '${current.profile.name}' is owned by stack '${current.stack}', not '${stack}'`, { path: 'stack' });
  }
  return current;
}

/**
 * Re-applies `edit` to the current profile until it is stored: with an explicit `If-Match` once (a
 * concurrent change is then the client's 412); without, the edit is re-applied to the newer profile.
 */
export async function editLoop<T>(c: ApiContext, name: string, stack: string | undefined, explicitIfMatch: string | undefined, edit: (current: StoredProfile) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const current = await mustGetOwned(c, name, stack);
    try {
      return await edit(current);
    } catch (err) {
      if (explicitIfMatch === undefined && err instanceof StoreError && err.code === 'PRECONDITION_FAILED' && attempt < RETRIES) continue;
      throw err;
    }
  }
}
