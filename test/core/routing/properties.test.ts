/**
 * Invariants of resolve()/answer() over random profile forests (fast-check): probabilities form a
 * distribution, records carry the queried profile's name and TTL, record types fit the query type, nothing
 * Disabled/Stopped is ever answered, answer() always returns one of resolve()'s outcomes, and resolve() is
 * deterministic.
 */
import fc from 'fast-check';
import type { ProbeVerdict } from '../../../src/core/health/types';
import type { EndpointInput, Profile, TrafficRoutingMethod } from '../../../src/core/model/types';
import { answer, profileMonitorStatuses, resolve } from '../../../src/core/routing';
import { ext, nested, profile, query, snapshot } from '../../../src/testing/builders';
import { CLIENT, geo } from './fixtures';

const METHODS: TrafficRoutingMethod[] = ['Priority', 'Weighted', 'Performance', 'Geographic', 'MultiValue', 'Subnet'];
const REGIONS = ['westeurope', 'northeurope', 'westus', 'eastus', 'japaneast'];
const CODES = ['WORLD', 'GEO-EU', 'GEO-NA', 'GEO-AS', 'DE', 'FR', 'IE', 'US', 'US-CA', 'JP'];
const SUBNETS = [
  { first: '198.51.100.0', scope: 24 },
  { first: '203.0.113.0', last: '203.0.113.50' },
  { first: '192.0.2.10' },
  { first: '2001:db8:1::', scope: 48 },
  { first: '100.64.0.0', scope: 10 },
];
const TARGETS = ['192.0.2.1', '198.51.100.2', '2001:db8::1', '2001:db8::2', 'a.example.net', 'b.example.net'];

interface EpSpec {
  target: number;
  child: number;
  weight: number;
  region: number;
  disabled: boolean;
  alwaysServe: boolean;
  verdict: number;
  subnets: number[];
}
interface ProfileSpec {
  method: number;
  disabled: boolean;
  ttl: number;
  maxReturn: number;
  endpoints: EpSpec[];
}

const epArb = fc.record({
  target: fc.nat({ max: TARGETS.length - 1 }),
  child: fc.integer({ min: -1, max: 3 }), // ≥ 0: nested into a later profile when one exists
  weight: fc.integer({ min: 1, max: 1000 }),
  region: fc.nat({ max: REGIONS.length - 1 }),
  disabled: fc.boolean(),
  alwaysServe: fc.boolean(),
  verdict: fc.nat({ max: 3 }),
  subnets: fc.uniqueArray(fc.nat({ max: SUBNETS.length - 1 }), { maxLength: 2 }),
});
const profileArb = fc.record({
  method: fc.nat({ max: METHODS.length - 1 }),
  disabled: fc.boolean(),
  ttl: fc.integer({ min: 0, max: 3600 }),
  maxReturn: fc.integer({ min: 1, max: 8 }),
  endpoints: fc.array(epArb, { minLength: 1, maxLength: 5 }),
});

const VERDICTS: (ProbeVerdict | undefined)[] = ['Online', 'Degraded', 'CheckingEndpoint', undefined];

