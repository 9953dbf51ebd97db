/**
 * `/v1/profiles/{name}/endpoints/{endpoint}`: one endpoint read, created or replaced, patched, deleted. Each
 * write builds the resulting profile with core's edits (core/model/edit.ts) and stores it conditionally on
 * the profile version the endpoint was checked against; the store validates the whole profile.
 */
import type { EndpointDeleteResult, EndpointWriteResult, WriteResult } from '../../core/api';
import { toWire } from '../../core/api';
import { endpointEtag, findEndpoint, withEndpoint, withEndpointPatch, withoutEndpoint } from '../../core/model/edit';
import { normalizeProfile } from '../../core/model/normalize';
import type { EndpointInput, Profile } from '../../core/model/types';
import { profileChanges } from '../../core/operations/audit';
import { parseEtagList } from '../../core/store';
import { conditions, editProfile, isObj, mustGet, nameAsInUrl, profileReply, readObject, stackOf, type ApiContext } from './common';
import { audit, callerOf } from './audit';
import { ApiProblem } from './errors';
import { header, readJson, route, type Ctx, type Reply, type Route } from './http';
import type { OperationsPort } from '../operations';

/** `ops`: the traffic operations, whose safety rule a PATCH passes (absent in the API tests' harness: no rule). */
export function endpointRoutes(c: ApiContext, ops?: OperationsPort): Route[] {
  return [
    route('/v1/profiles/{name}/endpoints/{endpoint}', {
      GET: (x) => getEndpoint(c, x),
      PUT: (x) => putEndpoint(c, x),
      PATCH: (x) => patchEndpoint(c, x, ops),
      DELETE: (x) => deleteEndpoint(c, x),
    }),
  ];
}

/** RFC 9110 §13.1 against one endpoint's ETag (`*`: it exists). Throws 412 naming what changed. */
function checkEndpointConditions(where: string, etag: string | undefined, c: { ifMatch?: string; ifNoneMatch?: string }): void {
  const matches = (h: string): boolean => {
    const tags = parseEtagList(h);
    if (tags.includes('*')) return etag !== undefined;
    return etag !== undefined && tags.some((t) => t === etag || `"${t}"` === etag);
  };
  if (c.ifMatch !== undefined && !matches(c.ifMatch)) {
    throw ApiProblem.of(
      412,
      'PRECONDITION_FAILED',
      etag === undefined
        ? `${where} does not exist, so If-Match ${c.ifMatch} cannot match`
        : `${where} has changed: If-Match ${c.ifMatch} does not match its current ETag ${etag}; read it again and retry`,
    );
  }
  if (c.ifNoneMatch !== undefined && matches(c.ifNoneMatch)) {
    throw ApiProblem.of(
      412,
      'PRECONDITION_FAILED',
      `${where} already exists (ETag ${etag}) and If-None-Match ${c.ifNoneMatch} asks to create only`,
    );
  }
}

function endpointNotFound(p: Profile, name: string): ApiProblem {
  return ApiProblem.of(
    404,
    'NOT_FOUND',
    `profile '${p.name}' has no endpoint '${name}' (it has ${p.endpoints.map((e) => `'${e.name}'`).join(', ') || 'none'})`,
    { path: `profiles[${p.name}].endpoints[${name}]` },
  );
}

async function getEndpoint(c: ApiContext, ctx: Ctx): Promise<Reply> {
  const p = await mustGet(c, ctx.params[0]!);
  const e = findEndpoint(p.profile, ctx.params[1]!);
  if (!e) throw endpointNotFound(p.profile, ctx.params[1]!);
  return { status: 200, body: e, headers: { etag: endpointEtag(p.profile.name, e), 'tmkit-stack': p.stack, 'tmkit-profile-etag': p.etag } };
}

/**
 * `PUT …/endpoints/{endpoint}`: creates or replaces one endpoint. `If-Match` / `If-None-Match: *` are the
 * endpoint's (its ETag); the profile is written conditionally on the version the endpoint was checked
 * against, so of two writers holding one endpoint ETag exactly one wins.
 */
async function putEndpoint(c: ApiContext, ctx: Ctx): Promise<Reply<EndpointWriteResult>> {
  const urlEndpoint = ctx.params[1]!;
  const stack = stackOf(ctx, false);
  const body = await readObject(c, ctx, 'one endpoint (a JSON object), e.g. {"type":"externalEndpoints","target":"192.0.2.10"}');
  nameAsInUrl(body, urlEndpoint, 'endpoint');
  const cond = conditions(ctx);
  const caller = callerOf(ctx);
  let before: Profile | undefined;
  // The client's If-Match is the endpoint's, checked against the profile as the write finds it.
  const r = await editProfile(c, ctx.params[0]!, stack, undefined, (current) => {
    before = current.profile;
    const name = current.profile.name;
    const existing = findEndpoint(current.profile, urlEndpoint);
    checkEndpointConditions(`endpoint '${name}/${urlEndpoint}'`, existing ? endpointEtag(name, existing) : undefined, cond);
    if (existing && existing.name !== body.name) {
      throw ApiProblem.of(
        409,
        'PROFILE_NAME_CONFLICT',
        `endpoint names are case-insensitive and profile '${name}' already has endpoint '${existing.name}'; use that name or delete it first`,
        { path: `profiles[${name}].endpoints[${String(body.name)}].name` },
      );
    }
    const { input, created } = withEndpoint(current.profile, body as unknown as EndpointInput);
    return { input, value: created };
  });
  const name = r.profile.name;
  const stored = findEndpoint(r.profile, urlEndpoint)!;
  const etag = endpointEtag(name, stored);
  if (r.changed)
    await audit(c.store, caller, r.value ? 'endpoint.create' : 'endpoint.update', `${name}/${stored.name}`, {
      stack: r.stack,
      etag: r.etag,
      changes: profileChanges(before, r.profile),
    });
  return {
    status: r.value ? 201 : 200,
    headers: { etag, 'tmkit-profile-etag': r.etag },
    body: {
      profile: name,
      stack: r.stack,
      etag,
      profileEtag: r.etag,
      revision: r.revision,
      created: r.value,
      changed: r.changed,
      endpoint: stored,
      warnings: r.warnings.map(toWire),
    },
  };
}

