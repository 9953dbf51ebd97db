/**
 * Runs one periodic job per key: immediately when the key appears (or is re-scheduled with new settings),
 * then every interval at a per-key phase so thousands of keys do not fire in lockstep; at most
 * `concurrency` jobs run at once (the rest wait in FIFO order); a slot that comes while the key's previous
 * run is still running or queued is skipped, never piled up.
 *
 * Spacing (what makes `toleratedNumberOfFailures` mean what it says): two runs of one key (one generation)
 * never start closer than the interval. The phase and any delay only ever postpone a run:
 *
 *   run                              | next run is due at
 *   ---------------------------------+---------------------------------------------------------------
 *   the immediate one (create, start,| the first phase slot (time ≡ phase × interval, mod interval) at
 *   re-schedule), starting at t      | least one interval after t: in [t + interval, t + 2 × interval)
 *   a periodic one due at d, starting| max(d + interval, t + interval): on time keeps the phase; a late
 *   at t ≥ d                         | start (queue, event-loop lag) shifts the key's later slots by as much
 *   a slot at d that is skipped      | d + interval
 *
 * So consecutive runs are ≥ 1 interval apart, < 2 intervals apart right after (re)scheduling, and one
 * interval plus the start delay apart afterwards (plus one interval per skipped slot).
 */

import { FNV_OFFSET, fmix32, fnvString } from '../../core/hash32';
import { systemClock, type RuntimeClock } from '../clock';

/** Time and timers, injectable for scheduling tests: the runtime's clock (clock.ts). */
export type Timers = RuntimeClock;

/** The system clock (clock.ts). */
export const realTimers: Timers = systemClock;

/** FNV-1a (32 bit) of the key, as a fraction in [0, 1): a stable, well-spread phase per key. */
export function hashPhase(key: string): number {
  // the final avalanche (murmur3 fmix) so that keys differing in the last character still spread
  return fmix32(fnvString(FNV_OFFSET, key)) / 4294967296;
}

export type JobRunner = (key: string, generation: number, signal: AbortSignal) => Promise<void>;

export interface SchedulerOptions {
  run: JobRunner;
  timers?: Timers;
  /** Maximum jobs running at once (default 1000). */
  concurrency?: number;
  /** Where in the interval a key's periodic runs fall, in [0, 1). Default: `hashPhase`. */
  phase?: (key: string) => number;
}

interface Job {
  key: string;
  generation: number;
  intervalMs: number;
  /** The slot time the next (or current) run belongs to. */
  due: number;
  timer: unknown;
  queued: boolean;
  running: boolean;
  removed: boolean;
  /** The periodic timer has been set at least once (the first run is the immediate one). */
  armed: boolean;
}

export interface SchedulerStats {
  jobs: number;
  running: number;
  queued: number;
  /** Runs started since creation. */
  started: number;
  /** Slots skipped because the key's previous run was still running or queued. */
  skipped: number;
}

export class Scheduler {
  private readonly jobs = new Map<string, Job>();
  private readonly queue: Job[] = [];
  private queueHead = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers: Timers;
  private readonly concurrency: number;
  private readonly phase: (key: string) => number;
  private readonly runJob: JobRunner;
  /** One controller per running job (a shared signal would make every probe's add/removeEventListener O(running)). */
  private readonly controllers = new Set<AbortController>();
  private running = 0;
  private started = 0;
  private skipped = 0;
  private generation = 0;
  private active = false;

  constructor(opts: SchedulerOptions) {
    this.runJob = opts.run;
    this.timers = opts.timers ?? realTimers;
    this.concurrency = Math.max(1, Math.floor(opts.concurrency ?? 1000));
    this.phase = opts.phase ?? hashPhase;
  }

  /**
   * Adds a key, or replaces its settings: a new generation that runs at once (when started); runs of
   * the previous generation still in flight finish, and the caller ignores their results by generation.
   */
  schedule(key: string, intervalMs: number): number {
    const old = this.jobs.get(key);
    if (old) this.retire(old);
    const job: Job = {
      key,
      generation: ++this.generation,
      intervalMs: Math.max(1, intervalMs),
      due: this.timers.now(),
      timer: undefined,
      queued: false,
      running: false,
      removed: false,
      armed: false,
    };
    this.jobs.set(key, job);
    if (this.active) this.enqueue(job);
    return job.generation;
  }

