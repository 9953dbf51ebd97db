import { problem, type Diagnostic } from '../diagnostics';
import type { AzureResource, ResourceCatalog } from '../ports';

/** The Azure resource catalog as stored and sent (README.md, Concepts): ARM id (as written) → resource. */
export type ResourceCatalogRecord = Record<string, AzureResource>;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses a resource catalog (README.md, Concepts, `tmkit serve --resources FILE`, `PUT /v1/resources`):
 * `{"<ARM id>": {"target": "app.azurewebsites.net", "location": "westeurope", "state": "running"}}`,
 * or the same entries as an array with an `id` each. `state` defaults to `running`. Every problem is
 * reported, none thrown.
 */
export function parseResourceCatalog(input: unknown): { catalog: ResourceCatalogRecord; errors: Diagnostic[] } {
  const errors: Diagnostic[] = [];
  const catalog: ResourceCatalogRecord = {};
  let entries: Array<[string, unknown, string]>;
  if (Array.isArray(input)) {
    entries = input.map((e, i) => [isObj(e) && typeof e.id === 'string' ? e.id : '', e, `[${i}]`]);
  } else if (isObj(input)) {
    const src = isObj(input.resources) || Array.isArray(input.resources) ? input.resources : input;
    if (Array.isArray(src)) return parseResourceCatalog(src);
    entries = Object.entries(src as Record<string, unknown>).map(([id, e]) => [id, e, id]);
  } else {
    return {
      catalog,
      errors: [problem('CATALOG_SHAPE', 'the resource catalog must be a JSON object mapping ARM ids to {target, location, state}')],
    };
  }
  const seen = new Set<string>();
  for (const [id, e, path] of entries) {
    if (id.trim() === '') {
      errors.push(problem('CATALOG_ID', 'a resource needs an ARM id (the key, or "id" in the array form)', { path }));
      continue;
    }
    if (seen.has(id.toLowerCase())) {
      errors.push(problem('CATALOG_DUPLICATE', `ARM id '${id}' appears twice (ids compare case-insensitively)`, { path }));
      continue;
    }
    seen.add(id.toLowerCase());
    if (!isObj(e)) {
      errors.push(problem('CATALOG_ENTRY', 'a resource must be an object {target, location?, state?}', { path }));
      continue;
    }
    if (typeof e.target !== 'string' || e.target.trim() === '') {
      errors.push(problem('CATALOG_TARGET', 'target (the FQDN or IP the endpoint answers with) is required', { path: `${path}.target` }));
      continue;
    }
    const state = e.state ?? 'running';
    if (state !== 'running' && state !== 'stopped') {
      errors.push(
        problem('CATALOG_STATE', `state must be "running" or "stopped", not ${JSON.stringify(state)}`, { path: `${path}.state` }),
      );
      continue;
    }
    if (e.location !== undefined && typeof e.location !== 'string') {
      errors.push(problem('CATALOG_LOCATION', 'location must be an Azure region name', { path: `${path}.location` }));
      continue;
    }
    const r: AzureResource = { target: e.target, state };
    if (typeof e.location === 'string') r.location = e.location;
    catalog[id] = r;
  }
  return { catalog, errors };
}

/** The routing engine's view: lower-cased ARM id → resource. */
export function toResourceCatalog(record: ResourceCatalogRecord): ResourceCatalog {
  return new Map(Object.entries(record).map(([id, r]) => [id.toLowerCase(), r]));
}