function build(specs: ProfileSpec[]): { profiles: Profile[]; health: Record<string, ProbeVerdict> } {
  const health: Record<string, ProbeVerdict> = {};
  const usedSubnets = new Set<number>();
  const profiles = specs.map((p, i) => {
    const method = METHODS[p.method]!;
    const usedCodes = new Set<string>();
    const endpoints: EndpointInput[] = p.endpoints.map((e, j) => {
      const name = `e${j}`;
      const extra: Partial<EndpointInput> = {
        weight: e.weight,
        endpointLocation: REGIONS[e.region]!,
        endpointStatus: e.disabled && (e.verdict & 1) === 1 ? 'Disabled' : 'Enabled',
      };
      // Geographic: each code on at most one endpoint; subnets never overlap within a profile (validation rules).
      const codes = CODES.filter((c, k) => (e.weight + k) % 4 === 0 && !usedCodes.has(c));
      for (const c of codes) usedCodes.add(c);
      if (method === 'Geographic') extra.geoMapping = codes;
      const subnets = e.subnets.filter((k) => !usedSubnets.has(k));
      for (const k of subnets) usedSubnets.add(k);
      if (method === 'Subnet' || method === 'Performance' || method === 'Geographic') extra.subnets = subnets.map((k) => SUBNETS[k]!);
      const childIndex = i + 1 + e.child;
      if (method !== 'MultiValue' && e.child >= 0 && childIndex < specs.length) return nested(name, `p${childIndex}`, extra);
      const target = method === 'MultiValue' ? TARGETS[e.target % 4]! : TARGETS[e.target]!;
      const v = VERDICTS[e.verdict];
      if (v) health[`p${i}/${name}`] = v;
      return ext(name, target, { ...extra, alwaysServe: e.alwaysServe && e.verdict === 1 ? 'Enabled' : 'Disabled' });
    });
    return profile(`p${i}`, method, endpoints, {
      profileStatus: p.disabled && p.ttl % 3 === 0 ? 'Disabled' : 'Enabled',
      dnsConfig: { relativeName: `p${i}`, ttl: p.ttl },
      ...(method === 'MultiValue' ? { maxReturn: p.maxReturn } : {}),
    });
  });
  return { profiles, health };
}

const caseArb = fc.record({
  specs: fc.array(profileArb, { minLength: 1, maxLength: 6 }),
  client: fc.constantFrom(...Object.values(CLIENT)),
  qtype: fc.constantFrom('A', 'AAAA', 'CNAME', 'ANY', 'MX'),
  u: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
});

test('resolve()/answer() invariants over random profile forests', () => {
  fc.assert(
    fc.property(caseArb, ({ specs, client, qtype, u }) => {
      const { profiles, health } = build(specs);
      const s = snapshot(profiles, { geo: geo(), health });
      const statuses = new Map<string, string>();
      for (const p of profiles)
        for (const e of profileMonitorStatuses(s, p.name)!.endpoints) statuses.set(`${p.name}/${e.name}`, e.endpointMonitorStatus);
      const top = profiles[0]!;
      const r = resolve(s, query(top.name, qtype, client));

      expect(['NOERROR', 'NXDOMAIN']).toContain(r.rcode);
      expect(r.outcomes.length).toBeGreaterThan(0);
      expect(r.outcomes.reduce((a, o) => a + o.probability, 0)).toBeCloseTo(1, 9);
      for (const o of r.outcomes) {
        expect(o.probability).toBeGreaterThan(0);
        if (r.rcode === 'NXDOMAIN') expect(o.records).toEqual([]);
        for (const rec of o.records) {
          expect(rec.name).toBe(`${top.name}.tm.test`);
          expect(rec.ttl).toBe(top.dnsConfig.ttl);
          if (qtype === 'A') expect(['A', 'CNAME']).toContain(rec.type);
          if (qtype === 'AAAA') expect(['AAAA', 'CNAME']).toContain(rec.type);
          if (qtype === 'CNAME' || qtype === 'MX') expect(rec.type).toBe('CNAME');
        }
        expect(o.endpoints.length).toBe(o.records.length);
        for (const path of o.endpoints) expect(['Disabled', 'Stopped', 'Inactive']).not.toContain(statuses.get(path));
        if (top.trafficRoutingMethod === 'MultiValue') expect(o.records.length).toBeLessThanOrEqual(top.maxReturn!);
      }
      const a = answer(s, query(top.name, qtype, client), () => u);
      expect(r.outcomes.map((o) => o.endpoints)).toContainEqual(a.endpoints);
      expect(a.rcode).toBe(r.rcode);
      // Deterministic: a fresh snapshot of the same input gives the same resolution.
      const again = resolve(snapshot(profiles, { geo: geo(), health }), query(top.name, qtype, client));
      expect(again).toEqual(r);
    }),
    { numRuns: 400 },
  );
});
