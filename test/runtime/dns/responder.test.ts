/** The packet handler without sockets: outcome sampling, caching and invalidation, truncation, flags. */
import * as dnsPacket from 'dns-packet';
import { buildSnapshot, resolve } from '../../../src/core/routing';
import type { RoutingQuery } from '../../../src/core/routing/types';
import { Responder, type ResponderOptions } from '../../../src/runtime/dns';
import { ext, profile } from '../../../src/testing/builders';
import { TableGeo } from '../../../src/testing/geo-table';
import { seededRng } from '../../../src/testing/rng';
import { LONG_LABEL, ZONE, buildQuery, ecsOption, emptySnapshot, optRecord, standardTable, tableResolver } from './support';

function make(extra: Partial<ResponderOptions> = {}, calls?: RoutingQuery[]): Responder {
  return new Responder({
    zone: ZONE,
    snapshot: emptySnapshot(),
    resolve: tableResolver(standardTable(), calls),
    rng: seededRng(42),
    soa: { serial: 7 },
    ...extra,
  });
}
const decode = (b: Buffer | null): dnsPacket.DecodedPacket & { rcode?: string } => dnsPacket.decode(b!);
const dataOf = (a: dnsPacket.Answer | undefined): unknown => (a as { data?: unknown } | undefined)?.data;

test('weighted outcomes are drawn by probability (0.25 / 0.75) from the cached encodings', () => {
  const r = make();
  const n = 20000;
  let a = 0;
  for (let i = 0; i < n; i++) {
    const d = decode(r.handle(buildQuery(i & 0xffff, `weighted.${ZONE}`, 1), '192.0.2.1', 'udp'));
    if ((dataOf(d.answers![0]) as string) === 'a.example.net') a++;
  }
  expect(a / n).toBeGreaterThan(0.23);
  expect(a / n).toBeLessThan(0.27);
  expect(r.stats.cacheHits).toBe(n - 1);
});

test('one resolution per question whatever the case; a new snapshot resolves again and bumps the serial', () => {
  const calls: RoutingQuery[] = [];
  const r = make({}, calls);
  for (const name of ['v4.tm.internal', 'V4.TM.INTERNAL', 'v4.Tm.Internal']) r.handle(buildQuery(1, name, 1), '192.0.2.1', 'udp');
  expect(calls.map((c) => c.name)).toEqual(['v4.tm.internal']);
  r.handle(buildQuery(1, 'v4.tm.internal', 28), '192.0.2.1', 'udp');
  expect(calls).toHaveLength(2); // another type is another question
  expect(r.serial).toBe(7);
  r.setSnapshot(emptySnapshot());
  expect(r.serial).toBe(8);
  expect(r.cached.questions).toBe(0);
  const soa = decode(r.handle(buildQuery(2, ZONE, 6), '192.0.2.1', 'udp'));
  expect((dataOf(soa.answers![0]) as dnsPacket.SoaData).serial).toBe(8);
  r.handle(buildQuery(1, 'V4.tm.internal', 1), '192.0.2.1', 'udp');
  expect(calls).toHaveLength(3);
});

test('the serial wraps at 2^32 (RFC 1982)', () => {
  const r = make({ soa: { serial: 0xffffffff } });
  r.setSnapshot(emptySnapshot());
  expect(r.serial).toBe(0);
});

test('client-dependent names are resolved per query with the routing address; encodings cached by outcome', () => {
  const calls: RoutingQuery[] = [];
  const r = make({}, calls);
  const ask = (client: string, ecs?: Buffer): string => {
    const q = buildQuery(3, `geo.${ZONE}`, 1, ecs ? { additional: optRecord(1232, 0, ecs) } : {});
    return dataOf(decode(r.handle(q, client, 'udp')).answers![0]) as string;
  };
  expect(ask('198.51.100.9')).toBe('198.51.100.1');
  expect(ask('192.0.2.1')).toBe('203.0.113.1');
  expect(ask('192.0.2.1', ecsOption(1, 24, 0, [198, 51, 100]))).toBe('198.51.100.1');
  expect(ask('192.0.2.1', ecsOption(1, 24, 0, [198, 51, 101]))).toBe('203.0.113.1');
  expect(calls.map((c) => [c.clientAddress, c.ecsSourcePrefix])).toEqual([
    ['198.51.100.9', undefined],
    ['192.0.2.1', undefined],
    ['198.51.100.0', 24],
    ['198.51.101.0', 24],
  ]);
  expect(r.cached).toEqual({ questions: 1, outcomes: 2 });
});

