/**
 * `tmkit serve`'s own checks of its token and state dir (issue 28 item 10), with the real command:
 * - `TMKIT_TOKEN` shorter than 16 characters is refused with one line (exit 2) before anything is created;
 * - an existing state dir others may enter (mode 0777) is made 0700, and serve says so on stderr.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { oneLine } from '../../cli/run';
import { runTmkit, spawnServe } from '../../support/process';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-state-checks-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('TMKIT_TOKEN shorter than 16 characters: one line, exit 2, no state dir', async () => {
  const state = join(dir, 'short-token');
  const r = await runTmkit(['serve', '--state-dir', state, '--dns', '127.0.0.1:0', '--api', '127.0.0.1:0'], {
    env: { TMKIT_TOKEN: 'secret' },
    timeoutMs: 30_000,
  });
  expect(oneLine(r.stderr)).toBe(
    'tmkit: serve: TMKIT_TOKEN is 6 characters long; the API token needs at least 16 ' +
      '(make one with `openssl rand -base64 32`, or unset TMKIT_TOKEN and tmkit serve generates one in <state-dir>/token)',
  );
  expect(r.code).toBe(2);
  expect(existsSync(state)).toBe(false);
}, 60_000);

test('an existing state dir with mode 0777 is tightened to 0700, and serve says so', async () => {
  const state = join(dir, 'open');
  mkdirSync(state);
  chmodSync(state, 0o777);
  const p = await spawnServe(state, [], { TMKIT_TOKEN: 'a-token-of-sixteen+' });
  try {
    expect(statSync(state).mode & 0o777).toBe(0o700);
    expect(p.stderr()).toContain(
      `tmkit serve: the state dir ${state} had mode 0777, open to other users; changed it to 0700 (it holds the API token and the store)\n`,
    );
  } finally {
    p.child.kill('SIGTERM');
    await p.closed;
  }
  expect(await p.exited).toEqual({ code: 0, signal: null });
}, 120_000);
