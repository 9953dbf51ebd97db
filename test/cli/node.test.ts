import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { dig, runTmkit, spawnServe, type ServeProcess } from '../support/process';

/**
 * `tmkit node drain|undrain|status` against a real `tmkit serve`: the drain fails `/readyz` with who and why
 * while DNS answers, undrain puts it back, and a restart comes back ready (the drain lives in memory).
 */
let dir: string;
let proc: ServeProcess | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-node-'));
});
afterEach(async () => {
  if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
  proc = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function readyz(api: string): Promise<{ status: number; text: string }> {
  const r = await request(`${api}/readyz`);
  return { status: r.statusCode, text: await r.body.text() };
}

test('drain, status, undrain; a restarted node is ready again', async () => {
  const state = join(dir, 'state');
  proc = await spawnServe(state);
  const cli = (args: string[]) => runTmkit(['node', ...args], { env: { TMKIT_SERVER: proc!.api, TMKIT_STATE_DIR: state } });

  expect(await cli(['status'])).toMatchObject({ code: 0, stdout: 'ready\n' });
  const drained = await cli(['drain', '--reason', 'rack move', '--who', 'ops']);
  expect(drained.code).toBe(0);
  expect(drained.stdout).toMatch(/^draining: draining \(tmkit node drain at \S+Z by ops: rack move\)\n$/);
  expect((await cli(['status'])).stdout).toBe(drained.stdout);
  const r = await readyz(proc.api);
  expect(r.status).toBe(503);
  expect(r.text).toMatch(/^draining \(tmkit node drain at \S+ by ops: rack move\)\n$/);
  expect((await dig(proc.dns, 'tm.internal', 'SOA')).length).toBe(1);

  expect(await cli(['undrain'])).toMatchObject({ code: 0, stdout: 'ready\n' });
  expect(await readyz(proc.api)).toEqual({ status: 200, text: 'ready\n' });

  // Drained again, then restarted: back in rotation by itself.
  expect((await cli(['drain'])).code).toBe(0);
  proc.child.kill('SIGTERM');
  expect(await proc.exited).toEqual({ code: 0, signal: null });
  proc = await spawnServe(state);
  expect(await readyz(proc.api)).toEqual({ status: 200, text: 'ready\n' });
  expect(await cli(['status', '--json'])).toMatchObject({ code: 0 });
}, 120_000);
