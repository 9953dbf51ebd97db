/**
 * One `tmkit shift` per endpoint at a time (issue 40 item 0), held by the server (`/v1/shifts`), so it holds
 * across processes and machines: real `tmkit shift` processes against a real `tmkit serve` process. A second
 * shift of the same endpoint is refused (exit 1) naming the holder (who, since when, the weights it steps
 * through) and what to do; `--cancel` stops a running shift from anywhere (it rolls back); the lease of a
 * shift whose process died (SIGKILL: no roll-back, no release) lapses by itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../src/client';
import type { AuditEntry } from '../../src/core/api';
import { BIN, cleanEnv, runTmkit, spawnServe, type ServeProcess } from '../support/process';
import { waitFor } from '../support/wait';

jest.setTimeout(120_000);

let dir: string;
let serve: ServeProcess;
let client: TmkitClient;
const started: ChildProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-shift-lock-'));
  serve = await spawnServe(dir);
  client = new TmkitClient({ server: serve.api, token: readFileSync(join(dir, 'token'), 'utf8').trim(), env: {} });
  await client.putProfile({
    name: 'web',
    trafficRoutingMethod: 'Weighted',
    dnsConfig: { relativeName: 'web', ttl: 0 },
    monitorConfig: { protocol: 'TCP', port: 9, intervalInSeconds: 30, timeoutInSeconds: 10, toleratedNumberOfFailures: 3 },
    endpoints: [
      { name: 'primary', type: 'externalEndpoints', target: '192.0.2.1', weight: 1, alwaysServe: 'Enabled' },
      { name: 'backup', type: 'externalEndpoints', target: '192.0.2.2', weight: 1, alwaysServe: 'Enabled' },
    ],
  });
}, 120_000);

afterEach(async () => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const o of (await client.listOverrides()).overrides) await client.clearOverride(o.id).catch(() => undefined);
});

afterAll(async () => {
  await client?.close();
  if (serve) {
    serve.child.kill('SIGTERM');
    await serve.closed;
  }
  rmSync(dir, { recursive: true, force: true });
});

const server = (): string[] => ['--server', serve.api, '--state-dir', dir];
const cli = (args: string[]) => runTmkit([...args, ...server()], { timeoutMs: 60_000 });

interface Running {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  done: Promise<number | null>;
}

/** A `tmkit shift` left running (its output read as it comes). */
function startShift(args: string[]): Running {
  const child = spawn(process.execPath, [BIN, 'shift', 'web', 'backup', ...args, ...server()], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const done = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, out: () => out, err: () => err, done };
}

const stepped = (r: Running, step: string) =>
  waitFor(async () => r.out().includes(`Step ${step}:`) || r.child.exitCode !== null, {
    what: `step ${step}`,
    timeoutMs: 30_000,
    intervalMs: 50,
  });

const weightNow = async (): Promise<number | undefined> =>
  (await client.listOverrides()).overrides.find((o) => o.kind === 'weight' && o.endpoint === 'backup')?.weight;

test('a second shift of the same endpoint is refused, naming the holder and what to do; the first ends as it said', async () => {
  const first = startShift(['--weights', '2,7', '--every', '10s', '--who', 'alice', '--hold', '10m']);
  await stepped(first, '1/2');
  const second = await cli(['shift', 'web', 'backup', '--weights', '4,8', '--every', '1s', '--who', 'bob']);
  expect(second.code).toBe(1);
  expect(second.stdout).toBe('');
  expect(second.stderr).toMatch(
    /^tmkit: a shift of web\/backup is running: by alice since \S+Z, weights 2,7 \(at step 1\/2, weight 2\); wait for it to end \(its last step is due by \S+Z\), or stop it: tmkit shift web backup --cancel \(it rolls back\); if its process is gone, the hold lapses by \S+Z\n$/,
  );
  // Nothing of the refused shift reached the server: the first one's weight is in force.
  expect(await weightNow()).toBe(2);
  expect(await first.done).toBe(0);
  expect(first.out()).toMatch(/Shift complete: web\/backup has weight 7 /);
  expect(await weightNow()).toBe(7);
  // The lease ends with the shift: the next one may start at once.
  const next = await cli(['shift', 'web', 'backup', '--weights', '3', '--every', '1s', '--who', 'bob', '--hold', '10m']);
  expect(next).toMatchObject({ code: 0, stderr: '' });
  expect(await weightNow()).toBe(3);
  const audit = (await client.audit(20)).entries as AuditEntry[];
  expect(audit.filter((e) => e.action.startsWith('shift')).map((e) => [e.action, e.who])).toEqual([
    ['shift.end', 'bob'],
    ['shift.start', 'bob'],
    ['shift.end', 'alice'],
    ['shift.refuse', 'bob'],
    ['shift.start', 'alice'],
  ]);
});

