/**
 * Per-answer counters of the DNS server (what /metrics exports as tmkit_dns_queries_total and
 * tmkit_dns_answers_total): a real server on loopback, the real routing engine, real `dig` and raw packets;
 * cached and uncached answers, client-dependent answers, nested endpoints, TC + TCP retry, NXDOMAIN,
 * REFUSED, error rcodes. Every count is asserted exactly.
 */
import { buildSnapshot, resolve } from '../../../src/core/routing';
import type { Profile } from '../../../src/core/model/types';
import { DnsCountsAggregate, DnsServer, type DnsCounts } from '../../../src/runtime/dns';
import { ext, nested, profile } from '../../../src/testing/builders';
import { TableGeo } from '../../../src/testing/geo-table';
import { seededRng } from '../../../src/testing/rng';
import { buildQuery, dig, rcodeOf, udpExchange } from './support';

const ZONE = 'tm.internal';
const MULTI = 'many-addresses-for-a-multivalue-profile.with-a-long-relative-name';

const profiles: Profile[] = [
  profile('weighted', 'Weighted', [ext('a', 'a.example.net', { weight: 1 }), ext('b', 'b.example.net', { weight: 3 })]),
  profile('failover', 'Priority', [ext('primary', '192.0.2.1', { priority: 1 }), ext('secondary', '192.0.2.2', { priority: 2 })]),
  profile(
    'multi',
    'MultiValue',
    Array.from({ length: 8 }, (_, i) => ext(`e${i}`, `2001:db8::${i + 1}`)),
    { maxReturn: 8, dnsConfig: { relativeName: MULTI, ttl: 5 } },
  ),
  profile('geo', 'Geographic', [ext('de', '192.0.2.10', { geoMapping: ['DE'] }), ext('world', '192.0.2.20', { geoMapping: ['WORLD'] })]),
  profile('child', 'Priority', [ext('x', '192.0.2.77')]),
  profile('parent', 'Priority', [nested('via-child', 'child', { minChildEndpoints: 1 })]),
  profile('off', 'Priority', [ext('x', '192.0.2.99')], { profileStatus: 'Disabled' }),
];
const geo = new TableGeo({ locations: { '198.51.100.0/24': { country: 'DE' } } });
const snap = (verdicts: Record<string, 'Online' | 'Degraded'> = {}) =>
  buildSnapshot({
    zone: ZONE,
    profiles,
    geo,
    health: { verdict: (p, e) => verdicts[`${p}/${e}`] ?? 'Online' },
  });

let server: DnsServer;
let at: string[];
let port: number;
beforeEach(async () => {
  server = new DnsServer({ zone: ZONE, snapshot: snap(), resolve, rng: seededRng(11), listen: [{ address: '127.0.0.1', port: 0 }] });
  await server.start();
  port = server.address().port;
  at = ['@127.0.0.1', '-p', String(port)];
});
afterEach(() => server.close());

/** Counts as sorted `label=value` lines, easy to compare and to read in a failure. */
function lines(c: DnsCounts): string[] {
  return [...c.queries.map(([p, r, t, n]) => `q ${p}|${r}|${t} ${n}`), ...c.answers.map(([p, e, n]) => `a ${p}|${e} ${n}`)].sort();
}

