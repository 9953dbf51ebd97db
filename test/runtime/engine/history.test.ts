/**
 * Monitor history and carried-over verdicts across a restart (issue 16 item 8), with a real Engine (store,
 * prober, API) over a real state directory and real health servers on loopback:
 * - a profile deleted and created again starts fresh: no transitions and no verdict from before the delete;
 * - a verdict carried over a restart and then confirmed by the first probe is not a status change: no
 *   CheckingEndpoint → Online transition is logged, counted or listed;
 * - the monitor state is saved per endpoint: a transition saves that endpoint's record only, a removed
 *   endpoint's record is dropped, and the earlier whole-state blob is read and rewritten once (issue 17 §4).
 */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { TmkitClient } from '../../../src/client';
import type { ProfileInput } from '../../../src/core/model/types';
import type { MonitorStateChange } from '../../../src/core/store';
import { Engine, type EngineOptions } from '../../../src/runtime/engine';
import { openDatabase } from '../../../src/runtime/store/driver';
import type { ProbeTarget } from '../../../src/core/health/targets';
import { MemoryStore } from '../../../src/testing/memory-store';
import { healthServer } from '../../support/loopback';
import { waitFor } from '../../support/wait';
import { tempDirs } from '../../support/tmp';

jest.setTimeout(60_000);

const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop();
});
const tempDir = tempDirs('tmkit-history-');

async function start(
  stateDir: string,
  extra: Partial<EngineOptions> = {},
  logs?: string[],
): Promise<{ engine: Engine; client: TmkitClient }> {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs?.push(String(chunk));
      cb();
    },
  });
  const engine = await Engine.start({
    stateDir,
    zone: 'tm.internal',
    dns: [{ address: '127.0.0.1', port: 0 }],
    api: { host: '127.0.0.1', port: 0 },
    logger: pino({ level: 'info' }, sink),
    env: {},
    monitor: { intervalMs: () => 150, timeoutMs: () => 1000 },
    ...extra,
  });
  engines.push(engine);
  return {
    engine,
    client: new TmkitClient({ server: `http://127.0.0.1:${engine.apiAddress().port}`, token: engine.token.token, env: {}, retries: 0 }),
  };
}

const profile = (port: number, target: string, tolerated: number): ProfileInput => ({
  name: 'keep',
  trafficRoutingMethod: 'Priority',
  dnsConfig: { relativeName: 'keep', ttl: 30 },
  monitorConfig: {
    protocol: 'HTTP',
    port,
    path: '/healthz',
    intervalInSeconds: 10,
    timeoutInSeconds: 5,
    toleratedNumberOfFailures: tolerated,
  },
  endpoints: [{ name: 'only', type: 'externalEndpoints', target }],
});

test('a profile deleted and created again after a restart starts fresh: no old transitions, no carried verdict', async () => {
  const dir = tempDir();
  // Nothing listens on this port at 127.0.0.61: every probe is refused at once.
  const closed = await healthServer('127.0.0.61');
  const port = closed.port;
  await closed.close();
  const a = await start(dir);
  await a.client.putProfile(profile(port, '127.0.0.61', 2));
  await waitFor(async () => (await a.client.status('keep')).endpoints[0]!.endpointMonitorStatus === 'Degraded', { what: 'Degraded' });
  expect((await a.client.status('keep')).transitions.map((t) => `${t.from}→${t.to}`)).toEqual(['CheckingEndpoint→Degraded']);
  await a.client.close();
  await engines.pop()!.stop();

  // After the restart the prober probes once at once, then every 10 s: with 2 tolerated failures a fresh
  // endpoint stays CheckingEndpoint for 20 s, while a carried-over verdict would say Degraded.
  const b = await start(dir, { monitor: { intervalMs: () => 10_000, timeoutMs: () => 1000 } });
  expect((await b.client.status('keep')).endpoints[0]).toMatchObject({ endpointMonitorStatus: 'Degraded', verdictCarriedOver: true });
  await b.client.deleteProfile('keep');
  await b.engine.settle();
  await b.client.putProfile(profile(port, '127.0.0.61', 2));
  await b.engine.settle();
  await waitFor(async () => (await b.client.status('keep')).endpoints[0]!.lastProbe !== undefined, {
    what: 'the first probe of the new profile',
  });
  const s = await b.client.status('keep');
  expect(s.endpoints[0]).toMatchObject({ endpointMonitorStatus: 'CheckingEndpoint', verdict: 'CheckingEndpoint', consecutiveFailures: 1 });
  expect(s.endpoints[0]!.verdictCarriedOver).toBeUndefined();
  expect(s.transitions).toEqual([]);
  await b.client.close();
});

