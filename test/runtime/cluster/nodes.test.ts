/**
 * A tmkit cluster for real (issue 18 §6): one etcd (Debian's etcd-server) and three `tmkit serve` processes
 * on loopback, each its own probing location, probing real HTTP health servers and answering the real `dig`.
 *
 * - at one revision the three nodes answer identically: same rcode and record sets for the non-random
 *   methods, the same SOA serial, the same outcome table with the same probabilities from /v1/resolve;
 * - a write through node A is answered by node C's DNS;
 * - two nodes racing with one ETag: exactly one write wins;
 * - a killed node's location expires with its lease and the others aggregate without it; it rejoins;
 * - etcd stopped and restarted: DNS never stops answering, writes are refused (503, fast) then resume, and
 *   every node resyncs without a restart;
 * - a node restarted while etcd is down serves the configuration it had saved locally.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryUdp } from '../../support/loopback';
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { api, digFull, healthServers, startNode, stopNode, type NodeProcess } from './support';
import { waitFor } from '../../support/wait';

jest.setTimeout(180_000);

const IPS = ['127.0.0.11', '127.0.0.12', '127.0.0.13'];
let etcd: EtcdServer;
let health: Awaited<ReturnType<typeof healthServers>>;
const nodes: Record<'a' | 'b' | 'c', NodeProcess> = {} as never;
const dirs: Record<string, string> = {};

function doc(port: number): Array<Record<string, unknown>> {
  const monitorConfig = {
    protocol: 'HTTP',
    port,
    path: '/healthz',
    intervalInSeconds: 10,
    timeoutInSeconds: 5,
    toleratedNumberOfFailures: 0,
  };
  const ext = (name: string, target: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    name,
    type: 'externalEndpoints',
    target,
    ...extra,
  });
  return [
    {
      name: 'prio',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'prio', ttl: 30 },
      monitorConfig,
      endpoints: [ext('first', IPS[0]!), ext('second', IPS[1]!)],
    },
    {
      name: 'weighted',
      trafficRoutingMethod: 'Weighted',
      dnsConfig: { relativeName: 'weighted', ttl: 30 },
      monitorConfig,
      endpoints: [ext('w1', IPS[0]!, { weight: 1 }), ext('w3', IPS[1]!, { weight: 3 })],
    },
    {
      name: 'multi',
      trafficRoutingMethod: 'MultiValue',
      maxReturn: 2,
      dnsConfig: { relativeName: 'multi', ttl: 30 },
      monitorConfig,
      endpoints: IPS.map((t, i) => ext(`m${i}`, t)),
    },
    {
      name: 'parent',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'parent', ttl: 60 },
      monitorConfig,
      endpoints: [{ name: 'child', type: 'nestedEndpoints', targetResourceId: 'prio', minChildEndpoints: 1 }, ext('last', IPS[2]!)],
    },
    {
      name: 'off',
      profileStatus: 'Disabled',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'off', ttl: 30 },
      monitorConfig,
      endpoints: [ext('x', IPS[2]!)],
    },
  ];
}

const all = (): NodeProcess[] => [nodes.a, nodes.b, nodes.c];

async function node(name: 'a' | 'b' | 'c', extra: Partial<Parameters<typeof startNode>[0]> = {}): Promise<NodeProcess> {
  dirs[name] ??= mkdtempSync(join(tmpdir(), `tmkit-node-${name}-`));
  nodes[name] = await startNode({
    store: etcd.storeUrl('cluster-test'),
    node: name,
    location: `loc-${name}`,
    stateDir: dirs[name]!,
    ...extra,
  });
  return nodes[name];
}

/** Every node at the same etcd revision, serving its configuration, with every location's verdict in. */
async function converged(expectLocations: number): Promise<number> {
  return waitFor(
    async () => {
      const h = await Promise.all(all().map((n) => api(n, 'GET', '/healthz')));
      const revs = new Set(h.map((x) => x.body.cluster?.etcdRevision));
      if (
        revs.size !== 1 ||
        h.some((x) => x.status !== 200 || x.body.lagRevisions !== 0 || x.body.cluster.liveLocations.length !== expectLocations)
      )
        return false;
      const st = await Promise.all(all().map((n) => api(n, 'GET', '/v1/profiles/prio/status')));
      const decided = st.every((s) =>
        s.body.endpoints.every(
          (e: { locations: Array<{ verdict: string; live: boolean }> }) =>
            e.locations.filter((l) => l.live && l.verdict !== 'CheckingEndpoint').length === expectLocations,
        ),
      );
      const again = await Promise.all(all().map((n) => api(n, 'GET', '/healthz')));
      return decided &&
        new Set(again.map((x) => x.body.cluster.etcdRevision)).size === 1 &&
        again[0]!.body.cluster.etcdRevision === [...revs][0]
        ? ([...revs][0] as number)
        : false;
    },
    { what: `${all().length} nodes at one revision with ${expectLocations} locations decided`, timeoutMs: 60_000, intervalMs: 100 },
  );
}

