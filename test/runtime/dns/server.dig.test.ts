/**
 * Conformance with the real `dig` against a real server on loopback (IPv4 and IPv6, UDP and TCP). The
 * answers come from a table resolver here; test/runtime/dns/engine.test.ts does the same through the
 * real routing engine.
 */
import * as dnsPacket from 'dns-packet';
import { DnsServer } from '../../../src/runtime/dns';
import { seededRng } from '../../../src/testing/rng';
import { LONG_LABEL, ZONE, buildQuery, dig, emptySnapshot, optRecord, rcodeOf, standardTable, tableResolver, udpExchange } from './support';

let server: DnsServer;
let port: number;
const at = (): string[] => ['@127.0.0.1', '-p', String(port)];

beforeAll(async () => {
  server = new DnsServer({
    zone: ZONE,
    soa: { mname: 'ns1.tm.internal', rname: 'hostmaster.tm.internal', serial: 2026010101, ttl: 300, minimum: 30 },
    nsNames: ['ns1.tm.internal', 'ns2.tm.internal'],
    snapshot: emptySnapshot(),
    resolve: tableResolver(standardTable()),
    rng: seededRng(7),
    listen: [
      { address: '127.0.0.1', port: 0 },
      { address: '::1', port: 0 },
    ],
  });
  await server.start();
  port = server.address().port;
});
afterAll(() => server.close());

describe('answers', () => {
  test('A record: NOERROR, aa and rd set, ra not, TTL and question as asked', async () => {
    const r = await dig([...at(), 'v4.tm.internal', 'A']);
    expect(r.status).toBe('NOERROR');
    expect(r.flags).toEqual(expect.arrayContaining(['qr', 'aa', 'rd']));
    expect(r.flags).not.toContain('ra');
    expect(r.flags).not.toContain('tc');
    expect(r.question).toEqual([';v4.tm.internal. IN A']);
    expect(r.answer).toEqual([['v4.tm.internal.', '60', 'IN', 'A', '192.0.2.10']]);
    expect(r.counts).toEqual({ query: 1, answer: 1, authority: 0, additional: 1 }); // additional = OPT
    expect(r.edns).toEqual({ version: 0, flags: '', udp: 1232 });
  });

  test('RD is copied: +norecurse gives no rd flag', async () => {
    const r = await dig([...at(), '+norecurse', 'v4.tm.internal']);
    expect(r.flags).toContain('aa');
    expect(r.flags).not.toContain('rd');
  });

  test('AAAA record', async () => {
    const r = await dig([...at(), 'v6.tm.internal', 'AAAA']);
    expect(r.answer).toEqual([['v6.tm.internal.', '45', 'IN', 'AAAA', '2001:db8::1']]);
  });

  test('CNAME answer for a weighted name, both targets seen', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 12 && seen.size < 2; i++) {
      const r = await dig([...at(), 'weighted.tm.internal', 'A']);
      expect(r.status).toBe('NOERROR');
      expect(r.answer).toHaveLength(1);
      expect(r.answer[0]!.slice(0, 4)).toEqual(['weighted.tm.internal.', '30', 'IN', 'CNAME']);
      seen.add(r.answer[0]![4]!);
    }
    expect([...seen].sort()).toEqual(['a.example.net.', 'b.example.net.']);
  });

  test('over IPv6 (::1), UDP and TCP', async () => {
    const v6 = server.addresses().find((a) => a.family === 'IPv6')!;
    const u = await dig(['@::1', '-p', String(v6.port), 'v4.tm.internal']);
    expect(u.answer).toEqual([['v4.tm.internal.', '60', 'IN', 'A', '192.0.2.10']]);
    const t = await dig(['@::1', '-p', String(v6.port), '+tcp', 'v6.tm.internal', 'AAAA']);
    expect(t.answer).toEqual([['v6.tm.internal.', '45', 'IN', 'AAAA', '2001:db8::1']]);
  });

  test('dig +tcp', async () => {
    const r = await dig([...at(), '+tcp', 'v4.tm.internal']);
    expect(r.status).toBe('NOERROR');
    expect(r.flags).toEqual(expect.arrayContaining(['qr', 'aa', 'rd']));
    expect(r.answer).toEqual([['v4.tm.internal.', '60', 'IN', 'A', '192.0.2.10']]);
  });

  test("0x20: the question is echoed in the query's case, the answer still found", async () => {
    const r = await dig([...at(), 'V4.Tm.InTeRnAl', 'A']);
    expect(r.question).toEqual([';V4.Tm.InTeRnAl. IN A']);
    // The owner is a compression pointer to the question: it reads back in the query's case too.
    expect(r.answer).toEqual([['V4.Tm.InTeRnAl.', '60', 'IN', 'A', '192.0.2.10']]);
    const t = await dig([...at(), '+tcp', 'vA.tM.internal'.replace('vA', 'V6'), 'AAAA']);
    expect(t.question).toEqual([';V6.tM.internal. IN AAAA']);
  });
});