test('counts every answered query by profile/rcode/qtype and every answered endpoint, cached or not', async () => {
  // Priority: one miss, then cache hits; NODATA for AAAA; MX (NODATA) and an unlisted type (OTHER).
  for (let i = 0; i < 3; i++) expect((await dig([...at, 'failover.tm.internal', 'A'])).answer[0]![4]).toBe('192.0.2.1');
  expect((await dig([...at, 'Failover.TM.internal', 'AAAA'])).answer).toEqual([]);
  expect((await dig([...at, 'failover.tm.internal', 'MX'])).status).toBe('NOERROR');
  expect((await dig([...at, 'failover.tm.internal', 'TYPE999'])).status).toBe('NOERROR');
  // Weighted: count the answers the client saw per target; the server's counts must match exactly.
  const seen = { a: 0, b: 0 };
  for (let i = 0; i < 40; i++) {
    const r = await udpExchange('127.0.0.1', port, buildQuery(i + 1, 'weighted.tm.internal', 1));
    const text = r!.toString('latin1');
    if (text.includes('\u0001a\u0007example')) seen.a++;
    else if (text.includes('\u0001b\u0007example')) seen.b++;
  }
  expect(seen.a + seen.b).toBe(40);
  expect(seen.a).toBeGreaterThan(0);
  expect(seen.b).toBeGreaterThan(0);
  // Nested: the answer counts the leaf endpoint (child/x) under the top-level profile.
  for (let i = 0; i < 2; i++) expect((await dig([...at, 'parent.tm.internal', 'A'])).answer[0]![4]).toBe('192.0.2.77');
  // Client-dependent (Geographic): per-query routing, encodings cached by outcome.
  expect((await dig([...at, 'geo.tm.internal', 'A'])).answer[0]![4]).toBe('192.0.2.20');
  expect((await dig([...at, 'geo.tm.internal', 'A'])).answer[0]![4]).toBe('192.0.2.20');
  expect((await dig([...at, '+subnet=198.51.100.0/24', 'geo.tm.internal', 'A'])).answer[0]![4]).toBe('192.0.2.10');
  // NXDOMAIN: no profile ('' label) and a disabled profile (its own label).
  for (let i = 0; i < 2; i++) expect((await dig([...at, 'nope.tm.internal', 'A'])).status).toBe('NXDOMAIN');
  expect((await dig([...at, 'off.tm.internal', 'A'])).status).toBe('NXDOMAIN');
  // REFUSED (never cached: both counted), apex SOA, errors.
  for (let i = 0; i < 2; i++) expect((await dig([...at, 'example.com', 'A'])).status).toBe('REFUSED');
  expect((await dig([...at, 'tm.internal', 'SOA'])).status).toBe('NOERROR');
  expect((await dig([...at, '+edns=1', '+noednsneg', 'failover.tm.internal', 'A'])).status).toBe('BADVERS');
  expect(rcodeOf((await udpExchange('127.0.0.1', port, buildQuery(7, 'failover.tm.internal', 1, { qdcount: 0 })))!)).toBe(1);
  expect(rcodeOf((await udpExchange('127.0.0.1', port, buildQuery(8, 'failover.tm.internal', 1, { opcode: 2 })))!)).toBe(4);
  // Dropped (a response, QR set): no answer, not counted.
  const response = buildQuery(9, 'failover.tm.internal', 1);
  response[2]! |= 0x80;
  expect(await udpExchange('127.0.0.1', port, response, 300)).toBeNull();
  // MultiValue: 8 AAAA fit in 512 octets (compressed names), over UDP and TCP: both count every endpoint.
  expect((await dig([...at, '+bufsize=512', '+ignore', `${MULTI}.tm.internal`, 'AAAA'])).answer).toHaveLength(8);
  expect((await dig([...at, '+tcp', `${MULTI}.tm.internal`, 'AAAA'])).answer).toHaveLength(8);

  expect(lines(server.counts())).toEqual(
    [
      'a failover|failover/primary 3',
      'a geo|geo/de 1',
      'a geo|geo/world 2',
      ...Array.from({ length: 8 }, (_, i) => `a multi|multi/e${i} 2`),
      'a parent|child/x 2',
      `a weighted|weighted/a ${seen.a}`,
      `a weighted|weighted/b ${seen.b}`,
      'q |BADVERS|A 1',
      'q |FORMERR| 1',
      'q |NOERROR|SOA 1',
      'q |NOTIMP| 1',
      'q |NXDOMAIN|A 2',
      'q |REFUSED|A 2',
      'q failover|NOERROR|A 3',
      'q failover|NOERROR|AAAA 1',
      'q failover|NOERROR|MX 1',
      'q failover|NOERROR|OTHER 1',
      'q geo|NOERROR|A 3',
      'q multi|NOERROR|AAAA 2',
      'q off|NXDOMAIN|A 1',
      'q parent|NOERROR|A 2',
      'q weighted|NOERROR|A 40',
    ].sort(),
  );
  // Every message but the dropped one is counted once.
  const counted = server.counts().queries.reduce((s, q) => s + q[3], 0);
  expect(server.stats.queries).toBe(counted + 1);
  expect(server.stats.dropped).toBe(1);
}, 120_000);

test('a TC answer counts the query, not the endpoints; the TCP retry counts both', async () => {
  // Names in full (as before compression): the 8 AAAA are 935 octets, over 512.
  const plain = new DnsServer({
    zone: ZONE,
    snapshot: snap(),
    resolve,
    rng: seededRng(11),
    listen: [{ address: '127.0.0.1', port: 0 }],
    compressNames: false,
  });
  await plain.start();
  try {
    const p = ['@127.0.0.1', '-p', String(plain.address().port)];
    expect((await dig([...p, '+bufsize=512', '+ignore', `${MULTI}.tm.internal`, 'AAAA'])).flags).toContain('tc');
    expect((await dig([...p, '+tcp', `${MULTI}.tm.internal`, 'AAAA'])).answer).toHaveLength(8);
    expect(lines(plain.counts())).toEqual(
      [...Array.from({ length: 8 }, (_, i) => `a multi|multi/e${i} 1`), 'q multi|NOERROR|AAAA 2'].sort(),
    );
  } finally {
    await plain.close();
  }
});

test('counts survive a snapshot swap; the new answer is counted under its new endpoint', async () => {
  await dig([...at, 'failover.tm.internal', 'A']);
  await dig([...at, 'failover.tm.internal', 'A']);
  server.setSnapshot(snap({ 'failover/primary': 'Degraded' }));
  expect((await dig([...at, 'failover.tm.internal', 'A'])).answer[0]![4]).toBe('192.0.2.2');
  expect(lines(server.counts())).toEqual(['a failover|failover/primary 2', 'a failover|failover/secondary 1', 'q failover|NOERROR|A 3']);
}, 60_000);

test('worker aggregate: sums live workers, keeps the last report of a worker that exited', () => {
  const agg = new DnsCountsAggregate();
  agg.set(1, { queries: [['web', 'NOERROR', 'A', 5]], answers: [['web', 'web/a', 5]] });
  agg.set(2, {
    queries: [
      ['web', 'NOERROR', 'A', 2],
      ['', 'NXDOMAIN', 'A', 1],
    ],
    answers: [['web', 'web/a', 2]],
  });
  agg.set(1, { queries: [['web', 'NOERROR', 'A', 7]], answers: [['web', 'web/a', 7]] }); // cumulative: replaces
  expect(lines(agg.total())).toEqual(['a web|web/a 9', 'q |NXDOMAIN|A 1', 'q web|NOERROR|A 9'].sort());
  agg.retire(1);
  agg.set(3, { queries: [['web', 'NOERROR', 'A', 1]], answers: [['web', 'web/a', 1]] }); // the replacement starts at 0
  expect(lines(agg.total())).toEqual(['a web|web/a 10', 'q |NXDOMAIN|A 1', 'q web|NOERROR|A 10'].sort());
  expect(agg.size).toBe(2);
});
