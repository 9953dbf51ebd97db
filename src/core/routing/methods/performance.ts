import type { LatencyView, MeasuredRtt } from '../../health/latency';
import { isDown } from '../../health/status';
import type { PerformanceLatency } from '../../model/types';
import { clientChoice, pct, step, subnetMatch, unavailable, single, type ClientContext, type Selection } from './common';
import type { CompiledEndpoint, CompiledProfile, PerformanceIndex } from '../compiled';

/** @param enabled the non-disabled endpoints, declaration order */
export function performanceIndex(enabled: readonly CompiledEndpoint[]): PerformanceIndex {
  const byRegion = new Map<string, CompiledEndpoint[]>();
  for (const e of enabled) {
    const r = e.location ?? '';
    const list = byRegion.get(r);
    if (list) list.push(e);
    else byRegion.set(r, [e]);
  }
  return { regions: [...byRegion].map(([region, list]) => ({ region, endpoints: list })) };
}

/**
 * Performance (behaviors.md §5): subnet override first (used only if that endpoint is available), then the
 * lowest-latency region that has an available endpoint; available endpoints of that region share traffic
 * evenly. Regions with equal latency form one tier (even split over the tier). Regions whose latency is
 * unknown (no client location, endpoint without location) come last, as one tier.
 *
 * The even split is over clients, and deterministic per client ("same resolver ⇒ same endpoint"): a
 * client (its address, or its ECS subnet) gets the tier endpoint `clientChoice` picks, with probability 1.
 * A query that stands for a population of clients (`ClientContext.population`, the routing preview) gets
 * the split itself: each endpoint with probability 1/n, the fraction of clients it answers.
 *
 * With `performanceLatency.source` Measured the ranking is by measured probe latency instead (see
 * `measured`), and a `performance-source` step says which source ranked the answer.
 */
export function performance(cp: CompiledProfile, client: ClientContext): Selection {
  const steps: Selection['steps'] = [];
  const m = subnetMatch(cp.subnetEndpoints, client);
  if (m) {
    if (m.usable)
      return single(
        m,
        step(cp, 'subnet-override', `client ${client.address} is in a subnet of this endpoint (subnet override, endpoint available)`, m),
        steps,
      );
    steps.push(
      step(
        cp,
        'subnet-override',
        `client ${client.address} is in a subnet of this endpoint, but ${unavailable(m)}: normal Performance routing`,
        m,
      ),
    );
  }
  const settings = cp.profile.performanceLatency;
  if (settings?.source === 'Measured') {
    const s = measured(cp, client, settings, steps);
    if (s !== undefined) return s;
  }
  const tiers = cp.regions
    .map((g) => ({ g, ms: g.region === '' ? undefined : client.latencyMs(g.region) }))
    .sort((a, b) => (a.ms ?? Infinity) - (b.ms ?? Infinity));
  let i = 0;
  while (i < tiers.length) {
    const ms = tiers[i]!.ms ?? Infinity;
    const tier: typeof tiers = [];
    while (i < tiers.length && (tiers[i]!.ms ?? Infinity) === ms) tier.push(tiers[i++]!);
    const names = tier.map((t) => (t.g.region === '' ? '(no endpointLocation)' : t.g.region)).join(', ');
    const latency = ms === Infinity ? 'latency unknown' : `${ms} ms`;
    const usable: CompiledEndpoint[] = [];
    for (const t of tier)
      for (const e of t.g.endpoints) {
        if (e.usable) usable.push(e);
        else steps.push(step(cp, 'skip', `region ${e.location ?? '(none)'}: ${unavailable(e)}`, e));
      }
    if (usable.length === 0) {
      steps.push(step(cp, 'skip', `closest remaining region ${names} (${latency}) has no available endpoint: next-closest region`));
      continue;
    }
    if (usable.length > 1 && !client.population) {
      const e = usable[clientChoice(usable, cp.profile.name, client)]!;
      return single(
        e,
        step(
          cp,
          'select',
          `closest region with an available endpoint: ${names} (${latency}); ${usable.length} endpoints split its clients ` +
            `evenly, and the hash of client ${client.identity} picks this one${isDown(e.status) ? ' (all-degraded fallback)' : ''}`,
          e,
        ),
        steps,
      );
    }
    const p = 1 / usable.length;
    return {
      kind: 'pick',
      steps,
      options: usable.map((e) => ({
        endpoints: [e],
        probability: p,
        step: step(
          cp,
          'select',
          `closest region with an available endpoint: ${names} ` +
            `(${latency})${usable.length > 1 ? `; even split of its clients over ${usable.length} endpoints: ${pct(p)}` : ''}` +
            `${isDown(e.status) ? ' (all-degraded fallback)' : ''}`,
          e,
        ),
      })),
    };
  }
  steps.push(step(cp, 'nodata', 'no endpoint is available in any region: NODATA'));
  return { kind: 'nodata', steps };
}

interface Scored {
  e: CompiledEndpoint;
  /** The latency it ranks by: measured, else the distance model's (Infinity: unknown). */
  ms: number;
  /** Its measurement from the client's location (absent: none). */
  m: MeasuredRtt | undefined;
  /** Ranked by its measurement (at least minSamples samples). */
  measured: boolean;
}

