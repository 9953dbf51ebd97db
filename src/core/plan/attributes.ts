import type { AttributeChange, JsonValue } from './types';

/**
 * Attribute-level diff of two profiles, and its inverse (`applyAttributeChanges`), driven by a small
 * schema: which lists are keyed by `name` (endpoints, custom headers), which objects are free-form maps
 * (`tags`), and the order properties are shown in. Pure; inputs are never mutated.
 */

/** Attributes whose change forces a replace, with the reason shown to reviewers. */
export const REPLACE_PATHS: Readonly<Record<string, string>> = {
  'dnsConfig.relativeName':
    'dnsConfig.relativeName changes the DNS name the profile answers at: the old name stops answering (NXDOMAIN) ' +
    'and resolvers must look up the new one (Azure treats relativeName as create-only)',
};

/** Lists matched by element `name` (schema paths, `[*]` = any key). */
const KEYED_LISTS = new Set(['endpoints', 'monitorConfig.customHeaders', 'monitorConfig.checks', 'endpoints[*].customHeaders']);
/** Objects whose keys are user data, shown as `tags[key]`. */
const MAPS = new Set(['tags']);

/** Display order of known properties; unknown ones follow alphabetically. */
const ORDER: Record<string, readonly string[]> = {
  '': [
    'name',
    'profileStatus',
    'trafficRoutingMethod',
    'dnsConfig',
    'monitorConfig',
    'maxReturn',
    'trafficViewEnrollmentStatus',
    'allowedEndpointRecordTypes',
    'tags',
    'endpoints',
  ],
  dnsConfig: ['relativeName', 'ttl'],
  monitorConfig: [
    'protocol',
    'port',
    'path',
    'intervalInSeconds',
    'timeoutInSeconds',
    'toleratedNumberOfFailures',
    'customHeaders',
    'expectedStatusCodeRanges',
    'checks',
    'quorum',
  ],
  'monitorConfig.checks[*]': ['name', 'protocol', 'port', 'path', 'expectedStatusCodeRanges', 'mustBeHealthy', 'monitoringOnly'],
  'endpoints[*]': [
    'name',
    'type',
    'endpointStatus',
    'target',
    'targetResourceId',
    'endpointLocation',
    'weight',
    'priority',
    'minChildEndpoints',
    'minChildEndpointsIPv4',
    'minChildEndpointsIPv6',
    'geoMapping',
    'subnets',
    'customHeaders',
    'alwaysServe',
  ],
};

type Obj = { [key: string]: unknown };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON-equality ignoring object key order and `undefined` members. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => jsonEqual(a[k], b[k]));
  }
  return false;
}

/** A JSON-safe deep copy (drops `undefined` members), so plans never alias their inputs. */
export function toJson(v: unknown): JsonValue {
  if (Array.isArray(v)) return v.map(toJson);
  if (isObj(v)) {
    const out: { [k: string]: JsonValue } = {};
    for (const k of Object.keys(v)) if (v[k] !== undefined) out[k] = toJson(v[k]);
    return out;
  }
  if (v === undefined) return null;
  return v as JsonValue;
}

const BARE_KEY = /^[^\s[\]"\\]+$/;
/** `[eu]`, or `["my ep"]` when the key needs quoting. */
export function keySegment(key: string): string {
  return BARE_KEY.test(key) ? `[${key}]` : `[${JSON.stringify(key)}]`;
}

export type PathSegment = { prop: string } | { key: string };

/** Parses a change path back into segments (`endpoints["a b"].weight` → key `a b`, prop `weight`). */
export function parsePath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '.') {
      i++;
      continue;
    }
    if (path[i] === '[') {
      if (path[i + 1] === '"') {
        // JSON string: find the closing quote that is not escaped.
        let j = i + 2;
        while (j < path.length && path[j] !== '"') j += path[j] === '\\' ? 2 : 1;
        out.push({ key: JSON.parse(path.slice(i + 1, j + 1)) as string });
        i = j + 2;
      } else {
        const j = path.indexOf(']', i);
        if (j < 0) throw new Error(`unterminated key in path ${path}`);
        out.push({ key: path.slice(i + 1, j) });
        i = j + 1;
      }
      continue;
    }
    let j = i;
    while (j < path.length && path[j] !== '.' && path[j] !== '[') j++;
    out.push({ prop: path.slice(i, j) });
    i = j;
  }
  return out;
}

function orderedKeys(schema: string, before: Obj, after: Obj): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)].filter((k) => before[k] !== undefined || after[k] !== undefined));
  const known = ORDER[schema] ?? [];
  const first = known.filter((k) => keys.has(k));
  const rest = [...keys].filter((k) => !known.includes(k)).sort();
  return [...first, ...rest];
}

function keyedNames(list: unknown[]): string[] | undefined {
  const names: string[] = [];
  for (const e of list) {
    if (!isObj(e) || typeof e.name !== 'string') return undefined;
    names.push(e.name);
  }
  return new Set(names).size === names.length ? names : undefined;
}

