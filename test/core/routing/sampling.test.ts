/**
 * answer() samples resolve(): with a seeded RNG the observed frequencies match the exact probabilities.
 */
import { answer, pickOutcome, resolve, type RoutingSnapshot } from '../../../src/core/routing';
import { ext, nested, profile, query, snapshot } from '../../../src/testing/builders';
import { seededRng, sequenceRng } from '../../../src/testing/rng';

const s = snapshot([
  profile('w', 'Weighted', [
    nested('n', 'child', { weight: 3 }),
    ext('a', '192.0.2.1', { weight: 1 }),
    ext('b', '192.0.2.2', { weight: 6 }),
  ]),
  profile('child', 'Weighted', [ext('x', '192.0.2.10', { weight: 1 }), ext('y', '192.0.2.11', { weight: 2 })]),
  profile(
    'mv',
    'MultiValue',
    ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5'].map((ip, i) => ext(`e${i}`, ip)),
    { maxReturn: 2 },
  ),
]);

function frequencies(snap: RoutingSnapshot, name: string, n: number, seed: number): Map<string, number> {
  const rng = seededRng(seed);
  const counts = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const k = answer(snap, query(name), rng).endpoints.join('+');
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

test.each([
  ['Weighted over nested Weighted', 'w', 1],
  ['MultiValue rotations', 'mv', 7],
])('answer() frequencies match resolve() probabilities within 5 sigma: %s', (_n, name, seed) => {
  const n = 40000;
  const counts = frequencies(s, name, n, seed);
  const r = resolve(s, query(name));
  expect(r.outcomes.length).toBeGreaterThan(2);
  let seen = 0;
  for (const o of r.outcomes) {
    const k = o.endpoints.join('+');
    const c = counts.get(k) ?? 0;
    seen += c;
    const sigma = Math.sqrt(n * o.probability * (1 - o.probability));
    expect(Math.abs(c - n * o.probability)).toBeLessThan(5 * sigma);
  }
  expect(seen).toBe(n); // nothing outside the resolution
});

test('pickOutcome maps u ∈ [0,1) onto cumulative probabilities', () => {
  const outs = [
    { probability: 0.25, id: 'a' },
    { probability: 0.5, id: 'b' },
    { probability: 0.25, id: 'c' },
  ];
  expect([0, 0.2499, 0.25, 0.7499, 0.75, 0.9999].map((u) => pickOutcome(outs, u)!.id)).toEqual(['a', 'a', 'b', 'b', 'c', 'c']);
});

test('answer() draws from the RNG only when there is a choice, and returns the chosen outcome trail', () => {
  const calls: number[] = [];
  const rng = () => {
    calls.push(1);
    return 0.99;
  };
  answer(snapshot([profile('p', 'Priority', [ext('a', '192.0.2.1')])]), query('p'), rng);
  expect(calls).toHaveLength(0);
  const a = answer(s, query('w'), sequenceRng([0.99]));
  expect(a.endpoints).toEqual(['w/b']);
  expect(a.explanation.at(-1)).toMatchObject({ profile: 'w', kind: 'select', endpoint: 'b' });
});