/** The probing location a client maps to: the nearest by the distance model; a single one takes every client. */
export function nearestLocation(view: LatencyView | undefined, client: ClientContext): { name: string; why: string } | undefined {
  if (view === undefined || view.locations.length === 0) return undefined;
  if (view.locations.length === 1) return { name: view.locations[0]!.name, why: 'the only probing location' };
  let best: string | undefined;
  let bestMs = Infinity;
  for (const l of view.locations) {
    const ms = l.region === undefined ? undefined : client.latencyMs(l.region);
    if (ms !== undefined && ms < bestMs) {
      best = l.name;
      bestMs = ms;
    }
  }
  if (best === undefined) return { name: view.locations[0]!.name, why: 'no location placed by the distance model: the first by name' };
  return { name: best, why: `nearest probing location by the distance model, ${bestMs} ms` };
}

/**
 * Performance by measured latency (`performanceLatency.source` Measured, docs/routing.md "Measured latency"):
 * the client maps to its nearest probing location; each non-disabled endpoint ranks by that location's
 * EWMA of its probe round trips when it has at least `minSamples` samples, else by the distance model's
 * latency to its region (unknown: last). Among the available endpoints, those within `toleranceMs` of the
 * best count as equal: the location's leader among them answers (it stays until another is better by more
 * than the tolerance, core/health/latency.ts `stableLeader`); without one, they split their clients evenly
 * like a tier. Undefined when no endpoint is measured from the location yet: the distance model ranks
 * regions as without the property (the `performance-source` step says so).
 */
function measured(cp: CompiledProfile, client: ClientContext, s: PerformanceLatency, steps: Selection['steps']): Selection | undefined {
  const view = client.latency;
  const loc = nearestLocation(view, client);
  if (view === undefined || loc === undefined) {
    steps.push(step(cp, 'performance-source', 'distance model: no probing location has measured this profile yet'));
    return undefined;
  }
  const scored: Scored[] = [];
  let count = 0;
  let most = 0;
  for (const e of cp.endpoints) {
    if (e.endpoint.endpointStatus === 'Disabled') continue;
    const m = view.rtt[e.path]?.[loc.name];
    most = Math.max(most, m?.samples ?? 0);
    if (m !== undefined && m.samples >= s.minSamples) {
      scored.push({ e, ms: m.ms, m, measured: true });
      count++;
    } else scored.push({ e, ms: (e.location === undefined ? undefined : client.latencyMs(e.location)) ?? Infinity, m, measured: false });
  }
  if (count === 0) {
    steps.push(
      step(
        cp,
        'performance-source',
        `distance model: no endpoint has ${s.minSamples} samples from ${loc.name} yet (most: ${most} of ${s.minSamples})`,
      ),
    );
    return undefined;
  }
  const others = scored.length - count;
  steps.push(
    step(
      cp,
      'performance-source',
      `measured: client mapped to ${loc.name} (${loc.why}); ${count} of ${scored.length} endpoints have at least ` +
        `${s.minSamples} samples from it${others > 0 ? `, the other ${others === 1 ? 'one ranks' : `${others} rank`} by the distance model` : ''}`,
    ),
  );
  scored.sort((a, b) => a.ms - b.ms || a.e.index - b.e.index);
  const ms = (v: number): string => (v === Infinity ? 'latency unknown' : `${v} ms`);
  const describe = (x: Scored): string =>
    x.measured
      ? `measured: ${x.ms} ms from ${loc.name} (EWMA of ${x.m!.samples} probes)`
      : `distance model: ${ms(x.ms)} (${x.m?.samples ?? 0} of ${s.minSamples} samples from ${loc.name})`;
  const first = scored.findIndex((x) => x.e.usable);
  for (const x of first < 0 ? scored : scored.slice(0, first)) steps.push(step(cp, 'skip', `${describe(x)}; ${unavailable(x.e)}`, x.e));
  if (first < 0) {
    steps.push(step(cp, 'nodata', 'no endpoint is available: NODATA'));
    return { kind: 'nodata', steps };
  }
  const best = scored[first]!;
  const band = scored.filter((x) => x.e.usable && (x.ms <= best.ms + s.toleranceMs || x.ms === best.ms));
  const fallback = (e: CompiledEndpoint): string => (isDown(e.status) ? ' (all-degraded fallback)' : '');
  const leaderName = view.leaders[cp.profile.name]?.[loc.name];
  const leader = band.find((x) => x.e.endpoint.name === leaderName);
  if (band.length === 1 || leader !== undefined) {
    const x = leader ?? best;
    const why =
      band.length === 1
        ? 'the lowest latency of the available endpoints'
        : x === best
          ? `the lowest latency; ${band.length - 1} more within the ${s.toleranceMs} ms tolerance`
          : `within the ${s.toleranceMs} ms tolerance of the best (${best.e.endpoint.name}, ${ms(best.ms)}): kept as ${loc.name}'s choice until another is better by more`;
    return single(x.e, step(cp, 'select', `${describe(x)}; ${why}${fallback(x.e)}`, x.e), steps);
  }
  const eq = `${band.length} endpoints within the ${s.toleranceMs} ms tolerance of the best (${ms(best.ms)}) count as equal`;
  if (!client.population) {
    const x =
      band[
        clientChoice(
          band.map((b) => b.e),
          cp.profile.name,
          client,
        )
      ]!;
    return single(
      x.e,
      step(cp, 'select', `${describe(x)}; ${eq}, and the hash of client ${client.identity} picks this one${fallback(x.e)}`, x.e),
      steps,
    );
  }
  const p = 1 / band.length;
  return {
    kind: 'pick',
    steps,
    options: band.map((x) => ({
      endpoints: [x.e],
      probability: p,
      step: step(cp, 'select', `${describe(x)}; ${eq}: ${pct(p)}${fallback(x.e)}`, x.e),
    })),
  };
}