/** Each node's etcd revision, from its /healthz. */
async function nodeRevisions(): Promise<number[]> {
  const h = await Promise.all(all().map((n) => api(n, 'GET', '/healthz')));
  return h.map((x) => x.body.cluster?.etcdRevision as number);
}

/**
 * `read()` done while every node stays at one etcd revision: a location's verdict can land between two nodes'
 * answers (each node applies it when its watch delivers it), so a read that straddled one is done again.
 */
async function atOneRevision<T>(read: () => Promise<T>): Promise<T> {
  const revision = async () => {
    const revs = new Set(await nodeRevisions());
    return revs.size === 1 ? [...revs][0]! : -1;
  };
  for (let tries = 0; tries < 50; tries++) {
    const before = await revision();
    const out = await read();
    if (before !== -1 && (await revision()) === before) return out;
  }
  throw new Error('the nodes never stayed at one revision for the length of a read');
}

/** The etcd revision of the last configuration write (beforeAll's PUTs). */
let lastWrite = 0;

beforeAll(async () => {
  etcd = await startEtcd();
  health = await healthServers(IPS);
  await Promise.all([node('a'), node('b'), node('c')]);
  for (const p of doc(health.port)) {
    const r = await api(nodes.a, 'PUT', `/v1/profiles/${p.name as string}`, p);
    if (r.status >= 300) throw new Error(`PUT ${p.name as string}: ${r.status} ${JSON.stringify(r.body)}`);
    lastWrite = r.body.revision as number;
  }
});

afterAll(async () => {
  await Promise.all(Object.values(nodes).map((n) => stopNode(n, 'SIGKILL')));
  await health?.close();
  await etcd?.destroy();
  for (const d of Object.values(dirs)) rmSync(d, { recursive: true, force: true });
});

