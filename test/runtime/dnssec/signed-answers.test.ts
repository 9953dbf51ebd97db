/**
 * Signed answers through the real routing engine and DNS server on loopback, read with the real `dig` and
 * validated with `delv`: what is signed and when (DO only), the compact-denial NSEC of every negative answer
 * kind, the CO flag, truncation and TCP, the signature cache across snapshot swaps, the background refresh
 * of a validity window, split keys and Ed25519, and a ZSK rollover that validates at every step.
 */
import { buildSnapshot, resolve } from '../../../src/core/routing';
import type { Profile } from '../../../src/core/model/types';
import { DnsServer } from '../../../src/runtime/dns';
import { dnskeyText, loadKeySet, newKeySet, type KeyPolicy, type KeySetDocument } from '../../../src/runtime/dns/dnssec/keys';
import { startRollover } from '../../../src/runtime/dns/dnssec/rollover';
import { ZoneSigner, type SignerOptions } from '../../../src/runtime/dns/dnssec/signer';
import { ext, nested, profile } from '../../../src/testing/builders';
import { TableGeo } from '../../../src/testing/geo-table';
import { seededRng } from '../../../src/testing/rng';
import { buildQuery, dig, optRecord, rcodeOf, udpExchange } from '../dns/support';
import { delv, delvAnchors } from './support';

const ZONE = 'tm.internal';
const BIG = 'many-addresses-for-a-multivalue-profile.with-a-long-relative-name';
const profiles: Profile[] = [
  profile('failover', 'Priority', [ext('primary', '192.0.2.1', { priority: 1 }), ext('secondary', '192.0.2.2', { priority: 2 })], {
    dnsConfig: { relativeName: 'failover', ttl: 10 },
  }),
  profile('v6', 'Priority', [ext('one', '2001:db8::1')]),
  profile('geo', 'Geographic', [ext('de', '192.0.2.10', { geoMapping: ['DE'] })]),
  profile('cname', 'Priority', [ext('edge', 'edge.example.net')]),
  profile(
    'big',
    'MultiValue',
    Array.from({ length: 8 }, (_, i) => ext(`e${i}`, `2001:db8::${i + 1}`)),
    { maxReturn: 8, dnsConfig: { relativeName: BIG, ttl: 5 } },
  ),
  profile('deep.sub', 'Priority', [ext('x', '192.0.2.77')], { dnsConfig: { relativeName: 'deep.sub', ttl: 30 } }),
  profile('kid4', 'Priority', [ext('a', '192.0.2.40')]),
  profile('kid6', 'Priority', [ext('a', '2001:db8::40')]),
  profile('geomix', 'Geographic', [nested('de', 'kid4', { geoMapping: ['DE'] }), nested('fr', 'kid6', { geoMapping: ['FR'] })]),
];
const geo = new TableGeo({ locations: { '198.51.100.0/24': { country: 'DE' }, '203.0.113.0/24': { country: 'FR' } } });
const snap = (down: string[] = []) =>
  buildSnapshot({ zone: ZONE, profiles, geo, health: { verdict: (p, e) => (down.includes(`${p}/${e}`) ? 'Degraded' : 'Online') } });

interface Running {
  server: DnsServer;
  signer: ZoneSigner;
  at: string[];
  port: number;
  anchors: string;
  doc: KeySetDocument;
}
const running: Running[] = [];
afterAll(async () => {
  for (const r of running) {
    r.signer.close();
    await r.server.close();
  }
});

async function start(
  policy: KeyPolicy = { algorithm: 13, split: false },
  o: Partial<SignerOptions> = {},
  doc?: KeySetDocument,
): Promise<Running> {
  const keySet = doc ?? newKeySet(ZONE, policy, Date.now() - 1000);
  const { keys } = loadKeySet(keySet, 'test');
  const server = new DnsServer({
    zone: ZONE,
    snapshot: snap(),
    resolve,
    rng: seededRng(3),
    soa: { serial: 7 },
    nsNames: ['ns1.tm.internal'],
    nsAddresses: { 'ns1.tm.internal': ['192.0.2.53'] },
    listen: [{ address: '127.0.0.1', port: 0 }],
  });
  const signer = new ZoneSigner(keys, { zone: ZONE, ...o });
  server.responder.setSigner(signer);
  await server.start();
  const port = server.address().port;
  const r = {
    server,
    signer,
    port,
    at: ['@127.0.0.1', '-p', String(port)],
    anchors: delvAnchors(keys.filter((k) => k.role !== 'zsk').map((k) => dnskeyText(ZONE, k, 300))),
    doc: keySet,
  };
  running.push(r);
  return r;
}

