import { pct, step, unavailable, type Option, type QueryClass, type Selection } from './common';
import type { CompiledEndpoint, CompiledProfile } from '../compiled';
import { count } from '../../words';

/**
 * MultiValue (behaviors.md §2, §5): the available IPv4/IPv6 endpoints whose record type matches the query
 * (A → A-type, AAAA → AAAA-type, ANY → both, anything else → NODATA), up to maxReturn. When more than
 * maxReturn match, tmkit answers one of n equally likely windows: the k = maxReturn endpoints starting at
 * position i (i = 0..n-1) of the declaration-ordered list, wrapping around. Every endpoint is answered in
 * exactly k of the n windows (equal share k/n) and the set rotates between queries.
 */
export function multiValue(cp: CompiledProfile, q: QueryClass): Selection {
  const steps: Selection['steps'] = [];
  if (q !== 'A' && q !== 'AAAA' && q !== 'ANY') {
    steps.push(step(cp, 'nodata', `MultiValue answers only A, AAAA and ANY; query type ${q}: NODATA`));
    return { kind: 'nodata', steps };
  }
  const list: CompiledEndpoint[] = [];
  for (const e of cp.endpoints) {
    if (e.kind !== 'A' && e.kind !== 'AAAA') {
      steps.push(step(cp, 'skip', `not an IPv4/IPv6 literal (${e.kind}): MultiValue ignores it`, e));
    } else if (!e.usable) {
      steps.push(step(cp, 'skip', unavailable(e), e));
    } else if (q !== 'ANY' && e.kind !== q) {
      steps.push(step(cp, 'skip', `${e.kind} endpoint does not match query type ${q}`, e));
    } else {
      list.push(e);
    }
  }
  if (list.length === 0) {
    steps.push(step(cp, 'nodata', `no available endpoint matches query type ${q}: NODATA`));
    return { kind: 'nodata', steps };
  }
  const k = Math.max(1, cp.profile.maxReturn ?? 2);
  const n = list.length;
  if (n <= k) {
    return {
      kind: 'pick',
      steps,
      options: [
        {
          endpoints: list,
          probability: 1,
          multi: true,
          step: step(cp, 'select', `${count(n, 'available endpoint')} ≤ maxReturn ${k}: all answered`),
        },
      ],
    };
  }
  const options: Option[] = [];
  for (let i = 0; i < n; i++) {
    const w: CompiledEndpoint[] = [];
    for (let j = 0; j < k; j++) w.push(list[(i + j) % n]!);
    options.push({
      endpoints: w,
      probability: 1 / n,
      multi: true,
      step: step(
        cp,
        'select',
        `${n} available > maxReturn ${k}: window ${i + 1} of ${n} (${w.map((e) => e.endpoint.name).join(', ')}): ${pct(1 / n)}`,
      ),
    });
  }
  return { kind: 'pick', steps, options };
}
