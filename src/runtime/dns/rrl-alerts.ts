/**
 * Sustained rate limiting as one node sees it, for the `rrl` live event and its webhooks (docs/webhooks.md).
 * Each DNS process has its own limiter (rrl.ts), which already debounces: `onSustained` once when a bucket
 * has been limited for `sustainedAfter` seconds, `onRecovered` once when nothing was limited for
 * `recoveredAfter` seconds. `watchRrl` follows one limiter (and ticks it, so recovery is noticed when the
 * flood stopped and no query comes); in a DNS worker its alerts travel to the primary over the worker IPC
 * (workers.ts). `RrlAlerts` folds the alerts of every DNS process of the node into one period: `sustained`
 * when the first process reports it, `recovered` when the last one that did has recovered (or exited).
 */
import { systemClock } from '../clock';
import type { ResponseRateLimiter, RrlClass, RrlRecoveredEvent, RrlSustainedEvent } from './rrl';
import { keyNameLength, wireNameToText } from './wire';

/** One DNS process's word (the message a worker sends the primary: plain JSON). */
export type RrlProcessAlert = { action: 'sustained'; event: RrlSustainedEvent } | { action: 'recovered'; event: RrlRecoveredEvent };

/** The node's: what the `rrl` live event carries (core/api RrlEvent, with times in ms). */
export interface RrlAlert {
  action: 'sustained' | 'recovered';
  mode: 'enforce' | 'log';
  /** The client prefix of the bucket that made the period sustained (the flood's source, or its spoofed victim). */
  prefix: string;
  class: RrlClass;
  /** The bucket's name or zone (its class key). */
  key: string;
  /** When that bucket's run of limited answers began. */
  sinceMs: number;
  nowMs: number;
  /** sustained: that bucket's limited answers so far; recovered: every limited answer of the period, all processes. */
  limited: number;
  /** recovered: the last limited answer. */
  lastLimitedMs?: number;
  /** DNS processes that were limiting in the period. */
  processes: number;
}

/**
 * A bucket's key as text: the responder keys names by their wire form and type (wire.ts, lower-cased), which
 * this makes the name again (`www.tm.internal`); a zone key (NXDOMAIN, NODATA) is already text.
 */
function keyText(key: string): string {
  if (!/[\x00-\x1f]/.test(key) || key.length < 5) return key;
  try {
    return wireNameToText(key, keyNameLength(key)).replace(/\.$/, '');
  } catch {
    return key;
  }
}

/** How often a limiter is ticked (recovery is noticed within this of `recoveredAfter`). */
const TICK_MS = 1000;

/** Follows one limiter: its alerts go to `send`; it is ticked every second. Returns the stop function. */
export function watchRrl(rrl: ResponseRateLimiter, send: (a: RrlProcessAlert) => void, now: () => number = systemClock.now): () => void {
  const offSustained = rrl.onSustained((event) => send({ action: 'sustained', event: { ...event, key: keyText(event.key) } }));
  const offRecovered = rrl.onRecovered((event) => send({ action: 'recovered', event }));
  const timer = setInterval(() => rrl.tick(now()), TICK_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    offSustained();
    offRecovered();
  };
}

/** The alerts of a node's DNS processes, folded into one sustained period at a time. */
export class RrlAlerts {
  private readonly limiting = new Set<number>();
  private period: { first: RrlSustainedEvent; processes: Set<number>; limited: number; lastLimitedMs: number } | undefined;
  private readonly listeners = new Set<(a: RrlAlert) => void>();

  constructor(private readonly now: () => number = systemClock.now) {}

  on(fn: (a: RrlAlert) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** An alert from the DNS process `source` (0 in a node without workers, else the worker's id). */
  report(source: number, a: RrlProcessAlert): void {
    if (a.action === 'sustained') {
      this.limiting.add(source);
      if (this.period) {
        this.period.processes.add(source);
        return;
      }
      const e = a.event;
      this.period = { first: e, processes: new Set([source]), limited: 0, lastLimitedMs: e.nowMs };
      this.emit({
        action: 'sustained',
        mode: e.mode,
        prefix: e.prefix,
        class: e.class,
        key: e.key,
        sinceMs: e.sinceMs,
        nowMs: e.nowMs,
        limited: e.limited,
        processes: 1,
      });
      return;
    }
    if (!this.limiting.delete(source) || !this.period) return;
    this.period.limited += a.event.limited;
    if (Number.isFinite(a.event.lastLimitedMs)) this.period.lastLimitedMs = Math.max(this.period.lastLimitedMs, a.event.lastLimitedMs);
    this.maybeRecovered(a.event.nowMs);
  }

  /** The DNS process `source` exited: it limits no more. */
  gone(source: number): void {
    if (!this.limiting.delete(source) || !this.period) return;
    this.maybeRecovered(this.now());
  }

  private maybeRecovered(nowMs: number): void {
    const p = this.period;
    if (!p || this.limiting.size > 0) return;
    this.period = undefined;
    this.emit({
      action: 'recovered',
      mode: p.first.mode,
      prefix: p.first.prefix,
      class: p.first.class,
      key: p.first.key,
      sinceMs: p.first.sinceMs,
      nowMs,
      limited: p.limited,
      lastLimitedMs: p.lastLimitedMs,
      processes: p.processes.size,
    });
  }

  private emit(a: RrlAlert): void {
    for (const fn of [...this.listeners]) {
      try {
        fn(a);
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}
