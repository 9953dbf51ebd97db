/**
 * The game-day walkthrough of docs/operations.md on the quick-start server, step by step, as a newcomer runs
 * it: `tmkit serve` with examples/basic, the bundled health server (restarted with --down to fail the
 * primary), `tmkit drill`, `tmkit override`, `tmkit apply examples/operations`, `tmkit endpoint failback`,
 * `tmkit shift`, `tmkit audit`, and `dig`. Real processes and real time (probes every 10 s: about two
 * minutes). Ports are free ones instead of 8080/5300/5380 (tests never bind fixed ports).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DrillReport, ProfileStatusReport } from '../../src/core/api';
import { waitFor } from '../support/wait';
import { cleanEnv, dig, REPO, runTmkit, spawnServe, type ServeProcess } from '../support/process';

jest.setTimeout(300_000);

let dir: string;
let serve: ServeProcess | undefined;
let health: ChildProcess | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-gameday-'));
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

/** examples/health-server.js on `port` (0: a free one) with `args`; resolves with its port. */
async function healthServer(port: number, args: string[] = []): Promise<number> {
  if (health && health.exitCode === null) {
    health.kill('SIGTERM');
    await new Promise((r) => health!.once('exit', r));
  }
  for (let attempt = 0; ; attempt++) {
    const got = await new Promise<number | undefined>((resolve) => {
      const child = spawn(process.execPath, [join(REPO, 'examples/health-server.js'), '--port', String(port), ...args], {
        env: cleanEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      health = child;
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const m = /on port (\d+) at/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', () => resolve(undefined));
    });
    if (got !== undefined) return got;
    if (attempt > 20) throw new Error('the health server did not start');
    await new Promise((r) => setTimeout(r, 250)); // the port is still held by the one just stopped
  }
}

function onPort(example: string, port: number): string {
  const doc = JSON.parse(readFileSync(join(REPO, 'examples', example, 'tmkit.out.json'), 'utf8')) as {
    profiles: Array<{ monitorConfig: { port: number } }>;
  };
  for (const p of doc.profiles) p.monitorConfig.port = port;
  const file = join(dir, `${example}.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

test('the game-day walkthrough: drill, override, failback, shift, audit', async () => {
  const port = await healthServer(0);
  serve = await spawnServe(join(dir, 'state'), ['--apply', onPort('basic', port)]);
  const env = { TMKIT_SERVER: serve.api, TMKIT_STATE_DIR: join(dir, 'state') };
  const tmkit = (...args: string[]) => runTmkit(args, { env });
  const web = async (): Promise<ProfileStatusReport> =>
    JSON.parse((await tmkit('status', 'web', '--format', 'json')).stdout) as ProfileStatusReport;
  await waitFor(async () => (await web()).endpoints.every((e) => e.endpointMonitorStatus === 'Online'), {
    what: 'web Online',
    timeoutMs: 60_000,
    intervalMs: 200,
  });

  // 1. A drill.
  const drill = await tmkit('drill', 'web', 'primary', '--for', '5s', '--json');
  const report = JSON.parse(drill.stdout) as DrillReport;
  expect(report).toMatchObject({ passed: true, boundSeconds: 69, bound: '10 × (2 + 1) + 9 + TTL 30 = 69 s' });
  expect((await tmkit('drill', 'list')).stdout).toContain(`${report.id}  `);

  // 2. An override, the safety rule, clearing it.
  const down = await tmkit('override', 'down', 'web', 'primary', '--for', '30m', '--reason', 'patching primary');
  expect(down.stdout).toMatch(/^Override (ov-\w+): web\/primary is out of DNS until /);
  const id = /^Override (ov-\w+)/.exec(down.stdout)![1]!;
  expect(await dig(serve.dns, 'web.tm.internal')).toEqual(['127.0.0.2']);
  expect((await tmkit('override', 'down', 'web', 'backup', '--for', '10m')).stderr).toBe(
    `tmkit: refused: taking web/backup down would leave profile web with no endpoint able to serve (left: primary (override ${id} down)); pass --force (API: "force": true) to take it out anyway\n`,
  );
  expect((await tmkit('override', 'clear', id)).code).toBe(0);
  expect(await dig(serve.dns, 'web.tm.internal')).toEqual(['127.0.0.1']);

  // 3. Manual failback.
  const applied = await tmkit('apply', onPort('operations', port), '--yes', '--no-color');
  expect(applied.stdout).toContain('+ failback: {"mode":"Manual","successesToRecover":2,"holdDownSeconds":0}');
  expect(applied.stdout).toContain('recovery after the endpoint is healthy again: manual');
  await healthServer(port, ['--down', '127.0.0.1']);
  await waitFor(async () => (await web()).endpoints[0]!.endpointMonitorStatus === 'Degraded', {
    what: 'primary Degraded',
    timeoutMs: 90_000,
    intervalMs: 500,
  });
  expect(await dig(serve.dns, 'web.tm.internal')).toEqual(['127.0.0.2']);
  await healthServer(port);
  await waitFor(async () => (await web()).endpoints[0]!.endpointMonitorStatus === 'AwaitingFailback', {
    what: 'primary AwaitingFailback',
    timeoutMs: 90_000,
    intervalMs: 500,
  });
  expect((await tmkit('status')).stdout).toMatch(/web .* 1 awaiting failback/);
  expect(await dig(serve.dns, 'web.tm.internal')).toEqual(['127.0.0.2']);
  expect((await tmkit('endpoint', 'failback', 'web', 'primary', '--reason', 'logs clean')).stdout).toBe(
    'Failed back endpoint primary of profile web: it is Online and answered again.\n',
  );
  expect(await dig(serve.dns, 'web.tm.internal')).toEqual(['127.0.0.1']);

  // 4. A staged shift.
  await waitFor(async () => JSON.parse((await tmkit('status', 'shop', '--format', 'json')).stdout).profileMonitorStatus === 'Online', {
    what: 'shop Online',
    timeoutMs: 60_000,
    intervalMs: 200,
  });
  const shift = await tmkit('shift', 'shop', 'green', '--weights', '2,4,9', '--every', '2s', '--abort-on-degraded');
  expect(shift.code).toBe(0);
  expect(shift.stdout).toContain('Shift complete: shop/green has weight 9 (configured 1)');

  // 5. The audit log.
  const audit = (await tmkit('audit')).stdout;
  for (const action of ['override.create', 'override.refuse', 'override.clear', 'failback', 'drill']) expect(audit).toContain(` ${action}`);
});
