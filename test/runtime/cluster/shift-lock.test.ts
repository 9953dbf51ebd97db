/**
 * One `tmkit shift` per endpoint across a cluster (issue 40 item 0): the hold is an etcd key taken with a
 * compare on its revision, so a shift running through node A refuses a second shift asked through node B,
 * naming the holder; `--cancel` through B stops the shift running through A (it rolls back). Two real
 * `tmkit serve` nodes on a real etcd, real `tmkit shift` processes.
 */
import { spawn } from 'node:child_process';
import { BIN, cleanEnv, runTmkit } from '../../support/process';
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { api, startNode, stopNode, TOKEN, type NodeProcess } from './support';
import { waitFor } from '../../support/wait';
import { tempDirs } from '../../support/tmp';

jest.setTimeout(180_000);

let etcd: EtcdServer;
const nodes: NodeProcess[] = [];
const tempDir = tempDirs('tmkit-shift-node-', { cleanup: 'manual' });

beforeAll(async () => {
  etcd = await startEtcd();
  for (const name of ['a', 'b']) {
    nodes.push(
      await startNode({
        store: etcd.storeUrl('shift-test'),
        node: name,
        location: `loc-${name}`,
        stateDir: tempDir(`tmkit-shift-node-${name}-`),
      }),
    );
  }
  const r = await api(nodes[0]!, 'PUT', '/v1/profiles/web', {
    name: 'web',
    trafficRoutingMethod: 'Weighted',
    dnsConfig: { relativeName: 'web', ttl: 0 },
    monitorConfig: { protocol: 'TCP', port: 9, intervalInSeconds: 30, timeoutInSeconds: 10, toleratedNumberOfFailures: 3 },
    endpoints: [
      { name: 'primary', type: 'externalEndpoints', target: '192.0.2.1', weight: 1, alwaysServe: 'Enabled' },
      { name: 'backup', type: 'externalEndpoints', target: '192.0.2.2', weight: 1, alwaysServe: 'Enabled' },
    ],
  });
  expect(r.status).toBe(201);
  await waitFor(async () => (await api(nodes[1]!, 'GET', '/v1/profiles/web')).status === 200, {
    what: 'node b has the profile',
    timeoutMs: 30_000,
    intervalMs: 100,
  });
});

afterAll(async () => {
  for (const n of nodes) await stopNode(n);
  await etcd?.stop();
  tempDir.removeAll();
});

const via = (n: NodeProcess) => ({ env: { TMKIT_SERVER: n.api, TMKIT_TOKEN: TOKEN }, timeoutMs: 60_000 });

test('a shift running through node A refuses one through node B, naming the holder; --cancel through B stops it', async () => {
  const child = spawn(process.execPath, [BIN, 'shift', 'web', 'backup', '--weights', '2,7', '--every', '60s', '--who', 'alice'], {
    env: cleanEnv({ TMKIT_SERVER: nodes[0]!.api, TMKIT_TOKEN: TOKEN }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const done = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  try {
    await waitFor(async () => out.includes('Step 1/2:') || child.exitCode !== null, { what: 'step 1', timeoutMs: 30_000, intervalMs: 50 });
    expect(out).toContain('Step 1/2:');
    const refused = await runTmkit(['shift', 'web', 'backup', '--weights', '4,8', '--every', '1s', '--who', 'bob'], via(nodes[1]!));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^tmkit: a shift of web\/backup is running: by alice since \S+Z, weights 2,7 \(at step 1\/2, weight 2\); /,
    );
    const cancel = await runTmkit(['shift', 'web', 'backup', '--cancel', '--who', 'bob'], via(nodes[1]!));
    expect(cancel).toMatchObject({ code: 0, stderr: '' });
    expect(await done).toBe(1);
    expect(err).toMatch(/^tmkit: shift of web\/backup rolled back: cancelled by bob during step 1\/2; its weight is 1 again/);
    const overrides = (await api(nodes[1]!, 'GET', '/v1/overrides')).body as { overrides: unknown[] };
    expect(overrides.overrides).toEqual([]);
    // The hold ended with the roll-back: a shift through B runs now.
    const next = await runTmkit(
      ['shift', 'web', 'backup', '--weights', '4', '--every', '1s', '--who', 'bob', '--hold', '10m'],
      via(nodes[1]!),
    );
    expect(next).toMatchObject({ code: 0, stderr: '' });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
