/**
 * Two clusters behind one tmkit, end to end with real Kubernetes objects: a real kube-apiserver
 * (scripts/install-kube-apiserver.sh; test/support/kube-apiserver.ts) over a test etcd, two real ExternalDNS v0.23
 * processes (scripts/install-external-dns.sh) with the `crd` and `service` sources, each reading only ITS
 * namespace of that apiserver as if it were its own cluster, each with its own `tmkit external-dns` sidecar
 * (owner ids cluster-east and cluster-west) writing to one real `tmkit serve`, and `dig` asking that server.
 *
 * Each test uses namespaces of its own (`<n>-east`, `<n>-west`): no controller runs to delete namespaces, and the
 * apiserver lives for the whole file. Endpoints that must count as Online for the safety rule without a probe
 * round carry `always-serve: true` (Unmonitored); the others stay CheckingEndpoint (their targets are
 * documentation addresses nobody answers) for as long as a test lasts.
 *
 * tmkit's keys are written `webhook/tmkit-<key>` in DNSEndpoints too: ExternalDNS v0.23 keeps only the
 * providerSpecific names prefixed with its provider's name (`webhook/`; RetainProviderProperties in its source
 * wrapper) and drops `tmkit/<key>` before the webhook sees it (the last test pins that).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../src/client';
import { startEtcd, type EtcdServer } from '../support/etcd';
import { type KubeApiserver, kubeApiserverBin, startKubeApiserver } from '../support/kube-apiserver';
import { dig, spawnServe, type ServeProcess } from '../support/process';
import { externalDnsBin } from '../support/tools';
import { waitFor } from '../support/wait';
import { externalDnsOnce, freePort, spawnWebhook, type WebhookProcess } from './external-dns-support';

jest.setTimeout(240_000);

const ED = externalDnsBin();
kubeApiserverBin(); // fails the file with how to build it

const EAST = 'cluster-east';
const WEST = 'cluster-west';

let etcd: EtcdServer;
let kube: KubeApiserver;
let dir: string;
let serve: ServeProcess;
let hooks: WebhookProcess[] = [];
let client: TmkitClient;
let apiPort: number;
let ns: { east: string; west: string };
let testNo = 0;
const token = (): string => readFileSync(join(dir, 'token'), 'utf8').trim();

beforeAll(async () => {
  etcd = await startEtcd();
  kube = await startKubeApiserver(etcd);
  await kube.installDnsEndpointCrd();
}, 180_000);
afterAll(async () => {
  await kube?.destroy();
  await etcd?.destroy();
});

beforeEach(async () => {
  testNo++;
  ns = { east: `t${testNo}-east`, west: `t${testNo}-west` };
  await kube.createNamespace(ns.east);
  await kube.createNamespace(ns.west);
  dir = mkdtempSync(join(tmpdir(), 'tmkit-extdns-kube-'));
  apiPort = await freePort();
  serve = await spawnServe(dir, ['--api', `127.0.0.1:${apiPort}`]);
  client = new TmkitClient({ server: serve.api, token: token(), env: {}, retries: 0 });
});
afterEach(async () => {
  for (const h of hooks) await h.stop();
  hooks = [];
  await client.close();
  if (serve.child.exitCode === null) serve.child.kill('SIGTERM');
  await serve.closed;
  rmSync(dir, { recursive: true, force: true });
});

/** A sidecar for `owner` (extra flags such as --force). */
async function webhook(owner: string, extra: string[] = []): Promise<WebhookProcess> {
  const h = await spawnWebhook(['--server', `http://127.0.0.1:${apiPort}`, '--zone', 'tm.internal', '--owner-id', owner, ...extra], {
    TMKIT_TOKEN: token(),
  });
  hooks.push(h);
  return h;
}

/** ExternalDNS as a cluster runs it: its Kubernetes sources, its namespace only, the webhook, the TXT registry. */
const args = (hook: WebhookProcess, owner: string, namespace: string): string[] => [
  `--kubeconfig=${kube.kubeconfig}`,
  `--namespace=${namespace}`,
  '--source=crd',
  '--source=service',
  '--provider=webhook',
  `--webhook-provider-url=${hook.url}`,
  '--policy=sync',
  '--registry=txt',
  `--txt-owner-id=${owner}`,
  '--metrics-address=127.0.0.1:0',
  '--log-level=debug',
];

