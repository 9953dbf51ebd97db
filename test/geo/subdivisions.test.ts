import { GEO_REGIONS } from '../../src/core/data';
import { geoFromRecord, mapSubdivision } from '../../src/geo/subdivisions';

describe('mapSubdivision: database subdivision → hierarchy code', () => {
  test.each([
    ['US', 'CA', undefined, 'US-CA'],
    ['US', 'dc', undefined, 'US-DC'],
    ['US', 'US-NY', undefined, 'US-NY'],
    ['CA', 'ON', undefined, 'CA-ON'],
    ['CA', 'QC', undefined, 'CA-QC'],
    ['AU', 'NSW', undefined, 'AU-NSW'],
    ['AU', 'ACT', undefined, 'AU-ACT'],
    ['UA', '43', undefined, 'UA-CR'],
    ['UA', '40', undefined, 'UA-CR'],
    // By name, as ip-location-db city databases give it (state1) or when the code is missing.
    ['US', undefined, 'California', 'US-CA'],
    ['CA', undefined, 'Quebec', 'CA-QC'],
    ['CA', undefined, 'Yukon', 'CA-YT'],
    ['AU', undefined, 'new south wales', 'AU-NSW'],
    ['UA', undefined, 'Crimea', 'UA-CR'],
    ['RU', undefined, 'Republic of Crimea', 'UA-CR'],
    ['RU', undefined, 'Sevastopol', 'UA-CR'],
    // Not in the hierarchy: only US, CA, AU and Crimea have subdivisions there.
    ['DE', 'BY', 'Bavaria', undefined],
    ['UA', '30', 'Kyiv City', undefined],
    ['RU', 'MOW', 'Moscow', undefined],
    ['US', 'XX', undefined, undefined],
    ['CA', 'CA', undefined, undefined],
    ['US', undefined, undefined, undefined],
  ])('%s %s %s → %s', (country, code, name, expected) => {
    expect(mapSubdivision(country, code, name)).toBe(expected);
  });

  test('every state/province code of the hierarchy is reachable from its ISO 3166-2 suffix and from its name', () => {
    const subs = [...GEO_REGIONS.values()].filter((r) => r.depth === 3);
    expect(subs.length).toBeGreaterThan(70);
    const unreachable = subs.filter((r) => {
      const suffix = r.code.slice(r.code.indexOf('-') + 1);
      return mapSubdivision(r.parent!, suffix) !== r.code || mapSubdivision(r.parent!, undefined, r.name) !== r.code;
    });
    expect(unreachable.map((r) => r.code)).toEqual([]);
  });
});

describe('geoFromRecord', () => {
  test.each([
    ['ip-location-db country (the shipped database)', { country_code: 'DE' }, { country: 'DE' }],
    ['GeoLite2-Country', { country: { iso_code: 'FR', names: { en: 'France' } } }, { country: 'FR' }],
    ['only registered_country (anycast, satellite)', { registered_country: { iso_code: 'JP' } }, { country: 'JP' }],
    [
      'GeoLite2-City',
      {
        country: { iso_code: 'US' },
        subdivisions: [{ iso_code: 'WA', names: { en: 'Washington' } }],
        location: { latitude: 47.6, longitude: -122.3, accuracy_radius: 20 },
      },
      { country: 'US', subdivision: 'US-WA', latitude: 47.6, longitude: -122.3 },
    ],
    [
      'GeoLite2-City, subdivision outside the hierarchy',
      { country: { iso_code: 'DE' }, subdivisions: [{ iso_code: 'HE' }], location: { latitude: 50.1, longitude: 8.7 } },
      { country: 'DE', latitude: 50.1, longitude: 8.7 },
    ],
    [
      'GeoLite2-City, Crimea',
      {
        country: { iso_code: 'UA' },
        subdivisions: [{ iso_code: '43', names: { en: 'Crimea' } }],
        location: { latitude: 44.95, longitude: 34.1 },
      },
      { country: 'UA', subdivision: 'UA-CR', latitude: 44.95, longitude: 34.1 },
    ],
    [
      'Crimea filed under RU by the database: Azure files it under UA',
      { country: { iso_code: 'RU' }, subdivisions: [{ names: { en: 'Republic of Crimea' } }] },
      { country: 'UA', subdivision: 'UA-CR' },
    ],
    [
      'ip-location-db city',
      { country_code: 'AU', state1: 'Victoria', city: 'Melbourne', latitude: -37.8, longitude: 144.96 },
      { country: 'AU', subdivision: 'AU-VIC', latitude: -37.8, longitude: 144.96 },
    ],
    ['lower-case country code', { country_code: 'ca' }, { country: 'CA' }],
    ['latitude without longitude is ignored', { country_code: 'BR', latitude: -23.5 }, { country: 'BR' }],
  ])('%s', (_name, record, expected) => {
    expect(geoFromRecord(record)).toEqual(expected);
  });

  test.each([
    ['null (address not in the database)', null],
    ['no country', { location: { latitude: 1, longitude: 2 } }],
    ['a code the hierarchy does not know', { country_code: 'ZZ' }],
    ['a continent-level code', { country: { iso_code: 'EU' } }],
    ['not an object', 'DE'],
  ])('%s → undefined', (_name, record) => {
    expect(geoFromRecord(record)).toBeUndefined();
  });
});