test('an IPv6 ECS address is zero-padded into a full address', () => {
  const calls: RoutingQuery[] = [];
  const r = make({}, calls);
  r.handle(
    buildQuery(3, `geo.${ZONE}`, 1, { additional: optRecord(1232, 0, ecsOption(2, 56, 0, [0x20, 0x01, 0x0d, 0xb8, 0, 0xab, 0xcd])) }),
    '::1',
    'udp',
  );
  expect(calls[0]!.clientAddress).toBe('2001:db8:ab:cd00:0:0:0:0');
  expect(calls[0]!.ecsSourcePrefix).toBe(56);
});

test('a throwing resolver gives SERVFAIL, and the next query is answered', () => {
  let fail = true;
  const good = tableResolver(standardTable());
  const r = new Responder({
    zone: ZONE,
    snapshot: emptySnapshot(),
    rng: seededRng(1),
    resolve: (s, q) => {
      if (fail) throw new Error('boom');
      return good(s, q);
    },
  });
  const bad = r.handle(buildQuery(1, `v4.${ZONE}`, 1), '192.0.2.1', 'udp')!;
  expect(bad[3]! & 0xf).toBe(2);
  expect(bad.readUInt16BE(4)).toBe(1); // question echoed
  fail = false;
  expect(decode(r.handle(buildQuery(1, `v4.${ZONE}`, 1), '192.0.2.1', 'udp')).answers).toHaveLength(1);
});

describe('payload size and truncation', () => {
  const multi = `${LONG_LABEL}.big.${ZONE}`; // 24 AAAA: 769 octets with compressed names
  const r = make();
  const full = r.handle(buildQuery(1, multi, 28), '192.0.2.1', 'tcp')!.length - 2;
  test.each([
    ['no EDNS: 512', undefined, 'udp', true],
    ['EDNS 100 is raised to 512', 100, 'udp', true],
    ['EDNS 512', 512, 'udp', true],
    ['EDNS exactly the answer size fits', full + 11, 'udp', false],
    ['EDNS one octet less truncates', full + 10, 'udp', true],
    ['EDNS 4096 (capped at 1232) fits', 4096, 'udp', false],
    ['TCP never truncates', undefined, 'tcp', false],
  ] as const)('%s', (_label, payload, transport, truncated) => {
    const q = buildQuery(9, multi, 28, payload === undefined ? {} : { additional: optRecord(payload) });
    const out = r.handle(q, '192.0.2.1', transport)!;
    const msg = transport === 'tcp' ? out.subarray(2) : out;
    const d = decode(msg);
    expect(Boolean(d.flag_tc)).toBe(truncated);
    expect(d.answers).toHaveLength(truncated ? 0 : 24);
    expect(d.questions).toEqual([{ name: multi, type: 'AAAA', class: 'IN' }]);
    if (transport === 'udp') expect(msg.length).toBeLessThanOrEqual(payload === undefined ? 512 : Math.min(Math.max(payload, 512), 1232));
  });
  test("the TC answer is the header and the question only, in the query's case", () => {
    const upper = multi.toUpperCase();
    const out = r.handle(buildQuery(3, upper, 28), '192.0.2.1', 'udp')!;
    expect(out.length).toBe(12 + upper.length + 2 + 4);
    const d = decode(out);
    expect([d.flag_tc, d.questions, d.answers, d.authorities, d.additionals]).toEqual([
      true,
      [{ name: upper, type: 'AAAA', class: 'IN' }],
      [],
      [],
      [],
    ]);
  });
  test('a smaller cap is honoured and advertised', () => {
    const small = make({ udpPayloadCap: 600 });
    const d = decode(small.handle(buildQuery(9, multi, 28, { additional: optRecord(4096) }), '192.0.2.1', 'udp'));
    expect(d.flag_tc).toBe(true);
    expect((d.additionals![0] as dnsPacket.OptAnswer).udpPayloadSize).toBe(600);
  });
});

