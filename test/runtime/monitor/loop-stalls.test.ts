/**
 * LoopStalls (src/runtime/monitor/loop-stalls.ts) against this process's real event loop: a synchronous block
 * shows as stalled time, the stall in progress included, and an idle loop as next to none; `quiet` waits until
 * the loop has gone a while without a stall. And the real probe with it: a fast endpoint (another process)
 * probed while this process's loop is blocked is not judged slow, the block is `stalledMs`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { LoopStalls } from '../../../src/runtime/monitor/loop-stalls';
import { probe } from '../../../src/runtime/monitor/probe';
import { target } from './servers';

const busy = (ms: number): void => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* block the event loop */
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let stalls: LoopStalls;
beforeEach(() => {
  stalls = new LoopStalls();
  stalls.start();
});
afterEach(() => stalls.stop());

test('a 300 ms block counts as about 300 ms stalled, read while it is still in progress and after it', async () => {
  await sleep(50);
  const before = stalls.blockedMs();
  busy(300);
  const during = stalls.blockedMs() - before;
  expect(during).toBeGreaterThan(250);
  expect(during).toBeLessThanOrEqual(300);
  await sleep(60);
  const after = stalls.blockedMs() - before;
  expect(after).toBeGreaterThanOrEqual(during);
  expect(after).toBeLessThan(during + 40);
});

test('an idle loop stalls next to nothing, and readings never decrease', async () => {
  const readings: number[] = [];
  for (let i = 0; i < 20; i++) {
    readings.push(stalls.blockedMs());
    await sleep(10);
  }
  expect([...readings].sort((a, b) => a - b)).toEqual(readings);
  // a loaded machine may deschedule this process a little; 200 ms of idle waiting is not 200 ms of stall
  expect(readings.at(-1)! - readings[0]!).toBeLessThan(100);
});

test('quiet waits for a stall-free stretch; stopped, it resolves at once', async () => {
  busy(100);
  const t0 = performance.now();
  await stalls.quiet(100, 5000);
  expect(performance.now() - t0).toBeGreaterThanOrEqual(80);
  stalls.stop();
  const t1 = performance.now();
  await stalls.quiet(100, 5000);
  expect(performance.now() - t1).toBeLessThan(20);
  expect(stalls.blockedMs()).toBe(stalls.blockedMs());
});

describe('the probe across a stall of its own event loop', () => {
  let child: ChildProcess;
  let port: number;
  beforeAll(async () => {
    // in a process of its own: the block below must not hold the endpoint up
    const script = `require('node:http').createServer((q, r) => r.writeHead(200).end('ok'))
      .listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });`;
    child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    port = await new Promise<number>((r) => child.stdout!.setEncoding('utf8').once('data', (d: string) => r(Number(d.trim()))));
  });
  afterAll(async () => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  });

  const t = () => target({ target: '127.0.0.1', port, degradedLatencyMs: 200 });

  test('a fast endpoint probed during a 400 ms block: success, stalledMs the block, latency unknown (the prober measures again)', async () => {
    await probe(t()); // the first probe loads undici's parser: not part of what is measured below
    const pending = probe(t(), { blockedMs: () => stalls.blockedMs() });
    busy(400);
    const out = await pending;
    expect(out).toMatchObject({ ok: true, reason: 'status 200', latencyUnknown: true });
    expect(out.stalledMs).toBeGreaterThan(300);
    expect(out.latencyMs).toBeLessThan(200);
  });

  test('without the stall clock the same probe is judged slow (what every restart did before)', async () => {
    const pending = probe(t());
    busy(400);
    const out = await pending;
    expect(out).toMatchObject({ ok: false, reason: expect.stringMatching(/^slow: \d+ ms > 200 ms$/) });
    expect(out.stalledMs).toBeUndefined();
  });

  test('no stall: the endpoint is fast, nothing unknown', async () => {
    await stalls.quiet(100, 2000);
    const out = await probe(t(), { blockedMs: () => stalls.blockedMs() });
    expect(out).toMatchObject({ ok: true, reason: 'status 200' });
    expect(out.latencyUnknown).toBeUndefined();
    expect(out.latencyMs).toBeLessThan(200);
  });
});