test('at one revision, the three nodes answer identically: rcodes, record sets, SOA serial, /v1/resolve outcome tables', async () => {
  const revision = await converged(3);
  for (const [name, type] of [
    ['prio.tm.internal', 'A'],
    ['parent.tm.internal', 'A'],
    ['off.tm.internal', 'A'],
    ['nosuch.tm.internal', 'A'],
    ['prio.tm.internal', 'AAAA'],
    ['tm.internal', 'SOA'],
    ['tm.internal', 'NS'],
  ] as const) {
    const answers = await atOneRevision(() => Promise.all(all().map((n) => digFull(n.dns, name, type))));
    for (const a of answers.slice(1)) expect({ name, type, ...a }).toEqual({ name, type, ...answers[0] });
  }
  expect((await digFull(nodes.a.dns, 'prio.tm.internal')).answers).toEqual([`prio.tm.internal. 30 IN A ${IPS[0]}`]);
  expect((await digFull(nodes.c.dns, 'parent.tm.internal')).answers).toEqual([`parent.tm.internal. 60 IN A ${IPS[0]}`]);
  expect((await digFull(nodes.b.dns, 'off.tm.internal')).status).toBe('NXDOMAIN');
  // The SOA serial (the same on every node, compared above) is an etcd revision: that of the last change the
  // nodes served, at least the last configuration write's, at most the one they are at (a location's verdict
  // that changes no answer moves the revision, not the serial; one may have landed since `converged`).
  const serial = Number(/ (\d+) 3600 600 86400 30$/.exec((await digFull(nodes.b.dns, 'tm.internal', 'SOA')).answers[0]!)![1]);
  expect(serial).toBeGreaterThanOrEqual(lastWrite);
  expect(serial).toBeLessThanOrEqual(Math.max(revision, ...(await nodeRevisions())));
  // Random methods: the same outcome table, with the same probabilities, on every node.
  for (const name of ['weighted.tm.internal', 'multi.tm.internal']) {
    const r = await atOneRevision(() =>
      Promise.all(all().map((n) => api(n, 'POST', '/v1/resolve', { name, type: 'A', clientIp: '198.51.100.7' }))),
    );
    const tables = r.map((x) => ({ rcode: x.body.rcode, revision: x.body.revision, outcomes: x.body.outcomes }));
    for (const t of tables.slice(1)) expect(t).toEqual(tables[0]);
    expect(tables[0]!.outcomes.length).toBe(name.startsWith('weighted') ? 2 : 3);
    if (name.startsWith('weighted'))
      expect(tables[0]!.outcomes.map((o: { probability: number }) => o.probability).sort()).toEqual([0.25, 0.75]);
    // And each node's DNS answers with one of those outcomes.
    for (const n of all()) {
      const d = await digFull(n.dns, name);
      const sets = tables[0]!.outcomes.map((o: { records: Array<{ data: string }> }) =>
        o.records
          .map((x) => x.data)
          .sort()
          .join(','),
      );
      expect(sets).toContain(
        d.answers
          .map((l) => l.split(' ').pop())
          .sort()
          .join(','),
      );
    }
  }
  // tmkit status shows each location's verdict and the aggregate.
  const st = await api(nodes.b, 'GET', '/v1/profiles/prio/status');
  const first = st.body.endpoints.find((e: { name: string }) => e.name === 'first');
  expect(first.verdict).toBe('Online');
  expect(first.locations.map((l: { location: string; verdict: string; self: boolean }) => [l.location, l.verdict, l.self])).toEqual([
    ['loc-a', 'Online', false],
    ['loc-b', 'Online', true],
    ['loc-c', 'Online', false],
  ]);
  const metrics = await api(nodes.a, 'GET', '/metrics');
  expect(metrics.body).toMatch(/tmkit_location_verdict\{profile="prio",endpoint="first",location="loc-c"\} 1/);
  expect(metrics.body).toMatch(/tmkit_cluster_etcd_connected 1/);
});

test("a write through node A is answered by node C's DNS; the API works on every node", async () => {
  const t0 = performance.now();
  const w = await api(nodes.a, 'PATCH', '/v1/profiles/prio/endpoints/first', { endpointStatus: 'Disabled' });
  expect(w.status).toBe(200);
  await waitFor(async () => (await digFull(nodes.c.dns, 'prio.tm.internal')).answers[0]?.endsWith(IPS[1]!), {
    what: 'node C answers the change',
    timeoutMs: 10_000,
    intervalMs: 10,
  });
  const ms = performance.now() - t0;
  expect(ms).toBeLessThan(10_000);
  // Written on C, read back on B.
  const back = await api(nodes.c, 'PATCH', '/v1/profiles/prio/endpoints/first', { endpointStatus: 'Enabled' });
  expect(back.status).toBe(200);
  // B reads from its mirror, which has C's write once B's watch delivered it (milliseconds).
  await waitFor(async () => (await api(nodes.b, 'GET', '/v1/profiles/prio')).headers.get('etag') === back.body.etag, {
    what: 'node B reads the ETag written through C',
    timeoutMs: 5_000,
    intervalMs: 10,
  });
  await waitFor(
    async () => (await Promise.all(all().map((n) => digFull(n.dns, 'prio.tm.internal')))).every((d) => d.answers[0]?.endsWith(IPS[0]!)),
    { what: 'every node answers the first endpoint again', timeoutMs: 20_000, intervalMs: 50 },
  );
});

