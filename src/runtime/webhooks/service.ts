/**
 * The webhooks of one `tmkit serve` (docs/webhooks.md): those of `--webhook URL[,secret-file]` (fixed while
 * it runs) and those added through `POST /v1/webhooks` (kept in `<state-dir>/webhooks.json`, mode 0600).
 * It subscribes to the live events (events.ts) and hands each one, of any type, to every webhook that wants
 * it — transitions and revisions today, and whatever types the live events carry tomorrow, unchanged.
 *
 *   LiveEvents ──onEvent──▶ Webhooks ──enqueue──▶ WebhookTarget (target.ts: queue, order, retries, log)
 *                                                        │ send: undici, the address checked at connect (policy.ts)
 *                                                        ▼
 *                                                    the receiver
 */
import { randomBytes } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { Agent, request } from 'undici';
import { LIVE_EVENT_TYPES, unknownEventTypes, type LiveEvent, type WebhookReport, type WebhookRequest } from '../../core/api';
import { isoNow, type RuntimeClock } from '../clock';
import type { LiveEvents } from '../events';
import { addressRefusal, checkWebhookUrl, hostRefusal } from './policy';
import { SecretKey, type SecretLog } from './secret';
import { WebhookTarget, type DeliveryTuning, type WebhookConfig } from './target';

export const WEBHOOKS_FILE = 'webhooks.json';

/** A webhook from `serve --webhook URL[,secret-file]`. */
export interface WebhookFlag {
  url: string;
  secretFile?: string;
}

export interface WebhooksOptions {
  events: LiveEvents;
  clock: RuntimeClock;
  logger: Logger;
  registry: Registry;
  /** Where API-added webhooks are kept (`:memory:` or none: not kept across restarts). */
  stateDir?: string;
  flags?: WebhookFlag[];
  /** `serve --webhook-allow-private`: loopback, private and link-local destinations are allowed. */
  allowPrivate?: boolean;
  tuning?: Partial<DeliveryTuning>;
  version: string;
}

/** What the API's webhook routes ask of the runtime (api/webhooks.ts). */
export interface WebhooksApi {
  list(): WebhookReport[];
  /** Adds a webhook (its secret file read off the event loop); rejects with WebhookRefused and the reason. */
  add(request: WebhookRequest): Promise<WebhookReport>;
  /** false: no such webhook; throws WebhookRefused for a `--webhook` one. */
  remove(id: string): boolean;
}

/** A webhook refused: `field` is what is wrong with it (the API's error path). */
export class WebhookRefused extends Error {
  constructor(
    message: string,
    readonly field: 'url' | 'events' | 'secretFile' | 'id' = 'url',
  ) {
    super(message);
  }
}

const DEFAULT_TUNING: DeliveryTuning = {
  maxQueue: 1000,
  retryBaseMs: 500,
  retryMaxMs: 30_000,
  maxAgeMs: 3_600_000,
  attemptTimeoutMs: 10_000,
  secretPollMs: 2000,
};

export class Webhooks implements WebhooksApi {
  private readonly targets = new Map<string, WebhookTarget>();
  private readonly tuning: DeliveryTuning;
  private readonly agent: Agent;
  private readonly unsubscribe: () => void;
  /** Prefix of this process's delivery ids (with a sequence number: unique across restarts). */
  private readonly boot = randomBytes(4).toString('hex');
  private seq = 0;
  private closed = false;
  private readonly file: string | undefined;
  private readonly metrics: { outcomes: Counter<'webhook' | 'outcome'>; dropped: Counter<'webhook'>; latency: Histogram };