let z: Running;
beforeAll(async () => {
  z = await start();
});

const types = (rows: string[][], type: string): string[][] => rows.filter((r) => r[3] === type);
/** The types in the NSEC of a dig section (`name ttl IN NSEC next TYPES...`). */
const nsecTypes = (rows: string[][]): string[] => types(rows, 'NSEC')[0]?.slice(5) ?? [];

test('without DO: no RRSIG, no NSEC; NXDOMAIN stays NXDOMAIN; the apex still has its DNSKEY RRset', async () => {
  const a = await dig([...z.at, 'failover.tm.internal', 'A']);
  expect(a.answer).toEqual([['failover.tm.internal.', '10', 'IN', 'A', '192.0.2.1']]);
  const nx = await dig([...z.at, 'nope.tm.internal', 'A']);
  expect(nx.status).toBe('NXDOMAIN');
  expect(nx.authority.map((r) => r[3])).toEqual(['SOA']);
  const keys = await dig([...z.at, 'tm.internal', 'DNSKEY']);
  expect(keys.answer.map((r) => r.slice(3, 6))).toEqual([['DNSKEY', '257', '3']]);
  const any = await dig([...z.at, 'tm.internal', 'ANY']);
  expect(any.answer.map((r) => r[3]).sort()).toEqual(['DNSKEY', 'NS', 'SOA']);
});

test("with DO: every RRset of every section is followed by its RRSIG, with the RRset's TTL", async () => {
  const a = await dig([...z.at, '+dnssec', 'failover.tm.internal', 'A']);
  expect(a.edns?.flags).toBe('do');
  expect(a.answer.map((r) => [r[3], r[1]])).toEqual([
    ['A', '10'],
    ['RRSIG', '10'],
  ]);
  expect(a.answer[1]!.slice(4, 8)).toEqual(['A', '13', '3', '10']); // covers A, algorithm 13, 3 labels, original TTL 10
  const ns = await dig([...z.at, '+dnssec', 'tm.internal', 'NS']);
  expect(ns.answer.map((r) => r[3])).toEqual(['NS', 'RRSIG']);
  expect(ns.additional.filter((r) => r[3] !== 'OPT').map((r) => r[3])).toEqual(['A', 'RRSIG']);
});

test.each([
  ['NXDOMAIN: NOERROR with NXNAME (TYPE128)', 'nope.tm.internal', 'A', ['RRSIG', 'NSEC', 'TYPE128']],
  ['a name below a missing one', 'a.b.nope.tm.internal', 'AAAA', ['RRSIG', 'NSEC', 'TYPE128']],
  ['type mismatch: the profile has A only', 'failover.tm.internal', 'AAAA', ['A', 'RRSIG', 'NSEC']],
  ['type mismatch: the profile has AAAA only', 'v6.tm.internal', 'A', ['AAAA', 'RRSIG', 'NSEC']],
  ['Geographic, no match for this client: not even A for it', 'geo.tm.internal', 'A', ['RRSIG', 'NSEC']],
  ['an empty non-terminal (above deep.sub)', 'sub.tm.internal', 'A', ['RRSIG', 'NSEC']],
  ['the apex, a type it lacks', 'tm.internal', 'TXT', ['NS', 'SOA', 'RRSIG', 'NSEC', 'DNSKEY']],
  ["the apex, DS (the parent's record)", 'tm.internal', 'DS', ['NS', 'SOA', 'RRSIG', 'NSEC', 'DNSKEY']],
  ['an in-zone name server, AAAA', 'ns1.tm.internal', 'AAAA', ['A', 'RRSIG', 'NSEC']],
  ['a CNAME profile never shows CNAME in a NODATA bitmap (TXT gets the CNAME instead)', 'cname.tm.internal', 'TXT', null],
])('negative answer, %s', async (_what, name, type, bitmap) => {
  const r = await dig([...z.at, '+dnssec', name, type]);
  expect(r.status).toBe('NOERROR');
  if (bitmap === null) {
    expect(r.answer.map((a) => a[3])).toEqual(['CNAME', 'RRSIG']);
    return;
  }
  expect(r.answer).toEqual([]);
  expect(r.authority.map((a) => a[3])).toEqual(['SOA', 'RRSIG', 'NSEC', 'RRSIG']);
  const nsec = types(r.authority, 'NSEC')[0]!;
  expect([nsec[0], nsec[1], nsec[4]]).toEqual([`${name}.`, '30', `\\000.${name}.`]);
  expect(nsecTypes(r.authority)).toEqual(bitmap);
  // delv asks the parent side for a DS (there is none here: the zone is its own trust anchor).
  if (type === 'DS') return;
  const d = await delv(z.port, z.anchors, ZONE, name, type);
  expect({ validated: d.validated, out: d.validated ? '' : d.out }).toEqual({ validated: true, out: '' });
});

