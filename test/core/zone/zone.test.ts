/** The zone's own data: defaults, normalization, every configuration problem at once, the serial. */
import fc from 'fast-check';
import { defineZone, nextSerial, withSerial, zoneProblems, ZoneConfigError, type ZoneConfig } from '../../../src/core/zone';

test("defaults: the README's SOA, NS = the SOA MNAME, no name servers", () => {
  const z = defineZone({ apex: 'TM.Internal.', soa: { serial: 5 } });
  expect(z.apex).toBe('tm.internal');
  expect(z.soa).toEqual({
    mname: 'ns1.tm.internal',
    rname: 'hostmaster.tm.internal',
    serial: 5,
    refresh: 3600,
    retry: 600,
    expire: 86400,
    minimum: 30,
  });
  expect(z.ttl).toBe(300);
  expect(z.nsNames).toEqual(['ns1.tm.internal']);
  expect(z.nameServers.size).toBe(0);
  expect(z.glue).toEqual([]);
  expect(z.negativeSoa.ttl).toBe(30);
});

test('name servers: trailing dots dropped, NS case kept, addresses keyed lower case, glue in NS order, ancestors are non-terminals', () => {
  const z = defineZone({
    apex: 'tm.internal',
    soa: { serial: 1, mname: 'NS1.tm.internal.', rname: 'dns-admin.example.com.' },
    nsNames: ['ns2.b.a.tm.internal.', 'NS1.tm.internal', 'ns.example.net'],
    nsAddresses: {
      'ns1.TM.internal': ['192.0.2.1'],
      'ns2.b.a.tm.internal': ['2001:db8::2', '192.0.2.2'],
      'ns.example.net': [],
      'ns3.c.tm.internal': ['192.0.2.3'],
    },
  });
  expect(z.soa.mname).toBe('NS1.tm.internal');
  expect(z.soa.rname).toBe('dns-admin.example.com');
  expect(z.nsRecords.map((r) => r.data)).toEqual(['ns2.b.a.tm.internal', 'NS1.tm.internal', 'ns.example.net']);
  expect(z.glue.map((r) => `${r.name} ${r.type} ${r.data}`)).toEqual([
    'ns2.b.a.tm.internal AAAA 2001:db8::2',
    'ns2.b.a.tm.internal A 192.0.2.2',
    'ns1.tm.internal A 192.0.2.1',
  ]);
  // ns3 is not an apex NS name: answered at its own name, but no glue
  expect([...z.nameServers.keys()].sort()).toEqual(['ns1.tm.internal', 'ns2.b.a.tm.internal', 'ns3.c.tm.internal']);
  expect([...z.nonTerminals].sort()).toEqual(['a.tm.internal', 'b.a.tm.internal', 'c.tm.internal']);
});

