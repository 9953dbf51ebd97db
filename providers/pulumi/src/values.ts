/**
 * Property values as the domain side of the Pulumi provider sees them: plain JSON-like JS values plus two
 * explicit markers, `Secret` (a value Pulumi keeps encrypted in state) and `Unknown` (a value not known until
 * apply, only during preview). The wire encoding (signature objects, sentinel strings) stays in wire.ts.
 * Pure: no Node modules.
 */

/** A value that is not known yet (an output of another resource during preview). */
export class Unknown {
  static readonly instance = new Unknown();
  private constructor() {}
  toString(): string {
    return '<unknown>';
  }
  toJSON(): string {
    return '<unknown>';
  }
}

/** The one Unknown value. */
export const UNKNOWN: Unknown = Unknown.instance;

/** A secret: the provider may use `value`, and must hand it back wrapped so state keeps it encrypted. */
export class Secret<T extends Value = Value> {
  constructor(readonly value: T) {}
  toString(): string {
    return '[secret]';
  }
  toJSON(): string {
    return '[secret]';
  }
}

export type Value = null | boolean | number | string | Value[] | PropertyMap | Secret | Unknown;
export interface PropertyMap {
  [key: string]: Value;
}

/** A value with every Secret wrapper removed (what `reveal` returns). */
export type Plain = null | boolean | number | string | Plain[] | PlainMap | Unknown;
export interface PlainMap {
  [key: string]: Plain;
}

export function isSecret(v: unknown): v is Secret {
  return v instanceof Secret;
}

export function isUnknown(v: unknown): v is Unknown {
  return v === UNKNOWN;
}

/** A plain object (not null, an array, a Secret or Unknown). */
export function isObject(v: unknown): v is PropertyMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Secret) && !(v instanceof Unknown);
}

/** Wraps `v` as a secret (once: a secret stays a single secret). */
export function secret(v: Value): Secret {
  return v instanceof Secret ? v : new Secret(v);
}

/** Removes every Secret wrapper, deeply, to use the values. Unknowns stay. */
export function reveal(v: PropertyMap): PlainMap;
export function reveal(v: Value): Plain;
export function reveal(v: Value): Plain {
  if (v instanceof Secret) return reveal(v.value);
  if (Array.isArray(v)) return v.map((x) => reveal(x));
  if (isObject(v)) {
    const out: PlainMap = {};
    for (const [k, x] of Object.entries(v)) out[k] = reveal(x);
    return out;
  }
  return v;
}

/** True when `v` is or contains an Unknown. */
export function containsUnknowns(v: Value): boolean {
  if (v === UNKNOWN) return true;
  if (v instanceof Secret) return containsUnknowns(v.value);
  if (Array.isArray(v)) return v.some(containsUnknowns);
  if (isObject(v)) return Object.values(v).some(containsUnknowns);
  return false;
}

/** True when `v` is or contains a Secret. */
export function containsSecrets(v: Value): boolean {
  if (v instanceof Secret) return true;
  if (Array.isArray(v)) return v.some(containsSecrets);
  if (isObject(v)) return Object.values(v).some(containsSecrets);
  return false;
}

/**
 * Deep equality of the revealed values (secretness does not count). An Unknown equals nothing, itself
 * included: a value that is not known may differ from anything.
 */
export function sameValue(a: Value, b: Value): boolean {
  if (a instanceof Secret) return sameValue(a.value, b);
  if (b instanceof Secret) return sameValue(a, b.value);
  if (a === UNKNOWN || b === UNKNOWN) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]!));
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && sameValue(a[k]!, b[k]!));
  }
  return Object.is(a, b) || a === b;
}

/**
 * Copies secretness from `ins` to `outs` by key (what the engine does for providers that do not accept
 * secrets): objects on both sides recurse; otherwise, an out value whose in value contains a secret is
 * wrapped whole. Returns a new map; `outs` is not changed.
 */
export function carrySecrets(outs: PropertyMap, ins: PropertyMap): PropertyMap {
  const result: PropertyMap = { ...outs };
  for (const [k, inValue] of Object.entries(ins)) {
    if (!Object.hasOwn(result, k)) continue;
    const outValue = result[k]!;
    const inner = inValue instanceof Secret ? inValue.value : inValue;
    if (isObject(outValue) && isObject(inner) && !(inValue instanceof Secret)) result[k] = carrySecrets(outValue, inner);
    else if (!(outValue instanceof Secret) && containsSecrets(inValue)) result[k] = secret(outValue);
  }
  return result;
}

/** Wraps the named top-level properties as secrets (those present). Returns a new map. */
export function markSecret(map: PropertyMap, keys: readonly string[]): PropertyMap {
  const result: PropertyMap = { ...map };
  for (const k of keys) if (Object.hasOwn(result, k) && result[k] !== null) result[k] = secret(result[k]!);
  return result;
}
