/** Scheduling logic only, on fake timers: immediate first run, phase spread, interval, concurrency, removal. */
import { Scheduler, hashPhase } from '../../../src/runtime/monitor/scheduler';
import { FakeTimers, deferred, flush } from './fake-timers';

function recorder(timers: FakeTimers, work: (key: string) => Promise<void> = async () => {}) {
  const runs: Array<{ key: string; at: number; generation: number }> = [];
  const run = (key: string, generation: number) => { runs.push({ key, at: timers.now(), generation }); return work(key); };
  return { runs, run };
}

test('every key runs at once on start, then at its phase, then every interval', async () => {
  const timers = new FakeTimers();
  const { runs, run } = recorder(timers);
  const phases: Record<string, number> = { a: 0.25, b: 0.5, c: 0 };
  const s = new Scheduler({ run, timers, phase: (k) => phases[k]! });
  s.schedule('a', 1000);
  s.schedule('b', 1000);
  s.schedule('c', 1000);
  await flush();
  expect(runs).toEqual([]); // nothing before start
  s.start();
  await flush();
  expect(runs.map((r) => [r.key, r.at])).toEqual([['a', 0], ['b', 0], ['c', 0]]);
  await timers.advance(3000);
  const times = (k: string) => runs.filter((r) => r.key === k).map((r) => r.at);
  expect(times('a')).toEqual([0, 250, 1250, 2250]);
  expect(times('b')).toEqual([0, 500, 1500, 2500]);
  expect(times('c')).toEqual([0, 1000, 2000, 3000]); // phase 0: a full interval, never a double run
  await s.stop();
  expect(timers.pendingCount).toBe(0);
});

test('the gap between two runs never exceeds the interval', async () => {
  const timers = new FakeTimers();
  const { runs, run } = recorder(timers);
  const s = new Scheduler({ run, timers });
  const keys = Array.from({ length: 200 }, (_, i) => `profile/ep-${i}`);
  for (const k of keys) s.schedule(k, 10_000);
  s.start();
  await timers.advance(60_000);
  for (const k of keys) {
    const at = runs.filter((r) => r.key === k).map((r) => r.at);
    expect(at[0]).toBe(0);
    expect(at.length).toBeGreaterThanOrEqual(6);
    for (let i = 1; i < at.length; i++) {
      expect(at[i]! - at[i - 1]!).toBeGreaterThan(0);
      expect(at[i]! - at[i - 1]!).toBeLessThanOrEqual(10_000);
    }
  }
  await s.stop();
});

test('jitter: 10,000 keys with the default phase spread evenly over the interval', async () => {
  const timers = new FakeTimers();
  const { runs, run } = recorder(timers);
  const s = new Scheduler({ run, timers, concurrency: 100_000 });
  for (let i = 0; i < 10_000; i++) s.schedule(`p${i % 7}/endpoint-${i}`, 10_000);
  s.start();
  await timers.advance(9_999);
  // the second round of runs, in 1-second buckets: about 1,000 each (no lockstep burst)
  const buckets = new Array<number>(10).fill(0);
  for (const r of runs) if (r.at > 0) buckets[Math.floor(r.at / 1000)]!++;
  expect(buckets.reduce((a, b) => a + b, 0)).toBeGreaterThan(9_900);
  for (const b of buckets) {
    expect(b).toBeGreaterThan(850);
    expect(b).toBeLessThan(1150);
  }
  // and no single millisecond has more than a handful
  const perMs = new Map<number, number>();
  for (const r of runs) if (r.at > 0) perMs.set(r.at, (perMs.get(r.at) ?? 0) + 1);
  expect(Math.max(...perMs.values())).toBeLessThan(12);
  await s.stop();
});

test('hashPhase is deterministic, in [0,1), and differs for near-identical keys', () => {
  expect(hashPhase('p/e1')).toBe(hashPhase('p/e1'));
  const vals = ['p/e1', 'p/e2', 'p/e3', 'q/e1'].map(hashPhase);
  expect(new Set(vals).size).toBe(4);
  for (const v of vals) { expect(v).toBeGreaterThanOrEqual(0); expect(v).toBeLessThan(1); }
});

