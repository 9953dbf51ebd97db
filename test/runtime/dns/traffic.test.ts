import fc from 'fast-check';
import type { ClientGeo, GeoLookup } from '../../../src/core/ports';
import { TRAFFIC_BUCKET_MS, TRAFFIC_EXACT, TrafficStore, TrafficTallies, TrafficTally } from '../../../src/runtime/dns/traffic';

/** A geo lookup by address prefix: `10.<n>.x.x` is country number n. */
const COUNTRIES = ['DE', 'FR', 'US', 'JP'];
const geo: GeoLookup = {
  locate: (a: string): ClientGeo | undefined => {
    const n = Number(a.split('.')[1]);
    return COUNTRIES[n] ? { country: COUNTRIES[n] } : undefined;
  },
  latencyMs: () => undefined,
};

/** Answers `queries` as the responder does: increment, then record the client when weightOf says so. */
function answer(t: TrafficTally, clients: readonly string[]): void {
  for (const c of clients) {
    const w = TrafficTally.weightOf(++t.n);
    if (w > 0) t.add(c, w);
  }
}

test('below the exact threshold every query is counted with its own country; totals per endpoint are exact', () => {
  const tallies = new TrafficTallies();
  const t = tallies.tally('web', ['web/eu', 'web/us']);
  answer(t, ['10.0.0.1', '10.0.0.2', '10.2.0.1', '172.99.0.1']);
  const rows = tallies.drain(geo).sort();
  expect(rows).toEqual(
    [
      ['web', 'web/eu', 'DE', 2],
      ['web', 'web/eu', 'US', 1],
      ['web', 'web/eu', 'ZZ', 1],
      ['web', 'web/us', 'DE', 2],
      ['web', 'web/us', 'US', 1],
      ['web', 'web/us', 'ZZ', 1],
    ].sort(),
  );
  expect(tallies.drain(geo)).toEqual([]); // drained: counted once
});

test('a NODATA answer counts under endpoint ""', () => {
  const tallies = new TrafficTallies();
  answer(tallies.tally('geo', []), ['10.1.0.1']);
  expect(tallies.drain(geo)).toEqual([['geo', '', 'FR', 1]]);
});

test('property: above the threshold the total stays exact and the country split is an unbiased weighted sample', () => {
  fc.assert(
    fc.property(
      fc
        .array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 4 })
        .chain((mix) => fc.tuple(fc.constant(mix), fc.integer({ min: TRAFFIC_EXACT, max: 40_000 }))),
      fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      ([mix, n], seed) => {
        // A stream of n queries from the countries in `mix`, shuffled deterministically by `seed`.
        let x = seed || 1;
        const next = (): number => {
          x ^= x << 13;
          x ^= x >>> 17;
          x ^= x << 5;
          return (x >>> 0) / 2 ** 32;
        };
        const clients = Array.from({ length: n }, () => `10.${mix[Math.floor(next() * mix.length)]!}.${Math.floor(next() * 250)}.1`);
        const truth = new Map<string, number>();
        for (const c of clients) {
          const k = COUNTRIES[Number(c.split('.')[1])]!;
          truth.set(k, (truth.get(k) ?? 0) + 1);
        }
        const tallies = new TrafficTallies();
        answer(tallies.tally('p', ['p/e']), clients);
        const rows = tallies.drain(geo);
        const got = new Map(rows.map((r) => [r[2], r[3]]));
        expect([...got.values()].reduce((a, b) => a + b, 0)).toBe(n);
        for (const [country, count] of truth) {
          // Binomial-ish error of the sampled part: well inside 6 standard deviations plus one stride.
          const sampled = n - TRAFFIC_EXACT;
          const p = count / n;
          const bound = 6 * Math.sqrt(sampled * 16 * p * (1 - p) + 1) + 32;
          expect(Math.abs((got.get(country) ?? 0) - count)).toBeLessThanOrEqual(bound);
        }
      },
    ),
    { numRuns: 60 },
  );
});

test('the store keeps one-minute buckets per profile, newest bucket reported live, 24 h at most', () => {
  const store = new TrafficStore();
  const t0 = Date.parse('2026-12-02T10:00:30Z');
  expect(
    [
      ...store.add(t0, [
        ['web', 'web/eu', 'DE', 3],
        ['api', 'api/x', 'US', 1],
      ]),
    ].sort(),
  ).toEqual(['api', 'web']);
  store.add(t0 + 10_000, [['web', 'web/eu', 'DE', 2]]);
  store.add(t0 + TRAFFIC_BUCKET_MS, [['web', 'web/us', 'US', 5]]);
  expect(store.series('web')).toEqual([
    { start: '2026-12-02T10:00:00.000Z', counts: [{ country: 'DE', endpoint: 'web/eu', queries: 5 }] },
    { start: '2026-12-02T10:01:00.000Z', counts: [{ country: 'US', endpoint: 'web/us', queries: 5 }] },
  ]);
  expect(store.series('web', Date.parse('2026-12-02T10:01:00Z')).map((b) => b.start)).toEqual(['2026-12-02T10:01:00.000Z']);
  expect(store.current('web', t0 + TRAFFIC_BUCKET_MS)?.counts).toEqual([{ country: 'US', endpoint: 'web/us', queries: 5 }]);
  store.add(t0 + 25 * 3600_000, [['web', 'web/us', 'US', 1]]);
  expect(store.series('web').map((b) => b.start)).toEqual(['2026-12-03T11:00:00.000Z']);
  store.forget('web');
  expect(store.series('web')).toEqual([]);
  expect(store.series('api')).toEqual([]); // gone with the 24 h window
});
