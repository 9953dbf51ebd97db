import fc from 'fast-check';
import { GEO_HIERARCHY, type GeoRegionNode } from '../../../src/core/data';
import { normalize } from '../../../src/core/model/normalize';
import { formatIp, parseIp, RULES, validate, validateProfile, type Diagnostic } from '../../../src/core/validate';
import { sweepOverlaps, type SubnetInterval } from '../../../src/core/validate/rules/subnets';
import { geoDoc, subnetDoc } from './helpers';

const RUNS = { numRuns: 300 };

// ---------------------------------------------------------------------------------------------------
// Never throws, whatever the input.

const wellFormed = (d: Diagnostic): boolean =>
  (d.severity === 'error' || d.severity === 'warning') &&
  d.code in RULES &&
  d.code !== 'INTERNAL_ERROR' &&
  typeof d.path === 'string' &&
  d.path.length > 0 &&
  typeof d.message === 'string' &&
  d.message.length > 0;

const PLAUSIBLE = fc.oneof(
  fc.constantFrom(
    'Priority',
    'Weighted',
    'Performance',
    'Geographic',
    'Subnet',
    'MultiValue',
    'externalEndpoints',
    'nestedEndpoints',
    'azureEndpoints',
    'Microsoft.Network/trafficManagerProfiles/NestedEndpoints',
    'WORLD',
    'US-CA',
    'GEO-EU',
    '10.0.0.0',
    '::1',
    '2001:db8::',
    'p0',
    'p1',
    'p2',
    '/subscriptions/x/resourceGroups/r/providers/Microsoft.Network/trafficManagerProfiles/p1',
    '%E0%A4%A',
    'westeurope',
    'global',
    'Enabled',
    'Disabled',
    'TCP',
    'HTTP',
    'Host',
    '*',
    '',
    'a.example.com',
    '192.0.2.1',
    'toString',
    '__proto__',
  ),
  fc.integer({ min: -3, max: 300 }),
  fc.jsonValue({ maxDepth: 2 }),
);
const KEYS = (keys: string[]): fc.Arbitrary<string> => fc.constantFrom(...keys, 'toString', '__proto__', 'constructor', 'extra');
const subnet = fc.dictionary(KEYS(['first', 'last', 'scope']), PLAUSIBLE, { maxKeys: 3 });
const header = fc.dictionary(KEYS(['name', 'value']), PLAUSIBLE, { maxKeys: 2 });
const endpoint = fc
  .dictionary(
    KEYS([
      'name',
      'type',
      'target',
      'targetResourceId',
      'endpointStatus',
      'weight',
      'priority',
      'endpointLocation',
      'minChildEndpoints',
      'minChildEndpointsIPv4',
      'minChildEndpointsIPv6',
      'alwaysServe',
    ]),
    PLAUSIBLE,
    { maxKeys: 8 },
  )
  .chain((e) =>
    fc
      .record(
        {
          geoMapping: fc.array(fc.oneof(fc.constantFrom('WORLD', 'GEO-EU', 'DE', 'US', 'US-CA', 'xx'), PLAUSIBLE), { maxLength: 4 }),
          subnets: fc.array(fc.oneof(subnet, PLAUSIBLE), { maxLength: 3 }),
          customHeaders: fc.array(fc.oneof(header, PLAUSIBLE), { maxLength: 3 }),
        },
        { requiredKeys: [] },
      )
      .map((x) => ({ ...e, ...x })),
  );
const profileArb = fc.record(
  {
    name: fc.oneof(fc.constantFrom('p0', 'p1', 'p2'), PLAUSIBLE),
    trafficRoutingMethod: PLAUSIBLE,
    dnsConfig: fc.oneof(fc.record({ relativeName: PLAUSIBLE, ttl: PLAUSIBLE }, { requiredKeys: [] }), PLAUSIBLE),
    monitorConfig: fc.oneof(
      fc.dictionary(KEYS(['protocol', 'port', 'path', 'intervalInSeconds', 'timeoutInSeconds', 'toleratedNumberOfFailures']), PLAUSIBLE),
      PLAUSIBLE,
    ),
    endpoints: fc.oneof(fc.array(fc.oneof(endpoint, PLAUSIBLE), { maxLength: 5 }), PLAUSIBLE),
    maxReturn: PLAUSIBLE,
    profileStatus: PLAUSIBLE,
    allowedEndpointRecordTypes: PLAUSIBLE,
    tags: PLAUSIBLE,
  },
  { requiredKeys: [] },
);
const documentArb = fc.record(
  {
    apiVersion: fc.oneof(fc.constant('tmkit/v1'), PLAUSIBLE),
    stack: PLAUSIBLE,
    profiles: fc.oneof(fc.array(fc.oneof(profileArb, PLAUSIBLE), { maxLength: 4 }), PLAUSIBLE),
  },
  { requiredKeys: [] },
);