/** `external-dns ARGS --once`: its exit code and log. */
const once = (a: string[]) => externalDnsOnce(ED, a);

/** `once`, expecting success (the log in the failure message otherwise). */
async function onceOk(a: string[]): Promise<string> {
  const r = await once(a);
  if (r.code !== 0) throw new Error(`external-dns --once exited ${r.code}:\n${r.log.slice(-4000)}`);
  return r.log;
}

/**
 * A DNSEndpoint record as its spec.endpoints holds it; `ps`: tmkit keys without prefix (`priority`), written
 * `webhook/tmkit-<key>`, the only spelling ExternalDNS v0.23 passes to a webhook provider (`raw` as given).
 */
const record = (dnsName: string, target: string, setIdentifier: string, ps: Record<string, string>, raw: Record<string, string> = {}) => ({
  dnsName,
  recordType: 'A',
  targets: [target],
  setIdentifier,
  providerSpecific: [
    ...Object.entries(ps).map(([k, value]) => ({ name: `webhook/tmkit-${k}`, value })),
    ...Object.entries(raw).map(([name, value]) => ({ name, value })),
  ],
});

/** The endpoints of profile `name` as name, target and the routing field `by`, in the profile's order. */
async function endpointsOf(name: string, by?: 'priority' | 'weight'): Promise<Array<Record<string, unknown>>> {
  const p = await client.findProfile(name);
  return (p?.profile.endpoints ?? []).map((e) => ({ name: e.name, target: e.target, ...(by ? { [by]: e[by] } : {}) }));
}

const profileWrites = async (): Promise<Array<{ who?: string; action: string }>> =>
  (await client.audit(200)).entries.filter((e) => e.action.startsWith('profile.')).map((e) => ({ who: e.who, action: e.action }));

/** East (priority 1) and west (priority 2) each publish app.tm.internal from a DNSEndpoint in their namespace. */
async function activePassive(west: Record<string, string> = { 'always-serve': 'true' }): Promise<{
  east: WebhookProcess;
  west: WebhookProcess;
}> {
  await kube.createDnsEndpoint(ns.east, 'app', [
    record('app.tm.internal', '192.0.2.10', 'east', {
      'routing-method': 'Priority',
      priority: '1',
      'always-serve': 'true',
    }),
  ]);
  await kube.createDnsEndpoint(ns.west, 'app', [
    record('app.tm.internal', '198.51.100.20', 'west', { 'routing-method': 'Priority', priority: '2', ...west }),
  ]);
  const e = await webhook(EAST);
  const w = await webhook(WEST);
  await onceOk(args(e, EAST, ns.east));
  await onceOk(args(w, WEST, ns.west));
  return { east: e, west: w };
}

test('DNSEndpoints of two clusters with set identifiers make one Priority profile; dig answers the active one; re-runs change nothing', async () => {
  const { east, west } = await activePassive();
  const p = await client.findProfile('app');
  expect(p?.stack).toBe(`external-dns-${EAST}`);
  expect(p?.profile.trafficRoutingMethod).toBe('Priority');
  expect(await endpointsOf('app', 'priority')).toEqual([
    { name: 'east-1', target: '192.0.2.10', priority: 1 },
    { name: 'west-1', target: '198.51.100.20', priority: 2 },
  ]);
  expect(await dig(serve.dns, 'app.tm.internal')).toEqual(['192.0.2.10']);
  expect((await profileWrites()).sort((a, b) => (a.action < b.action ? -1 : 1))).toEqual([
    { who: `external-dns:${EAST}`, action: 'profile.create' },
    { who: `external-dns:${WEST}`, action: 'profile.update' },
  ]);

  // A second run of each sees its own records exactly as its source says them: nothing to do.
  for (const [hook, owner, namespace] of [
    [east, EAST, ns.east],
    [west, WEST, ns.west],
  ] as const)
    expect(await onceOk(args(hook, owner, namespace))).toMatch(/All records are already up to date/);
  expect((await client.findProfile('app'))?.etag).toBe(p?.etag);
  expect(await profileWrites()).toHaveLength(2);
});

