/**
 * examples/cluster as its README runs it (issue 18 Acceptance): `cluster.sh start` brings up etcd and three
 * nodes on loopback, a change applied through one node's API is answered by all three nodes' DNS, and
 * `cluster.sh stop` stops everything it started.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../../support/process';
import { freePort } from '../../support/ports';
import { digFull } from './support';
import { waitFor } from '../../support/wait';

jest.setTimeout(120_000);

const SCRIPT = join(REPO, 'examples/cluster/cluster.sh');

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('bash', [SCRIPT, ...args], { env: { ...process.env, ...env }, timeout: 90_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

/** A port base whose 100 ports above it look free (the script uses base+1..3, +81..83, +90, +91). */
async function portBase(): Promise<number> {
  for (;;) {
    const p = await freePort();
    const base = p - (p % 100);
    if (base < 20000 || base > 60000) continue;
    const probes = await Promise.all(
      [1, 2, 3, 81, 82, 83, 90, 91].map(async (o) => {
        try {
          const net = await import('node:net');
          return await new Promise<boolean>((r) => {
            const s = net.createServer();
            s.once('error', () => r(false));
            s.listen(base + o, '127.0.0.1', () => s.close(() => r(true)));
          });
        } catch {
          return false;
        }
      }),
    );
    if (probes.every(Boolean)) return base;
  }
}

test('cluster.sh start: etcd and three nodes; a change through node 2 is answered by every node; stop ends them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-example-cluster-'));
  const base = await portBase();
  const env = { TMKIT_CLUSTER_RUN_DIR: dir, TMKIT_CLUSTER_PORT_BASE: String(base) };
  try {
    const started = await run(['start'], env);
    expect(started.out).toContain('Apply complete: 1 added');
    expect(started.code).toBe(0);
    const dns = [1, 2, 3].map((i) => ({ address: '127.0.0.1', port: base + i }));
    for (const d of dns) expect((await digFull(d, 'web.tm.internal')).answers).toEqual(['web.tm.internal. 20 IN A 127.0.0.1']);
    const token = readFileSync(join(dir, 'token'), 'utf8').trim();
    const res = await fetch(`http://127.0.0.1:${base + 82}/v1/profiles/web/endpoints/primary`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ endpointStatus: 'Disabled' }),
    });
    expect(res.status).toBe(200);
    await waitFor(
      async () =>
        (await Promise.all(dns.map((d) => digFull(d, 'web.tm.internal')))).every(
          (r) => r.answers[0] === 'web.tm.internal. 20 IN A 127.0.0.2',
        ),
      { what: 'all three nodes answer the backup', timeoutMs: 10_000, intervalMs: 50 },
    );
    const status = await run(['status'], env);
    expect(status.out).toMatch(/node1: running[\s\S]*node3: running/);
  } finally {
    const stopped = await run(['stop'], env);
    expect(stopped.out).toContain('cluster.sh: stopped');
    rmSync(dir, { recursive: true, force: true });
  }
  const after = await run(['status'], env);
  expect(after.out).toMatch(/etcd: not running[\s\S]*node3: not running/);
});
