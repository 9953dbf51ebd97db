import fc from 'fast-check';
import type { TrafficBucket, TrafficReport } from '../../ui/src/api/types';
import { mergeBucket, summarizeTraffic, volumeIntensity } from '../../ui/src/lib/traffic';

const T0 = Date.parse('2026-06-01T12:00:00Z');
const iso = (minute: number) => new Date(T0 + minute * 60_000).toISOString();

const count = fc.record({
  country: fc.constantFrom('DE', 'US', 'FR', 'ZZ', 'de'),
  endpoint: fc.constantFrom('a/x', 'b/y', ''),
  queries: fc.integer({ min: 0, max: 50 }),
});
const bucket = fc.record({ start: fc.integer({ min: 0, max: 20 }).map(iso), counts: fc.array(count, { maxLength: 6 }) });

describe('summarizeTraffic', () => {
  test('adds up per country, per endpoint and per bucket; rows most queries first', () => {
    const s = summarizeTraffic([
      {
        start: iso(1),
        counts: [
          { country: 'US', endpoint: 'app/us', queries: 3 },
          { country: 'DE', endpoint: 'web/a', queries: 1 },
        ],
      },
      {
        start: iso(0),
        counts: [
          { country: 'DE', endpoint: 'web/a', queries: 4 },
          { country: 'DE', endpoint: '', queries: 2 },
        ],
      },
    ]);
    expect(s.total).toBe(10);
    expect(s.series).toEqual([
      { start: iso(0), total: 6 },
      { start: iso(1), total: 4 },
    ]);
    expect(s.rows).toEqual([
      { country: 'DE', endpoint: 'web/a', queries: 5, share: 5 / 7 },
      { country: 'US', endpoint: 'app/us', queries: 3, share: 1 },
      { country: 'DE', endpoint: '', queries: 2, share: 2 / 7 },
    ]);
    expect(s.countries.get('DE')!.top).toBe('web/a');
    expect(s.maxCountry).toBe(7);
    expect([...s.endpoints]).toEqual([
      ['web/a', 5],
      ['', 2],
      ['app/us', 3],
    ]);
  });

  test('property: every view adds up to the same total; the top endpoint of a country has the most queries; shares sum to 1', () => {
    fc.assert(
      fc.property(fc.array(bucket, { maxLength: 8 }), (buckets) => {
        const s = summarizeTraffic(buckets);
        const raw = buckets.flatMap((b) => b.counts).reduce((n, c) => n + c.queries, 0);
        expect(s.total).toBe(raw);
        expect(s.rows.reduce((n, r) => n + r.queries, 0)).toBe(raw);
        expect(s.series.reduce((n, r) => n + r.total, 0)).toBe(raw);
        expect([...s.endpoints.values()].reduce((n, q) => n + q, 0)).toBe(raw);
        for (const c of s.countries.values()) {
          expect(c.country).toBe(c.country.toUpperCase());
          expect(Math.max(...c.byEndpoint.values())).toBe(c.byEndpoint.get(c.top));
          const shares = s.rows.filter((r) => r.country === c.country).reduce((n, r) => n + r.share, 0);
          expect(shares).toBeCloseTo(1, 9);
        }
        for (let i = 1; i < s.rows.length; i++) expect(s.rows[i - 1]!.queries).toBeGreaterThanOrEqual(s.rows[i]!.queries);
      }),
    );
  });
});

describe('mergeBucket (a live traffic event)', () => {
  const empty = (): TrafficReport => ({
    profile: 'p',
    trafficViewEnrollmentStatus: 'Enabled',
    bucketSeconds: 60,
    from: iso(0),
    to: iso(0),
    buckets: [],
  });

  test('a bucket with the same start replaces the old one; a new one is added in order; old ones leave the window', () => {
    let r = empty();
    r = mergeBucket(r, { start: iso(2), counts: [{ country: 'DE', endpoint: 'a', queries: 1 }] });
    r = mergeBucket(r, { start: iso(1), counts: [{ country: 'DE', endpoint: 'a', queries: 5 }] });
    r = mergeBucket(r, { start: iso(2), counts: [{ country: 'DE', endpoint: 'a', queries: 3 }] });
    expect(r.buckets.map((b) => [b.start, b.counts[0]!.queries])).toEqual([
      [iso(1), 5],
      [iso(2), 3],
    ]);
    expect(r.to).toBe(iso(3));
    r = mergeBucket(r, { start: iso(10), counts: [] }, T0 + 5 * 60_000);
    expect(r.buckets.map((b) => b.start)).toEqual([iso(10)]);
  });

  test('property: folding buckets one by one equals summarizing the last version of each', () => {
    fc.assert(
      fc.property(fc.array(bucket, { maxLength: 10 }), (buckets) => {
        let r = empty();
        for (const b of buckets) r = mergeBucket(r, b);
        const last = new Map<string, TrafficBucket>();
        for (const b of buckets) last.set(b.start, b);
        expect(summarizeTraffic(r.buckets).rows).toEqual(summarizeTraffic([...last.values()]).rows);
        for (let i = 1; i < r.buckets.length; i++)
          expect(Date.parse(r.buckets[i - 1]!.start)).toBeLessThan(Date.parse(r.buckets[i]!.start));
      }),
    );
  });
});

test('volumeIntensity: 0 for no queries, else in [0.3, 1], 1 at the maximum, never decreasing', () => {
  expect(volumeIntensity(0, 10)).toBe(0);
  expect(volumeIntensity(10, 10)).toBe(1);
  expect(volumeIntensity(1, 1)).toBe(1);
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 1, max: 1e6 }), (a, b, m) => {
      const max = Math.max(a, b, m);
      const [lo, hi] = a <= b ? [a, b] : [b, a];
      expect(volumeIntensity(lo, max)).toBeGreaterThanOrEqual(0.3);
      expect(volumeIntensity(hi, max)).toBeLessThanOrEqual(1);
      expect(volumeIntensity(lo, max)).toBeLessThanOrEqual(volumeIntensity(hi, max));
    }),
  );
});