test("deleting east's DNSEndpoint takes out only east's endpoint; dig answers west's", async () => {
  const { east } = await activePassive();
  await kube.deleteDnsEndpoint(ns.east, 'app');
  await onceOk(args(east, EAST, ns.east));
  expect(await endpointsOf('app', 'priority')).toEqual([{ name: 'west-1', target: '198.51.100.20', priority: 2 }]);
  expect(await dig(serve.dns, 'app.tm.internal')).toEqual(['198.51.100.20']);
  // The profile stays in the stack of the cluster that created it, with only west's records now.
  expect((await client.findProfile('app'))?.stack).toBe(`external-dns-${EAST}`);
});

test('the safety rule: deleting the only Online endpoint is refused and logged; the sidecar with --force deletes it', async () => {
  // West's endpoint is probed (no always-serve) and nobody answers 198.51.100.20: it is not Online.
  const { east } = await activePassive({});
  const before = await client.findProfile('app');
  await kube.deleteDnsEndpoint(ns.east, 'app');
  const refused = await once(args(east, EAST, ns.east));
  expect(refused.code).not.toBe(0);
  expect(refused.log).toMatch(/failed to apply changes with code 409/i);
  expect(east.stderr()).toMatch(/409 refused by the safety rule: .*profile app with no endpoint Online \(Online now: east-1/);
  expect((await client.findProfile('app'))?.etag).toBe(before?.etag);
  expect(await dig(serve.dns, 'app.tm.internal')).toEqual(['192.0.2.10']);

  await east.stop();
  const forced = await webhook(EAST, ['--force']);
  await onceOk(args(forced, EAST, ns.east));
  expect(forced.stderr()).toMatch(/--force: with the live health now, this change leaves profile app with no endpoint Online/);
  expect(await endpointsOf('app', 'priority')).toEqual([{ name: 'west-1', target: '198.51.100.20', priority: 2 }]);
  expect(await dig(serve.dns, 'app.tm.internal')).toEqual(['198.51.100.20']);
});

test('annotated LoadBalancer Services of both clusters (hostname, set-identifier, webhook-tmkit-weight) make one Weighted profile dig answers', async () => {
  await kube.createLoadBalancer(
    ns.east,
    'web',
    {
      'external-dns.kubernetes.io/hostname': 'web.tm.internal',
      'external-dns.kubernetes.io/set-identifier': 'east',
      'external-dns.kubernetes.io/webhook-tmkit-weight': '3',
      'external-dns.kubernetes.io/ttl': '20',
    },
    '192.0.2.30',
  );
  await kube.createLoadBalancer(
    ns.west,
    'web',
    {
      'external-dns.kubernetes.io/hostname': 'web.tm.internal',
      'external-dns.kubernetes.io/set-identifier': 'west',
      'external-dns.kubernetes.io/webhook-tmkit-weight': '1',
    },
    '198.51.100.40',
  );
  const east = await webhook(EAST);
  const west = await webhook(WEST);
  await onceOk(args(east, EAST, ns.east));
  expect(await dig(serve.dns, 'web.tm.internal')).toEqual(['192.0.2.30']);
  await onceOk(args(west, WEST, ns.west));
  const p = await client.findProfile('web');
  expect(p?.profile.trafficRoutingMethod).toBe('Weighted');
  expect(p?.profile.dnsConfig.ttl).toBe(20);
  expect(await endpointsOf('web', 'weight')).toEqual([
    { name: 'east-1', target: '192.0.2.30', weight: 3 },
    { name: 'west-1', target: '198.51.100.40', weight: 1 },
  ]);
  // The providerSpecific key as ExternalDNS passed it (webhook/tmkit-weight) is kept in tmkit's spelling.
  expect(JSON.parse(p!.profile.tags!['external-dns/records']!)).toEqual([
    expect.objectContaining({ owner: EAST, setIdentifier: 'east', providerSpecific: [{ name: 'tmkit/weight', value: '3' }] }),
    expect.objectContaining({ owner: WEST, setIdentifier: 'west', providerSpecific: [{ name: 'tmkit/weight', value: '1' }] }),
  ]);
  const answers = new Set<string>();
  for (let i = 0; i < 20 && answers.size < 2; i++) for (const a of await dig(serve.dns, 'web.tm.internal')) answers.add(a);
  expect([...answers].sort()).toEqual(['192.0.2.30', '198.51.100.40']);
  expect(await onceOk(args(west, WEST, ns.west))).toMatch(/All records are already up to date/);

  // The Service goes: its cluster's endpoint goes, the other cluster's stays.
  await kube.deleteService(ns.west, 'web');
  await onceOk(args(west, WEST, ns.west));
  expect(await endpointsOf('web', 'weight')).toEqual([{ name: 'east-1', target: '192.0.2.30', weight: 3 }]);
});

test('the same name, type and set identifier from the other cluster is refused (409, owned by) and nothing is written', async () => {
  const ps = { 'always-serve': 'true' };
  await kube.createDnsEndpoint(ns.east, 'api', [record('api.tm.internal', '192.0.2.50', 'shared', ps)]);
  await kube.createDnsEndpoint(ns.west, 'api', [record('api.tm.internal', '198.51.100.60', 'shared', ps)]);
  const east = await webhook(EAST);
  const west = await webhook(WEST);
  await onceOk(args(east, EAST, ns.east));
  const before = await client.findProfile('api');
  const writes = await profileWrites();

  const r = await once(args(west, WEST, ns.west));
  expect(r.code).not.toBe(0);
  expect(r.log).toMatch(/failed to apply changes with code 409/i);
  expect(west.stderr()).toMatch(/POST \/records: 409 .*api\.tm\.internal A \(set shared\)\): owned by cluster-east/);
  expect((await client.findProfile('api'))?.etag).toBe(before?.etag);
  expect(await endpointsOf('api')).toEqual([{ name: 'shared-1', target: '192.0.2.50' }]);
  expect(await profileWrites()).toEqual(writes);
  expect(await dig(serve.dns, 'api.tm.internal')).toEqual(['192.0.2.50']);
});