test('two nodes racing with one ETag: exactly one wins, the other gets 412; every node ends with the winner', async () => {
  const current = await api(nodes.a, 'GET', '/v1/profiles/weighted');
  const etag = current.headers.get('etag')!;
  const body = (ttl: number): unknown => ({ ...current.body, dnsConfig: { ...current.body.dnsConfig, ttl } });
  const [ra, rb] = await Promise.all([
    api(nodes.a, 'PUT', '/v1/profiles/weighted', body(61), { 'if-match': etag }),
    api(nodes.b, 'PUT', '/v1/profiles/weighted', body(62), { 'if-match': etag }),
  ]);
  expect([ra.status, rb.status].sort()).toEqual([200, 412]);
  const winner = ra.status === 200 ? 61 : 62;
  await waitFor(
    async () => (await Promise.all(all().map((n) => api(n, 'GET', '/v1/profiles/weighted')))).every((r) => r.body.dnsConfig.ttl === winner),
    { what: 'every node has the winner', timeoutMs: 10_000, intervalMs: 50 },
  );
});

test("a killed node: its location's verdicts expire with its lease, the others aggregate without it; it rejoins", async () => {
  await converged(3);
  const t0 = performance.now();
  await stopNode(nodes.c, 'SIGKILL');
  const survivors = [nodes.a, nodes.b];
  await waitFor(
    async () => {
      const st = await Promise.all(survivors.map((n) => api(n, 'GET', '/v1/profiles/prio/status')));
      return st.every((s) =>
        s.body.endpoints.every(
          (e: { locations: Array<{ location: string }> }) => e.locations.map((l) => l.location).join() === 'loc-a,loc-b',
        ),
      );
    },
    { what: 'loc-c is gone from the live locations and the verdicts', timeoutMs: 20_000, intervalMs: 50 },
  );
  const expiredMs = performance.now() - t0;
  // The lease TTL is 2 s (etcd may round a short TTL up to its minimum); well within 10 s.
  expect(expiredMs).toBeLessThan(10_000);
  const h = await api(nodes.a, 'GET', '/healthz');
  expect(h.body.cluster.liveLocations).toEqual(['loc-a', 'loc-b']);
  const st = await api(nodes.a, 'GET', '/v1/profiles/prio/status');
  expect(st.body.endpoints[0].verdict).toBe('Online');
  await node('c');
  await converged(3);
});

