/**
 * Validation against a large deployed context (the management API validates every write against all
 * stored profiles): the work is proportional to the profile and what it references, so deployed profiles
 * it cannot reach must never change a diagnostic — whatever they contain (cycles among themselves, deep
 * chains, names of the same length). Plus the relativeName uniqueness check across a context whose names
 * differ only in case, including the one character whose lower case is longer (U+0130).
 */
import fc from 'fast-check';
import { normalizeProfile } from '../../../src/core/model/normalize';
import type { Profile, ProfileInput } from '../../../src/core/model/types';
import { validate, validateProfile } from '../../../src/core/validate';
import { ext, nested, profile } from './helpers';

const N = 8;
const NAMES = Array.from({ length: N + 1 }, (_, i) => `p${i}`); // p<N> is never deployed
const PROFILE_ID = (n: string): string => `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/${n}`;

interface Spec {
  method: 'Priority' | 'MultiValue' | 'Weighted';
  rn: number;
  upper: boolean;
  eps: { child: number; nested: boolean; v6: boolean; min?: number; min4?: number; byId: boolean }[];
}
const specArb: fc.Arbitrary<Spec> = fc.record({
  method: fc.constantFrom('Priority' as const, 'MultiValue' as const, 'Weighted' as const),
  rn: fc.nat({ max: N + 1 }),
  upper: fc.boolean(),
  eps: fc.array(
    fc.record(
      {
        child: fc.nat({ max: N }),
        nested: fc.boolean(),
        v6: fc.boolean(),
        byId: fc.boolean(),
        min: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
        min4: fc.option(fc.nat({ max: 2 }), { nil: undefined }),
      },
      { requiredKeys: ['child', 'nested', 'v6', 'byId'] },
    ),
    { maxLength: 3 },
  ),
});

function raw(name: string, s: Spec): Record<string, unknown> {
  return profile(
    name,
    s.method,
    s.eps.map((e, j) =>
      e.nested && s.method !== 'MultiValue'
        ? nested(`e${j}`, e.byId ? PROFILE_ID(NAMES[e.child]!) : NAMES[e.child]!.toUpperCase(), {
            ...(e.min !== undefined ? { minChildEndpoints: e.min } : {}),
            ...(e.min4 !== undefined ? { minChildEndpointsIPv4: e.min4 } : {}),
          })
        : ext(`e${j}`, e.v6 ? '2001:db8::1' : '192.0.2.1'),
    ),
    { dnsConfig: { relativeName: `${s.upper ? 'R' : 'r'}${s.rn}`, ttl: 30 } },
  );
}
const norm = (r: Record<string, unknown>): Profile => normalizeProfile(r as unknown as ProfileInput);

/** Deployed profiles nothing in the test reaches: a cycle, a chain deeper than 10, names of every length. */
const NOISE: Profile[] = [
  ...Array.from({ length: 12 }, (_, i) =>
    norm(
      profile(`z${i}`, 'Priority', [ext('a', '198.51.100.1'), ...(i < 11 ? [nested('n', `z${i + 1}`)] : [])], {
        dnsConfig: { relativeName: `z${i}` },
      }),
    ),
  ),
  ...Array.from({ length: 3 }, (_, i) =>
    norm(
      profile(`y${i}`, 'Priority', [ext('a', '198.51.100.3'), nested('n', `y${(i + 1) % 3}`)], { dnsConfig: { relativeName: `y${i}` } }),
    ),
  ),
  ...Array.from({ length: 40 }, (_, i) =>
    norm(profile(`q${i}`, 'Priority', [ext('a', '198.51.100.2')], { dnsConfig: { relativeName: `x${'y'.repeat(i % 9)}` } })),
  ),
];

test('deployed profiles the written profile cannot reach never change its diagnostics', () => {
  fc.assert(
    fc.property(fc.array(specArb, { minLength: 1, maxLength: N }), specArb, fc.nat({ max: N }), (ctxSpecs, docSpec, docIdx) => {
      const context = ctxSpecs.map((s, i) => norm(raw(NAMES[i]!, s)));
      const input = raw(NAMES[docIdx]!, docSpec);
      const expected = validateProfile(input, { context });
      expect(validateProfile(input, { context: [...NOISE.slice(0, 20), ...context, ...NOISE.slice(20)] })).toEqual(expected);
      const doc = { apiVersion: 'tmkit/v1', profiles: [input, raw('doc2', ctxSpecs[0]!)] };
      expect(validate(doc, { context: [...context, ...NOISE] })).toEqual(validate(doc, { context }));
    }),
    { numRuns: 500 },
  );
});

test('a cycle and a too-deep chain through deployed profiles are found from the written profile', () => {
  const codes = (input: Record<string, unknown>): string[] => validateProfile(input, { context: NOISE }).map((d) => d.code);
  expect(codes(profile('w', 'Priority', [nested('n', 'z0')]))).toEqual(['NESTING_DEPTH']);
  expect(codes(profile('z3', 'Priority', [ext('a', '192.0.2.1'), nested('n', 'z4')]))).toEqual([]);
  expect(codes(profile('y0', 'Priority', [ext('a', '192.0.2.1'), nested('n', 'y1')]))).toEqual(['NESTING_CYCLE']);
  expect(codes(profile('w', 'Priority', [nested('n', 'y2')]))).toEqual([]);
  expect(codes(profile('w', 'Priority', [nested('n', 'q1')]))).toEqual([]);
});

test.each([
  ['the same name', 'app', 'app', true],
  ['another case', 'APP', 'app', true],
  ['a trailing dot on the deployed name', 'app.', 'app', true],
  ['a longer name', 'apps', 'app', false],
  ['U+0130 (its lower case is two code units)', '\u0130x', 'i\u0307x', true],
])('relativeName uniqueness against a deployed profile: %s', (_label, deployed, written, duplicate) => {
  const context = [...NOISE, norm(profile('deployed', 'Priority', [ext('a', '192.0.2.1')], { dnsConfig: { relativeName: deployed } }))];
  const d = validateProfile(profile('w', 'Priority', [ext('a', '192.0.2.2')], { dnsConfig: { relativeName: written } }), { context });
  expect(d.some((x) => x.code === 'RELATIVE_NAME_DUPLICATE' && x.message.includes('deployed profile "deployed"'))).toBe(duplicate);
});
