/**
 * Shift leases (core/api/shifts.ts, docs/operations.md): one `tmkit shift` per endpoint at a time. Pure: the
 * request's rules, when a hold lapses, and what a refused shift is told (who holds the endpoint, since when,
 * where it is going, and what to do).
 */
import type { ShiftLease, ShiftRequest } from '../api';
import { problem, type Diagnostic } from '../diagnostics';
import { MAX_OVERRIDE_MS, MAX_REASON } from './overrides';

/**
 * How long a hold lasts unless the shift renews it. The CLI renews every few seconds (whatever its `--every`),
 * so a shift whose process died (killed, its machine gone) frees the endpoint within this time.
 */
export const SHIFT_LEASE_MS = 15_000;
/** At most this many steps. */
export const MAX_SHIFT_STEPS = 100;
const WHO = /^[A-Za-z0-9][A-Za-z0-9 ._@:/-]{0,63}$/;

export interface CheckedShift {
  profile: string;
  endpoint: string;
  weights: number[];
  everySeconds: number;
  who: string;
  reason?: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a `POST /v1/shifts` body; every problem at once. */
export function checkShiftRequest(body: unknown): { ok: true; value: CheckedShift } | { ok: false; errors: Diagnostic[] } {
  if (!isObj(body))
    return {
      ok: false,
      errors: [
        problem('BAD_REQUEST', 'the body must be {"profile", "endpoint", "weights": [10, 50], "everySeconds": 120, "who"?, "reason"?}', {
          path: '$',
        }),
      ],
    };
  const b = body as Partial<Record<keyof ShiftRequest, unknown>>;
  const errors: Diagnostic[] = [];
  if (typeof b.profile !== 'string' || b.profile === '')
    errors.push(problem('BAD_REQUEST', 'profile (the profile name) is required', { path: 'profile' }));
  if (typeof b.endpoint !== 'string' || b.endpoint === '')
    errors.push(problem('BAD_REQUEST', 'endpoint (the endpoint name) is required', { path: 'endpoint' }));
  if (
    !Array.isArray(b.weights) ||
    b.weights.length === 0 ||
    b.weights.length > MAX_SHIFT_STEPS ||
    b.weights.some((w) => typeof w !== 'number' || !Number.isInteger(w) || w < 1 || w > 1000)
  )
    errors.push(problem('BAD_REQUEST', `weights is a list of 1–${MAX_SHIFT_STEPS} integers 1–1000`, { path: 'weights' }));
  if (
    typeof b.everySeconds !== 'number' ||
    !Number.isInteger(b.everySeconds) ||
    b.everySeconds < 1 ||
    b.everySeconds * 1000 > MAX_OVERRIDE_MS
  )
    errors.push(
      problem('BAD_REQUEST', 'everySeconds (how long each step holds) is an integer of seconds, 1 s to 7 days', { path: 'everySeconds' }),
    );
  if (b.reason !== undefined && (typeof b.reason !== 'string' || b.reason.length > MAX_REASON))
    errors.push(problem('BAD_REQUEST', `reason is a text of at most ${MAX_REASON} characters`, { path: 'reason' }));
  if (b.who !== undefined && (typeof b.who !== 'string' || !WHO.test(b.who)))
    errors.push(
      problem('BAD_REQUEST', 'who is a name of 1–64 letters, digits, spaces and ._@:/- (e.g. "cli", "alice@ops")', { path: 'who' }),
    );
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      profile: b.profile as string,
      endpoint: b.endpoint as string,
      weights: b.weights as number[],
      everySeconds: b.everySeconds as number,
      who: typeof b.who === 'string' ? b.who : 'api',
      ...(typeof b.reason === 'string' && b.reason !== '' ? { reason: b.reason } : {}),
    },
  };
}

/** The hold lapsed at `now`: its shift did not renew it in time (its process is gone, or stalled). */
export function shiftLapsed(lease: ShiftLease, now: number): boolean {
  return Date.parse(lease.expiresAt) <= now;
}

/** When the shift's last step is due (the hold ends with it): its start plus every step but the last. */
export function shiftLastStepDue(lease: ShiftLease): string {
  return new Date(Date.parse(lease.startedAt) + (lease.weights.length - 1) * lease.everySeconds * 1000).toISOString();
}

/** `tmkit shift PROFILE ENDPOINT --cancel`, the command that stops it. */
export function shiftCancelCommand(lease: Pick<ShiftLease, 'profile' | 'endpoint'>): string {
  const arg = (s: string): string => (/^[A-Za-z0-9._@:/-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return `tmkit shift ${arg(lease.profile)} ${arg(lease.endpoint)} --cancel`;
}

/** What a shift refused because `lease` holds its endpoint is told: who, since when, where it goes, what to do. */
export function shiftHeldMessage(lease: ShiftLease): string {
  const holder = `a shift of ${lease.profile}/${lease.endpoint}`;
  const what = `by ${lease.who} since ${lease.startedAt}, weights ${lease.weights.join(',')}`;
  if (lease.cancelled) {
    const c = lease.cancelled;
    return (
      `${holder} (${what}) was cancelled by ${c.who} at ${c.at}${c.reason ? ` (${c.reason})` : ''} and is rolling back; ` +
      `try again once it has ended (its hold ends by ${lease.expiresAt})`
    );
  }
  const at =
    lease.step !== undefined
      ? ` (at step ${lease.step}/${lease.weights.length}${lease.weight !== undefined ? `, weight ${lease.weight}` : ''})`
      : '';
  return (
    `${holder} is running: ${what}${at}; wait for it to end (its last step is due by ${shiftLastStepDue(lease)}), ` +
    `or stop it: ${shiftCancelCommand(lease)} (it rolls back); if its process is gone, the hold lapses by ${lease.expiresAt}`
  );
}