test('etcd stopped and restarted: answers never stop, writes are refused fast (503) and resume, every node resyncs', async () => {
  await converged(3);
  let stop = false;
  let answered = 0;
  const lost: string[] = [];
  const loops = all().map(async (n) => {
    while (!stop) {
      try {
        const r = await queryUdp(n.dns, 'prio.tm.internal', 'A', 2000);
        if (r.rcode === 'NOERROR' && r.answers.length === 1) answered++;
        else lost.push(`${n.name}: ${r.rcode}`);
      } catch (err) {
        lost.push(`${n.name}: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  });
  try {
    await etcd.stop();
    await waitFor(
      async () =>
        (await Promise.all(all().map((n) => api(n, 'GET', '/healthz')))).every(
          (h) => h.status === 503 && h.body.status === 'degraded' && h.body.cluster.etcd.connected === false,
        ),
      { what: 'every node reports the degraded mode', timeoutMs: 10_000, intervalMs: 50 },
    );
    const h = await api(nodes.b, 'GET', '/healthz');
    expect(h.body.reason).toMatch(
      /etcd \(http:\/\/127\.0\.0\.1:\d+\) is unreachable since .*answers DNS and probes from the last state.*API writes are refused with 503/,
    );
    const w = await api(nodes.a, 'PATCH', '/v1/profiles/prio/endpoints/first', { endpointStatus: 'Disabled' });
    expect(w.status).toBe(503);
    expect(w.ms).toBeLessThan(1000);
    expect(w.headers.get('retry-after')).toBe('5');
    expect(w.body.errors[0]).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(w.body.errors[0].message).toMatch(/is unreachable .*the change was not stored.*retry when etcd is back/);
    // Reads and status keep working from the last state.
    expect((await api(nodes.c, 'GET', '/v1/profiles/prio')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3000));
    await etcd.start();
    const ok = await waitFor(
      async () => {
        const r = await api(nodes.a, 'PATCH', '/v1/profiles/prio/endpoints/first', { endpointStatus: 'Disabled' });
        return r.status === 200 ? r : false;
      },
      { what: 'a write is accepted again', timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(ok.body.revision).toBeGreaterThan(0);
    await waitFor(
      async () => (await Promise.all(all().map((n) => digFull(n.dns, 'prio.tm.internal')))).every((d) => d.answers[0]?.endsWith(IPS[1]!)),
      { what: 'every node answers the write made after the outage', timeoutMs: 15_000, intervalMs: 50 },
    );
    expect((await Promise.all(all().map((n) => api(n, 'GET', '/healthz')))).map((x) => x.status)).toEqual([200, 200, 200]);
  } finally {
    stop = true;
    await Promise.all(loops);
  }
  expect(lost).toEqual([]);
  expect(answered).toBeGreaterThan(100);
  await api(nodes.a, 'PATCH', '/v1/profiles/prio/endpoints/first', { endpointStatus: 'Enabled' });
});

test('a node restarted while etcd is down serves the configuration it saved locally, and resyncs when etcd is back', async () => {
  await waitFor(async () => (await digFull(nodes.b.dns, 'prio.tm.internal')).answers[0]?.endsWith(IPS[0]!), {
    what: 'node B has the enabled endpoint',
    timeoutMs: 20_000,
    intervalMs: 50,
  });
  await etcd.stop();
  await stopNode(nodes.b, 'SIGTERM');
  const b = await node('b');
  expect(b.out()).toMatch(/etcd UNREACHABLE: serving the local copy/);
  const d = await digFull(b.dns, 'prio.tm.internal');
  expect(d).toMatchObject({ status: 'NOERROR' });
  expect((await digFull(b.dns, 'parent.tm.internal')).status).toBe('NOERROR');
  expect((await digFull(b.dns, 'off.tm.internal')).status).toBe('NXDOMAIN');
  const h = await api(b, 'GET', '/healthz');
  expect(h.status).toBe(503);
  expect(h.body.cluster.etcd).toMatchObject({ connected: false, fromLocalCopy: true });
  await etcd.start();
  const w = await waitFor(
    async () => {
      const r = await api(nodes.a, 'PATCH', '/v1/profiles/prio', { dnsConfig: { ttl: 45 } });
      return r.status === 200 ? r : false;
    },
    { what: 'a write through node A', timeoutMs: 20_000, intervalMs: 100 },
  );
  expect(w.body.profile.dnsConfig.ttl).toBe(45);
  await waitFor(async () => (await digFull(b.dns, 'prio.tm.internal')).answers[0]?.startsWith('prio.tm.internal. 45 IN A'), {
    what: 'node B resynced',
    timeoutMs: 20_000,
    intervalMs: 50,
  });
  await waitFor(async () => (await api(b, 'GET', '/healthz')).status === 200, {
    what: 'node B healthy again',
    timeoutMs: 20_000,
    intervalMs: 50,
  });
  // It joined once etcd was back: its lease, node record and location count on the other nodes.
  await waitFor(async () => (await api(nodes.a, 'GET', '/healthz')).body.cluster.liveLocations.includes('loc-b'), {
    what: 'node A counts loc-b again',
    timeoutMs: 20_000,
    intervalMs: 50,
  });
});
