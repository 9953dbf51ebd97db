/**
 * `GET /v1/events`: Server-Sent Events (WHATWG HTML §9.2) for the dashboard and other watchers — health
 * transitions, configuration revisions and Traffic View buckets as they happen. Authenticated like every
 * route (the bearer token; EventSource cannot send headers, so clients read it with fetch()).
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { LiveEvent, RrlEvent } from '../core/api';
import type { DnsTarget, RrlAlert } from './dns';
import type { SnapshotSink } from './snapshot-sink';

/** A comment line this often keeps proxies and idle timeouts from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;
/** Subscribers at most; past it a new one is refused (429), so a leaking client cannot exhaust the server. */
const MAX_SUBSCRIBERS = 100;

export class LiveEvents {
  private readonly subscribers = new Set<ServerResponse>();
  /** In-process listeners (the webhooks, webhooks/): every event, whether or not a stream is open. */
  private readonly listeners = new Set<(event: LiveEvent) => void>();
  private readonly heartbeat: NodeJS.Timeout;
  private seq = 0;

  constructor() {
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get count(): number {
    return this.subscribers.size;
  }

  get full(): boolean {
    return this.subscribers.size >= MAX_SUBSCRIBERS;
  }

  /** Takes over the response: headers, a retry hint, then events until the client goes away or close(). */
  subscribe(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n: tmkit events\n\n');
    this.subscribers.add(res);
    res.on('close', () => this.subscribers.delete(res));
  }

  /** Sends one event to every subscriber (the shapes are core/api's LiveEvent, which the dashboard reads). */
  publish<K extends LiveEvent['type']>(event: K, data: Extract<LiveEvent, { type: K }>['data']): void {
    for (const l of this.listeners) {
      try {
        l({ type: event, data } as LiveEvent);
      } catch {
        /* a listener's bug must not stop the stream */
      }
    }
    if (this.subscribers.size === 0) return;
    this.write(`id: ${++this.seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Calls `listener` with every event published from now on (any type); returns an unsubscribe. */
  onEvent(listener: (event: LiveEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends every stream (server shutdown). */
  close(): void {
    clearInterval(this.heartbeat);
    this.listeners.clear();
    for (const res of this.subscribers) res.end();
    this.subscribers.clear();
  }

  private write(text: string): void {
    for (const res of this.subscribers) {
      // A client that stops reading gets dropped rather than buffered without bound.
      if (res.writableLength > 1 << 20) {
        res.destroy();
        continue;
      }
      res.write(text);
    }
  }
}

/** The live events as a sink of the pipeline: a `revision` event whenever the served store revision moves. */
export function revisionEvents(events: LiveEvents): SnapshotSink {
  let last = -1;
  return {
    publish: (p) => {
      if (p.revision === last) return;
      last = p.revision;
      events.publish('revision', { revision: p.revision });
    },
  };
}

/**
 * The node's sustained rate limiting (`serve --rrl`, dns/rrl-alerts.ts) as `rrl` live events, so the webhooks
 * deliver them: one when it becomes sustained, one when it recovers. Each is logged once too (warn, info).
 */
export function reportRrl(dns: Pick<DnsTarget, 'onRrl'>, events: LiveEvents, logger: Logger, node?: string): () => void {
  return dns.onRrl((a) => {
    const data = rrlEvent(a, node);
    if (a.action === 'sustained') logger.warn({ rrl: data }, 'DNS rate limiting sustained');
    else logger.info({ rrl: data }, 'DNS rate limiting recovered');
    events.publish('rrl', data);
  });
}

const iso = (ms: number): string => new Date(ms).toISOString();

function rrlEvent(a: RrlAlert, node: string | undefined): RrlEvent {
  const end = a.action === 'recovered' && a.lastLimitedMs !== undefined ? a.lastLimitedMs : a.nowMs;
  return {
    action: a.action,
    at: iso(a.nowMs),
    mode: a.mode,
    prefix: a.prefix,
    class: a.class,
    key: a.key,
    since: iso(a.sinceMs),
    durationSeconds: Math.max(0, Math.round((end - a.sinceMs) / 100) / 10),
    limited: a.limited,
    ...(a.action === 'recovered' && a.lastLimitedMs !== undefined ? { lastLimited: iso(a.lastLimitedMs) } : {}),
    processes: a.processes,
    ...(node !== undefined ? { node } : {}),
  };
}
