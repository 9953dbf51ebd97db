/**
 * `tmkit external-dns` (docs/kubernetes.md) as a real process in front of a real `tmkit serve`, driven with the
 * requests ExternalDNS's webhook client sends (its headers, its JSON: endpoint.Endpoint and plan.Changes as
 * captured from the v0.23 binary): negotiation, adjustendpoints, records written through plan and apply and read
 * back without a difference, set identifiers and providerSpecific keys mapped onto endpoints, `dig` answering,
 * the audit log naming the owner, clear 4xx for bad requests, 5xx while the tmkit server is down, and the
 * safety rule. The real ExternalDNS drives the same webhook in external-dns-e2e.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../src/client';
import { dig, runTmkit, spawnServe, type ServeProcess } from '../support/process';
import { waitFor } from '../support/wait';
import { call, freePort, MEDIA, spawnWebhook, type WebhookProcess } from './external-dns-support';

jest.setTimeout(120_000);

const ZONE = 'tm.internal';
let dir: string;
let serve: ServeProcess;
let hook: WebhookProcess;
let client: TmkitClient;
let apiPort: number;

const token = (): string => readFileSync(join(dir, 'token'), 'utf8').trim();

async function startServe(): Promise<void> {
  serve = await spawnServe(dir, ['--api', `127.0.0.1:${apiPort}`]);
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-extdns-'));
  apiPort = await freePort();
  await startServe();
  client = new TmkitClient({ server: serve.api, token: token(), env: {}, retries: 0 });
});
afterEach(async () => {
  await hook?.stop();
  await client.close();
  if (serve.child.exitCode === null) serve.child.kill('SIGTERM');
  await serve.closed;
  rmSync(dir, { recursive: true, force: true });
});

const webhook = (extra: string[] = []) =>
  spawnWebhook(['--server', serve.api, '--zone', ZONE, '--owner-id', 'cluster-a', ...extra], { TMKIT_TOKEN: token() });

/** What ExternalDNS's TXT registry sends with a create: the record, then its ownership TXT record. */
const web = [
  {
    dnsName: 'web.tm.internal',
    targets: ['127.0.0.11'],
    recordType: 'A',
    setIdentifier: 'eu',
    labels: { owner: 'cluster-a', resource: 'service/default/web' },
    providerSpecific: [{ name: 'webhook/tmkit-weight', value: '3' }],
  },
  {
    dnsName: 'web.tm.internal',
    targets: ['127.0.0.12', '127.0.0.13'],
    recordType: 'A',
    setIdentifier: 'us',
    providerSpecific: [{ name: 'tmkit/weight', value: '1' }],
  },
  {
    dnsName: 'a-web.tm.internal',
    targets: ['"heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/default/web"'],
    recordType: 'TXT',
    setIdentifier: 'eu',
    labels: { ownedRecord: 'web.tm.internal' },
  },
];

test('GET / offers the zone; adjustendpoints keeps A/AAAA/CNAME/TXT in canonical form and drops the rest with a logged reason', async () => {
  hook = await webhook();
  const neg = await call(`${hook.url}/`, 'GET');
  expect(neg).toEqual({ status: 200, type: MEDIA, body: { include: [ZONE] } });
  const adj = await call(`${hook.url}/adjustendpoints`, 'POST', [
    {
      dnsName: 'Web.tm.internal.',
      targets: ['127.0.0.2', '127.0.0.1'],
      recordType: 'A',
      providerSpecific: [
        { name: 'webhook/tmkit-weight', value: '5' },
        { name: 'aws/evaluate-target-health', value: 'true' },
      ],
    },
    { dnsName: 'mail.tm.internal', targets: ['10 mx.example.com'], recordType: 'MX' },
    { dnsName: 'other.example.com', targets: ['127.0.0.1'], recordType: 'A' },
    { dnsName: 'bad.tm.internal', targets: ['127.0.0.1'], recordType: 'A', providerSpecific: [{ name: 'tmkit/weight', value: 'heavy' }] },
  ]);
  expect(adj.status).toBe(200);
  expect(adj.body).toEqual([
    {
      dnsName: 'web.tm.internal',
      targets: ['127.0.0.1', '127.0.0.2'],
      recordType: 'A',
      providerSpecific: [{ name: 'tmkit/weight', value: '5' }],
    },
  ]);
  await waitFor(() => /dropped mail\.tm\.internal MX: record type MX/.test(hook.stderr()), { what: 'the MX drop logged' });
  expect(hook.stderr()).toMatch(/dropped other\.example\.com A: not under the tmkit zone tm\.internal/);
  expect(hook.stderr()).toMatch(/dropped bad\.tm\.internal A: .*tmkit\/weight "heavy": an integer from 1 to 1000/);
});