  /** Stops a key: no further runs; a queued run is dropped, a running one finishes (result ignored). */
  remove(key: string): void {
    const job = this.jobs.get(key);
    if (!job) return;
    this.retire(job);
    this.jobs.delete(key);
  }

  has(key: string): boolean {
    return this.jobs.has(key);
  }

  /** Current generation of a key (undefined when not scheduled). */
  generationOf(key: string): number | undefined {
    return this.jobs.get(key)?.generation;
  }

  /** Starts running: every key already scheduled runs at once. */
  start(): void {
    if (this.active) return;
    this.active = true;
    const now = this.timers.now();
    for (const job of this.jobs.values()) {
      job.due = now;
      job.armed = false;
      this.enqueue(job);
    }
  }

  /** Stops every timer, drops the queue, aborts running jobs and waits for them to settle. */
  async stop(): Promise<void> {
    this.active = false;
    for (const job of this.jobs.values()) {
      if (job.timer !== undefined) this.timers.clearTimeout(job.timer);
      job.timer = undefined;
      job.queued = false;
    }
    this.queue.length = 0;
    this.queueHead = 0;
    for (const ac of this.controllers) ac.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  stats(): SchedulerStats {
    return {
      jobs: this.jobs.size,
      running: this.running,
      queued: this.queue.length - this.queueHead,
      started: this.started,
      skipped: this.skipped,
    };
  }

  private retire(job: Job): void {
    job.removed = true;
    if (job.timer !== undefined) this.timers.clearTimeout(job.timer);
    job.timer = undefined;
  }

  private enqueue(job: Job): void {
    if (job.removed || !this.active) return;
    if (job.queued || job.running) {
      this.skipped++;
      this.arm(job);
      return;
    }
    job.queued = true;
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (this.active && this.running < this.concurrency && this.queueHead < this.queue.length) {
      const job = this.queue[this.queueHead++]!;
      if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
        this.queue.splice(0, this.queueHead);
        this.queueHead = 0;
      }
      job.queued = false;
      if (job.removed) continue;
      this.launch(job);
    }
  }

  private launch(job: Job): void {
    job.running = true;
    this.running++;
    this.started++;
    this.arm(job, true);
    // never call back synchronously: schedule() returns before the job's first run starts
    const ac = new AbortController();
    this.controllers.add(ac);
    const p = Promise.resolve().then(() => this.runJob(job.key, job.generation, ac.signal));
    const tracked: Promise<void> = p
      .catch(() => {})
      .then(() => {
        this.inFlight.delete(tracked);
        this.controllers.delete(ac);
        job.running = false;
        this.running--;
        this.pump();
      });
    this.inFlight.add(tracked);
  }

  /**
   * Sets the timer for the key's next slot (the table at the top of this file). `started`: a run of the
   * key starts now (else the slot at `job.due` was skipped and no run started).
   */
  private arm(job: Job, started = false): void {
    if (job.removed || !this.active) return;
    if (job.timer !== undefined) this.timers.clearTimeout(job.timer);
    const now = this.timers.now();
    const interval = job.intervalMs;
    let next: number;
    if (!job.armed) {
      next = this.firstSlot(job.key, interval, now + interval);
      job.armed = true;
    } else {
      next = job.due + interval;
      if (started && next < now + interval) next = now + interval;
      if (next <= now) next += (Math.floor((now - next) / interval) + 1) * interval;
    }
    job.due = next;
    job.timer = this.timers.setTimeout(() => {
      job.timer = undefined;
      this.enqueue(job);
    }, next - now);
  }

  /** The first of the key's phase slots (times ≡ phase × interval modulo the interval) at or after `from`. */
  private firstSlot(key: string, interval: number, from: number): number {
    const offset = Math.floor(this.phase(key) * interval) % interval;
    const into = (((from - offset) % interval) + interval) % interval;
    return into === 0 ? from : from + (interval - into);
  }
}
