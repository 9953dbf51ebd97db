import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { TmkitApiError, TmkitClient } from '../../../src/client';
import { Engine, type EngineOptions } from '../../../src/runtime/engine';
import { profileInput } from '../api/fixtures';
import type { ProfileInput } from '../../../src/core/model/types';

type ProfileEndpoints = NonNullable<ProfileInput['endpoints']>;
import { aRecords, healthServer, healthServerPair, queryUdp } from '../../support/loopback';
import { waitFor } from '../../support/wait';
import { tempDirs } from '../../support/tmp';

const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop();
});
const tempDir = tempDirs('tmkit-engine-');

async function start(
  stateDir: string,
  extra: Partial<EngineOptions> = {},
): Promise<{ engine: Engine; client: TmkitClient; dns: { address: string; port: number } }> {
  const engine = await Engine.start({
    stateDir,
    zone: 'tm.internal',
    dns: [{ address: '127.0.0.1', port: 0 }],
    api: { host: '127.0.0.1', port: 0 },
    logger: pino({ level: 'silent' }),
    env: {},
    // Probe every 150 ms (the real interval is 10 or 30 s) so health tests finish quickly.
    monitor: { intervalMs: () => 150, timeoutMs: () => 1000 },
    ...extra,
  });
  engines.push(engine);
  const client = new TmkitClient({ server: `http://127.0.0.1:${engine.apiAddress().port}`, token: engine.token.token, env: {} });
  return { engine, client, dns: engine.dnsAddresses()[0]! };
}