test('POST /records makes one profile of set identifiers, dig answers it, GET /records reads back what was written, the audit log names the owner', async () => {
  hook = await webhook();
  expect((await call(`${hook.url}/records`, 'POST', { create: web })).status).toBe(204);
  const entry = await client.getProfile('web');
  expect(entry.stack).toBe('external-dns-cluster-a');
  expect(entry.profile.trafficRoutingMethod).toBe('Weighted');
  expect(entry.profile.endpoints.map((e) => [e.name, e.target, e.weight])).toEqual([
    ['eu-1', '127.0.0.11', 3],
    ['us-1', '127.0.0.12', 1],
    ['us-2', '127.0.0.13', 1],
  ]);
  const answers = await dig(serve.dns, 'web.tm.internal');
  expect(answers).toHaveLength(1);
  expect(['127.0.0.11', '127.0.0.12', '127.0.0.13']).toContain(answers[0]);

  // What ExternalDNS reads back is what it asked for (after adjustendpoints): no perpetual diff.
  const read = await call(`${hook.url}/records`, 'GET');
  expect(read.type).toBe(MEDIA);
  expect(read.body).toEqual([
    {
      dnsName: 'web.tm.internal',
      targets: ['127.0.0.11'],
      recordType: 'A',
      setIdentifier: 'eu',
      providerSpecific: [{ name: 'tmkit/weight', value: '3' }],
    },
    {
      dnsName: 'web.tm.internal',
      targets: ['127.0.0.12', '127.0.0.13'],
      recordType: 'A',
      setIdentifier: 'us',
      providerSpecific: [{ name: 'tmkit/weight', value: '1' }],
    },
    { dnsName: 'a-web.tm.internal', targets: [web[2]!.targets[0]], recordType: 'TXT', setIdentifier: 'eu' },
  ]);
  const audit = (await client.audit(20)).entries.filter((e) => e.target === 'web');
  expect(audit.map((e) => [e.action, e.who])).toEqual([['profile.create', 'external-dns:cluster-a']]);

  // The same changes again write nothing (a retry after a lost answer).
  const etag = entry.etag;
  expect((await call(`${hook.url}/records`, 'POST', { create: web })).status).toBe(204);
  expect((await client.getProfile('web')).etag).toBe(etag);

  // An update moves one set; deleting every record of the name deletes the profile.
  const us = web[1]!;
  const moved = { ...us, targets: ['127.0.0.14'], providerSpecific: [{ name: 'tmkit/weight', value: '1' }] };
  expect((await call(`${hook.url}/records`, 'POST', { updateOld: [us], updateNew: [moved] })).status).toBe(204);
  expect((await client.getProfile('web')).profile.endpoints.map((e) => e.target)).toEqual(['127.0.0.11', '127.0.0.14']);
  expect((await call(`${hook.url}/records`, 'POST', { delete: [web[0], moved, web[2]] })).status).toBe(204);
  expect(await client.findProfile('web')).toBeUndefined();
  expect((await call(`${hook.url}/records`, 'GET')).body).toEqual([]);
});

