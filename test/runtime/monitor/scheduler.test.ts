/** Scheduling logic only, on fake timers: immediate first run, phase spread, interval, concurrency, removal. */
import fc from 'fast-check';
import { Scheduler, hashPhase } from '../../../src/runtime/monitor/scheduler';
import { FakeTimers, deferred, flush } from './fake-timers';

function recorder(timers: FakeTimers, work: (key: string) => Promise<void> = async () => {}) {
  const runs: Array<{ key: string; at: number; generation: number }> = [];
  const run = (key: string, generation: number) => {
    runs.push({ key, at: timers.now(), generation });
    return work(key);
  };
  return { runs, run };
}

test('every key runs at once on start, then at the first slot of its phase one interval later, then every interval', async () => {
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
  expect(runs.map((r) => [r.key, r.at])).toEqual([
    ['a', 0],
    ['b', 0],
    ['c', 0],
  ]);
  await timers.advance(3000);
  const times = (k: string) => runs.filter((r) => r.key === k).map((r) => r.at);
  // never a second run inside the first interval (that used up tolerated failures early)
  expect(times('a')).toEqual([0, 1250, 2250]);
  expect(times('b')).toEqual([0, 1500, 2500]);
  expect(times('c')).toEqual([0, 1000, 2000, 3000]);
  await s.stop();
  expect(timers.pendingCount).toBe(0);
});

test('gaps: at least the interval, under two intervals after the first run, then exactly the interval', async () => {
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
    expect(at.length).toBeGreaterThanOrEqual(5);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(10_000);
    expect(at[1]! - at[0]!).toBeLessThan(20_000);
    for (let i = 2; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBe(10_000);
  }
  await s.stop();
});

test('jitter: 10,000 keys with the default phase spread evenly over the interval', async () => {
  const timers = new FakeTimers();
  const { runs, run } = recorder(timers);
  const s = new Scheduler({ run, timers, concurrency: 100_000 });
  for (let i = 0; i < 10_000; i++) s.schedule(`p${i % 7}/endpoint-${i}`, 10_000);
  s.start();
  await timers.advance(19_999);
  // the second round of runs (one interval after the first, at each key's phase), in 1-second buckets:
  // about 1,000 each (no lockstep burst)
  const buckets = new Array<number>(10).fill(0);
  for (const r of runs) if (r.at > 0) buckets[Math.floor((r.at - 10_000) / 1000)]!++;
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
  for (const v of vals) {
    expect(v).toBeGreaterThanOrEqual(0);
    expect(v).toBeLessThan(1);
  }
});

test('bounded concurrency: never more than N running, the rest start as others finish (FIFO)', async () => {
  const timers = new FakeTimers();
  const gates = new Map<string, ReturnType<typeof deferred>>();
  let running = 0;
  let maxRunning = 0;
  const started: string[] = [];
  const s = new Scheduler({
    timers,
    concurrency: 3,
    run: async (key) => {
      started.push(key);
      running++;
      maxRunning = Math.max(maxRunning, running);
      const g = deferred();
      gates.set(key, g);
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
  await timers.advance(3600); // slots at 1500, 2500, 3500 all skipped
  expect(runs.map((r) => r.at)).toEqual([0]);
  expect(s.stats().skipped).toBe(3);
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
  expect(runs.map((r) => [r.at, r.generation])).toEqual([
    [0, g1],
    [2000, g2],
  ]);
  await timers.advance(60_000);
  // after the immediate run at 2000: the first slot of phase 0.5 (15,000 mod 30,000) at or after 32,000
  expect(runs.map((r) => r.at)).toEqual([0, 2000, 45_000]);
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
    run: (_k, _g, signal) =>
      new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => {
          aborted++;
          setImmediate(() => {
            finished++;
            resolve();
          });
        });
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

// ---------------------------------------------------------------------------------------------------
// Spacing properties (toleratedNumberOfFailures counts probes one interval apart, also right after a
// create, a re-enable or a settings change)

type Op =
  | { kind: 'schedule'; key: number; interval: number }
  | { kind: 'remove'; key: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'start' };

const INTERVALS = [1000, 1500, 2000, 5000, 10_000];
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('schedule' as const), key: fc.nat(4), interval: fc.constantFrom(...INTERVALS) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), key: fc.nat(4) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 25_000 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'start' as const }) },
);

