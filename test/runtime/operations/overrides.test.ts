/**
 * Overrides on a real engine (SQLite in a temp dir, the API over HTTP, DNS over UDP asked with the real `dig`,
 * real HTTP health servers on loopback): down, weight, expiry, clear, a restart, Always Serve, the safety
 * rule and --force, and that the stored profile never changes (no drift for Terraform or Pulumi).
 */
import { request } from 'undici';
import { TmkitApiError } from '../../../src/client';
import { dig } from '../../support/process';
import { healthServerPair } from '../../support/loopback';
import { waitFor } from '../../support/wait';
import { allOnline, harness, loopbackProfile, primaryBackup } from './support';

const h = harness('tmkit-ops-');

test('a down override takes the endpoint out at once; status, resolve, metrics, the audit log and the events say so; the profile never changes', async () => {
  const [a, b] = await healthServerPair('127.0.0.2', '127.0.0.3');
  try {
    const s = await h.start(h.tempDir());
    const put = await s.client.putProfile(primaryBackup('web', a.port));
    await allOnline(s.client, 'web');
    expect(await dig(s.dns, 'web.tm.internal')).toEqual(['127.0.0.2']);

    const events = await request(`${s.api}/v1/events`, { headers: { authorization: `Bearer ${s.engine.token.token}` } });
    const r = await s.client.createOverride({
      kind: 'down',
      profile: 'web',
      endpoint: 'primary',
      for: '30m',
      reason: 'game day',
      who: 'cli',
    });
    expect(r.override).toMatchObject({ kind: 'down', profile: 'web', endpoint: 'primary', reason: 'game day', who: 'cli' });
    expect(r.override.id).toMatch(/^ov-[0-9a-f]{10}$/);
    expect(Date.parse(r.override.expiresAt) - Date.parse(r.override.createdAt)).toBe(1_800_000);
    // The API answers once DNS serves it.
    expect(await dig(s.dns, 'web.tm.internal')).toEqual(['127.0.0.3']);

    const st = await s.client.status('web');
    const primary = st.endpoints.find((e) => e.name === 'primary')!;
    expect(primary.endpointMonitorStatus).toBe('Degraded');
    expect(primary.reason).toMatch(/^override down by cli until .* \(game day\): taken out of DNS$/);
    expect(primary.overrides).toEqual([r.override]);
    const res = await s.client.resolve({ name: 'web.tm.internal' });
    expect(res.explanation.map((x) => x.detail).join('\n')).toContain('override down by cli');
    expect((await s.client.listOverrides()).overrides).toEqual([r.override]);
    expect(await s.client.metrics()).toContain('tmkit_overrides_active{profile="web",endpoint="primary",kind="down"} 1');
    const audit = (await s.client.audit()).entries;
    expect(audit[0]).toMatchObject({
      who: 'cli',
      action: 'override.create',
      target: 'web/primary',
      reason: 'game day',
      details: { id: r.override.id, kind: 'down' },
    });
    // No drift: the stored profile and its ETag are what was written.
    const got = await s.client.getProfile('web');
    expect(got.etag).toBe(put.etag);
    expect(got.profile).toEqual(put.profile);

    const cleared = await s.client.clearOverride(r.override.id, { who: 'cli', reason: 'done' });
    expect(cleared).toMatchObject({ id: r.override.id, deleted: true });
    expect(await dig(s.dns, 'web.tm.internal')).toEqual(['127.0.0.2']);
    expect((await s.client.audit()).entries[0]).toMatchObject({ action: 'override.clear', who: 'cli', reason: 'done' });
    await expect(s.client.clearOverride(r.override.id)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });

    // The live events carried both (webhooks subscribe to the same stream).
    const text = await readFor(events.body, 300);
    expect(text).toMatch(/event: override\ndata: \{"action":"created"/);
    expect(text).toMatch(/event: override\ndata: \{"action":"cleared"/);
  } finally {
    await a.close();
    await b.close();
  }
}, 60_000);

test('an override ends by itself at its expiry (and the record with an audit entry), and survives a restart until then', async () => {
  const [a, b] = await healthServerPair('127.0.0.2', '127.0.0.3');
  try {
    const dir = h.tempDir();
    let s = await h.start(dir);
    await s.client.putProfile(primaryBackup('web', a.port));
    await allOnline(s.client, 'web');
    const long = await s.client.createOverride({ kind: 'down', profile: 'web', endpoint: 'primary', for: '1h', who: 'cli' });
    await h.stop(s);
    s = await h.start(dir);
    // Served from the first answer after the restart: the override came back from the store before DNS started.
    expect(await dig(s.dns, 'web.tm.internal')).toEqual(['127.0.0.3']);
    expect((await s.client.listOverrides()).overrides.map((o) => o.id)).toEqual([long.override.id]);
    await s.client.clearOverride(long.override.id);

    const short = await s.client.createOverride({
      kind: 'down',
      profile: 'web',
      endpoint: 'primary',
      for: '2s',
      who: 'cli',
      reason: 'short',
    });
    expect(await dig(s.dns, 'web.tm.internal')).toEqual(['127.0.0.3']);
    const t0 = Date.now();
    await waitFor(async () => (await dig(s.dns, 'web.tm.internal'))[0] === '127.0.0.2', {
      what: 'the expiry',
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    const waited = Date.now() - t0;
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(short.override.expiresAt));
    expect(waited).toBeLessThan(3_000);
    expect((await s.client.listOverrides()).overrides).toEqual([]);
    await waitFor(
      async () => (await s.client.audit()).entries.find((e) => e.action === 'override.expire' && e.details?.id === short.override.id),
      { what: 'the expire audit entry' },
    );
  } finally {
    await a.close();
    await b.close();
  }
}, 60_000);

test('a weight override replaces the weight in Weighted routing; a second one replaces the first; Priority refuses it', async () => {
  const [a, b] = await healthServerPair('127.0.0.2', '127.0.0.3');
  try {
    const s = await h.start(h.tempDir());
    await s.client.putProfile(
      loopbackProfile(
        'w',
        a.port,
        [
          { name: 'a', type: 'externalEndpoints', target: '127.0.0.2', weight: 1 },
          { name: 'b', type: 'externalEndpoints', target: '127.0.0.3', weight: 1 },
        ],
        { trafficRoutingMethod: 'Weighted' },
      ),
    );
    await waitFor(async () => (await s.client.status('w')).endpoints.every((e) => e.endpointMonitorStatus === 'Online'), {
      what: 'Online',
    });
    const split = async (): Promise<Record<string, number>> =>
      Object.fromEntries((await s.client.resolve({ name: 'w.tm.internal' })).outcomes.map((o) => [o.endpoints.join(), o.probability]));
    expect(await split()).toEqual({ 'w/a': 0.5, 'w/b': 0.5 });
    const one = await s.client.createOverride({ kind: 'weight', profile: 'w', endpoint: 'a', weight: 3, for: '10m' });
    expect(await split()).toEqual({ 'w/a': 0.75, 'w/b': 0.25 });
    const two = await s.client.createOverride({ kind: 'weight', profile: 'w', endpoint: 'a', weight: 9, for: '10m' });
    expect(two.replaced).toEqual([one.override.id]);
    expect(await split()).toEqual({ 'w/a': 0.9, 'w/b': 0.1 });
    expect((await s.client.status('w')).endpoints.find((e) => e.name === 'a')).toMatchObject({ effectiveWeight: 9 });
    // DNS samples with those weights: 400 real queries land about 9 to 1.
    let hitsA = 0;
    for (let i = 0; i < 40; i++) for (const ip of await dig(s.dns, 'w.tm.internal')) if (ip === '127.0.0.2') hitsA++;
    expect(hitsA).toBeGreaterThan(28);
    await s.client.putProfile(loopbackProfile('p', a.port, [{ name: 'a', type: 'externalEndpoints', target: '127.0.0.2' }]));
    await expect(s.client.createOverride({ kind: 'weight', profile: 'p', endpoint: 'a', weight: 3, for: '10m' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Priority routing, which does not use weights'),
    });
  } finally {
    await a.close();
    await b.close();
  }
}, 60_000);

test('the safety rule refuses what would leave no endpoint able to serve, and --force takes it out anyway; Always Serve does not bypass a down override', async () => {
  const [a, b] = await healthServerPair('127.0.0.2', '127.0.0.3');
  try {
    const s = await h.start(h.tempDir());
    await s.client.putProfile(
      loopbackProfile('web', a.port, [
        { name: 'primary', type: 'externalEndpoints', target: '127.0.0.2' },
        { name: 'backup', type: 'externalEndpoints', target: '127.0.0.9' }, // nothing listens: Degraded
      ]),
    );
    await waitFor(
      async () => (await s.client.status('web')).endpoints.find((e) => e.name === 'backup')?.endpointMonitorStatus === 'Degraded',
      { what: 'backup Degraded' },
    );
    const refused = await s.client
      .createOverride({ kind: 'down', profile: 'web', endpoint: 'primary', for: '10m', who: 'cli' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TmkitApiError);
    expect(refused).toMatchObject({ status: 409, code: 'OVERRIDE_UNSAFE' });
    expect((refused as TmkitApiError).errors[0]!.message).toBe(
      'refused: taking web/primary down would leave profile web with no endpoint able to serve (left: backup Degraded); pass --force (API: "force": true) to take it out anyway',
    );
    expect(await dig(s.dns, 'web.tm.internal')).toEqual(['127.0.0.2']);
    expect((await s.client.audit()).entries[0]).toMatchObject({ action: 'override.refuse', target: 'web/primary' });
    // Forced: the primary is out; the Degraded backup is all that is left, so the all-degraded fallback answers it.
    await s.client.createOverride({ kind: 'down', profile: 'web', endpoint: 'primary', for: '10m', force: true });
    expect(await dig(s.dns, 'web.tm.internal')).toEqual(['127.0.0.9']);

    await s.client.putProfile(
      loopbackProfile('as', a.port, [
        { name: 'pinned', type: 'externalEndpoints', target: '127.0.0.2', alwaysServe: 'Enabled' },
        { name: 'other', type: 'externalEndpoints', target: '127.0.0.3' },
      ]),
    );
    await waitFor(async () => (await s.client.status('as')).endpoints.find((e) => e.name === 'other')?.endpointMonitorStatus === 'Online', {
      what: 'other Online',
    });
    expect(await dig(s.dns, 'as.tm.internal')).toEqual(['127.0.0.2']);
    await s.client.createOverride({ kind: 'down', profile: 'as', endpoint: 'pinned', for: '10m' });
    expect(await dig(s.dns, 'as.tm.internal')).toEqual(['127.0.0.3']);
  } finally {
    await a.close();
    await b.close();
  }
}, 60_000);

test('requests the API refuses', async () => {
  const s = await h.start(h.tempDir());
  await s.client.putProfile(
    loopbackProfile('web', 9, [{ name: 'a', type: 'externalEndpoints', target: '127.0.0.2', alwaysServe: 'Enabled' }]),
  );
  await expect(s.client.createOverride({ kind: 'down', profile: 'web', endpoint: 'a', for: '8d' })).rejects.toMatchObject({ status: 400 });
  await expect(s.client.createOverride({ kind: 'down', profile: 'nope', endpoint: 'a', for: '1h' })).rejects.toMatchObject({ status: 404 });
  await expect(s.client.createOverride({ kind: 'down', profile: 'web', endpoint: 'zz', for: '1h' })).rejects.toMatchObject({
    status: 404,
    message: expect.stringContaining("has no endpoint 'zz'"),
  });
  await expect(s.client.failback('web', 'a')).rejects.toMatchObject({ status: 409, code: 'NOT_AWAITING_FAILBACK' });
});

/** Reads an SSE body for `ms`, then stops. */
async function readFor(body: AsyncIterable<Buffer> & { destroy(): void }, ms: number): Promise<string> {
  let text = '';
  const stop = setTimeout(() => body.destroy(), ms);
  try {
    for await (const chunk of body) text += chunk.toString('utf8');
  } catch {
    /* destroyed */
  }
  clearTimeout(stop);
  return text;
}