test('ID, RD, DO and the question case are per query; the cached bytes are not modified', () => {
  const r = make();
  const q1 = buildQuery(0xabcd, 'V4.tm.INTERNAL', 1, {
    rd: false,
    additional: (() => {
      const o = optRecord();
      o[7] = 0x80;
      return o;
    })(),
  });
  const d1 = decode(r.handle(q1, '192.0.2.1', 'udp'));
  expect(d1.id).toBe(0xabcd);
  expect(d1.flag_rd).toBe(false);
  expect(d1.flag_aa).toBe(true);
  expect(d1.questions![0]!.name).toBe('V4.tm.INTERNAL');
  expect(d1.answers![0]!.name).toBe('V4.tm.INTERNAL');
  expect((d1.additionals![0] as dnsPacket.OptAnswer).flag_do).toBe(true);
  const d2 = decode(r.handle(buildQuery(0x0102, 'v4.TM.internal', 1), '192.0.2.1', 'udp'));
  expect(d2.id).toBe(0x0102);
  expect(d2.flag_rd).toBe(true);
  expect(d2.questions![0]!.name).toBe('v4.TM.internal');
  expect(d2.answers![0]!.name).toBe('v4.TM.internal');
  expect(d2.additionals).toEqual([]);
});

test('the question cache is bounded', () => {
  const r = make({ cacheSize: 64 });
  // Each asked twice: a name that does not exist is cached from its second query on.
  for (let i = 0; i < 1000; i++) for (const _ of [1, 2]) r.handle(buildQuery(1, `n${i}.${ZONE}`, 1), '192.0.2.1', 'udp');
  expect(r.cached.questions).toBeLessThanOrEqual(64);
  expect(r.cached.questions).toBeGreaterThan(32);
  expect(decode(r.handle(buildQuery(1, `v4.${ZONE}`, 1), '192.0.2.1', 'udp')).answers).toHaveLength(1);
});

test("a random-name flood does not push real answers out: NXDOMAIN is cached from a name's second query on", () => {
  const r = make({ cacheSize: 64 });
  r.handle(buildQuery(1, `v4.${ZONE}`, 1), '192.0.2.1', 'udp');
  // 10,000 names that do not exist, each asked once: answered NXDOMAIN, none cached.
  for (let i = 0; i < 10_000; i++) {
    const d = decode(r.handle(buildQuery(i & 0xffff, `r${i}x.${ZONE}`, 1), '192.0.2.1', 'udp'));
    if (d.rcode !== 'NXDOMAIN') throw new Error(`r${i}x: ${d.rcode}`);
  }
  expect(r.cached.questions).toBe(1);
  const hits = r.stats.cacheHits;
  expect(decode(r.handle(buildQuery(2, `v4.${ZONE}`, 1), '192.0.2.1', 'udp')).answers).toHaveLength(1);
  expect(r.stats.cacheHits).toBe(hits + 1);
  // A name asked again (a typo a resolver keeps asking for) is cached then: the third query is a hit.
  r.handle(buildQuery(3, `r5x.${ZONE}`, 1), '192.0.2.1', 'udp');
  expect(r.cached.questions).toBe(2);
  expect(decode(r.handle(buildQuery(4, `r5x.${ZONE}`, 1), '192.0.2.1', 'udp')).rcode).toBe('NXDOMAIN');
  expect(r.stats.cacheHits).toBe(hits + 2);
});

test.each([
  ['class CH', 3, 'REFUSED'],
  ['class ANY', 255, 'NOERROR'],
])('%s', (_l, qclass, rcode) => {
  const q = buildQuery(1, `v4.${ZONE}`, 1);
  q.writeUInt16BE(qclass, q.length - 2);
  expect(decode(make().handle(q, '192.0.2.1', 'udp')).rcode).toBe(rcode);
});

