export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export const isStr = (v: unknown): v is string => typeof v === 'string';

/** Own property present (and not undefined) in raw input. */
export const has = (o: Record<string, unknown>, key: string): boolean => Object.hasOwn(o, key) && o[key] !== undefined;

/**
 * The path segment of an array item: `[name]` for keyed arrays (profiles, endpoints) whose item has a
 * non-empty string name, else `[index]`.
 */
export function itemSegment(item: unknown, index: number, keyed: boolean): string {
  if (keyed && isObj(item) && typeof item.name === 'string' && item.name !== '') return `[${item.name}]`;
  return `[${index}]`;
}

/** `a, b, c` quoted, at most `max` shown. */
export function list(items: readonly string[], max = 5): string {
  const shown = items
    .slice(0, max)
    .map((s) => `"${s}"`)
    .join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

/** The value printed in a message: strings quoted, others as JSON. */
export function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  return Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v;
}

/** Edit distance (Levenshtein), capped: 99 when the lengths differ by more than 3. For suggestions only. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/**
 * The allowed value `v` most likely misspells: the same letters in another case first, else the closest
 * by edit distance (case-insensitive) when it is at most 2, or 3 for values of 8 characters or more.
 */
export function closestValue(v: string, allowed: readonly string[]): string | undefined {
  const lower = v.toLowerCase();
  const same = allowed.find((a) => a.toLowerCase() === lower);
  if (same !== undefined) return same;
  let best: string | undefined;
  let bestD = lower.length >= 8 ? 4 : 3;
  for (const a of allowed) {
    const d = editDistance(lower, a.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = a;
    }
  }
  return best;
}

/** The hint for a value outside an enum: the right spelling when only the case differs, else the closest value. */
export function enumHint(v: unknown, allowed: readonly string[]): string {
  const s = typeof v === 'string' ? v : undefined;
  const m = s === undefined ? undefined : allowed.find((a) => a.toLowerCase() === s.toLowerCase());
  if (m !== undefined) return `write "${m}" (values are case-sensitive)`;
  const near = s === undefined ? undefined : closestValue(s, allowed);
  return near !== undefined ? `did you mean "${near}"? (one of ${allowed.join(', ')})` : `use one of ${allowed.join(', ')}`;
}
