/**
 * Terraform's value model (go-cty) as plain TypeScript: types in their JSON form and values as JS values
 * with explicit markers for what JSON cannot say.
 *
 * | cty                         | JS value                                                        |
 * | --------------------------- | --------------------------------------------------------------- |
 * | null (any type)             | `null`                                                          |
 * | unknown (any type)          | an `Unknown` (refinements kept when Terraform sent them)        |
 * | string, bool                | `string`, `boolean`                                             |
 * | number                      | `number` when exact, `bigint` for larger integers, else `PreciseNumber` |
 * | list, set, tuple            | arrays (a set's order is Terraform's)                           |
 * | map, object                 | plain objects                                                   |
 * | a value of type `dynamic`   | a `Dynamic` {type, value}; plain JS values are accepted on output |
 */

export type CtyType =
  | 'string'
  | 'number'
  | 'bool'
  | 'dynamic'
  | readonly ['list', CtyType]
  | readonly ['set', CtyType]
  | readonly ['map', CtyType]
  | readonly ['tuple', readonly CtyType[]]
  | readonly ['object', { readonly [name: string]: CtyType }];

/** What Terraform knows about an unknown value (cty refinements). All optional. */
export interface Refinements {
  /** false: definitely not null (the usual refinement); true: definitely null. */
  null?: boolean;
  stringPrefix?: string;
  numberMin?: { value: CtyNumber; inclusive: boolean };
  numberMax?: { value: CtyNumber; inclusive: boolean };
  lengthMin?: number;
  lengthMax?: number;
}

/** A value that is not known yet (known after apply). */
export class Unknown {
  constructor(readonly refinements?: Readonly<Refinements>) {}
}

/** The plain unknown value. */
export const UNKNOWN = new Unknown();

export function isUnknown(v: unknown): v is Unknown {
  return v instanceof Unknown;
}

/** A number that neither a JS number nor a bigint holds exactly (decimal text as cty prints it). */
export class PreciseNumber {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type CtyNumber = number | bigint | PreciseNumber;

/** A value of an attribute typed `dynamic`, with the concrete type Terraform gave it. */
export class Dynamic {
  constructor(
    readonly type: CtyType,
    readonly value: Value,
  ) {}
}

export type Value = null | boolean | string | CtyNumber | Unknown | Dynamic | Value[] | ValueObject;
export interface ValueObject {
  [name: string]: Value;
}

/** True if the value or anything inside it is unknown. */
export function containsUnknown(v: Value): boolean {
  if (v instanceof Unknown) return true;
  if (v instanceof Dynamic) return containsUnknown(v.value);
  if (Array.isArray(v)) return v.some(containsUnknown);
  if (isObject(v)) return Object.values(v).some(containsUnknown);
  return false;
}

/** A plain object value (map or object), not null/array/marker. */
export function isObject(v: unknown): v is ValueObject {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof Unknown) &&
    !(v instanceof Dynamic) &&
    !(v instanceof PreciseNumber)
  );
}

/** Sets `obj[key]` so that keys like "__proto__" become own properties too. */
export function setKey(obj: ValueObject, key: string, v: Value): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
  else obj[key] = v;
}

/** Parses a type from its JSON form (the `type` bytes of a schema attribute, a dynamic value's type). */
export function parseType(json: unknown, where = 'type'): CtyType {
  if (json === 'string' || json === 'number' || json === 'bool' || json === 'dynamic') return json;
  if (Array.isArray(json)) {
    const [kind, arg] = json as [unknown, unknown];
    if ((kind === 'list' || kind === 'set' || kind === 'map') && json.length === 2) return [kind, parseType(arg, where)];
    if (kind === 'tuple' && json.length === 2 && Array.isArray(arg)) return ['tuple', arg.map((t) => parseType(t, where))];
    if (kind === 'object' && (json.length === 2 || json.length === 3) && typeof arg === 'object' && arg !== null && !Array.isArray(arg)) {
      const attrs: Record<string, CtyType> = {};
      for (const [k, t] of Object.entries(arg)) attrs[k] = parseType(t, where);
      return ['object', attrs];
    }
  }
  throw new Error(
    `${where}: ${JSON.stringify(json)} is not a Terraform type (expected "string", "number", ` +
      `"bool", "dynamic", ["list"|"set"|"map", T], ["tuple", [T...]] or ["object", {name: T}])`,
  );
}

/** The JSON text of a type, as Terraform expects it in schemas and dynamic values. */
export function typeJson(t: CtyType): string {
  return JSON.stringify(t);
}

/** The type that `inferType` gives a plain JS value written into a `dynamic` slot. */
export function inferType(v: Value, where = 'value'): CtyType {
  if (v instanceof Dynamic) return v.type;
  if (v === null || v instanceof Unknown) return 'dynamic';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof PreciseNumber) return 'number';
  if (Array.isArray(v)) return ['tuple', v.map((e, i) => inferType(e, `${where}[${i}]`))];
  if (isObject(v)) {
    const attrs: Record<string, CtyType> = {};
    for (const [k, e] of Object.entries(v)) attrs[k] = inferType(e, `${where}.${k}`);
    return ['object', attrs];
  }
  throw new Error(`${where}: cannot infer a Terraform type for ${String(v)}`);
}
