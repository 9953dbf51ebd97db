/**
 * The health ledger whole (src/runtime/ledger/), on fake timers: a real Monitor with a scripted probe, the
 * real saver and the memory store. Retargeting, effective verdicts, what it announces, what it saves and
 * when, and what a restart carries over — all without waiting a real second.
 */
import pino from 'pino';
import type { ProfileInput } from '../../../src/core/model/types';
import { normalizeProfile } from '../../../src/core/model/normalize';
import type { MonitorStateChange } from '../../../src/core/store';
import { HealthLedger, type LedgerTransition, type RetargetChange } from '../../../src/runtime/ledger';
import { Monitor, type ProbeFn } from '../../../src/runtime/monitor/monitor';
import { MemoryStore } from '../../../src/testing/memory-store';
import { FakeTimers, flush } from '../monitor/fake-timers';

const logger = pino({ level: 'silent' });

/** A probe failing for the endpoints in `down`. */
function scripted(): { fn: ProbeFn; down: Set<string> } {
  const down = new Set<string>();
  const fn: ProbeFn = async (t) =>
    down.has(t.key)
      ? { ok: false, reason: 'status 503', statusCode: 503, latencyMs: 1 }
      : { ok: true, reason: 'status 200', statusCode: 200, latencyMs: 1 };
  return { fn, down };
}

/** The memory store, recording every save (and failing the next `failures` of them). */
class RecordingStore extends MemoryStore {
  saves: MonitorStateChange[] = [];
  failures = 0;
  override async saveMonitorState(change: MonitorStateChange): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('disk full');
    }
    this.saves.push(structuredClone(change));
    await super.saveMonitorState(change);
  }
}

const profile = (name: string, endpoints: string[], over: Partial<ProfileInput['monitorConfig']> = {}) =>
  normalizeProfile({
    name,
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: name, ttl: 30 },
    monitorConfig: {
      protocol: 'HTTP',
      port: 80,
      path: '/',
      intervalInSeconds: 10,
      timeoutInSeconds: 5,
      toleratedNumberOfFailures: 0,
      ...over,
    },
    endpoints: endpoints.map((e, i) => ({ name: e, type: 'externalEndpoints', target: `192.0.2.${i + 1}` })),
  });

const change = (
  profiles: ReturnType<typeof profile>[],
  changed?: Map<string, ReturnType<typeof profile> | undefined>,
  deleted: string[] = [],
): RetargetChange => ({
  profiles: () => profiles,
  resources: new Map(),
  changed,
  deleted: new Set(deleted),
});

async function open(store: RecordingStore, timers: FakeTimers, probe: ProbeFn) {
  const monitor = new Monitor({ timers, probe, location: 'here', phase: () => 0 });
  const ledger = await HealthLedger.open({ store, monitor, clock: timers, logger });
  const transitions: LedgerTransition[] = [];
  const changes: Array<string | undefined> = [];
  ledger.onTransition((t) => transitions.push(t));
  ledger.onChange((k) => changes.push(k));
  return { monitor, ledger, transitions, changes };
}

test("a transition is announced, counted once, and saved a second later as that endpoint's record alone", async () => {
  const timers = new FakeTimers();
  const store = new RecordingStore();
  const p = scripted();
  const { monitor, ledger, transitions, changes } = await open(store, timers, p.fn);
  ledger.retarget(change([profile('web', ['a', 'b'])]));
  expect(ledger.verdicts()).toEqual(
    new Map([
      ['web/a', 'CheckingEndpoint'],
      ['web/b', 'CheckingEndpoint'],
    ]),
  );
  monitor.start();
  await flush();
  expect(ledger.verdicts()).toEqual(
    new Map([
      ['web/a', 'Online'],
      ['web/b', 'Online'],
    ]),
  );
  expect(transitions.map((t) => `${t.key} ${t.from}→${t.to}`)).toEqual(['web/a CheckingEndpoint→Online', 'web/b CheckingEndpoint→Online']);
  expect(changes).toEqual(['web/a', 'web/b']);
  // Nothing saved before the second is up; then one save with both (the first records after the retarget).
  await timers.advance(999);
  expect(store.saves).toEqual([]);
  await timers.advance(1);
  expect(store.saves).toHaveLength(1);
  expect(Object.keys(store.saves[0]!.endpoints).sort()).toEqual(['web/a', 'web/b']);
  expect(store.saves[0]!.endpoints['web/a']).toMatchObject({ verdict: 'Online', history: [{ from: 'CheckingEndpoint', to: 'Online' }] });

  p.down.add('web/b');
  await timers.advance(10_000);
  expect(ledger.verdictOf('web/b')).toBe('Degraded');
  expect(changes.at(-1)).toBe('web/b');
  await timers.advance(1_000);
  expect(store.saves).toHaveLength(2);
  expect(Object.keys(store.saves[1]!.endpoints)).toEqual(['web/b']);
  expect(ledger.unsavedRecords()).toBe(0);
  await monitor.stop();
  await ledger.close();
});

