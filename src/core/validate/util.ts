export const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export const isStr = (v: unknown): v is string => typeof v === 'string';

/** Own property present (and not undefined) in raw input. */
export const has = (o: Record<string, unknown>, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(o, key) && o[key] !== undefined;

/**
 * The path segment of an array item: `[name]` for keyed arrays (profiles, endpoints) whose item has a
 * non-empty string name, else `[index]`.
 */
export function itemSegment(item: unknown, index: number, keyed: boolean): string {
  if (keyed && isObj(item) && typeof item['name'] === 'string' && item['name'] !== '') return `[${item['name']}]`;
  return `[${index}]`;
}

/** `a, b, c` quoted, at most `max` shown. */
export function list(items: readonly string[], max = 5): string {
  const shown = items.slice(0, max).map((s) => `"${s}"`).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

/** The value printed in a message: strings quoted, others as JSON. */
export function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  return Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v;
}

/** The hint for a value outside an enum: the right spelling when only the case differs. */
export function enumHint(v: string, allowed: readonly string[]): string {
  const m = allowed.find((a) => a.toLowerCase() === v.toLowerCase());
  return m !== undefined ? `write "${m}" (values are case-sensitive)` : `use one of ${allowed.join(', ')}`;
}
