/**
 * behaviors.md §1 (names, zone, TTL) and §2 (shape of the answer, both record-type tables).
 */
import { resolve } from '../../../src/core/routing';
import { azure, catalog, ext, nested, profile, query, snapshot, TEST_ZONE } from '../../../src/testing/builders';
import { kind, recs } from './fixtures';

describe('§1 names and zone', () => {
  const s = snapshot([
    profile('contoso', 'Priority', [ext('a', '192.0.2.1')]),
    profile('deep', 'Priority', [ext('a', '192.0.2.2')], { dnsConfig: { relativeName: 'app.eu', ttl: 30 } }),
  ]);

  test.each([
    ['exact lower-case name', 'contoso.tm.test'],
    ['upper/mixed case', 'CoNtOsO.TM.Test'],
    ['trailing dot', 'contoso.tm.test.'],
  ])('a profile answers at <relativeName>.<zone>: %s', (_n, name) => {
    const r = resolve(s, { name, type: 'A', clientAddress: '192.0.2.99' });
    expect(r.rcode).toBe('NOERROR');
    expect(r.nameMatch).toBe('profile');
    expect(recs(r)).toEqual(['A 192.0.2.1']);
    expect(r.outcomes[0]!.records[0]!.name).toBe('contoso.tm.test');
  });

  test('a dotted relativeName answers at its full name', () => {
    expect(recs(resolve(s, query('app.eu')))).toEqual(['A 192.0.2.2']);
  });

  test.each([
    ['a name outside the zone → REFUSED', 'contoso.example.com', 'REFUSED', 'outside-zone'],
    ['a name that merely ends like the zone → REFUSED', 'contoso.xtm.test', 'REFUSED', 'outside-zone'],
    ['the zone apex → NXDOMAIN for routing (the DNS layer answers SOA/NS)', TEST_ZONE, 'NXDOMAIN', 'apex'],
    ['an unknown name under the zone → NXDOMAIN', 'nope.tm.test', 'NXDOMAIN', 'no-profile'],
    ['a name below a profile name → NXDOMAIN', 'x.contoso.tm.test', 'NXDOMAIN', 'no-profile'],
    [
      'an empty non-terminal above a dotted relativeName → NODATA (not NXDOMAIN, for QNAME minimisation)',
      'eu.tm.test',
      'NODATA',
      'empty-non-terminal',
    ],
  ])('%s', (_n, name, expected, match) => {
    const r = resolve(s, { name, type: 'A', clientAddress: '192.0.2.99' });
    expect(kind(r)).toBe(expected);
    expect(r.nameMatch).toBe(match);
    expect(r.explanation[0]!.detail.length).toBeGreaterThan(10);
  });

  test.each([0, 1, 30, 2147483647])('every answer carries the profile TTL (%i)', (ttl) => {
    const t = snapshot([profile('p', 'Priority', [ext('a', 'a.example.net')], { dnsConfig: { relativeName: 'p', ttl } })]);
    expect(resolve(t, query('p')).outcomes[0]!.records[0]!.ttl).toBe(ttl);
  });

  test('nested answers carry the TTL of the profile the query named (tmkit choice), not the child TTL', () => {
    const t = snapshot([
      profile('parent', 'Priority', [nested('n', 'child')], { dnsConfig: { relativeName: 'parent', ttl: 60 } }),
      profile('child', 'Priority', [ext('a', 'a.example.net')], { dnsConfig: { relativeName: 'child', ttl: 5 } }),
    ]);
    expect(resolve(t, query('parent')).outcomes[0]!.records[0]).toEqual({
      type: 'CNAME',
      name: 'parent.tm.test',
      ttl: 60,
      data: 'a.example.net',
    });
    expect(resolve(t, query('child')).outcomes[0]!.records[0]!.ttl).toBe(5);
  });
});