test('AXFR is refused', () => {
  expect(
    decode(
      make()
        .handle(buildQuery(1, ZONE, 252), '192.0.2.1', 'tcp')!
        .subarray(2),
    ).rcode,
  ).toBe('REFUSED');
});

describe('in-zone name servers', () => {
  const r = make({ nsNames: ['ns1.tm.internal', 'ns.example.net'], nsAddresses: { 'NS1.tm.internal.': ['192.0.2.53', '2001:db8::53'] } });
  test('the apex NS answer carries glue for the in-zone name server only', () => {
    const d = decode(r.handle(buildQuery(1, ZONE, 2), '192.0.2.1', 'udp'));
    expect(d.answers!.map((a) => dataOf(a))).toEqual(['ns1.tm.internal', 'ns.example.net']);
    expect(d.additionals!.map((a) => [a.type, a.name, dataOf(a)])).toEqual([
      ['A', 'ns1.tm.internal', '192.0.2.53'],
      ['AAAA', 'ns1.tm.internal', '2001:db8::53'],
    ]);
  });
  test.each([
    [1, ['192.0.2.53']],
    [28, ['2001:db8::53']],
    [15, []],
  ])('qtype %d at the name server name', (qtype, expected) => {
    const d = decode(r.handle(buildQuery(1, 'Ns1.tm.internal', qtype), '192.0.2.1', 'udp'));
    expect(d.rcode).toBe('NOERROR');
    expect(d.flag_aa).toBe(true);
    expect(d.answers!.map((a) => dataOf(a))).toEqual(expected);
    expect(d.authorities!.map((a) => a.type)).toEqual(expected.length ? [] : ['SOA']);
  });
  test('with an OPT the glue count and the OPT add up in ARCOUNT', () => {
    const d = decode(r.handle(buildQuery(1, ZONE, 2, { additional: optRecord() }), '192.0.2.1', 'udp'));
    expect(d.additionals!.map((a) => a.type)).toEqual(['A', 'AAAA', 'OPT']);
  });
});

test('a name between the apex and an in-zone name server exists: NODATA with the SOA, not NXDOMAIN (RFC 8020)', () => {
  const r = make({ nsNames: ['ns1.a.tm.internal'], nsAddresses: { 'ns1.a.tm.internal': ['192.0.2.53'] } });
  for (const name of ['a.tm.internal', 'A.tm.internal']) {
    const d = decode(r.handle(buildQuery(1, name, 1), '192.0.2.1', 'udp'));
    expect(d.rcode).toBe('NOERROR');
    expect(d.flag_aa).toBe(true);
    expect(d.answers).toEqual([]);
    expect(d.authorities!.map((a) => [a.type, a.name, (a as { ttl?: number }).ttl])).toEqual([['SOA', 'tm.internal', 30]]);
  }
  expect(decode(r.handle(buildQuery(1, 'b.a.tm.internal', 1), '192.0.2.1', 'udp')).rcode).toBe('NXDOMAIN');
  expect(dataOf(decode(r.handle(buildQuery(1, 'ns1.a.tm.internal', 1), '192.0.2.1', 'udp')).answers![0])).toBe('192.0.2.53');
});

test('addresses for a name server outside the zone are an error naming it, not silently dropped', () => {
  expect(() => make({ nsNames: ['ns.example.net'], nsAddresses: { 'ns.example.net': ['192.0.2.53'] } })).toThrow(
    /nsAddresses\["ns\.example\.net"\]: ns\.example\.net is outside the zone tm\.internal.*drop the addresses/,
  );
  expect(() => make({ nsNames: ['ns.example.net'], nsAddresses: { 'ns.example.net': [] } })).not.toThrow();
});

test('names outside the zone are refused without filling the cache', () => {
  const r = make();
  for (let i = 0; i < 100; i++) expect(decode(r.handle(buildQuery(1, `n${i}.example.com`, 1), '192.0.2.1', 'udp')).rcode).toBe('REFUSED');
  expect(r.cached.questions).toBe(0);
});

