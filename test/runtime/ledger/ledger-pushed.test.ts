/**
 * Pushed health as an input of the health ledger (src/runtime/ledger/pushed-health.ts), on fake timers: the
 * effective verdict is the worse of probe and push (its truth table, every row), a push ends exactly at its
 * expiry without a real second passing, transitions it causes are announced with `source: 'pushed'`, and a
 * record that ended while the server was down is dropped at open.
 */
import pino from 'pino';
import { normalizeProfile } from '../../../src/core/model/normalize';
import type { PushedHealthRecord } from '../../../src/core/store';
import { HealthLedger, PreviousRun, worseOf, type LedgerTransition } from '../../../src/runtime/ledger';
import { Monitor, type ProbeFn } from '../../../src/runtime/monitor/monitor';
import { MemoryStore } from '../../../src/testing/memory-store';
import { FakeTimers, flush } from '../monitor/fake-timers';

const logger = pino({ level: 'silent' });

test.each([
  ['Online', 'Online', 'Online'],
  ['Online', 'Degraded', 'Degraded'],
  ['Online', undefined, 'Online'],
  ['CheckingEndpoint', 'Online', 'CheckingEndpoint'],
  ['CheckingEndpoint', 'Degraded', 'Degraded'],
  ['Degraded', 'Online', 'Degraded'],
  ['Degraded', 'Degraded', 'Degraded'],
  [undefined, 'Degraded', undefined],
] as const)('worseOf(probe %s, pushed %s) = %s', (probe, pushed, out) => {
  expect(worseOf(probe, pushed)).toBe(out);
});

/** The memory store with a place for pushed health (what SQLite's table and etcd's keys are). */
class PushedStore extends MemoryStore {
  rows = new Map<string, PushedHealthRecord>();
  pushedHealth() {
    return {
      load: async () => [...this.rows.values()],
      put: async (r: PushedHealthRecord) => {
        this.rows.set(r.key, r);
      },
      delete: async (key: string) => {
        this.rows.delete(key);
      },
    };
  }
}

async function setup(store: PushedStore, timers: FakeTimers, down = new Set<string>()) {
  const probe: ProbeFn = async (t) =>
    down.has(t.key) ? { ok: false, reason: 'status 503', latencyMs: 1 } : { ok: true, reason: 'status 200', latencyMs: 1 };
  const monitor = new Monitor({ timers, probe, location: 'here', phase: () => 0 });
  const ledger = await HealthLedger.open({ store, monitor, clock: timers, logger });
  const transitions: LedgerTransition[] = [];
  const changes: Array<string | undefined> = [];
  ledger.onTransition((t) => transitions.push(t));
  ledger.onChange((k) => changes.push(k));
  const p = normalizeProfile({
    name: 'web',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'web', ttl: 30 },
    monitorConfig: { protocol: 'HTTP', port: 80, path: '/', intervalInSeconds: 10, timeoutInSeconds: 5, toleratedNumberOfFailures: 0 },
    endpoints: [
      { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' },
      { name: 'b', type: 'externalEndpoints', target: '192.0.2.2' },
    ],
  });
  ledger.retarget({ profiles: () => [p], resources: new Map(), changed: undefined, deleted: new Set() });
  monitor.start();
  await flush();
  return { ledger, monitor, transitions, changes };
}

test('a push applies at once, ends exactly at its TTL, and its transitions are announced as pushed', async () => {
  const timers = new FakeTimers();
  const store = new PushedStore();
  const { ledger, monitor, transitions, changes } = await setup(store, timers);
  expect(ledger.verdictOf('web/a')).toBe('Online');
  transitions.length = 0;
  changes.length = 0;

  await ledger.pushed.push('web/a', 'Degraded', 30, 'deploy');
  expect(ledger.verdictOf('web/a')).toBe('Degraded');
  expect(ledger.verdicts().get('web/a')).toBe('Degraded');
  expect(ledger.probeVerdictOf('web/a')).toBe('Online');
  expect(ledger.own('web/a')?.verdict).toBe('Online'); // never published to the cluster as this location's vote
  expect(changes).toEqual(['web/a']);
  expect(transitions).toEqual([
    expect.objectContaining({
      key: 'web/a',
      from: 'Online',
      to: 'Degraded',
      source: 'pushed',
      location: 'here',
      reason: 'pushed Degraded: deploy (until 1970-01-01T00:00:30.000Z)',
    }),
  ]);
  expect([...store.rows.keys()]).toEqual(['web/a']);

  await timers.advance(29_999);
  expect(ledger.verdictOf('web/a')).toBe('Degraded');
  await timers.advance(1);
  expect(ledger.verdictOf('web/a')).toBe('Online');
  expect(transitions.at(-1)).toMatchObject({ from: 'Degraded', to: 'Online', reason: 'pushed Degraded expired', at: 30_000 });
  expect(store.rows.size).toBe(0);
  expect(monitor.verdictOf('web/a')).toBe('Online');

  // A push that changes nothing effective (Online over Online) tells the pipeline but announces no transition.
  const before = transitions.length;
  await ledger.pushed.push('web/b', 'Online', 10, '');
  expect(transitions.length).toBe(before);
  expect(changes.at(-1)).toBe('web/b');
  ledger.pushed.close();
  await ledger.close();
});

test('at open, records that ended while the server was down are dropped; live ones apply', async () => {
  const timers = new FakeTimers();
  await timers.advance(100_000);
  const store = new PushedStore();
  store.rows.set('web/a', { key: 'web/a', status: 'Degraded', reason: 'old', at: 0, expiresAt: 50_000 });
  store.rows.set('web/b', { key: 'web/b', status: 'Degraded', reason: 'live', at: 90_000, expiresAt: 150_000 });
  const { ledger } = await setup(store, timers);
  expect(ledger.verdicts()).toEqual(
    new Map([
      ['web/a', 'Online'],
      ['web/b', 'Degraded'],
    ]),
  );
  await flush();
  expect([...store.rows.keys()]).toEqual(['web/b']);
  await ledger.close();
});

test("after a restart, the failback state carried over counts the probes' outages, not a pushed Degraded", () => {
  const t = (at: number, from: string, to: string, source?: 'pushed') => ({
    at,
    from,
    to,
    reason: '',
    location: 'here',
    consecutiveFailures: 0,
    ...(source ? { source } : {}),
  });
  const saved = {
    endpoints: {
      'web/a': {
        verdict: 'Online',
        fingerprint: 'fp',
        history: [
          t(1_000, 'CheckingEndpoint', 'Degraded'),
          t(2_000, 'Degraded', 'Online'),
          t(3_000, 'Online', 'Degraded', 'pushed'),
          t(4_000, 'Degraded', 'Online', 'pushed'),
        ],
      },
    },
  };
  const previous = new PreviousRun(saved, new Map([['web/a', 'fp']]));
  const history = previous.takeHistory().get('web/a') ?? [];
  expect(history).toHaveLength(4);
  expect(previous.carriedState('web/a', history)).toEqual({ verdict: 'Online', since: 2_000, failedAt: 1_000 });
});
