/**
 * End to end through the real routing engine (src/core/routing): profiles → snapshot → DNS server → dig.
 * Includes a snapshot swap (failover after a health change) invalidating the cache and bumping the serial.
 */
import type { ProbeVerdict } from '../../../src/core/health/types';
import { buildSnapshot, resolve } from '../../../src/core/routing';
import type { Profile } from '../../../src/core/model/types';
import { DnsServer } from '../../../src/runtime/dns';
import { ext, profile } from '../../../src/testing/builders';
import { TableGeo } from '../../../src/testing/geo-table';
import { seededRng } from '../../../src/testing/rng';
import { dig } from './support';

const ZONE = 'tm.internal';
const MULTI = 'many-addresses-for-a-multivalue-profile.with-a-long-relative-name';

const profiles: Profile[] = [
  profile('weighted', 'Weighted', [ext('a', 'a.example.net', { weight: 1 }), ext('b', 'b.example.net', { weight: 3 })]),
  profile('failover', 'Priority', [ext('primary', '192.0.2.1', { priority: 1 }), ext('secondary', '192.0.2.2', { priority: 2 })], { dnsConfig: { relativeName: 'failover', ttl: 10 } }),
  profile('multi', 'MultiValue', Array.from({ length: 8 }, (_, i) => ext(`e${i}`, `2001:db8::${i + 1}`)), { maxReturn: 8, dnsConfig: { relativeName: MULTI, ttl: 5 } }),
  profile('geo', 'Geographic', [ext('de', '192.0.2.10', { geoMapping: ['DE'] }), ext('world', '192.0.2.20', { geoMapping: ['WORLD'] })]),
  profile('off', 'Priority', [ext('x', '192.0.2.99')], { profileStatus: 'Disabled' }),
  profile('nested.sub', 'Priority', [ext('x', '192.0.2.77')], { dnsConfig: { relativeName: 'deep.sub', ttl: 30 } }),
];
const geo = new TableGeo({ locations: { '198.51.100.0/24': { country: 'DE' } } });
const snap = (verdicts: Record<string, ProbeVerdict>) => buildSnapshot({
  zone: ZONE, profiles, geo, health: { verdict: (p, e) => verdicts[`${p}/${e}`] ?? 'Online' },
});

let server: DnsServer;
let at: string[];
beforeAll(async () => {
  server = new DnsServer({
    zone: ZONE, snapshot: snap({ 'failover/primary': 'Degraded' }), resolve, rng: seededRng(5),
    soa: { serial: 100 }, listen: [{ address: '127.0.0.1', port: 0 }],
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
});

test('MultiValue: 8 AAAA; over 512 octets, so TC then the full answer over TCP', async () => {
  const udp = await dig([...at, `${MULTI}.tm.internal`, 'AAAA']);
  expect(udp.answer.map((a) => a[4]).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `2001:db8::${i + 1}`).sort());
  const tc = await dig([...at, '+bufsize=512', '+ignore', `${MULTI}.tm.internal`, 'AAAA']);
  expect(tc.flags).toContain('tc');
  const retried = await dig([...at, '+noedns', `${MULTI}.tm.internal`, 'AAAA']);
  expect(retried.raw).toMatch(/retrying in TCP mode/);
  expect(retried.answer).toHaveLength(8);
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
  expect(deep.answer).toEqual([['deep.sub.tm.internal.', '30', 'IN', 'A', '192.0.2.77']]);
});
