/**
 * Measured latency for Performance routing (a profile's `performanceLatency.source` `Measured`,
 * docs/routing.md "Measured latency"): what the probing locations measured, as routing reads it, and the
 * pure rules that turn probe round trips into it — the EWMA, the stable leader (hysteresis) and when a new
 * view is worth publishing. The runtime feeds it (ledger/latency.ts); routing reads it
 * (routing/methods/performance.ts). Immutable plain data, so DNS workers receive it as it is.
 */
import type { PerformanceLatency, Profile } from '../model/types';

/** One location's measurement of one endpoint: the EWMA of its successful probes' round trips. */
export interface MeasuredRtt {
  /** Milliseconds, rounded to 0.1. */
  readonly ms: number;
  /** Successful probes folded into it. */
  readonly samples: number;
}

export interface ProbingLocation {
  /** The location's name (the prober's `--location`, or the host name). */
  readonly name: string;
  /** The Azure region it names (canonical), for mapping clients to their nearest location; absent: unknown. */
  readonly region?: string;
}

/**
 * What the probing locations measured, frozen at one publication: what a snapshot carries beside its
 * HealthView. Keys are `profile/endpoint` (endpoint measurements) and profile names (leaders).
 */
export interface LatencyView {
  /** The locations, in name order. */
  readonly locations: readonly ProbingLocation[];
  /** `profile/endpoint` → location name → its measurement. */
  readonly rtt: Readonly<Record<string, Readonly<Record<string, MeasuredRtt>>>>;
  /**
   * Profile name → location name → the endpoint that location ranks first, kept until another is better by
   * more than `toleranceMs` (`stableLeader`). Only Measured profiles, only locations with a measured endpoint.
   */
  readonly leaders: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** The newest probe's weight in the EWMA: after 5 probes at a new level, 83% of the step is seen. */
export const EWMA_WEIGHT = 0.3;

/** The EWMA after one more sample (the first sample is taken as it is). */
export function ewma(previous: MeasuredRtt | undefined, sampleMs: number): MeasuredRtt {
  if (previous === undefined) return { ms: round1(sampleMs), samples: 1 };
  return { ms: round1(previous.ms + EWMA_WEIGHT * (sampleMs - previous.ms)), samples: previous.samples + 1 };
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

/**
 * The endpoint to rank first among `candidates` (name and measured ms, in declaration order), given the one
 * ranked first before: it stays while no candidate is better than it by more than `toleranceMs`
 * (hysteresis: a difference hovering around the tolerance does not flap); otherwise the lowest (the first
 * declared on a tie). Undefined when there is no candidate.
 */
export function stableLeader(
  previous: string | undefined,
  candidates: readonly { name: string; ms: number }[],
  toleranceMs: number,
): string | undefined {
  let best: { name: string; ms: number } | undefined;
  let held: { name: string; ms: number } | undefined;
  for (const c of candidates) {
    if (best === undefined || c.ms < best.ms) best = c;
    if (c.name === previous) held = c;
  }
  if (best === undefined) return undefined;
  if (held !== undefined && !(best.ms < held.ms - toleranceMs)) return held.name;
  return best.name;
}

/** The Measured Performance profiles and their settings, by profile name (what `nextLatencyView` ranks). */
export type MeasuredProfiles = Map<string, { profile: Profile; settings: PerformanceLatency }>;

export function measuredProfiles(profiles: Iterable<Profile>): MeasuredProfiles {
  const out = new Map<string, { profile: Profile; settings: PerformanceLatency }>();
  for (const p of profiles) {
    const s = p.performanceLatency;
    if (p.trafficRoutingMethod === 'Performance' && s?.source === 'Measured') out.set(p.name, { profile: p, settings: s });
  }
  return out;
}

export const EMPTY_LATENCY_VIEW: LatencyView = { locations: [], rtt: {}, leaders: {} };

/**
 * The view to publish from the measurements now (`samples`: `profile/endpoint` → location → EWMA), or
 * `previous` itself when nothing routing reads would change enough to be worth a new snapshot: a leader, a
 * pair reaching (or losing) `minSamples`, an endpoint or location appearing or going, or a measurement that
 * moved by more than half its profile's `toleranceMs` from the published one (so a published value is
 * never off by more than that, and noise inside it costs no rebuild). Only Measured profiles' endpoints
 * are kept; their leaders are recomputed from the published measurements with `stableLeader`, so routing
 * never sees a measured endpoint better than the leader by more than the tolerance.
 */
export function nextLatencyView(
  previous: LatencyView,
  locations: readonly ProbingLocation[],
  samples: ReadonlyMap<string, ReadonlyMap<string, MeasuredRtt>>,
  profiles: ReadonlyMap<string, { profile: Profile; settings: PerformanceLatency }>,
): LatencyView {
  const rtt: Record<string, Record<string, MeasuredRtt>> = {};
  const leaders: Record<string, Record<string, string>> = {};
  let changed = !sameLocations(previous.locations, locations);
  let keys = 0;
  for (const [name, { profile, settings }] of profiles) {
    const byLocation: Record<string, { name: string; ms: number }[]> = {};
    for (const e of profile.endpoints) {
      if (e.type === 'nestedEndpoints') continue;
      const key = `${name}/${e.name}`;
      const now = samples.get(key);
      if (now === undefined || now.size === 0) {
        if (previous.rtt[key] !== undefined) changed = true;
        continue;
      }
      const old = previous.rtt[key];
      const out: Record<string, MeasuredRtt> = {};
      for (const [loc, m] of now) {
        const was = old?.[loc];
        const enough = m.samples >= settings.minSamples;
        const moved =
          was === undefined || enough !== was.samples >= settings.minSamples || Math.abs(m.ms - was.ms) > settings.toleranceMs / 2;
        if (moved) changed = true;
        const kept = moved ? m : was;
        out[loc] = kept;
        if (enough && e.endpointStatus !== 'Disabled') (byLocation[loc] ??= []).push({ name: e.name, ms: kept.ms });
      }
      if (old !== undefined && Object.keys(old).some((loc) => !now.has(loc))) changed = true;
      rtt[key] = out;
      keys++;
    }
    for (const [loc, candidates] of Object.entries(byLocation)) {
      const leader = stableLeader(previous.leaders[name]?.[loc], candidates, settings.toleranceMs);
      if (leader === undefined) continue;
      (leaders[name] ??= {})[loc] = leader;
      if (previous.leaders[name]?.[loc] !== leader) changed = true;
    }
    for (const loc of Object.keys(previous.leaders[name] ?? {})) if (leaders[name]?.[loc] === undefined) changed = true;
  }
  if (keys !== Object.keys(previous.rtt).length) changed = true;
  if (Object.keys(leaders).length !== Object.keys(previous.leaders).length) changed = true;
  return changed ? { locations: [...locations], rtt, leaders } : previous;
}

function sameLocations(a: readonly ProbingLocation[], b: readonly ProbingLocation[]): boolean {
  return a.length === b.length && a.every((l, i) => l.name === b[i]!.name && l.region === b[i]!.region);
}
