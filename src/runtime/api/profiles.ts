/**
 * `/v1/profiles` and `/v1/profiles/{name}`: list, read, create or replace, patch the settings, delete. The
 * store validates every write itself (core/store/admission.ts) and refuses an invalid one with every
 * diagnostic, so of two concurrent conditional writers exactly one wins and nothing invalid is stored.
 */
import type { DeleteResult, ProfileList, ProfileSummaryList, WriteResult } from '../../core/api';
import { withSettingsPatch } from '../../core/model/edit';
import type { Profile, ProfileInput } from '../../core/model/types';
import { profileChanges } from '../../core/operations/audit';
import type { DeleteProfileOptions, StoredProfile } from '../../core/store';
import {
  conditions,
  editProfile,
  findProfile,
  isObj,
  mustGet,
  nameAsInUrl,
  profileReply,
  readObject,
  stackOf,
  type ApiContext,
} from './common';
import { audit, callerOf } from './audit';
import { ApiProblem } from './errors';
import { header, readJson, route, type Ctx, type Reply, type Route } from './http';

/** A stack listing of at most this many profiles reads their rows one by one; a larger one reads the table. */
const STACK_READ_ROWS = 500;

export function profileRoutes(c: ApiContext): Route[] {
  return [
    route('/v1/profiles', { GET: (x) => listProfiles(c, x) }),
    route('/v1/profiles/{name}', {
      GET: (x) => getProfile(c, x),
      PUT: (x) => putProfile(c, x),
      PATCH: (x) => patchProfile(c, x),
      DELETE: (x) => deleteProfile(c, x),
    }),
  ];
}

/**
 * `GET /v1/profiles`: every profile with its body, or one stack's (`?stack=`, read by the summary index:
 * only that stack's rows); `?view=summary`: name, stack, ETag, relativeName and nested children only.
 */
async function listProfiles(c: ApiContext, ctx: Ctx): Promise<Reply<ProfileList | ProfileSummaryList>> {
  const stack = stackOf(ctx, false);
  const view = ctx.url.searchParams.get('view');
  if (view !== null && view !== 'summary' && view !== 'full') {
    throw ApiProblem.of(
      400,
      'BAD_REQUEST',
      `view '${view}' is not known: use view=summary (names, stacks, ETags, relativeNames, nested children) or view=full (the default)`,
      { path: 'view' },
    );
  }
  if (view === 'summary') {
    const { revision, profiles } = await c.summaries.list();
    return { status: 200, body: { revision, profiles: stack === undefined ? profiles : profiles.filter((p) => p.stack === stack) } };
  }
  const revision = await c.store.revision();
  let rows: StoredProfile[];
  const names = stack === undefined ? undefined : await c.summaries.namesOf(stack);
  if (names !== undefined && names.length <= STACK_READ_ROWS) {
    rows = (await Promise.all(names.map((n) => c.store.getProfile(n)))).filter(
      (p): p is StoredProfile => p !== undefined && p.stack === stack,
    );
    rows.sort((a, b) => (a.profile.name < b.profile.name ? -1 : a.profile.name > b.profile.name ? 1 : 0));
  } else {
    rows = (await c.store.getProfiles()).filter((p) => stack === undefined || p.stack === stack);
  }
  const profiles = rows.map((p) => ({ name: p.profile.name, stack: p.stack, etag: p.etag, profile: p.profile }));
  return { status: 200, body: { revision, profiles } };
}

async function getProfile(c: ApiContext, ctx: Ctx): Promise<Reply<Profile>> {
  const p = await mustGet(c, ctx.params[0]!);
  return { status: 200, body: p.profile, headers: { etag: p.etag, 'tmkit-stack': p.stack } };
}

async function putProfile(c: ApiContext, ctx: Ctx): Promise<Reply<WriteResult>> {
  const urlName = ctx.params[0]!;
  const stack = stackOf(ctx, true)!;
  const body = await readObject(c, ctx, 'one profile (a JSON object)');
  // The URL is case-insensitive; the body's name is the profile's name (PUT /v1/profiles/WEB with
  // {"name":"web"} writes web). A name that differs from a stored one only in case is a conflict.
  nameAsInUrl(body, urlName, 'profile');
  const caller = callerOf(ctx);
  // What it was, for the audit log's old → new (read before the write: cheap, and right unless another write races it).
  // Best effort: a failed read costs the entry its old values, never the write.
  const before = await findProfile(c, urlName).catch(() => undefined);
  const r = await c.store.putProfile(body as unknown as ProfileInput, { stack, ...conditions(ctx) });
  if (r.changed)
    await audit(c.store, caller, r.created ? 'profile.create' : 'profile.update', r.profile.name, {
      stack,
      etag: r.etag,
      changes: profileChanges(r.created ? undefined : before?.profile, r.profile),
    });
  return profileReply(r.created ? 201 : 200, stack, r);
}

/** `PATCH /v1/profiles/{name}`: a JSON merge patch of the settings; the endpoints are never touched. */
async function patchProfile(c: ApiContext, ctx: Ctx): Promise<Reply<WriteResult>> {
  const stack = stackOf(ctx, false);
  const patch = await readJson(ctx.req, c.maxBody);
  if (!isObj(patch))
    throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be a JSON merge patch of profile settings, e.g. {"dnsConfig":{"ttl":60}}', {
      path: '$',
    });
  const caller = callerOf(ctx);
  const explicit = header(ctx.req, 'if-match');
  const r = await editProfile(c, ctx.params[0]!, stack, explicit, (current) => {
    const edited = withSettingsPatch(current.profile, patch);
    if ('error' in edited) throw new ApiProblem(400, [edited.error]);
    return { input: edited.input, value: current.profile };
  });
  if (r.changed)
    await audit(c.store, caller, 'profile.update', r.profile.name, {
      stack: r.stack,
      etag: r.etag,
      changes: profileChanges(r.value, r.profile),
    });
  return profileReply(200, r.stack, r);
}

async function deleteProfile(c: ApiContext, ctx: Ctx): Promise<Reply<DeleteResult>> {
  const stack = stackOf(ctx, false);
  // The stored name (case-insensitive URL); a profile that does not exist is the store's 404.
  const caller = callerOf(ctx);
  const before = await findProfile(c, ctx.params[0]!);
  const name = before?.profile.name ?? ctx.params[0]!;
  const opts: DeleteProfileOptions = {};
  if (stack !== undefined) opts.stack = stack;
  const ifMatch = header(ctx.req, 'if-match');
  if (ifMatch !== undefined) opts.ifMatch = ifMatch;
  const r = await c.store.deleteProfile(name, opts);
  await audit(c.store, caller, 'profile.delete', name, {
    ...(before ? { stack: before.stack, etag: before.etag } : {}),
    changes: profileChanges(before?.profile, undefined),
  });
  return { status: 200, body: { name, deleted: true, revision: r.revision } };
}
