/**
 * End to end through the real routing engine (src/core/routing): profiles → snapshot → DNS server → dig.
 * Includes a snapshot swap (failover after a health change) invalidating the cache and bumping the serial.
 */
import type { ProbeVerdict } from '../../../src/core/health/types';
import { buildSnapshot, resolve } from '../../../src/core/routing';
import type { Profile } from '../../../src/core/model/types';
import { DnsServer } from '../../../src/runtime/dns';
import { ext, nested, profile } from '../../../src/testing/builders';
import { TableGeo } from '../../../src/testing/geo-table';
import { seededRng } from '../../../src/testing/rng';
import { dig } from './support';

const ZONE = 'tm.internal';
const MULTI = 'many-addresses-for-a-multivalue-profile.with-a-long-relative-name';

const profiles: Profile[] = [
  profile('weighted', 'Weighted', [ext('a', 'a.example.net', { weight: 1 }), ext('b', 'b.example.net', { weight: 3 })]),
  profile('failover', 'Priority', [ext('primary', '192.0.2.1', { priority: 1 }), ext('secondary', '192.0.2.2', { priority: 2 })], {
    dnsConfig: { relativeName: 'failover', ttl: 10 },
  }),
  profile(
    'multi',
    'MultiValue',
    Array.from({ length: 8 }, (_, i) => ext(`e${i}`, `2001:db8::${i + 1}`)),
    { maxReturn: 8, dnsConfig: { relativeName: MULTI, ttl: 5 } },
  ),
  profile('geo', 'Geographic', [ext('de', '192.0.2.10', { geoMapping: ['DE'] }), ext('world', '192.0.2.20', { geoMapping: ['WORLD'] })]),
  profile('off', 'Priority', [ext('x', '192.0.2.99')], { profileStatus: 'Disabled' }),
  profile('nested.sub', 'Priority', [ext('x', '192.0.2.77')], { dnsConfig: { relativeName: 'deep.sub', ttl: 30 } }),
  profile('cdn', 'Priority', [ext('edge', 'edge.cdn.example.net')]),
  profile('app', 'Weighted', [nested('via-cdn', 'cdn', { weight: 1 })], { dnsConfig: { relativeName: 'app', ttl: 60 } }),
];
const geo = new TableGeo({ locations: { '198.51.100.0/24': { country: 'DE' } } });
const snap = (verdicts: Record<string, ProbeVerdict>) =>
  buildSnapshot({
    zone: ZONE,
    profiles,
    geo,
    health: { verdict: (p, e) => verdicts[`${p}/${e}`] ?? 'Online' },
  });

let server: DnsServer;
let at: string[];
beforeAll(async () => {
  server = new DnsServer({
    zone: ZONE,
    snapshot: snap({ 'failover/primary': 'Degraded' }),
    resolve,
    rng: seededRng(5),
    soa: { serial: 100 },
    listen: [{ address: '127.0.0.1', port: 0 }],
  });
  await server.start();
  at = ['@127.0.0.1', '-p', String(server.address().port)];
});
afterAll(() => server.close());

test('Weighted: CNAME to either target, with the profile TTL', async () => {
  const seen = new Set<string>();
  for (let i = 0; i < 20 && seen.size < 2; i++) {
    const r = await dig([...at, 'weighted.tm.internal', 'A']);
    expect(r.answer.map((a) => a.slice(0, 4))).toEqual([['weighted.tm.internal.', '30', 'IN', 'CNAME']]);
    seen.add(r.answer[0]![4]!);
  }
  expect([...seen].sort()).toEqual(['a.example.net.', 'b.example.net.']);
});

test('Priority: the degraded primary is skipped; a new snapshot fails back, bumps the serial, drops the cache', async () => {
  const before = await dig([...at, 'failover.tm.internal', 'A']);
  expect(before.answer).toEqual([['failover.tm.internal.', '10', 'IN', 'A', '192.0.2.2']]);
  const soa1 = await dig([...at, 'tm.internal', 'SOA']);
  expect(soa1.answer[0]![6]).toBe('100');

  server.setSnapshot(snap({}));
  const after = await dig([...at, 'failover.tm.internal', 'A']);
  expect(after.answer).toEqual([['failover.tm.internal.', '10', 'IN', 'A', '192.0.2.1']]);
  const soa2 = await dig([...at, 'tm.internal', 'SOA']);
  expect(soa2.answer[0]![6]).toBe('101');
});

