/**
 * The runtime's one source of time. Every time read and every timer of the runtime's stateful parts goes
 * through a `RuntimeClock` they are given (the engine passes `systemClock`; tests pass fake timers that move
 * only when told to, test/runtime/monitor/fake-timers.ts), so a test can drive the prober, the health ledger
 * and their saves through hours in milliseconds. `test/architecture.test.ts` keeps `Date.now()` and
 * argument-less `new Date()` out of src/runtime except here.
 */
import type { Clock } from '../core/ports';

export interface RuntimeClock extends Clock {
  /** Runs `fn` once after `ms`; the timer never keeps the process alive. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: RuntimeClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const h = setTimeout(fn, ms);
    h.unref();
    return h;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** The clock's now as an ISO 8601 string. */
export const isoNow = (clock: Clock): string => new Date(clock.now()).toISOString();
