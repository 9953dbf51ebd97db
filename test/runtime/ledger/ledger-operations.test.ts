/**
 * The health ledger's traffic-control inputs on fake timers (src/runtime/ledger/operations-feed.ts, failback.ts): an
 * override counts until its expiry on this node's clock and its record is then deleted with an audit entry
 * (retried while the store refuses); failback rules and approvals reach the prober's state machines, and a
 * restart is no failback. A real Monitor with a scripted probe, the real saver, the memory store.
 */
import pino from 'pino';
import type { AuditEntry, OverrideEvent, OverrideRecord } from '../../../src/core/api';
import type { ProfileInput } from '../../../src/core/model/types';
import { normalizeProfile } from '../../../src/core/model/normalize';
import { HealthLedger, type RetargetChange } from '../../../src/runtime/ledger';
import { OperationsFeed } from '../../../src/runtime/ledger/operations-feed';
import { Monitor, type ProbeFn } from '../../../src/runtime/monitor/monitor';
import { MemoryOperations } from '../../../src/runtime/store/memory-operations';
import { MemoryStore } from '../../../src/testing/memory-store';
import { FakeTimers, flush } from '../monitor/fake-timers';

const logger = pino({ level: 'silent' });

function scripted(): { fn: ProbeFn; down: Set<string> } {
  const down = new Set<string>();
  const fn: ProbeFn = async (t) =>
    down.has(t.key)
      ? { ok: false, reason: 'status 503', statusCode: 503, latencyMs: 1 }
      : { ok: true, reason: 'status 200', statusCode: 200, latencyMs: 1 };
  return { fn, down };
}

const profile = (name: string, endpoints: string[], over: Partial<ProfileInput> = {}) =>
  normalizeProfile({
    name,
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: name, ttl: 30 },
    monitorConfig: { protocol: 'HTTP', port: 80, path: '/', intervalInSeconds: 10, timeoutInSeconds: 5, toleratedNumberOfFailures: 0 },
    endpoints: endpoints.map((e, i) => ({ name: e, type: 'externalEndpoints', target: `192.0.2.${i + 1}` })),
    ...over,
  });
const change = (profiles: ReturnType<typeof profile>[]): RetargetChange => ({
  profiles: () => profiles,
  resources: new Map(),
  changed: undefined,
  deleted: new Set(),
});
const iso = (ms: number): string => new Date(ms).toISOString();

async function open(store: MemoryStore, operations: MemoryOperations, timers: FakeTimers, probe: ProbeFn) {
  const monitor = new Monitor({ timers, probe, location: 'here', phase: () => 0 });
  const feed = await OperationsFeed.open({ operations, clock: timers, logger });
  const ledger = await HealthLedger.open({ store, monitor, clock: timers, logger, operations: feed });
  const changes: Array<string | undefined> = [];
  const events: OverrideEvent[] = [];
  ledger.onChange((k) => changes.push(k));
  feed.onEvent((e) => events.push(e));
  return {
    monitor,
    feed,
    ledger,
    changes,
    events,
    close: async () => {
      await monitor.stop();
      await ledger.close();
      feed.close();
    },
  };
}

const audit = (action: string): AuditEntry => ({ at: iso(0), who: 'test', action, target: 'web/a' });
const override = (id: string, timers: FakeTimers, forMs: number, over: Partial<OverrideRecord> = {}): OverrideRecord => ({
  id,
  kind: 'down',
  profile: 'web',
  endpoint: 'a',
  reason: 'test',
  who: 'cli',
  createdAt: iso(timers.now()),
  expiresAt: iso(timers.now() + forMs),
  ...over,
});

test("an override counts until its expiry on this node's clock, then its record is deleted with an override.expire audit entry", async () => {
  const timers = new FakeTimers();
  const operations = new MemoryOperations();
  const x = await open(new MemoryStore(), operations, timers, scripted().fn);
  x.ledger.retarget(change([profile('web', ['a', 'b'])]));
  await operations.putOverride(override('ov-1', timers, 60_000), audit('override.create'));
  expect(x.ledger.overrides().get('web/a')).toMatchObject({ down: true });
  expect(x.changes).toEqual(['web/a']);
  expect(x.events.map((e) => e.action)).toEqual(['created']);
  await timers.advance(59_999);
  expect(x.ledger.overrides().has('web/a')).toBe(true);
  await timers.advance(1);
  expect(x.ledger.overrides().has('web/a')).toBe(false);
  expect(x.changes).toEqual(['web/a', 'web/a']);
  expect(x.events.map((e) => e.action)).toEqual(['created', 'expired']);
  await flush();
  expect(await operations.listOverrides()).toEqual([]);
  expect((await operations.listAudit(10))[0]).toMatchObject({
    action: 'override.expire',
    who: 'tmkit',
    target: 'web/a',
    details: { id: 'ov-1' },
  });
  // Its deletion was the clean-up of an expiry, not a clear.
  expect(x.events.map((e) => e.action)).toEqual(['created', 'expired']);
  await x.close();
});

