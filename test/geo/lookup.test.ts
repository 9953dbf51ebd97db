/**
 * MmdbGeoLookup against the real shipped country database (@ip-location-db/geo-whois-asn-country-mmdb) and a
 * tiny city-level database written by test/geo/support/mmdb-writer.ts and read by maxmind's real Reader.
 * The addresses below were looked up in the shipped database and belong to operators of those countries.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AZURE_REGIONS } from '../../src/core/data';
import { defaultCountryDatabasePath, GeoError, MmdbGeoLookup, parseLatencyTable } from '../../src/geo';
import { buildMmdb } from './support/mmdb-writer';
import { REAL_ADDRESSES } from './support/real-addresses';

let geo: MmdbGeoLookup;
beforeAll(() => {
  geo = MmdbGeoLookup.openSync();
});

describe('the shipped country database', () => {
  test('is the combined IPv4+IPv6 file of the npm package', () => {
    const [db] = geo.describe().databases;
    expect(db!.path).toBe(defaultCountryDatabasePath());
    expect(db!.ipVersion).toBe(6);
    expect(db!.databaseType).toMatch(/country/);
  });

  test.each(REAL_ADDRESSES)('%s is in %s (%s), with the country point as coordinates', (address, country) => {
    const g = geo.locate(address);
    expect(g?.country).toBe(country);
    expect(g?.subdivision).toBeUndefined();
    expect(typeof g?.latitude).toBe('number');
    expect(typeof g?.longitude).toBe('number');
  });

  test.each([
    ['::ffff:194.25.2.129', 'DE', 'IPv4-mapped IPv6'],
    ['64:ff9b::808:808', 'US', 'NAT64 well-known prefix'],
    ['2003:0000:0000::0001', 'DE', 'uncompressed IPv6'],
    ['2A01:CB00::1', 'FR', 'upper-case IPv6'],
  ])('%s → %s (%s)', (address, country) => {
    expect(geo.locate(address)?.country).toBe(country);
  });

  test.each([
    ['10.1.2.3', 'private'],
    ['192.168.1.1', 'private (the database itself maps it to a country: it is excluded first)'],
    ['172.16.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'IPv6 loopback'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'unique local'],
    ['100.64.0.1', 'shared address space (CGN)'],
    ['203.0.113.5', 'documentation (the database maps it to a country too)'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['224.0.0.251', 'multicast'],
    ['not-an-ip', 'garbage'],
    ['', 'empty'],
  ])('%s → undefined (%s)', (address) => {
    expect(geo.locate(address)).toBeUndefined();
  });

  test('the database really maps 192.168.1.1 to a country (why non-global ranges are filtered first)', async () => {
    const { Reader } = await import('maxmind');
    const { readFileSync } = await import('node:fs');
    const raw = new Reader(readFileSync(defaultCountryDatabasePath()));
    expect(raw.get('192.168.1.1')).not.toBeNull();
  });

  test('repeated lookups return the same (frozen, cached) answer', () => {
    const a = geo.locate('193.252.0.1');
    expect(geo.locate('193.252.0.1')).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
  });

  test('a cache of one still answers every address correctly', () => {
    const tiny = MmdbGeoLookup.openSync({ cacheSize: 1 });
    for (let round = 0; round < 2; round++) {
      for (const [address, country] of REAL_ADDRESSES) expect(tiny.locate(address)?.country).toBe(country);
    }
  });

  test('open() (asynchronous) answers like openSync()', async () => {
    const async = await MmdbGeoLookup.open();
    for (const [address] of REAL_ADDRESSES) expect(async.locate(address)).toEqual(geo.locate(address));
  });
});

describe('latency model with real addresses', () => {
  const ranked = (g: MmdbGeoLookup, address: string): string[] => {
    const loc = g.locate(address);
    return AZURE_REGIONS.map((r) => [r.name, g.latencyMs(address, loc, r.name)!] as const)
      .sort((a, b) => a[1] - b[1])
      .map(([name]) => name);
  };

  test('a German client is nearer germanywestcentral and westeurope than eastasia or eastus', () => {
    const loc = geo.locate('194.25.2.129');
    const ms = (region: string): number => geo.latencyMs('194.25.2.129', loc, region)!;
    expect(ms('germanywestcentral')).toBeLessThan(ms('eastus'));
    expect(ms('westeurope')).toBeLessThan(ms('eastasia'));
    expect(ms('germanywestcentral')).toBeLessThan(ms('eastasia'));
    expect(ranked(geo, '194.25.2.129').slice(0, 5)).toEqual(expect.arrayContaining(['germanynorth']));
  });

  test.each([
    ['153.128.0.1', 'japaneast'],
    ['2001:240::1', 'japaneast'],
    ['193.252.0.1', 'belgiumcentral'], // Paris is 264 km from Brussels, 276 km from "France Central" (46.4°N 2.4°E)
    ['2a02:8108::1', 'germanynorth'],
  ])('%s is nearest %s', (address, region) => {
    expect(ranked(geo, address)[0]).toBe(region);
  });

  test('a US client (no city database: the US population centre) is nearest a central US region', () => {
    expect(['centralus', 'centraluseuap', 'southcentralus', 'northcentralus']).toContain(ranked(geo, '8.8.8.8')[0]);
  });

  test('display names and any case are accepted for the region; unknown regions give undefined', () => {
    const loc = geo.locate('8.8.8.8');
    expect(geo.latencyMs('8.8.8.8', loc, 'West Europe')).toBe(geo.latencyMs('8.8.8.8', loc, 'westeurope'));
    expect(geo.latencyMs('8.8.8.8', loc, 'WestEurope')).toBe(geo.latencyMs('8.8.8.8', loc, 'westeurope'));
    expect(geo.latencyMs('8.8.8.8', loc, 'moon-south')).toBeUndefined();
  });

  test.each([
    ['US-CA', 'westus'],
    ['US-NC', 'eastus2'],
    ['US-TX', 'southcentralus'],
    ['AU-WA', 'australiasoutheast'],
  ])('a location given as a state (%s, as the plan preview does) ranks %s first', (subdivision, region) => {
    const loc = { country: subdivision.slice(0, 2), subdivision };
    const best = AZURE_REGIONS.map((r) => [r.name, geo.latencyMs('100::1', loc, r.name)!] as const).sort((a, b) => a[1] - b[1])[0];
    expect(best![0]).toBe(region);
  });

  test('a client without location has no estimate', () => {
    expect(geo.latencyMs('10.0.0.1', geo.locate('10.0.0.1'), 'westeurope')).toBeUndefined();
    expect(geo.latencyMs('10.0.0.1', undefined, 'westeurope')).toBeUndefined();
  });

  test('the caller-supplied location is what the model uses', () => {
    const fromTokyo = geo.latencyMs('194.25.2.129', { country: 'JP' }, 'japaneast')!;
    const fromBerlin = geo.latencyMs('194.25.2.129', geo.locate('194.25.2.129'), 'japaneast')!;
    expect(fromTokyo).toBeLessThan(fromBerlin);
  });
});

describe('measured latency table overrides the model', () => {
  const table = parseLatencyTable(
    {
      '194.25.0.0/16': { eastasia: 1 },
      '194.25.2.0/24': { eastus: 2 },
      DE: { japaneast: 3, eastus: 400 },
      JP: { westeurope: 4 },
    },
    'inline',
  );
  let withTable: MmdbGeoLookup;
  beforeAll(() => {
    withTable = MmdbGeoLookup.openSync({ latencyTable: table });
  });

  test.each([
    ['194.25.2.129', 'eastus', 2, 'longest prefix wins over a shorter prefix and the country'],
    ['194.25.2.129', 'eastasia', 1, 'a shorter prefix when the longest has no value'],
    ['194.25.2.129', 'japaneast', 3, 'country when no prefix has the region'],
    ['80.128.0.1', 'eastus', 400, 'country for another German address'],
    ['153.128.0.1', 'westeurope', 4, 'another country'],
  ])('%s → %s = %s ms (%s)', (address, region, ms) => {
    expect(withTable.latencyMs(address, withTable.locate(address), region)).toBe(ms);
  });

  test('regions the table does not cover fall back to the distance model', () => {
    const loc = withTable.locate('194.25.2.129');
    expect(withTable.latencyMs('194.25.2.129', loc, 'westeurope')).toBe(geo.latencyMs('194.25.2.129', loc, 'westeurope'));
  });

  test('the override changes the ranking: measured 1 ms to eastasia beats every estimate', () => {
    const loc = withTable.locate('194.25.0.9');
    const best = AZURE_REGIONS.map((r) => [r.name, withTable.latencyMs('194.25.0.9', loc, r.name)!] as const).sort(
      (a, b) => a[1] - b[1],
    )[0];
    expect(best).toEqual(['eastasia', 1]);
  });

  test('prefix entries apply even to addresses without geography', () => {
    const t = parseLatencyTable({ '10.0.0.0/8': { westeurope: 7 } }, 'inline');
    const g = MmdbGeoLookup.openSync({ latencyTable: t });
    expect(g.locate('10.1.1.1')).toBeUndefined();
    expect(g.latencyMs('10.1.1.1', undefined, 'westeurope')).toBe(7);
    expect(g.latencyMs('10.1.1.1', undefined, 'eastus')).toBeUndefined();
  });

  test('a table file is loaded by open({ latencyTable: path }) and its errors surface', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tmkit-geo-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ FR: { francecentral: 6 } }));
    const g = await MmdbGeoLookup.open({ latencyTable: good });
    expect(g.latencyMs('193.252.0.1', g.locate('193.252.0.1'), 'francecentral')).toBe(6);
    expect(g.describe().latencyTableEntries).toBe(1);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ FR: { francecentrale: 6 } }));
    await expect(MmdbGeoLookup.open({ latencyTable: bad })).rejects.toThrow(/bad\.json: "FR"\."francecentrale": unknown Azure region/);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('city-level database (--geoip)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-geo-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cityPath = join(dir, 'city.mmdb');
  // GeoLite2-City record shape; synthetic assignments for test prefixes.
  writeFileSync(
    cityPath,
    buildMmdb({
      '8.8.8.0/24': {
        country: { iso_code: 'US' },
        subdivisions: [{ iso_code: 'CA', names: { en: 'California' } }],
        location: { latitude: 37.386, longitude: -122.0838 },
      },
      '24.48.0.0/16': {
        country: { iso_code: 'CA' },
        subdivisions: [{ iso_code: 'QC', names: { en: 'Quebec' } }],
        location: { latitude: 45.5, longitude: -73.57 },
      },
      '1.1.1.0/24': { country: { iso_code: 'AU' }, subdivisions: [{ iso_code: 'NSW' }], location: { latitude: -33.87, longitude: 151.21 } },
      '176.104.0.0/16': { country: { iso_code: 'UA' }, subdivisions: [{ iso_code: '43', names: { en: 'Crimea' } }] },
      '2a00:1450::/32': { country: { iso_code: 'IE' }, location: { latitude: 53.35, longitude: -6.26 } },
      '31.13.0.0/16': { registered_country: { iso_code: 'IE' } },
    }),
  );
  let city: MmdbGeoLookup;
  beforeAll(() => {
    city = MmdbGeoLookup.openSync({ geoip: cityPath });
  });

  test.each([
    ['8.8.8.8', { country: 'US', subdivision: 'US-CA', latitude: 37.386, longitude: -122.0838 }],
    ['24.48.1.2', { country: 'CA', subdivision: 'CA-QC', latitude: 45.5, longitude: -73.57 }],
    ['1.1.1.1', { country: 'AU', subdivision: 'AU-NSW', latitude: -33.87, longitude: 151.21 }],
    // No location in the record: the subdivision's point (Simferopol), not the country's (Kyiv).
    ['176.104.1.1', { country: 'UA', subdivision: 'UA-CR', latitude: 44.9521, longitude: 34.1024 }],
    ['2a00:1450::1', { country: 'IE', latitude: 53.35, longitude: -6.26 }],
    ['31.13.1.1', { country: 'IE', latitude: 53.3498, longitude: -6.2603 }],
  ])('%s → %j', (address, expected) => {
    expect(city.locate(address)).toEqual(expected);
  });

  test('addresses the city database lacks fall back to the shipped country database', () => {
    expect(city.describe().databases.map((d) => d.path)).toEqual([cityPath, defaultCountryDatabasePath()]);
    for (const [address, country] of REAL_ADDRESSES.filter(([a]) => a !== '8.8.8.8')) {
      expect(city.locate(address)?.country).toBe(country);
    }
  });

  test('countryDatabase: false uses the city database alone', () => {
    const only = MmdbGeoLookup.openSync({ geoip: cityPath, countryDatabase: false });
    expect(only.locate('8.8.8.8')?.subdivision).toBe('US-CA');
    expect(only.locate('194.25.2.129')).toBeUndefined();
  });

  test('city coordinates drive the latency model: a Californian client is nearest westus', () => {
    const loc = city.locate('8.8.8.8');
    const best = AZURE_REGIONS.map((r) => [r.name, city.latencyMs('8.8.8.8', loc, r.name)!] as const).sort((a, b) => a[1] - b[1])[0];
    expect(best![0]).toBe('westus');
  });

  test('a subdivision row of the latency table applies to city-located clients', () => {
    const t = parseLatencyTable({ 'US-CA': { eastus: 1 }, US: { eastus: 50 } }, 'inline');
    const g = MmdbGeoLookup.openSync({ geoip: cityPath, latencyTable: t });
    expect(g.latencyMs('8.8.8.8', g.locate('8.8.8.8'), 'eastus')).toBe(1);
    expect(g.latencyMs('4.2.2.2', g.locate('4.2.2.2'), 'eastus')).toBe(50);
  });
});

describe('database errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-geo-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('a missing --geoip file names the path', () => {
    const file = join(dir, 'nope.mmdb');
    expect(() => MmdbGeoLookup.openSync({ geoip: file })).toThrow(expect.objectContaining({ code: 'GEO_DATABASE_INVALID', path: file }));
    expect(() => MmdbGeoLookup.openSync({ geoip: file })).toThrow(/nope\.mmdb: cannot read the geo database \(ENOENT\); check the path/);
  });

  test('a file that is not an MMDB names the path and what to pass instead', async () => {
    const file = join(dir, 'city.csv');
    writeFileSync(file, 'network,country\n1.0.0.0/24,AU\n');
    await expect(MmdbGeoLookup.open({ geoip: file })).rejects.toThrow(GeoError);
    await expect(MmdbGeoLookup.open({ geoip: file })).rejects.toThrow(/city\.csv: not a MaxMind DB \(\.mmdb\) file .*pass an \.mmdb file/);
  });

  test('no database at all is a programming error', () => {
    expect(() => MmdbGeoLookup.openSync({ countryDatabase: false })).toThrow(RangeError);
  });
});
