/**
 * The snapshot pipeline: every acknowledged write and every health transition reaches DNS, whatever came
 * before it. Regression tests for issue 11 (a monitor-settings edit froze DNS for good) and the watchdog
 * that makes such a freeze visible.
 */
import pino from 'pino';
import { request } from 'undici';
import { TmkitClient } from '../../../src/client';
import { Engine, type EngineOptions } from '../../../src/runtime/engine';
import { MemoryStore } from '../../../src/testing/memory-store';
import { profileInput } from '../api/fixtures';
import { aRecords, healthServerPair, queryUdp } from '../../support/loopback';
import { waitFor } from '../../support/wait';
import { tempDirs } from '../../support/tmp';

const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop();
});
const tempDir = tempDirs('tmkit-pipeline-');

async function start(
  extra: Partial<EngineOptions> = {},
): Promise<{ engine: Engine; client: TmkitClient; dns: { address: string; port: number }; api: string }> {
  const stateDir = tempDir();
  const engine = await Engine.start({
    stateDir,
    zone: 'tm.internal',
    dns: [{ address: '127.0.0.1', port: 0 }],
    api: { host: '127.0.0.1', port: 0 },
    logger: pino({ level: 'silent' }),
    env: {},
    monitor: { intervalMs: () => 150, timeoutMs: () => 1000 },
    ...extra,
  });
  engines.push(engine);
  const api = `http://127.0.0.1:${engine.apiAddress().port}`;
  return { engine, client: new TmkitClient({ server: api, token: engine.token.token, env: {} }), dns: engine.dnsAddresses()[0]!, api };
}

test('issue 11 repro: after a monitor-settings edit, a new profile is answered and failover still happens', async () => {
  const [primary, backup] = await healthServerPair('127.0.0.2', '127.0.0.3');
  try {
    const { client, dns } = await start();
    const monitor = {
      protocol: 'HTTP' as const,
      port: primary.port,
      path: '/healthz',
      intervalInSeconds: 10,
      timeoutInSeconds: 5,
      toleratedNumberOfFailures: 0,
    };
    const app = (path: string) =>
      profileInput('app', {
        dnsConfig: { relativeName: 'app', ttl: 0 },
        monitorConfig: { ...monitor, path },
        endpoints: [
          { name: 'primary', type: 'externalEndpoints', target: '127.0.0.2' },
          { name: 'backup', type: 'externalEndpoints', target: '127.0.0.3' },
        ],
      });
    // The health servers answer 404 on this path: both endpoints are probed and go Degraded.
    await client.putProfile(app('/status'));
    await waitFor(async () => (await client.status('app')).endpoints.every((e) => e.endpointMonitorStatus === 'Degraded'), {
      what: 'both endpoints probed and Degraded',
    });
    // Only the probe path changes: the monitor resets both endpoints synchronously inside the rebuild.
    await client.putProfile(app('/healthz'));
    await waitFor(async () => (await client.status('app')).endpoints.every((e) => e.endpointMonitorStatus === 'Online'), {
      what: 'Online again after the settings change',
    });

    await client.putProfile(
      profileInput('later', { endpoints: [{ name: 'x', type: 'externalEndpoints', target: '192.0.2.77', alwaysServe: 'Enabled' }] }),
    );
    await waitFor(async () => aRecords(await queryUdp(dns, 'later.tm.internal'))[0] === '192.0.2.77', {
      what: 'the new profile on DNS',
      timeoutMs: 5_000,
    });

    await primary.close();
    await waitFor(async () => aRecords(await queryUdp(dns, 'app.tm.internal'))[0] === '127.0.0.3', {
      what: 'failover to the backup on DNS',
      timeoutMs: 10_000,
    });
  } finally {
    await primary.close();
    await backup.close();
  }
});

