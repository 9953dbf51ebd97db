/**
 * One webhook: its queue of events and the loop that delivers them (docs/webhooks.md).
 *
 * - In order, one at a time: the next event is sent only when the one before it is acknowledged (2xx) or
 *   given up on, so a receiver sees the events in the order they happened, each once while nothing fails.
 * - At least once: a failed attempt (no answer, a timeout, a non-2xx status) is retried with exponential
 *   backoff (base × 2^n, capped) until it succeeds or the event is older than `maxAgeMs` (then `failed`).
 *   A delivery whose answer is lost is sent again: receivers deduplicate on `X-Tmkit-Delivery`.
 * - Bounded: at most `maxQueue` events wait; past it the oldest waiting one is dropped (`dropped`, counted).
 * - Every attempt lands in the delivery log (the last LOG_SIZE), which the API and `tmkit webhooks` show.
 */
import type { LiveEvent, WebhookDeliveryReport, WebhookReport } from '../../core/api';
import type { RuntimeClock } from '../clock';
import { deliveryBody, signature } from './policy';
import type { SecretKey } from './secret';

/** Attempts kept in the delivery log. */
const LOG_SIZE = 50;

export interface WebhookConfig {
  id: string;
  url: string;
  /** Event types delivered; empty: every type. */
  events: string[];
  secretFile?: string;
  format: 'json' | 'slack';
  origin: 'flag' | 'api';
}

export interface DeliveryTuning {
  /** Events waiting at most (default 1000). */
  maxQueue: number;
  /** First retry delay (default 500 ms), doubled per attempt up to `retryMaxMs` (default 30 s). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** An event not delivered this long after it happened is given up (default 1 h). */
  maxAgeMs: number;
  /** One attempt's deadline (default 10 s). */
  attemptTimeoutMs: number;
  /** How often a secret file's metadata is checked for a rotation (default 2 s; secret.ts). */
  secretPollMs: number;
}

interface Pending {
  id: string;
  event: LiveEvent;
  /** ISO time it happened. */
  at: string;
  /** performance.now() when it was queued (latency). */
  queuedAt: number;
  /** Runtime clock when it was queued (age). */
  queuedClock: number;
  attempts: number;
}

export interface TargetHooks {
  send(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<{ status: number }>;
  /** Outcome of every attempt (metrics). */
  outcome(id: string, outcome: WebhookDeliveryReport['outcome'], latencySeconds?: number): void;
  version: string;
}

export class WebhookTarget {
  private readonly queue: Pending[] = [];
  private readonly log: WebhookDeliveryReport[] = [];
  private readonly counts = { delivered: 0, dropped: 0, failed: 0 };
  private running = false;
  private stopped = false;
  private wakeTimer: unknown;
  private wake: (() => void) | undefined;

  constructor(
    readonly config: WebhookConfig,
    private readonly clock: RuntimeClock,
    private readonly tuning: DeliveryTuning,
    private readonly hooks: TargetHooks,
    /** The key of `config.secretFile`, read once (secret.ts); deliveries sign with it and never read the file. */
    private readonly secret?: SecretKey,
  ) {}

  /** Whether this webhook takes events of `type`. */
  wants(type: string): boolean {
    return this.config.events.length === 0 || this.config.events.includes(type);
  }

  enqueue(event: LiveEvent, id: string, at: string): void {
    if (this.stopped) return;
    this.queue.push({ id, event, at, queuedAt: performance.now(), queuedClock: this.clock.now(), attempts: 0 });
    // The head may be in flight: the oldest one waiting behind it goes.
    while (this.queue.length > this.tuning.maxQueue) {
      const [gone] = this.queue.splice(this.running && this.queue.length > 1 ? 1 : 0, 1);
      this.counts.dropped++;
      this.note({
        id: gone!.id,
        event: gone!.event.type,
        at: new Date(this.clock.now()).toISOString(),
        attempt: gone!.attempts,
        outcome: 'dropped',
        error: `queue full (${this.tuning.maxQueue} events waiting)`,
      });
      this.hooks.outcome(this.config.id, 'dropped');
    }
    if (!this.running) void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (!this.stopped && this.queue.length > 0) {
        const head = this.queue[0]!;
        const done = await this.attempt(head);
        if (this.stopped) return;
        if (done) {
          if (this.queue[0] === head) this.queue.shift();
          continue;
        }
        await this.sleep(Math.min(this.tuning.retryMaxMs, this.tuning.retryBaseMs * 2 ** (head.attempts - 1)));
      }
    } finally {
      this.running = false;
    }
  }

  /** One attempt; true when the event is finished with (delivered or given up). */
  private async attempt(p: Pending): Promise<boolean> {
    p.attempts++;
    const body = deliveryBody(p.event, p.id, p.at, this.config.format);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': `tmkit/${this.hooks.version}`,
      'x-tmkit-event': p.event.type,
      'x-tmkit-delivery': p.id,
    };
    const at = new Date(this.clock.now()).toISOString();
    let error: string | undefined;
    let status: number | undefined;
    try {
      if (this.secret !== undefined) headers['x-tmkit-signature'] = signature(this.secret.current(), body);
      status = (await this.hooks.send(this.config.url, body, headers, this.tuning.attemptTimeoutMs)).status;
      if (status >= 200 && status < 300) {
        const latency = performance.now() - p.queuedAt;
        this.counts.delivered++;
        this.note({
          id: p.id,
          event: p.event.type,
          at,
          attempt: p.attempts,
          outcome: 'delivered',
          status,
          latencyMs: Math.round(latency * 10) / 10,
        });
        this.hooks.outcome(this.config.id, 'delivered', latency / 1000);
        return true;
      }
      error = `status ${status}`;
    } catch (err) {
      error = describe(err);
    }
    const expired = this.clock.now() - p.queuedClock >= this.tuning.maxAgeMs;
    const outcome = expired ? 'failed' : 'retrying';
    if (expired) this.counts.failed++;
    this.note({
      id: p.id,
      event: p.event.type,
      at,
      attempt: p.attempts,
      outcome,
      ...(status !== undefined ? { status } : {}),
      error: expired ? `${error}; given up ${Math.round(this.tuning.maxAgeMs / 1000)} s after the event` : error,
    });
    this.hooks.outcome(this.config.id, outcome);
    return expired;
  }

  private note(r: WebhookDeliveryReport): void {
    this.log.push(r);
    if (this.log.length > LOG_SIZE) this.log.splice(0, this.log.length - LOG_SIZE);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.wakeTimer = this.clock.setTimeout(() => {
        this.wakeTimer = undefined;
        this.wake = undefined;
        resolve();
      }, ms);
    });
  }

  /** Events waiting (including one in flight). */
  get queued(): number {
    return this.queue.length;
  }

  report(): WebhookReport {
    return {
      id: this.config.id,
      url: this.config.url,
      events: this.config.events.length === 0 ? ['*'] : [...this.config.events],
      format: this.config.format,
      signed: this.config.secretFile !== undefined,
      origin: this.config.origin,
      queued: this.queue.length,
      delivered: this.counts.delivered,
      dropped: this.counts.dropped,
      failed: this.counts.failed,
      deliveries: [...this.log].reverse(),
    };
  }

  /** Stops delivering (what is queued is dropped with the process: the queue lives in memory). */
  stop(): void {
    this.stopped = true;
    this.secret?.close();
    if (this.wakeTimer !== undefined) this.clock.clearTimeout(this.wakeTimer);
    this.wake?.();
  }
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.cause?.code ?? e?.code;
  const message = e?.cause?.message ?? e?.message ?? String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
