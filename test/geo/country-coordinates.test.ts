/**
 * The country → coordinates table (src/geo/country-coordinates.json) is hand-written data: these tests
 * check it against the geographic hierarchy and, independently, against the Azure region coordinates.
 */
import { AZURE_REGIONS, GEO_REGIONS } from '../../src/core/data';
import {
  countryCoordinateCodes,
  countryCoordinates,
  haversineKm,
  subdivisionCoordinateCodes,
  subdivisionCoordinates,
} from '../../src/geo/latency';

const depth2 = [...GEO_REGIONS.values()].filter((r) => r.depth === 2);

test('the hierarchy has the ~252 country/region codes this table must cover', () => {
  expect(depth2.length).toBeGreaterThanOrEqual(250);
});

test('every country/region code of the hierarchy has coordinates, and the table has no other code', () => {
  const missing = depth2.map((r) => r.code).filter((c) => !countryCoordinates(c));
  const extra = countryCoordinateCodes().filter((c) => GEO_REGIONS.get(c)?.depth !== 2);
  expect({ missing, extra }).toEqual({ missing: [], extra: [] });
});

test('every coordinate is a number in range (|latitude| <= 90, |longitude| <= 180)', () => {
  const bad = countryCoordinateCodes().filter((code) => {
    const c = countryCoordinates(code)!;
    return !(Number.isFinite(c.latitude) && Math.abs(c.latitude) <= 90 && Number.isFinite(c.longitude) && Math.abs(c.longitude) <= 180);
  });
  expect(bad).toEqual([]);
});

/** Loose boxes per regional grouping: catch swapped or sign-flipped coordinates. */
const BOXES: Record<string, { lat: [number, number]; lon: [number, number] } | { lat: [number, number]; lonOutside: [number, number] }> = {
  'GEO-EU': { lat: [27, 82], lon: [-32, 70] },
  'GEO-ME': { lat: [12, 42], lon: [26, 63] },
  'GEO-NA': { lat: [5, 84], lon: [-170, -50] },
  'GEO-AS': { lat: [-13, 56], lon: [25, 150] },
  'GEO-AF': { lat: [-56, 38], lon: [-26, 75] },
  'GEO-AN': { lat: [-90, -60], lon: [-180, 180] },
  'GEO-SA': { lat: [-60, 13], lon: [-82, -34] },
  // Australia / Pacific straddles the antimeridian: east of 70°E or west of 125°W.
  'GEO-AP': { lat: [-56, 22], lonOutside: [-125, 70] },
};
/** Codes the hierarchy files under a grouping they are not geographically in (documented, not errors). */
const EXCEPTIONS: Record<string, string> = {
  UM: 'U.S. Outlying Islands are mostly in the Pacific (Wake Island) but filed under GEO-NA',
};

test.each(Object.keys(BOXES))('every country/region of %s lies inside its box', (group) => {
  const box = BOXES[group]!;
  const members = depth2.filter((r) => r.parent === group && !(r.code in EXCEPTIONS));
  expect(members.length).toBeGreaterThan(0);
  const outside = members
    .map((r) => ({ code: r.code, ...countryCoordinates(r.code)! }))
    .filter(({ latitude, longitude }) => {
      const latOk = latitude >= box.lat[0] && latitude <= box.lat[1];
      const lonOk =
        'lon' in box ? longitude >= box.lon[0] && longitude <= box.lon[1] : longitude > box.lonOutside[1] || longitude < box.lonOutside[0];
      return !(latOk && lonOk);
    });
  expect(outside).toEqual([]);
});

test('the documented exceptions are real hierarchy codes', () => {
  for (const code of Object.keys(EXCEPTIONS)) expect(GEO_REGIONS.get(code)?.depth).toBe(2);
});

/** Capitals and centres from an independent source (rounded, from memory of an atlas), within a radius. */
test.each([
  ['DE', 'Berlin', 52.5, 13.4, 50],
  ['FR', 'Paris', 48.9, 2.35, 50],
  ['JP', 'Tokyo', 35.7, 139.7, 50],
  ['GB', 'London', 51.5, -0.1, 50],
  ['AU', 'Canberra', -35.3, 149.1, 50],
  ['BR', 'Brasília', -15.8, -47.9, 50],
  ['ZA', 'Pretoria', -25.7, 28.2, 50],
  ['AR', 'Buenos Aires', -34.6, -58.4, 50],
  ['NZ', 'Wellington', -41.3, 174.8, 50],
  ['US', 'the middle of the contiguous US (Missouri/Kansas)', 38.5, -95, 500],
  ['CA', 'Ottawa', 45.4, -75.7, 50],
  ['IN', 'New Delhi', 28.6, 77.2, 50],
])('%s is near %s', (code, _place, latitude, longitude, km) => {
  expect(haversineKm(countryCoordinates(code)!, { latitude, longitude })).toBeLessThan(km);
});

