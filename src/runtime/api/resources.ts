/** `/v1/resources`: the resource catalog Azure endpoints' ARM ids resolve through (read, replace whole). */
import type { ResourceCatalogResponse } from '../../core/api';
import { parseResourceCatalog } from '../../core/model/catalog';
import { audit, callerOf } from './audit';
import { isObj, type ApiContext } from './common';
import { ApiProblem } from './errors';
import { readJson, route, type Ctx, type Reply, type Route } from './http';

export function resourceRoutes(c: ApiContext): Route[] {
  return [route('/v1/resources', { GET: () => getResources(c), PUT: (x) => putResources(c, x) })];
}

async function getResources(c: ApiContext): Promise<Reply<ResourceCatalogResponse>> {
  return { status: 200, body: { revision: await c.store.revision(), resources: await c.store.getResources() } };
}

async function putResources(c: ApiContext, ctx: Ctx): Promise<Reply<{ revision: number; count: number }>> {
  const body = await readJson(ctx.req, c.maxBody);
  const { catalog, errors } = parseResourceCatalog(isObj(body) && 'revision' in body ? { resources: body.resources } : body);
  if (errors.length > 0) throw new ApiProblem(400, errors);
  const caller = callerOf(ctx);
  const before = Object.keys(await c.store.getResources()).length;
  const r = await c.store.putResources(catalog);
  await audit(c.store, caller, 'resources.replace', 'resources', { changes: [`${before} → ${Object.keys(catalog).length} resources`] });
  return { status: 200, body: { revision: r.revision, count: Object.keys(catalog).length } };
}
