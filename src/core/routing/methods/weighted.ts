import { isDown } from '../../health/status';
import { pct, step, unavailable, type Option, type Selection } from './common';
import type { CompiledProfile } from '../compiled';

/** Weighted (behaviors.md §5): each available endpoint with probability weight / Σ weights of available ones. */
export function weighted(cp: CompiledProfile): Selection {
  const steps: Selection['steps'] = [];
  let total = 0;
  for (const e of cp.endpoints) {
    if (e.usable) total += Math.max(0, e.weight);
    else steps.push(step(cp, 'skip', unavailable(e), e));
  }
  const options: Option[] = [];
  const usable = cp.endpoints.filter((e) => e.usable);
  for (const e of usable) {
    const p = total > 0 ? Math.max(0, e.weight) / total : 1 / usable.length;
    if (p === 0) continue;
    options.push({
      endpoints: [e],
      probability: p,
      step: step(
        cp,
        'select',
        `weight ${e.weight}${e.override?.weight !== undefined ? ` (override; configured ${e.endpoint.weight})` : ''} ` +
          `of ${total} among available endpoints: ${pct(p)}${isDown(e.status) ? ' (all-degraded fallback)' : ''}`,
        e,
      ),
    });
  }
  if (options.length === 0) {
    steps.push(step(cp, 'nodata', 'no endpoint is available: NODATA'));
    return { kind: 'nodata', steps };
  }
  return { kind: 'pick', options, steps };
}
