import { GEO_REGIONS } from '../../../src/core/data';
import type { ClientGeo, GeoLookup } from '../../../src/core/ports';
import { TableGeo } from '../../../src/testing/geo-table';

/**
 * A deterministic latency model for plan tests, independent of src/geo's constants: every country is 20 ms
 * from the Azure region of its own continent and farther from the others. Real-looking client addresses
 * (198.18.<i>.1, benchmark range) are located in countries, for sampling tests against the routing engine.
 */
const HOME: Record<string, string> = {
  'GEO-EU': 'westeurope',
  'GEO-ME': 'westeurope',
  'GEO-AF': 'westeurope',
  'GEO-NA': 'eastus',
  'GEO-SA': 'eastus',
  'GEO-AS': 'japaneast',
  'GEO-AP': 'japaneast',
  'GEO-AN': 'japaneast',
};
const FAR: Record<string, Record<string, number>> = {
  westeurope: { westeurope: 20, eastus: 90, japaneast: 220 },
  eastus: { westeurope: 90, eastus: 20, japaneast: 160 },
  japaneast: { westeurope: 220, eastus: 160, japaneast: 20 },
};

export const countries = [...GEO_REGIONS.values()].filter((r) => r.depth === 2).map((r) => r.code);

export function groupingOf(code: string): string {
  let cur = GEO_REGIONS.get(code)!;
  while (cur.depth > 1) cur = GEO_REGIONS.get(cur.parent!)!;
  return cur.code;
}

/** The address `clientAddress(code)` is located in that country. */
export const clientAddress = (code: string): string => {
  const i = countries.indexOf(code);
  return `198.18.${i >> 8}.${i & 255}`;
};

export function testGeo(): GeoLookup & { locate(a: string): ClientGeo | undefined } {
  const locations: Record<string, ClientGeo> = {};
  const latency: Record<string, Record<string, number>> = {};
  for (const c of countries) {
    locations[clientAddress(c)] = { country: c };
    latency[c] = FAR[HOME[groupingOf(c)]!]!;
  }
  return new TableGeo({ locations, latency });
}
