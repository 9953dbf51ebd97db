/**
 * No O(N) work per change (issue 17 §4), at 2,000 profiles / 4,000 probed endpoints, through the real engine
 * (SQLite store, management API over HTTP, DNS over UDP, injected prober on fake timers):
 *   - a write reads a constant number of profile rows (its own), never a walk of the table;
 *   - the prober retargets only the changed profile's endpoints: every other endpoint keeps its state,
 *     last probe, history and timer (it is not probed again), and nothing is retargeted in full;
 *   - the incremental view still sees every committed write (the case-insensitive name rule), and falls back
 *     to one walk when the database moved under it (another connection wrote).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { TmkitApiError, TmkitClient } from '../../../src/client';
import { normalizeProfile } from '../../../src/core/model/normalize';
import { DEFAULT_STACK, type ProfileInput } from '../../../src/core/model/types';
import type { GeoLookup } from '../../../src/core/ports';
import { MmdbGeoLookup } from '../../../src/geo';
import { Engine } from '../../../src/runtime/engine';
import { SqliteStore } from '../../../src/runtime/store';
import { FakeTimers } from '../monitor/fake-timers';
import { aRecords, queryUdp } from '../../support/loopback';

const ZONE = 'tm.internal';
const PROFILES = Number(process.env.TMKIT_SCALE_PROFILES ?? 2000);
const name = (i: number): string => `p${String(i).padStart(5, '0')}`;
const addr = (i: number, e: number): string => `10.${(i >> 8) & 255}.${i & 255}.${e + 1}`;

function input(i: number, opts: { path?: string; first?: string } = {}): ProfileInput {
  return {
    name: name(i),
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: name(i), ttl: 30 },
    monitorConfig: {
      protocol: 'HTTP',
      port: 80,
      path: opts.path ?? '/health',
      intervalInSeconds: 30,
      timeoutInSeconds: 10,
      toleratedNumberOfFailures: 0,
    },
    endpoints: [0, 1].map((e) => ({ name: `e${e}`, type: 'externalEndpoints', target: e === 0 && opts.first ? opts.first : addr(i, e) })),
  };
}

let geo: GeoLookup;
beforeAll(async () => {
  geo = await MmdbGeoLookup.open();
});

test(`a write reads only its own rows and retargets only its own endpoints (${PROFILES} profiles)`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-scale-'));
  const store = SqliteStore.open({ stateDir: ':memory:' });
  for (let i = 0; i < PROFILES; i++) await store.putProfile(normalizeProfile(input(i)), { stack: DEFAULT_STACK });
  const timers = new FakeTimers();
  const probed = new Map<string, number>();
  const engine = await Engine.start({
    stateDir: dir,
    store,
    zone: ZONE,
    dns: [{ address: '127.0.0.1', port: 0 }],
    api: { host: '127.0.0.1', port: 0 },
    logger: pino({ level: 'silent' }),
    env: {},
    geo,
    monitor: {
      timers,
      probe: async (t) => {
        probed.set(t.key, (probed.get(t.key) ?? 0) + 1);
        return { ok: true, reason: 'status 200', latencyMs: 1 };
      },
    },
  });
  try {
    const client = new TmkitClient({ server: `http://127.0.0.1:${engine.apiAddress().port}`, token: engine.token.token, env: {} });
    const dns = engine.dnsAddresses()[0]!;
    await timers.advance(0); // every endpoint's first probe: all Online, each with a last probe and a transition
    expect(engine.proberStats().targets).toBe(PROFILES * 2);
    expect(probed.size).toBe(PROFILES * 2);
    const stats = (): { rowsRead: number; viewRebuilds: number } => store.stats();
    const retargets = (): { full: number; incremental: number; endpoints: number } => engine.proberStats().retargets;
    const untouched = [name(1), name(Math.floor(PROFILES / 2)), name(PROFILES - 1)];
    const statusesBefore = untouched.map((p) => engine.proberStatuses(p));
    expect(
      statusesBefore.every((s) => s.length === 2 && s.every((e) => e.verdict === 'Online' && e.lastProbe && e.history.length === 1)),
    ).toBe(true);

    // The first write that needs the view walks the table once (the counter counts real rows)...
    await client.putProfile(input(0, { first: '192.0.2.200' }));
    await engine.settle();
    const afterFirst = stats();
    expect(afterFirst.viewRebuilds).toBe(1);
    expect(afterFirst.rowsRead).toBeGreaterThanOrEqual(PROFILES);

    // ...and from then on every write reads the same small number of rows, at any position in the table.
    const perWrite: number[] = [];
    const retargeted: number[] = [];
    const fullBefore = retargets().full;
    for (const [k, i] of [
      [0, 3],
      [1, 400],
      [2, PROFILES - 2],
      [3, 7],
      [4, 1234 % PROFILES],
    ] as const) {
      const r0 = stats().rowsRead;
      const t0 = retargets().endpoints;
      probed.clear();
      // A changed probe path resets both endpoints; a changed first target replaces e0's settings.
      await client.putProfile(input(i, { first: `192.0.2.${10 + k}`, path: `/v${k}` }));
      await engine.settle();
      perWrite.push(stats().rowsRead - r0);
      retargeted.push(retargets().endpoints - t0);
      expect((await queryUdp(dns, `${name(i)}.${ZONE}`)).answers.length).toBeGreaterThan(0);
      expect(aRecords(await queryUdp(dns, `${name(i)}.${ZONE}`))).toEqual([`192.0.2.${10 + k}`]);
      await timers.advance(0); // the reset endpoints are probed at once; nothing else is due
      expect([...probed.keys()].sort()).toEqual([`${name(i)}/e0`, `${name(i)}/e1`]);
    }
    process.stdout.write(
      `rows read per write ${perWrite.join(', ')}; endpoints retargeted per write ${retargeted.join(', ')} (first write walked ${afterFirst.rowsRead} rows)\n`,
    );
    expect(stats().viewRebuilds).toBe(1);
    expect(new Set(perWrite).size).toBe(1);
    expect(perWrite[0]).toBeLessThanOrEqual(3);
    expect(retargeted).toEqual([2, 2, 2, 2, 2]); // the profile's endpoints, of 4,000
    expect(retargets().full).toBe(fullBefore);
    // Untouched endpoints: the very same state, last probe, history.
    expect(untouched.map((p) => engine.proberStatuses(p))).toEqual(statusesBefore);

    // The view follows creates and deletes without walking: the case-insensitive name rule still holds.
    await client.putProfile({ ...input(PROFILES), name: 'Fresh', dnsConfig: { relativeName: 'fresh', ttl: 30 } });
    const clash = await client
      .putProfile({ ...input(PROFILES), name: 'FRESH', dnsConfig: { relativeName: 'fresh2', ttl: 30 } })
      .catch((e: unknown) => e);
    expect(clash).toBeInstanceOf(TmkitApiError);
    expect((clash as TmkitApiError).status).toBe(409);
    await client.deleteProfile('Fresh');
    await client.putProfile({ ...input(PROFILES), name: 'FRESH', dnsConfig: { relativeName: 'fresh2', ttl: 30 } });
    await engine.settle();
    expect(aRecords(await queryUdp(dns, `fresh2.${ZONE}`))).toEqual([addr(PROFILES, 0)]);
    expect((await queryUdp(dns, `fresh.${ZONE}`)).rcode).toBe('NXDOMAIN');
    expect(stats().viewRebuilds).toBe(1);
    expect(retargets().full).toBe(fullBefore);
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

test('the view walks the table again when another connection moved the revision', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-scale-view-'));
  const a = SqliteStore.open({ stateDir: dir });
  const b = SqliteStore.open({ stateDir: dir });
  try {
    const put = (s: SqliteStore, i: number, n = name(i)) =>
      s.putProfile(normalizeProfile({ ...input(i), name: n, dnsConfig: { relativeName: n.toLowerCase(), ttl: 30 } }), {
        stack: DEFAULT_STACK,
      });
    for (let i = 0; i < 20; i++) await put(a, i);
    expect(a.stats().viewRebuilds).toBe(1);
    await put(b, 0, 'Other'); // b's write: a's view is now behind the file
    const rebuilds = a.stats().viewRebuilds;
    await expect(put(a, 1, 'OTHER')).rejects.toMatchObject({ code: 'PROFILE_NAME_CONFLICT' });
    expect(a.stats().viewRebuilds).toBe(rebuilds + 1);
    // Current again: the next write reads only its own row.
    const r0 = a.stats().rowsRead;
    await put(a, 2); // an update: the view is current again, so no row is read at all
    expect(a.stats().rowsRead - r0).toBe(0);
    expect(a.stats().viewRebuilds).toBe(rebuilds + 1);
  } finally {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
