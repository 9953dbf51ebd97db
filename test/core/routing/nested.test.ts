/**
 * behaviors.md §5 "Nested endpoints" and the six nested-profile scenarios of the Azure docs (seeds):
 * performance+weighted, MinChildEndpoints=2 failover, prioritised regional failover, per-region weighted
 * split, per-endpoint monitoring settings, IPv4/IPv6 minimum children.
 */
import { profileMonitorStatuses, resolve } from '../../../src/core/routing';
import { ext, nested, profile, query, snapshot } from '../../../src/testing/builders';
import { CLIENT, dist, expectDist, geo, kind, recs } from './fixtures';

describe('nested-profile scenarios', () => {
  test('1. Performance + Weighted: a trial deployment gets 10% of West Europe traffic, the US is unaffected', () => {
    const s = snapshot(
      [
        profile('global', 'Performance', [
          nested('weu', 'weu-weighted', { endpointLocation: 'westeurope' }),
          ext('us', 'us.example.net', { endpointLocation: 'westus' }),
        ]),
        profile('weu-weighted', 'Weighted', [
          ext('prod', 'prod-weu.example.net', { weight: 9 }),
          ext('trial', 'trial-weu.example.net', { weight: 1 }),
        ]),
      ],
      { geo: geo(), health: { 'weu-weighted/prod': 'Online', 'weu-weighted/trial': 'Online', 'global/us': 'Online' } },
    );
    expectDist(resolve(s, query('global', 'A', CLIENT.DE)), { 'weu-weighted/prod': 0.9, 'weu-weighted/trial': 0.1 });
    expectDist(resolve(s, query('global', 'A', CLIENT.US_CA)), { 'global/us': 1 });
  });

  describe('2. MinChildEndpoints=2: the parent fails over when fewer than 2 child endpoints are available', () => {
    const build = (health: Record<string, 'Online' | 'Degraded'>) =>
      snapshot(
        [
          profile('global', 'Performance', [
            nested('weu', 'weu-pool', { endpointLocation: 'westeurope', minChildEndpoints: 2 }),
            ext('neu', 'neu.example.net', { endpointLocation: 'northeurope' }),
          ]),
          profile('weu-pool', 'Weighted', [ext('a', 'a.example.net'), ext('b', 'b.example.net'), ext('c', 'c.example.net')]),
        ],
        { geo: geo(), health: { 'global/neu': 'Online', ...health } },
      );

    test('3 of 3 online → the child answers', () => {
      const s = build({ 'weu-pool/a': 'Online', 'weu-pool/b': 'Online', 'weu-pool/c': 'Online' });
      expectDist(resolve(s, query('global', 'A', CLIENT.DE)), { 'weu-pool/a': 1 / 3, 'weu-pool/b': 1 / 3, 'weu-pool/c': 1 / 3 });
    });
    test('2 of 3 online → still the child (the degraded one excluded there)', () => {
      const s = build({ 'weu-pool/a': 'Online', 'weu-pool/b': 'Online', 'weu-pool/c': 'Degraded' });
      expectDist(resolve(s, query('global', 'A', CLIENT.DE)), { 'weu-pool/a': 0.5, 'weu-pool/b': 0.5 });
    });
    test('1 of 3 online → nested endpoint Degraded, parent routes to the next-closest region', () => {
      const s = build({ 'weu-pool/a': 'Online', 'weu-pool/b': 'Degraded', 'weu-pool/c': 'Degraded' });
      expect(profileMonitorStatuses(s, 'global')!.endpoints[0]!.endpointMonitorStatus).toBe('Degraded');
      expectDist(resolve(s, query('global', 'A', CLIENT.DE)), { 'global/neu': 1 });
    });
  });

  test('3. prioritised failover regions: each region a Priority child with the other region as backup', () => {
    const s = snapshot(
      [
        profile('global', 'Performance', [
          nested('eu', 'eu-prio', { endpointLocation: 'westeurope' }),
          nested('us', 'us-prio', { endpointLocation: 'westus' }),
        ]),
        profile('eu-prio', 'Priority', [ext('weu', 'weu.example.net', { priority: 1 }), ext('wus', 'wus.example.net', { priority: 2 })]),
        profile('us-prio', 'Priority', [ext('wus', 'wus.example.net', { priority: 1 }), ext('weu', 'weu.example.net', { priority: 2 })]),
      ],
      { geo: geo(), health: { 'eu-prio/weu': 'Degraded', 'eu-prio/wus': 'Online', 'us-prio/wus': 'Online', 'us-prio/weu': 'Degraded' } },
    );
    // European users stay on their child profile, which fails over to its priority-2 endpoint.
    const r = resolve(s, query('global', 'A', CLIENT.DE));
    expectDist(r, { 'eu-prio/wus': 1 });
    expect(recs(r)).toEqual(['CNAME wus.example.net']);
    expectDist(resolve(s, query('global', 'A', CLIENT.US_CA)), { 'us-prio/wus': 1 });
  });

  test('4. per-region weighted split: Performance splits evenly, a Weighted child gives 2:1 inside West Europe', () => {
    const s = snapshot(
      [
        profile('global', 'Performance', [
          nested('weu', 'weu-split', { endpointLocation: 'westeurope' }),
          ext('jpe', 'jpe.example.net', { endpointLocation: 'japaneast' }),
        ]),
        profile('weu-split', 'Weighted', [ext('big', 'big.example.net', { weight: 2 }), ext('small', 'small.example.net', { weight: 1 })]),
      ],
      { geo: geo() },
    );
    expectDist(resolve(s, query('global', 'A', CLIENT.FR)), { 'weu-split/big': 2 / 3, 'weu-split/small': 1 / 3 });
    expectDist(resolve(s, query('global', 'A', CLIENT.JP)), { 'global/jpe': 1 });
  });

  test('5. per-endpoint monitoring settings: each endpoint wrapped in its own child profile with its own probe', () => {
    const http = profile('app-http', 'Priority', [ext('app', 'app.example.net')], {
      monitorConfig: { protocol: 'HTTP', port: 80, path: '/health' },
    });
    const tcp = profile('app-tcp', 'Priority', [ext('app', 'legacy.example.net')], { monitorConfig: { protocol: 'TCP', port: 8443 } });
    expect(http.monitorConfig).not.toEqual(tcp.monitorConfig);
    const parent = profile('front', 'Weighted', [nested('modern', 'app-http'), nested('legacy', 'app-tcp')]);
    // The probe verdict belongs to the child profile's endpoint (probed with that child's settings).
    const s = snapshot([parent, http, tcp], { health: { 'app-http/app': 'Online', 'app-tcp/app': 'Degraded' } });
    const r = resolve(s, query('front'));
    expectDist(r, { 'app-http/app': 1 });
    expect(r.explanation.find((e) => e.endpoint === 'legacy')!.detail).toMatch(/child profile 'app-tcp' is Degraded/);
    const both = snapshot([parent, http, tcp], { health: { 'app-http/app': 'Online', 'app-tcp/app': 'Online' } });
    expectDist(resolve(both, query('front')), { 'app-http/app': 0.5, 'app-tcp/app': 0.5 });
  });

  describe('6. IPv4/IPv6 minimum children: a MultiValue child counts as available only with enough of each family', () => {
    const mv = (name: string, prefix: string) =>
      profile(
        name,
        'MultiValue',
        [
          ext('v4a', `${prefix}.1`),
          ext('v4b', `${prefix}.2`),
          ext('v6a', `2001:db8:${prefix.split('.')[2]}::1`),
          ext('v6b', `2001:db8:${prefix.split('.')[2]}::2`),
        ],
        { maxReturn: 4 },
      );
    const build = (health: Record<string, 'Online' | 'Degraded'>) =>
      snapshot(
        [
          profile('front', 'Priority', [
            nested('primary', 'mv-primary', { minChildEndpoints: 2, minChildEndpointsIPv4: 2, minChildEndpointsIPv6: 2 }),
            nested('backup', 'mv-backup', { minChildEndpoints: 1, minChildEndpointsIPv4: 1, minChildEndpointsIPv6: 1 }),
          ]),
          mv('mv-primary', '192.0.2'),
          mv('mv-backup', '198.51.100'),
        ],
        {
          health: {
            'mv-primary/v4a': 'Online',
            'mv-primary/v4b': 'Online',
            'mv-primary/v6a': 'Online',
            'mv-primary/v6b': 'Online',
            ...health,
          },
        },
      );

    test('both families at their minimum → the primary answers A with its IPv4 endpoints and AAAA with its IPv6 ones', () => {
      const s = build({});
      expect(recs(resolve(s, query('front', 'A')))).toEqual(['A 192.0.2.1', 'A 192.0.2.2']);
      expect(recs(resolve(s, query('front', 'AAAA')))).toEqual(['AAAA 2001:db8:2::1', 'AAAA 2001:db8:2::2']);
    });

    test('one IPv6 endpoint down (3 available ≥ MinChildEndpoints 2, but IPv6 1 < 2) → primary Degraded, backup answers', () => {
      const s = build({ 'mv-primary/v6b': 'Degraded' });
      expect(profileMonitorStatuses(s, 'front')!.endpoints[0]).toMatchObject({
        endpointMonitorStatus: 'Degraded',
        reason: expect.stringMatching(/MinChildEndpointsIPv6=2: 1 online/),
      });
      expect(dist(resolve(s, query('front', 'A')))).toEqual({ 'mv-backup/v4a+mv-backup/v4b': 1 });
    });
  });
});

