import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GeoError } from '../../src/geo/errors';
import { parseIpBytes } from '../../src/core/net/ip';
import { GEO_IP_SYNTAX } from '../../src/geo/ip';
import {
  clientCoordinates,
  estimateRttMs,
  FIBER_KM_PER_MS,
  loadLatencyTable,
  measuredLatency,
  parseLatencyTable,
  prefixRowsFor,
} from '../../src/geo/latency';

describe('distance model', () => {
  test('rtt = 5 ms + 2 × 1.3 × distance / (2/3 c)', () => {
    expect(estimateRttMs(0)).toBe(5);
    expect(estimateRttMs(1000)).toBeCloseTo(5 + (2 * 1.3 * 1000) / FIBER_KM_PER_MS, 9);
    expect(estimateRttMs(5570)).toBeCloseTo(77.5, 0); // London–New York
  });

  test('the constants can be changed, e.g. a pure speed-of-light-in-fibre model', () => {
    expect(estimateRttMs(1000, { baseMs: 0, routeFactor: 1 })).toBeCloseTo(10.007, 3);
  });

  test('strictly increasing with distance', () => {
    const d = [0, 1, 10, 100, 1000, 10000, 20000];
    const rtts = d.map((km) => estimateRttMs(km));
    expect([...rtts].sort((a, b) => a - b)).toEqual(rtts);
    expect(new Set(rtts).size).toBe(d.length);
  });

  test('client coordinates: own coordinates first, else the state/province point, else the country point, else unknown', () => {
    expect(clientCoordinates({ country: 'DE', latitude: 48.1, longitude: 11.6 })).toEqual({ latitude: 48.1, longitude: 11.6 });
    expect(clientCoordinates({ country: 'US', subdivision: 'US-CA', latitude: 34.05, longitude: -118.24 })).toEqual({
      latitude: 34.05,
      longitude: -118.24,
    });
    expect(clientCoordinates({ country: 'US', subdivision: 'US-CA' })).toEqual({ latitude: 38.5816, longitude: -121.4944 });
    expect(clientCoordinates({ country: 'US', subdivision: 'US-XX' })).toEqual({ latitude: 37.2506, longitude: -92.5104 });
    expect(clientCoordinates({ country: 'DE' })).toEqual({ latitude: 52.52, longitude: 13.405 });
    expect(clientCoordinates({ country: 'ZZ' })).toBeUndefined();
    expect(clientCoordinates({})).toBeUndefined();
    expect(clientCoordinates(undefined)).toBeUndefined();
  });
});