  /**
   * The webhooks of `--webhook` (a secret file that breaks the rules stops the start: WebhookRefused) and
   * those kept in the state dir (one whose secret file cannot be read now keeps the reason in its delivery
   * log until the file is fixed). Every secret file is read here, off the event loop, once.
   */
  static async open(deps: WebhooksOptions): Promise<Webhooks> {
    const hooks = new Webhooks(deps);
    try {
      const allowPrivate = deps.allowPrivate === true;
      for (const [i, f] of (deps.flags ?? []).entries()) {
        try {
          checkWebhookUrl(f.url, allowPrivate);
        } catch (err) {
          throw new WebhookRefused(`--webhook ${f.url}: ${(err as Error).message}`);
        }
        const id = `flag-${i + 1}`;
        let secret: SecretKey | undefined;
        if (f.secretFile !== undefined) {
          try {
            secret = await hooks.secretKey(id, f.secretFile, true);
          } catch (err) {
            throw new WebhookRefused(`--webhook ${f.url}: ${(err as Error).message}`, 'secretFile');
          }
        }
        hooks.addTarget(
          {
            id,
            url: f.url,
            events: [],
            ...(f.secretFile !== undefined ? { secretFile: f.secretFile } : {}),
            format: 'json',
            origin: 'flag',
          },
          secret,
        );
      }
      for (const c of hooks.load()) {
        const unknown = unknownEventTypes(c.events);
        if (unknown.length > 0)
          deps.logger.warn(
            { webhook: c.id, unknown },
            `webhook ${c.id} filters on unknown event types ${unknown.join(', ')}, which never fire; the event types are ${LIVE_EVENT_TYPES.join(', ')}`,
          );
        hooks.addTarget(c, c.secretFile !== undefined ? await hooks.secretKey(c.id, c.secretFile, false) : undefined);
      }
    } catch (err) {
      await hooks.close();
      throw err;
    }
    return hooks;
  }