const join = (path: string, prop: string): string => (path === '' ? prop : `${path}.${prop}`);

function diffValue(path: string, schema: string, before: unknown, after: unknown, out: AttributeChange[]): void {
  if (jsonEqual(before, after)) return;
  if (before === undefined) {
    out.push({ path, kind: 'add', after: toJson(after) });
    return;
  }
  if (after === undefined) {
    out.push({ path, kind: 'remove', before: toJson(before) });
    return;
  }

  if (KEYED_LISTS.has(schema) && Array.isArray(before) && Array.isArray(after)) {
    const bNames = keyedNames(before);
    const aNames = keyedNames(after);
    if (bNames && aNames) {
      const bBy = new Map(before.map((e) => [(e as Obj).name as string, e]));
      const aBy = new Map(after.map((e) => [(e as Obj).name as string, e]));
      for (const n of bNames) if (!aBy.has(n)) out.push({ path: path + keySegment(n), kind: 'remove', before: toJson(bBy.get(n)) });
      for (const n of aNames) {
        if (bBy.has(n)) diffValue(path + keySegment(n), `${schema}[*]`, bBy.get(n), aBy.get(n), out);
        else out.push({ path: path + keySegment(n), kind: 'add', after: toJson(aBy.get(n)) });
      }
      // After removals and appended additions, does the order match?
      const resulting = [...bNames.filter((n) => aBy.has(n)), ...aNames.filter((n) => !bBy.has(n))];
      if (!jsonEqual(resulting, aNames)) out.push({ path, kind: 'reorder', before: bNames, after: aNames });
      return;
    }
  }
  if (MAPS.has(schema) && isObj(before) && isObj(after)) {
    for (const k of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      diffValue(path + keySegment(k), `${schema}[*]`, before[k], after[k], out);
    }
    return;
  }
  if (isObj(before) && isObj(after)) {
    for (const k of orderedKeys(schema, before, after)) diffValue(join(path, k), join(schema, k), before[k], after[k], out);
    return;
  }
  out.push({ path, kind: 'change', before: toJson(before), after: toJson(after) });
}

/** Attribute changes turning `before` into `after` (two profiles), in display order. */
export function diffAttributes(before: object, after: object): AttributeChange[] {
  const out: AttributeChange[] = [];
  diffValue('', '', before, after, out);
  for (const c of out) if (REPLACE_PATHS[c.path] !== undefined) c.forcesReplacement = true;
  return out;
}

/**
 * Applies attribute changes to a copy of `before` and returns it: the inverse of `diffAttributes`
 * (`applyAttributeChanges(a, diffAttributes(a, b))` equals `b`). Throws on a path that does not fit.
 */
export function applyAttributeChanges<T extends object>(before: T, changes: readonly AttributeChange[]): T {
  const root = toJson(before) as { [k: string]: JsonValue };
  for (const change of changes) {
    const segs = parsePath(change.path);
    let parent: JsonValue = root;
    for (let i = 0; i < segs.length - 1; i++) parent = step(parent, segs[i]!, change.path);
    const last = segs[segs.length - 1]!;
    if (change.kind === 'reorder') {
      const list = step(parent, last, change.path);
      if (!Array.isArray(list)) throw new Error(`reorder target is not a list: ${change.path}`);
      const order = change.after as string[];
      const by = new Map(list.map((e) => [(e as Obj).name as string, e]));
      list.splice(0, list.length, ...order.map((n) => by.get(n)!));
      continue;
    }
    const value = change.kind === 'remove' ? undefined : toJson(change.after);
    if (Array.isArray(parent)) {
      if (!('key' in last)) throw new Error(`list needs a key: ${change.path}`);
      const idx = parent.findIndex((e) => isObj(e) && e.name === last.key);
      if (value === undefined) {
        if (idx >= 0) parent.splice(idx, 1);
      } else if (idx >= 0) parent[idx] = value;
      else parent.push(value);
    } else if (isObj(parent)) {
      const k = 'key' in last ? last.key : last.prop;
      if (value === undefined) delete parent[k];
      else parent[k] = value;
    } else {
      throw new Error(`cannot apply ${change.path}: parent is not an object or list`);
    }
  }
  return root as unknown as T;
}

function step(cur: JsonValue, seg: PathSegment, path: string): JsonValue {
  if (Array.isArray(cur)) {
    if (!('key' in seg)) throw new Error(`list needs a key: ${path}`);
    const hit = cur.find((e) => isObj(e) && e.name === seg.key);
    if (hit === undefined) throw new Error(`no element ${seg.key} in ${path}`);
    return hit;
  }
  if (isObj(cur)) {
    const k = 'key' in seg ? seg.key : seg.prop;
    if (cur[k] === undefined) cur[k] = {};
    return cur[k] as JsonValue;
  }
  throw new Error(`cannot descend into ${path}`);
}