test('a carried-over verdict the first probe confirms is no transition: not logged, counted or listed', async () => {
  const dir = tempDir();
  const health = await healthServer('127.0.0.62');
  try {
    const a = await start(dir);
    await a.client.putProfile(profile(health.port, '127.0.0.62', 0));
    await waitFor(async () => (await a.client.status('keep')).endpoints[0]!.endpointMonitorStatus === 'Online', { what: 'Online' });
    await a.client.close();
    await engines.pop()!.stop();

    const logs: string[] = [];
    const b = await start(dir, {}, logs);
    const hits = health.hits();
    await waitFor(
      async () => {
        const s = await b.client.status('keep');
        return health.hits() > hits && s.endpoints[0]!.verdictCarriedOver === undefined && s.endpoints[0]!.lastProbe?.ok === true;
      },
      { what: 'probed again and decided' },
    );
    const s = await b.client.status('keep');
    expect(s.endpoints[0]).toMatchObject({ endpointMonitorStatus: 'Online', verdict: 'Online' });
    // The one transition is the first run's; the confirmation after the restart is not a second one.
    expect(s.transitions.map((t) => `${t.from}→${t.to}`)).toEqual(['CheckingEndpoint→Online']);
    expect(logs.filter((l) => l.includes('endpoint status changed'))).toEqual([]);
    expect(await b.client.metrics()).not.toMatch(/tmkit_status_transitions_total\{[^}]*to="Online"\} [1-9]/);
    await b.client.close();
  } finally {
    await health.close();
  }
});

test('deleted and created again within one rebuild (debounced): the prober starts the endpoint afresh', async () => {
  const health = await healthServer('127.0.0.63');
  try {
    const a = await start(tempDir(), { debounceMs: 400 });
    await a.client.putProfile(profile(health.port, '127.0.0.63', 0));
    await waitFor(async () => (await a.client.status('keep')).endpoints[0]!.endpointMonitorStatus === 'Online', { what: 'Online' });
    const before = (await a.client.status('keep')).transitions;
    expect(before).toHaveLength(1);
    const recreatedAt = Date.now();
    await a.client.deleteProfile('keep');
    await a.client.putProfile(profile(health.port, '127.0.0.63', 0));
    await a.engine.settle();
    const s = await waitFor(
      async () => {
        const x = await a.client.status('keep');
        return x.transitions.length > 0 && x.endpoints[0]!.endpointMonitorStatus === 'Online' ? x : undefined;
      },
      { what: 'probed afresh' },
    );
    expect(s.transitions.map((t) => `${t.from}→${t.to}`)).toEqual(['CheckingEndpoint→Online']);
    expect(Date.parse(s.transitions[0]!.at)).toBeGreaterThanOrEqual(recreatedAt);
    await a.client.close();
  } finally {
    await health.close();
  }
});

/** A memory store that records every monitor-state save. */
class RecordingStore extends MemoryStore {
  readonly saves: MonitorStateChange[] = [];
  override async saveMonitorState(change: MonitorStateChange): Promise<void> {
    this.saves.push(structuredClone(change));
    await super.saveMonitorState(change);
  }
}