test('the client in DE gets the Geographic answer, signed; a client elsewhere its NODATA proof', async () => {
  const de = await dig([...z.at, '+dnssec', '+subnet=198.51.100.0/24', 'geo.tm.internal', 'A']);
  expect(de.answer.map((r) => [r[3], r[4]])).toEqual([
    ['A', '192.0.2.10'],
    ['RRSIG', 'A'],
  ]);
  const fr = await dig([...z.at, '+dnssec', '+subnet=203.0.113.0/24', 'geo.tm.internal', 'A']);
  expect(fr.answer).toEqual([]);
  expect(nsecTypes(fr.authority)).toEqual(['RRSIG', 'NSEC']);
});

test('one name, NODATA for two clients: each gets the bitmap of its own view (an AAAA endpoint for FR, nothing for US)', async () => {
  const fr = await dig([...z.at, '+dnssec', '+subnet=203.0.113.0/24', 'geomix.tm.internal', 'A']);
  const us = await dig([...z.at, '+dnssec', '+subnet=192.0.2.0/24', 'geomix.tm.internal', 'A']);
  const fr2 = await dig([...z.at, '+dnssec', '+subnet=203.0.113.0/24', 'geomix.tm.internal', 'A']);
  expect([fr.answer, us.answer, fr2.answer]).toEqual([[], [], []]);
  expect(nsecTypes(fr.authority)).toEqual(['AAAA', 'RRSIG', 'NSEC']);
  expect(nsecTypes(us.authority)).toEqual(['RRSIG', 'NSEC']);
  expect(nsecTypes(fr2.authority)).toEqual(['AAAA', 'RRSIG', 'NSEC']);
  const de = await dig([...z.at, '+dnssec', '+subnet=198.51.100.0/24', 'geomix.tm.internal', 'A']);
  expect(de.answer.map((r) => [r[3], r[4]])).toEqual([
    ['A', '192.0.2.40'],
    ['RRSIG', 'A'],
  ]);
});

test('Compact Answers OK (CO, EDNS flag 0x4000): NXDOMAIN keeps its rcode and the response echoes CO', async () => {
  const q = (flags: number): Buffer => {
    const opt = optRecord(1232);
    opt.writeUInt16BE(flags, 7);
    return buildQuery(0x1234, 'nope.tm.internal', 1, { additional: opt });
  };
  const co = (await udpExchange('127.0.0.1', z.port, q(0xc000)))!;
  expect(rcodeOf(co)).toBe(3);
  expect(co.readUInt16BE(co.length - 4)).toBe(0xc000); // OPT flags: DO and CO
  const plain = (await udpExchange('127.0.0.1', z.port, q(0x8000)))!;
  expect(rcodeOf(plain)).toBe(0);
  expect(plain.readUInt16BE(plain.length - 4)).toBe(0x8000);
  const noDo = (await udpExchange('127.0.0.1', z.port, q(0x4000)))!;
  expect(rcodeOf(noDo)).toBe(3); // unsigned: a plain NXDOMAIN, CO not echoed
  expect(noDo.readUInt16BE(noDo.length - 4)).toBe(0);
});

