/**
 * The zone lookup as a table, CoreDNS-style (plugin/file/lookup_test.go): question → rcode, AA and the
 * answer, authority and additional sections, through the real routing engine, no sockets. One row per
 * docs/dns.md row that is about what is answered; plus properties over random questions.
 */
import fc from 'fast-check';
import { resolve, type RoutingQuery, type RoutingResolution, type RoutingSnapshot } from '../../../src/core/routing';
import {
  defineZone,
  lookup,
  negativeTtl,
  type ZoneAnswer,
  type ZoneConfig,
  type ZoneQuestion,
  type ZoneRecord,
} from '../../../src/core/zone';
import { ext, nested, profile, snapshot, TEST_ZONE } from '../../../src/testing/builders';
import { TableGeo } from '../../../src/testing/geo-table';

const Z = TEST_ZONE; // tm.test
const SERIAL = 2026010101;
const config: ZoneConfig = {
  apex: 'TM.test.',
  soa: { serial: SERIAL },
  nsNames: ['ns1.tm.test', 'ns2.sub.tm.test', 'ns.example.net.'],
  nsAddresses: { 'NS1.tm.test.': ['192.0.2.53', '2001:db8::53'], 'ns2.sub.tm.test': ['192.0.2.54'], 'ns.example.net': [] },
};
const zone = defineZone(config);
const DE = '198.51.100.10';
const JP = '192.0.2.10';
const geo = new TableGeo({ locations: { '198.51.100.0/24': { country: 'DE' }, '192.0.2.0/24': { country: 'JP' } } });
const snap = snapshot(
  [
    profile('v4', 'Priority', [ext('a', '192.0.2.10')], { dnsConfig: { relativeName: 'v4', ttl: 60 } }),
    profile('v6', 'Priority', [ext('a', '2001:db8::1')]),
    profile('web', 'Priority', [ext('a', 'web.example.net')], { dnsConfig: { relativeName: 'web', ttl: 20 } }),
    profile('weighted', 'Weighted', [ext('a', 'a.example.net', { weight: 1 }), ext('b', 'b.example.net', { weight: 3 })]),
    profile('mixed', 'Weighted', [ext('four', '192.0.2.1', { weight: 1 }), ext('six', '2001:db8::2', { weight: 1 })]),
    profile('mv', 'MultiValue', [ext('x', '192.0.2.21'), ext('y', '192.0.2.22')], { maxReturn: 2 }),
    profile('off', 'Priority', [ext('a', '192.0.2.30')], { profileStatus: 'Disabled' }),
    profile('geo', 'Geographic', [ext('de', '192.0.2.40', { geoMapping: ['DE'] })]),
    profile('deep', 'Priority', [ext('a', '192.0.2.50')], { dnsConfig: { relativeName: 'x.ent', ttl: 30 } }),
    profile('parent', 'Priority', [nested('kid', 'child', { minChildEndpoints: 1 })]),
    profile('child', 'Priority', [ext('c', '192.0.2.60')]),
    // A profile at the name of an in-zone name server: the name server wins.
    profile('shadow', 'Priority', [ext('a', '192.0.2.99')], { dnsConfig: { relativeName: 'ns1', ttl: 30 } }),
  ],
  {
    geo,
    health: {
      'v4/a': 'Online',
      'v6/a': 'Online',
      'web/a': 'Online',
      'weighted/a': 'Online',
      'weighted/b': 'Online',
      'mixed/four': 'Online',
      'mixed/six': 'Online',
      'mv/x': 'Online',
      'mv/y': 'Online',
      'geo/de': 'Online',
      'deep/a': 'Online',
      'child/c': 'Online',
      'shadow/a': 'Online',
    },
  },
);

/** A record in presentation form: `name. ttl TYPE data`. */
function rr(r: ZoneRecord): string {
  const d = r.data;
  const data =
    typeof d === 'string'
      ? r.type === 'A' || r.type === 'AAAA'
        ? d
        : `${d}.`
      : `${d.mname}. ${d.rname}. ${d.serial} ${d.refresh} ${d.retry} ${d.expire} ${d.minimum}`;
  return `${r.name}. ${r.ttl} ${r.type} ${data}`;
}
const SOA = `tm.test. 300 SOA ns1.tm.test. hostmaster.tm.test. ${SERIAL} 3600 600 86400 30`;
const NEG = `tm.test. 30 SOA ns1.tm.test. hostmaster.tm.test. ${SERIAL} 3600 600 86400 30`;
const NS = ['tm.test. 300 NS ns1.tm.test.', 'tm.test. 300 NS ns2.sub.tm.test.', 'tm.test. 300 NS ns.example.net.'];
const GLUE = ['ns1.tm.test. 300 A 192.0.2.53', 'ns1.tm.test. 300 AAAA 2001:db8::53', 'ns2.sub.tm.test. 300 A 192.0.2.54'];