test('/healthz reports the lag between the store and the served snapshot, and degrades when rebuilds keep failing', async () => {
  // A store whose single-profile reads fail on demand: the write is acknowledged, the rebuild cannot read it
  // (its change events carry no profile, so the rebuild has to read).
  const store = new MemoryStore();
  const watch = store.watch.bind(store);
  store.watch = (listener) => watch(({ stored: _stored, ...change }) => listener(change));
  let failReads = false;
  const getProfile = store.getProfile.bind(store);
  store.getProfile = async (name: string) => {
    if (failReads) throw new Error('injected read failure');
    return getProfile(name);
  };
  const { client, dns, api, engine } = await start({ store, lagLimitMs: 300 });
  const healthz = async () => {
    const r = await request(`${api}/healthz`, { headers: { authorization: `Bearer ${engine.token.token}` } });
    return { status: r.statusCode, body: (await r.body.json()) as Record<string, unknown> };
  };

  expect(await healthz()).toEqual({
    status: 200,
    body: { status: 'ok', zone: 'tm.internal', revision: 0, servedRevision: 0, lagRevisions: 0, lagSeconds: 0 },
  });
  failReads = true;
  await client.putProfile(
    profileInput('web', { endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.10', alwaysServe: 'Enabled' }] }),
  );
  const degraded = await waitFor(
    async () => {
      const h = await healthz();
      return h.status === 503 ? h : undefined;
    },
    { what: '/healthz degraded', timeoutMs: 5_000 },
  );
  expect(degraded.body).toMatchObject({ status: 'degraded', revision: 1, servedRevision: 0, lagRevisions: 1 });
  expect(degraded.body.reason).toMatch(
    /has not followed the configuration for \d+\.\d s \(served revision 0, store revision 1, \d+ consecutive rebuild failures: see the log\)/,
  );
  expect((await queryUdp(dns, 'web.tm.internal')).rcode).toBe('NXDOMAIN');
  // Readiness follows the same lag: not ready while the snapshot lags (no token needed, one line).
  const ready = await request(`${api}/readyz`);
  expect(ready.statusCode).toBe(503);
  expect(await ready.body.text()).toMatch(/^snapshot lags the store by 1 revisions for \d+\.\d s\n$/);
  const metrics = await client.metrics();
  expect(metrics).toMatch(/tmkit_snapshot_lag_revisions 1/);
  expect(metrics).toMatch(/tmkit_snapshot_rebuild_failures_total [1-9]/);
  expect(Number(/tmkit_snapshot_lag_seconds ([\d.]+)/.exec(metrics)?.[1])).toBeGreaterThan(0.3);

  // The failing rebuild is retried (nothing taken from the pending set is lost): once reads work, DNS catches up.
  failReads = false;
  await waitFor(async () => aRecords(await queryUdp(dns, 'web.tm.internal'))[0] === '192.0.2.10', {
    what: 'DNS serves the write after the retry',
    timeoutMs: 10_000,
  });
  expect(await healthz()).toEqual({
    status: 200,
    body: { status: 'ok', zone: 'tm.internal', revision: 1, servedRevision: 1, lagRevisions: 0, lagSeconds: 0 },
  });
  expect((await request(`${api}/readyz`)).statusCode).toBe(200);
  await engine.settle();
});

test('a committed change whose event never arrived is healed by settle() with a full re-read', async () => {
  const store = new MemoryStore();
  const { engine, dns } = await start({ store });
  // Write behind the engine's back: no watch event reaches it.
  const watchers = (store as unknown as { listeners: Set<unknown> }).listeners;
  const saved = [...watchers];
  watchers.clear();
  await store.putProfile(
    (await import('../api/fixtures')).profile('ghost', {
      endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.99', alwaysServe: 'Enabled' }],
    }),
    { stack: 'default' },
  );
  for (const w of saved) watchers.add(w);
  expect((await queryUdp(dns, 'ghost.tm.internal')).rcode).toBe('NXDOMAIN');
  await engine.settle();
  expect(aRecords(await queryUdp(dns, 'ghost.tm.internal'))).toEqual(['192.0.2.99']);
});