test('bounded concurrency: never more than N running, the rest start as others finish (FIFO)', async () => {
  const timers = new FakeTimers();
  const gates = new Map<string, ReturnType<typeof deferred>>();
  let running = 0;
  let maxRunning = 0;
  const started: string[] = [];
  const s = new Scheduler({
    timers, concurrency: 3,
    run: async (key) => {
      started.push(key);
      running++; maxRunning = Math.max(maxRunning, running);
      const g = deferred(); gates.set(key, g);
      await g.promise;
      running--;
    },
  });
  for (let i = 0; i < 10; i++) s.schedule(`k${i}`, 60_000);
  s.start();
  await flush();
  expect(started).toEqual(['k0', 'k1', 'k2']);
  expect(s.stats()).toMatchObject({ running: 3, queued: 7 });
  gates.get('k1')!.resolve();
  await flush();
  expect(started).toEqual(['k0', 'k1', 'k2', 'k3']);
  for (let round = 0; round < 10; round++) {
    for (const [k, g] of gates) if (started.includes(k)) g.resolve();
    await flush();
  }
  expect(started).toHaveLength(10);
  expect(maxRunning).toBe(3);
  await s.stop();
});

test('a slot that comes while the previous run is still running is skipped, not piled up', async () => {
  const timers = new FakeTimers();
  const gate = deferred();
  const { runs, run } = recorder(timers, () => gate.promise);
  const s = new Scheduler({ run, timers, phase: () => 0.5 });
  s.schedule('slow', 1000);
  s.start();
  await timers.advance(3600); // slots at 500, 1500, 2500, 3500 all skipped
  expect(runs.map((r) => r.at)).toEqual([0]);
  expect(s.stats().skipped).toBe(4);
  gate.resolve();
  await timers.advance(1000);
  expect(runs.map((r) => r.at)).toEqual([0, 4500]);
  await s.stop();
});

test('re-scheduling a key (new settings) runs it at once with a new generation', async () => {
  const timers = new FakeTimers();
  const { runs, run } = recorder(timers);
  const s = new Scheduler({ run, timers, phase: () => 0.5 });
  const g1 = s.schedule('k', 10_000);
  s.start();
  await timers.advance(2000);
  const g2 = s.schedule('k', 30_000);
  await flush();
  expect(g2).toBeGreaterThan(g1);
  expect(runs.map((r) => [r.at, r.generation])).toEqual([[0, g1], [2000, g2]]);
  await timers.advance(60_000);
  expect(runs.map((r) => r.at)).toEqual([0, 2000, 17_000, 47_000]);
  expect(s.generationOf('k')).toBe(g2);
  await s.stop();
});

test('a key added after start runs at once; a removed key never runs again, even if it was queued', async () => {
  const timers = new FakeTimers();
  const gate = deferred();
  const { runs, run } = recorder(timers, (k) => (k === 'blocker' ? gate.promise : Promise.resolve()));
  const s = new Scheduler({ run, timers, concurrency: 1, phase: () => 0.5 });
  s.start();
  s.schedule('blocker', 1000);
  s.schedule('queued', 1000);
  await flush();
  expect(runs.map((r) => r.key)).toEqual(['blocker']);
  s.remove('queued');
  expect(s.has('queued')).toBe(false);
  gate.resolve();
  await timers.advance(5000);
  expect(runs.filter((r) => r.key === 'queued')).toEqual([]);
  expect(runs.filter((r) => r.key === 'blocker').length).toBeGreaterThan(3);
  s.remove('blocker');
  const n = runs.length;
  await timers.advance(5000);
  expect(runs.length).toBe(n);
  expect(timers.pendingCount).toBe(0);
  await s.stop();
});

test('stop aborts running jobs, waits for them, and leaves no timers', async () => {
  const timers = new FakeTimers();
  let aborted = 0;
  let finished = 0;
  const s = new Scheduler({
    timers,
    run: (_k, _g, signal) => new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => { aborted++; setImmediate(() => { finished++; resolve(); }); });
    }),
  });
  for (let i = 0; i < 5; i++) s.schedule(`k${i}`, 1000);
  s.start();
  await flush();
  expect(s.stats().running).toBe(5);
  await s.stop();
  expect(aborted).toBe(5);
  expect(finished).toBe(5);
  expect(timers.pendingCount).toBe(0);
  expect(s.stats().running).toBe(0);
});
