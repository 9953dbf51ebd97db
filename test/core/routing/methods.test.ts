/**
 * behaviors.md §5: every routing method, one named test per documented behaviour.
 */
import { resolve } from '../../../src/core/routing';
import { azure, catalog, ext, nested, profile, query, snapshot } from '../../../src/testing/builders';
import { CLIENT, dist, expectDist, geo, kind, recs } from './fixtures';

const sub = (first: string, scope?: number, last?: string) => ({
  first,
  ...(scope !== undefined ? { scope } : {}),
  ...(last !== undefined ? { last } : {}),
});

describe('§5 Priority', () => {
  const p = profile('p', 'Priority', [
    ext('third', '192.0.2.3', { priority: 30 }),
    ext('first', '192.0.2.1', { priority: 1 }),
    ext('second', '192.0.2.2', { priority: 2 }),
  ]);
  test.each([
    ['all available → priority 1', {}, 'p/first'],
    ['priority 1 Degraded → priority 2', { 'p/first': 'Degraded' as const }, 'p/second'],
    ['priority 1 and 2 Degraded → priority 30', { 'p/first': 'Degraded' as const, 'p/second': 'Degraded' as const }, 'p/third'],
  ])('%s', (_n, health, expected) => {
    expect(dist(resolve(snapshot([p], { health }), query('p')))).toEqual({ [expected]: 1 });
  });

  test('a disabled priority-1 endpoint is skipped', () => {
    const q = profile('q', 'Priority', [ext('a', '192.0.2.1', { endpointStatus: 'Disabled' }), ext('b', '192.0.2.2')]);
    expect(dist(resolve(snapshot([q]), query('q')))).toEqual({ 'q/b': 1 });
  });

  test('priorities derived from the order when none given', () => {
    const q = profile('q', 'Priority', [ext('a', '192.0.2.1'), ext('b', '192.0.2.2')]);
    expect(dist(resolve(snapshot([q]), query('q')))).toEqual({ 'q/a': 1 });
  });
});

describe('§5 Weighted', () => {
  test('probability weight_i / Σ weights of available endpoints', () => {
    const s = snapshot(
      [
        profile('w', 'Weighted', [
          ext('a', '192.0.2.1', { weight: 1 }),
          ext('b', '192.0.2.2', { weight: 3 }),
          ext('c', '192.0.2.3', { weight: 6 }),
        ]),
      ],
      { health: { 'w/c': 'Degraded' } },
    );
    expectDist(resolve(s, query('w')), { 'w/a': 0.25, 'w/b': 0.75 });
  });

  test('equal weights → even split', () => {
    const s = snapshot([profile('w', 'Weighted', [ext('a', '192.0.2.1'), ext('b', '192.0.2.2'), ext('c', '192.0.2.3')])]);
    expectDist(resolve(s, query('w')), { 'w/a': 1 / 3, 'w/b': 1 / 3, 'w/c': 1 / 3 });
  });
});