describe('negative answers and the apex', () => {
  test('NXDOMAIN with the SOA in authority, TTL = min(SOA TTL, minimum)', async () => {
    const r = await dig([...at(), 'nope.tm.internal', 'A']);
    expect(r.status).toBe('NXDOMAIN');
    expect(r.flags).toContain('aa');
    expect(r.answer).toEqual([]);
    expect(r.authority).toHaveLength(1);
    expect(r.authority[0]!.slice(0, 4)).toEqual(['tm.internal.', '30', 'IN', 'SOA']);
    expect(r.authority[0]!.slice(4)).toEqual(['ns1.tm.internal.', 'hostmaster.tm.internal.', '2026010101', '3600', '600', '86400', '30']);
  });

  test.each([
    ['A record name asked for AAAA', 'v4.tm.internal', 'AAAA'],
    ['AAAA record name asked for A', 'v6.tm.internal', 'A'],
    ['a name asked for MX', 'v4.tm.internal', 'MX'],
    ['the apex asked for A', 'tm.internal', 'A'],
  ])('NODATA with SOA: %s', async (_label, name, type) => {
    const r = await dig([...at(), name, type]);
    expect(r.status).toBe('NOERROR');
    expect(r.answer).toEqual([]);
    expect(r.authority.map((a) => a.slice(0, 4))).toEqual([['tm.internal.', '30', 'IN', 'SOA']]);
  });

  test.each([['example.com'], ['tm.internal.example.com'], ['xtm.internal']])('REFUSED outside the zone: %s', async (name) => {
    const r = await dig([...at(), name, 'A']);
    expect(r.status).toBe('REFUSED');
    expect(r.flags).not.toContain('aa');
    expect(r.answer).toEqual([]);
    expect(r.authority).toEqual([]);
  });

  test('SOA at the apex', async () => {
    const r = await dig([...at(), 'tm.internal', 'SOA']);
    expect(r.status).toBe('NOERROR');
    expect(r.flags).toContain('aa');
    expect(r.answer).toEqual([
      ['tm.internal.', '300', 'IN', 'SOA', 'ns1.tm.internal.', 'hostmaster.tm.internal.', '2026010101', '3600', '600', '86400', '30'],
    ]);
  });

  test('NS at the apex', async () => {
    const r = await dig([...at(), 'tm.internal', 'NS']);
    expect(r.answer.map((a) => a.join(' ')).sort()).toEqual([
      'tm.internal. 300 IN NS ns1.tm.internal.',
      'tm.internal. 300 IN NS ns2.tm.internal.',
    ]);
  });
});