test("signed answers within 512 octets stay whole; one over the client's EDNS size is truncated (TC, question only) and complete over TCP", async () => {
  const big = await dig([...z.at, '+dnssec', '+bufsize=512', `${BIG}.tm.internal`, 'AAAA']);
  expect(big.flags).not.toContain('tc');
  expect(big.answer.map((r) => r[3])).toEqual([...Array<string>(8).fill('AAAA'), 'RRSIG']);
  expect(big.size!).toBeLessThanOrEqual(512);
  // The apex ANY over UDP is one RRset (RFC 8482): the SOA and its RRSIG, well within 512 octets.
  const udp = await dig([...z.at, '+dnssec', '+bufsize=512', '+notcp', 'tm.internal', 'ANY']);
  expect(udp.flags).not.toContain('tc');
  expect(udp.answer.map((r) => r[3])).toEqual(['SOA', 'RRSIG']);
  expect(udp.size!).toBeLessThanOrEqual(512);
  // Over TCP the whole set: SOA, NS, DNSKEY and glue, each with its RRSIG: more than 512 octets.
  const tcp = await dig([...z.at, '+dnssec', '+bufsize=512', 'tm.internal', 'ANY']);
  expect(tcp.flags).not.toContain('tc');
  expect(tcp.answer.map((r) => r[3]).sort()).toEqual(['DNSKEY', 'NS', 'RRSIG', 'RRSIG', 'RRSIG', 'SOA']);
  expect(tcp.size!).toBeGreaterThan(512);
  // The DNSKEY RRset with its RRSIG over a 512-octet buffer: truncated (TC, question only), whole over TCP.
  const keys = await dig([...z.at, '+dnssec', '+bufsize=512', '+notcp', '+ignore', 'tm.internal', 'DNSKEY']);
  const keysTcp = await dig([...z.at, '+dnssec', 'tm.internal', 'DNSKEY']);
  if (keysTcp.size! > 512) {
    expect(keys.flags).toContain('tc');
    expect(keys.counts).toEqual({ query: 1, answer: 0, authority: 0, additional: 1 });
    expect(keys.edns?.flags).toBe('do');
  } else expect(keys.flags).not.toContain('tc');
  const d = await delv(z.port, z.anchors, ZONE, `${BIG}.tm.internal`, 'AAAA');
  expect(d.validated).toBe(true);
});

test('signatures are cached by RRset content: a snapshot swap re-signs only what changed (the SOA serial)', async () => {
  const r = await start();
  await dig([...r.at, '+dnssec', 'failover.tm.internal', 'A']);
  await dig([...r.at, '+dnssec', 'nope.tm.internal', 'A']);
  // A name that does not exist is kept from its second query on (doorkeeper.ts): its NSEC is signed twice.
  await dig([...r.at, '+dnssec', 'nope.tm.internal', 'A']);
  const made = r.signer.stats().signatures;
  expect(made).toBe(4); // A, SOA, NSEC (twice)
  await dig([...r.at, '+dnssec', 'failover.tm.internal', 'A']);
  expect(r.signer.stats().signatures).toBe(made); // an answer cache hit
  r.server.setSnapshot(snap(['failover/primary']));
  const after = await dig([...r.at, '+dnssec', 'failover.tm.internal', 'A']);
  expect(after.answer[0]![4]).toBe('192.0.2.2');
  expect(r.signer.stats().signatures).toBe(made + 1); // the new A RRset
  r.server.setSnapshot(snap());
  await dig([...r.at, '+dnssec', 'failover.tm.internal', 'A']);
  await dig([...r.at, '+dnssec', 'nope.tm.internal', 'A']);
  expect(r.signer.stats().signatures).toBe(made + 2); // the A of the primary again: cached; the SOA: new serial; the NSEC: cached
});

test("validity windows: inception backdated, the window's signatures made again in the background before it ends", async () => {
  // 4 s windows, 20 s validity, 3 s backdate, 1 s lead: one window passes within the test.
  const r = await start(undefined, { refreshSeconds: 4, validitySeconds: 20, backdateSeconds: 3, leadSeconds: 1 });
  const sigOf = async (): Promise<{ expiration: string; inception: string }> => {
    const a = await dig([...r.at, '+dnssec', 'failover.tm.internal', 'A']);
    const s = types(a.answer, 'RRSIG')[0]!;
    return { expiration: s[8]!, inception: s[9]! };
  };
  const t = (s: string): number =>
    Date.UTC(+s.slice(0, 4), +s.slice(4, 6) - 1, +s.slice(6, 8), +s.slice(8, 10), +s.slice(10, 12), +s.slice(12, 14)) / 1000;
  // First used early in a window, so the background refresh (1 s before its end) finds it.
  await new Promise((res) => setTimeout(res, 4000 - (Date.now() % 4000) + 100));
  const first = await sigOf();
  const windowStart = t(first.inception) + 3;
  expect(windowStart % 4).toBe(0);
  expect(windowStart * 1000).toBeLessThanOrEqual(Date.now());
  expect(t(first.expiration)).toBe(windowStart + 20);
  const generation = r.signer.generation;
  await new Promise((res) => setTimeout(res, (windowStart + 4) * 1000 - Date.now() + 300));
  expect(r.signer.generation).toBeGreaterThan(generation);
  expect(r.signer.stats().refreshed).toBeGreaterThan(0); // made ahead, not on the first query of the window
  const made = r.signer.stats().signatures;
  const next = await sigOf();
  expect(t(next.inception)).toBe(windowStart + 4 - 3);
  expect(t(next.expiration)).toBe(windowStart + 4 + 20);
  expect(r.signer.stats().signatures).toBe(made);
  expect((await delv(r.port, r.anchors, ZONE, 'failover.tm.internal', 'A')).validated).toBe(true);
}, 20_000);

