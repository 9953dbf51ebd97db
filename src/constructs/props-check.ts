import { TmkitError } from '../core/diagnostics';
import { closestValue } from '../core/validate/util';

/**
 * Constructor-time checks of "obviously bad" props (wrong type, out-of-range number, unknown enum value).
 * A construct collects every problem of its own props and throws ONE `InvalidPropsError` naming its
 * construct path; rules that need the whole tree (uniqueness, references, routing-method rules) run later
 * through `node.addValidation` so they are reported all together at synth.
 */

/** Thrown by a construct's constructor when its props are invalid on their own. */
export class InvalidPropsError extends TmkitError {
  constructor(
    /** The construct path (`App/contoso/eu`). */
    readonly constructPath: string,
    /** Construct class name (`ExternalEndpoint`). */
    readonly constructType: string,
    /** One line per problem: `<prop> <rule> (got <value>)`. */
    readonly problems: readonly string[],
  ) {
    super(
      'INVALID_PROPS',
      `${constructType} at ${constructPath || '/'} has ${problems.length === 1 ? 'an invalid prop' : `${problems.length} invalid props`}:\n` +
        problems.map((p) => `  - ${p}`).join('\n'),
    );
    for (const k of ['code', 'constructPath', 'constructType', 'problems']) Object.defineProperty(this, k, { enumerable: false });
  }
}

const show = (v: unknown): string => {
  if (typeof v === 'string') return JSON.stringify(v);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};

/** Accumulates problems for one construct. */
export class PropChecker {
  readonly problems: string[] = [];

  constructor(
    private readonly constructType: string,
    private readonly constructPath: string,
  ) {}

  fail(prop: string, rule: string, ...got: [value?: unknown]): void {
    this.problems.push(got.length >= 1 ? `${prop} ${rule} (got ${show(got[0])})` : `${prop} ${rule}`);
  }

  /** An optional integer in [min, max]. */
  int(prop: string, value: unknown, min: number, max: number): void {
    if (value === undefined) return;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(prop, `must be an integer from ${min} to ${max}`, value);
    }
  }

  /** An optional value from a closed set. */
  oneOf(prop: string, value: unknown, allowed: readonly unknown[]): void {
    if (value === undefined) return;
    if (allowed.includes(value)) return;
    const near =
      typeof value === 'string'
        ? closestValue(
            value,
            allowed.filter((a): a is string => typeof a === 'string'),
          )
        : undefined;
    this.fail(
      prop,
      `must be one of ${allowed.map((a) => show(a)).join(', ')}${near !== undefined ? ` (did you mean ${show(near)}?)` : ''}`,
      value,
    );
  }

  /** An optional non-empty string. */
  string(prop: string, value: unknown, required = false): void {
    if (value === undefined) {
      if (required) this.fail(prop, 'is required');
      return;
    }
    if (typeof value !== 'string' || value.trim() === '') this.fail(prop, 'must be a non-empty string', value);
  }

  /** An optional array of at most `max` items. */
  array(prop: string, value: unknown, max?: number): value is unknown[] {
    if (value === undefined) return false;
    if (!Array.isArray(value)) {
      this.fail(prop, 'must be an array', value);
      return false;
    }
    if (max !== undefined && value.length > max) this.fail(prop, `may hold at most ${max} entries`, `${value.length} entries`);
    return true;
  }

  /** Throws one error listing every problem, if any. */
  throwIfAny(): void {
    if (this.problems.length > 0) throw new InvalidPropsError(this.constructPath, this.constructType, this.problems);
  }
}

/** Azure's profile resource-name rule: 1–63 characters, letters, digits, `-` and `.`, alphanumeric at both ends. */
export const PROFILE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,61}[A-Za-z0-9])?$/;

/** Checks one custom-header list (profile or endpoint level): at most 8 `{name, value}` pairs. */
export function checkHeaders(c: PropChecker, prop: string, headers: unknown): void {
  if (!c.array(prop, headers, 8)) return;
  (headers as unknown[]).forEach((h, i) => {
    const o = h as { name?: unknown; value?: unknown } | null;
    if (typeof o !== 'object' || o === null || typeof o.name !== 'string' || o.name === '' || typeof o.value !== 'string') {
      c.fail(`${prop}[${i}]`, 'must be { name: string, value: string } with a non-empty name', h);
    }
  });
}

/**
 * A deep copy of JSON-like props data (plain objects, arrays, primitives), so later changes to the
 * caller's objects cannot bypass the constructor's checks. Cheaper than `structuredClone` for the tiny
 * objects props are; anything else (a construct, a class instance) is kept by reference.
 */
export function copyData<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => copyData(v)) as T;
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = copyData(v);
    return out as T;
  }
  return value;
}