test('a restart carries the saved verdicts until probing decides; the confirming probe is no transition, no save, no change', async () => {
  const timers = new FakeTimers();
  const store = new RecordingStore();
  const p = scripted();
  p.down.add('web/a');
  const one = await open(store, timers, p.fn);
  one.ledger.retarget(change([profile('web', ['a'])]));
  one.monitor.start();
  await flush();
  expect(one.ledger.verdictOf('web/a')).toBe('Degraded');
  await one.monitor.stop();
  await one.ledger.close();
  const saved = store.saves.length;

  const two = await open(store, new FakeTimers(), p.fn);
  two.ledger.retarget(change([profile('web', ['a'])]));
  // Before the first probe: the carried verdict stands in for CheckingEndpoint, in DNS's and the cluster's eyes.
  expect(two.ledger.verdictOf('web/a')).toBe('Degraded');
  expect(two.ledger.own('web/a')).toMatchObject({ verdict: 'Degraded', reason: 'carried over from before the restart' });
  expect(two.ledger.historyOf('web').map((t) => `${t.from}→${t.to}`)).toEqual(['CheckingEndpoint→Degraded']);
  two.monitor.start();
  await flush();
  expect(two.ledger.verdictOf('web/a')).toBe('Degraded');
  expect(two.transitions).toEqual([]);
  expect(two.changes).toEqual([]);
  expect(two.ledger.statuses('web')[0]!.history).toEqual([]);
  await two.ledger.close();
  expect(store.saves.length).toBe(saved);
  await two.monitor.stop();
});

test('a carried verdict counts only for the probe settings it was reached with', async () => {
  const store = new RecordingStore();
  const p = scripted();
  p.down.add('web/a');
  const one = await open(store, new FakeTimers(), p.fn);
  one.ledger.retarget(change([profile('web', ['a'])]));
  one.monitor.start();
  await flush();
  await one.monitor.stop();
  await one.ledger.close();

  const two = await open(store, new FakeTimers(), p.fn);
  two.ledger.retarget(change([profile('web', ['a'], { path: '/other' })]));
  expect(two.ledger.verdictOf('web/a')).toBe('CheckingEndpoint');
  await two.ledger.close();
  await two.monitor.stop();
});

test('a deleted profile starts fresh even when it is back in the same build: its history and records go', async () => {
  const timers = new FakeTimers();
  const store = new RecordingStore();
  const p = scripted();
  const { monitor, ledger, transitions } = await open(store, timers, p.fn);
  const web = profile('web', ['a']);
  ledger.retarget(change([web]));
  monitor.start();
  await flush();
  await timers.advance(1_000);
  expect(ledger.statuses('web')[0]!.history).toHaveLength(1);

  // Deleted and created again before the pipeline's next build: one retarget names it changed and deleted.
  ledger.retarget(change([web], new Map([['web', web]]), ['web']));
  expect(ledger.verdictOf('web/a')).toBe('CheckingEndpoint');
  expect(ledger.statuses('web')[0]!.history).toEqual([]);
  await flush();
  expect(transitions).toHaveLength(2); // probed at once again: a new CheckingEndpoint → Online

  // Deleted for good: its record is dropped at the next save.
  ledger.retarget(change([], new Map([['web', undefined]]), ['web']));
  expect(ledger.verdictOf('web/a')).toBeUndefined();
  await timers.advance(1_000);
  expect(store.saves.at(-1)!.endpoints).toEqual({ 'web/a': null });
  expect((await store.loadMonitorState())!.endpoints).toEqual({});
  await monitor.stop();
  await ledger.close();
});

test('an incremental retarget looks at the changed profile only; transitions it causes are read by that build, not announced', async () => {
  const timers = new FakeTimers();
  const store = new RecordingStore();
  const p = scripted();
  const { monitor, ledger, changes } = await open(store, timers, p.fn);
  const a = profile('a', ['x']);
  const b = profile('b', ['y']);
  ledger.retarget(change([a, b]));
  monitor.start();
  await flush();
  await timers.advance(1_000);
  const before = changes.length;
  const saves = store.saves.length;
  // New probe settings for b: its endpoint is reset to CheckingEndpoint inside the retarget.
  const b2 = profile('b', ['y'], { path: '/health' });
  ledger.retarget(change([a, b2], new Map([['b', b2]])));
  expect(ledger.verdictOf('b/y')).toBe('CheckingEndpoint');
  expect(ledger.verdictOf('a/x')).toBe('Online');
  expect(changes.length).toBe(before);
  await timers.advance(1_000);
  expect(Object.keys(store.saves[saves]!.endpoints)).toEqual(['b/y']);
  await monitor.stop();
  await ledger.close();
});

