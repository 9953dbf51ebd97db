/**
 * Each routing method's index, built by its own module from a profile's compiled endpoints (what
 * compile-profile.ts puts into every compiled profile): properties over random endpoint lists, each
 * stated as the rule the method documents rather than as the index's own loop.
 */
import fc from 'fast-check';
import type { CompiledEndpoint } from '../../../src/core/routing';
import { geographicIndex } from '../../../src/core/routing/methods/geographic';
import { performanceIndex } from '../../../src/core/routing/methods/performance';
import { priorityIndex } from '../../../src/core/routing/methods/priority';
import { subnetIndex } from '../../../src/core/routing/methods/subnet';

const LOCATIONS = ['westeurope', 'eastus', 'japaneast', undefined];
const RANGE = { family: 4 as const, lo: 1n, hi: 2n };

const endpointsArb: fc.Arbitrary<CompiledEndpoint[]> = fc
  .array(
    fc.record({
      priority: fc.integer({ min: 1, max: 4 }),
      disabled: fc.boolean(),
      location: fc.constantFrom(...LOCATIONS),
      geo: fc.subarray(['DE', 'US', 'GEO-EU', 'WORLD']),
      written: fc.nat({ max: 2 }), // subnets as written in the document
      malformed: fc.nat({ max: 2 }), // how many of them did not parse
    }),
    { maxLength: 8 },
  )
  .map((specs) =>
    specs.map((s, index): CompiledEndpoint => {
      const parsed = Math.max(0, s.written - s.malformed);
      return {
        endpoint: {
          name: `e${index}`,
          type: 'externalEndpoints',
          target: `192.0.2.${index + 1}`,
          priority: s.priority,
          weight: 1,
          endpointStatus: s.disabled ? 'Disabled' : 'Enabled',
          subnets: Array.from({ length: s.written }, (_, k) => ({ first: `198.51.100.${k}` })),
        } as CompiledEndpoint['endpoint'],
        index,
        path: `p/e${index}`,
        status: s.disabled ? 'Disabled' : 'Online',
        statusReason: '',
        weight: 1,
        kind: 'A',
        data: `192.0.2.${index + 1}`,
        ...(s.location !== undefined ? { location: s.location } : {}),
        subnets: Array.from({ length: parsed }, () => RANGE),
        geoMapping: s.geo,
        usable: !s.disabled,
      };
    }),
  );

const enabledOf = (eps: readonly CompiledEndpoint[]) => eps.filter((e) => e.endpoint.endpointStatus !== 'Disabled');
const paths = (eps: readonly CompiledEndpoint[]) => eps.map((e) => e.path);

test('Priority: every endpoint once, by priority, ties in declaration order', () => {
  fc.assert(
    fc.property(endpointsArb, (eps) => {
      const { byPriority } = priorityIndex(eps);
      expect([...paths(byPriority)].sort()).toEqual([...paths(eps)].sort());
      for (let i = 1; i < byPriority.length; i++) {
        const a = byPriority[i - 1]!;
        const b = byPriority[i]!;
        expect(a.endpoint.priority < b.endpoint.priority || (a.endpoint.priority === b.endpoint.priority && a.index < b.index)).toBe(true);
      }
    }),
  );
});

test('Subnet: enabled endpoints with ranges, disabled ones with ranges, and the first enabled one written without subnets', () => {
  fc.assert(
    fc.property(endpointsArb, (eps) => {
      const idx = subnetIndex(eps, enabledOf(eps));
      expect(paths(idx.subnetEndpoints)).toEqual(
        paths(eps).filter((_, i) => eps[i]!.endpoint.endpointStatus !== 'Disabled' && eps[i]!.subnets.length > 0),
      );
      expect(paths(idx.disabledSubnetEndpoints)).toEqual(
        paths(eps).filter((_, i) => eps[i]!.endpoint.endpointStatus === 'Disabled' && eps[i]!.subnets.length > 0),
      );
      const candidates = eps.filter((e) => e.endpoint.endpointStatus !== 'Disabled' && (e.endpoint.subnets ?? []).length === 0);
      if (candidates.length === 0) expect('fallback' in idx).toBe(false);
      else expect(idx.fallback).toBe(candidates[0]);
    }),
  );
});

test('Geographic: each mapped code goes to the first enabled endpoint that maps it, and nothing else is mapped', () => {
  fc.assert(
    fc.property(endpointsArb, (eps) => {
      const { geo } = geographicIndex(enabledOf(eps));
      const codes = new Set(enabledOf(eps).flatMap((e) => e.geoMapping));
      expect([...geo.keys()].sort()).toEqual([...codes].sort());
      for (const code of codes) expect(geo.get(code)).toBe(enabledOf(eps).find((e) => e.geoMapping.includes(code)));
    }),
  );
});

test("Performance: enabled endpoints grouped by region ('' without one), groups by first appearance, declaration order inside", () => {
  fc.assert(
    fc.property(endpointsArb, (eps) => {
      const enabled = enabledOf(eps);
      const { regions } = performanceIndex(enabled);
      const firstSeen = [...new Set(enabled.map((e) => e.location ?? ''))];
      expect(regions.map((g) => g.region)).toEqual(firstSeen);
      for (const g of regions) expect(paths(g.endpoints)).toEqual(paths(enabled.filter((e) => (e.location ?? '') === g.region)));
    }),
  );
});