test('a token is generated into <state-dir>/token with mode 0600 and reused on restart; TMKIT_TOKEN wins', async () => {
  const dir = tempDir();
  const a = await start(dir);
  const file = join(dir, 'token');
  expect(a.engine.token).toMatchObject({ origin: 'generated', path: file });
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(a.engine.token.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  await engines.pop()!.stop();
  const b = await start(dir);
  expect(b.engine.token).toMatchObject({ origin: 'file', token: a.engine.token.token });
  await engines.pop()!.stop();
  const c = await start(dir, { env: { TMKIT_TOKEN: 'from-env-0123456789' } });
  expect(c.engine.token).toEqual({ token: 'from-env-0123456789', origin: 'env' });
  await expect(new TmkitClient({ server: c.client.server, token: a.engine.token.token, env: {} }).listProfiles()).rejects.toMatchObject({
    status: 401,
  });
});

test('every committed write is what DNS answers next: create, update, disable, delete', async () => {
  const { client, dns, engine } = await start(tempDir());
  expect((await queryUdp(dns, 'web.tm.internal')).rcode).toBe('NXDOMAIN');
  await client.putProfile(
    profileInput('web', { endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.10', alwaysServe: 'Enabled' }] }),
  );
  await engine.settle();
  expect(aRecords(await queryUdp(dns, 'web.tm.internal'))).toEqual(['192.0.2.10']);
  await client.patchEndpoint('web', 'a', { target: '192.0.2.11' });
  await engine.settle();
  expect(aRecords(await queryUdp(dns, 'web.tm.internal'))).toEqual(['192.0.2.11']);
  await client.putProfile({
    ...profileInput('web', { endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.11', alwaysServe: 'Enabled' }] }),
    profileStatus: 'Disabled',
  });
  await engine.settle();
  expect((await queryUdp(dns, 'web.tm.internal')).rcode).toBe('NXDOMAIN');
  await client.deleteProfile('web');
  await engine.settle();
  expect((await queryUdp(dns, 'web.tm.internal')).rcode).toBe('NXDOMAIN');
  expect(engine.snapshot().profiles.size).toBe(0);
});

test('health transitions re-render answers; status reports monitor statuses, last probes and transitions', async () => {
  const [primary, backup] = await healthServerPair('127.0.0.2', '127.0.0.3');
  try {
    const { client, dns } = await start(tempDir());
    await client.putProfile(
      profileInput('app', {
        monitorConfig: {
          protocol: 'HTTP',
          port: primary.port,
          path: '/healthz',
          intervalInSeconds: 10,
          timeoutInSeconds: 5,
          toleratedNumberOfFailures: 0,
        },
        endpoints: [
          { name: 'primary', type: 'externalEndpoints', target: '127.0.0.2' },
          { name: 'backup', type: 'externalEndpoints', target: '127.0.0.3' },
        ],
      }),
      { stack: 'team' },
    );
    const online = await waitFor(
      async () => {
        const s = await client.status('app');
        return s.endpoints.every((e) => e.endpointMonitorStatus === 'Online') ? s : undefined;
      },
      { what: 'both endpoints Online' },
    );
    expect(online).toMatchObject({ name: 'app', stack: 'team', fqdn: 'app.tm.internal', profileMonitorStatus: 'Online' });
    expect(online.endpoints[0]!.lastProbe).toMatchObject({ ok: true, statusCode: 200 });
    expect(aRecords(await queryUdp(dns, 'app.tm.internal'))).toEqual(['127.0.0.2']);

    await primary.close();
    await waitFor(async () => aRecords(await queryUdp(dns, 'app.tm.internal'))[0] === '127.0.0.3', { what: 'DNS to answer the backup' });
    const s = await client.status('app');
    expect(s.profileMonitorStatus).toBe('Degraded');
    expect(s.endpoints.find((e) => e.name === 'primary')).toMatchObject({ endpointMonitorStatus: 'Degraded', lastProbe: { ok: false } });
    expect(s.transitions[0]).toMatchObject({ endpoint: 'primary', from: 'Online', to: 'Degraded' });
    const r = await client.resolve({ name: 'app.tm.internal' });
    expect(r).toMatchObject({ rcode: 'NOERROR', profile: 'app', endpoints: ['app/backup'] });
    expect(r.records).toEqual([expect.objectContaining({ type: 'A', data: '127.0.0.3' })]);
    expect(r.explanation.length).toBeGreaterThan(0);
    const metrics = await client.metrics();
    expect(metrics).toMatch(/tmkit_status_transitions_total\{profile="app",endpoint="primary",from="Online",to="Degraded"\} 1/);
    expect(metrics).toMatch(/tmkit_probe_results_total\{profile="app",endpoint="primary",result="failure"\} \d+/);
  } finally {
    await primary.close();
    await backup.close();
  }
});

test('restart resumes with the same profiles, ETags and transition history, and probes again', async () => {
  const dir = tempDir();
  const health = await healthServer('127.0.0.4');
  try {
    const a = await start(dir);
    const w = await a.client.putProfile(
      profileInput('keep', {
        monitorConfig: {
          protocol: 'HTTP',
          port: health.port,
          path: '/healthz',
          intervalInSeconds: 10,
          timeoutInSeconds: 5,
          toleratedNumberOfFailures: 0,
        },
        endpoints: [{ name: 'only', type: 'externalEndpoints', target: '127.0.0.4' }],
      }),
    );
    await waitFor(async () => (await a.client.status('keep')).profileMonitorStatus === 'Online', { what: 'Online' });
    await engines.pop()!.stop();
    const hitsBefore = health.hits();
    const b = await start(dir);
    expect(await b.client.getProfile('keep')).toMatchObject({ etag: w.etag, stack: 'default' });
    expect(aRecords(await queryUdp(b.dns, 'keep.tm.internal'))).toEqual(['127.0.0.4']);
    await waitFor(() => health.hits() > hitsBefore, { what: 'a new probe after restart' });
    const s = await waitFor(
      async () => {
        const x = await b.client.status('keep');
        return x.profileMonitorStatus === 'Online' ? x : undefined;
      },
      { what: 'Online again' },
    );
    expect(s.transitions.some((t) => t.to === 'Online')).toBe(true);
  } finally {
    await health.close();
  }
});

test('--resources loads the catalog at start; an Azure endpoint answers with the resource target', async () => {
  const dir = tempDir();
  const id = '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Web/sites/app';
  const file = join(dir, 'catalog.json');
  writeFileSync(file, JSON.stringify({ [id]: { target: 'app.example.net', location: 'westeurope', state: 'running' } }));
  const { client, dns, engine } = await start(dir, { resourcesFile: file });
  expect((await client.getResources()).resources[id]).toMatchObject({ target: 'app.example.net' });
  await client.putProfile(
    profileInput('az', { endpoints: [{ name: 'app', type: 'azureEndpoints', targetResourceId: id, alwaysServe: 'Enabled' }] }),
  );
  await engine.settle();
  const r = await queryUdp(dns, 'az.tm.internal');
  expect(r.answers[0]).toMatchObject({ type: 'CNAME', data: 'app.example.net' });
});

test('status of an unknown profile is 404; resolve refuses a bad client address', async () => {
  const { client } = await start(tempDir());
  await expect(client.status('nope')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  const err = await client.resolve({ name: 'x.tm.internal', clientIp: 'not-an-ip' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TmkitApiError);
  expect(err).toMatchObject({ status: 400, errors: [{ path: 'clientIp' }] });
});

test('a bad --resources file stops start-up with every problem named, and releases the store and ports', async () => {
  const dir = tempDir();
  const file = join(dir, 'bad-catalog.json');
  writeFileSync(file, JSON.stringify({ '/a': { state: 'paused' }, '/b': { target: 'b.example.net', state: 'gone' } }));
  await expect(start(dir, { resourcesFile: file })).rejects.toThrow(/--resources .*bad-catalog\.json: \/a\.target: .*; \/b\.state: /);
  // The store was closed: a normal start on the same state dir works.
  const ok = await start(dir);
  expect(ok.engine.snapshot().profiles.size).toBe(0);
});

test('a restart does not bring a Degraded endpoint back: its verdict carries over until probing decides again', async () => {
  const dir = tempDir();
  const [primary, backup] = await healthServerPair('127.0.0.7', '127.0.0.8');
  try {
    const a = await start(dir);
    await a.client.putProfile(
      profileInput('keep', {
        monitorConfig: {
          protocol: 'HTTP',
          port: primary.port,
          path: '/healthz',
          intervalInSeconds: 10,
          timeoutInSeconds: 5,
          toleratedNumberOfFailures: 2,
        },
        endpoints: [
          { name: 'primary', type: 'externalEndpoints', target: '127.0.0.7' },
          { name: 'backup', type: 'externalEndpoints', target: '127.0.0.8' },
        ],
      }),
    );
    await waitFor(async () => (await a.client.status('keep')).endpoints.every((e) => e.endpointMonitorStatus === 'Online'), {
      what: 'both Online',
    });
    await primary.close();
    await waitFor(async () => aRecords(await queryUdp(a.dns, 'keep.tm.internal'))[0] === '127.0.0.8', { what: 'primary Degraded' });
    await engines.pop()!.stop();

    // After the restart the prober probes once at once and then only every 10 s: with
    // toleratedNumberOfFailures 2 it cannot reach Degraded by itself for 20 s. Without the carried
    // verdict the primary would be CheckingEndpoint — answered — for that long.
    const b = await start(dir, { monitor: { intervalMs: () => 10_000, timeoutMs: () => 1000 } });
    expect(aRecords(await queryUdp(b.dns, 'keep.tm.internal'))).toEqual(['127.0.0.8']);
    await waitFor(async () => (await b.client.status('keep')).endpoints[0]!.lastProbe !== undefined, {
      what: 'the first probe after the restart',
    });
    const s = await b.client.status('keep');
    expect(s.endpoints[0]).toMatchObject({
      name: 'primary',
      endpointMonitorStatus: 'Degraded',
      verdict: 'Degraded',
      verdictCarriedOver: true,
      lastProbe: { ok: false },
    });
    expect(aRecords(await queryUdp(b.dns, 'keep.tm.internal'))).toEqual(['127.0.0.8']);
  } finally {
    await primary.close();
    await backup.close();
  }
});

test('--latency-table: a measured table overrides the distance model for Performance routing', async () => {
  const dir = tempDir();
  const endpoints: ProfileEndpoints = [
    { name: 'eu', type: 'externalEndpoints', target: '192.0.2.10', endpointLocation: 'westeurope', alwaysServe: 'Enabled' },
    { name: 'jp', type: 'externalEndpoints', target: '192.0.2.20', endpointLocation: 'japaneast', alwaysServe: 'Enabled' },
  ];
  const perf = profileInput('perf', { trafficRoutingMethod: 'Performance', endpoints });
  // Queries come from 127.0.0.1, whose location no database knows; the table measures that range.
  for (const [fast, expected] of [
    ['japaneast', '192.0.2.20'],
    ['westeurope', '192.0.2.10'],
  ] as const) {
    const table = join(dir, `latency-${fast}.json`);
    writeFileSync(
      table,
      JSON.stringify({ '127.0.0.0/8': { westeurope: fast === 'westeurope' ? 5 : 300, japaneast: fast === 'japaneast' ? 5 : 300 } }),
    );
    const { client, dns, engine } = await start(tempDir(), { latencyTable: table });
    await client.putProfile(perf);
    await engine.settle();
    expect(aRecords(await queryUdp(dns, 'perf.tm.internal'))).toEqual([expected]);
    await engines.pop()!.stop();
  }
});

test('--ns / --soa-rname: the apex NS names and their in-zone addresses are served (glue), and the SOA names the contact', async () => {
  const { dns } = await start(tempDir(), {
    authority: {
      nsNames: ['ns1.tm.internal', 'ns2.tm.internal'],
      nsAddresses: { 'ns1.tm.internal': ['127.0.0.53'], 'ns2.tm.internal': ['127.0.0.54'] },
      soa: { rname: 'dns-admin.example.com' },
    },
  });
  expect(aRecords(await queryUdp(dns, 'ns1.tm.internal'))).toEqual(['127.0.0.53']);
  expect(aRecords(await queryUdp(dns, 'ns2.tm.internal'))).toEqual(['127.0.0.54']);
  const soa = await queryUdp(dns, 'tm.internal', 'SOA');
  expect(soa.answers).toEqual([
    expect.objectContaining({ type: 'SOA', data: expect.objectContaining({ mname: 'ns1.tm.internal', rname: 'dns-admin.example.com' }) }),
  ]);
});