describe('validate never throws', () => {
  test('on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (input, strictAzure) => {
        const d = validate(input, { strictAzure });
        return Array.isArray(d) && d.every(wellFormed);
      }),
      { numRuns: 500 },
    );
  });

  test('on arbitrary JS values (objects with odd prototypes, NaN, undefined)', () => {
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true, withBigInt: true }), (input) => {
        const d = validate(input);
        return d.every(wellFormed);
      }),
      RUNS,
    );
  });

  test('on document-shaped input with garbage in every field, with and without context', () => {
    fc.assert(
      fc.property(documentArb, fc.array(profileArb, { maxLength: 3 }), fc.boolean(), (input, ctx, strictAzure) => {
        const context = normalize({ apiVersion: 'tmkit/v1', profiles: ctx } as never).profiles;
        const d = validate(input, { strictAzure, context });
        const one = validateProfile((input as { profiles?: unknown[] }).profiles?.[0], { context });
        return d.every(wellFormed) && one.every(wellFormed);
      }),
      RUNS,
    );
  });
});

describe('validate leaves its input alone', () => {
  test('the document and the context are not modified', () => {
    fc.assert(
      fc.property(documentArb, fc.array(profileArb, { maxLength: 2 }), (input, ctx) => {
        const context = normalize({ apiVersion: 'tmkit/v1', profiles: ctx } as never).profiles;
        const before = JSON.stringify([input, context]);
        validate(input, { context });
        return JSON.stringify([input, context]) === before;
      }),
      RUNS,
    );
  });
  test('validateProfile never throws on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => validateProfile(input).every(wellFormed)),
      RUNS,
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// Subnet overlap against a brute-force interval model.

interface GenRange {
  family: 4 | 6;
  kind: 'single' | 'range' | 'cidr';
  lo: number;
  len: number;
  scope: number;
  endpoint: number;
}
const BASE = { 4: parseIp('10.0.0.0')!.value, 6: parseIp('2001:db8::')!.value };
const genRange: fc.Arbitrary<GenRange> = fc.record({
  family: fc.constantFrom(4 as const, 6 as const),
  kind: fc.constantFrom('single' as const, 'range' as const, 'cidr' as const),
  lo: fc.integer({ min: 0, max: 255 }),
  len: fc.integer({ min: 0, max: 40 }),
  scope: fc.integer({ min: 0, max: 8 }),
  endpoint: fc.integer({ min: 0, max: 2 }),
});

function toSubnet(g: GenRange): { subnet: Record<string, unknown>; iv: SubnetInterval } {
  const fam = g.family;
  const bits = fam === 4 ? 32 : 128;
  const txt = (v: bigint): string => formatIp({ family: fam, value: v });
  const lo = BASE[fam] + BigInt(g.lo);
  if (g.kind === 'single') return { subnet: { first: txt(lo) }, iv: { family: fam, lo, hi: lo } };
  if (g.kind === 'range')
    return { subnet: { first: txt(lo), last: txt(lo + BigInt(g.len)) }, iv: { family: fam, lo, hi: lo + BigInt(g.len) } };
  const size = 1n << BigInt(g.scope);
  const net = BASE[fam] + (BigInt(g.lo) / size) * size;
  return { subnet: { first: txt(net), scope: bits - g.scope }, iv: { family: fam, lo: net, hi: net + size - 1n } };
}

const overlaps = (a: SubnetInterval, b: SubnetInterval): boolean => a.family === b.family && a.lo <= b.hi && b.lo <= a.hi;

describe('subnet overlap', () => {
  test('the sweep finds exactly the intervals that overlap another, and only real overlaps', () => {
    fc.assert(
      fc.property(fc.array(genRange, { maxLength: 25 }), (gens) => {
        const ivs = gens.map((g) => toSubnet(g).iv);
        const pairs = sweepOverlaps(ivs);
        const brute = new Set(ivs.flatMap((a, i) => (ivs.some((b, j) => i !== j && overlaps(a, b)) ? [i] : [])));
        const covered = new Set(pairs.flat());
        return (
          pairs.every(([i, j]) => i !== j && overlaps(ivs[i]!, ivs[j]!)) &&
          covered.size === brute.size &&
          [...brute].every((i) => covered.has(i))
        );
      }),
      { numRuns: 1000 },
    );
  });

  test('validate reports SUBNET_OVERLAP only on overlapping ranges, and some iff any overlap', () => {
    fc.assert(
      fc.property(fc.array(genRange, { maxLength: 12 }), (gens) => {
        const perEndpoint: Array<Array<Record<string, unknown>>> = [[], [], []];
        const byPath = new Map<string, SubnetInterval>();
        const all: SubnetInterval[] = [];
        for (const g of gens) {
          const { subnet, iv } = toSubnet(g);
          byPath.set(`profiles[p].endpoints[e${g.endpoint}].subnets[${perEndpoint[g.endpoint]!.length}]`, iv);
          perEndpoint[g.endpoint]!.push(subnet);
          all.push(iv);
        }
        // Endpoints left without ranges would be fallbacks; give them a far-away range so only one fallback exists.
        const lists = perEndpoint.map((l, i) => (l.length > 0 ? l : [{ first: `11.0.0.${i}` }]));
        const d = validate(subnetDoc([...lists, []]));
        const reported = d.filter((x) => x.code === 'SUBNET_OVERLAP').map((x) => byPath.get(x.path)!);
        const anyOverlap = all.some((a, i) => all.some((b, j) => i < j && overlaps(a, b)));
        const others = d.filter((x) => x.code !== 'SUBNET_OVERLAP');
        return (
          others.length === 0 &&
          reported.every((iv) => iv !== undefined && all.filter((b) => overlaps(iv, b)).length >= 2) &&
          reported.length > 0 === anyOverlap
        );
      }),
      RUNS,
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// Geographic conflicts against a model built from the hierarchy tree itself.

const parent = new Map<string, string>();
(function walk(n: GeoRegionNode): void {
  for (const c of n.regions) {
    parent.set(c.code, n.code);
    walk(c);
  }
})(GEO_HIERARCHY);
const isAncestor = (a: string, c: string): boolean => {
  for (let p = parent.get(c); p !== undefined; p = parent.get(p)) if (p === a) return true;
  return false;
};

const POOL = ['WORLD', 'GEO-EU', 'GEO-NA', 'GEO-AS', 'DE', 'FR', 'US', 'US-CA', 'US-NY', 'CA', 'CA-ON', 'JP', 'AU', 'AU-NSW'];

describe('geographic hierarchy conflicts', () => {
  test('only the same code on two endpoints is an error; repeats and ancestor+descendant on one endpoint are warnings', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom(...POOL), { maxLength: 5 }), { minLength: 1, maxLength: 4 }), (mappings) => {
        const expected: string[] = [];
        const owner = new Map<string, number>();
        mappings.forEach((codes, e) => {
          const path = `profiles[p].endpoints[e${e}].geoMapping`;
          if (codes.length === 0) expected.push(`GEO_MAPPING_REQUIRED ${path}`);
          const seen = new Set<string>();
          codes.forEach((c, i) => {
            if (seen.has(c)) {
              expected.push(`GEO_CODE_REPEATED ${path}[${i}]`);
              return;
            }
            seen.add(c);
            if (owner.has(c)) expected.push(`GEO_CODE_DUPLICATE ${path}[${i}]`);
            else owner.set(c, e);
          });
          codes.forEach((c, i) => {
            if (codes.indexOf(c) === i && codes.some((a) => isAncestor(a, c))) expected.push(`GEO_CODE_REDUNDANT ${path}[${i}]`);
          });
        });
        if (!owner.has('WORLD')) expected.push('GEO_WORLD_MISSING profiles[p].endpoints');
        const actual = validate(geoDoc(mappings)).map((d) => `${d.code} ${d.path}`);
        expect(actual.sort()).toEqual(expected.sort());
        // Severity decisions: only cross-endpoint duplicates (and unmapped endpoints) are errors.
        for (const d of validate(geoDoc(mappings))) {
          expect(d.severity).toBe(d.code === 'GEO_CODE_DUPLICATE' || d.code === 'GEO_MAPPING_REQUIRED' ? 'error' : 'warning');
        }
      }),
      RUNS,
    );
  });

  test('a country on one endpoint and its continent on another is valid (most specific wins)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...[...parent.keys()]), (code) => {
        const chain: string[] = [code];
        for (let p = parent.get(code); p !== undefined; p = parent.get(p)) chain.push(p);
        // every level of the chain on its own endpoint
        return validate(geoDoc(chain.map((c) => [c]))).length === 0;
      }),
      RUNS,
    );
  });
});