describe('compressed names (RFC 1035 §4.1.4): dig reads them without warnings', () => {
  // +norecurse: otherwise dig warns "recursion requested but not available" about every authoritative answer.
  const quiet = (): string[] => [...at(), '+norecurse'];
  // The same zone with names written in full, as dns-packet wrote them before: the sizes to compare with.
  let plainServer: DnsServer;
  beforeAll(async () => {
    plainServer = new DnsServer({
      zone: ZONE,
      soa: { mname: 'ns1.tm.internal', rname: 'hostmaster.tm.internal', serial: 2026010101, ttl: 300, minimum: 30 },
      nsNames: ['ns1.tm.internal', 'ns2.tm.internal'],
      snapshot: emptySnapshot(),
      resolve: tableResolver(standardTable()),
      rng: seededRng(7),
      listen: [{ address: '127.0.0.1', port: 0 }],
      compressNames: false,
    });
    await plainServer.start();
  });
  afterAll(() => plainServer.close());

  test.each([
    // [what, name, type, size without EDNS (was, with dns-packet's uncompressed names)]
    ['CNAME', 'weighted.tm.internal', 'A', 65, 85],
    ['NODATA + SOA', 'v4.tm.internal', 'AAAA', 83, 116],
    ['NXDOMAIN + SOA', 'nope.tm.internal', 'A', 85, 118],
    ['apex SOA', 'tm.internal', 'SOA', 80, 113],
    ['apex NS', 'tm.internal', 'NS', 65, 109],
  ])('%s: %s %s in %i octets (was %i)', async (_what, name, type, size, was) => {
    const r = await dig([...quiet(), '+noedns', name, type]);
    expect(r.warnings).toEqual([]);
    expect(r.size).toBe(size);
    const before = await dig(['@127.0.0.1', '-p', String(plainServer.address().port), '+norecurse', '+noedns', name, type]);
    // The same records (the weighted target is drawn per server, so compare owner, TTL, class and type there).
    const rows = (x: string[][]): string[][] => (type === 'A' && name.startsWith('weighted') ? x.map((a) => a.slice(0, 4)) : x);
    expect([before.size, rows(before.answer), before.authority]).toEqual([was, rows(r.answer), r.authority]);
    const t = await dig([...quiet(), '+noedns', '+tcp', name, type]);
    expect([t.warnings, t.size, t.answer, t.authority]).toEqual([[], size, r.answer, r.authority]);
  });

  test("NODATA in the query's case: SOA owner, mname and rname point into the question", async () => {
    const r = await dig([...quiet(), 'V4.TM.Internal', 'AAAA']);
    expect(r.warnings).toEqual([]);
    expect(r.authority).toEqual([
      ['TM.Internal.', '30', 'IN', 'SOA', 'ns1.TM.Internal.', 'hostmaster.TM.Internal.', '2026010101', '3600', '600', '86400', '30'],
    ]);
  });

  test('8 AAAA with an IPv6 ECS option fit in 512 octets: no TC, ECS echoed', async () => {
    const multi = `${LONG_LABEL}.m.${ZONE}`;
    const r = await dig([...quiet(), '+bufsize=512', '+ignore', '+subnet=2001:db8::/56', multi, 'AAAA']);
    expect(r.warnings).toEqual([]);
    expect(r.flags).not.toContain('tc');
    expect(r.answer).toHaveLength(8);
    expect(r.answer.map((a) => a[0])).toEqual(Array(8).fill(`${multi}.`));
    expect(r.clientSubnet).toBe('2001:db8::/56/0');
    expect(r.size).toBe(319 + 11 + 15); // OPT with ECS: 11 + 4 + 4 + 7 address octets
    const plain = await dig([...quiet(), '+noedns', '+ignore', multi, 'AAAA']);
    expect([plain.flags.includes('tc'), plain.answer.length, plain.size]).toEqual([false, 8, 319]);
    // Before (names in full): 935 octets, so TC at 512.
    const before = await dig(['@127.0.0.1', '-p', String(plainServer.address().port), '+norecurse', '+noedns', '+ignore', multi, 'AAAA']);
    expect([before.flags.includes('tc'), before.answer.length]).toEqual([true, 0]);
    const beforeTcp = await dig(['@127.0.0.1', '-p', String(plainServer.address().port), '+norecurse', '+tcp', multi, 'AAAA']);
    expect(beforeTcp.size).toBe(935 + 11);
  });
});

describe('EDNS and truncation', () => {
  const multi = `${LONG_LABEL}.big.${ZONE}`; // 24 AAAA: 769 octets with compressed names

  test('24 AAAA records exceed 512 octets: +bufsize=512 sets TC (no retry with +ignore)', async () => {
    const r = await dig([...at(), '+bufsize=512', '+ignore', multi, 'AAAA']);
    expect(r.flags).toContain('tc');
    expect(r.counts.answer).toBe(0);
  });

  test('without +ignore, dig retries over TCP and gets all 24', async () => {
    const r = await dig([...at(), '+bufsize=512', multi, 'AAAA']);
    expect(r.flags).not.toContain('tc');
    expect(r.answer).toHaveLength(24);
    expect(r.raw).toMatch(/Truncated, retrying in TCP mode/);
  });

  test('the default 1232 payload fits the 24 records over UDP', async () => {
    const r = await dig([...at(), multi, 'AAAA']);
    expect(r.flags).not.toContain('tc');
    expect(r.answer).toHaveLength(24);
    expect(r.size).toBe(769 + 11);
    expect(r.raw).not.toMatch(/retrying in TCP/);
  });

  test('without EDNS the limit is 512 and there is no OPT in the answer', async () => {
    const r = await dig([...at(), '+noedns', '+ignore', multi, 'AAAA']);
    expect(r.flags).toContain('tc');
    expect(r.edns).toBeUndefined();
    const small = await dig([...at(), '+noedns', 'v4.tm.internal']);
    expect(small.edns).toBeUndefined();
    expect(small.counts.additional).toBe(0);
  });

  test('our OPT advertises our cap (1232) whatever the requester offered', async () => {
    const r = await dig([...at(), '+bufsize=4096', 'v4.tm.internal']);
    expect(r.edns?.udp).toBe(1232);
  });

  test('BADVERS for EDNS version 1', async () => {
    const r = await dig([...at(), '+edns=1', '+noednsnegotiation', 'v4.tm.internal']);
    expect(r.status).toBe('BADVERS');
    expect(r.edns?.version).toBe(0);
    expect(r.answer).toEqual([]);
  });

  test('unknown EDNS options (a cookie, an unknown code) are ignored', async () => {
    const r = await dig([...at(), '+cookie', '+ednsopt=65001:abcd', 'v4.tm.internal']);
    expect(r.status).toBe('NOERROR');
    expect(r.answer).toEqual([['v4.tm.internal.', '60', 'IN', 'A', '192.0.2.10']]);
  });

  test("ECS: a client-dependent name routes by the subnet and echoes it with the resolver's scope", async () => {
    const a = await dig([...at(), '+subnet=198.51.100.0/24', 'geo.tm.internal']);
    expect(a.answer).toEqual([['geo.tm.internal.', '20', 'IN', 'A', '198.51.100.1']]);
    expect(a.clientSubnet).toBe('198.51.100.0/24/24');
    const b = await dig([...at(), '+subnet=203.0.113.0/24', 'geo.tm.internal']);
    expect(b.answer[0]![4]).toBe('203.0.113.1');
    expect(b.clientSubnet).toBe('203.0.113.0/24/16');
  });

  test('ECS over TCP too', async () => {
    const a = await dig([...at(), '+tcp', '+subnet=198.51.100.7/32', 'geo.tm.internal']);
    expect(a.answer[0]![4]).toBe('198.51.100.1');
    expect(a.clientSubnet).toBe('198.51.100.7/32/24');
  });

  test('ECS: a name that does not depend on the client echoes scope 0', async () => {
    const r = await dig([...at(), '+subnet=198.51.100.0/24', 'v4.tm.internal']);
    expect(r.clientSubnet).toBe('198.51.100.0/24/0');
    const nx = await dig([...at(), '+subnet=2001:db8:1::/48', 'nope.tm.internal']);
    expect(nx.status).toBe('NXDOMAIN');
    expect(nx.clientSubnet).toBe('2001:db8:1::/48/0');
  });

  test('ECS /0 (client asks for privacy): routed by the source address, scope 0', async () => {
    const r = await dig([...at(), '+subnet=0.0.0.0/0', 'geo.tm.internal']);
    expect(r.answer[0]![4]).toBe('203.0.113.1'); // 127.0.0.1, not 198.51.100.x
    expect(r.clientSubnet).toBe('0.0.0.0/0/0');
  });
});

