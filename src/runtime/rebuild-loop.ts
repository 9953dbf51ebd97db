/**
 * A single-flight work loop: `request()` makes sure `step()` runs until `hasPending()` is false, with at most
 * one loop running at a time; requests that arrive while it runs are picked up by the running loop (it
 * re-checks `hasPending()` after every step), so a burst of changes costs one build per turn, not one per
 * change.
 *
 * The loop's promise is stored *before* anything can observe its end: it is cleared in a `.finally` reaction,
 * which always runs on a later microtask than the assignment, so a loop that finds nothing to do (or whose
 * step completes without awaiting) can never leave a stale "running" marker behind. (The engine once stored
 * the settled promise after its own `finally` had cleared it, and every later rebuild rescheduled itself
 * forever: DNS froze on the snapshot of the moment.)
 *
 * A step that throws is reported and retried with a capped exponential backoff; the caller's `step` must put
 * back what it took from the pending set when it fails, so nothing is lost between attempts.
 */
export interface RebuildLoopOptions {
  step: () => Promise<void> | void;
  hasPending: () => boolean;
  /** Called for every failed step with the consecutive-failure count (1, 2, …). */
  onError: (err: unknown, failures: number) => void;
  /** Delay before the first step of a loop, folding bursts (0: the next event-loop turn). */
  debounceMs?: number;
  /** Backoff after the n-th consecutive failure (default 100 ms × 2^(n−1), at most 5 s). */
  retryDelayMs?: (failures: number) => number;
}

export class RebuildLoop {
  private running: Promise<void> | undefined;
  private stopped = false;
  private failures = 0;
  private wake: (() => void) | undefined;
  /** Steps that completed (successfully) since creation. */
  completed = 0;

  constructor(private readonly options: RebuildLoopOptions) {}

  /** Consecutive failed steps right now (0 after a success). */
  get consecutiveFailures(): number {
    return this.failures;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Ensures a loop runs (or is running) that will see everything pending now. */
  request(): void {
    if (this.stopped || this.running) return;
    this.running = this.loop().finally(() => {
      this.running = undefined;
      if (!this.stopped && this.options.hasPending()) this.request();
    });
  }

  /** Resolves when no loop is running (after the current one, and any it chains into, end). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** No new loops; a running one stops after its current step (a backoff sleep is cut short). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.idle();
  }

  private async loop(): Promise<void> {
    await this.sleep(this.options.debounceMs ?? 0);
    while (!this.stopped && this.options.hasPending()) {
      try {
        await this.options.step();
        this.failures = 0;
        this.completed++;
      } catch (err) {
        this.failures++;
        try {
          this.options.onError(err, this.failures);
        } catch {
          /* reporting must not stop the loop */
        }
        await this.sleep((this.options.retryDelayMs ?? defaultRetryDelay)(this.failures));
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = ms > 0 ? setTimeout(() => done(), ms) : undefined;
      const immediate = ms > 0 ? undefined : setImmediate(() => done());
      const done = (): void => {
        this.wake = undefined;
        if (timer) clearTimeout(timer);
        if (immediate) clearImmediate(immediate);
        resolve();
      };
      this.wake = done;
    });
  }
}

function defaultRetryDelay(failures: number): number {
  return Math.min(5_000, 100 * 2 ** Math.min(failures - 1, 10));
}
