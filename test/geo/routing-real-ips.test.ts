/**
 * Geographic and Performance routing answered for real German, French, US and Japanese addresses through
 * the real GeoLookup (the shipped country database, the coordinates table and the distance model), plus a
 * city database for state-level Geographic routing and a measured table for Performance.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answer, resolve, type RoutingResolution } from '../../src/core/routing';
import { MmdbGeoLookup, parseLatencyTable } from '../../src/geo';
import { ext, nested, profile, query, snapshot } from '../../src/testing/builders';
import { seededRng } from '../../src/testing/rng';
import { buildMmdb } from './support/mmdb-writer';

const DE = '194.25.2.129';
const DE6 = '2003::1';
const FR = '193.252.0.1';
const FR6 = '2a01:cb00::1';
const US = '8.8.8.8';
const US6 = '2001:4860:4860::8888';
const JP = '153.128.0.1';
const JP6 = '2001:240::1';

let geo: MmdbGeoLookup;
beforeAll(() => {
  geo = MmdbGeoLookup.openSync();
});

/** Endpoint paths of the single outcome. */
function only(r: RoutingResolution): string[] {
  expect(r.outcomes).toHaveLength(1);
  return r.outcomes[0]!.endpoints;
}

describe('Geographic routing with the shipped country database', () => {
  const geoProfile = profile('geo', 'Geographic', [
    ext('germany', '192.0.2.1', { geoMapping: ['DE'] }),
    ext('europe', '192.0.2.2', { geoMapping: ['GEO-EU'] }),
    ext('japan', '192.0.2.3', { geoMapping: ['JP'] }),
    ext('north-america', '192.0.2.4', { geoMapping: ['GEO-NA'] }),
  ]);
  const snap = (): ReturnType<typeof snapshot> => snapshot([geoProfile], { geo });

  test.each([
    [DE, 'geo/germany', 'A 192.0.2.1', 'country beats its regional grouping'],
    [DE6, 'geo/germany', 'A 192.0.2.1', 'IPv6 client'],
    [FR, 'geo/europe', 'A 192.0.2.2', 'France is only covered by GEO-EU'],
    [FR6, 'geo/europe', 'A 192.0.2.2', 'IPv6 client'],
    [US, 'geo/north-america', 'A 192.0.2.4', 'US → GEO-NA'],
    [US6, 'geo/north-america', 'A 192.0.2.4', 'IPv6 client'],
    [JP, 'geo/japan', 'A 192.0.2.3', 'country'],
    [JP6, 'geo/japan', 'A 192.0.2.3', 'IPv6 client'],
  ])('%s → %s (%s)', (client, endpoint, record) => {
    const r = resolve(snap(), query('geo', 'A', client));
    expect(r.rcode).toBe('NOERROR');
    expect(only(r)).toEqual([endpoint]);
    expect(r.outcomes[0]!.records.map((x) => `${x.type} ${x.data}`)).toEqual([record]);
    expect(r.clientDependent).toBe(true);
  });

  test('a client the database cannot place matches only WORLD: NODATA without a WORLD endpoint', () => {
    const r = resolve(snap(), query('geo', 'A', '10.0.0.1'));
    expect(r.rcode).toBe('NOERROR');
    expect(r.outcomes.every((o) => o.records.length === 0)).toBe(true);
  });

  test('ECS: the ECS address decides, and the scope echoes the source prefix', () => {
    const r = resolve(snap(), query('geo', 'A', '153.128.0.0', 24));
    expect(only(r)).toEqual(['geo/japan']);
    expect(r.ecsScopePrefix).toBe(24);
  });

  test('answer() gives the same endpoint as resolve() for every real client', () => {
    const rng = seededRng(1);
    for (const client of [DE, FR, US, JP]) {
      expect(answer(snap(), query('geo', 'A', client), rng).endpoints).toEqual(only(resolve(snap(), query('geo', 'A', client))));
    }
  });
});

describe('Geographic routing by state with a city database (--geoip)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-geo-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cityPath = join(dir, 'city.mmdb');
  writeFileSync(
    cityPath,
    buildMmdb({
      '8.8.8.0/24': {
        country: { iso_code: 'US' },
        subdivisions: [{ iso_code: 'CA' }],
        location: { latitude: 37.386, longitude: -122.0838 },
      },
      '4.2.2.0/24': { country: { iso_code: 'US' }, subdivisions: [{ iso_code: 'NY' }], location: { latitude: 40.71, longitude: -74.0 } },
    }),
  );

  test.each([
    [US, 'states/california'],
    ['4.2.2.2', 'states/rest-of-us'],
    [DE, 'states/world'],
  ])('%s → %s', (client, endpoint) => {
    const city = MmdbGeoLookup.openSync({ geoip: cityPath });
    const p = profile('states', 'Geographic', [
      ext('california', 'ca.example.com', { geoMapping: ['US-CA'] }),
      ext('rest-of-us', 'us.example.com', { geoMapping: ['US'] }),
      ext('world', 'world.example.com', { geoMapping: ['WORLD'] }),
    ]);
    expect(only(resolve(snapshot([p], { geo: city }), query('states', 'A', client)))).toEqual([endpoint]);
  });
});