test('providerSpecific keys set routing, priority, geo, monitoring and Always Serve', async () => {
  hook = await webhook();
  const ps = (kv: Record<string, string>) => Object.entries(kv).map(([k, v]) => ({ name: `webhook/tmkit-${k}`, value: v }));
  const create = [
    {
      dnsName: 'app.tm.internal',
      targets: ['127.0.0.21'],
      recordType: 'A',
      setIdentifier: 'active',
      providerSpecific: ps({
        'routing-method': 'priority',
        priority: '1',
        'monitor-protocol': 'TCP',
        'monitor-port': '8443',
        'always-serve': 'false',
      }),
    },
    {
      dnsName: 'app.tm.internal',
      targets: ['127.0.0.22'],
      recordType: 'A',
      setIdentifier: 'passive',
      providerSpecific: ps({ priority: '2', 'always-serve': 'true' }),
    },
    {
      dnsName: 'geo.tm.internal',
      targets: ['127.0.0.31'],
      recordType: 'A',
      setIdentifier: 'eu',
      providerSpecific: ps({ 'routing-method': 'Geographic', geo: 'GEO-EU' }),
    },
    {
      dnsName: 'geo.tm.internal',
      targets: ['127.0.0.32'],
      recordType: 'A',
      setIdentifier: 'rest',
      providerSpecific: ps({ geo: 'WORLD', 'endpoint-location': 'westus' }),
    },
  ];
  const adjusted = (await call(`${hook.url}/adjustendpoints`, 'POST', create)).body;
  expect((await call(`${hook.url}/records`, 'POST', { create: adjusted })).status).toBe(204);
  const app = (await client.getProfile('app')).profile;
  expect(app.trafficRoutingMethod).toBe('Priority');
  expect(app.monitorConfig).toMatchObject({ protocol: 'TCP', port: 8443 });
  expect(app.endpoints.map((e) => [e.name, e.priority, e.alwaysServe])).toEqual([
    ['active-1', 1, 'Disabled'],
    ['passive-1', 2, 'Enabled'],
  ]);
  const geo = (await client.getProfile('geo')).profile;
  expect(geo.trafficRoutingMethod).toBe('Geographic');
  expect(geo.endpoints.map((e) => [e.geoMapping, e.endpointLocation])).toEqual([
    [['GEO-EU'], undefined],
    [['WORLD'], 'westus'],
  ]);
  expect((await call(`${hook.url}/records`, 'GET')).body).toEqual(adjusted);
});

test('bad requests get a 4xx naming the path and the rule; a tmkit outage gives 5xx and the retry converges once it is back', async () => {
  hook = await webhook();
  const r = `${hook.url}/records`;
  expect(await call(r, 'POST', '{"create": [', { 'content-type': 'application/json' })).toMatchObject({
    status: 400,
    body: { error: expect.stringMatching(/^the body is not JSON/) },
  });
  expect(await call(r, 'POST', { create: [] }, { 'content-type': 'text/plain' })).toMatchObject({
    status: 415,
    body: { error: expect.stringMatching(/send application\/external\.dns\.webhook\+json;version=1/) },
  });
  expect(await call(r, 'POST', { create: [{ dnsName: 'x.tm.internal', targets: ['1.2.3.4'] }] })).toMatchObject({
    status: 400,
    body: { error: '$.create[0].recordType: a record type such as A, AAAA or CNAME' },
  });
  expect(await call(r, 'POST', { creates: [] })).toMatchObject({
    status: 400,
    body: { error: expect.stringMatching(/^\$\.creates: not a field of plan\.Changes/) },
  });
  expect(await call(r, 'POST', { create: [{ dnsName: 'mx.tm.internal', targets: ['10 a.b'], recordType: 'MX' }] })).toMatchObject({
    status: 400,
    body: { error: expect.stringMatching(/^create\[0\] \(mx\.tm\.internal MX\): record type MX/) },
  });
  expect(await call(`${hook.url}/nope`, 'GET')).toMatchObject({ status: 404 });
  expect(await call(`${hook.url}/adjustendpoints`, 'GET')).toMatchObject({
    status: 405,
    body: { error: 'GET is not allowed here: use POST' },
  });
  expect((await call(`${hook.url}/readyz`, 'GET')).status).toBe(200);

  // The tmkit server goes away: 5xx (ExternalDNS retries those), nothing half-written.
  serve.child.kill('SIGTERM');
  await serve.closed;
  expect((await call(`${hook.url}/readyz`, 'GET')).status).toBe(503);
  expect((await call(`${hook.url}/healthz`, 'GET')).status).toBe(200);
  expect((await call(r, 'GET')).status).toBe(503);
  const down = await call(r, 'POST', { create: web });
  expect(down).toMatchObject({
    status: 503,
    body: { error: expect.stringMatching(/cannot reach the tmkit server.*ExternalDNS will try again/) },
  });
  await startServe();
  // ExternalDNS's retry: it reads the records again and sends the same changes.
  expect((await call(r, 'GET')).body).toEqual([]);
  expect((await call(r, 'POST', { create: web })).status).toBe(204);
  const audit = (await client.audit(20)).entries.filter((e) => e.target === 'web');
  expect(audit.map((e) => e.action)).toEqual(['profile.create']);
});