interface Row {
  rcode: ZoneAnswer['rcode'];
  aa: boolean;
  answer?: string[];
  authority?: string[];
  additional?: string[];
  probability?: number;
}
function shape(a: ZoneAnswer): Row[] {
  return a.outcomes.map((o) => ({
    rcode: a.rcode,
    aa: a.aa,
    answer: o.answer.map(rr),
    authority: o.authority.map(rr),
    additional: o.additional.map(rr),
    ...(a.outcomes.length > 1 ? { probability: o.probability } : {}),
  }));
}
const row = (r: Row): Row => ({ answer: [], authority: [], additional: [], ...r });
const ok = (answer: string[], extra: Partial<Row> = {}): Row[] => [row({ rcode: 'NOERROR', aa: true, answer, ...extra })];
const NODATA = [row({ rcode: 'NOERROR', aa: true, authority: [NEG] })];
const NXDOMAIN = [row({ rcode: 'NXDOMAIN', aa: true, authority: [NEG] })];
const REFUSED = [row({ rcode: 'REFUSED', aa: false })];

const ask = (name: string, type = 'A', extra: Partial<ZoneQuestion> = {}): ZoneAnswer =>
  lookup(zone, snap, { name, type, clientAddress: DE, ...extra });

describe('docs/dns.md, one row per case', () => {
  test.each<[string, string, string, Partial<ZoneQuestion>, Row[]]>([
    // <relativeName>.<zone>: the routing answer with the profile's TTL
    ['profile, A record', 'v4.tm.test', 'A', {}, ok(['v4.tm.test. 60 A 192.0.2.10'])],
    ['profile, AAAA record', 'v6.tm.test', 'AAAA', {}, ok(['v6.tm.test. 30 AAAA 2001:db8::1'])],
    ['profile, FQDN target: CNAME for A', 'web.tm.test', 'A', {}, ok(['web.tm.test. 20 CNAME web.example.net.'])],
    ['profile, FQDN target: CNAME for MX too (RFC 1034 §3.6.2)', 'web.tm.test', 'MX', {}, ok(['web.tm.test. 20 CNAME web.example.net.'])],
    ['profile, ANY', 'v4.tm.test', 'ANY', {}, ok(['v4.tm.test. 60 A 192.0.2.10'])],
    ['profile, name in any case with a trailing dot', 'V4.TM.Test.', 'a', {}, ok(['v4.tm.test. 60 A 192.0.2.10'])],
    ['profile, class ANY is answered as IN', 'v4.tm.test', 'A', { class: 'ANY' }, ok(['v4.tm.test. 60 A 192.0.2.10'])],
    ['MultiValue: several A records', 'mv.tm.test', 'A', {}, ok(['mv.tm.test. 30 A 192.0.2.21', 'mv.tm.test. 30 A 192.0.2.22'])],
    ['nested: resolved to the leaf endpoint, parent TTL', 'parent.tm.test', 'A', {}, ok(['parent.tm.test. 30 A 192.0.2.60'])],
    [
      'Weighted: every outcome with its probability',
      'weighted.tm.test',
      'A',
      {},
      [
        row({ rcode: 'NOERROR', aa: true, answer: ['weighted.tm.test. 30 CNAME a.example.net.'], probability: 0.25 }),
        row({ rcode: 'NOERROR', aa: true, answer: ['weighted.tm.test. 30 CNAME b.example.net.'], probability: 0.75 }),
      ],
    ],
    [
      'Weighted: an outcome that cannot answer the type is NODATA + SOA, the other answers',
      'mixed.tm.test',
      'A',
      {},
      [
        row({ rcode: 'NOERROR', aa: true, answer: ['mixed.tm.test. 30 A 192.0.2.1'], probability: 0.5 }),
        row({ rcode: 'NOERROR', aa: true, authority: [NEG], probability: 0.5 }),
      ],
    ],
    // Apex SOA / NS / ANY
    ['apex SOA', 'tm.test', 'SOA', {}, ok([SOA])],
    ['apex NS, glue for the in-zone name servers', 'tm.test', 'NS', {}, ok(NS, { additional: GLUE })],
    ['apex ANY: SOA + NS, with glue', 'tm.test.', 'ANY', {}, ok([SOA, ...NS], { additional: GLUE })],
    // Apex, other types
    ['apex A', 'tm.test', 'A', {}, NODATA],
    ['apex MX', 'tm.test', 'MX', {}, NODATA],
    ['apex CNAME', 'tm.test', 'CNAME', {}, NODATA],
    // In-zone NS names: authoritative A/AAAA
    ['in-zone name server, A', 'ns1.tm.test', 'A', {}, ok(['ns1.tm.test. 300 A 192.0.2.53'])],
    ['in-zone name server, AAAA', 'Ns1.tm.test', 'AAAA', {}, ok(['ns1.tm.test. 300 AAAA 2001:db8::53'])],
    ['in-zone name server, ANY', 'ns1.tm.test', 'ANY', {}, ok(['ns1.tm.test. 300 A 192.0.2.53', 'ns1.tm.test. 300 AAAA 2001:db8::53'])],
    ['in-zone name server, MX: NODATA', 'ns1.tm.test', 'MX', {}, NODATA],
    ['in-zone name server without an AAAA, asked AAAA: NODATA', 'ns2.sub.tm.test', 'AAAA', {}, NODATA],
    // Name under the zone that is not a profile; disabled profile
    ['no such name', 'nope.tm.test', 'A', {}, NXDOMAIN],
    ['no such name below a profile', 'x.v4.tm.test', 'A', {}, NXDOMAIN],
    ['no such name below a name server', 'x.ns1.tm.test', 'A', {}, NXDOMAIN],
    ['disabled profile', 'off.tm.test', 'A', {}, NXDOMAIN],
    // Empty non-terminal; a type the endpoint cannot answer; no Geographic match
    ['empty non-terminal above a profile name', 'ent.tm.test', 'A', {}, NODATA],
    ['empty non-terminal above an in-zone name server', 'sub.tm.test', 'A', {}, NODATA],
    ['A record endpoint asked AAAA', 'v4.tm.test', 'AAAA', {}, NODATA],
    ['AAAA record endpoint asked A', 'v6.tm.test', 'A', {}, NODATA],
    ['A record endpoint asked MX', 'v4.tm.test', 'MX', {}, NODATA],
    ['no Geographic match for the client', 'geo.tm.test', 'A', { clientAddress: JP }, NODATA],
    // Outside the zone; class other than IN/ANY; AXFR/IXFR: REFUSED, AA clear
    ['outside the zone', 'example.com', 'A', {}, REFUSED],
    ['outside the zone, the apex as a label', 'tm.test.example.com', 'A', {}, REFUSED],
    ['outside the zone, a suffix that is not a label boundary', 'xtm.test', 'A', {}, REFUSED],
    ['class CH', 'v4.tm.test', 'A', { class: 'CH' }, REFUSED],
    ['class HS at the apex', 'tm.test', 'SOA', { class: 'HS' }, REFUSED],
    ['AXFR', 'tm.test', 'AXFR', {}, REFUSED],
    ['IXFR', 'tm.test', 'IXFR', {}, REFUSED],
    ['AXFR of a profile name', 'v4.tm.test', 'axfr', {}, REFUSED],
  ])('%s: %s %s', (_label, name, type, extra, expected) => {
    expect(shape(ask(name, type, extra))).toEqual(expected);
  });

  test('a Geographic match answers for its client only; the answer says it depends on the client', () => {
    const a = ask('geo.tm.test', 'A', { clientAddress: DE });
    expect(shape(a)).toEqual(ok(['geo.tm.test. 30 A 192.0.2.40']));
    expect(a.clientDependent).toBe(true);
    expect(ask('v4.tm.test').clientDependent).toBe(false);
  });

  test('an in-zone name server shadows a profile at the same name', () => {
    expect(ask('ns1.tm.test').match).toBe('name-server');
    expect(ask('ns1.tm.test').profile).toBeUndefined();
  });

  test('what decided each answer, and the profile it came from', () => {
    expect(
      [
        ask('tm.test', 'SOA'),
        ask('ns1.tm.test'),
        ask('sub.tm.test'),
        ask('v4.tm.test'),
        ask('nope.tm.test'),
        ask('example.com'),
        ask('v4.tm.test', 'A', { class: 'CH' }),
        ask('tm.test', 'AXFR'),
      ].map((a) => [a.match, a.profile]),
    ).toEqual([
      ['apex', undefined],
      ['name-server', undefined],
      ['name-server-ancestor', undefined],
      ['routing', 'v4'],
      ['routing', undefined],
      ['outside-zone', undefined],
      ['class', undefined],
      ['transfer', undefined],
    ]);
    expect(ask('off.tm.test').profile).toBe('off');
  });

  test("ECS: routing's scope is passed on", () => {
    expect(ask('geo.tm.test', 'A', { ecsSourcePrefix: 24 }).ecsScopePrefix).toBe(24);
    expect(ask('v4.tm.test', 'A', { ecsSourcePrefix: 24 }).ecsScopePrefix).toBe(0);
    expect(ask('v4.tm.test', 'A').ecsScopePrefix).toBeUndefined();
  });
});