test('an expired record the store refuses to delete no longer counts, and is deleted on a retry 5 s later', async () => {
  const timers = new FakeTimers();
  class Refusing extends MemoryOperations {
    refusals = 2;
    override async deleteOverride(id: string, a: AuditEntry): Promise<OverrideRecord | undefined> {
      if (this.refusals-- > 0) throw new Error('etcd unreachable');
      return super.deleteOverride(id, a);
    }
  }
  const operations = new Refusing();
  await operations.putOverride(override('ov-1', timers, 10_000), audit('override.create'));
  const x = await open(new MemoryStore(), operations, timers, scripted().fn);
  expect(x.ledger.overrides().has('web/a')).toBe(true);
  await timers.advance(10_000);
  expect(x.ledger.overrides().has('web/a')).toBe(false);
  expect(await operations.listOverrides()).toHaveLength(1);
  await timers.advance(5_000);
  expect(await operations.listOverrides()).toHaveLength(1);
  await timers.advance(5_000);
  expect(await operations.listOverrides()).toEqual([]);
  await x.close();
});

test('Manual failback: recovered endpoints wait for the approval; successesToRecover and the hold-down count probes and time', async () => {
  const timers = new FakeTimers();
  const operations = new MemoryOperations();
  const p = scripted();
  const x = await open(new MemoryStore(), operations, timers, p.fn);
  const web = profile('web', ['a', 'b'], { failback: { mode: 'Manual', successesToRecover: 2, holdDownSeconds: 60 } });
  x.ledger.retarget(change([web]));
  x.monitor.start();
  await flush();
  expect(x.ledger.verdictOf('web/a')).toBe('Online');
  p.down.add('web/a');
  await timers.advance(10_000);
  expect(x.ledger.verdictOf('web/a')).toBe('Degraded');
  const failedAt = timers.now();
  p.down.delete('web/a');
  // Two good probes are in after 20 s, five after 50 s: still Degraded, the hold-down is 60 s since the failure.
  await timers.advance(20_000);
  expect(x.ledger.verdictOf('web/a')).toBe('Degraded');
  await timers.advance(30_000);
  expect(x.ledger.verdictOf('web/a')).toBe('Degraded');
  // The probe 60 s after the failure ends it: AwaitingFailback (Manual), not Online.
  await timers.advance(10_000);
  expect(timers.now() - failedAt).toBe(60_000);
  expect(x.ledger.verdictOf('web/a')).toBe('AwaitingFailback');
  await timers.advance(60_000);
  expect(x.ledger.verdictOf('web/a')).toBe('AwaitingFailback');
  await operations.putFailback({ profile: 'web', endpoint: 'a', approvedAt: iso(timers.now()), who: 'cli' }, audit('failback'));
  expect(x.ledger.verdictOf('web/a')).toBe('Online');
  expect(x.changes.at(-1)).toBe('web/a');
  await x.close();
});

test('a restart is no failback: an endpoint AwaitingFailback stays so; an old approval is ignored, a new one releases it', async () => {
  const timers = new FakeTimers();
  const store = new MemoryStore();
  const operations = new MemoryOperations();
  const p = scripted();
  const web = profile('web', ['a', 'b'], { failback: { mode: 'Manual', successesToRecover: 1, holdDownSeconds: 0 } });
  const one = await open(store, operations, timers, p.fn);
  one.ledger.retarget(change([web]));
  one.monitor.start();
  await flush();
  await operations.putFailback({ profile: 'web', endpoint: 'a', approvedAt: iso(timers.now()), who: 'cli' }, audit('failback')); // before this outage
  await timers.advance(1_000);
  p.down.add('web/a');
  await timers.advance(10_000);
  p.down.delete('web/a');
  await timers.advance(10_000);
  expect(one.ledger.verdictOf('web/a')).toBe('AwaitingFailback');
  await one.close();

  const two = await open(store, operations, timers, p.fn);
  two.ledger.retarget(change([web]));
  two.monitor.start();
  await flush();
  await timers.advance(30_000);
  expect(two.ledger.verdictOf('web/a')).toBe('AwaitingFailback');
  expect(two.ledger.verdictOf('web/b')).toBe('Online');
  await operations.putFailback({ profile: 'web', endpoint: 'a', approvedAt: iso(timers.now()), who: 'cli' }, audit('failback'));
  expect(two.ledger.verdictOf('web/a')).toBe('Online');
  await two.close();
});
