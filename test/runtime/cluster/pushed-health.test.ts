/**
 * Health pushed from outside in a cluster (docs/health.md, docs/cluster.md): two real `tmkit serve` nodes on
 * one etcd. A push through node A is answered by node B's DNS (the real `dig`) within a second, B's status
 * shows it with its source, it ends on both nodes at its expiry, and a clear through B ends a push made
 * through A. The record is an etcd key under a lease of its own (etcd/keys.ts `pushed/<p>/<e>`).
 */
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { api, digFull, healthServers, startNode, stopNode, type NodeProcess } from './support';
import { waitFor } from '../../support/wait';
import { tempDirs } from '../../support/tmp';

jest.setTimeout(120_000);

const IPS = ['127.0.0.31', '127.0.0.32'];
let etcd: EtcdServer;
let health: Awaited<ReturnType<typeof healthServers>>;
const nodes: NodeProcess[] = [];
const tempDir = tempDirs('tmkit-pushed-', { cleanup: 'manual' });

beforeAll(async () => {
  etcd = await startEtcd();
  health = await healthServers(IPS);
  for (const name of ['a', 'b']) {
    const stateDir = tempDir(`tmkit-pushed-${name}-`);
    nodes.push(await startNode({ store: etcd.storeUrl('pushed-test'), node: name, stateDir }));
  }
  const r = await api(nodes[0]!, 'PUT', '/v1/profiles/web', {
    name: 'web',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'web', ttl: 0 },
    monitorConfig: {
      protocol: 'HTTP',
      port: health.port,
      path: '/healthz',
      intervalInSeconds: 10,
      timeoutInSeconds: 5,
      toleratedNumberOfFailures: 0,
    },
    endpoints: [
      { name: 'primary', type: 'externalEndpoints', target: IPS[0] },
      { name: 'backup', type: 'externalEndpoints', target: IPS[1] },
    ],
  });
  expect(r.status).toBe(201);
});

afterAll(async () => {
  await Promise.all(nodes.map((n) => stopNode(n, 'SIGKILL')));
  await health?.close();
  await etcd?.destroy();
  tempDir.removeAll();
});

const answer = async (n: NodeProcess): Promise<string> =>
  (await digFull(n.dns, 'web.tm.internal')).answers.map((a) => a.split(/\s+/)[4]).join(',');

test("a push through node A moves node B's DNS within a second, shows on B, and ends on both at its expiry", async () => {
  const [a, b] = [nodes[0]!, nodes[1]!];
  await waitFor(async () => (await answer(a)) === IPS[0] && (await answer(b)) === IPS[0], {
    what: 'both nodes answer the primary',
    timeoutMs: 60_000,
    intervalMs: 100,
  });

  const t0 = Date.now();
  const pushed = await api(a, 'PUT', '/v1/profiles/web/endpoints/primary/health', {
    status: 'Degraded',
    ttlSeconds: 4,
    reason: 'canary failing',
  });
  expect(pushed.status).toBe(200);
  const movedOnB = await waitFor(async () => ((await answer(b)) === IPS[1] ? Date.now() : false), {
    what: 'node B answers the backup',
    timeoutMs: 5000,
    intervalMs: 20,
  });
  expect(movedOnB - t0).toBeLessThan(1000);
  expect(await answer(a)).toBe(IPS[1]);
  const onB = (await api(b, 'GET', '/v1/profiles/web/status')).body;
  expect(onB.endpoints[0]).toMatchObject({
    endpointMonitorStatus: 'Degraded',
    verdictSource: 'pushed',
    pushedHealth: { status: 'Degraded', reason: 'canary failing' },
  });
  // Probing still says Online at every location: the push is not a location's vote.
  expect(onB.endpoints[0].locations.map((l: { verdict: string }) => l.verdict)).toEqual(['Online', 'Online']);

  const expiresAt = Date.parse(pushed.body.expiresAt);
  const backA = waitFor(async () => ((await answer(a)) === IPS[0] ? Date.now() : false), {
    what: 'A answers the primary again',
    timeoutMs: 10_000,
    intervalMs: 20,
  });
  const backB = waitFor(async () => ((await answer(b)) === IPS[0] ? Date.now() : false), {
    what: 'B answers the primary again',
    timeoutMs: 10_000,
    intervalMs: 20,
  });
  for (const t of await Promise.all([backA, backB])) {
    expect(t).toBeGreaterThanOrEqual(expiresAt - 100);
    expect(t - expiresAt).toBeLessThan(1000);
  }
});

test('a clear through node B ends a push made through node A, everywhere', async () => {
  const [a, b] = [nodes[0]!, nodes[1]!];
  expect((await api(a, 'PUT', '/v1/profiles/web/endpoints/primary/health', { status: 'Degraded', ttlSeconds: 600 })).status).toBe(200);
  await waitFor(async () => (await answer(b)) === IPS[1], { what: 'B answers the backup', timeoutMs: 5000, intervalMs: 20 });
  expect((await api(b, 'DELETE', '/v1/profiles/web/endpoints/primary/health')).body).toEqual({
    profile: 'web',
    endpoint: 'primary',
    cleared: true,
  });
  await waitFor(async () => (await answer(a)) === IPS[0], { what: 'A answers the primary', timeoutMs: 5000, intervalMs: 20 });
  expect((await api(a, 'GET', '/v1/profiles/web/status')).body.endpoints[0].pushedHealth).toBeUndefined();
});
