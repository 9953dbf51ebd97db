/** Webhook targets (`/v1/webhooks`) and their delivery logs (docs/webhooks.md). */

/** A webhook target: `POST /v1/webhooks` (or `tmkit serve --webhook URL[,secret-file]`). */
export interface WebhookRequest {
  /** http(s) URL; loopback and private addresses only with `serve --webhook-allow-private` (docs/webhooks.md). */
  url: string;
  /** Event types to deliver, each one of `LIVE_EVENT_TYPES` (events.ts; another name is refused: 400); default: all. */
  events?: string[];
  /**
   * A regular file on the server (at most 4096 bytes) holding the HMAC key of X-Tmkit-Signature: its bytes less
   * one trailing "\n" or "\r\n" (docs/webhooks.md). None: deliveries are unsigned.
   */
  secretFile?: string;
  /** `json` (default: the event as it is) or `slack` (a Slack/Teams-compatible `{"text": …}` body). */
  format?: 'json' | 'slack';
}

/** One delivery attempt's outcome in the webhook's delivery log. */
export interface WebhookDeliveryReport {
  /** The event's id (one per event: retries keep it; receivers deduplicate on X-Tmkit-Delivery). */
  id: string;
  event: string;
  /** ISO time of the attempt. */
  at: string;
  attempt: number;
  /** `delivered` (2xx), `retrying`, `failed` (gave up), `dropped` (the queue was full). */
  outcome: 'delivered' | 'retrying' | 'failed' | 'dropped';
  status?: number;
  error?: string;
  /** Event → acknowledged, for delivered ones. */
  latencyMs?: number;
}

export interface WebhookReport {
  id: string;
  url: string;
  events: string[];
  format: 'json' | 'slack';
  signed: boolean;
  /** Where it came from: `serve --webhook` (fixed while the server runs) or the API (kept in the state dir). */
  origin: 'flag' | 'api';
  /** Events waiting to be delivered. */
  queued: number;
  delivered: number;
  dropped: number;
  failed: number;
  /** The most recent attempts, newest first (at most 50). */
  deliveries: WebhookDeliveryReport[];
}

export interface WebhookList {
  webhooks: WebhookReport[];
}
