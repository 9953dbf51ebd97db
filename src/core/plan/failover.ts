import { childProfileName } from '../model/names';
import type { Profile } from '../model/types';

/**
 * Worst-case failover time, from the settings alone (behaviors.md §8):
 *
 *   detection(Q) = intervalInSeconds × (toleratedNumberOfFailures + 1) + timeoutInSeconds
 *
 * An endpoint fails just after a successful probe; the next probe comes one interval later and fails only at
 * its timeout; the endpoint is Degraded on failure number tolerated + 1, i.e. interval × (tolerated + 1) +
 * timeout after the outage began. A nested endpoint's status is derived from its child's probes at once (the
 * parent never probes the child), so for a profile P the worst case is the slowest detection anywhere in its
 * nesting tree, plus the time resolvers keep the old answer: P's TTL (clients only ever query P's name; the
 * children's answers reach them inside P's). Endpoints with Always Serve are not probed and never fail over.
 * This is the steady state: right after a create, re-enable or settings change the prober's second probe
 * comes at the endpoint's first phase slot at least one interval after the immediate one (under two
 * intervals; src/runtime/monitor/scheduler.ts), so an outage in that first interval can take up to one
 * interval longer. Which status codes count as healthy (200, plus expectedStatusCodeRanges) does not enter
 * the estimate: it decides whether a probe fails, not when. Composite checks (`monitorConfig.checks`) do not
 * change it either: every round probes all of an endpoint's checks at once with the same interval, timeout and
 * tolerance, and the failure that decides (a mustBeHealthy check, or the one that leaves fewer than quorum up)
 * is counted the same way (core/health/checks.ts).
 *
 *   failover(P) = max over Q in tree(P) with a probed endpoint of detection(Q) + P.dnsConfig.ttl
 */
export interface FailoverEstimate {
  profile: string;
  /** Worst case in seconds; null when nothing in the tree is probed (traffic never moves). */
  seconds: number | null;
  detectionSeconds: number | null;
  ttl: number;
  /** From this profile down to the profile whose probe settings set the worst case. */
  via: string[];
  /** e.g. `30 × (3 + 1) + 10 + TTL 30 = 160 s`. */
  formula: string;
  notes: string[];
  /**
   * Worst-case recovery once the failed endpoint is healthy again, when the profile setting the worst case
   * has a `failback` property (recoveryEstimate()); absent: Azure's, the next probe (one interval) + TTL.
   */
  recovery?: { seconds: number | null; formula: string };
}

/*
 * Worst-case recovery (the failback property, docs/health.md "Failback"): the endpoint is healthy again just
 * after a failed probe; `successesToRecover` good probes one interval apart follow, and it must be at least
 * `holdDownSeconds` since it failed (at most that long after it is healthy again); then resolvers keep the old
 * answer for the TTL. Manual: until someone runs `tmkit endpoint failback`, then the TTL.
 *
 *   recovery = max(interval × successesToRecover, holdDownSeconds) + TTL
 */
export function recoveryEstimate(q: Profile, ttl: number): { seconds: number | null; formula: string } | undefined {
  const f = q.failback;
  if (!f) return undefined;
  const i = q.monitorConfig.intervalInSeconds;
  if (f.mode === 'Manual') return { seconds: null, formula: `manual: AwaitingFailback until tmkit endpoint failback, then TTL ${ttl}` };
  const seconds = Math.max(i * f.successesToRecover, f.holdDownSeconds) + ttl;
  return { seconds, formula: `max(${i} × ${f.successesToRecover}, ${f.holdDownSeconds}) + TTL ${ttl} = ${seconds} s` };
}

export function detectionSeconds(p: Profile): number {
  const m = p.monitorConfig;
  return m.intervalInSeconds * (m.toleratedNumberOfFailures + 1) + m.timeoutInSeconds;
}

const probed = (p: Profile): boolean =>
  p.endpoints.some((e) => e.type !== 'nestedEndpoints' && e.endpointStatus === 'Enabled' && e.alwaysServe !== 'Enabled');

/** Failover estimates for the named profiles, looking children up in `profiles` (the whole deployed/planned set). */
export function failoverTimes(profiles: ReadonlyMap<string, Profile>, names?: Iterable<string>): Map<string, FailoverEstimate> {
  const memo = new Map<string, { det: number | null; via: string[] }>();
  const lower = new Map([...profiles].map(([n, p]) => [n.toLowerCase(), p]));
  const worst = (asked: string, stack: Set<string>): { det: number | null; via: string[] } => {
    const p = profiles.get(asked) ?? lower.get(asked.toLowerCase());
    const name = p?.name ?? asked;
    const hit = memo.get(name);
    if (hit) return hit;
    if (!p || stack.has(name)) return { det: null, via: [] };
    stack.add(name);
    let best: { det: number | null; via: string[] } = probed(p) ? { det: detectionSeconds(p), via: [name] } : { det: null, via: [] };
    for (const e of p.endpoints) {
      if (e.type !== 'nestedEndpoints' || e.endpointStatus !== 'Enabled' || !e.targetResourceId) continue;
      const child = worst(childProfileName(e.targetResourceId), stack);
      if (child.det !== null && (best.det === null || child.det > best.det)) best = { det: child.det, via: [name, ...child.via] };
    }
    stack.delete(name);
    memo.set(name, best);
    return best;
  };

  const out = new Map<string, FailoverEstimate>();
  for (const name of names ?? profiles.keys()) {
    const p = profiles.get(name);
    if (!p) continue;
    const w = worst(name, new Set());
    const ttl = p.dnsConfig.ttl;
    const notes: string[] = [];
    if (
      p.trafficRoutingMethod === 'Geographic' &&
      p.endpoints.some((e) => e.type !== 'nestedEndpoints' && e.endpointStatus === 'Enabled')
    ) {
      notes.push('Geographic answers a mapped endpoint even when it is down: only nested endpoints fail over');
    }
    const enabled = p.endpoints.filter((e) => e.endpointStatus === 'Enabled');
    if (enabled.length === 1 && p.trafficRoutingMethod !== 'Geographic') {
      notes.push(`only one enabled endpoint (${enabled[0]!.name}): there is nowhere to fail over to`);
    }
    if (w.det === null) {
      notes.push('no endpoint in this profile or its nested profiles is probed (Always Serve or none enabled): traffic never moves');
      out.set(name, { profile: name, seconds: null, detectionSeconds: null, ttl, via: [], formula: 'not probed', notes });
      continue;
    }
    const worstProfile = profiles.get(w.via[w.via.length - 1]!)!;
    const q = worstProfile.monitorConfig;
    if (q.checks !== undefined) {
      notes.push(
        `${worstProfile.name} probes ${q.checks.length} composite check${q.checks.length === 1 ? '' : 's'} per endpoint, all in every round: ` +
          'the bound holds for the check whose failures decide',
      );
    }
    const seconds = w.det + ttl;
    const where = w.via.length > 1 ? ` (probe settings of ${w.via[w.via.length - 1]})` : '';
    const recovery = recoveryEstimate(worstProfile, ttl);
    out.set(name, {
      profile: name,
      seconds,
      detectionSeconds: w.det,
      ttl,
      via: w.via,
      notes,
      formula: `${q.intervalInSeconds} × (${q.toleratedNumberOfFailures} + 1) + ${q.timeoutInSeconds}${where} + TTL ${ttl} = ${seconds} s`,
      ...(recovery ? { recovery } : {}),
    });
  }
  return out;
}
