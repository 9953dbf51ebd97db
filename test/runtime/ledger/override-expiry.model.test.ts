/**
 * Model-based: every override expiry is processed exactly once and on time (src/runtime/ledger/operations-feed.ts),
 * whatever sequence of creates, replacements, clears, clock steps and restarts comes before it. The feed runs
 * on timers that fire late by up to LATE_MS (as a busy event loop's do) or 1 ms early (as Node's may), over
 * one MemoryOperations store that outlives every restart. After each sequence, every override that was never
 * cleared has exactly one `override.expire` audit entry, dated its `expiresAt`, and exactly one `expired`
 * event over all the feeds that ran, no later than LATE_MS after it was due (its expiry, or the start-up after
 * the downtime it expired in); a cleared one has neither, and the store holds nothing.
 */
import fc from 'fast-check';
import pino from 'pino';
import type { AuditEntry, OverrideEvent, OverrideRecord } from '../../../src/core/api';
import { overrideKey } from '../../../src/core/operations/overrides';
import type { RuntimeClock } from '../../../src/runtime/clock';
import { OperationsFeed } from '../../../src/runtime/ledger/operations-feed';
import { MemoryOperations } from '../../../src/runtime/store/memory-operations';
import { flush } from '../monitor/fake-timers';

const logger = pino({ level: 'silent' });
const LATE_MS = 1_000;

/** Timers that move when told to; each fires at its time plus a lateness the test draws (−1 to LATE_MS ms). */
class LateTimers implements RuntimeClock {
  private t = 1_000_000;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();
  constructor(private readonly lateness: () => number) {}
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    // Early by 1 ms at most, and never before the clock moved for a timer of 1 ms or more (as a real clock goes on).
    const late = this.lateness();
    this.pending.set(id, { at: this.t + (ms > 0 ? Math.max(1, ms + late) : Math.max(0, late)), fn });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.pending.delete(h as number);
  }
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await flush();
    for (;;) {
      let best: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.pending) if (e[1].at <= end && (!best || e[1].at < best[1].at)) best = e;
      if (!best) break;
      this.pending.delete(best[0]);
      this.t = Math.max(this.t, best[1].at);
      best[1].fn();
      await flush();
    }
    this.t = end;
    await flush();
  }
}

type Step =
  | { op: 'create'; endpoint: number; kind: 'down' | 'weight'; forMs: number }
  | { op: 'arrivesExpired'; endpoint: number; agoMs: number }
  | { op: 'clear'; pick: number }
  | { op: 'advance'; ms: number }
  | { op: 'restart'; downMs: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('create' as const),
      endpoint: fc.nat(2),
      kind: fc.constantFrom('down' as const, 'weight' as const),
      forMs: fc.integer({ min: 1_000, max: 20_000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('arrivesExpired' as const), endpoint: fc.nat(2), agoMs: fc.integer({ min: 0, max: 5_000 }) }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('clear' as const), pick: fc.nat(10) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 8_000 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('restart' as const), downMs: fc.integer({ min: 0, max: 30_000 }) }) },
);

const iso = (ms: number): string => new Date(ms).toISOString();
const audit = (action: string, at: number, target: string): AuditEntry => ({ at: iso(at), who: 'test', action, target });

