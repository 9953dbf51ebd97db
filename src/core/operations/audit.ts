/**
 * What the audit log (`GET /v1/audit`, `tmkit audit`) says about a caller and a configuration change
 * (docs/operations.md#audit-log): who may be named, and a profile's change as short `old → new` lines.
 */
import type { Profile } from '../model/types';

/** A caller's name: what `--who`, `?who=` and a body's `who` may be. */
export const WHO_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._@:/-]{0,63}$/;

/** What the audit log records for an API caller that gives no name. */
export const ANONYMOUS_CALLER = 'api';

/** At most this many change lines per entry; the rest are counted (`… and 7 more`). */
export const MAX_CHANGE_LINES = 20;

/** A value as a change line shows it: JSON, cut to 60 characters. */
function show(v: unknown): string {
  if (v === undefined) return '(none)';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `key old → new` for every key of two objects whose values differ (keys in `skip` left out). */
function keyChanges(prefix: string, before: object, after: object, skip: ReadonlySet<string> = new Set()): string[] {
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => !skip.has(k)).sort();
  return keys.filter((k) => !same(b[k], a[k])).map((k) => `${prefix}${k} ${show(b[k])} → ${show(a[k])}`);
}

/**
 * What changed from `before` to `after` (undefined: created, or deleted), one line each: a setting
 * (`dnsConfig {"ttl":30,…} → {"ttl":60,…}`), an endpoint added or removed, an endpoint's property
 * (`endpoint primary: endpointStatus Enabled → Disabled`). At most MAX_CHANGE_LINES lines.
 */
export function profileChanges(before: Profile | undefined, after: Profile | undefined): string[] {
  let lines: string[];
  if (!before && !after) lines = [];
  else if (!before) lines = [`created with endpoints ${after!.endpoints.map((e) => e.name).join(', ') || '(none)'}`];
  else if (!after) lines = [`deleted (endpoints ${before.endpoints.map((e) => e.name).join(', ') || '(none)'})`];
  else {
    lines = keyChanges('', before, after, new Set(['endpoints', 'name']));
    const old = new Map(before.endpoints.map((e) => [e.name.toLowerCase(), e]));
    const now = new Map(after.endpoints.map((e) => [e.name.toLowerCase(), e]));
    for (const [k, e] of old) if (!now.has(k)) lines.push(`endpoint ${e.name} removed`);
    for (const [k, e] of now) {
      const was = old.get(k);
      if (!was) lines.push(`endpoint ${e.name} added (${e.endpointStatus}${e.target !== undefined ? `, ${e.target}` : ''})`);
      else lines.push(...keyChanges(`endpoint ${e.name}: `, was, e, new Set(['name'])));
    }
  }
  if (lines.length <= MAX_CHANGE_LINES) return lines;
  return [...lines.slice(0, MAX_CHANGE_LINES - 1), `… and ${lines.length - MAX_CHANGE_LINES + 1} more`];
}
