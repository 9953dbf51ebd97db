import { isDown } from '../../health/status';
import { step, subnetMatch, unavailable, single, type ClientContext, type Selection } from './common';
import type { CompiledEndpoint, CompiledProfile, SubnetIndex } from '../compiled';

/**
 * @param endpoints every endpoint, declaration order
 * @param enabled the non-disabled ones, declaration order
 */
export function subnetIndex(endpoints: readonly CompiledEndpoint[], enabled: readonly CompiledEndpoint[]): SubnetIndex {
  // The fallback is judged by the subnets as written: an endpoint whose subnets are all malformed is no fallback.
  const fallback = enabled.find((e) => (e.endpoint.subnets ?? []).length === 0);
  return {
    subnetEndpoints: enabled.filter((e) => e.subnets.length > 0),
    disabledSubnetEndpoints: endpoints.filter((e) => e.endpoint.endpointStatus === 'Disabled' && e.subnets.length > 0),
    ...(fallback ? { fallback } : {}),
  };
}

/**
 * Subnet (behaviors.md §5, §3). tmkit's reading of the two-source rows:
 * - match, endpoint available                           → that endpoint
 * - match, endpoint unavailable (or Disabled endpoint's  → the fallback endpoint if available, else NXDOMAIN
 *   range matched)                                         ([FAQ] row of §3)
 * - no match, fallback available                        → the fallback endpoint
 * - no match, no fallback / fallback unavailable        → NODATA ([RM]; docs/dns.md)
 */
export function subnet(cp: CompiledProfile, client: ClientContext): Selection {
  const steps: Selection['steps'] = [];
  const f = cp.fallback;
  const m = subnetMatch(cp.subnetEndpoints, client);
  if (m?.usable) {
    return single(
      m,
      step(
        cp,
        'subnet-match',
        `client ${client.address} is in a subnet of this endpoint${isDown(m.status) ? ' (all-degraded fallback)' : ''}`,
        m,
      ),
      steps,
    );
  }
  let matchedUnusable = false;
  if (m) {
    matchedUnusable = true;
    steps.push(step(cp, 'skip', `client ${client.address} is in a subnet of this endpoint, but ${unavailable(m)}`, m));
  } else {
    const d = subnetMatch(cp.disabledSubnetEndpoints, client);
    if (d) {
      matchedUnusable = true;
      steps.push(step(cp, 'skip', `client ${client.address} is in a subnet of this Disabled endpoint: its ranges are ignored`, d));
    } else {
      steps.push(step(cp, 'subnet-match', `client ${client.address} is in no endpoint's subnets`));
    }
  }
  if (f?.usable) return single(f, step(cp, 'fallback', 'endpoint without subnets: the fallback', f), steps);
  if (f) steps.push(step(cp, 'skip', `fallback endpoint (no subnets): ${unavailable(f)}`, f));
  if (matchedUnusable) {
    steps.push(step(cp, 'nxdomain', 'matched endpoint unavailable and no available fallback: NXDOMAIN (behaviors.md §3, [FAQ])'));
    return { kind: 'nxdomain', steps };
  }
  steps.push(
    step(
      cp,
      'nodata',
      f
        ? 'no match and the fallback is unavailable: NODATA'
        : 'no match and no fallback endpoint: NODATA (behaviors.md §3, [RM]; docs/dns.md)',
    ),
  );
  return { kind: 'nodata', steps };
}