test('IPv4 endpoint asked for AAAA: NODATA with SOA', async () => {
  const r = await dig([...at, 'failover.tm.internal', 'AAAA']);
  expect(r.status).toBe('NOERROR');
  expect(r.answer).toEqual([]);
  expect(r.authority[0]!.slice(0, 4)).toEqual(['tm.internal.', '30', 'IN', 'SOA']);
  // Compressed: the SOA owner is a pointer, mname and rname end in one (122 octets with names in full).
  const plain = await dig([...at, '+norecurse', '+noedns', 'failover.tm.internal', 'AAAA']);
  expect([plain.warnings, plain.size]).toEqual([[], 12 + 22 + 4 + (2 + 10 + (4 + 2) + (11 + 2) + 20)]);
});

test('MultiValue: 8 AAAA fit in 512 octets with compressed names (935 before): no TC, with or without ECS', async () => {
  const all = Array.from({ length: 8 }, (_, i) => `2001:db8::${i + 1}`).sort();
  const udp = await dig([...at, '+norecurse', `${MULTI}.tm.internal`, 'AAAA']);
  expect(udp.answer.map((a) => a[4]).sort()).toEqual(all);
  expect(udp.warnings).toEqual([]);
  const small = await dig([...at, '+norecurse', '+bufsize=512', '+ignore', '+subnet=2001:db8:1::/56', `${MULTI}.tm.internal`, 'AAAA']);
  expect(small.flags).not.toContain('tc');
  expect(small.answer.map((a) => a[4]).sort()).toEqual(all);
  expect(small.size).toBe(12 + 83 + 8 * 28 + 26); // OPT with a 7-octet ECS address: 26
  expect(small.warnings).toEqual([]);
  const plain = await dig([...at, '+norecurse', '+noedns', '+ignore', `${MULTI}.tm.internal`, 'AAAA']);
  expect([plain.flags.includes('tc'), plain.answer.length, plain.size]).toEqual([false, 8, 319]);
});

test('nested profile to an external target: one CNAME, the owner a pointer to the question', async () => {
  const r = await dig([...at, '+norecurse', '+noedns', 'App.TM.internal', 'A']);
  expect(r.warnings).toEqual([]);
  expect(r.answer).toEqual([['App.TM.internal.', '60', 'IN', 'CNAME', 'edge.cdn.example.net.']]);
  expect(r.size).toBe(12 + 17 + 4 + 2 + 10 + 22); // the owner: 2 octets instead of 17
});

test('Geographic with ECS: routed by the subnet, scope = source prefix; without ECS by the source address', async () => {
  const de = await dig([...at, '+subnet=198.51.100.0/24', 'geo.tm.internal']);
  expect(de.answer[0]![4]).toBe('192.0.2.10');
  expect(de.clientSubnet).toBe('198.51.100.0/24/24');
  const world = await dig([...at, 'geo.tm.internal']);
  expect(world.answer[0]![4]).toBe('192.0.2.20');
  const v6 = await dig([...at, '+subnet=2001:db8:77::/48', 'geo.tm.internal']);
  expect(v6.answer[0]![4]).toBe('192.0.2.20');
  expect(v6.clientSubnet).toBe('2001:db8:77::/48/48');
  // A name that does not depend on the client still says scope 0.
  const w = await dig([...at, '+subnet=198.51.100.0/24', 'failover.tm.internal']);
  expect(w.clientSubnet).toBe('198.51.100.0/24/0');
});

test('disabled profile: NXDOMAIN with SOA; empty non-terminal: NODATA', async () => {
  const off = await dig([...at, 'off.tm.internal']);
  expect(off.status).toBe('NXDOMAIN');
  expect(off.authority[0]![3]).toBe('SOA');
  const ent = await dig([...at, 'sub.tm.internal']);
  expect(ent.status).toBe('NOERROR');
  expect(ent.answer).toEqual([]);
  expect(ent.authority[0]![3]).toBe('SOA');
  const deep = await dig([...at, 'Deep.Sub.tm.internal']);
  expect(deep.question).toEqual([';Deep.Sub.tm.internal. IN A']);
  // The owner is a pointer to the question, so it reads back in the query's case.
  expect(deep.answer).toEqual([['Deep.Sub.tm.internal.', '30', 'IN', 'A', '192.0.2.77']]);
});
