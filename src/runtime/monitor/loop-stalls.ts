/**
 * How long this process's event loop was blocked: what a probe's wall time holds besides the endpoint's own
 * latency (core/health/probe-rules.ts `latencyJudgement`). While the loop is blocked (start-up, a large apply, a
 * GC pause, the process not scheduled) no socket callback runs, so an answer that came in waits for tmkit.
 *
 * A timer that should fire every `periodMs` notes how late it fires. Its lateness beyond `graceMs` (a timer's
 * own jitter) is stalled time: for that long not even the timers phase came round, let alone a socket's
 * callback (the loop ran something else, or the process was not scheduled). `blockedMs()` is the total so
 * far, the stall still in progress included, so two readings bracket the stalls between them; it never
 * decreases. It measures only lateness past the timer's due time, never more than the loop was blocked. One
 * unref'd timer; a reading is O(1).
 */
import { performance } from 'node:perf_hooks';

export class LoopStalls {
  private total = 0;
  /** When the timer last fired (performance.now()). */
  private last = 0;
  /** When the last stall longer than `periodMs` was seen to end (what `quiet` waits out). */
  private lastLongStallEnd = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly periodMs = 20,
    private readonly graceMs = 3,
  ) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.last = performance.now();
    this.arm();
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Milliseconds the loop was blocked since start(), the stall in progress included. */
  blockedMs(): number {
    return this.total + this.pending(performance.now());
  }

  /**
   * Resolves once the loop has gone `quietMs` without a stall longer than `periodMs`, or after `maxWaitMs`, or
   * when `signal` aborts (what the prober waits for before it measures again a probe whose latency a stall hid).
   */
  quiet(quietMs: number, maxWaitMs: number, signal?: AbortSignal): Promise<void> {
    const until = performance.now() + maxWaitMs;
    return new Promise<void>((resolve) => {
      const check = (): void => {
        const now = performance.now();
        if (
          signal?.aborted ||
          this.timer === undefined ||
          now >= until ||
          (now - this.last <= 2 * this.periodMs && now - this.lastLongStallEnd >= quietMs)
        ) {
          resolve();
          return;
        }
        setTimeout(check, this.periodMs).unref();
      };
      check();
    });
  }

  /** The timer's lateness now beyond `graceMs` (continuous in `now`, so readings never jump). */
  private pending(now: number): number {
    if (this.timer === undefined) return 0;
    return Math.max(0, now - this.last - this.periodMs - this.graceMs);
  }

  private readonly tick = (): void => {
    const now = performance.now();
    const late = this.pending(now);
    this.total += late;
    if (late > this.periodMs) this.lastLongStallEnd = now;
    this.last = now;
    this.arm();
  };

  private arm(): void {
    this.timer = setTimeout(this.tick, this.periodMs);
    this.timer.unref();
  }
}