describe("Performance through the real routing engine: the answer is the client's, never a cached one of another client", () => {
  const snap = buildSnapshot({
    zone: ZONE,
    profiles: [
      profile(
        'perf',
        'Performance',
        ['192.0.2.1', '192.0.2.2', '192.0.2.3'].map((ip, i) => ext(`e${i}`, ip, { endpointLocation: 'westeurope' })),
      ),
    ],
    geo: new TableGeo({ latency: { '*': { westeurope: 10 } } }),
  });
  const expected = (address: string, ecs?: number): string =>
    resolve(snap, { name: `perf.${ZONE}`, type: 'A', clientAddress: address, ...(ecs !== undefined ? { ecsSourcePrefix: ecs } : {}) })
      .outcomes[0]!.records[0]!.data;

  test('interleaved ECS subnets and source addresses each get their own hash-chosen endpoint, every time', () => {
    const r = new Responder({ zone: ZONE, snapshot: snap, resolve, rng: seededRng(9) });
    const subnets = Array.from({ length: 24 }, (_, i) => [203, 0, i]);
    const sources = Array.from({ length: 24 }, (_, i) => `198.51.100.${i + 1}`);
    const seen = new Set<string>();
    for (let round = 0; round < 5; round++) {
      subnets.forEach((net, i) => {
        const viaEcs = decode(
          r.handle(buildQuery(i, `perf.${ZONE}`, 1, { additional: optRecord(1232, 0, ecsOption(1, 24, 0, net)) }), sources[i]!, 'udp'),
        );
        const want = expected(`${net.join('.')}.0`, 24);
        expect(dataOf(viaEcs.answers![0])).toBe(want);
        seen.add(want);
        const viaSource = decode(r.handle(buildQuery(i, `perf.${ZONE}`, 1), sources[i]!, 'udp'));
        expect(dataOf(viaSource.answers![0])).toBe(expected(sources[i]!));
      });
    }
    expect([...seen].sort()).toEqual(['192.0.2.1', '192.0.2.2', '192.0.2.3']);
    // one encoding per distinct answer, shared by every client that gets it
    expect(r.cached.outcomes).toBe(3);
  });
});