/**
 * Cross-check with the Azure region coordinates (a different source): a country's point is within 1,000 km
 * of at least one of the Azure regions located in that country.
 */
const IN_COUNTRY_REGIONS: Record<string, RegExp> = {
  DE: /^germany/,
  FR: /^france/,
  JP: /^japan/,
  KR: /^korea/,
  AU: /^australia/,
  BR: /^brazil/,
  CA: /^canada/,
  IN: /india/,
  ZA: /^southafrica/,
  GB: /^uk/,
  NO: /^norway/,
  CH: /^switzerland/,
  AE: /^uae/,
  SE: /^sweden/,
  PL: /^poland/,
  IT: /^italy/,
  QA: /^qatar/,
  IL: /^israel/,
  MX: /^mexico/,
  CL: /^chile/,
  NZ: /^newzealand/,
  AT: /^austria/,
  BE: /^belgium/,
  DK: /^denmark/,
  ID: /^indonesia/,
  MY: /^malaysia/,
  NL: /^westeurope$/,
  IE: /^northeurope$/,
  SG: /^southeastasia$/,
  HK: /^eastasia$/,
  US: /us(2|3)?(euap)?$/,
  ES: /^spain/,
};

test.each(Object.entries(IN_COUNTRY_REGIONS))('%s is within 1,000 km of its own Azure region', (code, pattern) => {
  const own = AZURE_REGIONS.filter((r) => pattern.test(r.name));
  expect(own.length).toBeGreaterThan(0);
  const nearest = Math.min(...own.map((r) => haversineKm(countryCoordinates(code)!, r)));
  expect(nearest).toBeLessThan(1000);
});

describe('states and provinces', () => {
  const depth3 = [...GEO_REGIONS.values()].filter((r) => r.depth === 3);

  test('every state/province code of the hierarchy has coordinates, and the table has no other code', () => {
    expect(depth3.length).toBeGreaterThan(70);
    const missing = depth3.map((r) => r.code).filter((c) => !subdivisionCoordinates(c));
    const extra = subdivisionCoordinateCodes().filter((c) => GEO_REGIONS.get(c)?.depth !== 3);
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  });

  const COUNTRY_BOXES: Record<string, { lat: [number, number]; lon: [number, number] }> = {
    US: { lat: [18, 72], lon: [-180, -66] },
    CA: { lat: [41, 84], lon: [-141, -52] },
    AU: { lat: [-44, -10], lon: [112, 154] },
    UA: { lat: [44, 46.5], lon: [32, 37] }, // only Crimea is a subdivision in the hierarchy
  };
  test.each(Object.keys(COUNTRY_BOXES))('every subdivision of %s lies inside the country', (country) => {
    const box = COUNTRY_BOXES[country]!;
    const members = depth3.filter((r) => r.parent === country);
    expect(members.length).toBeGreaterThan(0);
    const outside = members
      .map((r) => ({ code: r.code, ...subdivisionCoordinates(r.code)! }))
      .filter(
        ({ latitude, longitude }) =>
          !(latitude >= box.lat[0] && latitude <= box.lat[1] && longitude >= box.lon[0] && longitude <= box.lon[1]),
      );
    expect(outside).toEqual([]);
  });

  /** Cross-check with the Azure region coordinates: the nearest region is the one in or next to the state. */
  test.each([
    ['US-CA', ['westus']],
    ['US-WA', ['westus2']],
    ['US-AZ', ['westus3']],
    ['US-WY', ['westcentralus']],
    ['US-TX', ['southcentralus']],
    ['US-IA', ['centralus', 'centraluseuap']],
    ['US-IL', ['northcentralus']],
    ['US-VA', ['eastus', 'eastus2', 'eastus2euap']],
    ['CA-ON', ['canadacentral']],
    ['CA-QC', ['canadaeast']],
    ['AU-NSW', ['australiaeast']],
    ['AU-VIC', ['australiasoutheast']],
    ['AU-ACT', ['australiacentral', 'australiacentral2']],
  ])('%s is nearest %j', (code, regions) => {
    const p = subdivisionCoordinates(code)!;
    const nearest = [...AZURE_REGIONS].sort((a, b) => haversineKm(p, a) - haversineKm(p, b))[0]!;
    expect(regions).toContain(nearest.name);
  });
});

test('haversine: London–Paris is about 344 km, antipodes about 20,015 km', () => {
  expect(haversineKm({ latitude: 51.5074, longitude: -0.1278 }, { latitude: 48.8566, longitude: 2.3522 })).toBeCloseTo(343.9, 0);
  expect(haversineKm({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 180 })).toBeCloseTo(20015.1, 0);
  expect(haversineKm({ latitude: 10, longitude: 20 }, { latitude: 10, longitude: 20 })).toBe(0);
});
