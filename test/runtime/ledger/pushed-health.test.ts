/**
 * Health pushed from outside (docs/health.md), through the real runtime and the real `dig`: a pushed
 * Degraded takes an Online endpoint out of DNS within a second of the PUT, ends by itself at its TTL (DNS
 * back within a fraction of a second of expiresAt), is the worse of probe and push (a pushed Online never
 * brings back a Degraded endpoint), survives a restart (SQLite), and shows its source in the status.
 */
import type { TmkitApiError, TmkitClient } from '../../../src/client';
import { dig } from '../dns/support';
import { profileInput } from '../api/fixtures';
import { engineHarness } from '../engine/harness';
import { healthServerPair } from '../../support/loopback';
import { waitFor } from '../../support/wait';

const { start: run, closers, engines } = engineHarness('tmkit-pushed-');
const start = (stateDir?: string) => run(stateDir !== undefined ? { stateDir } : {});

const answer = async (at: string[]): Promise<string> => (await dig([...at, 'web.tm.internal', 'A'])).answer.map((a) => a[4]).join(',');

async function webProfile(client: TmkitClient, port: number): Promise<void> {
  await client.putProfile(
    profileInput('web', {
      dnsConfig: { relativeName: 'web', ttl: 0 },
      monitorConfig: { protocol: 'HTTP', port, path: '/healthz', intervalInSeconds: 10, timeoutInSeconds: 5, toleratedNumberOfFailures: 0 },
      endpoints: [
        { name: 'primary', type: 'externalEndpoints', target: '127.0.0.81' },
        { name: 'backup', type: 'externalEndpoints', target: '127.0.0.82' },
      ],
    }),
  );
  await waitFor(
    async () => ((await client.status('web')).endpoints.every((e) => e.endpointMonitorStatus === 'Online') ? true : undefined),
    { what: 'both Online', timeoutMs: 10_000 },
  );
}

test('a pushed Degraded moves DNS within 1 s of the PUT and expires on time; its source shows in the status', async () => {
  const [a, b] = await healthServerPair('127.0.0.81', '127.0.0.82');
  closers.push(a.close, b.close);
  const { client, at } = await start();
  await webProfile(client, a.port);
  expect(await answer(at)).toBe('127.0.0.81');

  const t0 = Date.now();
  const pushed = await client.pushHealth('web', 'PRIMARY', { status: 'Degraded', ttlSeconds: 2, reason: 'deploy 42 in progress' });
  // The PUT answers once DNS serves it, so the very next query already sees it.
  let moved = Date.now();
  while ((await answer(at)) !== '127.0.0.82') {
    moved = Date.now();
    expect(moved - t0).toBeLessThan(1000);
  }
  expect(moved - t0).toBeLessThan(1000);
  expect(pushed).toMatchObject({ profile: 'web', endpoint: 'primary', status: 'Degraded', reason: 'deploy 42 in progress' });
  const expiresAt = Date.parse(pushed.expiresAt);
  expect(expiresAt - Date.parse(pushed.at)).toBe(2000);

  const s = await client.status('web');
  expect(s.endpoints[0]).toMatchObject({
    name: 'primary',
    endpointMonitorStatus: 'Degraded',
    verdict: 'Degraded',
    verdictSource: 'pushed',
    pushedHealth: { status: 'Degraded', reason: 'deploy 42 in progress' },
    reason: expect.stringMatching(/^pushed Degraded until .*: deploy 42 in progress$/),
    lastProbe: { ok: true },
  });
  expect(s.endpoints[0]!.verdictCarriedOver).toBeUndefined();
  expect(s.transitions[0]).toMatchObject({
    endpoint: 'primary',
    from: 'Online',
    to: 'Degraded',
    reason: expect.stringMatching(/^pushed Degraded: deploy 42 in progress/),
  });

  // Expiry: DNS answers the primary again right after expiresAt (and not before).
  const back = await waitFor(async () => ((await answer(at)) === '127.0.0.81' ? Date.now() : undefined), {
    what: 'the primary back in DNS',
    timeoutMs: 5000,
    intervalMs: 20,
  });
  expect(back).toBeGreaterThanOrEqual(expiresAt - 50);
  expect(back - expiresAt).toBeLessThan(500);
  const after = await client.status('web');
  expect(after.endpoints[0]).toMatchObject({ endpointMonitorStatus: 'Online', verdict: 'Online' });
  expect(after.endpoints[0]!.pushedHealth).toBeUndefined();
  expect(after.transitions[0]).toMatchObject({ endpoint: 'primary', from: 'Degraded', to: 'Online', reason: 'pushed Degraded expired' });
});

