/**
 * A running `tmkit serve` says where its API is in its state dir (issue 40 item 7): `<state-dir>/server.json`,
 * written atomically once the API listens and removed at a clean stop. The commands that take --server and
 * --state-dir find a server on any --api port through it, as they find its token: --server, then
 * TMKIT_SERVER, then server.json (only a loopback http:// URL, of a serve still running), then the default.
 * Real processes: serve on port 0, the CLI.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServe, type ServeProcess } from '../support/process';
import { tmkit } from './run';

jest.setTimeout(120_000);

const noServerEnv = { TMKIT_SERVER: '', TMKIT_TOKEN: '', TMKIT_STATE_DIR: '' };
let dir: string;
let serve: ServeProcess | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-server-file-'));
});
afterEach(async () => {
  if (serve && serve.child.exitCode === null && serve.child.signalCode === null) {
    serve.child.kill('SIGKILL');
    await serve.exited;
  }
  serve = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

test('clients find a serve on a random --api port through its state dir; the file goes at a clean stop', async () => {
  const state = join(dir, '.tmkit');
  serve = await spawnServe(state);
  const file = join(state, 'server.json');
  expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ url: serve.api, pid: serve.child.pid });
  const none = `No profiles on ${serve.api}.`;
  // The default state dir (.tmkit in the working directory), --state-dir, TMKIT_STATE_DIR: no --server anywhere.
  for (const [args, cwd, env] of [
    [['list'], dir, {}],
    [['status', '--state-dir', state], tmpdir(), {}],
    [['list'], tmpdir(), { TMKIT_STATE_DIR: state }],
  ] as const) {
    const r = await tmkit([...args], { cwd, env: { ...noServerEnv, ...env } });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(none);
    expect(r.code).toBe(0);
  }
  // --server and TMKIT_SERVER come first.
  const closed = `http://127.0.0.1:${await freePort()}`;
  for (const [args, env] of [
    [['list', '--server', closed], noServerEnv],
    [['list'], { ...noServerEnv, TMKIT_SERVER: closed }],
  ] as const) {
    const r = await tmkit([...args], { cwd: dir, env: { ...env } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot reach the tmkit server at ${closed} after`);
  }
  serve.child.kill('SIGTERM');
  expect(await serve.exited).toEqual({ code: 0, signal: null });
  expect(existsSync(file)).toBe(false);
});

test("a file left by a serve that died is not used, and the 'cannot reach' hint names the file a URL came from", async () => {
  const state = join(dir, '.tmkit');
  serve = await spawnServe(state);
  const stale = serve.api;
  serve.child.kill('SIGKILL');
  await serve.exited;
  expect(existsSync(join(state, 'server.json'))).toBe(true);
  const r = await tmkit(['list'], { cwd: dir, env: noServerEnv });
  expect(r.stderr).not.toContain(stale);
  expect(r.stdout).not.toContain(stale);

  // A running process (this test's), a port where nothing listens: the hint says where the URL came from.
  const closed = `http://127.0.0.1:${await freePort()}`;
  writeFileSync(join(state, 'server.json'), JSON.stringify({ url: closed, pid: process.pid, start: '' }));
  const gone = await tmkit(['list'], { cwd: dir, env: noServerEnv });
  expect(gone.code).toBe(1);
  expect(gone.stderr).toContain(`cannot reach the tmkit server at ${closed} after 4 attempts`);
  expect(gone.stderr).toContain(`Set --server or TMKIT_SERVER (${closed} is from ${join(state, 'server.json')})`);
});

test.each([
  ['http://192.0.2.1:5380', 'is not an http:// URL of a loopback address with a port'],
  ['https://127.0.0.1:5380', 'is not an http:// URL of a loopback address with a port'],
  ['http://127.0.0.1.example.com:5380', 'is not an http:// URL of a loopback address with a port'],
])('server.json naming %s is not trusted: the token goes nowhere but loopback', async (url, why) => {
  const state = join(dir, 'st');
  mkdirSync(state);
  // A process that is alive (this test's): only the URL is wrong.
  writeFileSync(join(state, 'server.json'), JSON.stringify({ url, pid: process.pid, start: '' }));
  const r = await tmkit(['list', '--state-dir', state, '--format', 'json'], { cwd: dir, env: noServerEnv });
  expect(r.stderr.split('\n')[0]).toBe(
    `tmkit: ignoring ${join(state, 'server.json')}: ${url} ${why}; using http://127.0.0.1:5380 (pass --server or set TMKIT_SERVER)`,
  );
  expect(r.stderr).not.toContain(`cannot reach the tmkit server at ${url}`);
});
