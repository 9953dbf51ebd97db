/**
 * Probe failures a detection drill injects (`tmkit drill --mode detection`, docs/operations.md#drills): while
 * one is in force for an endpoint, this server's prober does not contact it; each of its scheduled probes fails
 * at once with the injection's reason. Everything after the probe is the real path: the scheduler's interval,
 * the tolerated-failures count, the verdict transition, the health ledger, the snapshot and DNS. So a detection
 * drill measures what an outage would cost, less the probe's timeout (a refused connection, not a hang).
 *
 * In memory, on this server only: a restart ends every injection (the endpoint is probed again), and each ends
 * by itself at `until` (the drill asks for its hold plus two minutes), so a drill that dies leaves nothing.
 */
import type { ProbeFailureReport } from '../../core/api';
import type { ProbeTarget } from '../../core/health/targets';
import type { Clock } from '../../core/ports';
import type { ProbeFn } from './monitor';

/** The longest injection (like an override's). */
export const MAX_PROBE_FAILURE_SECONDS = 7 * 86_400;
export const MAX_PROBE_FAILURE_REASON = 200;

interface Injection extends ProbeFailureReport {
  untilMs: number;
}

export class ProbeFailures {
  private readonly byKey = new Map<string, Injection>();

  constructor(private readonly clock: Clock) {}

  /** `probe`, except for an endpoint with an injection in force: a failed probe with its reason, nothing sent. */
  wrap(probe: ProbeFn): ProbeFn {
    return (target: ProbeTarget, opts) => {
      const i = this.active(target.key);
      if (i) return Promise.resolve({ ok: false, reason: i.reason, latencyMs: 0 });
      // A real probe sent before an injection began but answered after it counts as failed too: its success
      // would otherwise undo the drill's first failure and put detection off by a whole interval.
      return probe(target, opts).then((r) => {
        const late = this.active(target.key);
        return late && r.ok ? { ok: false, reason: late.reason, latencyMs: 0 } : r;
      });
    };
  }

  /** Puts one in force for the endpoint `key` (`profile/endpoint` as stored), replacing any it had. */
  inject(key: string, forSeconds: number, who: string, drill?: string, reason?: string): ProbeFailureReport {
    const now = this.clock.now();
    const [profile, endpoint] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
    const i: Injection = {
      profile,
      endpoint,
      since: new Date(now).toISOString(),
      until: new Date(now + forSeconds * 1000).toISOString(),
      untilMs: now + forSeconds * 1000,
      reason: reason ?? `probe failure injected${drill !== undefined ? ` by drill ${drill}` : ''}`,
      who,
      ...(drill !== undefined ? { drill } : {}),
    };
    this.byKey.set(key, i);
    return report(i);
  }

  /** Ends it now; false when none was in force. */
  clear(key: string): boolean {
    const had = this.active(key) !== undefined;
    this.byKey.delete(key);
    return had;
  }

  /** The injection in force for `key`, if any. */
  report(key: string): ProbeFailureReport | undefined {
    const i = this.active(key);
    return i ? report(i) : undefined;
  }

  private active(key: string): Injection | undefined {
    const i = this.byKey.get(key);
    if (i && i.untilMs <= this.clock.now()) {
      this.byKey.delete(key);
      return undefined;
    }
    return i;
  }
}

function report(i: Injection): ProbeFailureReport {
  const { untilMs: _, ...r } = i;
  return r;
}