describe('§5 Performance', () => {
  const eps = [
    ext('weu1', 'weu1.example.net', { endpointLocation: 'West Europe' }),
    ext('weu2', 'weu2.example.net', { endpointLocation: 'westeurope' }),
    ext('neu', 'neu.example.net', { endpointLocation: 'northeurope' }),
    ext('wus', 'wus.example.net', { endpointLocation: 'westus' }),
    ext('jpe', 'jpe.example.net', { endpointLocation: 'japaneast' }),
  ];
  test('German client → West Europe (lowest latency): its two endpoints split the clients evenly; one client always gets the same one', () => {
    const s = snapshot([profile('p', 'Performance', eps)], { geo: geo() });
    const one = resolve(s, query('p', 'A', CLIENT.DE));
    expect(one.outcomes).toHaveLength(1);
    expect(one.outcomes[0]!.probability).toBe(1);
    expect(['p/weu1', 'p/weu2']).toContain(one.outcomes[0]!.endpoints[0]);
    expect(one.explanation.at(-1)!.detail).toMatch(
      /2 endpoints split its clients evenly, and the hash of client 198\.51\.100\.10 picks this one/,
    );
    expect(dist(resolve(s, query('p', 'A', CLIENT.DE)))).toEqual(dist(one));
    // all the clients routed like this one (the preview's view): the split itself
    expectDist(resolve(s, { ...query('p', 'A', CLIENT.DE), population: true }), { 'p/weu1': 0.5, 'p/weu2': 0.5 });
  });

  test.each([
    ['Irish client → North Europe', CLIENT.IE, { 'p/neu': 1 }],
    ['US client → West US', CLIENT.US_CA, { 'p/wus': 1 }],
    ['Japanese client → Japan East', CLIENT.JP, { 'p/jpe': 1 }],
  ])('%s', (_n, client, expected) => {
    const s = snapshot([profile('p', 'Performance', eps)], { geo: geo() });
    const r = resolve(s, query('p', 'A', client));
    expectDist(r, expected);
    expect(r.clientDependent).toBe(true);
  });

  test('all endpoints of the closest region unavailable → next-closest region', () => {
    const s = snapshot([profile('p', 'Performance', eps)], { geo: geo(), health: { 'p/weu1': 'Degraded', 'p/weu2': 'Degraded' } });
    const r = resolve(s, query('p', 'A', CLIENT.DE));
    expectDist(r, { 'p/neu': 1 });
    expect(r.explanation.some((e) => /westeurope \(10 ms\) has no available endpoint/.test(e.detail))).toBe(true);
  });

  test('one endpoint of the closest region unavailable → the rest of that region', () => {
    const s = snapshot([profile('p', 'Performance', eps)], { geo: geo(), health: { 'p/weu1': 'Degraded' } });
    expectDist(resolve(s, query('p', 'A', CLIENT.DE)), { 'p/weu2': 1 });
  });

  test('deterministic for a given source: same client, same answer', () => {
    const s = snapshot([profile('p', 'Performance', eps)], { geo: geo() });
    expect(dist(resolve(s, query('p', 'A', CLIENT.US_CA)))).toEqual(dist(resolve(s, query('p', 'A', CLIENT.US_CA))));
  });

  test('Azure endpoint region comes from the resource catalog', () => {
    const id = '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/app';
    const s = snapshot([profile('p', 'Performance', [azure('app', id), ext('us', 'us.example.net', { endpointLocation: 'westus' })])], {
      geo: geo(),
      resources: catalog({ [id]: { target: 'app.azurewebsites.net', location: 'West Europe', state: 'running' } }),
    });
    expectDist(resolve(s, query('p', 'A', CLIENT.DE)), { 'p/app': 1 });
  });

  test('Azure endpoint not in the catalog: region from the inline endpointLocation', () => {
    const s = snapshot(
      [
        profile('p', 'Performance', [
          azure('app', '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/other', {
            target: 'other.example.net',
            endpointLocation: 'japaneast',
          }),
          ext('eu', 'eu.example.net', { endpointLocation: 'westeurope' }),
        ]),
      ],
      { geo: geo() },
    );
    expectDist(resolve(s, query('p', 'A', CLIENT.JP)), { 'p/app': 1 });
  });

  test('Nested endpoint region is its endpointLocation', () => {
    const s = snapshot(
      [
        profile('p', 'Performance', [
          nested('eu', 'child', { endpointLocation: 'westeurope' }),
          ext('us', 'us.example.net', { endpointLocation: 'westus' }),
        ]),
        profile('child', 'Priority', [ext('x', 'x.example.net')]),
      ],
      { geo: geo() },
    );
    expectDist(resolve(s, query('p', 'A', CLIENT.FR)), { 'child/x': 1 });
  });

  test('unknown client location → every available endpoint in one tier (tmkit choice), split evenly over clients', () => {
    const s = snapshot([profile('p', 'Performance', [eps[0]!, eps[3]!])], { geo: geo() });
    expectDist(resolve(s, { ...query('p', 'A', CLIENT.UNKNOWN), population: true }), { 'p/weu1': 0.5, 'p/wus': 0.5 });
    const one = dist(resolve(s, query('p', 'A', CLIENT.UNKNOWN)));
    expect(Object.values(one)).toEqual([1]);
    expect(['p/weu1', 'p/wus']).toContain(Object.keys(one)[0]);
  });

  describe('subnet override', () => {
    const withOverride = [
      ext('weu', 'weu.example.net', { endpointLocation: 'westeurope' }),
      ext('wus', 'wus.example.net', { endpointLocation: 'westus', subnets: [sub('198.51.100.0', 24)] }),
    ];
    test('a matching subnet wins over latency when its endpoint is available', () => {
      const r = resolve(snapshot([profile('p', 'Performance', withOverride)], { geo: geo() }), query('p', 'A', CLIENT.DE));
      expectDist(r, { 'p/wus': 1 });
      expect(r.explanation.at(-1)!.kind).toBe('subnet-override');
    });
    test('a matching subnet whose endpoint is unhealthy → normal Performance routing', () => {
      const r = resolve(
        snapshot([profile('p', 'Performance', withOverride)], { geo: geo(), health: { 'p/wus': 'Degraded' } }),
        query('p', 'A', CLIENT.DE),
      );
      expectDist(r, { 'p/weu': 1 });
    });
  });
});