describe('negative TTL: min(SOA TTL, SOA MINIMUM) (RFC 2308 §3)', () => {
  test.each([
    [300, 30, 30],
    [20, 30, 20],
    [60, 60, 60],
    [0, 30, 0],
  ])('TTL %d, minimum %d → %d on NXDOMAIN, NODATA and apex NODATA', (ttl, minimum, expected) => {
    const z = defineZone({ apex: Z, soa: { serial: 1, ttl, minimum } });
    expect(negativeTtl(z)).toBe(expected);
    for (const [name, type] of [
      ['nope.tm.test', 'A'],
      ['v4.tm.test', 'AAAA'],
      ['tm.test', 'TXT'],
    ] as const) {
      const a = lookup(z, snap, { name, type, clientAddress: DE });
      expect(a.outcomes[0]!.authority.map((r) => [r.type, r.ttl])).toEqual([['SOA', expected]]);
    }
    expect(lookup(z, snap, { name: Z, type: 'SOA', clientAddress: DE }).outcomes[0]!.answer[0]!.ttl).toBe(ttl);
  });
});

describe('the zone without name-server options', () => {
  const plain = defineZone({ apex: Z, soa: { serial: 9 } });
  test('apex NS is ns1.<zone> (the SOA MNAME), without glue; the defaults of docs/dns.md', () => {
    expect(shape(lookup(plain, snap, { name: Z, type: 'ANY', clientAddress: DE }))).toEqual(
      ok(['tm.test. 300 SOA ns1.tm.test. hostmaster.tm.test. 9 3600 600 86400 30', 'tm.test. 300 NS ns1.tm.test.']),
    );
  });
  test('ns1.<zone> has no address record: routing decides (here the profile named ns1)', () => {
    expect(shape(lookup(plain, snap, { name: 'ns1.tm.test', type: 'A', clientAddress: DE }))).toEqual(ok(['ns1.tm.test. 30 A 192.0.2.99']));
  });
});