async function deleteEndpoint(c: ApiContext, ctx: Ctx): Promise<Reply<EndpointDeleteResult>> {
  const endpoint = ctx.params[1]!;
  const stack = stackOf(ctx, false);
  const cond = conditions(ctx);
  const caller = callerOf(ctx);
  let before: Profile | undefined;
  // The client's If-Match is the endpoint's, checked against the profile as the write finds it.
  const r = await editProfile(c, ctx.params[0]!, stack, undefined, (current) => {
    before = current.profile;
    const existing = findEndpoint(current.profile, endpoint);
    checkEndpointConditions(
      `endpoint '${current.profile.name}/${endpoint}'`,
      existing ? endpointEtag(current.profile.name, existing) : undefined,
      cond,
    );
    const input = withoutEndpoint(current.profile, endpoint);
    if (!input) throw endpointNotFound(current.profile, endpoint);
    return { input, value: existing!.name };
  });
  await audit(c.store, caller, 'endpoint.delete', `${r.profile.name}/${r.value}`, {
    stack: r.stack,
    etag: r.etag,
    changes: profileChanges(before, r.profile),
  });
  return {
    status: 200,
    headers: { 'tmkit-profile-etag': r.etag },
    body: { profile: r.profile.name, endpoint: r.value, deleted: true, profileEtag: r.etag, revision: r.revision },
  };
}

/**
 * `PATCH …/endpoints/{endpoint}`: a JSON merge patch of one endpoint; `If-Match` is the profile's ETag. The
 * safety rule of traffic operations applies (as to `override down`, core/operations/safety.ts): a patch that
 * would leave the profile, or one nesting it, with no endpoint able to serve is refused (409 ENDPOINT_UNSAFE,
 * audited as `endpoint.refuse`) unless `?force=true`.
 */
async function patchEndpoint(c: ApiContext, ctx: Ctx, ops: OperationsPort | undefined): Promise<Reply<WriteResult>> {
  const endpointName = ctx.params[1]!;
  const stack = stackOf(ctx, false);
  const forceParam = ctx.url.searchParams.get('force');
  if (forceParam !== null && forceParam !== 'true' && forceParam !== 'false')
    throw ApiProblem.of(400, 'BAD_REQUEST', `force '${forceParam}' is not true or false`, { path: 'force' });
  const force = forceParam === 'true';
  const patch = await readJson(ctx.req, c.maxBody);
  if (!isObj(patch))
    throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be a JSON object of endpoint properties, e.g. {"endpointStatus":"Disabled"}', {
      path: '$',
    });
  if ('name' in patch && patch.name !== endpointName) {
    throw ApiProblem.of(
      400,
      'NAME_MISMATCH',
      `an endpoint cannot be renamed by PATCH (body name '${String(patch.name)}', URL '${endpointName}'); PUT the profile instead`,
      { path: `profiles[${ctx.params[0]!}].endpoints[${endpointName}].name` },
    );
  }
  const caller = callerOf(ctx);
  const explicit = header(ctx.req, 'if-match');
  // The rule reads what DNS answers: every change made before this one first.
  if (ops && !force) await ops.settle();
  let refused: { target: string; message: string; disabling: boolean } | undefined;
  const r = await editProfile(c, ctx.params[0]!, stack, explicit, (current) => {
    const input = withEndpointPatch(current.profile, endpointName, patch);
    if (!input) throw endpointNotFound(current.profile, endpointName);
    if (ops && !force) {
      const was = findEndpoint(current.profile, endpointName)!;
      const disabling = patch.endpointStatus === 'Disabled' && was.endpointStatus !== 'Disabled';
      let after: Profile | undefined;
      try {
        after = normalizeProfile(input);
      } catch {
        after = undefined; // not a profile: the store's validation answers for it
      }
      const safety = after && ops.checkEdit(after, was.name, disabling ? 'disabling' : 'this change to');
      if (safety && !safety.ok) {
        refused = { target: `${current.profile.name}/${was.name}`, message: safety.message, disabling };
        throw ApiProblem.of(409, 'ENDPOINT_UNSAFE', safety.message);
      }
    }
    return { input, value: current.profile };
  }).catch(async (err: unknown) => {
    if (refused && err instanceof ApiProblem)
      await audit(c.store, caller, 'endpoint.refuse', refused.target, {
        message: refused.message,
        ...(refused.disabling ? { endpointStatus: 'Disabled' } : {}),
      }).catch(() => undefined);
    throw err;
  });
  if (r.changed) {
    const was = findEndpoint(r.value, endpointName);
    const now = findEndpoint(r.profile, endpointName);
    // `tmkit endpoint disable|enable` is a PATCH of endpointStatus: named as what it does.
    const action =
      was?.endpointStatus !== now?.endpointStatus && now?.endpointStatus !== undefined
        ? now.endpointStatus === 'Disabled'
          ? 'endpoint.disable'
          : 'endpoint.enable'
        : 'endpoint.update';
    await audit(c.store, caller, action, `${r.profile.name}/${now?.name ?? endpointName}`, {
      stack: r.stack,
      etag: r.etag,
      changes: profileChanges(r.value, r.profile),
    });
  }
  return profileReply(200, r.stack, r);
}
