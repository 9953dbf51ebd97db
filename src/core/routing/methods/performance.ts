import { isDown } from '../../health/status';
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
