/**
 * behaviors.md §7: the client address used for routing, and the ECS scope of the response.
 */
import { answer, resolve } from '../../../src/core/routing';
import { ext, nested, profile, query, snapshot } from '../../../src/testing/builders';
import { seededRng } from '../../../src/testing/rng';
import { CLIENT, dist, geo } from './fixtures';

const s = snapshot(
  [
    profile('prio', 'Priority', [ext('a', 'a.example.net')]),
    profile('weighted', 'Weighted', [ext('a', 'a.example.net'), ext('b', 'b.example.net')]),
    profile('mv', 'MultiValue', [ext('a', '192.0.2.1')]),
    profile('perf', 'Performance', [
      ext('weu', 'weu.example.net', { endpointLocation: 'westeurope' }),
      ext('wus', 'wus.example.net', { endpointLocation: 'westus' }),
    ]),
    profile('geo', 'Geographic', [
      ext('eu', 'eu.example.net', { geoMapping: ['GEO-EU'] }),
      ext('w', 'w.example.net', { geoMapping: ['WORLD'] }),
    ]),
    profile('subnet', 'Subnet', [
      ext('a', 'a.example.net', { subnets: [{ first: '198.51.100.0', scope: 24 }] }),
      ext('f', 'f.example.net'),
    ]),
    profile('wrap', 'Priority', [nested('n', 'perf')]),
  ],
  { geo: geo() },
);

describe('§7 ECS scope', () => {
  test.each([
    ['Priority (does not depend on the client) → scope 0', 'prio', 0],
    ['Weighted → scope 0', 'weighted', 0],
    ['MultiValue → scope 0', 'mv', 0],
    ['Performance → scope = ECS source prefix', 'perf', 24],
    ['Geographic → scope = ECS source prefix', 'geo', 24],
    ['Subnet → scope = ECS source prefix', 'subnet', 24],
    ['Priority over a nested Performance child → scope = ECS source prefix', 'wrap', 24],
  ])('%s', (_n, name, scope) => {
    expect(resolve(s, query(name, 'A', CLIENT.DE, 24)).ecsScopePrefix).toBe(scope);
    expect(answer(s, query(name, 'A', CLIENT.DE, 24), seededRng(1)).ecsScopePrefix).toBe(scope);
  });

  test('no ECS in the query → no scope in the result', () => {
    expect(resolve(s, query('perf', 'A', CLIENT.DE)).ecsScopePrefix).toBeUndefined();
  });

  test('IPv6 ECS address is used like any client address (Geographic, Irish /56)', () => {
    const r = resolve(s, query('geo', 'A', '2001:db8:1:100::', 56));
    expect(dist(r)).toEqual({ 'geo/eu': 1 });
    expect(r.ecsScopePrefix).toBe(56);
  });

  test('the routing address decides (the DNS layer passes the ECS address when present): DE vs JP clients differ', () => {
    expect(dist(resolve(s, query('perf', 'A', CLIENT.DE, 24)))).toEqual({ 'perf/weu': 1 });
    expect(dist(resolve(s, query('perf', 'A', CLIENT.JP, 24)))).toEqual({ 'perf/wus': 1 });
  });

  test('client-dependent answers are not cached across clients', () => {
    expect(dist(resolve(s, query('wrap', 'A', CLIENT.JP)))).toEqual({ 'perf/wus': 1 });
    expect(dist(resolve(s, query('wrap', 'A', CLIENT.DE)))).toEqual({ 'perf/weu': 1 });
  });
});