test("a transition saves that endpoint's record only; a removed endpoint's record is dropped; a restart carries the verdicts", async () => {
  const store = new RecordingStore();
  const down = new Set<string>();
  const probe = async (t: ProbeTarget) => ({ ok: !down.has(t.key), reason: down.has(t.key) ? 'status 503' : 'status 200', latencyMs: 0.1 });
  const monitor = { probe, intervalMs: () => 50, timeoutMs: () => 1000 };
  const many = (n: number): ProfileInput => ({
    name: `m${n}`,
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: `m${n}`, ttl: 30 },
    monitorConfig: { protocol: 'TCP', port: 9, intervalInSeconds: 30, timeoutInSeconds: 10, toleratedNumberOfFailures: 0 },
    endpoints: Array.from({ length: 5 }, (_, e) => ({ name: `e${e}`, type: 'externalEndpoints' as const, target: `127.0.${n}.${e + 1}` })),
  });
  const a = await start(tempDir(), { store, monitor });
  for (let n = 0; n < 10; n++) await a.client.putProfile(many(n));
  const saved = async (): Promise<Record<string, unknown>> => (await store.loadMonitorState())?.endpoints ?? {};
  await waitFor(
    async () => {
      const e = await saved();
      return Object.keys(e).length === 50 && Object.values(e).every((r) => (r as { verdict: string }).verdict === 'Online');
    },
    { what: 'all 50 records saved Online', timeoutMs: 10_000 },
  );
  const idle = store.saves.length;
  await new Promise((r) => setTimeout(r, 1500));
  expect(store.saves.length).toBe(idle); // nothing changed, nothing saved

  down.add('m3/e0');
  await waitFor(async () => ((await saved())['m3/e0'] as { verdict: string } | undefined)?.verdict === 'Degraded', {
    what: 'the Degraded record saved',
    timeoutMs: 10_000,
  });
  const afterDown = store.saves.slice(idle);
  expect(afterDown.map((c) => Object.keys(c.endpoints))).toEqual([['m3/e0']]);
  expect(afterDown[0]!.endpoints['m3/e0']).toMatchObject({
    verdict: 'Degraded',
    history: [
      { from: 'CheckingEndpoint', to: 'Online' },
      { from: 'Online', to: 'Degraded', reason: 'status 503' },
    ],
  });

  // One endpoint removed from a profile: its record goes, the others of the profile are rewritten as they are.
  const before = store.saves.length;
  await a.client.putProfile({ ...many(4), endpoints: many(4).endpoints!.slice(1) });
  await waitFor(async () => !('m4/e0' in (await saved())), { what: "the removed endpoint's record dropped", timeoutMs: 10_000 });
  const dropped = store.saves.slice(before).flatMap((c) => Object.keys(c.endpoints));
  expect(new Set(dropped)).toEqual(new Set(['m4/e0', 'm4/e1', 'm4/e2', 'm4/e3', 'm4/e4']));
  await a.client.close();
  await engines.pop()!.stop();

  // The restart reads the records: m3/e0 is Degraded from the start (carried, then confirmed), with its history.
  const b = await start(tempDir(), { store, monitor: { probe, intervalMs: () => 10_000, timeoutMs: () => 1000 } });
  const s = await b.client.status('m3');
  expect(s.endpoints[0]).toMatchObject({ name: 'e0', verdict: 'Degraded' });
  expect(s.transitions.map((t) => `${t.endpoint} ${t.from}→${t.to}`)).toContain('e0 Online→Degraded');
  await b.client.close();
});