describe('the routing function is injected (the responder tests use a table)', () => {
  const fixed = (res: RoutingResolution) => (): RoutingResolution => res;
  test("routing is asked only for names that are not the zone's own, with the canonical name", () => {
    const calls: RoutingQuery[] = [];
    const route = (s: RoutingSnapshot, q: RoutingQuery): RoutingResolution => {
      calls.push(q);
      return resolve(s, q);
    };
    for (const [name, type] of [
      ['tm.test', 'NS'],
      ['ns1.tm.test', 'A'],
      ['example.com', 'A'],
      ['tm.test', 'AXFR'],
      ['V4.tm.test.', 'AAAA'],
    ] as const) {
      lookup(zone, snap, { name, type, clientAddress: '203.0.113.9', ecsSourcePrefix: 24 }, route);
    }
    expect(calls).toEqual([{ name: 'v4.tm.test', type: 'AAAA', clientAddress: '203.0.113.9', ecsSourcePrefix: 24 }]);
  });
  test('no outcomes from routing is NODATA (NOERROR) or NXDOMAIN, with the SOA', () => {
    expect(
      shape(
        lookup(
          zone,
          snap,
          { name: 'a.tm.test', type: 'A', clientAddress: DE },
          fixed({ rcode: 'NOERROR', outcomes: [], clientDependent: false, explanation: [] }),
        ),
      ),
    ).toEqual(NODATA);
    expect(
      shape(
        lookup(
          zone,
          snap,
          { name: 'a.tm.test', type: 'A', clientAddress: DE },
          fixed({ rcode: 'NXDOMAIN', outcomes: [], clientDependent: false, explanation: [] }),
        ),
      ),
    ).toEqual(NXDOMAIN);
  });
  test('routing refusing (a snapshot for another zone) is REFUSED, AA clear', () => {
    expect(
      shape(
        lookup(
          zone,
          snap,
          { name: 'a.tm.test', type: 'A', clientAddress: DE },
          fixed({ rcode: 'REFUSED', outcomes: [], clientDependent: false, explanation: [] }),
        ),
      ),
    ).toEqual(REFUSED);
  });
});