describe('rcodes from raw packets', () => {
  test('NOTIMP for opcode 2 (STATUS), ID kept, opcode echoed', async () => {
    const resp = await udpExchange('127.0.0.1', port, buildQuery(0x1234, 'v4.tm.internal', 1, { opcode: 2 }));
    expect(resp).not.toBeNull();
    expect(resp!.readUInt16BE(0)).toBe(0x1234);
    expect(rcodeOf(resp!)).toBe(4);
    expect(resp![2]! & 0x04).toBe(0); // AA clear
    expect((resp![2]! >> 3) & 0xf).toBe(2);
    expect(resp![2]! & 0x80).toBe(0x80); // QR
  });

  test('FORMERR for QDCOUNT = 2', async () => {
    const q = buildQuery(0x4321, 'v4.tm.internal', 1, { qdcount: 2 });
    const resp = await udpExchange('127.0.0.1', port, q);
    expect(resp!.readUInt16BE(0)).toBe(0x4321);
    expect(rcodeOf(resp!)).toBe(1);
  });

  test('FORMERR for QDCOUNT = 0', async () => {
    const h = Buffer.alloc(12);
    h.writeUInt16BE(7, 0);
    const resp = await udpExchange('127.0.0.1', port, h);
    expect(rcodeOf(resp!)).toBe(1);
  });

  test('no answer to a response (QR set) or to fewer than 12 octets; the server still answers after', async () => {
    const q = buildQuery(1, 'v4.tm.internal', 1);
    q[2]! |= 0x80;
    expect(await udpExchange('127.0.0.1', port, q, 500)).toBeNull();
    expect(await udpExchange('127.0.0.1', port, Buffer.from([1, 2, 3]), 500)).toBeNull();
    const ok = await udpExchange('127.0.0.1', port, buildQuery(2, 'v4.tm.internal', 1));
    expect(dnsPacket.decode(ok!).answers).toHaveLength(1);
  });

  test('an OPT in the query gives an OPT in the FORMERR response; a valid OPT on a good query advertises 1232', async () => {
    const bad = buildQuery(9, 'v4.tm.internal', 1, { additional: Buffer.concat([optRecord(), optRecord()]), arcount: 2 });
    const r1 = await udpExchange('127.0.0.1', port, bad);
    expect(rcodeOf(r1!)).toBe(1);
    const good = await udpExchange('127.0.0.1', port, buildQuery(10, 'v4.tm.internal', 1, { additional: optRecord(4096) }));
    const d = dnsPacket.decode(good!);
    expect(d.additionals!).toHaveLength(1);
    expect((d.additionals![0] as { udpPayloadSize: number }).udpPayloadSize).toBe(1232);
  });
});
