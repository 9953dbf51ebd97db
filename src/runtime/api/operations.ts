/**
 * The traffic operations' routes (docs/operations.md, docs/api.md): `/v1/overrides`, `…/endpoints/{e}/failback`,
 * `/v1/audit`, `/v1/drills`, `/v1/nodes`, and this node's readiness (`/readyz`, `/v1/node`, `/v1/node/drain|undrain`). The handlers parse the request; the runtime's `OperationsPort`
 * (operations.ts) decides and writes. A server without it (the API tests' harness) answers 503.
 */
import type {
  AuditList,
  DrillList,
  DrillReport,
  FailbackResult,
  NodeList,
  NodeReadiness,
  OverrideDeleteResult,
  OverrideList,
  OverrideResult,
  ShiftList,
  ShiftResult,
} from '../../core/api';
import type { ErrorCode } from '../../core/codes';
import { isRefusal, type OperationsPort, type OperationsResult } from '../operations';
import { attached, findProfile, isObj, mustGet, refuseUnknown, type ApiContext } from './common';
import { ApiProblem } from './errors';
import { readJson, readOptionalJson, route, type Ctx, type Reply, type Route } from './http';

const WHO = /^[A-Za-z0-9][A-Za-z0-9 ._@:/-]{0,63}$/;
/** The fields each body may have: another one is a typo that would be ignored, so it is refused (400, named). */
const OVERRIDE_FIELDS = ['kind', 'profile', 'endpoint', 'weight', 'for', 'reason', 'who', 'force', 'drill', 'shift'];
const SHIFT_FIELDS = ['profile', 'endpoint', 'weights', 'everySeconds', 'who', 'reason'];
/** A drill report's profile and endpoint: names, at most this long. */
const MAX_NAME = 260;

export function operationsRoutes(c: ApiContext, ops: OperationsPort | undefined): Route[] {
  const on = attached(ops, 'this server has no traffic operations attached');
  return [
    route('/v1/overrides', {
      GET: async () => ({ status: 200, body: on().listOverrides() }) as Reply<OverrideList>,
      POST: (x) => createOverride(c, on(), x),
    }),
    route('/v1/overrides/{id}', { DELETE: (x) => clearOverride(on(), x) }),
    route('/v1/profiles/{name}/endpoints/{endpoint}/failback', { POST: (x) => failback(c, on(), x) }),
    route('/v1/audit', { GET: async (x): Promise<Reply<AuditList>> => ({ status: 200, body: await on().audit(limitOf(x, 100, 10_000)) }) }),
    route('/v1/drills', {
      GET: async (x): Promise<Reply<DrillList>> => ({ status: 200, body: await on().drills(limitOf(x, 20, 500)) }),
      POST: (x) => putDrill(c, on(), x),
    }),
    route('/v1/nodes', { GET: async (): Promise<Reply<NodeList>> => ({ status: 200, body: on().nodes() }) }),
    route('/v1/shifts', {
      GET: async (): Promise<Reply<ShiftList>> => ({ status: 200, body: await on().listShifts() }),
      POST: async (x) => {
        const body = await readJson(x.req, c.maxBody);
        refuseUnknown(body, SHIFT_FIELDS, '{"profile", "endpoint", "weights", "everySeconds", "who"?, "reason"?}');
        return answer(await on().startShift(body, (name) => findProfile(c, name)), 201);
      },
    }),
    route('/v1/shifts/{id}', {
      PUT: (x) => renewShift(c, on(), x),
      DELETE: async (x): Promise<Reply<ShiftResult>> => {
        const { who, reason } = await whoAndWhy(c, x);
        return answer(await on().endShift(x.params[0]!, who, reason), 200);
      },
    }),
    route('/v1/shifts/{id}/cancel', {
      POST: async (x): Promise<Reply<ShiftResult>> => {
        const { who, reason } = await whoAndWhy(c, x);
        return answer(await on().cancelShift(x.params[0]!, who, reason), 200);
      },
    }),
  ];
}

