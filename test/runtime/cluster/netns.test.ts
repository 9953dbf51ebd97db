/**
 * Locations that disagree for real (issue 18 §6): each of three `tmkit serve` nodes runs in a network
 * namespace of its own (iproute2, a veth pair each, as root), so a route in one namespace can make an endpoint
 * unreachable from that location only, while the others still reach it. The majority rule decides:
 *
 *   one location of three cannot reach the primary → 1 of 3 Degraded: still Online, every node answers it
 *   two locations of three cannot                  → 2 of 3 Degraded: Degraded, every node answers the backup
 *                                                    (also the node that still reaches the primary)
 *   the third node is killed (its lease expires)   → 1 Online, 1 Degraded of 2 live: a tie counts as up, the
 *                                                    primary is answered again
 *
 * Addresses: 10.231.<i>.1 (host side) / 10.231.<i>.2 (namespace side) per node; the endpoints' health servers
 * on 10.231.100.1-2 (an interface of this namespace); etcd listens on 127.0.0.1 and every host-side
 * address. Nothing leaves the machine: every address is on an interface created here, removed afterwards.
 */
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { api, digFull, healthServers, ip, startNode, stopNode, type NodeProcess } from './support';
import { waitFor } from '../../support/wait';
import { tempDirs } from '../../support/tmp';

jest.setTimeout(240_000);

const tag = `tk${process.pid % 10000}`;
const ns = (i: number): string => `${tag}n${i}`;
const PRIMARY = '10.231.100.1';
const BACKUP = '10.231.100.2';
const hostSide = (i: number): string => `10.231.${i}.1`;
const nsSide = (i: number): string => `10.231.${i}.2`;

let etcd: EtcdServer | undefined;
let health: Awaited<ReturnType<typeof healthServers>> | undefined;
const nodes: NodeProcess[] = [];
const tempDir = tempDirs('tmkit-netns-', { cleanup: 'manual' });

async function setUpNetwork(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('this test builds network namespaces and needs root (CI runs as root)');
  // The endpoints' addresses, on a veth pair kept in this namespace (a stand-in for a dummy interface, which
  // not every kernel has).
  await ip('link', 'add', `${tag}d`, 'type', 'veth', 'peer', 'name', `${tag}e`);
  await ip('addr', 'add', `${PRIMARY}/32`, 'dev', `${tag}d`);
  await ip('addr', 'add', `${BACKUP}/32`, 'dev', `${tag}d`);
  await ip('link', 'set', `${tag}d`, 'up');
  await ip('link', 'set', `${tag}e`, 'up');
  for (const i of [1, 2, 3]) {
    await ip('netns', 'add', ns(i));
    await ip('link', 'add', `${tag}h${i}`, 'type', 'veth', 'peer', 'name', `${tag}p${i}`);
    await ip('link', 'set', `${tag}p${i}`, 'netns', ns(i));
    await ip('addr', 'add', `${hostSide(i)}/30`, 'dev', `${tag}h${i}`);
    await ip('link', 'set', `${tag}h${i}`, 'up');
    await ip('-n', ns(i), 'addr', 'add', `${nsSide(i)}/30`, 'dev', `${tag}p${i}`);
    await ip('-n', ns(i), 'link', 'set', `${tag}p${i}`, 'up');
    await ip('-n', ns(i), 'link', 'set', 'lo', 'up');
    // The endpoints (and nothing else) are reached through the host side.
    await ip('-n', ns(i), 'route', 'add', '10.231.100.0/24', 'via', hostSide(i));
  }
}

async function tearDownNetwork(): Promise<void> {
  for (const i of [1, 2, 3]) await ip('netns', 'del', ns(i)).catch(() => undefined); // takes its veth pair along
  await ip('link', 'del', `${tag}d`).catch(() => undefined);
  for (const i of [1, 2, 3]) await ip('link', 'del', `${tag}h${i}`).catch(() => undefined);
}

/** Location i can no longer reach the primary (an unreachable route in its namespace only). */
const block = (i: number): Promise<string> => ip('-n', ns(i), 'route', 'add', 'unreachable', `${PRIMARY}/32`);

beforeAll(async () => {
  await tearDownNetwork();
  await setUpNetwork();
  etcd = await startEtcd({ extraClientHosts: [1, 2, 3].map(hostSide) });
  health = await healthServers([PRIMARY, BACKUP]);
  for (const i of [1, 2, 3]) {
    const dir = tempDir(`tmkit-netns-${i}-`);
    nodes.push(
      await startNode({
        store: `etcd://${hostSide(i)}:${etcd.clientPort}/netns`,
        node: `node${i}`,
        location: `loc${i}`,
        stateDir: dir,
        host: nsSide(i),
        netns: ns(i),
      }),
    );
  }
  const monitorConfig = {
    protocol: 'HTTP',
    port: health.port,
    path: '/healthz',
    intervalInSeconds: 10,
    timeoutInSeconds: 5,
    toleratedNumberOfFailures: 0,
  };
  const put = await api(nodes[0]!, 'PUT', '/v1/profiles/app', {
    name: 'app',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'app', ttl: 30 },
    monitorConfig,
    endpoints: [
      { name: 'primary', type: 'externalEndpoints', target: PRIMARY },
      { name: 'backup', type: 'externalEndpoints', target: BACKUP },
    ],
  });
  if (put.status !== 201) throw new Error(`PUT app: ${put.status} ${JSON.stringify(put.body)}`);
});

