/**
 * Issue 16 item 6: the examples run side by side on one server and are healthy on a machine with no
 * internet. examples/nested has its own stack (applying it never plans examples/basic's `web` away) and
 * loopback targets that examples/health-server.js answers on. Real processes: `tmkit serve`, `tmkit apply`,
 * the shipped health server, `dig`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProfileStatusReport } from '../../src/client';
import { waitFor } from '../support/wait';
import { cleanEnv, dig, REPO, runTmkit, spawnServe, type ServeProcess } from '../support/process';

jest.setTimeout(120_000);

let dir: string;
let serve: ServeProcess | undefined;
let health: ChildProcess | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-examples-'));
});
afterAll(async () => {
  for (const p of [health, serve?.child]) {
    if (p && p.exitCode === null) {
      p.kill('SIGTERM');
      await new Promise((r) => p.once('exit', r));
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Starts examples/health-server.js on a port free on all its addresses; resolves with that port. */
function startHealthServer(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'examples/health-server.js'), '--port', '0'], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    health = child;
    let out = '';
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m =
        /answers 200 on port (\d+) at 127\.0\.0\.1, 127\.0\.0\.2, 127\.0\.0\.11, 127\.0\.0\.21, 127\.0\.0\.22, 127\.0\.0\.31\n/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`health-server exited (${code}): ${out}${err}`)));
  });
}

/** The example's committed document, probing `port` instead of 8080 (tests never bind fixed ports). */
function onPort(example: string, port: number): string {
  const doc = JSON.parse(readFileSync(join(REPO, 'examples', example, 'tmkit.out.json'), 'utf8')) as {
    profiles: Array<{ monitorConfig: { port: number } }>;
  };
  for (const p of doc.profiles) {
    expect(p.monitorConfig.port).toBe(8080);
    p.monitorConfig.port = port;
  }
  const file = join(dir, `${example}.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

test('basic and nested deploy side by side and every endpoint goes Online with the bundled health server', async () => {
  const port = await startHealthServer();
  serve = await spawnServe(join(dir, 'state'));
  const env = { TMKIT_SERVER: serve.api, TMKIT_STATE_DIR: join(dir, 'state') };

  const basic = await runTmkit(['apply', onPort('basic', port), '--yes'], { env });
  expect(basic.code).toBe(0);
  const nested = await runTmkit(['apply', onPort('nested', port), '--yes'], { env });
  expect(nested.stderr).toBe('');
  expect(nested.code).toBe(0);
  // Its own stack: nothing of stack "default" is planned away.
  expect(nested.stdout).toContain('tmkit plan for stack "nested"');
  expect(nested.stdout).toContain('Plan: 2 to add, 0 to change, 0 to replace, 0 to destroy.');

  const list = await runTmkit(['list', '--format', 'json'], { env });
  expect(
    (JSON.parse(list.stdout) as { profiles: Array<{ name: string; stack: string }> }).profiles.map((p) => `${p.name}@${p.stack}`).sort(),
  ).toEqual(['app-westeurope@nested', 'app@nested', 'web@default']);

  for (const name of ['web', 'app', 'app-westeurope']) {
    await waitFor(
      async () => {
        const s = await runTmkit(['status', name, '--format', 'json'], { env });
        if (s.code !== 0) return false;
        const r = JSON.parse(s.stdout) as ProfileStatusReport;
        return r.profileMonitorStatus === 'Online' && r.endpoints.every((e) => e.endpointMonitorStatus === 'Online') ? r : false;
      },
      { what: `${name}: every endpoint Online`, timeoutMs: 60_000, intervalMs: 200 },
    );
  }
  const web = JSON.parse((await runTmkit(['status', 'web', '--format', 'json'], { env })).stdout) as ProfileStatusReport;
  expect(web.endpoints.map((e) => e.lastProbe?.reason)).toEqual(['status 200', 'status 200']);
  expect(await dig(serve.dns, 'web.tm.internal')).toEqual(['127.0.0.1']);
  // The Performance parent answers a loopback address (127.0.0.1 has no location: an even split of regions).
  expect(['127.0.0.11', '127.0.0.21', '127.0.0.22', '127.0.0.31']).toContain((await dig(serve.dns, 'app.tm.internal'))[0]);
});