/**
 * This node's readiness: `GET /readyz` (no token; 200 `ready`, or 503 and the reason in one line) for load
 * balancers, anycast health checkers and Kubernetes; `GET /v1/node` and the drain (token) for `tmkit node`.
 */
export function nodeRoutes(c: ApiContext, ops: OperationsPort | undefined): { routes: Route[]; open: Route[] } {
  const on = attached(ops, 'this server has no runtime attached: there is no node to drain');
  const text = { 'content-type': 'text/plain; charset=utf-8' };
  return {
    open: [
      route('/readyz', {
        GET: async (): Promise<Reply<string>> => {
          if (!ops) return { status: 503, body: 'not ready: no runtime attached\n', headers: text };
          const r = await ops.readiness();
          return { status: r.ready ? 200 : 503, body: `${r.ready ? 'ready' : r.reason}\n`, headers: text };
        },
      }),
    ],
    routes: [
      route('/v1/node', { GET: async (): Promise<Reply<NodeReadiness>> => ({ status: 200, body: await on().readiness() }) }),
      route('/v1/node/drain', {
        POST: async (x): Promise<Reply<NodeReadiness>> => {
          const { who, reason } = await whoAndWhy(c, x);
          return { status: 200, body: await on().drain(who, reason) };
        },
      }),
      route('/v1/node/undrain', {
        POST: async (x): Promise<Reply<NodeReadiness>> => {
          const { who, reason } = await whoAndWhy(c, x);
          return { status: 200, body: await on().undrain(who, reason) };
        },
      }),
    ],
  };
}

/** An OperationsPort refusal as the API's error body. */
function answer<T>(r: OperationsResult<T>, status: number): Reply<T> {
  if (!isRefusal(r)) return { status, body: r };
  if (r.refused.errors) throw new ApiProblem(r.refused.status, r.refused.errors);
  throw ApiProblem.of(r.refused.status, r.refused.code as ErrorCode, r.refused.message);
}

function limitOf(ctx: Ctx, dflt: number, max: number): number {
  const raw = ctx.url.searchParams.get('limit');
  if (raw === null) return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw ApiProblem.of(400, 'BAD_REQUEST', `limit '${raw}' is not an integer 1–${max}`, { path: 'limit' });
  return n;
}

/**
 * `who` and `reason` of a request without a required body: the query (`?who=&reason=`) or a small JSON body,
 * `{"who": "...", "reason": "..."}` and nothing else (a body that is not that is refused, never taken as none).
 */
async function whoAndWhy(c: ApiContext, ctx: Ctx): Promise<{ who: string; reason?: string }> {
  const v = await readOptionalJson(ctx.req, c.maxBody);
  if (v !== undefined && !isObj(v))
    throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be {"who": "...", "reason": "..."} or nothing', { path: '$' });
  const body = v ?? {};
  refuseUnknown(body, ['who', 'reason'], '{"who": "...", "reason": "..."} or nothing');
  if (body.who !== undefined && typeof body.who !== 'string')
    throw ApiProblem.of(400, 'BAD_REQUEST', 'who is a name of 1–64 letters, digits, spaces and ._@:/-', { path: 'who' });
  if (body.reason !== undefined && typeof body.reason !== 'string')
    throw ApiProblem.of(400, 'BAD_REQUEST', 'reason is a text of at most 500 characters', { path: 'reason' });
  const who = ctx.url.searchParams.get('who') ?? (body.who as string | undefined) ?? 'api';
  const reason = ctx.url.searchParams.get('reason') ?? (body.reason as string | undefined);
  if (!WHO.test(who)) throw ApiProblem.of(400, 'BAD_REQUEST', 'who is a name of 1–64 letters, digits, spaces and ._@:/-', { path: 'who' });
  if (reason !== undefined && reason.length > 500)
    throw ApiProblem.of(400, 'BAD_REQUEST', 'reason is at most 500 characters', { path: 'reason' });
  return { who, ...(reason !== undefined && reason !== '' ? { reason } : {}) };
}