test.each([
  ['split keys (KSK + ZSK), algorithm 13', { algorithm: 13, split: true }],
  ['one CSK, algorithm 15 (Ed25519)', { algorithm: 15, split: false }],
  ['split keys, algorithm 15', { algorithm: 15, split: true }],
] as Array<[string, KeyPolicy]>)('%s: the KSK signs the DNSKEY RRset, the zone key the rest; delv validates', async (_what, policy) => {
  const r = await start(policy);
  const keys = await dig([...r.at, '+dnssec', 'tm.internal', 'DNSKEY']);
  const dnskeys = types(keys.answer, 'DNSKEY')
    .map((k) => k[4])
    .sort();
  expect(dnskeys).toEqual(policy.split ? ['256', '257'] : ['257']);
  expect(types(keys.answer, 'RRSIG').map((s) => s[5])).toEqual([String(policy.algorithm)]);
  for (const [name, type] of [
    ['failover.tm.internal', 'A'],
    ['nope.tm.internal', 'A'],
    ['tm.internal', 'DNSKEY'],
    ['tm.internal', 'SOA'],
  ]) {
    const d = await delv(r.port, r.anchors, ZONE, name!, type!);
    expect({ name, validated: d.validated, out: d.validated ? '' : d.out }).toEqual({ name, validated: true, out: '' });
  }
});

test('a ZSK rollover (pre-publish) validates before, during and after: new key published, then signing, old key gone', async () => {
  const t0 = Date.now() - 1000;
  const r = await start({ algorithm: 13, split: true }, {}, newKeySet(ZONE, { algorithm: 13, split: true }, t0));
  const check = async (): Promise<void> => {
    for (const [name, type] of [
      ['failover.tm.internal', 'A'],
      ['tm.internal', 'DNSKEY'],
      ['nope.tm.internal', 'A'],
    ])
      expect((await delv(r.port, r.anchors, ZONE, name!, type!)).validated).toBe(true);
  };
  const zskTag = async (): Promise<string> =>
    types((await dig([...r.at, '+dnssec', 'failover.tm.internal', 'A'])).answer, 'RRSIG')[0]![10]!;
  const oldTag = await zskTag();
  await check();
  // DNSKEY TTL 1 s + margin 1 s: the new ZSK signs 2 s from now; the old one leaves 2 s (largest TTL 1 + 1) after that.
  const rolled = startRollover(r.doc, 'zone', { now: Date.now(), dnskeyTtl: 1, maxTtl: 1, marginSeconds: 1 });
  r.signer.setKeys(loadKeySet(rolled.doc, 'rolled').keys);
  const during = await dig([...r.at, '+dnssec', 'tm.internal', 'DNSKEY']);
  expect(
    types(during.answer, 'DNSKEY')
      .map((k) => k[4])
      .sort(),
  ).toEqual(['256', '256', '257']);
  expect(await zskTag()).toBe(oldTag);
  await check();
  await new Promise((res) => setTimeout(res, 2500));
  const newTag = await zskTag();
  expect(newTag).toBe(String(rolled.keyTags[0]));
  await check();
  await new Promise((res) => setTimeout(res, 2500));
  const after = await dig([...r.at, '+dnssec', 'tm.internal', 'DNSKEY']);
  expect(
    types(after.answer, 'DNSKEY')
      .map((k) => k[4])
      .sort(),
  ).toEqual(['256', '257']);
  await check();
}, 30_000);
