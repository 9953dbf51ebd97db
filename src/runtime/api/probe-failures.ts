/**
 * `/v1/profiles/{name}/endpoints/{endpoint}/probe-failure`: what a detection drill (`tmkit drill --mode
 * detection`, docs/operations.md#drills) uses to make this server's prober fail an endpoint's probes.
 * `PUT {forSeconds, reason?, drill?, who?}` puts it in force, `GET` shows it, `DELETE` ends it. The endpoint must
 * be one probing decides (not nested, not Always Serve). In memory on this server (monitor/probe-failures.ts).
 */
import type { ProbeFailureReport } from '../../core/api';
import { problem, type Diagnostic } from '../../core/diagnostics';
import { findEndpoint } from '../../core/model/edit';
import { MAX_PROBE_FAILURE_REASON, MAX_PROBE_FAILURE_SECONDS, type ProbeFailures } from '../monitor/probe-failures';
import { audit, callerOf } from './audit';
import { mustGet, readObject, type ApiContext } from './common';
import { ApiProblem } from './errors';
import { route, type Ctx, type Reply, type Route } from './http';

const FIELDS = ['forSeconds', 'reason', 'drill', 'who'];

export function probeFailureRoutes(c: ApiContext, failures: ProbeFailures | undefined): Route[] {
  return [
    route('/v1/profiles/{name}/endpoints/{endpoint}/probe-failure', {
      GET: (x) => get(c, failures, x),
      PUT: (x) => put(c, failures, x),
      DELETE: (x) => clear(c, failures, x),
    }),
  ];
}

function on(failures: ProbeFailures | undefined): ProbeFailures {
  if (!failures) throw ApiProblem.of(503, 'NOT_AVAILABLE', 'this server has no prober attached; probe failures cannot be injected');
  return failures;
}

async function keyOf(c: ApiContext, ctx: Ctx, forWrite: boolean): Promise<string> {
  const p = await mustGet(c, ctx.params[0]!);
  const e = findEndpoint(p.profile, ctx.params[1]!);
  if (!e)
    throw ApiProblem.of(404, 'NOT_FOUND', `profile '${p.profile.name}' has no endpoint '${ctx.params[1]!}'`, {
      path: `profiles[${p.profile.name}].endpoints[${ctx.params[1]!}]`,
    });
  if (forWrite && e.type === 'nestedEndpoints')
    throw ApiProblem.of(
      409,
      'HEALTH_NOT_APPLICABLE',
      `endpoint '${e.name}' is nested: it is not probed (its status comes from its child profile); drill the child's endpoints instead`,
    );
  if (forWrite && e.alwaysServe === 'Enabled')
    throw ApiProblem.of(
      409,
      'HEALTH_NOT_APPLICABLE',
      `endpoint '${e.name}' has Always Serve enabled: it is never probed, so failed probes would change nothing`,
    );
  return `${p.profile.name}/${e.name}`;
}

async function get(c: ApiContext, failures: ProbeFailures | undefined, ctx: Ctx): Promise<Reply<ProbeFailureReport>> {
  const key = await keyOf(c, ctx, false);
  const r = on(failures).report(key);
  if (!r) throw ApiProblem.of(404, 'NOT_FOUND', `endpoint '${key}' has no probe failure in force`);
  return { status: 200, body: r };
}

async function put(c: ApiContext, failures: ProbeFailures | undefined, ctx: Ctx): Promise<Reply<ProbeFailureReport>> {
  const body = await readObject(c, ctx, '{"forSeconds": 150, "reason"?: "...", "drill"?: "dr-…", "who"?: "..."}');
  const errors: Diagnostic[] = [];
  const unknown = Object.keys(body).filter((k) => !FIELDS.includes(k));
  for (const k of unknown)
    errors.push(problem('BAD_REQUEST', `unknown field ${JSON.stringify(k)}: the fields are ${FIELDS.join(', ')}`, { path: k }));
  const f = body.forSeconds;
  if (typeof f !== 'number' || !Number.isInteger(f) || f < 1 || f > MAX_PROBE_FAILURE_SECONDS)
    errors.push(
      problem(
        'BAD_REQUEST',
        `forSeconds ${JSON.stringify(f)} is not a whole number of seconds from 1 to ${MAX_PROBE_FAILURE_SECONDS} (7 days)`,
        {
          path: 'forSeconds',
        },
      ),
    );
  for (const k of ['reason', 'drill', 'who'] as const) {
    const v = body[k];
    if (v !== undefined && (typeof v !== 'string' || v.length === 0 || v.length > MAX_PROBE_FAILURE_REASON))
      errors.push(problem('BAD_REQUEST', `${k} is a non-empty string of at most ${MAX_PROBE_FAILURE_REASON} characters`, { path: k }));
  }
  if (errors.length > 0) throw new ApiProblem(400, errors);
  const caller = callerOf(ctx);
  const key = await keyOf(c, ctx, true);
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const who = str(body.who) ?? caller.who;
  const r = on(failures).inject(key, f as number, who, str(body.drill), str(body.reason));
  const reason = caller.reason ?? str(body.reason);
  await audit(c.store, { who, ...(reason ? { reason } : {}) }, 'probe-failure.inject', key, {
    forSeconds: f,
    ...(body.drill !== undefined ? { drill: body.drill } : {}),
  });
  return { status: 200, body: r };
}

async function clear(
  c: ApiContext,
  failures: ProbeFailures | undefined,
  ctx: Ctx,
): Promise<Reply<{ profile: string; endpoint: string; cleared: boolean }>> {
  const caller = callerOf(ctx);
  const key = await keyOf(c, ctx, false);
  const cleared = on(failures).clear(key);
  if (cleared) await audit(c.store, caller, 'probe-failure.clear', key);
  const i = key.indexOf('/');
  return { status: 200, body: { profile: key.slice(0, i), endpoint: key.slice(i + 1), cleared } };
}
