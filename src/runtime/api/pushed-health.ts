/**
 * `/v1/profiles/{name}/endpoints/{endpoint}/health`: health pushed from outside (docs/health.md, docs/api.md).
 * `PUT {status, ttlSeconds, reason}` marks an endpoint Online or Degraded until the TTL ends; `GET` shows it;
 * `DELETE` ends it now. The endpoint must exist and be one whose status probing decides (not nested, not
 * Always Serve). The runtime's health ledger keeps it (ledger/pushed-health.ts); the answer comes once DNS
 * serves the new status. Without a ledger (the API tests' harness) these routes answer 503.
 */
import type { PushedHealthReport, PushedHealthRequest } from '../../core/api';
import { problem, type Diagnostic } from '../../core/diagnostics';
import { findEndpoint } from '../../core/model/edit';
import type { PushedHealthApi } from '../ledger';
import { MAX_PUSH_REASON, MAX_PUSH_TTL_SECONDS } from '../ledger/pushed-health';
import { audit, callerOf } from './audit';
import { mustGet, readObject, refuseUnknown, type ApiContext } from './common';
import { ApiProblem } from './errors';
import { route, type Ctx, type Reply, type Route } from './http';

export function pushedHealthRoutes(c: ApiContext, pushed: PushedHealthApi | undefined): Route[] {
  return [
    route('/v1/profiles/{name}/endpoints/{endpoint}/health', {
      GET: (x) => get(c, pushed, x),
      PUT: (x) => put(c, pushed, x),
      DELETE: (x) => clear(c, pushed, x),
    }),
  ];
}

function on(pushed: PushedHealthApi | undefined): PushedHealthApi {
  if (!pushed) throw ApiProblem.of(503, 'NOT_AVAILABLE', 'this server has no health ledger attached; pushed health is unavailable');
  return pushed;
}

/** The stored `profile/endpoint` key the URL names (names are case-insensitive); 404 / 409 as it must. */
async function keyOf(c: ApiContext, ctx: Ctx, forWrite: boolean): Promise<string> {
  const p = await mustGet(c, ctx.params[0]!);
  const e = findEndpoint(p.profile, ctx.params[1]!);
  if (!e)
    throw ApiProblem.of(404, 'NOT_FOUND', `profile '${p.profile.name}' has no endpoint '${ctx.params[1]!}'`, {
      path: `profiles[${p.profile.name}].endpoints[${ctx.params[1]!}]`,
    });
  if (forWrite && e.type === 'nestedEndpoints') {
    throw ApiProblem.of(
      409,
      'HEALTH_NOT_APPLICABLE',
      `endpoint '${e.name}' is nested: its status comes from its child profile; push health to the child's endpoints instead`,
    );
  }
  if (forWrite && e.alwaysServe === 'Enabled') {
    throw ApiProblem.of(
      409,
      'HEALTH_NOT_APPLICABLE',
      `endpoint '${e.name}' has Always Serve enabled: it is never monitored, so pushed health would not count; disable Always Serve first`,
    );
  }
  return `${p.profile.name}/${e.name}`;
}

async function get(c: ApiContext, pushed: PushedHealthApi | undefined, ctx: Ctx): Promise<Reply<PushedHealthReport>> {
  const key = await keyOf(c, ctx, false);
  const r = on(pushed).report(key);
  if (!r) throw ApiProblem.of(404, 'NOT_FOUND', `endpoint '${key}' has no pushed health in force`);
  return { status: 200, body: r };
}

async function put(c: ApiContext, pushed: PushedHealthApi | undefined, ctx: Ctx): Promise<Reply<PushedHealthReport>> {
  const body = await readObject(c, ctx, '{"status": "Online" | "Degraded", "ttlSeconds": 300, "reason": "..."}');
  refuseUnknown(body, ['status', 'ttlSeconds', 'reason', 'who'], '{"status": "Online" | "Degraded", "ttlSeconds": 300, "reason"?, "who"?}');
  const errors: Diagnostic[] = [];
  if (body.status !== 'Online' && body.status !== 'Degraded') {
    const near =
      typeof body.status === 'string' && ['online', 'degraded'].includes(body.status.toLowerCase())
        ? ` (write "${body.status[0]!.toUpperCase()}${body.status.slice(1).toLowerCase()}")`
        : '';
    errors.push(problem('BAD_REQUEST', `status ${JSON.stringify(body.status)} is not "Online" or "Degraded"${near}`, { path: 'status' }));
  }
  const ttl = body.ttlSeconds;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_PUSH_TTL_SECONDS) {
    errors.push(
      problem(
        'BAD_REQUEST',
        `ttlSeconds ${JSON.stringify(ttl)} is not a whole number of seconds from 1 to ${MAX_PUSH_TTL_SECONDS} (a day)`,
        { path: 'ttlSeconds' },
      ),
    );
  }
  if (body.reason !== undefined && (typeof body.reason !== 'string' || body.reason.length > MAX_PUSH_REASON)) {
    errors.push(problem('BAD_REQUEST', `reason is a string of at most ${MAX_PUSH_REASON} characters`, { path: 'reason' }));
  }
  if (errors.length > 0) throw new ApiProblem(400, errors);
  const caller = callerOf(ctx, body);
  const key = await keyOf(c, ctx, true);
  const req = body as unknown as PushedHealthRequest;
  const was = on(pushed).report(key)?.status;
  const r = await on(pushed).push(key, req.status, req.ttlSeconds, req.reason ?? '');
  // A health pusher repeats itself every few seconds: only a change of the pushed status is audited.
  if (was !== req.status)
    await audit(c.store, { ...caller, ...(caller.reason || !req.reason ? {} : { reason: req.reason }) }, 'health.push', key, {
      changes: [`pushed ${was ?? '(none)'} → ${req.status}`],
      expiresAt: r.expiresAt,
    });
  return { status: 200, body: r };
}

async function clear(
  c: ApiContext,
  pushed: PushedHealthApi | undefined,
  ctx: Ctx,
): Promise<Reply<{ profile: string; endpoint: string; cleared: boolean }>> {
  const caller = callerOf(ctx);
  const key = await keyOf(c, ctx, false);
  const was = on(pushed).report(key)?.status;
  const cleared = await on(pushed).clear(key);
  if (cleared) await audit(c.store, caller, 'health.clear', key, { changes: [`pushed ${was ?? '(expired)'} → (none)`] });
  const i = key.indexOf('/');
  return { status: 200, body: { profile: key.slice(0, i), endpoint: key.slice(i + 1), cleared } };
}