describe('parseLatencyTable', () => {
  const table = parseLatencyTable(
    {
      $comment: 'keys starting with $ are ignored',
      '203.0.113.0/24': { westeurope: 12.5, 'East US': 85 },
      '203.0.113.128/25': { westeurope: 3 },
      '2001:db8::/32': { northeurope: 14 },
      '198.51.100.7': { uksouth: 0 },
      'US-CA': { westus: 9 },
      de: { germanywestcentral: 8, westeurope: 15 },
    },
    'latency.json',
  );

  test('counts every client key', () => {
    expect(table.size).toBe(6);
  });

  test.each([
    ['longest prefix first', '203.0.113.200', { country: 'DE' }, 'westeurope', 3],
    ['shorter prefix when the longest has no value for the region', '203.0.113.200', undefined, 'eastus', 85],
    ['display names are stored as canonical names', '203.0.113.1', undefined, 'eastus', 85],
    ['prefix before country', '203.0.113.1', { country: 'DE' }, 'westeurope', 12.5],
    ['country when no prefix has the region', '203.0.113.1', { country: 'DE' }, 'germanywestcentral', 8],
    ['IPv6 prefix', '2001:db8:1::1', undefined, 'northeurope', 14],
    ['a bare address is a host prefix; 0 ms is a value', '198.51.100.7', undefined, 'uksouth', 0],
    ['state/province before country', '192.0.2.1', { country: 'US', subdivision: 'US-CA' }, 'westus', 9],
    ['nothing measured', '192.0.2.1', { country: 'FR' }, 'westeurope', undefined],
    ['nothing measured for this region', '192.0.2.1', { country: 'DE' }, 'eastasia', undefined],
  ])('%s', (_name, address, geo, region, expected) => {
    expect(measuredLatency(table, prefixRowsFor(table, parseIpBytes(address, GEO_IP_SYNTAX)), geo, region)).toBe(expected);
  });

  const invalid = (doc: unknown): GeoError => {
    try {
      parseLatencyTable(doc, 'lat.json');
    } catch (e) {
      return e as GeoError;
    }
    throw new Error('expected parseLatencyTable to throw');
  };

  test.each([
    ['not an object', [1, 2], /lat\.json: the document must be a JSON object/],
    ['unknown country code', { DEU: { westeurope: 1 } }, /lat\.json: "DEU": a key must be an IP prefix .* or a country/],
    ['two-letter code not in the hierarchy', { ZZ: { westeurope: 1 } }, /lat\.json: "ZZ": not a country\/region or state\/province code/],
    ['subdivision not in the hierarchy', { 'DE-BY': { westeurope: 1 } }, /"DE-BY": not a country\/region or state\/province code/],
    [
      'host bits set',
      { '10.1.2.3/8': { westeurope: 1 } },
      /"10\.1\.2\.3\/8": invalid IP prefix: host bits are set after \/8 \(did you mean 10\.0\.0\.0\/8\?\)/,
    ],
    [
      'prefix too long',
      { '10.0.0.0/40': { westeurope: 1 } },
      /"10\.0\.0\.0\/40": invalid IP prefix: prefix length "40" must be an integer from 0 to 32/,
    ],
    [
      'misspelt region',
      { DE: { westeurop: 1 } },
      /lat\.json: "DE"\."westeurop": unknown Azure region \(did you mean "westeurope"\? use a canonical region name/,
    ],
    [
      'unknown region',
      { DE: { atlantis: 1 } },
      /lat\.json: "DE"\."atlantis": unknown Azure region \(use a canonical region name such as "westeurope"\)/,
    ],
    [
      'negative latency',
      { DE: { westeurope: -1 } },
      /"DE"\."westeurope": latency must be a finite number of milliseconds, 0 or more \(got -1\)/,
    ],
    ['latency as a string', { DE: { westeurope: '12' } }, /got "12"/],
    ['row not an object', { DE: 12 }, /"DE": the value must be an object mapping Azure region names to milliseconds/],
    ['same region twice', { DE: { westeurope: 1, 'West Europe': 2 } }, /region westeurope appears twice/],
    [
      'same prefix twice',
      { '2001:db8::/32': { westeurope: 1 }, '2001:DB8:0::/32': { westeurope: 2 } },
      /"2001:DB8:0::\/32": same client key as "2001:db8::\/32"/,
    ],
    ['same country twice', { DE: { westeurope: 1 }, de: { westeurope: 2 } }, /"de": same client key as "DE"/],
  ])('%s → GEO_LATENCY_TABLE_INVALID naming the file, entry and rule', (_name, doc, message) => {
    const err = invalid(doc);
    expect(err).toBeInstanceOf(GeoError);
    expect(err.code).toBe('GEO_LATENCY_TABLE_INVALID');
    expect(err.path).toBe('lat.json');
    expect(err.message).toMatch(message);
    expect(err.issues).toHaveLength(1);
  });

  test('every problem is reported, not only the first', () => {
    const err = invalid({ ZZ: { westeurope: 1 }, DE: { nowhere: 1, westeurope: -5 }, '1.2.3.4/33': {} });
    expect(err.issues).toHaveLength(4);
    expect(err.message).toMatch(/^invalid latency table lat\.json \(4 problems\); fix these entries:/);
  });

  test('a long list is cut in the message but complete in issues', () => {
    const doc = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`bad${i}`, { westeurope: 1 }]));
    const err = invalid(doc);
    expect(err.issues).toHaveLength(15);
    expect(err.message).toMatch(/\.\.\. and 5 more$/);
  });
});

describe('loadLatencyTable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-geo-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('loads a valid file', () => {
    const file = join(dir, 'ok.json');
    writeFileSync(file, JSON.stringify({ JP: { japaneast: 4, japanwest: 11 } }));
    const table = loadLatencyTable(file);
    expect(measuredLatency(table, [], { country: 'JP' }, 'japanwest')).toBe(11);
  });

  test('a missing file names the path', () => {
    const file = join(dir, 'missing.json');
    expect(() => loadLatencyTable(file)).toThrow(expect.objectContaining({ code: 'GEO_LATENCY_TABLE_INVALID', path: file }));
    expect(() => loadLatencyTable(file)).toThrow(
      new RegExp(`${file.replace(/[/.]/g, '\\$&')}: cannot read the latency table \\(ENOENT\\)`),
    );
  });

  test('invalid JSON names the path and the rule', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, '{ "DE": { "westeurope": 1, } }');
    expect(() => loadLatencyTable(file)).toThrow(/bad\.json: not valid JSON \(.*\); the file must be a JSON object/);
  });

  test('rule violations in a file name the file', () => {
    const file = join(dir, 'rules.json');
    writeFileSync(file, JSON.stringify({ DE: { westeurope: 'fast' } }));
    expect(() => loadLatencyTable(file)).toThrow(/rules\.json: "DE"\."westeurope": latency must be a finite number/);
  });
});