/** Runs per generation, with the generation's interval. */
function byGeneration(runs: Array<{ key: string; at: number; generation: number }>, intervals: Map<number, number>) {
  const out = new Map<number, { interval: number; at: number[] }>();
  for (const r of runs) {
    let g = out.get(r.generation);
    if (!g) {
      g = { interval: intervals.get(r.generation)!, at: [] };
      out.set(r.generation, g);
    }
    g.at.push(r.at);
  }
  return out;
}

test('property: instant jobs, random create/re-schedule/remove/start times and phases: every gap is in [interval, 2 × interval]', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 5, maxLength: 5 }),
      fc.integer({ min: 0, max: 10_000 }),
      fc.array(opArb, { minLength: 1, maxLength: 30 }),
      async (phases, startAt, ops) => {
        const timers = new FakeTimers();
        await timers.advance(startAt);
        const { runs, run } = recorder(timers);
        const s = new Scheduler({ run, timers, phase: (k) => phases[Number(k.slice(1))]! });
        const intervals = new Map<number, number>();
        const live = new Map<number, { generation: number; interval: number; since: number }>();
        let started = false;
        const doStart = () => {
          if (started) return;
          started = true;
          s.start();
          for (const l of live.values()) l.since = timers.now();
        };
        for (const op of [...ops, { kind: 'advance', ms: 25_000 } as Op]) {
          if (op.kind === 'schedule') {
            const g = s.schedule(`k${op.key}`, op.interval);
            intervals.set(g, op.interval);
            live.set(op.key, { generation: g, interval: op.interval, since: timers.now() });
          } else if (op.kind === 'remove') {
            s.remove(`k${op.key}`);
            live.delete(op.key);
          } else if (op.kind === 'start') {
            doStart();
          } else {
            await timers.advance(op.ms);
          }
        }
        doStart();
        await timers.advance(25_000);
        const end = timers.now();
        for (const [gen, g] of byGeneration(runs, intervals)) {
          for (let i = 1; i < g.at.length; i++) {
            const gap = g.at[i]! - g.at[i - 1]!;
            expect({ gen, gap, interval: g.interval, ok: gap >= g.interval && gap <= 2 * g.interval }).toMatchObject({ ok: true });
            if (i >= 2) expect(gap).toBe(g.interval); // after the first gap the phase is kept exactly
          }
        }
        // and every live key is still being run: its last run is less than two intervals old
        for (const l of live.values()) {
          const at = runs.filter((r) => r.generation === l.generation).map((r) => r.at);
          expect(at[0]).toBe(l.since); // the first run comes at once (create, re-schedule or start)
          expect(end - at[at.length - 1]!).toBeLessThan(2 * l.interval);
        }
        await s.stop();
      },
    ),
    { numRuns: 150 },
  );
});

test('property: slow jobs and a small concurrency limit (queueing, skipped slots): runs are still never closer than the interval', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 5, maxLength: 5 }),
      fc.integer({ min: 1, max: 3 }),
      fc.array(fc.integer({ min: 0, max: 1400 }), { minLength: 5, maxLength: 5 }),
      fc.array(opArb, { minLength: 1, maxLength: 25 }),
      async (phases, concurrency, durations, ops) => {
        const timers = new FakeTimers();
        const runs: Array<{ key: string; at: number; generation: number }> = [];
        const s = new Scheduler({
          timers,
          concurrency,
          phase: (k) => phases[Number(k.slice(1))]!,
          run: (key, generation, signal) => {
            runs.push({ key, at: timers.now(), generation });
            return new Promise<void>((r) => {
              timers.setTimeout(r, durations[Number(key.slice(1))]!);
              signal.addEventListener('abort', () => r(), { once: true }); // stop() aborts and waits
            });
          },
        });
        const intervals = new Map<number, number>();
        s.start();
        for (const op of [...ops, { kind: 'advance', ms: 30_000 } as Op]) {
          if (op.kind === 'schedule') intervals.set(s.schedule(`k${op.key}`, op.interval), op.interval);
          else if (op.kind === 'remove') s.remove(`k${op.key}`);
          else if (op.kind === 'advance') await timers.advance(op.ms);
        }
        for (const [gen, g] of byGeneration(runs, intervals)) {
          for (let i = 1; i < g.at.length; i++) {
            expect({ gen, gap: g.at[i]! - g.at[i - 1]!, atLeast: g.interval, ok: g.at[i]! - g.at[i - 1]! >= g.interval }).toMatchObject({
              ok: true,
            });
          }
        }
        await s.stop();
      },
    ),
    { numRuns: 100 },
  );
});