test('the safety rule: a delete that leaves a profile with no endpoint Online is refused, unless --force', async () => {
  // Probes reach 127.0.0.41 (this listener) and not 127.0.0.42.
  const probe: Server = createServer((s) => {
    s.on('error', () => undefined);
    s.end();
  });
  await new Promise<void>((r) => probe.listen(0, '127.0.0.41', () => r()));
  const port = (probe.address() as { port: number }).port;
  try {
    hook = await webhook();
    const ps = [
      { name: 'tmkit/monitor-protocol', value: 'TCP' },
      { name: 'tmkit/monitor-port', value: String(port) },
    ];
    const up = { dnsName: 'svc.tm.internal', targets: ['127.0.0.41'], recordType: 'A', setIdentifier: 'up', providerSpecific: ps };
    const down = { dnsName: 'svc.tm.internal', targets: ['127.0.0.42'], recordType: 'A', setIdentifier: 'down', providerSpecific: ps };
    expect((await call(`${hook.url}/records`, 'POST', { create: [up, down] })).status).toBe(204);
    // A Kubernetes readiness signal as docs/kubernetes.md pushes it: the passive set's pods are not ready.
    await client.pushHealth('svc', 'down-1', { status: 'Degraded', ttlSeconds: 600, reason: 'pods not ready' });
    await waitFor(
      async () => {
        const s = await client.status('svc');
        const seen = s.endpoints.map((e) => `${e.name}=${e.endpointMonitorStatus}`).join();
        if (seen === 'down-1=Degraded,up-1=Online' || seen === 'up-1=Online,down-1=Degraded') return seen;
        throw new Error(seen);
      },
      { what: 'up Online, down Degraded', timeoutMs: 60_000, intervalMs: 250 },
    );
    const refused = await call(`${hook.url}/records`, 'POST', { delete: [up] });
    expect(refused).toMatchObject({
      status: 409,
      body: { error: expect.stringMatching(/^refused by the safety rule: .*svc.*nothing was written.*--force/) },
    });
    expect((await client.getProfile('svc')).profile.endpoints).toHaveLength(2);
    await hook.stop();

    hook = await webhook(['--force']);
    expect((await call(`${hook.url}/records`, 'POST', { delete: [up] })).status).toBe(204);
    expect((await client.getProfile('svc')).profile.endpoints.map((e) => e.target)).toEqual(['127.0.0.42']);
    await waitFor(() => /--force: with the live health now/.test(hook.stderr()), { what: 'the forced delete logged' });
  } finally {
    await new Promise<void>((r) => probe.close(() => r()));
  }
});