async function createOverride(c: ApiContext, ops: OperationsPort, ctx: Ctx): Promise<Reply<OverrideResult>> {
  const body = await readJson(ctx.req, c.maxBody);
  refuseUnknown(body, OVERRIDE_FIELDS, '{"kind", "profile", "endpoint", "for", "weight"?, "reason"?, "who"?, "force"?}');
  return answer(await ops.createOverride(body, (name) => findProfile(c, name)), 201);
}

async function clearOverride(ops: OperationsPort, ctx: Ctx): Promise<Reply<OverrideDeleteResult>> {
  const who = ctx.url.searchParams.get('who') ?? 'api';
  if (!WHO.test(who)) throw ApiProblem.of(400, 'BAD_REQUEST', 'who is a name of 1–64 letters, digits, spaces and ._@:/-', { path: 'who' });
  const reason = ctx.url.searchParams.get('reason') ?? undefined;
  if (reason !== undefined && reason.length > 500)
    throw ApiProblem.of(400, 'BAD_REQUEST', 'reason is at most 500 characters', { path: 'reason' });
  return answer(await ops.clearOverride(ctx.params[0]!, who, reason), 200);
}

async function renewShift(c: ApiContext, ops: OperationsPort, ctx: Ctx): Promise<Reply<ShiftResult>> {
  const sent = await readOptionalJson(ctx.req, c.maxBody);
  const b = sent === undefined ? {} : sent;
  if (!isObj(b)) throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be {"step": N, "weight": W} or nothing', { path: '$' });
  refuseUnknown(b, ['step', 'weight'], '{"step": N, "weight": W} or nothing');
  const step = b.step;
  const weight = b.weight;
  if (step !== undefined && (!Number.isInteger(step) || (step as number) < 1))
    throw ApiProblem.of(400, 'BAD_REQUEST', 'the body is {"step": N, "weight": W} (step a positive integer)', { path: 'step' });
  if (weight !== undefined && (!Number.isInteger(weight) || (weight as number) < 1 || (weight as number) > 1000))
    throw ApiProblem.of(400, 'BAD_REQUEST', 'weight is an integer 1–1000', { path: 'weight' });
  return answer(await ops.renewShift(ctx.params[0]!, step as number | undefined, weight as number | undefined), 200);
}

async function failback(c: ApiContext, ops: OperationsPort, ctx: Ctx): Promise<Reply<FailbackResult>> {
  const { who, reason } = await whoAndWhy(c, ctx);
  const p = await mustGet(c, ctx.params[0]!);
  return answer(await ops.failback(p, ctx.params[1]!, who, reason), 200);
}

const STATUSES = new Set(['running', 'passed', 'failed', 'aborted']);

async function putDrill(c: ApiContext, ops: OperationsPort, ctx: Ctx): Promise<Reply<DrillReport>> {
  const b = await readJson(ctx.req, c.maxBody);
  if (
    !isObj(b) ||
    typeof b.id !== 'string' ||
    !/^[A-Za-z0-9._-]{1,64}$/.test(b.id) ||
    typeof b.profile !== 'string' ||
    b.profile === '' ||
    b.profile.length > MAX_NAME ||
    typeof b.endpoint !== 'string' ||
    b.endpoint === '' ||
    b.endpoint.length > MAX_NAME ||
    typeof b.status !== 'string' ||
    !STATUSES.has(b.status) ||
    typeof b.startedAt !== 'string' ||
    Number.isNaN(Date.parse(b.startedAt)) ||
    !Array.isArray(b.nodes) ||
    !b.nodes.every(isObj)
  ) {
    throw ApiProblem.of(
      400,
      'BAD_REQUEST',
      'the body must be a drill report: {"id", "profile", "endpoint", "status": ' +
        '"running|passed|failed|aborted", "startedAt", "nodes": [...], …} (tmkit drill writes it)',
      { path: '$' },
    );
  }
  return { status: 200, body: await ops.putDrill(b as unknown as DrillReport) };
}