describe('§5 Geographic', () => {
  const eps = [
    ext('ie', 'ie.example.net', { geoMapping: ['IE'] }),
    ext('europe', 'europe.example.net', { geoMapping: ['GEO-EU'] }),
    ext('california', 'ca.example.net', { geoMapping: ['US-CA'] }),
    ext('us', 'us.example.net', { geoMapping: ['US', 'JP'] }),
    ext('world', 'world.example.net', { geoMapping: ['WORLD'] }),
  ];
  test.each([
    ['state/province first: California client → US-CA endpoint', CLIENT.US_CA, 'g/california'],
    ['then country: Texas client (no US-TX mapping) → US endpoint', CLIENT.US_TX, 'g/us'],
    ['most specific wins: Irish client → IE endpoint, not the Europe one', CLIENT.IE, 'g/ie'],
    ['then regional grouping: German client → GEO-EU endpoint', CLIENT.DE, 'g/europe'],
    ['then WORLD: Chinese client → WORLD endpoint', CLIENT.CN, 'g/world'],
    ['unknown location → WORLD', CLIENT.UNKNOWN, 'g/world'],
  ])('%s', (_n, client, expected) => {
    expect(dist(resolve(snapshot([profile('g', 'Geographic', eps)], { geo: geo() }), query('g', 'A', client)))).toEqual({ [expected]: 1 });
  });

  test('the matched endpoint answers whether healthy or not (no failover to the parent region)', () => {
    const r = resolve(
      snapshot([profile('g', 'Geographic', eps)], { geo: geo(), health: { 'g/ie': 'Degraded', 'g/europe': 'Online' } }),
      query('g', 'A', CLIENT.IE),
    );
    expect(dist(r)).toEqual({ 'g/ie': 1 });
    expect(r.explanation.at(-1)!.detail).toMatch(/regardless of health \(status Degraded\)/);
  });

  test('a Disabled endpoint takes no part in matching: the parent-level mapping matches instead', () => {
    const e2 = eps.map((e) => (e.name === 'ie' ? { ...e, endpointStatus: 'Disabled' as const } : e));
    expect(dist(resolve(snapshot([profile('g', 'Geographic', e2)], { geo: geo() }), query('g', 'A', CLIENT.IE)))).toEqual({
      'g/europe': 1,
    });
  });

  test('matched nested endpoint → the child routes by its own method', () => {
    const s = snapshot(
      [
        profile('g', 'Geographic', [
          nested('eu', 'eu-child', { geoMapping: ['GEO-EU'] }),
          ext('world', 'w.example.net', { geoMapping: ['WORLD'] }),
        ]),
        profile('eu-child', 'Weighted', [ext('a', 'a.example.net'), ext('b', 'b.example.net')]),
      ],
      { geo: geo() },
    );
    expectDist(resolve(s, query('g', 'A', CLIENT.FR)), { 'eu-child/a': 0.5, 'eu-child/b': 0.5 });
  });

  test('subnet override wins regardless of the endpoint health', () => {
    const e2 = [...eps.slice(0, 4), ext('world', 'world.example.net', { geoMapping: ['WORLD'], subnets: [sub('198.51.100.0', 24)] })];
    const r = resolve(
      snapshot([profile('g', 'Geographic', e2)], { geo: geo(), health: { 'g/world': 'Degraded' } }),
      query('g', 'A', CLIENT.DE),
    );
    expect(dist(r)).toEqual({ 'g/world': 1 });
  });
});

