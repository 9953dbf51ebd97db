/**
 * DynamicValue codec: cty's msgpack encoding (and its JSON encoding for stored state) to and from the JS
 * values of ./cty, directed by a shape (a schema's or a type's, see ./schema).
 *
 * Wire facts (go-cty cty/msgpack): null is msgpack nil; an unknown is any extension of length ≤ 1
 * (cty writes ext 0 with one zero byte) or ext 12 carrying a map of refinements (1 nullness, 2 string
 * prefix, 3/4 number bounds as [number, inclusive], 5/6 collection length bounds); numbers are ints,
 * float64s, or decimal strings when neither is exact; lists, sets and tuples are arrays; maps and objects
 * are maps (objects with every attribute, names sorted); a value of type dynamic is [type JSON as bytes,
 * value]. Errors name the path inside the value and what was expected.
 */
import { decode, encode, ExtData } from '@msgpack/msgpack';
import {
  Dynamic,
  inferType,
  isObject,
  parseType,
  PreciseNumber,
  setKey,
  Unknown,
  UNKNOWN,
  type CtyNumber,
  type CtyType,
  type Refinements,
  type Value,
  type ValueObject,
} from './cty';
import type { Absent, Shape } from './schema';
import { shapeOfType } from './schema';

export class CodecError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path || '(value)'}: ${message}`);
    this.name = 'CodecError';
  }
}

const EXT_UNKNOWN_REFINED = 12;
const REF_NULL = 1;
const REF_PREFIX = 2;
const REF_NUM_MIN = 3;
const REF_NUM_MAX = 4;
const REF_LEN_MIN = 5;
const REF_LEN_MAX = 6;

const sub = (path: string, name: string): string => (path ? `${path}.${name}` : name);
const idx = (path: string, i: number | string): string => `${path}[${typeof i === 'number' ? i : JSON.stringify(i)}]`;

// ---------------------------------------------------------------------------------------------- decode

/** Decodes msgpack bytes against a shape. */
export function decodeMsgpack(bytes: Uint8Array, shape: Shape): Value {
  let raw: unknown;
  try {
    raw = decode(bytes, { useBigInt64: true });
  } catch (e) {
    throw new CodecError('', `not valid msgpack: ${(e as Error).message}`);
  }
  return fromRaw(raw, shape, '');
}

function number(raw: unknown, path: string): CtyNumber {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'bigint') return Number.isSafeInteger(Number(raw)) && BigInt(Number(raw)) === raw ? Number(raw) : raw;
  if (typeof raw === 'string') return parseNumberText(raw, path);
  throw new CodecError(path, `a number is required, got ${describe(raw)}`);
}

function parseNumberText(s: string, path: string): CtyNumber {
  if (/^-?\d+$/.test(s)) {
    const b = BigInt(s);
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : b;
  }
  if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s))
    throw new CodecError(path, `a number is required, got the string ${JSON.stringify(s)}`);
  const n = Number(s);
  return String(n) === s ? n : new PreciseNumber(s);
}

function describe(raw: unknown): string {
  if (raw === null) return 'null';
  if (raw instanceof Uint8Array) return 'bytes';
  if (Array.isArray(raw)) return `an array of ${raw.length}`;
  return typeof raw === 'object' ? 'a map' : `${typeof raw} ${JSON.stringify(typeof raw === 'bigint' ? String(raw) : raw)}`;
}

function refinements(data: Uint8Array, path: string): Refinements {
  let m: unknown;
  try {
    m = decode(data, { useBigInt64: false });
  } catch (e) {
    throw new CodecError(path, `unknown value refinements are not valid msgpack: ${(e as Error).message}`);
  }
  if (!(m instanceof Map) && (typeof m !== 'object' || m === null || Array.isArray(m)))
    throw new CodecError(path, 'unknown value refinements must be a map');
  const r: Refinements = {};
  const entries: Array<[unknown, unknown]> = m instanceof Map ? [...m.entries()] : Object.entries(m as object);
  for (const [k, v] of entries) {
    const key = Number(k);
    if (key === REF_NULL && typeof v === 'boolean') r.null = v;
    else if (key === REF_PREFIX && typeof v === 'string') r.stringPrefix = v;
    else if ((key === REF_NUM_MIN || key === REF_NUM_MAX) && Array.isArray(v) && v.length === 2 && typeof v[1] === 'boolean') {
      const bound = { value: number(v[0], path), inclusive: v[1] };
      if (key === REF_NUM_MIN) r.numberMin = bound;
      else r.numberMax = bound;
    } else if (key === REF_LEN_MIN && typeof v === 'number') r.lengthMin = v;
    else if (key === REF_LEN_MAX && typeof v === 'number') r.lengthMax = v;
    // unknown keys are for future refinements: ignored, as cty does
  }
  return r;
}

/** A string or a bool is the same on the wire as in a Value: `v` itself, once its type is checked (both ways). */
function primitive(kind: 'string' | 'bool', v: unknown, path: string, what: (v: unknown) => string): string | boolean {
  if (typeof v !== (kind === 'string' ? 'string' : 'boolean')) throw new CodecError(path, `a ${kind} is required, got ${what(v)}`);
  return v as string | boolean;
}

function fromRaw(raw: unknown, shape: Shape, path: string): Value {
  if (raw instanceof ExtData) {
    if (raw.data instanceof Uint8Array && raw.data.length <= 1) return UNKNOWN;
    if (raw.type !== EXT_UNKNOWN_REFINED || !(raw.data instanceof Uint8Array))
      throw new CodecError(path, `unsupported msgpack extension ${raw.type}`);
    return shape.kind === 'dynamic' ? UNKNOWN : new Unknown(refinements(raw.data, path));
  }
  if (raw === null || raw === undefined) return null;
  switch (shape.kind) {
    case 'dynamic': {
      if (!Array.isArray(raw) || raw.length !== 2) throw new CodecError(path, 'a dynamic value must be [type, value]');
      const [t, v] = raw as [unknown, unknown];
      const text = t instanceof Uint8Array ? Buffer.from(t).toString('utf8') : typeof t === 'string' ? t : undefined;
      if (text === undefined) throw new CodecError(path, "a dynamic value's type must be JSON bytes");
      let type: CtyType;
      try {
        type = parseType(JSON.parse(text), path);
      } catch (e) {
        throw new CodecError(path, `bad dynamic value type: ${(e as Error).message}`);
      }
      return new Dynamic(type, fromRaw(v, shapeOfType(type), path));
    }
    case 'string':
    case 'bool':
      return primitive(shape.kind, raw, path, describe);
    case 'number':
      return number(raw, path);
    case 'list':
    case 'set':
    case 'tuple':
    case 'map':
    case 'object':
      return collectionFromRaw(raw, shape, path, fromRaw);
  }
}

/**
 * A list, set, tuple, map or object decoded element by element with `decode` (msgpack's fromRaw or JSON's
 * fromJsonRaw: the two encodings differ only in their scalars, dynamic values and unknowns).
 */
function collectionFromRaw(raw: unknown, shape: Shape, path: string, decode: (raw: unknown, shape: Shape, path: string) => Value): Value {
  switch (shape.kind) {
    case 'list':
    case 'set':
      if (!Array.isArray(raw)) throw new CodecError(path, `a ${shape.kind} is required, got ${describe(raw)}`);
      return raw.map((e, i) => decode(e, shape.elem, idx(path, i)));
    case 'tuple':
      if (!Array.isArray(raw) || raw.length !== shape.elems.length)
        throw new CodecError(path, `a tuple of ${shape.elems.length} is required, got ${describe(raw)}`);
      return raw.map((e, i) => decode(e, shape.elems[i]!, idx(path, i)));
    case 'map': {
      if (!isRawMap(raw)) throw new CodecError(path, `a map is required, got ${describe(raw)}`);
      const out: ValueObject = {};
      for (const [k, v] of Object.entries(raw)) setKey(out, k, decode(v, shape.elem, idx(path, k)));
      return out;
    }
    case 'object': {
      if (!isRawMap(raw)) throw new CodecError(path, `an object is required, got ${describe(raw)}`);
      const out: ValueObject = {};
      const known = new Set<string>();
      for (const [name, s, absent] of shape.attrs) {
        known.add(name);
        setKey(out, name, Object.hasOwn(raw, name) ? decode(raw[name], s, sub(path, name)) : absentValue(absent));
      }
      for (const k of Object.keys(raw)) if (!known.has(k)) throw new CodecError(sub(path, k), 'unsupported attribute (not in the schema)');
      return out;
    }
    default:
      throw new CodecError(path, `internal: ${shape.kind} is not a collection`);
  }
}

function isRawMap(raw: unknown): raw is Record<string, unknown> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) && !(raw instanceof Uint8Array);
}

function absentValue(a: Absent): Value {
  if (a === 'null') return null;
  if (a === 'empty-list') return [];
  if (a === 'empty-map') return {};
  // a group block: an object of its attributes' absent values
  if (a.kind !== 'object') return null;
  const out: ValueObject = {};
  for (const [name, , inner] of a.attrs) setKey(out, name, absentValue(inner));
  return out;
}

/**
 * Decodes cty's JSON encoding (stored state, RawState.json) against a shape. JSON has no unknowns;
 * a dynamic value is {"value": v, "type": T}. Numbers beyond 2^53 lose precision in JSON.parse.
 */
export function decodeJson(text: string | Uint8Array, shape: Shape): Value {
  let raw: unknown;
  try {
    raw = JSON.parse(typeof text === 'string' ? text : Buffer.from(text).toString('utf8'));
  } catch (e) {
    throw new CodecError('', `not valid JSON: ${(e as Error).message}`);
  }
  return fromJsonRaw(raw, shape, '');
}

/** Like decodeJson, for JSON already parsed (UpgradeResourceState hands handlers the parsed raw state). */
export function decodeJsonValue(raw: unknown, shape: Shape): Value {
  return fromJsonRaw(raw, shape, '');
}

function fromJsonRaw(raw: unknown, shape: Shape, path: string): Value {
  if (raw === null || raw === undefined) return null;
  switch (shape.kind) {
    case 'dynamic': {
      if (!isRawMap(raw) || !('type' in raw)) throw new CodecError(path, 'a dynamic value must be {"value": ..., "type": ...}');
      const type = parseType(raw.type, path);
      return new Dynamic(type, fromJsonRaw(raw.value, shapeOfType(type), path));
    }
    case 'number':
      if (typeof raw === 'number') return raw;
      if (typeof raw === 'string') return parseNumberText(raw, path);
      throw new CodecError(path, `a number is required, got ${describe(raw)}`);
    case 'list':
    case 'set':
    case 'tuple':
    case 'map':
    case 'object':
      return collectionFromRaw(raw, shape, path, fromJsonRaw);
    default:
      return fromRaw(raw, shape, path);
  }
}

// ---------------------------------------------------------------------------------------------- encode

/** Encodes a value against a shape: objects get every attribute (absent ones as Terraform's "unset"). */
export function encodeMsgpack(value: Value, shape: Shape): Uint8Array {
  return encode(toRaw(value, shape, ''), { useBigInt64: true, forceFloat32: false, sortKeys: true });
}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

function rawNumber(v: unknown, path: string): number | bigint | string {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) throw new CodecError(path, 'NaN is not a Terraform number');
    return v;
  }
  if (typeof v === 'bigint') return v >= INT64_MIN && v <= UINT64_MAX ? v : v.toString();
  if (v instanceof PreciseNumber) return v.text;
  throw new CodecError(path, `a number is required, got ${describeValue(v)}`);
}

function describeValue(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v instanceof Dynamic) return 'a Dynamic';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' && v !== null ? 'an object' : `${typeof v} ${JSON.stringify(typeof v === 'bigint' ? String(v) : v)}`;
}

function unknownRaw(u: Unknown): ExtData {
  const r = u.refinements;
  // The refinement map has integer keys, which @msgpack/msgpack's object encoding cannot write: encode
  // the header and each key/value pair separately.
  const parts: Uint8Array[] = [];
  const put = (key: number, value: unknown): void => {
    parts.push(encode(key), encode(value, { useBigInt64: true }));
  };
  if (r) {
    if (r.null !== undefined) put(REF_NULL, r.null);
    if (r.stringPrefix) put(REF_PREFIX, r.stringPrefix);
    if (r.numberMin) put(REF_NUM_MIN, [rawNumber(r.numberMin.value, ''), r.numberMin.inclusive]);
    if (r.numberMax) put(REF_NUM_MAX, [rawNumber(r.numberMax.value, ''), r.numberMax.inclusive]);
    if (r.lengthMin) put(REF_LEN_MIN, r.lengthMin);
    if (r.lengthMax !== undefined) put(REF_LEN_MAX, r.lengthMax);
  }
  if (parts.length === 0) return new ExtData(0, new Uint8Array([0]));
  return new ExtData(EXT_UNKNOWN_REFINED, Buffer.concat([Buffer.from([0x80 + parts.length / 2]), ...parts]));
}

function toRaw(v: Value | undefined, shape: Shape, path: string): unknown {
  if (v instanceof Unknown) return unknownRaw(shape.kind === 'dynamic' ? UNKNOWN : v);
  if (v === null || v === undefined) return null;
  switch (shape.kind) {
    case 'dynamic': {
      const type = inferType(v, path || 'value');
      const inner = v instanceof Dynamic ? v.value : v;
      if (inner instanceof Unknown) return unknownRaw(UNKNOWN);
      return [Buffer.from(JSON.stringify(type), 'utf8'), toRaw(inner, shapeOfType(type), path)];
    }
    case 'string':
    case 'bool':
      return primitive(shape.kind, v, path, describeValue);
    case 'number':
      return rawNumber(v, path);
    case 'list':
    case 'set':
      if (!Array.isArray(v)) throw new CodecError(path, `a ${shape.kind} (array) is required, got ${describeValue(v)}`);
      return v.map((e, i) => toRaw(e, shape.elem, idx(path, i)));
    case 'tuple':
      if (!Array.isArray(v) || v.length !== shape.elems.length)
        throw new CodecError(path, `a tuple of ${shape.elems.length} is required, got ${describeValue(v)}`);
      return v.map((e, i) => toRaw(e, shape.elems[i]!, idx(path, i)));
    case 'map': {
      if (!isObject(v)) throw new CodecError(path, `a map (object) is required, got ${describeValue(v)}`);
      const out: Record<string, unknown> = Object.create(null);
      for (const k of Object.keys(v)) out[k] = toRaw(v[k], shape.elem, idx(path, k));
      return out;
    }
    case 'object': {
      if (!isObject(v)) throw new CodecError(path, `an object is required, got ${describeValue(v)}`);
      const out: Record<string, unknown> = Object.create(null);
      const known = new Set<string>();
      for (const [name, s, absent] of shape.attrs) {
        known.add(name);
        const e = Object.hasOwn(v, name) ? v[name] : undefined;
        out[name] = e === undefined ? toRaw(absentValue(absent), s, sub(path, name)) : toRaw(e, s, sub(path, name));
      }
      for (const k of Object.keys(v)) if (!known.has(k)) throw new CodecError(sub(path, k), 'unsupported attribute (not in the schema)');
      return out;
    }
  }
}
