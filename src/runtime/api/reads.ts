/**
 * The reads of the running server, not of the stored configuration (that is profiles.ts, endpoints.ts,
 * resources.ts): `/v1/profiles/{name}/status`, `/traffic`, `/v1/resolve`, `/v1/preview`, the live events,
 * `/healthz` and `/metrics`. The handlers parse and check the request; the answers come from the runtime's
 * `RuntimeReports` (src/runtime/read-models.ts), which reads the served snapshot and the health ledger. A
 * server without it (the API tests' harness) answers 503 for those routes.
 */
import { isIP } from 'node:net';
import type { DecisionsReport, HealthzBody, PreviewReport, ProfileStatusReport, ResolveResult, TrafficReport } from '../../core/api';
import { clientMatcher, type DecisionQuery } from '../dns';
import { problem, type Diagnostic } from '../../core/diagnostics';
import type { LiveEvents } from '../events';
import type { RuntimeMetrics } from '../metrics';
import type { ResolveRequest, RuntimeReports } from '../read-models';
import { isObj, mustGet, readObject, type ApiContext } from './common';
import { ApiProblem } from './errors';
import { readJson, route, type Ctx, type Reply, type Route } from './http';

export interface ReadContext extends ApiContext {
  reports: Partial<RuntimeReports>;
  metrics: RuntimeMetrics;
  events?: LiveEvents;
}

export function readRoutes(c: ReadContext): { routes: Route[]; open: Route[] } {
  return {
    routes: [
      route('/metrics', { GET: () => metrics(c) }),
      route('/v1/profiles/{name}/status', { GET: (x) => status(c, x) }),
      route('/v1/profiles/{name}/traffic', { GET: (x) => traffic(c, x) }),
      route('/v1/decisions', { GET: (x) => decisions(c, x) }),
      route('/v1/resolve', { POST: (x) => resolve(c, x) }),
      route('/v1/preview', { POST: (x) => preview(c, x) }),
      route('/v1/events', { GET: (x) => events(c, x) }),
    ],
    open: [route('/healthz', { GET: (x) => healthz(c, x) })],
  };
}

const unavailable = (what: string): ApiProblem => ApiProblem.of(503, 'NOT_AVAILABLE', what);

/**
 * The watchdog. Without the token it says only ok or degraded (same status codes): the revisions, the reason and a
 * cluster's layout (nodes, locations, etcd endpoints) are for whoever holds the token.
 */
async function healthz(c: ReadContext, ctx: Ctx): Promise<Reply<HealthzBody | { status: 'ok' | 'degraded' }>> {
  const h = c.reports.health ? await c.reports.health() : undefined;
  if (!ctx.authorized) return { status: h?.degraded ? 503 : 200, body: { status: h?.degraded ? 'degraded' : 'ok' } };
  if (!h) return { status: 200, body: { status: 'ok', revision: await c.store.revision() } };
  return {
    status: h.degraded ? 503 : 200,
    body: {
      status: h.degraded ? 'degraded' : 'ok',
      ...(h.zone !== undefined ? { zone: h.zone } : {}),
      revision: h.storeRevision,
      servedRevision: h.servedRevision,
      lagRevisions: h.lagRevisions,
      lagSeconds: h.lagSeconds,
      ...(h.reason !== undefined ? { reason: h.reason } : {}),
      ...(h.cluster ? { cluster: h.cluster } : {}),
    },
  };
}

async function metrics(c: ReadContext): Promise<Reply<string>> {
  return { status: 200, body: await c.metrics.registry.metrics(), headers: { 'content-type': c.metrics.registry.contentType } };
}

async function status(c: ReadContext, ctx: Ctx): Promise<Reply<ProfileStatusReport>> {
  const p = await mustGet(c, ctx.params[0]!);
  if (!c.reports.status) throw unavailable('this server has no monitor attached; status is unavailable');
  return { status: 200, body: await c.reports.status(p), headers: { etag: p.etag } };
}

