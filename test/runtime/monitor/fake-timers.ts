import type { Timers } from '../../../src/runtime/monitor/scheduler';

/** Lets pending promise chains (microtasks and I/O callbacks queued before) run. */
export const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Timers that move only when told to; `advance` fires due callbacks in time order. */
export class FakeTimers implements Timers {
  private t = 0;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await flush();
    for (;;) {
      let best: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.pending) if (e[1].at <= end && (!best || e[1].at < best[1].at)) best = e;
      if (!best) break;
      this.pending.delete(best[0]);
      this.t = best[1].at;
      best[1].fn();
      await flush();
    }
    this.t = end;
    await flush();
  }
}

/** A promise the test settles. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
