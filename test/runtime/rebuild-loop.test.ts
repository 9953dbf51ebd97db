import fc from 'fast-check';
import { RebuildLoop } from '../../src/runtime/rebuild-loop';

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * The loop's promise: whatever mix of requests, synchronous steps, asynchronous steps, failing steps and
 * requests made from inside a step, once the loop is idle every requested change has been taken by a step
 * that succeeded — nothing waits forever, nothing spins.
 */
test('property: every request is served by a later successful step, for any mix of step kinds', async () => {
  const stepKind = fc.constantFrom('sync', 'async', 'throw-once', 'request-inside');
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ kind: stepKind, gapTurns: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 25 }),
      async (plan) => {
        let wanted = 0; // changes requested so far
        let taken = 0; // changes taken by the step that is running
        let served = 0; // changes covered by a successful step
        let steps = 0;
        const failedOnce = new Set<number>();
        let current = plan[0]!.kind;
        let index = 0;
        const requestedInside = new Set<number>();
        const loop = new RebuildLoop({
          hasPending: () => wanted > served,
          retryDelayMs: () => 1,
          onError: () => undefined,
          step: () => {
            steps++;
            if (steps > 10_000) throw new Error('spinning');
            taken = wanted;
            const finish = (): void => {
              served = Math.max(served, taken);
            };
            switch (current) {
              case 'sync':
                finish();
                return;
              case 'throw-once':
                if (!failedOnce.has(taken)) {
                  failedOnce.add(taken);
                  throw new Error('injected');
                }
                finish();
                return;
              case 'request-inside':
                // A change that arrives while the step runs (as setTargets() emits a transition mid-rebuild).
                if (!requestedInside.has(index)) {
                  requestedInside.add(index);
                  wanted++;
                  loop.request();
                }
                finish();
                return;
              default:
                return turn().then(finish);
            }
          },
        });
        for (const [i, p] of plan.entries()) {
          current = p.kind;
          index = i;
          wanted++;
          loop.request();
          for (let i = 0; i < p.gapTurns; i++) await turn();
        }
        const deadline = Date.now() + 2_000;
        while (Date.now() < deadline && (loop.busy || wanted > served)) await new Promise((r) => setTimeout(r, 1));
        expect(loop.busy).toBe(false);
        expect(served).toBe(wanted);
        await loop.stop();
      },
    ),
    { numRuns: 300 },
  );
});

test('a loop that finds nothing pending ends, and the next request runs a new one (the issue 11 wedge)', async () => {
  let pending = false;
  let runs = 0;
  const loop = new RebuildLoop({
    hasPending: () => pending,
    onError: () => undefined,
    step: () => {
      runs++;
      pending = false;
    },
  });
  loop.request(); // nothing pending: the loop ends without a step, synchronously inside
  await loop.idle();
  expect(loop.busy).toBe(false);
  pending = true;
  loop.request();
  await loop.idle();
  expect(runs).toBe(1);
  expect(pending).toBe(false);
});

test('a failing step is reported with its failure count and retried until it succeeds', async () => {
  let failures = 0;
  const reported: number[] = [];
  let pending = true;
  const loop = new RebuildLoop({
    hasPending: () => pending,
    retryDelayMs: () => 1,
    onError: (_e, n) => reported.push(n),
    step: () => {
      if (failures++ < 3) throw new Error('boom');
      pending = false;
    },
  });
  loop.request();
  await loop.idle();
  expect(reported).toEqual([1, 2, 3]);
  expect(loop.consecutiveFailures).toBe(0);
  expect(pending).toBe(false);
});

test('stop() cuts a backoff sleep short and no loop starts afterwards', async () => {
  let steps = 0;
  const loop = new RebuildLoop({
    hasPending: () => true,
    retryDelayMs: () => 60_000,
    onError: () => undefined,
    step: () => {
      steps++;
      throw new Error('always');
    },
  });
  loop.request();
  while (steps === 0) await turn();
  const t = Date.now();
  await loop.stop();
  expect(Date.now() - t).toBeLessThan(1000);
  loop.request();
  expect(loop.busy).toBe(false);
});