async function resolve(c: ReadContext, ctx: Ctx): Promise<Reply<ResolveResult>> {
  const body = await readObject(c, ctx, '{"name": "...", "type": "A", "clientIp": "..."}');
  const errors: Diagnostic[] = [];
  if (typeof body.name !== 'string' || body.name.trim() === '')
    errors.push(problem('BAD_REQUEST', 'name (the DNS name to resolve) is required', { path: 'name' }));
  else if (body.name.length > 255)
    errors.push(problem('BAD_REQUEST', `name is ${body.name.length} characters: a DNS name has at most 253 (RFC 1035)`, { path: 'name' }));
  if (body.type !== undefined && (typeof body.type !== 'string' || !/^[A-Za-z0-9]+$/.test(body.type)))
    errors.push(problem('BAD_REQUEST', 'type is a DNS record type such as A, AAAA, CNAME, ANY', { path: 'type' }));
  if (body.clientIp !== undefined && typeof body.clientIp !== 'string')
    errors.push(problem('BAD_REQUEST', 'clientIp is an IPv4 or IPv6 address string', { path: 'clientIp' }));
  else if (typeof body.clientIp === 'string' && isIP(body.clientIp) === 0)
    errors.push(problem('BAD_REQUEST', `clientIp '${body.clientIp}' is not an IPv4 or IPv6 address`, { path: 'clientIp' }));
  if (errors.length > 0) throw new ApiProblem(400, errors);
  if (!c.reports.resolve) throw unavailable('this server has no routing engine attached; resolve is unavailable');
  const query: ResolveRequest = {
    name: body.name as string,
    type: typeof body.type === 'string' ? body.type.toUpperCase() : 'A',
    clientIp: typeof body.clientIp === 'string' ? body.clientIp : '127.0.0.1',
  };
  return { status: 200, body: await c.reports.resolve(query) };
}

async function traffic(c: ReadContext, ctx: Ctx): Promise<Reply<TrafficReport>> {
  const p = await mustGet(c, ctx.params[0]!);
  if (!c.reports.traffic) throw unavailable('this server has no DNS attached; Traffic View is unavailable');
  const raw = ctx.url.searchParams.get('since');
  const since = raw === null ? 0 : Date.parse(raw);
  if (Number.isNaN(since))
    throw ApiProblem.of(400, 'BAD_REQUEST', `since '${raw}' is not an ISO 8601 time such as 2026-12-02T10:00:00Z`, { path: 'since' });
  return { status: 200, body: c.reports.traffic(p, since) };
}

/** The decision log: `profile`, `client` (an address or a prefix), `since` (ISO 8601), `limit` (1-10000, default 100). */
async function decisions(c: ReadContext, ctx: Ctx): Promise<Reply<DecisionsReport>> {
  if (!c.reports.decisions) throw unavailable('this server has no DNS attached; there is no decision log');
  const q = ctx.url.searchParams;
  const query: DecisionQuery = {};
  const profile = q.get('profile');
  if (profile !== null && profile !== '') query.profile = profile;
  const client = q.get('client');
  if (client !== null && client !== '') {
    try {
      clientMatcher(client);
    } catch (err) {
      throw ApiProblem.of(400, 'BAD_REQUEST', (err as Error).message, { path: 'client' });
    }
    query.client = client;
  }
  const since = q.get('since');
  if (since !== null && since !== '') {
    const t = Date.parse(since);
    if (Number.isNaN(t))
      throw ApiProblem.of(400, 'BAD_REQUEST', `since '${since}' is not an ISO 8601 time such as 2026-12-02T10:00:00Z`, { path: 'since' });
    query.since = t;
  }
  const limit = q.get('limit');
  if (limit !== null && limit !== '') {
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 10_000)
      throw ApiProblem.of(400, 'BAD_REQUEST', `limit '${limit}' must be an integer from 1 to 10000`, { path: 'limit' });
    query.limit = n;
  }
  return { status: 200, body: c.reports.decisions(query) };
}

async function preview(c: ReadContext, ctx: Ctx): Promise<Reply<PreviewReport>> {
  const body = await readJson(ctx.req, c.maxBody);
  if (!isObj(body) || typeof body.profile !== 'string')
    throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be {"profile": "<name>", "down": ["<endpoint>", ...]}', {
      path: isObj(body) ? 'profile' : '$',
    });
  const down = body.down ?? [];
  if (!Array.isArray(down) || down.some((d) => typeof d !== 'string'))
    throw ApiProblem.of(400, 'BAD_REQUEST', 'down is a list of endpoint names (or child/endpoint paths) to treat as Degraded', {
      path: 'down',
    });
  const p = await mustGet(c, body.profile);
  if (!c.reports.preview) throw unavailable('this server has no routing engine attached; the preview is unavailable');
  return { status: 200, body: await c.reports.preview(p, down as string[]) };
}

async function events(c: ReadContext, ctx: Ctx): Promise<Reply<undefined>> {
  const ev = c.events;
  if (!ev) throw unavailable('this server publishes no events');
  if (ev.full)
    throw ApiProblem.of(
      429,
      'TOO_MANY_STREAMS',
      'too many event streams are open; close one (each browser tab of the dashboard holds one)',
    );
  ev.subscribe(ctx.res);
  return { status: 200, body: undefined, streamed: true };
}