test('records are saved 1,000 per store call, and a failed save is retried a second later', async () => {
  const timers = new FakeTimers();
  const store = new RecordingStore();
  const p = scripted();
  const { monitor, ledger } = await open(store, timers, p.fn);
  const many = Array.from({ length: 25 }, (_, i) =>
    profile(
      `p${i}`,
      Array.from({ length: 100 }, (_, j) => `e${j}`),
    ),
  );
  store.failures = 1;
  ledger.retarget(change(many));
  expect(ledger.unsavedRecords()).toBe(2_500);
  await timers.advance(1_000);
  expect(store.saves).toHaveLength(0);
  expect(ledger.unsavedRecords()).toBe(2_500);
  await timers.advance(1_000);
  await flush();
  await flush();
  await flush();
  expect(store.saves.map((s) => Object.keys(s.endpoints).length)).toEqual([1_000, 1_000, 500]);
  // The meta (which replaces an earlier whole-state blob) goes with the last call only.
  expect(store.saves.map((s) => s.meta !== undefined)).toEqual([false, false, true]);
  expect(ledger.unsavedRecords()).toBe(0);
  await monitor.stop();
  await ledger.close();
});

test('maintenance keeps the history: disabling is an entry, enabling another, a restart keeps both; removing the endpoint forgets it', async () => {
  const timers = new FakeTimers();
  const store = new RecordingStore();
  const p = scripted();
  const one = await open(store, timers, p.fn);
  const on = profile('web', ['a', 'b']);
  one.ledger.retarget(change([on]));
  one.monitor.start();
  await flush();
  p.down.add('web/a');
  await timers.advance(10_000);
  expect(one.ledger.verdictOf('web/a')).toBe('Degraded');

  const off = normalizeProfile({
    ...on,
    endpoints: on.endpoints.map((e) => (e.name === 'a' ? { ...e, endpointStatus: 'Disabled' as const } : e)),
  });
  one.ledger.retarget(change([off], new Map([['web', off]])));
  expect(one.ledger.verdictOf('web/a')).toBeUndefined();
  const steps = (): string[] =>
    one.ledger
      .historyOf('web')
      .filter((t) => t.endpoint === 'a')
      .map((t) => `${t.from}→${t.to}`);
  expect(steps()).toEqual(['CheckingEndpoint→Online', 'Online→Degraded', 'Degraded→Disabled']);
  expect(one.transitions.at(-1)).toMatchObject({
    key: 'web/a',
    from: 'Degraded',
    to: 'Disabled',
    reason: expect.stringContaining('endpointStatus Disabled'),
  });
  await timers.advance(1_000);
  // Not probed, yet its record stays, for the history.
  expect(store.saves.at(-1)!.endpoints['web/a']).toMatchObject({
    fingerprint: '',
    history: [{ to: 'Online' }, { to: 'Degraded' }, { to: 'Disabled' }],
  });
  await one.monitor.stop();
  await one.ledger.close();

  // A restart (a minute later) while it is disabled: the history is still there; enabled again, probing
  // resumes after an entry.
  const later = new FakeTimers();
  await later.advance(60_000);
  const two = await open(store, later, p.fn);
  two.ledger.retarget(change([off]));
  expect(
    two.ledger
      .historyOf('web')
      .filter((t) => t.endpoint === 'a')
      .map((t) => t.to),
  ).toEqual(['Online', 'Degraded', 'Disabled']);
  p.down.delete('web/a');
  two.ledger.retarget(change([on], new Map([['web', on]])));
  two.monitor.start();
  await flush();
  expect(
    two.ledger
      .historyOf('web')
      .filter((t) => t.endpoint === 'a')
      .map((t) => `${t.from}→${t.to}`),
  ).toEqual(['CheckingEndpoint→Online', 'Online→Degraded', 'Degraded→Disabled', 'Disabled→CheckingEndpoint', 'CheckingEndpoint→Online']);

  // The endpoint removed from the profile: its history goes (and its record at the next save).
  const without = normalizeProfile({ ...on, endpoints: on.endpoints.filter((e) => e.name !== 'a') });
  two.ledger.retarget(change([without], new Map([['web', without]])));
  expect(two.ledger.historyOf('web').some((t) => t.endpoint === 'a')).toBe(false);
  await two.monitor.stop();
  await two.ledger.close();
  expect((await store.loadMonitorState())!.endpoints['web/a']).toBeUndefined();
});
