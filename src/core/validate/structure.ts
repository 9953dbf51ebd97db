/**
 * Structural checks on raw input: the JSON type of every property, required properties, unknown
 * properties (a warning with the nearest known name). Semantic rules run afterwards on the normalized
 * document and silently skip values whose type is wrong, so one mistake yields one diagnostic.
 */
import type { Reporter } from './diagnostics';
import { editDistance, isObj, itemSegment } from './util';

type Kind = 'string' | 'number' | 'boolean' | { array: Kind; keyed?: true } | { object: Shape } | 'stringMap';

interface Prop {
  kind: Kind;
  required?: true;
}
type Shape = Readonly<Record<string, Prop>>;

const str: Prop = { kind: 'string' };
const num: Prop = { kind: 'number' };
const reqStr: Prop = { kind: 'string', required: true };
const strArr: Prop = { kind: { array: 'string' } };

const HEADER: Shape = { name: reqStr, value: reqStr };
const headers: Prop = { kind: { array: { object: HEADER } } };

const SUBNET: Shape = { first: reqStr, last: str, scope: num };

export const ENDPOINT_SHAPE: Shape = {
  name: reqStr,
  type: reqStr,
  target: str,
  targetResourceId: str,
  endpointStatus: str,
  weight: num,
  priority: num,
  endpointLocation: str,
  minChildEndpoints: num,
  minChildEndpointsIPv4: num,
  minChildEndpointsIPv6: num,
  geoMapping: strArr,
  subnets: { kind: { array: { object: SUBNET } } },
  customHeaders: headers,
  alwaysServe: str,
};

const bool: Prop = { kind: 'boolean' };
const RANGES: Prop = {
  kind: { array: { object: { min: { kind: 'number', required: true }, max: { kind: 'number', required: true } } } },
};

const CHECK: Shape = {
  name: reqStr,
  protocol: str,
  port: num,
  path: str,
  expectedStatusCodeRanges: RANGES,
  mustBeHealthy: bool,
  monitoringOnly: bool,
};

const MONITOR: Shape = {
  protocol: str,
  port: num,
  path: str,
  intervalInSeconds: num,
  timeoutInSeconds: num,
  toleratedNumberOfFailures: num,
  customHeaders: headers,
  expectedStatusCodeRanges: RANGES,
  certificateValidation: str,
  caCertificates: str,
  certificateExpiryWarningDays: num,
  degradedLatencyMs: num,
  checks: { kind: { array: { object: CHECK }, keyed: true } },
  quorum: num,
};

export const PROFILE_SHAPE: Shape = {
  name: reqStr,
  profileStatus: str,
  trafficRoutingMethod: reqStr,
  dnsConfig: { kind: { object: { relativeName: reqStr, ttl: num } }, required: true },
  monitorConfig: { kind: { object: MONITOR } },
  endpoints: { kind: { array: { object: ENDPOINT_SHAPE }, keyed: true } },
  maxReturn: num,
  trafficViewEnrollmentStatus: str,
  allowedEndpointRecordTypes: strArr,
  tags: { kind: 'stringMap' },
  failback: { kind: { object: { mode: str, successesToRecover: num, holdDownSeconds: num } } },
  performanceLatency: { kind: { object: { source: str, toleranceMs: num, minSamples: num } } },
};

export const DOCUMENT_SHAPE: Shape = {
  apiVersion: reqStr,
  stack: str,
  profiles: { kind: { array: { object: PROFILE_SHAPE }, keyed: true }, required: true },
};

const kindName = (k: Kind): string =>
  typeof k === 'string' ? (k === 'stringMap' ? 'an object of string values' : `a ${k}`) : 'array' in k ? 'an array' : 'an object';

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

function suggest(key: string, shape: Shape): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestD = 3;
  for (const k of Object.keys(shape)) {
    if (k.toLowerCase() === lower) return k;
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best;
}