describe('§5 nested endpoints', () => {
  test('a query to the parent gets an endpoint chosen inside the child in one answer (recursion to the leaf, 3 levels)', () => {
    const s = snapshot([
      profile('top', 'Priority', [nested('mid', 'mid')]),
      profile('mid', 'Priority', [nested('leaf', 'leaf')]),
      profile('leaf', 'Priority', [ext('x', 'x.example.net')]),
    ]);
    const r = resolve(s, query('top'));
    expect(recs(r)).toEqual(['CNAME x.example.net']);
    expect(r.outcomes[0]!.records[0]!.name).toBe('top.tm.test');
    expect(r.explanation.filter((e) => e.kind === 'nested').map((e) => e.profile)).toEqual(['top', 'mid']);
  });

  test('probabilities are exact products through nesting (Weighted over Weighted over Weighted)', () => {
    const s = snapshot([
      profile('a', 'Weighted', [nested('b', 'b', { weight: 3 }), ext('a1', 'a1.example.net', { weight: 1 })]),
      profile('b', 'Weighted', [nested('c', 'c', { weight: 1 }), ext('b1', 'b1.example.net', { weight: 4 })]),
      profile('c', 'Weighted', [ext('c1', 'c1.example.net', { weight: 2 }), ext('c2', 'c2.example.net', { weight: 5 })]),
    ]);
    expectDist(resolve(s, query('a')), {
      'a/a1': 1 / 4,
      'b/b1': (3 / 4) * (4 / 5),
      'c/c1': (3 / 4) * (1 / 5) * (2 / 7),
      'c/c2': (3 / 4) * (1 / 5) * (5 / 7),
    });
  });

  test('traffic can go to a nested endpoint that is in CheckingEndpoint', () => {
    const s = snapshot(
      [
        profile('p', 'Priority', [nested('n', 'child'), ext('backup', 'backup.example.net')]),
        profile('child', 'Priority', [ext('x', 'x.example.net')]),
      ],
      { health: { 'child/x': 'CheckingEndpoint' } },
    );
    expect(profileMonitorStatuses(s, 'p')!.endpoints[0]!.endpointMonitorStatus).toBe('CheckingEndpoint');
    expectDist(resolve(s, query('p')), { 'child/x': 1 });
  });

  test.each([
    ['Disabled child profile', { profileStatus: 'Disabled' as const }, []],
    ['Inactive child (all endpoints disabled)', {}, [{ endpointStatus: 'Disabled' as const }]],
  ])('%s → nested endpoint Stopped, parent routes elsewhere', (_n, childExtra, epExtra) => {
    const s = snapshot([
      profile('p', 'Priority', [nested('n', 'child'), ext('backup', 'backup.example.net')]),
      profile('child', 'Priority', [ext('x', 'x.example.net', epExtra[0] ?? {})], childExtra),
    ]);
    expect(profileMonitorStatuses(s, 'p')!.endpoints[0]!.endpointMonitorStatus).toBe('Stopped');
    expectDist(resolve(s, query('p')), { 'p/backup': 1 });
  });

  test('the child answers with its own method and type rules: an A query through to an IPv6 child endpoint is NODATA', () => {
    const s = snapshot([
      profile('p', 'Weighted', [nested('n', 'child'), ext('v4', '192.0.2.1')]),
      profile('child', 'Priority', [ext('v6', '2001:db8::1')]),
    ]);
    expectDist(resolve(s, query('p', 'A')), { '(nodata)': 0.5, 'p/v4': 0.5 });
  });

  test('a child that would answer NXDOMAIN (Subnet: matched endpoint unhealthy) gives NODATA below the parent (the parent name exists)', () => {
    const s = snapshot(
      [
        profile('p', 'Priority', [nested('n', 'child')]),
        profile('child', 'Subnet', [
          ext('a', 'a.example.net', { subnets: [{ first: '198.51.100.0', scope: 24 }] }),
          ext('b', 'b.example.net', { subnets: [{ first: '192.0.2.0', scope: 24 }] }),
        ]),
      ],
      { health: { 'child/a': 'Degraded', 'child/b': 'Online' } },
    );
    const r = resolve(s, query('p', 'A', CLIENT.DE));
    expect(kind(r)).toBe('NODATA');
    expect(r.clientDependent).toBe(true);
  });

  test('the all-degraded fallback works level by level: all parent endpoints Degraded → into the degraded child, which falls back too', () => {
    const s = snapshot(
      [
        profile('p', 'Priority', [nested('n', 'child'), ext('other', 'other.example.net')]),
        profile('child', 'Weighted', [ext('x', 'x.example.net'), ext('y', 'y.example.net')]),
      ],
      { health: { 'p/other': 'Degraded', 'child/x': 'Degraded', 'child/y': 'Degraded' } },
    );
    expect(profileMonitorStatuses(s, 'p')!.allDegradedFallback).toBe(true);
    expectDist(resolve(s, query('p')), { 'child/x': 0.5, 'child/y': 0.5 });
  });
});