test('the earlier whole-state monitor blob is read (verdicts carried over) and rewritten once as per-endpoint records', async () => {
  const dir = tempDir();
  const closed = await healthServer('127.0.0.64');
  const port = closed.port;
  await closed.close();
  const a = await start(dir);
  await a.client.putProfile(profile(port, '127.0.0.64', 2));
  await waitFor(async () => (await a.client.status('keep')).endpoints[0]!.endpointMonitorStatus === 'Degraded', { what: 'Degraded' });
  await a.client.close();
  await engines.pop()!.stop();

  // Turn the saved records into the blob earlier versions kept in one `monitor` row.
  const db = openDatabase(join(dir, 'tmkit.db'));
  const rows = db.prepare<{ key: string; value: string }>('SELECT key, value FROM monitor_state').all();
  const records = rows
    .filter((r) => r.key.startsWith('endpoint:'))
    .map((r) => [r.key.slice('endpoint:'.length), JSON.parse(r.value)] as const);
  expect(records.map(([k]) => k)).toEqual(['keep/only']);
  const [key, rec] = records[0]!;
  const legacy = {
    savedAt: Date.now(),
    verdicts: { [key]: rec.verdict },
    fingerprints: { [key]: rec.fingerprint },
    history: rec.history.map((t: object) => ({ ...t, key, profile: 'keep', endpoint: 'only' })),
  };
  db.exec('DELETE FROM monitor_state');
  db.prepare('INSERT INTO monitor_state (key, value, updated_at) VALUES (?, ?, ?)').run(
    'monitor',
    JSON.stringify(legacy),
    new Date().toISOString(),
  );
  db.close();

  const b = await start(dir, { monitor: { intervalMs: () => 10_000, timeoutMs: () => 1000 } });
  const s = await b.client.status('keep');
  expect(s.endpoints[0]).toMatchObject({ endpointMonitorStatus: 'Degraded', verdictCarriedOver: true });
  expect(s.transitions.map((t) => `${t.from}→${t.to}`)).toEqual(['CheckingEndpoint→Degraded']);
  await b.client.close();
  await engines.pop()!.stop();
  const after = openDatabase(join(dir, 'tmkit.db'));
  const now = Object.fromEntries(
    after
      .prepare<{ key: string; value: string }>('SELECT key, value FROM monitor_state')
      .all()
      .map((r) => [r.key, JSON.parse(r.value)]),
  );
  after.close();
  expect(Object.keys(now).sort()).toEqual(['endpoint:keep/only', 'monitor']);
  expect(now.monitor).toMatchObject({ format: 2 });
  expect(now['endpoint:keep/only']).toMatchObject({
    verdict: 'Degraded',
    fingerprint: rec.fingerprint,
    history: [{ from: 'CheckingEndpoint', to: 'Degraded' }],
  });
});

test('maintenance keeps the history: disable then enable lists the failover before it and both changes (API and status)', async () => {
  const closed = await healthServer('127.0.0.62');
  const port = closed.port;
  await closed.close();
  const a = await start(tempDir());
  const p: ProfileInput = { ...profile(port, '127.0.0.62', 0), name: 'maint', dnsConfig: { relativeName: 'maint', ttl: 30 } };
  await a.client.putProfile(p);
  await waitFor(async () => (await a.client.status('maint')).endpoints[0]!.endpointMonitorStatus === 'Degraded', { what: 'Degraded' });
  // Its only endpoint (answered by the all-degraded fallback): the safety rule wants force.
  await a.client.patchEndpoint('maint', 'only', { endpointStatus: 'Disabled' }, { force: true });
  await a.engine.settle();
  expect((await a.client.status('maint')).endpoints[0]!.endpointMonitorStatus).toBe('Disabled');
  await a.client.patchEndpoint('maint', 'only', { endpointStatus: 'Enabled' });
  await a.engine.settle();
  const s = await a.client.status('maint');
  // Newest first: the endpoint probed again (its first probe may have failed already), the maintenance, and
  // the failover before it.
  const steps = s.transitions.map((t) => `${t.from}→${t.to}`);
  expect(steps.slice(-3)).toEqual(['Disabled→CheckingEndpoint', 'Degraded→Disabled', 'CheckingEndpoint→Degraded']);
  expect(steps.length === 3 || steps[0] === 'CheckingEndpoint→Degraded').toBe(true);
  expect(s.transitions.at(-2)!.reason).toContain('endpointStatus Disabled');
});