describe('name compression', () => {
  const zoneOpts = { nsNames: ['ns1.tm.internal', 'ns2.tm.internal'], nsAddresses: { 'ns1.tm.internal': ['192.0.2.53'] } };
  const ecs56 = optRecord(512, 0, ecsOption(2, 56, 0, [0x20, 1, 0x0d, 0xb8, 0, 0, 0]));
  // [label, name, qtype, OPT, size with dns-packet's uncompressed names, size now]
  test.each([
    ['CNAME', `weighted.${ZONE}`, 1, undefined, 85, 65],
    ['NODATA + SOA', `v4.${ZONE}`, 28, undefined, 116, 83],
    ['NXDOMAIN + SOA', `nope.${ZONE}`, 1, undefined, 118, 85],
    ['apex SOA', ZONE, 6, undefined, 113, 80],
    ['apex NS + glue', ZONE, 2, undefined, 140, 81],
    ['8 AAAA', `${LONG_LABEL}.m.${ZONE}`, 28, undefined, 935, 319],
    ['8 AAAA, ECS /56', `${LONG_LABEL}.m.${ZONE}`, 28, ecs56, 961, 345],
    ['24 AAAA', `${LONG_LABEL}.big.${ZONE}`, 28, undefined, 2665, 769],
  ] as const)('%s: %i octets uncompressed, %i now, same records', (_l, name, qtype, opt, before, after) => {
    const q = buildQuery(1, name, qtype, opt ? { additional: opt } : {});
    const plain = make({ ...zoneOpts, compressNames: false })
      .handle(q, '192.0.2.1', 'tcp')!
      .subarray(2);
    const packed = make(zoneOpts).handle(q, '192.0.2.1', 'tcp')!.subarray(2);
    expect([plain.length, packed.length]).toEqual([before, after]);
    const { id: _a, ...p } = decode(plain);
    const { id: _b, ...c } = decode(packed);
    expect(c).toEqual(p);
  });

  test('8 AAAA fit in 512 octets without EDNS, and with an IPv6 ECS option (no TC)', () => {
    const multi = `${LONG_LABEL}.m.${ZONE}`;
    for (const q of [buildQuery(1, multi, 28), buildQuery(1, multi, 28, { additional: ecs56 })]) {
      const out = make().handle(q, '192.0.2.1', 'udp')!;
      expect(out.length).toBeLessThanOrEqual(512);
      const d = decode(out);
      expect([d.flag_tc, d.answers!.length]).toEqual([false, 8]);
    }
    expect(decode(make({ compressNames: false }).handle(buildQuery(1, multi, 28), '192.0.2.1', 'udp')).flag_tc).toBe(true);
  });

  test("0x20: names pointing into the question read back in each query's case; one cached encoding", () => {
    const calls: RoutingQuery[] = [];
    const r = make({}, calls);
    for (const name of ['V4.tm.INTERNAL', 'v4.TM.internal', 'v4.tm.internal']) {
      const d = decode(r.handle(buildQuery(1, name, 1), '192.0.2.1', 'udp'));
      expect(d.questions![0]!.name).toBe(name);
      expect(d.answers!.map((a) => [a.name, dataOf(a)])).toEqual([[name, '192.0.2.10']]);
      const n = decode(r.handle(buildQuery(2, name, 28), '192.0.2.1', 'udp'));
      const tail = name.slice(3);
      expect(n.authorities!.map((a) => [a.name, dataOf(a)])).toEqual([
        [tail, expect.objectContaining({ mname: `ns1.${tail}`, rname: `hostmaster.${tail}` })],
      ]);
    }
    expect(calls).toHaveLength(2); // A and AAAA, each resolved once whatever the case
  });

  test('a question name with dots, backslashes and high octets in a label is echoed byte for byte', () => {
    const label = Buffer.from([0x61, 0x2e, 0x5c, 0xff, 0x00, 0x41]); // "a.\\ÿ\0A"
    const qname = Buffer.concat([
      Buffer.from([label.length]),
      label,
      Buffer.from([2]),
      Buffer.from('tm'),
      Buffer.from([8]),
      Buffer.from('internal'),
      Buffer.from([0]),
    ]);
    const q = Buffer.concat([Buffer.from([0, 9, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]), qname, Buffer.from([0, 1, 0, 1])]);
    const out = make().handle(q, '192.0.2.1', 'udp')!;
    expect(out.subarray(12, 12 + qname.length).equals(qname)).toBe(true);
    const d = decode(out);
    expect([d.rcode, d.authorities!.map((a) => a.type)]).toEqual(['NXDOMAIN', ['SOA']]);
    expect(out.readUInt16BE(12 + qname.length + 4)).toBe(0xc000 | (12 + 1 + label.length)); // SOA owner → "tm.internal" in the question
  });
});

test('an answer that has no wire form is SERVFAIL naming the field; nothing is cached', () => {
  const errors: string[] = [];
  const table = {
    ...standardTable(),
    bad: { outcomes: [{ probability: 1, records: [{ type: 'A' as const, name: `bad.${ZONE}`, ttl: 5, data: 'not-an-address' }] }] },
  };
  const r = new Responder({
    zone: ZONE,
    snapshot: emptySnapshot(),
    resolve: tableResolver(table),
    rng: seededRng(1),
    onError: (reason) => errors.push(reason),
  });
  for (let i = 0; i < 2; i++) expect(decode(r.handle(buildQuery(1, `bad.${ZONE}`, 1), '192.0.2.1', 'udp')).rcode).toBe('SERVFAIL');
  expect(errors).toEqual(
    Array(2).fill(
      'encoding failed: dns: cannot encode answers[0].data: "not-an-address" is not an IPv4 address (an A record holds one, e.g. 192.0.2.1)',
    ),
  );
  expect(r.cached.questions).toBe(0);
  expect(decode(r.handle(buildQuery(1, `v4.${ZONE}`, 1), '192.0.2.1', 'udp')).answers).toHaveLength(1);
});
