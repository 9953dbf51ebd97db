/**
 * canonicalJson (core/store/conditions.ts) writes exactly what JSON.stringify with sorted keys writes; and the
 * store's content hash (normalized JSON text) is the same for equal profiles whatever their input's key order.
 */
import fc from 'fast-check';
import { normalizeProfile } from '../../../src/core/model/normalize';
import { canonicalJson, contentHash } from '../../../src/core/store/conditions';

/** The reference: JSON.stringify with a replacer that sorts every object's keys (what tmkit hashed before). */
const reference = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(o)
          .sort()
          .map((k) => [k, o[k]]),
      );
    }
    return v;
  });

test('the same text as the sorted-keys JSON.stringify, for any JSON value (ETags of stored profiles do not change)', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      expect(canonicalJson(v)).toBe(reference(v));
    }),
    { numRuns: 2000 },
  );
});

test('undefined members, non-finite numbers, toJSON and odd keys as JSON treats them', () => {
  const v = { b: undefined, a: [undefined, NaN, Infinity, -0], 'x"y': new Date(0), ü: { f: () => 1 }, '': 1 };
  expect(canonicalJson(v)).toBe(reference(v));
});

/** The same JSON value with every object's keys in another (random) order. */
const shuffled = (v: unknown, rnd: () => number): unknown => {
  if (Array.isArray(v)) return v.map((x) => shuffled(x, rnd));
  if (typeof v !== 'object' || v === null) return v;
  const keys = Object.keys(v).sort(() => rnd() - 0.5);
  return Object.fromEntries(keys.map((k) => [k, shuffled((v as Record<string, unknown>)[k], rnd)]));
};

test('equal profiles hash equally whatever the key order of their input (the store hashes normalized JSON text)', () => {
  const input = {
    name: 'p',
    trafficRoutingMethod: 'Subnet',
    tags: { z: '1', a: '2' },
    dnsConfig: { ttl: 60, relativeName: 'p' },
    monitorConfig: {
      path: '/h',
      protocol: 'HTTPS',
      customHeaders: [{ value: 'v', name: 'host' }],
      expectedStatusCodeRanges: [{ max: 299, min: 200 }],
    },
    endpoints: [
      {
        target: '192.0.2.1',
        type: 'externalEndpoints',
        name: 'a',
        subnets: [{ scope: 24, first: '10.0.0.0' }],
        customHeaders: [{ value: '1', name: 'x' }],
        geoMapping: ['DE'],
      },
      { name: 'b', type: 'externalEndpoints', target: '192.0.2.2', subnets: [{ last: '10.1.0.9', first: '10.1.0.0' }] },
    ],
  };
  fc.assert(
    fc.property(fc.integer(), (seed) => {
      let s = seed;
      const rnd = (): number => {
        s = (s * 1103515245 + 12345) & 0x7fffffff;
        return s / 0x7fffffff;
      };
      const other = shuffled(input, rnd) as typeof input;
      expect(JSON.stringify(normalizeProfile(other as never))).toBe(JSON.stringify(normalizeProfile(input as never)));
      expect(contentHash(normalizeProfile(other as never), 's')).toBe(contentHash(normalizeProfile(input as never), 's'));
    }),
    { numRuns: 200 },
  );
});
