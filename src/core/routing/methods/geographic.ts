import { GEO_REGIONS } from '../../data';
import { step, subnetMatch, single, type ClientContext, type Selection } from './common';
import type { CompiledEndpoint, CompiledProfile, GeographicIndex } from '../compiled';

/** @param enabled the non-disabled endpoints, declaration order */
export function geographicIndex(enabled: readonly CompiledEndpoint[]): GeographicIndex {
  const geo = new Map<string, CompiledEndpoint>();
  for (const e of enabled) for (const code of e.geoMapping) if (!geo.has(code)) geo.set(code, e);
  return { geo };
}

const LEVEL = ['WORLD', 'regional grouping', 'country/region', 'state/province'];

function answerMatch(cp: CompiledProfile, e: CompiledEndpoint, why: string, steps: Selection['steps']): Selection {
  if (e.status === 'Stopped') {
    steps.push(step(cp, 'nodata', `${why}; endpoint is Stopped (${e.statusReason}): NODATA, no walk up the hierarchy`, e));
    return { kind: 'nodata', steps };
  }
  return single(e, step(cp, 'geo-match', `${why}; answered regardless of health (status ${e.status})`, e), steps);
}

/**
 * Geographic (behaviors.md §5): subnet override first (regardless of health), then the client's codes from
 * most to least specific; Disabled endpoints take no part; the first match answers whatever its health,
 * except Stopped → NODATA without walking up; no match → NODATA.
 */
export function geographic(cp: CompiledProfile, client: ClientContext): Selection {
  const steps: Selection['steps'] = [];
  const m = subnetMatch(cp.subnetEndpoints, client);
  if (m) return answerMatch(cp, m, `client ${client.address} is in a subnet of this endpoint (subnet override)`, steps);
  const chain = client.geoChain;
  for (const code of chain) {
    const e = cp.geo.get(code);
    if (e) {
      const level = LEVEL[GEO_REGIONS.get(code)?.depth ?? 0] ?? 'region';
      return answerMatch(cp, e, `client region ${client.geoChainText}: ${level} ${code} is mapped to this endpoint`, steps);
    }
  }
  steps.push(step(cp, 'nodata', `client region ${client.geoChainText}: no endpoint maps any of these codes: NODATA`));
  return { kind: 'nodata', steps };
}
