/** `tmkit serve` cluster flags are checked before anything starts: usage errors (exit 2) naming the flag. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTmkit } from '../support/process';

const dir = mkdtempSync(join(tmpdir(), 'tmkit-serve-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each([
  [['--node', 'a'], /--node needs --store etcd:\/\/HOST:PORT \(cluster mode\)/],
  [['--store', 'etcd://127.0.0.1:1'], /cluster mode needs --node NAME .* and --location NAME/],
  [['--store', 'etcd://127.0.0.1'], /--store etcd:\/\/127\.0\.0\.1: '127\.0\.0\.1' is not HOST:PORT/],
  [['--store', 'etcd://127.0.0.1:1', '--node', 'a b'], /--node a b: 1-63 letters/],
  [['--store', 'etcd://127.0.0.1:1', '--node', 'a', '--lease-ttl', '1'], /--lease-ttl 1: whole seconds from 2 to 300/],
  [['--store', 'etcd://127.0.0.1:1', '--node', 'a', '--etcd-cert', 'c.pem'], /--etcd-cert and --etcd-key go together/],
])('serve %j → exit 2', async (args, msg) => {
  const r = await runTmkit(['serve', '--state-dir', join(dir, 's'), '--dns', '127.0.0.1:0', '--api', '127.0.0.1:0', ...args], {
    timeoutMs: 30_000,
  });
  expect(r.stderr).toMatch(msg);
  expect(r.code).toBe(2);
});

test('etcd unreachable and no local copy: exit 1 naming both, before anything listens', async () => {
  const r = await runTmkit(
    [
      'serve',
      '--state-dir',
      join(dir, 'fresh'),
      '--dns',
      '127.0.0.1:0',
      '--api',
      '127.0.0.1:0',
      '--store',
      'etcd://127.0.0.1:1',
      '--node',
      'a',
    ],
    { timeoutMs: 30_000 },
  );
  expect(r.stderr).toMatch(
    /cannot reach etcd at http:\/\/127\.0\.0\.1:1 .*no local copy of the configuration at .*cluster-cache\.json to start from; start etcd or fix --store/,
  );
  expect(r.stdout).not.toMatch(/DNS {2}UDP/);
  expect(r.code).toBe(1);
});
