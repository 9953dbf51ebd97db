/**
 * Overrides: runtime traffic operations on one endpoint (docs/operations.md). Not configuration: the stored
 * profile never changes (Terraform and Pulumi see no drift); the runtime keeps them beside the profiles and
 * the health ledger makes them an input of what routing reads (src/runtime/ledger/operations-feed.ts). Pure: the
 * request's rules, and what routing reads from the overrides in force at a moment.
 */
import type { OverrideKind, OverrideRecord, OverrideRequest } from '../api';
import { problem, type Diagnostic } from '../diagnostics';
import type { EndpointOverride } from '../health/types';
import { formatDuration, parseDuration } from './duration';

/** The longest an override may last: 7 days. */
export const MAX_OVERRIDE_MS = 7 * 86_400_000;
export const MAX_REASON = 500;
const WHO = /^[A-Za-z0-9][A-Za-z0-9 ._@:/-]{0,63}$/;
export const OVERRIDE_KINDS: readonly OverrideKind[] = ['down', 'weight'];

/** A request that passed its rules: the kind, where, the weight, how long (ms), why and who. */
export interface CheckedOverride {
  kind: OverrideKind;
  profile: string;
  endpoint: string;
  weight?: number;
  durationMs: number;
  reason: string;
  who: string;
  force: boolean;
  drill?: string;
  /** The shift whose step this is (`tmkit shift`): refused unless that shift holds the endpoint. */
  shift?: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a `POST /v1/overrides` body; every problem at once. */
export function checkOverrideRequest(body: unknown): { ok: true; value: CheckedOverride } | { ok: false; errors: Diagnostic[] } {
  if (!isObj(body))
    return {
      ok: false,
      errors: [
        problem('BAD_REQUEST', 'the body must be {"kind": "down"|"weight", "profile", "endpoint", "for": "30m", "reason"?, "weight"?}', {
          path: '$',
        }),
      ],
    };
  const b = body as Partial<Record<keyof OverrideRequest, unknown>>;
  const errors: Diagnostic[] = [];
  if (b.kind !== 'down' && b.kind !== 'weight')
    errors.push(problem('BAD_REQUEST', `kind ${JSON.stringify(b.kind)} is not one of down, weight`, { path: 'kind' }));
  if (typeof b.profile !== 'string' || b.profile === '')
    errors.push(problem('BAD_REQUEST', 'profile (the profile name) is required', { path: 'profile' }));
  if (typeof b.endpoint !== 'string' || b.endpoint === '')
    errors.push(problem('BAD_REQUEST', 'endpoint (the endpoint name) is required', { path: 'endpoint' }));
  if (b.kind === 'weight') {
    if (typeof b.weight !== 'number' || !Number.isInteger(b.weight) || b.weight < 1 || b.weight > 1000)
      errors.push(problem('BAD_REQUEST', `weight ${JSON.stringify(b.weight)} is not an integer 1–1000`, { path: 'weight' }));
  } else if (b.weight !== undefined) errors.push(problem('BAD_REQUEST', 'weight is only for kind "weight"', { path: 'weight' }));
  const ms = typeof b.for === 'string' || typeof b.for === 'number' ? parseDuration(b.for) : undefined;
  if (b.for === undefined)
    errors.push(problem('BAD_REQUEST', 'for (how long, e.g. "30m") is required: every override expires by itself', { path: 'for' }));
  else if (ms === undefined)
    errors.push(
      problem('BAD_REQUEST', `for ${JSON.stringify(b.for)} is not a duration such as 90s, 30m, 2h, 1d or 1h30m`, { path: 'for' }),
    );
  else if (ms < 1000 || ms > MAX_OVERRIDE_MS)
    errors.push(problem('BAD_REQUEST', `for ${JSON.stringify(b.for)} is out of range: 1s to 7d`, { path: 'for' }));
  if (b.reason !== undefined && (typeof b.reason !== 'string' || b.reason.length > MAX_REASON))
    errors.push(problem('BAD_REQUEST', `reason is a text of at most ${MAX_REASON} characters`, { path: 'reason' }));
  if (b.who !== undefined && (typeof b.who !== 'string' || !WHO.test(b.who)))
    errors.push(
      problem('BAD_REQUEST', 'who is a name of 1–64 letters, digits, spaces and ._@:/- (e.g. "cli", "alice@ops")', { path: 'who' }),
    );
  if (b.force !== undefined && typeof b.force !== 'boolean')
    errors.push(problem('BAD_REQUEST', 'force is true or false', { path: 'force' }));
  if (b.drill !== undefined && (typeof b.drill !== 'string' || b.drill.length > 64))
    errors.push(problem('BAD_REQUEST', 'drill is a drill id', { path: 'drill' }));
  if (b.shift !== undefined && (typeof b.shift !== 'string' || b.shift.length > 64))
    errors.push(problem('BAD_REQUEST', 'shift is a shift id (POST /v1/shifts)', { path: 'shift' }));
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      kind: b.kind as OverrideKind,
      profile: b.profile as string,
      endpoint: b.endpoint as string,
      ...(b.kind === 'weight' ? { weight: b.weight as number } : {}),
      durationMs: ms!,
      reason: typeof b.reason === 'string' ? b.reason : '',
      who: typeof b.who === 'string' ? b.who : 'api',
      force: b.force === true,
      ...(typeof b.drill === 'string' ? { drill: b.drill } : {}),
      ...(typeof b.shift === 'string' ? { shift: b.shift } : {}),
    },
  };
}

