/**
 * Measured latency shared across a cluster (docs/routing.md "Measured latency", docs/cluster.md): two real
 * `tmkit serve` nodes on one etcd, at locations named after Azure regions (westeurope, japaneast). Each writes
 * its probes' round trips under `latency/<location>` with its lease; each maps a client to its nearest
 * location by the distance model and ranks by that location's measurements, its own or the other node's.
 * When a node stops (SIGTERM revokes its lease), its location goes from the others' ranking.
 */
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { tempDirs } from '../../support/tmp';
import { waitFor } from '../../support/wait';
import { delayed, measuredProfile } from '../measured-support';
import { api, startNode, stopNode, type NodeProcess } from './support';

jest.setTimeout(150_000);

const HOSTS: [string, string] = ['127.0.0.41', '127.0.0.42'];
let etcd: EtcdServer;
let servers: Awaited<ReturnType<typeof delayed>>;
const nodes: NodeProcess[] = [];
const tempDir = tempDirs('tmkit-measured-cluster-', { cleanup: 'manual' });

beforeAll(async () => {
  etcd = await startEtcd();
  servers = await delayed(HOSTS);
  servers.delay.set(HOSTS[0], 150);
  for (const location of ['westeurope', 'japaneast']) {
    nodes.push(await startNode({ store: etcd.storeUrl('measured-test'), node: location.slice(0, 2), location, stateDir: tempDir() }));
  }
  const r = await api(nodes[0]!, 'PUT', '/v1/profiles/web', measuredProfile(servers.port, 2, HOSTS));
  expect(r.status).toBe(201);
});

afterAll(async () => {
  await Promise.all(nodes.map((n) => stopNode(n, 'SIGKILL')));
  await servers?.close();
  await etcd?.destroy();
  tempDir.removeAll();
});

/** The explanation `POST /v1/resolve` gives on node `n` for a client at `clientIp`, one step a line. */
async function why(n: NodeProcess, clientIp: string): Promise<string> {
  const r = await api(n, 'POST', '/v1/resolve', { name: 'web.tm.internal', clientIp });
  expect(r.status).toBe(200);
  return (r.body.explanation as { kind: string; endpoint?: string; detail: string }[])
    .map((s) => `${s.kind}${s.endpoint ? ` ${s.endpoint}` : ''}: ${s.detail}`)
    .join('\n');
}

const JAPAN = '133.0.0.1';
const GERMANY = '194.25.2.1';

test("each node ranks a client by its nearest location's measurements, the other node's included, until that node leaves", async () => {
  const [we, jp] = [nodes[0]!, nodes[1]!];
  // Node westeurope answers a Japanese client from japaneast's measurements (read from etcd), and the reverse.
  const fromOther = await waitFor(
    async () => {
      const t = await why(we, JAPAN);
      return (
        /measured: client mapped to japaneast \(nearest probing location by the distance model, [\d.]+ ms\); 2 of 2 endpoints/.test(t) && t
      );
    },
    { what: "node westeurope ranking a Japanese client by japaneast's measurements", timeoutMs: 60_000, intervalMs: 500 },
  );
  expect(fromOther).toMatch(/select far: measured: [\d.]+ ms from japaneast \(EWMA of \d+ probes\)/);
  await waitFor(async () => /measured: client mapped to westeurope \(nearest/.test(await why(jp, GERMANY)), {
    what: "node japaneast ranking a German client by westeurope's measurements",
    timeoutMs: 30_000,
    intervalMs: 500,
  });
  expect(await why(we, GERMANY)).toMatch(/select far: measured: [\d.]+ ms from westeurope /);

  // japaneast leaves: its lease (and its latency key) goes, and westeurope is the only location left.
  await stopNode(jp, 'SIGTERM');
  await waitFor(async () => /client mapped to westeurope \(the only probing location\)/.test(await why(we, JAPAN)), {
    what: 'the Japanese client mapped to westeurope once japaneast left',
    timeoutMs: 20_000,
    intervalMs: 250,
  });
});