afterAll(async () => {
  await Promise.all(nodes.map((n) => stopNode(n, 'SIGKILL')));
  await health?.close();
  await etcd?.destroy();
  await tearDownNetwork();
  tempDir.removeAll();
});

type Loc = { location: string; verdict: string; live: boolean };

/** The primary's verdict per location and in aggregate, as `node` reports them. */
async function primaryOn(node: NodeProcess): Promise<{ aggregate: string; locations: Record<string, string> }> {
  const st = await api(node, 'GET', '/v1/profiles/app/status');
  const e = st.body.endpoints.find((x: { name: string }) => x.name === 'primary');
  return {
    aggregate: e.verdict,
    locations: Object.fromEntries((e.locations as Loc[]).filter((l) => l.live).map((l) => [l.location, l.verdict])),
  };
}

async function answers(of: NodeProcess[]): Promise<string[]> {
  return Promise.all(of.map(async (n) => (await digFull(n.dns, 'app.tm.internal')).answers.map((a) => a.split(' ').pop()).join(',')));
}

test('one location of three cannot reach the primary: outvoted, every node still answers the primary', async () => {
  await waitFor(
    async () => {
      const p = await primaryOn(nodes[0]!);
      return p.aggregate === 'Online' && Object.values(p.locations).join() === 'Online,Online,Online';
    },
    { what: 'all three locations say Online', timeoutMs: 60_000, intervalMs: 200 },
  );
  expect(await answers(nodes)).toEqual([PRIMARY, PRIMARY, PRIMARY]);
  await block(3);
  const seen = await waitFor(
    async () => {
      const p = await primaryOn(nodes[2]!);
      return p.locations.loc3 === 'Degraded' ? p : false;
    },
    { what: 'loc3 says Degraded', timeoutMs: 60_000, intervalMs: 200 },
  );
  expect(seen).toEqual({ aggregate: 'Online', locations: { loc1: 'Online', loc2: 'Online', loc3: 'Degraded' } });
  // Node 3 itself cannot reach the primary, yet answers it: the majority decides for every node.
  await waitFor(async () => (await Promise.all(nodes.map(primaryOn))).every((p) => p.locations.loc3 === 'Degraded'), {
    what: "every node has loc3's verdict",
    timeoutMs: 20_000,
    intervalMs: 100,
  });
  expect(await answers(nodes)).toEqual([PRIMARY, PRIMARY, PRIMARY]);
  const st = await api(nodes[2]!, 'GET', '/v1/profiles/app/status');
  const lastProbe = st.body.endpoints.find((x: { name: string }) => x.name === 'primary').lastProbe;
  expect(lastProbe.ok).toBe(false);
});

test('two locations of three cannot: Degraded by majority, every node answers the backup (also the one that reaches the primary)', async () => {
  await block(2);
  await waitFor(async () => (await Promise.all(nodes.map(primaryOn))).every((p) => p.aggregate === 'Degraded'), {
    what: 'every node aggregates Degraded',
    timeoutMs: 60_000,
    intervalMs: 200,
  });
  expect(await primaryOn(nodes[0]!)).toEqual({ aggregate: 'Degraded', locations: { loc1: 'Online', loc2: 'Degraded', loc3: 'Degraded' } });
  await waitFor(async () => (await answers(nodes)).every((a) => a === BACKUP), {
    what: 'every node answers the backup',
    timeoutMs: 10_000,
    intervalMs: 50,
  });
});

test('the third node is killed: its verdicts expire, 1 Online against 1 Degraded is a tie, and a tie counts as up', async () => {
  await stopNode(nodes[2], 'SIGKILL');
  const survivors = nodes.slice(0, 2);
  await waitFor(
    async () =>
      (await Promise.all(survivors.map(primaryOn))).every(
        (p) => p.aggregate === 'Online' && Object.keys(p.locations).join() === 'loc1,loc2',
      ),
    { what: 'the survivors aggregate over two locations: Online', timeoutMs: 30_000, intervalMs: 100 },
  );
  expect(await primaryOn(nodes[1]!)).toEqual({ aggregate: 'Online', locations: { loc1: 'Online', loc2: 'Degraded' } });
  await waitFor(async () => (await answers(survivors)).every((a) => a === PRIMARY), {
    what: 'the survivors answer the primary again',
    timeoutMs: 10_000,
    intervalMs: 50,
  });
});