describe('properties over random questions', () => {
  const names = [
    'tm.test',
    'TM.TEST.',
    'v4.tm.test',
    'v6.tm.test',
    'web.tm.test',
    'weighted.tm.test',
    'mixed.tm.test',
    'mv.tm.test',
    'off.tm.test',
    'geo.tm.test',
    'x.ent.tm.test',
    'ent.tm.test',
    'parent.tm.test',
    'ns1.tm.test',
    'ns2.sub.tm.test',
    'sub.tm.test',
    'nope.tm.test',
    'x.v4.tm.test',
    'example.com',
    'xtm.test',
    'tm.test.example.net',
    'ns.example.net',
  ];
  const types = ['A', 'AAAA', 'CNAME', 'ANY', 'NS', 'SOA', 'MX', 'TXT', 'AXFR', 'IXFR', 'UNKNOWN_65280'];
  const question = fc.record({
    name: fc.constantFrom(...names),
    type: fc.constantFrom(...types),
    class: fc.constantFrom('IN', 'ANY', 'CH', 'HS', 'CLASS9'),
    clientAddress: fc.constantFrom(DE, JP, '203.0.113.7', '2001:db8::7'),
  });
  const inZone = (n: string): boolean => {
    const c = n.toLowerCase().replace(/\.$/, '');
    return c === Z || c.endsWith(`.${Z}`);
  };

  test('every answer is well formed: AA iff not REFUSED; probabilities sum to 1; negative answers carry exactly the negative SOA; owners are the question name', () => {
    fc.assert(
      fc.property(question, (q) => {
        const a = lookup(zone, snap, q);
        const name = q.name.toLowerCase().replace(/\.$/, '');
        expect(a.aa).toBe(a.rcode !== 'REFUSED');
        expect(a.rcode === 'REFUSED').toBe(
          !inZone(q.name) || q.class === 'CH' || q.class === 'HS' || q.class === 'CLASS9' || q.type === 'AXFR' || q.type === 'IXFR',
        );
        expect(a.outcomes.length).toBeGreaterThan(0);
        expect(a.outcomes.reduce((s, o) => s + o.probability, 0)).toBeCloseTo(1, 12);
        for (const o of a.outcomes) {
          if (a.rcode === 'REFUSED') expect([o.answer, o.authority, o.additional]).toEqual([[], [], []]);
          else if (a.rcode === 'NXDOMAIN' || o.answer.length === 0) {
            expect(o.answer).toEqual([]);
            expect(o.authority.map(rr)).toEqual([NEG]);
            expect(o.additional).toEqual([]);
          } else {
            expect(o.authority).toEqual([]);
            for (const r of o.answer) expect(r.name).toBe(name);
            // glue only with the apex NS names
            expect(o.additional.length > 0).toBe(name === Z && (q.type === 'NS' || q.type === 'ANY'));
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('the answer does not depend on the case of the name or the type', () => {
    fc.assert(
      fc.property(question, fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), (q, flips) => {
        const mixed = (s: string): string => [...s].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c.toLowerCase())).join('');
        expect(shape(lookup(zone, snap, { ...q, name: mixed(q.name), type: mixed(q.type), class: mixed(q.class) }))).toEqual(
          shape(lookup(zone, snap, q)),
        );
      }),
      { numRuns: 500 },
    );
  });

  test('class ANY answers exactly as class IN', () => {
    fc.assert(
      fc.property(question, (q) => {
        expect(shape(lookup(zone, snap, { ...q, class: 'ANY' }))).toEqual(shape(lookup(zone, snap, { ...q, class: 'IN' })));
      }),
      { numRuns: 500 },
    );
  });
});