test('the worse of probe and push: pushed Online does not bring back a Degraded endpoint; DELETE ends a push; bad requests are refused', async () => {
  const [a, b] = await healthServerPair('127.0.0.81', '127.0.0.82');
  closers.push(b.close);
  const { client, at } = await start();
  await webProfile(client, a.port);
  await a.close();
  await waitFor(async () => ((await answer(at)) === '127.0.0.82' ? true : undefined), {
    what: 'primary Degraded by probing',
    timeoutMs: 10_000,
  });
  await client.pushHealth('web', 'primary', { status: 'Online', ttlSeconds: 60, reason: 'looks fine to me' });
  expect(await answer(at)).toBe('127.0.0.82');
  expect((await client.status('web')).endpoints[0]).toMatchObject({
    endpointMonitorStatus: 'Degraded',
    verdictSource: 'probe',
    pushedHealth: { status: 'Online' },
  });

  await client.pushHealth('web', 'backup', { status: 'Degraded', ttlSeconds: 60 });
  // Both Degraded now: Azure's all-degraded rule answers as if Online (the primary first).
  expect((await client.status('web')).allDegradedFallback).toBe(true);
  expect(await client.clearHealth('web', 'backup')).toEqual({ profile: 'web', endpoint: 'backup', cleared: true });
  expect(await client.clearHealth('web', 'backup')).toEqual({ profile: 'web', endpoint: 'backup', cleared: false });
  expect(await answer(at)).toBe('127.0.0.82');

  const refused = async (body: unknown, endpoint = 'primary'): Promise<string> => {
    try {
      await client.call('PUT', `/v1/profiles/web/endpoints/${endpoint}/health`, body);
      return 'accepted';
    } catch (err) {
      return `${(err as TmkitApiError).status} ${(err as TmkitApiError).errors.map((e) => `${e.code}@${e.path}`).join(',')}`;
    }
  };
  expect(await refused({ status: 'degraded', ttlSeconds: 10 })).toBe('400 BAD_REQUEST@status');
  expect(await refused({ status: 'Degraded', ttlSeconds: 0 })).toBe('400 BAD_REQUEST@ttlSeconds');
  expect(await refused({ status: 'Degraded', ttlSeconds: 86_401 })).toBe('400 BAD_REQUEST@ttlSeconds');
  expect(await refused({ status: 'Degraded', ttlSeconds: 10 }, 'nope')).toBe('404 NOT_FOUND@profiles[web].endpoints[nope]');
});

test('pushed health survives a restart (SQLite) and a deleted profile takes it with it', async () => {
  const [a, b] = await healthServerPair('127.0.0.81', '127.0.0.82');
  closers.push(a.close, b.close);
  const first = await start();
  await webProfile(first.client, a.port);
  await first.client.pushHealth('web', 'primary', { status: 'Degraded', ttlSeconds: 600, reason: 'maintenance' });
  await engines.pop()!.stop();

  const again = await start(first.stateDir);
  expect(await answer(again.at)).toBe('127.0.0.82');
  expect((await again.client.status('web')).endpoints[0]).toMatchObject({
    verdictSource: 'pushed',
    pushedHealth: { status: 'Degraded', reason: 'maintenance' },
  });

  await again.client.deleteProfile('web');
  await webProfile(again.client, a.port);
  expect((await again.client.status('web')).endpoints[0]!.pushedHealth).toBeUndefined();
  expect(await answer(again.at)).toBe('127.0.0.81');
});
