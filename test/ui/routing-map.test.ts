import { GEO_REGIONS } from '../../src/core/data';
import type { PreviewRow } from '../../ui/src/api/types';
import {
  countryRoutes,
  diffScenario,
  groupPreview,
  regionOf,
  regionsOf,
  ROUTING_TABLE_LIMIT,
  tableRows,
} from '../../ui/src/lib/routing-map';

const row = (client: string, endpoint: string, probability = 1, label = client): PreviewRow => ({
  client,
  label,
  group: 'GEO-EU',
  endpoint,
  probability,
});

describe('groupPreview', () => {
  test('rows of one client are its split, most probable first; the same endpoint twice adds up', () => {
    const g = groupPreview([row('DE', 'b', 0.25), row('DE', 'a', 0.5), row('DE', 'b', 0.25), row('FR', '', 1)]);
    expect(g.get('DE')).toEqual({
      client: 'DE',
      label: 'DE',
      answers: [
        { endpoint: 'a', probability: 0.5 },
        { endpoint: 'b', probability: 0.5 },
      ],
      top: 'a',
    });
    expect(g.get('FR')!.top).toBe('');
  });
});

describe('countryRoutes: the endpoint each country on the map gets', () => {
  test('the most specific row wins: the country, then its region group, then WORLD', () => {
    const r = countryRoutes(groupPreview([row('WORLD', 'w'), row('GEO-EU', 'eu'), row('DE', 'de')]));
    expect(r.get('DE')).toEqual({ endpoint: 'de', probability: 1, via: 'DE' });
    expect(r.get('FR')).toEqual({ endpoint: 'eu', probability: 1, via: 'GEO-EU' });
    expect(r.get('BR')).toEqual({ endpoint: 'w', probability: 1, via: 'WORLD' });
    // Every country of the hierarchy has a colour when WORLD has a row.
    const countries = [...GEO_REGIONS.values()].filter((g) => g.depth === 2).map((g) => g.code);
    expect(countries.filter((c) => !r.has(c))).toEqual([]);
  });

  test('a country with rows only for its states takes the endpoint most of them get, and says that they vary', () => {
    const states = GEO_REGIONS.get('US')!.children;
    expect(states.length).toBeGreaterThan(3);
    const rows = states.map((s, i) => row(s, i === 0 ? 'west' : 'east'));
    expect(countryRoutes(groupPreview(rows)).get('US')).toEqual({
      endpoint: 'east',
      probability: (states.length - 1) / states.length,
      via: `${states.length} subdivisions`,
      varies: true,
    });
  });

  test('no row that covers a country: it is left out (drawn empty)', () => {
    expect(countryRoutes(groupPreview([row('GEO-EU', 'eu')])).has('US')).toBe(false);
  });
});

describe('diffScenario', () => {
  test('changed client classes first, then the preview order; splits are written with percentages', () => {
    const now = groupPreview([row('GEO-NA', 'us'), row('GEO-EU', 'eu'), row('WORLD', 'rest')]);
    const down = groupPreview([row('GEO-NA', 'us'), row('GEO-EU', 'rest', 0.5), row('GEO-EU', 'us', 0.5), row('WORLD', 'rest')]);
    expect(diffScenario(now, down)).toEqual([
      { client: 'GEO-EU', label: 'GEO-EU', now: 'eu', scenario: 'rest 50% + us 50%', changed: true },
      { client: 'GEO-NA', label: 'GEO-NA', now: 'us', scenario: 'us', changed: false },
      { client: 'WORLD', label: 'WORLD', now: 'rest', scenario: 'rest', changed: false },
    ]);
  });
  test('no answer is said so; a client only in one side shows a dash on the other', () => {
    expect(diffScenario(groupPreview([row('DE', 'a')]), groupPreview([row('DE', ''), row('FR', 'b')]))).toEqual([
      { client: 'DE', label: 'DE', now: 'a', scenario: 'no answer', changed: true },
      { client: 'FR', label: 'FR', now: '—', scenario: 'b', changed: true },
    ]);
  });
});

describe('the routing table: "60 of N", show all, filter by region (issue 28 item 8)', () => {
  const countries = [...GEO_REGIONS.values()].filter((g) => g.depth === 2).map((g) => ({ client: g.code }));

  test('a client class belongs to its regional grouping; a grouping to itself; WORLD and unknown codes to WORLD', () => {
    expect([regionOf('DE'), regionOf('DE-BY'), regionOf('US-CA'), regionOf('GEO-EU'), regionOf('WORLD'), regionOf('ZZ')]).toEqual([
      'GEO-EU',
      'GEO-EU',
      'GEO-NA',
      'GEO-EU',
      'WORLD',
      'WORLD',
    ]);
  });

  test('the first 60 of every country, all of them on request, and only those of a region', () => {
    expect(countries.length).toBeGreaterThan(ROUTING_TABLE_LIMIT);
    const first = tableRows(countries, '', ROUTING_TABLE_LIMIT);
    expect({ shown: first.shown.length, total: first.total }).toEqual({ shown: 60, total: countries.length });
    expect(tableRows(countries, '', undefined).shown).toEqual(countries);
    const europe = tableRows(countries, 'GEO-EU', ROUTING_TABLE_LIMIT);
    expect(europe.shown.map((r) => r.client)).toContain('DE');
    expect(europe.shown.every((r) => regionOf(r.client) === 'GEO-EU')).toBe(true);
    expect(europe.total).toBe(GEO_REGIONS.get('GEO-EU')!.children.length);
  });

  test('the region filter offers the regions present, by name', () => {
    expect(regionsOf([{ client: 'US' }, { client: 'DE' }, { client: 'FR' }, { client: 'WORLD' }])).toEqual([
      { code: 'GEO-EU', name: 'Europe' },
      { code: 'GEO-NA', name: 'North America / Central America / Caribbean' },
      { code: 'WORLD', name: GEO_REGIONS.get('WORLD')!.name },
    ]);
  });
});