describe('Performance routing with the distance model', () => {
  const perf = profile('perf', 'Performance', [
    ext('frankfurt', '192.0.2.10', { endpointLocation: 'germanywestcentral' }),
    ext('paris', '192.0.2.11', { endpointLocation: 'francecentral' }),
    ext('virginia', '192.0.2.12', { endpointLocation: 'eastus' }),
    ext('iowa', '192.0.2.13', { endpointLocation: 'centralus' }),
    ext('tokyo', '192.0.2.14', { endpointLocation: 'japaneast' }),
  ]);

  test.each([
    [DE, 'perf/frankfurt'],
    [DE6, 'perf/frankfurt'],
    [FR, 'perf/paris'],
    [FR6, 'perf/paris'],
    [US, 'perf/iowa'],
    [US6, 'perf/iowa'],
    [JP, 'perf/tokyo'],
    [JP6, 'perf/tokyo'],
  ])('%s → %s (closest region)', (client, endpoint) => {
    expect(only(resolve(snapshot([perf], { geo }), query('perf', 'A', client)))).toEqual([endpoint]);
  });

  test('when the closest region has no available endpoint, the next closest answers', () => {
    const s = snapshot([perf], { geo, health: { 'perf/frankfurt': 'Degraded' } });
    expect(only(resolve(s, query('perf', 'A', DE)))).toEqual(['perf/paris']);
    expect(only(resolve(s, query('perf', 'A', JP)))).toEqual(['perf/tokyo']);
  });

  test('two endpoints in the closest region split its clients evenly; one client gets one of them for certain', () => {
    const p = profile('split', 'Performance', [
      ext('fra-1', '192.0.2.20', { endpointLocation: 'germanywestcentral' }),
      ext('fra-2', '192.0.2.21', { endpointLocation: 'Germany West Central' }),
      ext('tokyo', '192.0.2.22', { endpointLocation: 'japaneast' }),
    ]);
    const s = snapshot([p], { geo });
    const population = resolve(s, { ...query('split', 'A', DE), population: true });
    expect(population.outcomes.map((o) => [o.endpoints[0], o.probability])).toEqual([
      ['split/fra-1', 0.5],
      ['split/fra-2', 0.5],
    ]);
    const one = resolve(s, query('split', 'A', DE));
    expect(one.outcomes).toHaveLength(1);
    expect(one.outcomes[0]!.probability).toBe(1);
    expect(['split/fra-1', 'split/fra-2']).toContain(one.outcomes[0]!.endpoints[0]);
  });

  test('a measured table overrides the model: Germany measured nearer Tokyo', () => {
    const table = parseLatencyTable({ DE: { japaneast: 1 } }, 'inline');
    const measured = MmdbGeoLookup.openSync({ latencyTable: table });
    expect(only(resolve(snapshot([perf], { geo: measured }), query('perf', 'A', DE)))).toEqual(['perf/tokyo']);
    expect(only(resolve(snapshot([perf], { geo: measured }), query('perf', 'A', FR)))).toEqual(['perf/paris']);
  });

  test('a prefix row applies to the clients it covers; other regions keep their country row or estimate', () => {
    const table = parseLatencyTable({ '194.25.2.0/24': { eastus: 1 }, DE: { japaneast: 2 } }, 'inline');
    const measured = MmdbGeoLookup.openSync({ latencyTable: table });
    expect(only(resolve(snapshot([perf], { geo: measured }), query('perf', 'A', DE)))).toEqual(['perf/virginia']);
    expect(only(resolve(snapshot([perf], { geo: measured }), query('perf', 'A', '80.128.0.1')))).toEqual(['perf/tokyo']);
  });
});

describe('nested: Performance across regions over Geographic children', () => {
  const child = (name: string, suffix: string): ReturnType<typeof profile> =>
    profile(name, 'Geographic', [
      ext('de', `de-${suffix}.example.com`, { geoMapping: ['DE'] }),
      ext('rest', `rest-${suffix}.example.com`, { geoMapping: ['WORLD'] }),
    ]);
  const parent = profile('edge', 'Performance', [
    nested('eu', 'edge-eu', { endpointLocation: 'westeurope' }),
    nested('asia', 'edge-asia', { endpointLocation: 'japaneast' }),
  ]);

  test.each([
    [DE, 'CNAME de-eu.example.com'],
    [FR, 'CNAME rest-eu.example.com'],
    [JP, 'CNAME rest-asia.example.com'],
  ])('%s → %s', (client, record) => {
    const r = resolve(snapshot([parent, child('edge-eu', 'eu'), child('edge-asia', 'asia')], { geo }), query('edge', 'A', client));
    expect(r.outcomes).toHaveLength(1);
    expect(r.outcomes[0]!.records.map((x) => `${x.type} ${x.data}`)).toEqual([record]);
  });
});
