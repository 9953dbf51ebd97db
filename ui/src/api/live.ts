/**
 * Live updates from `GET /v1/events` (Server-Sent Events), read with fetch() and a stream reader because
 * EventSource cannot send the Authorization header. When the server has no such route, or the stream
 * breaks, the dashboard falls back to polling and retries the stream with backoff.
 */
import { decodeLiveEvent } from '../lib/events';
import { SseParser } from '../lib/sse';
import { getToken } from './client';
import type { LiveEvent } from './types';

export type LiveMode = 'connecting' | 'events' | 'polling';

type Listener = (e: LiveEvent) => void;
type ModeListener = (m: LiveMode) => void;

class LiveFeed {
  private listeners = new Set<Listener>();
  private modeListeners = new Set<ModeListener>();
  private ctrl: AbortController | undefined;
  /** SSE reconnection time: 1 s unless the stream said otherwise (`retry:`). */
  private reconnectMs = 1000;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  mode: LiveMode = 'connecting';

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  onMode(fn: ModeListener): () => void {
    this.modeListeners.add(fn);
    fn(this.mode);
    return () => {
      this.modeListeners.delete(fn);
    };
  }

  private setMode(m: LiveMode): void {
    if (m === this.mode) return;
    this.mode = m;
    for (const fn of this.modeListeners) fn(m);
  }

  start(): void {
    this.stop();
    this.ctrl = new AbortController();
    void this.run(this.ctrl.signal);
  }

  stop(): void {
    this.ctrl?.abort();
    this.ctrl = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.setMode('connecting');
  }

  private async run(signal: AbortSignal): Promise<void> {
    const token = getToken();
    if (token === null) return;
    let connected = false;
    try {
      const res = await fetch('/v1/events', {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
        cache: 'no-store',
        signal,
      });
      if (!res.ok || res.body === null || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
        // 404 ROUTE_NOT_FOUND (a server without the stream yet) and every other refusal: poll, retry slowly.
        await res.body?.cancel();
        this.retryLater(signal, res.status === 404 ? 60_000 : this.backoff());
        return;
      }
      connected = true;
      this.failures = 0;
      this.setMode('events');
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new SseParser();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const messages = parser.push(value);
        if (parser.retry !== undefined) this.reconnectMs = Math.min(Math.max(parser.retry, 100), 60_000);
        for (const m of messages) {
          const e = decodeLiveEvent(m);
          if (e) for (const fn of this.listeners) fn(e);
        }
      }
    } catch {
      if (signal.aborted) return;
    }
    // The stream ended or broke: reconnect after the server's retry time (SSE's rule) when it had been up,
    // else back off. Pages poll meanwhile.
    this.retryLater(signal, connected ? this.reconnectMs : this.backoff());
  }

  private backoff(): number {
    this.failures++;
    return Math.min(1000 * 2 ** (this.failures - 1), 30_000);
  }

  private retryLater(signal: AbortSignal, wait: number): void {
    if (signal.aborted) return;
    this.setMode('polling');
    this.timer = setTimeout(() => {
      if (!signal.aborted) void this.run(signal);
    }, wait);
  }
}

export const live = new LiveFeed();
