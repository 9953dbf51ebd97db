/**
 * DNSSEC in a cluster for real: one etcd and two `tmkit serve --dnssec` processes started at the same
 * moment (node b with two DNS worker processes). Both sign with one key set, created once in etcd; delv
 * validates either node's answers with the one trust anchor; a rollover through node a reaches node b's
 * DNSKEY RRset (its workers too).
 */
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { api, startNode, stopNode, type NodeProcess } from '../cluster/support';
import { waitFor } from '../../support/wait';
import { dig } from '../dns/support';
import { delv, delvAnchors } from './support';
import { tempDirs } from '../../support/tmp';

jest.setTimeout(120_000);

let etcd: EtcdServer;
const nodes: NodeProcess[] = [];
const dir = tempDirs('tmkit-dnssec-node-', { cleanup: 'manual' });

beforeAll(async () => {
  etcd = await startEtcd();
  const store = etcd.storeUrl('dnssec-cluster');
  nodes.push(
    ...(await Promise.all([
      startNode({ store, node: 'a', stateDir: dir(), extra: ['--dnssec', '--workers', '1'] }),
      startNode({ store, node: 'b', stateDir: dir(), extra: ['--dnssec', '--workers', '2'] }),
    ])),
  );
  const r = await api(nodes[0]!, 'PUT', '/v1/profiles/web', {
    name: 'web',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'web', ttl: 30 },
    monitorConfig: { protocol: 'TCP', port: 9, intervalInSeconds: 30 },
    endpoints: [{ name: 'one', type: 'externalEndpoints', target: '192.0.2.1', alwaysServe: 'Enabled' }],
  });
  if (r.status >= 300) throw new Error(`PUT web: ${r.status} ${JSON.stringify(r.body)}`);
});

afterAll(async () => {
  await Promise.all(nodes.map((n) => stopNode(n)));
  await etcd?.destroy();
  dir.removeAll();
});

test('two nodes started together sign with one key set from etcd; delv validates both with one trust anchor', async () => {
  const [ra, rb] = await Promise.all(nodes.map((n) => api(n, 'GET', '/v1/dnssec')));
  expect(ra!.body.keyStore).toMatch(/^etcd key .*dnssec\/keys$/);
  expect(rb!.body.ds).toEqual(ra!.body.ds);
  expect(ra!.body.keys.map((k: { keyTag: number }) => k.keyTag)).toEqual(rb!.body.keys.map((k: { keyTag: number }) => k.keyTag));
  expect(nodes[1]!.out()).toMatch(/DNSSEC ECDSAP256SHA256, CSK \d+, keys in etcd key/);
  const anchors = delvAnchors([ra!.body.keys[0].dnskey]);
  for (const n of nodes) {
    await waitFor(async () => (await dig(['@127.0.0.1', '-p', String(n.dns.port), 'web.tm.internal', 'A'])).answer.length > 0, {
      what: `node ${n.name} answers web`,
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    for (const [name, type] of [
      ['web.tm.internal', 'A'],
      ['nope.tm.internal', 'A'],
      ['tm.internal', 'DNSKEY'],
    ]) {
      const d = await delv(n.dns.port, anchors, 'tm.internal', name!, type!);
      expect({ node: n.name, name, validated: d.validated, out: d.validated ? '' : d.out }).toEqual({
        node: n.name,
        name,
        validated: true,
        out: '',
      });
    }
  }
});

test("a rollover through node a reaches node b's DNS workers: both serve the new key in the DNSKEY RRset", async () => {
  const r = await api(nodes[0]!, 'POST', '/v1/dnssec/rollover', {});
  expect(r.status).toBe(200);
  const tag = String(r.body.keyTags[0]);
  for (const n of nodes) {
    // Node b reads etcd every 10 s; each of its workers answers with the new RRset once it has it.
    await waitFor(
      async () => {
        for (let i = 0; i < 4; i++) {
          const keys = await dig(['@127.0.0.1', '-p', String(n.dns.port), '+dnssec', '+multi', 'tm.internal', 'DNSKEY']);
          if (!keys.raw.includes(`key id = ${tag}`)) return false;
        }
        return true;
      },
      { what: `node ${n.name} publishes key ${tag}`, timeoutMs: 30_000, intervalMs: 250 },
    );
  }
  const b = await api(nodes[1]!, 'GET', '/v1/dnssec');
  expect(b.body.keys.map((k: { state: string }) => k.state)).toEqual(['active', 'published']);
  expect(b.body.signatures.made).toBeGreaterThan(0); // summed over node b's workers
});
