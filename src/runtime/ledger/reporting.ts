/**
 * What the health ledger's parts report of their own accord, wired once by the engine (engine.ts only composes): health
 * transitions and probes to the log, `/metrics` and the live events; override events to the log and the live
 * events (and from there to the webhooks). Each returns its unsubscribe.
 */
import type { Logger } from 'pino';
import { splitTargetKey } from '../../core/health/targets';
import type { LiveEvents } from '../events';
import type { HealthLedger } from './ledger';
import type { OperationsFeed } from './operations-feed';
import type { RuntimeMetrics } from '../metrics';
import type { Monitor } from '../monitor';

/** Every transition of an effective verdict: logged, counted and sent to live-event subscribers. */
export function reportTransitions(ledger: HealthLedger, metrics: RuntimeMetrics, events: LiveEvents, logger: Logger): () => void {
  return ledger.onTransition((t) => {
    metrics.transitions.inc({ profile: t.profile, endpoint: t.endpoint, from: t.from, to: t.to });
    logger.info({ profile: t.profile, endpoint: t.endpoint, from: t.from, to: t.to, reason: t.reason }, 'endpoint status changed');
    events.publish('transition', {
      at: new Date(t.at).toISOString(),
      profile: t.profile,
      endpoint: t.endpoint,
      from: t.from,
      to: t.to,
      reason: t.reason,
      location: t.location,
      source: t.source ?? 'probe',
    });
  });
}

/** Every probe: its outcome, latency and certificate expiry on `/metrics`. */
export function reportProbes(monitor: Monitor, metrics: RuntimeMetrics): () => void {
  return monitor.onProbe(({ key, probe }) => {
    const [profile, endpoint] = splitTargetKey(key);
    metrics.probes.inc({ profile, endpoint, result: probe.ok ? 'success' : 'failure' });
    metrics.probeLatency.observe({ profile, endpoint }, probe.latencyMs / 1000);
    if (probe.certificate && Number.isFinite(probe.certificate.validTo))
      metrics.certificateExpiry.set({ profile, endpoint }, (probe.certificate.validTo - probe.at) / 1000);
  });
}

/** Every override created, cleared or expired: logged and sent to live-event subscribers. */
export function reportOverrideEvents(feed: OperationsFeed, events: LiveEvents, logger: Logger): () => void {
  return feed.onEvent((e) => {
    logger.info(
      {
        action: e.action,
        id: e.override.id,
        kind: e.override.kind,
        profile: e.override.profile,
        endpoint: e.override.endpoint,
        who: e.override.who,
        expiresAt: e.override.expiresAt,
      },
      `override ${e.action}`,
    );
    events.publish('override', e);
  });
}
