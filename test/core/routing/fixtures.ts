/** Shared test geography and result summaries for the routing tests. */
import type { RoutingResolution } from '../../../src/core/routing';
import { TableGeo } from '../../../src/testing/geo-table';

/** Documentation / shared-address ranges standing in for real clients. */
export const CLIENT = {
  DE: '198.51.100.10',
  FR: '100.64.0.10',
  IE: '2001:db8:1::10',
  US_CA: '203.0.113.10',
  US_TX: '203.0.114.10',
  JP: '192.0.2.10',
  CN: '100.65.0.10',
  UNKNOWN: '10.1.2.3',
} as const;

export const geo = (): TableGeo =>
  new TableGeo({
    locations: {
      '198.51.100.0/24': { country: 'DE' },
      '100.64.0.0/16': { country: 'FR' },
      '2001:db8:1::/48': { country: 'IE' },
      '203.0.113.0/24': { country: 'US', subdivision: 'US-CA' },
      '203.0.114.0/24': { country: 'US', subdivision: 'US-TX' },
      '192.0.2.0/24': { country: 'JP' },
      '100.65.0.0/16': { country: 'CN' },
    },
    latency: {
      DE: { westeurope: 10, northeurope: 20, eastus: 90, westus: 150, japaneast: 250 },
      FR: { westeurope: 12, northeurope: 25, eastus: 85, westus: 140, japaneast: 240 },
      IE: { northeurope: 5, westeurope: 18, eastus: 80, westus: 130, japaneast: 260 },
      US: { westus: 10, eastus: 60, westeurope: 140, northeurope: 150, japaneast: 110 },
      JP: { japaneast: 5, westus: 110, eastus: 160, westeurope: 230, northeurope: 240 },
    },
  });

/** `endpoints → probability` of every outcome; records-less outcomes show as `(nodata)`. */
export function dist(r: RoutingResolution): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of r.outcomes) {
    const k = o.endpoints.length ? o.endpoints.join('+') : '(nodata)';
    out[k] = (out[k] ?? 0) + o.probability;
  }
  return out;
}

/** The single outcome's records as `TYPE data` strings (throws when there are several outcomes). */
export function recs(r: RoutingResolution): string[] {
  if (r.outcomes.length !== 1) throw new Error(`expected one outcome, got ${r.outcomes.length}: ${JSON.stringify(dist(r))}`);
  return r.outcomes[0]!.records.map((x) => `${x.type} ${x.data}`);
}

/** `NOERROR`, `NODATA`, `NXDOMAIN` or `REFUSED`: NODATA = NOERROR with no records in any outcome. */
export function kind(r: RoutingResolution): string {
  if (r.rcode === 'NOERROR' && r.outcomes.every((o) => o.records.length === 0)) return 'NODATA';
  return r.rcode;
}

export function expectDist(r: RoutingResolution, expected: Record<string, number>): void {
  const d = dist(r);
  expect(Object.keys(d).sort()).toEqual(Object.keys(expected).sort());
  for (const [k, p] of Object.entries(expected)) expect(d[k]).toBeCloseTo(p, 12);
  expect(r.outcomes.reduce((s, o) => s + o.probability, 0)).toBeCloseTo(1, 12);
}
