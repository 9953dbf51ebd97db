/**
 * One `tmkit serve` per state dir (issue 11 §2.1): a second one on the same --state-dir refuses at start,
 * naming the holder's pid; the lock is the OS's, so it goes away with the process, however it dies.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { runTmkit, spawnServe, type ServeProcess } from '../../support/process';
import { tempDirs } from '../../support/tmp';

const running: ServeProcess[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) {
    s.child.kill('SIGKILL');
    await s.exited;
  }
});
const tempDir = tempDirs('tmkit-lock-');

const serveArgs = (dir: string, extra: string[] = []): string[] => [
  'serve',
  '--state-dir',
  dir,
  '--dns',
  '127.0.0.1:0',
  '--api',
  '127.0.0.1:0',
  '--log-level',
  'warn',
  ...extra,
];

async function healthy(api: string): Promise<number> {
  const res = await request(`${api}/healthz`);
  await res.body.text();
  return res.statusCode;
}

test("a second serve on the same --state-dir exits 1 naming the first one's pid; the first keeps serving", async () => {
  const dir = join(tempDir(), 'state');
  const first = await spawnServe(dir);
  running.push(first);
  const second = await runTmkit(serveArgs(dir), { timeoutMs: 30_000 });
  expect(second.code).toBe(1);
  expect(second.stderr).toContain(
    `tmkit: serve: the state dir ${dir} is in use by another tmkit serve (pid ${first.child.pid}); stop it or pass another --state-dir`,
  );
  expect(second.stdout).not.toContain('DNS  UDP+TCP'); // it never listened
  expect(await healthy(first.api)).toBe(200);
  // The refused process changed nothing: the first one still holds the lock.
  const third = await runTmkit(serveArgs(dir), { timeoutMs: 30_000 });
  expect(third.code).toBe(1);
  expect(third.stderr).toContain(`(pid ${first.child.pid})`);
}, 120_000);

test('the lock dies with its process: after SIGKILL the next serve starts (no stale lock file to delete)', async () => {
  const dir = tempDir();
  const first = await spawnServe(dir);
  first.child.kill('SIGKILL');
  await first.exited;
  expect(existsSync(join(dir, 'tmkit.lock'))).toBe(true); // the file stays; only the OS lock went away
  const next = await spawnServe(dir);
  running.push(next);
  expect(await healthy(next.api)).toBe(200);
}, 120_000);

test('a clean stop releases the lock; another state dir is never blocked', async () => {
  const dir = tempDir();
  const first = await spawnServe(dir);
  const other = await spawnServe(tempDir());
  running.push(other);
  first.child.kill('SIGTERM');
  expect((await first.exited).code).toBe(0);
  const again = await spawnServe(dir);
  running.push(again);
  expect(await healthy(again.api)).toBe(200);
}, 120_000);

test('--workers 2: the DNS worker processes do not trip over the lock, and a second serve is still refused', async () => {
  const dir = tempDir();
  const first = await spawnServe(dir, ['--workers', '2']);
  running.push(first);
  expect(await healthy(first.api)).toBe(200);
  const second = await runTmkit(serveArgs(dir, ['--workers', '2']), { timeoutMs: 30_000 });
  expect(second.code).toBe(1);
  expect(second.stderr).toContain(`is in use by another tmkit serve (pid ${first.child.pid})`);
}, 120_000);
