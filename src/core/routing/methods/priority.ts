import { isDown } from '../../health/status';
import { step, unavailable, single, type Selection } from './common';
import type { CompiledEndpoint, CompiledProfile, PriorityIndex } from '../compiled';

export function priorityIndex(endpoints: readonly CompiledEndpoint[]): PriorityIndex {
  return { byPriority: endpoints.slice().sort((a, b) => a.endpoint.priority - b.endpoint.priority || a.index - b.index) };
}

/** Priority (behaviors.md §5): the first endpoint in priority order that is available. */
export function priority(cp: CompiledProfile): Selection {
  const steps: Selection['steps'] = [];
  for (const e of cp.byPriority) {
    if (e.usable) {
      const why = isDown(e.status) ? `${e.status}, answered by the all-degraded fallback` : e.status;
      return single(e, step(cp, 'select', `priority ${e.endpoint.priority}: first available in priority order (${why})`, e), steps);
    }
    steps.push(step(cp, 'skip', `priority ${e.endpoint.priority}: ${unavailable(e)}`, e));
  }
  steps.push(step(cp, 'nodata', 'no endpoint is available: NODATA'));
  return { kind: 'nodata', steps };
}
