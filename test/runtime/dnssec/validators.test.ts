/**
 * The real `tmkit serve --dnssec` (a process), checked by real validating resolvers on loopback: unbound
 * (validator module, the zone's CSK as trust anchor, a stub zone to tmkit) must set AD, and BIND's delv must
 * say "fully validated", for positive answers, a CNAME chain inside the zone, NXDOMAIN (compact denial:
 * NOERROR with NXNAME), NODATA (a type mismatch, a Geographic profile with no match for the client, the
 * apex) and the answer after a failover (a real HTTP health server going down). The keys come from
 * `tmkit dnssec status`, the DS from `tmkit dnssec ds`: what an operator would use.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../../src/client';
import type { DnssecReport } from '../../../src/core/api';
import { healthServerPair } from '../../support/loopback';
import { waitFor } from '../../support/wait';
import { runTmkit, spawnServe, type ServeProcess } from '../../support/process';
import { delv, delvAnchors, startUnbound, type Unbound } from './support';

const ZONE = 'tm.internal';
let dir: string;
let serve: ServeProcess;
let client: TmkitClient;
let token: string;
let health: Awaited<ReturnType<typeof healthServerPair>>;
let unbound: Unbound;
let report: DnssecReport;
let anchors: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-dnssec-'));
  health = await healthServerPair('127.0.0.1', '127.0.0.2');
  serve = await spawnServe(dir, ['--dnssec', '--workers', '1']);
  token = (await import('node:fs')).readFileSync(join(dir, 'token'), 'utf8').trim();
  client = new TmkitClient({ server: serve.api, token, env: {} });
  const monitorConfig = {
    protocol: 'HTTP' as const,
    port: health[0].port,
    path: '/healthz',
    intervalInSeconds: 10,
    timeoutInSeconds: 5,
    toleratedNumberOfFailures: 0,
  };
  await client.putProfile({
    name: 'web',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'web', ttl: 5 },
    monitorConfig,
    endpoints: [
      { name: 'primary', type: 'externalEndpoints', target: '127.0.0.1', priority: 1 },
      { name: 'backup', type: 'externalEndpoints', target: '127.0.0.2', priority: 2 },
    ],
  });
  await client.putProfile({
    name: 'alias',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'alias', ttl: 5 },
    monitorConfig,
    endpoints: [{ name: 'web', type: 'externalEndpoints', target: 'web.tm.internal', alwaysServe: 'Enabled' }],
  });
  await client.putProfile({
    name: 'v6',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'v6', ttl: 5 },
    monitorConfig,
    endpoints: [{ name: 'one', type: 'externalEndpoints', target: '2001:db8::1', alwaysServe: 'Enabled' }],
  });
  await client.putProfile({
    name: 'geo',
    trafficRoutingMethod: 'Geographic',
    dnsConfig: { relativeName: 'geo', ttl: 5 },
    monitorConfig,
    endpoints: [{ name: 'de', type: 'externalEndpoints', target: '192.0.2.10', geoMapping: ['DE'], alwaysServe: 'Enabled' }],
  });
  report = await client.dnssec();
  anchors = delvAnchors(report.keys.filter((k) => k.ds !== undefined).map((k) => k.dnskey));
  unbound = await startUnbound(
    ZONE,
    report.keys.filter((k) => k.ds !== undefined).map((k) => k.dnskey),
    serve.dns.port,
  );
  // Both endpoints Online before the failover test relies on the primary.
  await waitFor(async () => (await unbound.query('web.tm.internal', 'A')).answer.some((r) => r[4] === '127.0.0.1'), {
    what: 'web answered with the primary',
    timeoutMs: 30_000,
    intervalMs: 200,
  });
}, 120_000);

afterAll(async () => {
  await unbound?.stop();
  await client?.close();
  if (serve) {
    serve.child.kill('SIGTERM');
    await serve.closed;
  }
  for (const h of health ?? []) await h.close();
  rmSync(dir, { recursive: true, force: true });
});

test('keys were made on first start: one CSK of algorithm 13 in the state dir, mode 0600; dnssec ds prints its DS', async () => {
  expect(report).toMatchObject({
    zone: ZONE,
    algorithm: 13,
    algorithmName: 'ECDSAP256SHA256',
    keyMode: 'csk',
    denial: 'compact (RFC 9824)',
  });
  expect(report.keys.map((k) => [k.role, k.state, k.flags])).toEqual([['csk', 'active', 257]]);
  expect(statSync(join(dir, 'dnssec-keys.json')).mode & 0o777).toBe(0o600);
  const ds = await runTmkit(['dnssec', 'ds', '--server', serve.api, '--state-dir', dir]);
  expect(ds.code).toBe(0);
  expect(ds.stdout).toBe(`${report.ds[0]}\n`);
  expect(ds.stdout).toMatch(new RegExp(`^tm\\.internal\\. IN DS ${report.keys[0]!.keyTag} 13 2 [0-9A-F]{64}\\n$`));
});

const cases: Array<[string, string, string, (r: Awaited<ReturnType<Unbound['query']>>) => void]> = [
  [
    'a positive answer (Priority A)',
    'web.tm.internal',
    'A',
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.answer.filter((a) => a[3] === 'A')).toEqual([['web.tm.internal.', expect.any(String), 'IN', 'A', '127.0.0.1']]);
    },
  ],
  [
    'a CNAME chain inside the zone (alias → web)',
    'alias.tm.internal',
    'A',
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.answer.filter((a) => a[3] !== 'RRSIG').map((a) => [a[0], a[3], a[4]])).toEqual([
        ['alias.tm.internal.', 'CNAME', 'web.tm.internal.'],
        ['web.tm.internal.', 'A', '127.0.0.1'],
      ]);
    },
  ],
  [
    'NXDOMAIN (compact denial: NOERROR, NSEC with NXNAME)',
    'no-such-name.tm.internal',
    'A',
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.answer).toEqual([]);
    },
  ],
  [
    // RFC 4034 §3.1.3: the RRSIG Labels field does not count a leftmost `*` (unbound: "signature labelcount out of range").
    'NXDOMAIN for a literal `*` label at the apex (*.tm.internal)',
    '*.tm.internal',
    'A',
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.answer).toEqual([]);
    },
  ],
  [
    'NXDOMAIN for a literal `*` label under a profile (*.web.tm.internal)',
    '*.web.tm.internal',
    'A',
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.answer).toEqual([]);
    },
  ],
  [
    'NODATA: a type mismatch (AAAA-only profile asked for A)',
    'v6.tm.internal',
    'A',
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.answer).toEqual([]);
    },
  ],
  [
    'NODATA: a Geographic profile with no match for the client',
    'geo.tm.internal',
    'A',
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.answer).toEqual([]);
    },
  ],
  [
    'NODATA at the apex (TXT)',
    'tm.internal',
    'TXT',
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.answer).toEqual([]);
    },
  ],
  [
    'the apex DNSKEY RRset',
    'tm.internal',
    'DNSKEY',
    (r) => {
      expect(r.answer.filter((a) => a[3] === 'DNSKEY')).toHaveLength(1);
    },
  ],
  [
    'the apex SOA',
    'tm.internal',
    'SOA',
    (r) => {
      expect(r.answer.filter((a) => a[3] === 'SOA')).toHaveLength(1);
    },
  ],
];

test.each(cases)('unbound validates %s: AD set', async (_what, name, type, check) => {
  const r = await unbound.query(name, type);
  expect({ status: r.status, ad: r.flags.includes('ad'), log: r.flags.includes('ad') ? '' : unbound.log().slice(-2000) }).toEqual({
    status: expect.any(String),
    ad: true,
    log: '',
  });
  check(r);
});

test.each(cases.filter(([, name]) => name !== 'alias.tm.internal'))('delv: %s is fully validated', async (_what, name, type) => {
  const r = await delv(serve.dns.port, anchors, ZONE, name, type);
  expect({ validated: r.validated, out: r.validated ? '' : r.out }).toEqual({ validated: true, out: '' });
});

test('/metrics and tmkit dnssec status: the key tag and state, signatures made, the next refresh', async () => {
  const metrics = await client.metrics();
  const tag = report.keys[0]!.keyTag;
  expect(metrics).toContain(`tmkit_dnssec_key_info{key_tag="${tag}",role="csk",algorithm="13",state="active"} 1`);
  expect(Number(/^tmkit_dnssec_signatures_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
  expect(Number(/^tmkit_dnssec_next_refresh_timestamp_seconds (\d+)$/m.exec(metrics)?.[1]) * 1000).toBeGreaterThan(Date.now());
  const status = await runTmkit(['dnssec', 'status', '--server', serve.api, '--state-dir', dir]);
  expect(status.code).toBe(0);
  expect(status.stdout).toMatch(new RegExp(`^${tag} +CSK +active `, 'm'));
  expect(status.stdout).toMatch(/^signatures: [1-9]\d* made .* next refresh \d{4}-\d\d-\d\dT23:50:00\.000Z$/m);
});

test('a wrong trust anchor fails validation (the checks above can fail)', async () => {
  const other = delvAnchors([report.keys[0]!.dnskey.replace(/[A-Za-z0-9+/]{8}(?=[A-Za-z0-9+/=]*$)/, 'AAAAAAAA')]);
  const r = await delv(serve.dns.port, other, ZONE, 'web.tm.internal', 'A');
  expect(r.validated).toBe(false);
});

test("after a failover (the primary's health server goes down) the new answer validates too", async () => {
  await health[0].close(); // 127.0.0.1 refuses from now on; 127.0.0.2 keeps answering
  const r = await waitFor(
    async () => {
      const x = await unbound.query('web.tm.internal', 'A');
      return x.answer.some((a) => a[3] === 'A' && a[4] === '127.0.0.2') ? x : undefined;
    },
    { what: 'unbound answers with the backup', timeoutMs: 40_000, intervalMs: 250 },
  );
  expect(r.flags).toContain('ad');
  const d = await delv(serve.dns.port, anchors, ZONE, 'web.tm.internal', 'A');
  expect(d.validated).toBe(true);
  expect(d.out).toMatch(/web\.tm\.internal\.\s+\d+\s+IN\s+A\s+127\.0\.0\.2/);
}, 60_000);
