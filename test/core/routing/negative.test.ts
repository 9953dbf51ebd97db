/**
 * behaviors.md §3: NXDOMAIN vs NODATA, one named test per row (plus the undocumented cases tmkit decides).
 */
import { resolve } from '../../../src/core/routing';
import { azure, catalog, ext, nested, profile, query, snapshot } from '../../../src/testing/builders';
import { CLIENT, geo, kind } from './fixtures';

const sub = (first: string, scope?: number) => (scope === undefined ? { first } : { first, scope });

describe('§3 NXDOMAIN vs NODATA', () => {
  test('row: profile Disabled → NXDOMAIN', () => {
    const s = snapshot([profile('p', 'Priority', [ext('a', '192.0.2.1')], { profileStatus: 'Disabled' })], { health: { 'p/a': 'Online' } });
    const r = resolve(s, query('p'));
    expect(kind(r)).toBe('NXDOMAIN');
    expect(r.explanation.at(-1)!.detail).toMatch(/profile Disabled/);
  });

  test('row: every endpoint in the profile disabled → NXDOMAIN', () => {
    const s = snapshot([
      profile('p', 'Weighted', [
        ext('a', '192.0.2.1', { endpointStatus: 'Disabled' }),
        ext('b', '192.0.2.2', { endpointStatus: 'Disabled' }),
      ]),
    ]);
    const r = resolve(s, query('p'));
    expect(kind(r)).toBe('NXDOMAIN');
    expect(r.explanation.at(-1)!.detail).toMatch(/every endpoint is Disabled/);
  });

  test('tmkit: a profile with no endpoints at all → NXDOMAIN (vacuously all disabled)', () => {
    expect(kind(resolve(snapshot([profile('p', 'Priority', [])]), query('p')))).toBe('NXDOMAIN');
  });

  test('row: query type does not match the chosen endpoint record kind → NODATA', () => {
    const s = snapshot([profile('p', 'Priority', [ext('a', '192.0.2.1')])]);
    expect(kind(resolve(s, query('p', 'AAAA')))).toBe('NODATA');
  });

  test('row: Geographic, client region has no mapping at any level → NODATA', () => {
    const s = snapshot([profile('g', 'Geographic', [ext('eu', 'eu.example.net', { geoMapping: ['GEO-EU'] })])], { geo: geo() });
    const r = resolve(s, query('g', 'A', CLIENT.JP));
    expect(kind(r)).toBe('NODATA');
    expect(r.explanation.at(-1)!.detail).toMatch(/JP → GEO-AS → WORLD: no endpoint maps/);
  });

  test('row: Geographic, matched endpoint Stopped → NODATA, no walk up (a WORLD endpoint exists)', () => {
    const s = snapshot(
      [
        profile('g', 'Geographic', [
          ext('de', 'de.example.net', { geoMapping: ['DE'] }),
          ext('world', 'world.example.net', { geoMapping: ['WORLD'] }),
          nested('n', 'missing-child', { geoMapping: ['FR'] }),
        ]),
      ],
      { geo: geo() },
    );
    // The nested endpoint's child does not exist → Stopped.
    const r = resolve(s, query('g', 'A', CLIENT.FR));
    expect(kind(r)).toBe('NODATA');
    expect(r.explanation.at(-1)!.detail).toMatch(/Stopped.*no walk up/);
  });

  test('row: Geographic, matched Azure endpoint whose resource is stopped → NODATA, no walk up to GEO-EU or WORLD', () => {
    const id = '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/de';
    const s = snapshot(
      [
        profile('g', 'Geographic', [
          azure('de', id, { geoMapping: ['DE'] }),
          ext('europe', 'eu.example.net', { geoMapping: ['GEO-EU'] }),
          ext('world', 'world.example.net', { geoMapping: ['WORLD'] }),
        ]),
      ],
      { geo: geo(), health: { 'g/de': 'Online' }, resources: catalog({ [id]: { target: 'de.azurewebsites.net', state: 'stopped' } }) },
    );
    const r = resolve(s, query('g', 'A', CLIENT.DE));
    expect(kind(r)).toBe('NODATA');
    expect(r.explanation.at(-1)).toMatchObject({ endpoint: 'de', kind: 'nodata' });
    expect(kind(resolve(s, query('g', 'A', CLIENT.FR)))).toBe('NOERROR');
  });

  test('row: Geographic, matched nested endpoint whose child is Disabled → NODATA, no walk up', () => {
    const s = snapshot(
      [
        profile('g', 'Geographic', [
          nested('n', 'child', { geoMapping: ['DE'] }),
          ext('world', 'world.example.net', { geoMapping: ['WORLD'] }),
        ]),
        profile('child', 'Priority', [ext('a', 'a.example.net')], { profileStatus: 'Disabled' }),
      ],
      { geo: geo() },
    );
    expect(kind(resolve(s, query('g', 'A', CLIENT.DE)))).toBe('NODATA');
    expect(kind(resolve(s, query('g', 'A', CLIENT.FR)))).toBe('NOERROR');
  });

  test('row: Subnet, address matches no range and there is no fallback → NODATA (tmkit follows [RM] and docs/dns.md)', () => {
    const s = snapshot([profile('s', 'Subnet', [ext('a', 'a.example.net', { subnets: [sub('198.51.100.0', 24)] })])]);
    const r = resolve(s, query('s', 'A', CLIENT.JP));
    expect(kind(r)).toBe('NODATA');
    expect(r.explanation.at(-1)!.detail).toMatch(/no match and no fallback/);
  });

  test.each([
    ['unhealthy (Degraded)', { endpointStatus: 'Enabled' as const }, { 's/a': 'Degraded' as const, 's/b': 'Online' as const }],
    ['disabled', { endpointStatus: 'Disabled' as const }, { 's/b': 'Online' as const }],
  ])('row: Subnet, address maps to an endpoint that is %s and no fallback exists → NXDOMAIN', (_n, extra, health) => {
    const s = snapshot(
      [
        profile('s', 'Subnet', [
          ext('a', 'a.example.net', { subnets: [sub('198.51.100.0', 24)], ...extra }),
          ext('b', 'b.example.net', { subnets: [sub('192.0.2.0', 24)] }),
        ]),
      ],
      { health },
    );
    const r = resolve(s, query('s', 'A', CLIENT.DE));
    expect(kind(r)).toBe('NXDOMAIN');
    expect(r.explanation.at(-1)!.detail).toMatch(/no available fallback: NXDOMAIN/);
    // the healthy endpoint still answers its own clients
    expect(kind(resolve(s, query('s', 'A', CLIENT.JP)))).toBe('NOERROR');
  });

  test('tmkit: no endpoint available at all (all Stopped) → NODATA', () => {
    const s = snapshot([profile('p', 'Priority', [ext('a', '192.0.2.1'), nested('n', 'gone')])], { health: {} });
    const t = snapshot([profile('p', 'Priority', [nested('n', 'gone')])]);
    expect(kind(resolve(t, query('p')))).toBe('NODATA');
    expect(kind(resolve(s, query('p')))).toBe('NOERROR');
  });
});