/** The `profile/endpoint` key an override applies to (the prober's and the ledger's key). */
export const overrideKey = (o: Pick<OverrideRecord, 'profile' | 'endpoint'>): string => `${o.profile}/${o.endpoint}`;

/** In force at `now`: created and not yet expired. */
export function isActive(o: OverrideRecord, now: number): boolean {
  return Date.parse(o.expiresAt) > now;
}

/** One line about an override, as routing explains it: `override down by cli until 2026-…T10:30:00Z (drill)`. */
export function describeOverride(o: OverrideRecord): string {
  const what = o.kind === 'down' ? 'override down' : `override weight ${o.weight}`;
  return `${what} by ${o.who} until ${o.expiresAt}${o.reason ? ` (${o.reason})` : ''}`;
}

/**
 * What routing reads from the overrides in force at `now`, by `profile/endpoint`: a `down` and a `weight`
 * override of one endpoint combine; of two of the same kind the newest wins (the API replaces the older one,
 * so two only meet while a replacement is on its way through a cluster).
 */
export function endpointOverrides(overrides: Iterable<OverrideRecord>, now: number): Map<string, EndpointOverride> {
  const newest = new Map<string, OverrideRecord>();
  for (const o of overrides) {
    if (!isActive(o, now)) continue;
    const k = `${overrideKey(o)}\u0000${o.kind}`;
    const held = newest.get(k);
    if (held === undefined || held.createdAt < o.createdAt || (held.createdAt === o.createdAt && held.id < o.id)) newest.set(k, o);
  }
  const out = new Map<string, EndpointOverride>();
  for (const o of [...newest.values()].sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0))) {
    const key = overrideKey(o);
    const held = out.get(key);
    const reason = held ? `${held.reason}; ${describeOverride(o)}` : describeOverride(o);
    out.set(key, { ...held, ...(o.kind === 'down' ? { down: true, downId: o.id } : { weight: o.weight! }), reason });
  }
  return out;
}

/** The next moment (ms) an override of `overrides` expires after `now`; undefined when none will. */
export function nextExpiry(overrides: Iterable<OverrideRecord>, now: number): number | undefined {
  let next: number | undefined;
  for (const o of overrides) {
    const t = Date.parse(o.expiresAt);
    if (t > now && (next === undefined || t < next)) next = t;
  }
  return next;
}

/** `until 10:30:00Z (in 29m)`, for CLI lines. */
export function expiresIn(o: OverrideRecord, now: number): string {
  return `in ${formatDuration(Math.max(0, Date.parse(o.expiresAt) - now))}`;
}

/** The profiles one of whose endpoints' overrides differ between two maps of what routing reads (by `profile/endpoint`). */
export function overriddenProfilesChanged(
  before: ReadonlyMap<string, EndpointOverride>,
  after: ReadonlyMap<string, EndpointOverride>,
): Set<string> {
  const out = new Set<string>();
  if (before === after) return out;
  for (const k of new Set([...before.keys(), ...after.keys()])) {
    if (JSON.stringify(before.get(k)) !== JSON.stringify(after.get(k))) out.add(k.slice(0, Math.max(0, k.indexOf('/'))));
  }
  return out;
}