const IDENT = /^[A-Za-z_$][\w$-]*$/;
/** `a.key`; keys that are not identifier-like are quoted in brackets (`tags["team:x"]`, `$[""]`). */
const join = (path: string, key: string): string =>
  !IDENT.test(key) ? `${path}[${JSON.stringify(key)}]` : path === '$' ? key : `${path}.${key}`;

function checkValue(r: Reporter, v: unknown, kind: Kind, path: string): void {
  if (kind === 'string' || kind === 'number' || kind === 'boolean') {
    if (typeof v !== kind)
      r.report(
        'INVALID_TYPE',
        path,
        `must be ${kindName(kind)}, got ${typeOf(v)}`,
        `write ${kindName(kind)}${kind === 'number' ? ' (no quotes)' : kind === 'boolean' ? ': true or false, no quotes' : ''}`,
      );
    return;
  }
  if (kind === 'stringMap') {
    if (!isObj(v)) {
      r.report('INVALID_TYPE', path, `must be ${kindName(kind)}, got ${typeOf(v)}`, 'write an object such as {"team": "web"}');
      return;
    }
    for (const [k, x] of Object.entries(v)) {
      if (typeof x !== 'string') r.report('INVALID_TYPE', join(path, k), `must be a string, got ${typeOf(x)}`, 'quote the value');
    }
    return;
  }
  if ('array' in kind) {
    if (!Array.isArray(v)) {
      r.report('INVALID_TYPE', path, `must be an array, got ${typeOf(v)}`, 'wrap the value in [ ]');
      return;
    }
    v.forEach((item, i) => {
      checkValue(r, item, kind.array, `${path}${itemSegment(item, i, kind.keyed === true)}`);
    });
    return;
  }
  if (!isObj(v)) {
    r.report('INVALID_TYPE', path, `must be an object, got ${typeOf(v)}`, 'write an object { … } with the documented properties');
    return;
  }
  checkShape(r, v, kind.object, path);
}

// Shapes are constant: their entries are listed once (validation walks 20,000 endpoints quickly).
const entriesOf = new Map<Shape, ReadonlyArray<readonly [string, Prop]>>();
const hasOwn = (o: object, k: string): boolean => Object.hasOwn(o, k);

function checkShape(r: Reporter, v: Record<string, unknown>, shape: Shape, path: string): void {
  let entries = entriesOf.get(shape);
  if (entries === undefined) {
    entries = Object.entries(shape);
    entriesOf.set(shape, entries);
  }
  for (const [key, prop] of entries) {
    const x = hasOwn(v, key) ? v[key] : undefined;
    if (x === undefined) {
      if (prop.required) r.report('REQUIRED_PROPERTY', join(path, key), `${key} is required`, `add ${key} (${kindName(prop.kind)})`);
      continue;
    }
    // Primitive fast path: the path string is only built when there is something to report.
    if (prop.kind === 'string' || prop.kind === 'number') {
      if (typeof x !== prop.kind) checkValue(r, x, prop.kind, join(path, key));
      continue;
    }
    checkValue(r, x, prop.kind, join(path, key));
  }
  for (const key in v) {
    if (!hasOwn(v, key) || hasOwn(shape, key)) continue;
    const near = suggest(key, shape);
    r.report(
      'UNKNOWN_PROPERTY',
      join(path, key),
      `unknown property "${key}" is ignored; known here: ${Object.keys(shape).join(', ')}`,
      near === undefined ? 'remove it' : `did you mean "${near}"?`,
    );
  }
}

/** Structural checks of a whole document. */
export function checkDocumentStructure(r: Reporter, input: unknown): void {
  if (!isObj(input)) {
    r.report(
      'DOCUMENT_NOT_OBJECT',
      '$',
      `a tmkit/v1 document must be a JSON object, got ${typeOf(input)}`,
      'start from {"apiVersion": "tmkit/v1", "profiles": []}',
    );
    return;
  }
  checkShape(r, input, DOCUMENT_SHAPE, '$');
}

/** Structural checks of one profile at `path` (`profiles[name]`). */
export function checkProfileStructure(r: Reporter, input: unknown, path: string): void {
  checkValue(r, input, { object: PROFILE_SHAPE }, path);
}
