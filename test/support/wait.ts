/** Waiting for something the test cannot await directly (a process, a socket, a probe round), by polling. */

export interface WaitOptions {
  /** What is awaited, for the failure message: `timed out after 5000 ms waiting for <what>`. */
  what: string;
  /** Give up after this many milliseconds (default 30 000). */
  timeoutMs?: number;
  /** Ask `cond` again after this many milliseconds (default 25). */
  intervalMs?: number;
}

/**
 * Polls `cond` until it returns a truthy value, and resolves to that value. An error thrown by `cond` counts
 * as "not yet". After `timeoutMs` it rejects with `timed out after <timeoutMs> ms waiting for <what>`, and the
 * last value or error `cond` gave (unless that was just `false`).
 */
export async function waitFor<T>(
  cond: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  o: WaitOptions,
): Promise<T> {
  const { what, timeoutMs = 30_000, intervalMs = 25 } = o;
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v as T;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) {
      const seen = last === false ? '' : `; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${seen}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