describe('§2 endpoint target kind decides the record', () => {
  test.each([
    ['External FQDN → CNAME to the target', ext('e', 'app.example.net'), 'CNAME app.example.net'],
    ['External FQDN with a trailing dot → CNAME without it', ext('e', 'app.example.net.'), 'CNAME app.example.net'],
    ['External IPv4 literal → A', ext('e', '198.51.100.7'), 'A 198.51.100.7'],
    ['External IPv6 literal → AAAA', ext('e', '2001:db8::7'), 'AAAA 2001:db8::7'],
    [
      'Azure endpoint → CNAME to the target from the resource catalog',
      azure('e', '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/app'),
      'CNAME app.azurewebsites.net',
    ],
    [
      'Azure endpoint: the catalog target wins over an inline one',
      azure('e', '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/app', { target: 'stale.example.net' }),
      'CNAME app.azurewebsites.net',
    ],
    [
      'Azure endpoint not in the catalog, with an inline target → CNAME to it',
      azure('e', '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/unknown', { target: 'inline.example.net' }),
      'CNAME inline.example.net',
    ],
  ])('%s', (_n, ep, expected) => {
    const s = snapshot([profile('p', 'Priority', [ep])], {
      resources: catalog({
        '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/app': {
          target: 'app.azurewebsites.net',
          location: 'westeurope',
          state: 'running',
        },
      }),
    });
    expect(recs(resolve(s, query('p', 'ANY')))).toEqual([expected]);
  });
});

describe('§2 query type vs chosen endpoint (non-MultiValue)', () => {
  const targets = { A: '192.0.2.1', AAAA: '2001:db8::1', CNAME: 'app.example.net' } as const;
  test.each([
    ['ANY', 'A', 'that endpoint'],
    ['ANY', 'AAAA', 'that endpoint'],
    ['ANY', 'CNAME', 'that endpoint'],
    ['A', 'A', 'that endpoint'],
    ['A', 'CNAME', 'that endpoint'],
    ['A', 'AAAA', 'NODATA'],
    ['AAAA', 'AAAA', 'that endpoint'],
    ['AAAA', 'CNAME', 'that endpoint'],
    ['AAAA', 'A', 'NODATA'],
    ['CNAME', 'CNAME', 'that endpoint'],
    ['CNAME', 'A', 'NODATA'],
    ['CNAME', 'AAAA', 'NODATA'],
    ['MX (undocumented; tmkit)', 'CNAME', 'that endpoint'],
    ['TXT (undocumented; tmkit)', 'A', 'NODATA'],
  ] as const)('query %s, endpoint %s → %s', (qtype, ep, answered) => {
    const s = snapshot([profile('p', 'Priority', [ext('e', targets[ep])])]);
    const r = resolve(s, query('p', qtype.split(' ')[0]!));
    if (answered === 'that endpoint') {
      expect(r.rcode).toBe('NOERROR');
      expect(recs(r)).toEqual([`${ep} ${targets[ep]}`]);
    } else {
      expect(kind(r)).toBe('NODATA');
      expect(r.explanation.map((e) => e.kind)).toContain('nodata');
    }
  });

  test('the endpoint is chosen first, then the type compared: an AAAA query does not skip to an AAAA endpoint', () => {
    const s = snapshot([profile('p', 'Priority', [ext('v4', '192.0.2.1'), ext('v6', '2001:db8::1')])]);
    expect(kind(resolve(s, query('p', 'AAAA')))).toBe('NODATA');
  });
});

describe('§2 MultiValue query types', () => {
  const s = snapshot([
    profile('mv', 'MultiValue', [ext('a1', '192.0.2.1'), ext('b1', '2001:db8::1'), ext('a2', '192.0.2.2'), ext('b2', '2001:db8::2')], {
      maxReturn: 8,
    }),
  ]);
  test.each([
    ['ANY → healthy endpoints of both kinds', 'ANY', ['A 192.0.2.1', 'AAAA 2001:db8::1', 'A 192.0.2.2', 'AAAA 2001:db8::2']],
    ['A → only the A-type endpoints', 'A', ['A 192.0.2.1', 'A 192.0.2.2']],
    ['AAAA → only the AAAA-type endpoints', 'AAAA', ['AAAA 2001:db8::1', 'AAAA 2001:db8::2']],
    ['CNAME → NODATA', 'CNAME', []],
  ])('%s', (_n, qtype, expected) => {
    const r = resolve(s, query('mv', qtype));
    expect(recs(r)).toEqual(expected);
    if (expected.length === 0) expect(kind(r)).toBe('NODATA');
  });
});
