/**
 * Converters between the engine's wire encoding of property values (the JS form of a google.protobuf.Struct,
 * as `Struct.toJavaScript()` gives it and `Struct.fromJavaScript()` takes it) and the domain values of
 * values.ts. Pure: the Struct classes themselves are used in server.ts only.
 *
 * The encoding (sdk/go/common/resource/plugin/rpc.go and resource/sig):
 * - a secret is `{[SIG]: SECRET_SIG, value}`;
 * - an unknown is one of seven sentinel strings, one per type of the value not yet known (the string one,
 *   `04da6b54-…`, is the common case);
 * - a resource reference, an output value, a byte string, an asset and an archive are signature objects too.
 *   This provider tells the engine it accepts neither resource references nor output values, so the engine
 *   sends the referenced resource's id (or URN) and plain/secret/unknown values instead; byte strings,
 *   assets and archives are rejected with the property path.
 */
import { Secret, UNKNOWN, isObject, type PropertyMap, type Value } from './values';

export const SIG_KEY = '4dabf18193072939515e22adb298388d';
export const SECRET_SIG = '1b47061264138c4ac30d75fd1eb44270';
export const RESOURCE_REFERENCE_SIG = '5cf8f73096256a8f31e491e813e4eb8e';
export const OUTPUT_VALUE_SIG = 'd0e6a833031e9bbcd3f4e8bde6ca49a4';
export const BYTE_STRING_SIG = '803fd3297a5875dc03ca845dda5d2a98';
export const ASSET_SIG = 'c44067f5952c0a294b673a41bacd8c17';
export const ARCHIVE_SIG = '0def7320c3a5731c473e5ecbe6d01bc7';

/** The unknown sentinel this provider sends (the engine accepts it for a value of any type). */
export const UNKNOWN_STRING = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';
/** Every unknown sentinel the engine may send: string, bool, number, array, object, asset, archive. */
export const UNKNOWN_SENTINELS: ReadonlySet<string> = new Set([
  UNKNOWN_STRING,
  '1c4a061d-8072-4f0a-a4cb-0ff528b18fe7',
  '3eeb2bf0-c639-47a8-9e75-3b44932eb421',
  '6a19a0b0-7e62-4c92-b797-7f8e31da9cc2',
  'dd056dcd-154b-4c76-9bd3-c8f88648b5ff',
  '030794c1-ac77-496b-92df-f27374a8bd58',
  'e48ece36-62e2-4504-bad9-02848725956a',
]);

/** JS values a google.protobuf.Struct holds. */
export type WireValue = null | boolean | number | string | WireValue[] | WireMap;
export interface WireMap {
  [key: string]: WireValue;
}

/** A value this layer cannot convert; `path` is the Pulumi property path (`a.b[0]`). */
export class WireError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path || '(root)'}: ${reason}`);
    this.name = 'WireError';
  }
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Appends a key to a Pulumi property path: `a.b`, or `a["key.with dots"]`. */
export function pathKey(path: string, key: string): string {
  if (IDENT.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

/** Appends an index to a Pulumi property path: `a[0]`. */
export function pathIndex(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** One wire value → a domain value. */
export function fromWire(v: unknown, path = ''): Value {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'boolean':
    case 'number':
      return v;
    case 'string':
      return UNKNOWN_SENTINELS.has(v) ? UNKNOWN : v;
    case 'object':
      break;
    default:
      throw new WireError(path, `unexpected ${typeof v} on the wire`);
  }
  if (Array.isArray(v)) return v.map((x, i) => fromWire(x, pathIndex(path, i)));
  const obj = v as Record<string, unknown>;
  if (Object.hasOwn(obj, SIG_KEY)) {
    const sig = obj[SIG_KEY];
    switch (sig) {
      case SECRET_SIG:
        return new Secret(unwrapNestedSecret(fromWire(obj.value, path)));
      case RESOURCE_REFERENCE_SIG: {
        // Sent only if a provider accepts resource references; this one does not, but degrade like the engine.
        const id = obj.id;
        if (typeof id === 'string' && id !== '') return fromWire(id, path);
        return fromWire(obj.urn, path);
      }
      case OUTPUT_VALUE_SIG: {
        // Sent only if a provider accepts output values; degrade to a plain, secret or unknown value.
        const inner = Object.hasOwn(obj, 'value') ? fromWire(obj.value, path) : UNKNOWN;
        return obj.secret === true ? new Secret(unwrapNestedSecret(inner)) : inner;
      }
      case ASSET_SIG:
      case ARCHIVE_SIG:
        throw new WireError(path, 'assets and archives are not supported by this provider: pass a string instead');
      case BYTE_STRING_SIG:
        throw new WireError(path, 'strings that are not valid UTF-8 are not supported by this provider');
      default:
        throw new WireError(path, `unknown value signature ${JSON.stringify(sig)}`);
    }
  }
  const out: PropertyMap = {};
  for (const [k, x] of Object.entries(obj)) out[k] = fromWire(x, pathKey(path, k));
  return out;
}

function unwrapNestedSecret(v: Value): Value {
  return v instanceof Secret ? v.value : v;
}

/** A wire object (a Struct's JS form, or undefined when the request has none) → a property map. */
export function mapFromWire(v: unknown): PropertyMap {
  if (v === undefined || v === null) return {};
  const out = fromWire(v);
  if (!isObject(out)) throw new WireError('', 'expected an object of properties');
  return out;
}

/**
 * One domain value → its wire form. `undefined` stands for "absent": it is dropped from objects and becomes
 * null in arrays (as JSON does), because `Struct.fromJavaScript` rejects it. Functions, symbols, bigints,
 * non-finite numbers and class instances other than Secret/Unknown are bugs in the caller: a WireError names
 * the path.
 */
export function toWire(v: Value | undefined, path = ''): WireValue | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'number':
      if (!Number.isFinite(v)) throw new WireError(path, `${v} is not a finite number`);
      return v;
    case 'object':
      break;
    default:
      throw new WireError(path, `a ${typeof v} is not a property value`);
  }
  if (v === UNKNOWN) return UNKNOWN_STRING;
  if (v instanceof Secret) {
    const inner = toWire(v.value instanceof Secret ? v.value.value : v.value, path);
    return { [SIG_KEY]: SECRET_SIG, value: inner === undefined ? null : inner };
  }
  if (Array.isArray(v)) return v.map((x, i) => toWire(x, pathIndex(path, i)) ?? null);
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    const name = (v as { constructor?: { name?: string } }).constructor?.name ?? 'object';
    throw new WireError(path, `a ${name} is not a property value (use plain objects, arrays, strings, numbers, booleans, null)`);
  }
  const out: WireMap = {};
  for (const [k, x] of Object.entries(v)) {
    const w = toWire(x, pathKey(path, k));
    if (w !== undefined) out[k] = w;
  }
  return out;
}

/** A property map → the JS form of a Struct (undefined properties dropped). */
export function mapToWire(map: PropertyMap | undefined): WireMap {
  if (map === undefined) return {};
  const out = toWire(map);
  if (out === null || typeof out !== 'object' || Array.isArray(out)) throw new WireError('', 'expected an object of properties');
  return out as WireMap;
}