  private constructor(private readonly deps: WebhooksOptions) {
    this.tuning = { ...DEFAULT_TUNING, ...deps.tuning };
    this.file = deps.stateDir !== undefined && deps.stateDir !== ':memory:' ? join(deps.stateDir, WEBHOOKS_FILE) : undefined;
    const allowPrivate = deps.allowPrivate === true;
    // Every address a host name resolves to is checked, and the connection goes to the one checked.
    const lookup = (
      hostname: string,
      options: { all?: boolean },
      cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
    ): void => {
      dnsLookup(hostname, { all: true }, (err, addresses) => {
        if (err) {
          cb(err, []);
          return;
        }
        const refused = addresses.map((a) => addressRefusal(a.address, allowPrivate)).find((w) => w !== undefined);
        if (refused !== undefined) {
          cb(Object.assign(new Error(`${hostname}: ${refused}`), { code: 'WEBHOOK_NOT_ALLOWED' }), []);
          return;
        }
        if (options.all) cb(null, addresses);
        else cb(null, addresses[0]!.address, addresses[0]!.family);
      });
    };
    this.agent = new Agent({ connect: { lookup: lookup as never }, keepAliveTimeout: 10_000, connections: 4 });
    const registers = [deps.registry];
    this.metrics = {
      outcomes: new Counter({
        name: 'tmkit_webhook_deliveries_total',
        help: 'Webhook delivery attempts by webhook id and outcome (delivered, retrying, failed, dropped)',
        labelNames: ['webhook', 'outcome'],
        registers,
      }),
      dropped: new Counter({
        name: 'tmkit_webhook_dropped_total',
        help: "Webhook events dropped because the webhook's queue was full (the oldest waiting one goes)",
        labelNames: ['webhook'],
        registers,
      }),
      latency: new Histogram({
        name: 'tmkit_webhook_delivery_seconds',
        help: "From the event to the receiver's 2xx, retries included",
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5, 30, 300],
        registers,
      }),
    };
    const self = this;
    new Gauge({
      name: 'tmkit_webhook_queue_depth',
      help: 'Webhook events waiting to be delivered, by webhook id',
      labelNames: ['webhook'],
      registers,
      collect() {
        this.reset();
        for (const t of self.targets.values()) this.set({ webhook: t.config.id }, t.queued);
      },
    });
    this.unsubscribe = deps.events.onEvent((e) => this.publish(e));
  }

  /** The key of a webhook's secret file (secret.ts), its re-reads logged under the webhook's id. */
  private secretKey(id: string, file: string, strict: boolean): Promise<SecretKey> {
    const logger = this.deps.logger;
    const log: SecretLog = {
      info: (m) => logger.info({ webhook: id, secretFile: file }, m),
      error: (m) => logger.error({ webhook: id, secretFile: file }, m),
    };
    return SecretKey.open(file, log, this.tuning.secretPollMs, strict);
  }

  private addTarget(c: WebhookConfig, secret: SecretKey | undefined): WebhookTarget {
    const t = new WebhookTarget(
      c,
      this.deps.clock,
      this.tuning,
      {
        version: this.deps.version,
        send: (url, body, headers, timeoutMs) => this.send(url, body, headers, timeoutMs),
        outcome: (id, outcome, latency) => {
          this.metrics.outcomes.inc({ webhook: id, outcome });
          if (outcome === 'dropped') this.metrics.dropped.inc({ webhook: id });
          if (latency !== undefined) this.metrics.latency.observe(latency);
        },
      },
      secret,
    );
    this.targets.set(c.id, t);
    return t;
  }

  private async send(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<{ status: number }> {
    // The rule of add (policy.ts hostRefusal): an IP literal is never looked up, so it is checked here; any
    // other name is checked at connect, every address it resolves to.
    const why = hostRefusal(new URL(url).hostname, this.deps.allowPrivate === true);
    if (why !== undefined) throw new Error(why);
    const res = await request(url, {
      method: 'POST',
      body,
      headers,
      dispatcher: this.agent,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    await res.body.dump();
    return { status: res.statusCode };
  }

  /** One live event, to every webhook that wants its type. */
  private publish(e: LiveEvent): void {
    if (this.targets.size === 0) return;
    const id = `${this.boot}-${++this.seq}`;
    const at = isoNow(this.deps.clock);
    for (const t of this.targets.values()) if (t.wants(e.type)) t.enqueue(e, id, at);
  }

  list(): WebhookReport[] {
    return [...this.targets.values()].map((t) => t.report());
  }

  async add(r: WebhookRequest): Promise<WebhookReport> {
    try {
      checkWebhookUrl(r.url, this.deps.allowPrivate === true);
    } catch (err) {
      throw new WebhookRefused((err as Error).message);
    }
    const events = [...new Set(r.events ?? [])];
    const unknown = unknownEventTypes(events);
    if (unknown.length > 0)
      throw new WebhookRefused(
        `events: unknown event type${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}; the event types are ${LIVE_EVENT_TYPES.join(', ')} (none: all)`,
        'events',
      );
    const id = `wh-${randomBytes(4).toString('hex')}`;
    let secret: SecretKey | undefined;
    if (r.secretFile !== undefined) {
      try {
        secret = await this.secretKey(id, r.secretFile, true);
      } catch (err) {
        throw new WebhookRefused((err as Error).message, 'secretFile');
      }
      if (this.closed) {
        secret.close();
        throw new WebhookRefused('the server is stopping', 'id');
      }
    }
    const c: WebhookConfig = {
      id,
      url: r.url,
      events,
      ...(r.secretFile !== undefined ? { secretFile: r.secretFile } : {}),
      format: r.format ?? 'json',
      origin: 'api',
    };
    const t = this.addTarget(c, secret);
    this.save();
    this.deps.logger.info({ webhook: c.id, url: c.url, events: c.events }, 'webhook added');
    return t.report();
  }

  remove(id: string): boolean {
    const t = this.targets.get(id);
    if (!t) return false;
    if (t.config.origin === 'flag')
      throw new WebhookRefused(`webhook ${id} comes from tmkit serve --webhook; restart serve without that flag to remove it`, 'id');
    t.stop();
    this.targets.delete(id);
    this.save();
    return true;
  }

  /** The API-added webhooks kept in the state dir. */
  private load(): WebhookConfig[] {
    if (!this.file || !existsSync(this.file)) return [];
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as { webhooks?: WebhookConfig[] };
      return (parsed.webhooks ?? [])
        .filter((c) => typeof c?.id === 'string' && typeof c.url === 'string')
        .map((c) => ({
          ...c,
          events: Array.isArray(c.events) ? c.events : [],
          format: c.format === 'slack' ? 'slack' : 'json',
          origin: 'api',
        }));
    } catch (err) {
      this.deps.logger.error({ err, file: this.file }, 'cannot read the webhooks file; starting without its webhooks');
      return [];
    }
  }

  private save(): void {
    if (!this.file) return;
    const list = [...this.targets.values()].filter((t) => t.config.origin === 'api').map((t) => t.config);
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ webhooks: list }, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
  }

  /** Stops delivering and closes the connections (events still queued are lost with the process). */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    for (const t of this.targets.values()) t.stop();
    await this.agent.close().catch(() => undefined);
  }
}