test('every problem is reported at once, with its path, the rule and what to do', () => {
  const bad: ZoneConfig = {
    apex: 'tm.internal',
    soa: { serial: 2 ** 32, rname: 'hostmaster@example.com', minimum: -1, ttl: 2 ** 31 },
    nsNames: ['ok.tm.internal', 'bad..name'],
    nsAddresses: { 'ns.example.net': ['192.0.2.1'], 'tm.internal': ['192.0.2.2'], 'ns1.tm.internal': ['192.0.2.300', '2001:db8::1'] },
  };
  const problems = zoneProblems(bad);
  expect(problems.map((p) => [p.path, p.code])).toEqual([
    ['soa.rname', 'DNS_ZONE_SOA'],
    ['soa.serial', 'DNS_ZONE_SOA'],
    ['soa.minimum', 'DNS_ZONE_SOA'],
    ['soa.ttl', 'DNS_ZONE_SOA'],
    ['nsNames[1]', 'DNS_ZONE_NAME'],
    ['nsAddresses["ns.example.net"]', 'DNS_ZONE_NS_ADDRESS'],
    ['nsAddresses["tm.internal"]', 'DNS_ZONE_NS_ADDRESS'],
    ['nsAddresses["ns1.tm.internal"][0]', 'DNS_ZONE_NS_ADDRESS'],
  ]);
  const msg = (path: string): string => problems.find((p) => p.path === path)!.message;
  expect(msg('soa.rname')).toMatch(/hostmaster@example\.com.*domain form \(hostmaster@example\.com is hostmaster\.example\.com\)/);
  expect(msg('soa.serial')).toMatch(/4294967296 is not a whole number from 0 to 4294967295/);
  expect(msg('soa.ttl')).toMatch(/RFC 2181/);
  expect(msg('nsNames[1]')).toMatch(/empty label/);
  expect(msg('nsAddresses["ns.example.net"]')).toMatch(
    /outside the zone tm\.internal.*drop the addresses, or name a server below tm\.internal/,
  );
  expect(msg('nsAddresses["tm.internal"]')).toMatch(/apex tm\.internal cannot have addresses/);
  expect(msg('nsAddresses["ns1.tm.internal"][0]')).toMatch(/"192\.0\.2\.300" is not an IPv4 or IPv6 address/);
  let thrown: unknown;
  try {
    defineZone(bad);
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(ZoneConfigError);
  expect((thrown as ZoneConfigError).code).toBe('DNS_ZONE_INVALID');
  expect((thrown as ZoneConfigError).problems).toEqual(problems);
  expect((thrown as Error).message).toMatch(
    /^dns: the zone configuration is invalid: soa\.rname: .*; nsAddresses\["ns1\.tm\.internal"\]\[0\]: /,
  );
});

test.each([
  ['', 'DNS_ZONE_EMPTY', /must not be empty.*--zone tm\.internal/],
  ['.', 'DNS_ZONE_EMPTY', /must not be empty/],
  ['tm internal', 'DNS_ZONE_NAME', /label "tm internal"/],
])('apex %j: %s', (apex, code, message) => {
  const p = zoneProblems({ apex, soa: { serial: 1 } });
  expect(p.map((x) => x.code)).toEqual([code]);
  expect(p[0]!.message).toMatch(message);
});

test('a name server name without addresses may be anywhere (an out-of-zone NS)', () => {
  expect(
    zoneProblems({ apex: 'tm.internal', soa: { serial: 1 }, nsNames: ['ns.example.net'], nsAddresses: { 'ns.example.net': [] } }),
  ).toEqual([]);
});

describe('the serial: state in the runtime, data here', () => {
  test('nextSerial wraps at 2^32 (RFC 1982)', () => {
    expect(nextSerial(7)).toBe(8);
    expect(nextSerial(0xffffffff)).toBe(0);
  });
  test('withSerial changes the serial in every SOA record and nothing else', () => {
    const z = defineZone({
      apex: 'tm.internal',
      soa: { serial: 10, ttl: 120, minimum: 60 },
      nsAddresses: { 'ns1.tm.internal': ['192.0.2.1'] },
    });
    const n = withSerial(z, 11);
    expect(z.soa.serial).toBe(10);
    expect([n.soaRecord, n.negativeSoa, ...n.negativeAuthority].map((r) => [r.ttl, (r.data as { serial: number }).serial])).toEqual([
      [120, 11],
      [60, 11],
      [60, 11],
    ]);
    expect({ ...n.soa, serial: 10 }).toEqual(z.soa);
    expect([n.apex, n.ttl, n.nsNames, n.glue, n.nameServers, n.nonTerminals]).toEqual([
      z.apex,
      z.ttl,
      z.nsNames,
      z.glue,
      z.nameServers,
      z.nonTerminals,
    ]);
    expect(() => withSerial(z, -1)).toThrow(/soa\.serial: -1 is not a whole number/);
  });
  test('property: any uint32 serial round-trips into every SOA the zone serves', () => {
    const z = defineZone({ apex: 'tm.internal', soa: { serial: 0 } });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (s) => {
        const n = withSerial(z, s);
        expect((n.soaRecord.data as { serial: number }).serial).toBe(s);
        expect((n.negativeSoa.data as { serial: number }).serial).toBe(s);
        expect(nextSerial(s)).toBe(s === 0xffffffff ? 0 : s + 1);
      }),
    );
  });
});