describe('§5 Subnet', () => {
  const eps = [
    ext('cidr4', 'cidr4.example.net', { subnets: [sub('198.51.100.0', 24)] }),
    ext('range4', 'range4.example.net', { subnets: [sub('192.0.2.0', undefined, '192.0.2.127')] }),
    ext('single4', 'single4.example.net', { subnets: [sub('203.0.113.10')] }),
    ext('cidr6', 'cidr6.example.net', { subnets: [sub('2001:db8:1::', 48)] }),
    ext('range6', 'range6.example.net', { subnets: [sub('2001:db8:2::1', undefined, '2001:db8:2::ff')] }),
    ext('fallback', 'fallback.example.net'),
  ];
  test.each([
    ['IPv4 CIDR', '198.51.100.200', 's/cidr4'],
    ['IPv4 first–last range', '192.0.2.127', 's/range4'],
    ['just past an IPv4 range → fallback', '192.0.2.128', 's/fallback'],
    ['IPv4 single address', '203.0.113.10', 's/single4'],
    ['IPv4 next to a single address → fallback', '203.0.113.11', 's/fallback'],
    ['IPv4-mapped IPv6 client matches the IPv4 range', '::ffff:198.51.100.1', 's/cidr4'],
    ['IPv6 CIDR', '2001:db8:1:ffff::1', 's/cidr6'],
    ['IPv6 first–last range', '2001:db8:2::80', 's/range6'],
    ['IPv6 outside every range → fallback', '2001:db8:3::1', 's/fallback'],
    ['no match → the endpoint without subnets (fallback)', '100.64.0.1', 's/fallback'],
  ])('%s: %s → %s', (_n, client, expected) => {
    const r = resolve(snapshot([profile('s', 'Subnet', eps)]), query('s', 'A', client));
    expect(dist(r)).toEqual({ [expected]: 1 });
    expect(r.clientDependent).toBe(true);
  });

  test('a Disabled endpoint behaves as if it and its ranges did not exist → fallback', () => {
    const e2 = eps.map((e) => (e.name === 'cidr4' ? { ...e, endpointStatus: 'Disabled' as const } : e));
    expect(dist(resolve(snapshot([profile('s', 'Subnet', e2)]), query('s', 'A', '198.51.100.1')))).toEqual({ 's/fallback': 1 });
  });

  test('matched endpoint unhealthy, fallback available → fallback (tmkit)', () => {
    expect(
      dist(resolve(snapshot([profile('s', 'Subnet', eps)], { health: { 's/cidr4': 'Degraded' } }), query('s', 'A', '198.51.100.1'))),
    ).toEqual({ 's/fallback': 1 });
  });

  test('no match, fallback unhealthy → NODATA (tmkit)', () => {
    const r = resolve(snapshot([profile('s', 'Subnet', eps)], { health: { 's/fallback': 'Degraded' } }), query('s', 'A', '100.64.0.1'));
    expect(kind(r)).toBe('NODATA');
  });
});

describe('§5 MultiValue', () => {
  const eps = ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '2001:db8::1'].map((ip, i) => ext(`e${i + 1}`, ip));

  test('returns only healthy endpoints', () => {
    const s = snapshot([profile('mv', 'MultiValue', eps, { maxReturn: 8 })], { health: { 'mv/e2': 'Degraded', 'mv/e3': 'Online' } });
    expect(recs(resolve(s, query('mv', 'A')))).toEqual(['A 192.0.2.1', 'A 192.0.2.3', 'A 192.0.2.4']);
  });

  test('maxReturn defaults to 2', () => {
    const p = profile('mv', 'MultiValue', eps);
    expect(p.maxReturn).toBe(2);
    expect(resolve(snapshot([p]), query('mv', 'A')).outcomes.every((o) => o.records.length === 2)).toBe(true);
  });

  test('more available than maxReturn → n equally likely rotating windows of maxReturn records; each endpoint gets an equal share', () => {
    const r = resolve(snapshot([profile('mv', 'MultiValue', eps, { maxReturn: 3 })]), query('mv', 'A'));
    expectDist(r, { 'mv/e1+mv/e2+mv/e3': 0.25, 'mv/e2+mv/e3+mv/e4': 0.25, 'mv/e3+mv/e4+mv/e1': 0.25, 'mv/e4+mv/e1+mv/e2': 0.25 });
    const share: Record<string, number> = {};
    for (const o of r.outcomes) for (const e of o.endpoints) share[e] = (share[e] ?? 0) + o.probability;
    expect(Object.values(share).every((v) => Math.abs(v - 0.75) < 1e-12)).toBe(true);
  });

  test('at most maxReturn even for ANY over both families', () => {
    const r = resolve(snapshot([profile('mv', 'MultiValue', eps, { maxReturn: 4 })]), query('mv', 'ANY'));
    expect(r.outcomes).toHaveLength(5);
    expect(r.outcomes.every((o) => o.records.length === 4)).toBe(true);
  });

  test('all endpoints Degraded → all-degraded fallback answers them', () => {
    const s = snapshot([profile('mv', 'MultiValue', eps.slice(0, 2), { maxReturn: 2 })], {
      health: { 'mv/e1': 'Degraded', 'mv/e2': 'Degraded' },
    });
    expect(recs(resolve(s, query('mv', 'A')))).toEqual(['A 192.0.2.1', 'A 192.0.2.2']);
  });

  test('no healthy endpoint of the queried family → NODATA', () => {
    const s = snapshot([profile('mv', 'MultiValue', eps)], { health: { 'mv/e5': 'Degraded' } });
    expect(kind(resolve(s, query('mv', 'AAAA')))).toBe('NODATA');
  });
});