async function run(steps: Step[], lateness: number[]): Promise<void> {
  let li = 0;
  const timers = new LateTimers(() => (lateness.length === 0 ? 0 : lateness[li++ % lateness.length]!));
  const store = new MemoryOperations();
  const events: Array<OverrideEvent & { t: number; run: number }> = [];
  /** When each feed ran: [opened, closed). */
  const runs: Array<[number, number]> = [];
  let feed!: OperationsFeed;
  const open = async (): Promise<void> => {
    feed = await OperationsFeed.open({ operations: store, clock: timers, logger });
    const run = runs.push([timers.now(), Number.POSITIVE_INFINITY]) - 1;
    feed.onEvent((e) => events.push({ ...e, t: timers.now(), run }));
  };
  await open();
  const made: OverrideRecord[] = [];
  const cleared = new Set<string>();
  /** When each record reached the store (one that arrives expired is due from then). */
  const arrived = new Map<string, number>();
  let n = 0;
  const put = async (r: OverrideRecord): Promise<void> => {
    // As Operations.createOverride: a new override replaces the one of its endpoint and kind in force.
    const replaces = feed
      .active()
      .filter((x) => x.kind === r.kind && overrideKey(x) === overrideKey(r))
      .map((x) => x.id);
    for (const id of replaces) cleared.add(id);
    made.push(r);
    arrived.set(r.id, timers.now());
    await store.putOverride(r, audit('override.create', timers.now(), overrideKey(r)), replaces);
  };
  for (const s of steps) {
    const now = timers.now();
    if (s.op === 'create' || s.op === 'arrivesExpired') {
      const kind = s.op === 'create' ? s.kind : 'down';
      const expiresAt = s.op === 'create' ? now + s.forMs : now - s.agoMs;
      await put({
        id: `ov-${++n}`,
        kind,
        profile: 'web',
        endpoint: `e${s.endpoint}`,
        ...(kind === 'weight' ? { weight: 5 } : {}),
        reason: 'model',
        who: 'test',
        createdAt: iso(Math.min(now, expiresAt - 1_000)),
        expiresAt: iso(expiresAt),
      });
    } else if (s.op === 'clear') {
      const active = feed.active();
      const held = active[s.pick % Math.max(1, active.length)];
      if (held && (await store.deleteOverride(held.id, audit('override.clear', now, overrideKey(held))))) cleared.add(held.id);
    } else if (s.op === 'advance') await timers.advance(s.ms);
    else {
      feed.close();
      runs.at(-1)![1] = timers.now();
      await timers.advance(s.downMs);
      await open();
    }
  }
  await timers.advance(40_000);
  feed.close();

  const entries = await store.listAudit(10_000);
  expect(await store.listOverrides()).toEqual([]);
  for (const r of made) {
    const expiries = entries.filter((e) => e.action === 'override.expire' && (e.details as { id?: string }).id === r.id);
    const expired = events.filter((e) => e.action === 'expired' && e.override.id === r.id);
    if (cleared.has(r.id)) {
      expect({ id: r.id, expiries, expired }).toEqual({ id: r.id, expiries: [], expired: [] });
      continue;
    }
    expect({ id: r.id, expiries: expiries.length, expired: expired.length }).toEqual({ id: r.id, expiries: 1, expired: 1 });
    expect(expiries[0]!.at).toBe(r.expiresAt);
    // Due from its expiry (or its arrival, when it arrived expired). Each feed that ran from then on had
    // LATE_MS to process it (a timer's lateness): the one in which the event came did so within LATE_MS of
    // its start or of the expiry, and every feed before it closed sooner than that.
    const dueFrom = Math.max(Date.parse(r.expiresAt), arrived.get(r.id)!);
    const { t, run } = expired[0]!;
    for (const [i, [a, b]] of runs.entries()) {
      const from = Math.max(a, dueFrom);
      if (i === run) {
        expect({ id: r.id, lateMs: t - from, within: t - from <= LATE_MS }).toMatchObject({ id: r.id, within: true });
        break;
      }
      if (b <= from) continue;
      expect({ id: r.id, ranMs: b - from, unprocessedTooLong: b - from > LATE_MS }).toMatchObject({ id: r.id, unprocessedTooLong: false });
    }
  }
}

test('every expiry is audited and evented exactly once, on time, across creates, replacements, clears, late timers and restarts', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { minLength: 1, maxLength: 40 }),
      fc.array(fc.integer({ min: -1, max: LATE_MS }), { maxLength: 8 }),
      run,
    ),
    { numRuns: 300 },
  );
}, 120_000);

test('a timer that fires late is not cancelled by a change that comes first (the 14.5-minute-late expiry)', async () => {
  // Expires at +10 s; its timer fires 500 ms late; a second override is made at +10.2 s and expires 15 min later.
  await run(
    [
      { op: 'create', endpoint: 0, kind: 'down', forMs: 10_000 },
      { op: 'advance', ms: 10_200 },
      { op: 'create', endpoint: 1, kind: 'down', forMs: 20_000 },
    ],
    [500],
  );
});

test('an override that expired while the server was down is processed at start-up, audited at its expiry', async () => {
  await run(
    [
      { op: 'create', endpoint: 0, kind: 'down', forMs: 5_000 },
      { op: 'restart', downMs: 30_000 },
    ],
    [0],
  );
});