test("ExternalDNS's loop follows the apiserver: a DNSEndpoint created while it runs is published, deleted is withdrawn", async () => {
  const east = await webhook(EAST);
  const child = spawn(ED, [...args(east, EAST, ns.east), '--interval=1h', '--events', '--min-event-sync-interval=1s'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (log += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
  const closed = new Promise((r) => child.once('close', r));
  try {
    // Its first sync (nothing in the namespace) is done before the object exists.
    await waitFor(() => /All records are already up to date/.test(log), { what: "ExternalDNS's first sync", timeoutMs: 60_000 });
    await kube.createDnsEndpoint(ns.east, 'live', [record('live.tm.internal', '192.0.2.70', 'east', {})]);
    await waitFor(async () => (await dig(serve.dns, 'live.tm.internal')).includes('192.0.2.70'), {
      what: 'the new DNSEndpoint answered by dig (an event-triggered sync, not the 1 h interval)',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    await kube.deleteDnsEndpoint(ns.east, 'live');
    await waitFor(async () => (await client.findProfile('live')) === undefined, {
      what: 'the profile deleted after its DNSEndpoint',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    expect(child.exitCode).toBeNull();
  } catch (err) {
    throw new Error(`${(err as Error).message}\nExternalDNS log:\n${log.slice(-4000)}`);
  } finally {
    child.kill('SIGTERM');
    await closed;
  }
  expect(await dig(serve.dns, 'live.tm.internal')).toEqual([]);
});

test('ExternalDNS v0.23 drops `tmkit/<key>` names in a DNSEndpoint before the webhook sees them: only `webhook/tmkit-<key>` arrives', async () => {
  await kube.createDnsEndpoint(ns.east, 'both', [
    record('both.tm.internal', '192.0.2.80', 'east', { weight: '7' }, { 'tmkit/routing-method': 'Priority', 'tmkit/priority': '5' }),
  ]);
  const east = await webhook(EAST);
  await onceOk(args(east, EAST, ns.east));
  const p = await client.findProfile('both');
  // tmkit/routing-method and tmkit/priority never reached tmkit: the profile is Weighted, its endpoint weighted 7.
  expect(p?.profile.trafficRoutingMethod).toBe('Weighted');
  expect(await endpointsOf('both', 'weight')).toEqual([{ name: 'east-1', target: '192.0.2.80', weight: 7 }]);
  expect(JSON.parse(p!.profile.tags!['external-dns/records']!)).toEqual([
    expect.objectContaining({ setIdentifier: 'east', providerSpecific: [{ name: 'tmkit/weight', value: '7' }] }),
  ]);
  expect(await onceOk(args(east, EAST, ns.east))).toMatch(/All records are already up to date/);
});