test('two shifts started at the same moment: exactly one runs', async () => {
  const a = startShift(['--weights', '2,7', '--every', '2s', '--who', 'alice']);
  const b = startShift(['--weights', '4,8', '--every', '2s', '--who', 'bob']);
  const codes = await Promise.all([a.done, b.done]);
  expect([...codes].sort()).toEqual([0, 1]);
  const [won, lost] = codes[0] === 0 ? [a, b] : [b, a];
  expect(lost.out()).toBe('');
  expect(lost.err()).toMatch(/^tmkit: a shift of web\/backup is running: by (alice|bob) since /);
  expect(won.out()).toMatch(/Shift complete: web\/backup has weight (7|8) /);
  expect(await weightNow()).toBe(won === a ? 7 : 8);
});

test('--cancel stops a running shift from another process: it rolls back and exits 1 saying who cancelled it', async () => {
  const first = startShift(['--weights', '2,7', '--every', '60s', '--who', 'alice']);
  await stepped(first, '1/2');
  const cancel = await cli(['shift', 'web', 'backup', '--cancel', '--who', 'bob', '--reason', 'wrong endpoint']);
  expect(cancel).toMatchObject({ code: 0, stderr: '' });
  expect(cancel.stdout).toMatch(/^Cancelled the shift of web\/backup by alice \(since \S+Z, weights 2,7\); it rolls back\.\n$/);
  expect(await first.done).toBe(1);
  expect(first.err()).toMatch(
    /^tmkit: shift of web\/backup rolled back: cancelled by bob \(wrong endpoint\) during step 1\/2; its weight is 1 again \(the configured one\)\n$/,
  );
  expect(await weightNow()).toBeUndefined();
  // Nothing left to cancel.
  const again = await cli(['shift', 'web', 'backup', '--cancel']);
  expect(again.code).toBe(1);
  expect(again.stderr).toBe('tmkit: no shift of web/backup is running\n');
});

test('the lease of a shift whose process died lapses by itself: refused at once, accepted once it lapsed', async () => {
  const first = startShift(['--weights', '2,7', '--every', '60s', '--who', 'alice']);
  await stepped(first, '1/2');
  first.child.kill('SIGKILL');
  await first.done;
  const refused = await cli(['shift', 'web', 'backup', '--weights', '4', '--every', '1s', '--who', 'bob']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/by alice since .*if its process is gone, the hold lapses by \S+Z\n$/);
  const t0 = Date.now();
  const ok = await waitFor(
    async () => {
      const r = await cli(['shift', 'web', 'backup', '--weights', '4', '--every', '1s', '--who', 'bob', '--hold', '10m']);
      return r.code === 0 ? r : undefined;
    },
    { what: 'the dead shift lapsed', timeoutMs: 40_000, intervalMs: 1000 },
  );
  expect(ok.stdout).toMatch(/Shift complete: web\/backup has weight 4 /);
  expect(Date.now() - t0).toBeLessThan(30_000);
  expect(await weightNow()).toBe(4);
});
