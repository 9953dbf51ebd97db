import type { AzureResource, ResourceCatalog } from '../../core/ports';
import type { ResourceCatalogRecord } from './types';

export interface CatalogError { code: string; path: string; message: string }

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses a resource catalog (design §3, `tmkit serve --resources FILE`, `PUT /v1/resources`):
 * `{"<ARM id>": {"target": "app.azurewebsites.net", "location": "westeurope", "state": "running"}}`,
 * or the same entries as an array with an `id` each. `state` defaults to `running`. Every problem is
 * reported, none thrown.
 */
export function parseResourceCatalog(input: unknown): { catalog: ResourceCatalogRecord; errors: CatalogError[] } {
  const errors: CatalogError[] = [];
  const catalog: ResourceCatalogRecord = {};
  let entries: Array<[string, unknown, string]>;
  if (Array.isArray(input)) {
    entries = input.map((e, i) => [isObj(e) && typeof e.id === 'string' ? e.id : '', e, `[${i}]`]);
  } else if (isObj(input)) {
    const src = isObj(input.resources) || Array.isArray(input.resources) ? input.resources : input;
    if (Array.isArray(src)) return parseResourceCatalog(src);
    entries = Object.entries(src as Record<string, unknown>).map(([id, e]) => [id, e, id]);
  } else {
    return { catalog, errors: [{ code: 'catalog-shape', path: '', message: 'the resource catalog must be a JSON object mapping ARM ids to {target, location, state}' }] };
  }
  const seen = new Set<string>();
  for (const [id, e, path] of entries) {
    if (id.trim() === '') { errors.push({ code: 'catalog-id', path, message: 'a resource needs an ARM id (the key, or "id" in the array form)' }); continue; }
    if (seen.has(id.toLowerCase())) { errors.push({ code: 'catalog-duplicate', path, message: `ARM id '${id}' appears twice (ids compare case-insensitively)` }); continue; }
    seen.add(id.toLowerCase());
    if (!isObj(e)) { errors.push({ code: 'catalog-entry', path, message: 'a resource must be an object {target, location?, state?}' }); continue; }
    if (typeof e.target !== 'string' || e.target.trim() === '') {
      errors.push({ code: 'catalog-target', path: `${path}.target`, message: 'target (the FQDN or IP the endpoint answers with) is required' });
      continue;
    }
    const state = e.state ?? 'running';
    if (state !== 'running' && state !== 'stopped') {
      errors.push({ code: 'catalog-state', path: `${path}.state`, message: `state must be "running" or "stopped", not ${JSON.stringify(state)}` });
      continue;
    }
    if (e.location !== undefined && typeof e.location !== 'string') {
      errors.push({ code: 'catalog-location', path: `${path}.location`, message: 'location must be an Azure region name' });
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