test('two owner ids share one profile through set identifiers: each writes and reads back only its own records', async () => {
  const a = await webhook();
  hook = a;
  const b = await spawnWebhook(['--server', serve.api, '--zone', ZONE, '--owner-id', 'cluster-b'], { TMKIT_TOKEN: token() });
  try {
    const rec = (set: string, target: string, ps: Array<{ name: string; value: string }>) => ({
      dnsName: 'api.tm.internal',
      targets: [target],
      recordType: 'A',
      setIdentifier: set,
      providerSpecific: ps,
    });
    const txt = (set: string) => ({
      dnsName: 'a-api.tm.internal',
      targets: [`"heritage=external-dns,external-dns/owner=${set},external-dns/resource=service/default/api"`],
      recordType: 'TXT',
      setIdentifier: set,
      labels: { ownedRecord: 'api.tm.internal' },
    });
    const ra = rec('cluster-a', '127.0.0.51', [
      { name: 'tmkit/priority', value: '1' },
      { name: 'tmkit/routing-method', value: 'Priority' },
    ]);
    const rb = rec('cluster-b', '127.0.0.52', [{ name: 'tmkit/priority', value: '2' }]);
    expect((await call(`${a.url}/records`, 'POST', { create: [ra, txt('cluster-a')] })).status).toBe(204);
    expect((await call(`${b.url}/records`, 'POST', { create: [rb, txt('cluster-b')] })).status).toBe(204);

    const entry = await client.getProfile('api');
    expect(entry.stack).toBe('external-dns-cluster-a');
    expect(entry.profile.trafficRoutingMethod).toBe('Priority');
    expect(entry.profile.endpoints.map((e) => [e.name, e.target, e.priority])).toEqual([
      ['cluster-a-1', '127.0.0.51', 1],
      ['cluster-b-1', '127.0.0.52', 2],
    ]);
    expect(await dig(serve.dns, 'api.tm.internal')).toEqual(['127.0.0.51']);
    expect((await call(`${a.url}/records`, 'GET')).body).toEqual([ra, txt('cluster-a')].map(strip));
    expect((await call(`${b.url}/records`, 'GET')).body).toEqual([rb, txt('cluster-b')].map(strip));
    const audit = (await client.audit(20)).entries.filter((e) => e.target === 'api');
    expect(audit.map((e) => [e.action, e.who])).toEqual([
      ['profile.update', 'external-dns:cluster-b'],
      ['profile.create', 'external-dns:cluster-a'],
    ]);

    // cluster-b cannot write cluster-a's record.
    const stolen = await call(`${b.url}/records`, 'POST', { updateOld: [ra], updateNew: [{ ...ra, targets: ['127.0.0.59'] }] });
    expect(stolen).toMatchObject({
      status: 409,
      body: { error: expect.stringMatching(/owned by cluster-a; give this cluster's record its own set identifier/) },
    });

    // cluster-a's service goes away: its endpoint goes, cluster-b's stays (and answers); then cluster-b's too.
    expect((await call(`${a.url}/records`, 'POST', { delete: [ra, txt('cluster-a')] })).status).toBe(204);
    expect((await client.getProfile('api')).profile.endpoints.map((e) => e.name)).toEqual(['cluster-b-1']);
    expect(await dig(serve.dns, 'api.tm.internal')).toEqual(['127.0.0.52']);
    expect((await call(`${a.url}/records`, 'GET')).body).toEqual([]);
    expect((await call(`${b.url}/records`, 'GET')).body).toEqual([rb, txt('cluster-b')].map(strip));
    expect((await call(`${b.url}/records`, 'POST', { delete: [rb, txt('cluster-b')] })).status).toBe(204);
    expect(await client.findProfile('api')).toBeUndefined();
  } finally {
    await b.stop();
  }
});

/** What GET /records gives back for a record sent with labels: the same record, no labels. */
function strip(r: Record<string, unknown>): Record<string, unknown> {
  const { labels: _l, ...rest } = r;
  return rest;
}

test("the zone is the server's: without --zone GET / offers it; a --zone the server does not answer for is refused at start", async () => {
  hook = await spawnWebhook(['--server', serve.api, '--owner-id', 'cluster-a'], { TMKIT_TOKEN: token() });
  expect(await call(`${hook.url}/`, 'GET')).toMatchObject({ status: 200, body: { include: [ZONE] } });
  const env = { TMKIT_TOKEN: token(), TMKIT_SERVER: serve.api };
  expect(await runTmkit(['external-dns', '--zone', 'gslb.example.com', '--listen', '127.0.0.1:0'], { env })).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/--zone gslb\.example\.com: the tmkit server at \S+ answers for tm\.internal; pass --zone tm\.internal/),
  });
});

test('a token the server does not take is refused at start (exit 2), not taken for an older server', async () => {
  const env = { TMKIT_TOKEN: 'not-the-token', TMKIT_SERVER: serve.api };
  expect(await runTmkit(['external-dns', '--listen', '127.0.0.1:0'], { env })).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/did not take this provider's token: pass --token or TMKIT_TOKEN/),
  });
});

test('a sidecar started before its server checks the zone on the first request: 503 until the server answers', async () => {
  serve.child.kill('SIGTERM');
  await serve.closed;
  hook = await spawnWebhook(['--server', `http://127.0.0.1:${apiPort}`, '--zone', 'gslb.example.com', '--owner-id', 'cluster-a'], {
    TMKIT_TOKEN: token(),
  });
  const down = await call(`${hook.url}/`, 'GET');
  expect(down).toMatchObject({ status: 503, body: { error: expect.stringMatching(/cannot ask the tmkit server its zone: .*try again/) } });
  await startServe();
  // The server answers for tm.internal, not the zone given: an error only a changed --zone fixes (not a 5xx to retry).
  expect(await call(`${hook.url}/`, 'GET')).toMatchObject({
    status: 409,
    body: { error: expect.stringMatching(/--zone gslb\.example\.com: .* answers for tm\.internal/) },
  });
  expect(await call(`${hook.url}/records`, 'GET')).toMatchObject({ status: 409 });
});

test('usage errors are exit 2 and say what to pass', async () => {
  const env = { TMKIT_TOKEN: token(), TMKIT_SERVER: serve.api };
  expect(await runTmkit(['external-dns', '--zone', ZONE, '--owner-id', 'a_b'], { env })).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/--owner-id a_b: letters, digits and hyphens/),
  });
  expect(await runTmkit(['external-dns', '--zone', ZONE, '--listen', 'nope'], { env })).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/--listen nope: host:port/),
  });
});
