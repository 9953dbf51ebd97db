/**
 * Failback on a real engine in real time (the fake-timer tests are test/core/health/failback.test.ts and
 * test/runtime/ledger/ledger-operations.test.ts): real HTTP health servers that the test turns down and up, DNS asked with
 * the real `dig`, `tmkit endpoint failback`'s route.
 */
import { dig } from '../../support/process';
import { waitFor } from '../../support/wait';
import { harness, primaryBackup, switchable } from './support';

const h = harness('tmkit-failback-');

test('Manual failback: a recovered primary is AwaitingFailback (not answered) until `endpoint failback`; successesToRecover and the hold-down hold it Degraded first', async () => {
  const hs = await switchable(['127.0.0.2', '127.0.0.3']);
  try {
    const s = await h.start(h.tempDir());
    await s.client.putProfile(primaryBackup('web', hs.port, { failback: { mode: 'Manual', successesToRecover: 3, holdDownSeconds: 2 } }));
    const statusOf = async (): Promise<string> =>
      (await s.client.status('web')).endpoints.find((e) => e.name === 'primary')!.endpointMonitorStatus;
    await waitFor(async () => (await statusOf()) === 'Online', { what: 'Online' });
    expect(await dig(s.dns, 'web.tm.internal')).toEqual(['127.0.0.2']);

    hs.down.add('127.0.0.2');
    await waitFor(async () => (await statusOf()) === 'Degraded', { what: 'Degraded', timeoutMs: 10_000, intervalMs: 20 });
    const failedAt = Date.now();
    expect(await dig(s.dns, 'web.tm.internal')).toEqual(['127.0.0.3']);
    hs.down.delete('127.0.0.2');
    // Probes every 150 ms: three good ones come within half a second, but the hold-down is 2 s.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await statusOf()).toBe('Degraded');
    await waitFor(async () => (await statusOf()) === 'AwaitingFailback', { what: 'AwaitingFailback', timeoutMs: 10_000, intervalMs: 20 });
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(2_000);
    const st = await s.client.status('web');
    expect(st.failback).toEqual({ mode: 'Manual', successesToRecover: 3, holdDownSeconds: 2 });
    expect(st.profileMonitorStatus).toBe('Degraded');
    expect(st.endpoints.find((e) => e.name === 'primary')!.reason).toContain('waiting for `tmkit endpoint failback`');
    // Routing treats it as Degraded: the backup keeps answering, also a second later.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await statusOf()).toBe('AwaitingFailback');
    expect(await dig(s.dns, 'web.tm.internal')).toEqual(['127.0.0.3']);

    const fb = await s.client.failback('web', 'primary', { who: 'cli', reason: 'checked the logs' });
    expect(fb).toMatchObject({ profile: 'web', endpoint: 'primary', status: 'AwaitingFailback', who: 'cli' });
    expect(await dig(s.dns, 'web.tm.internal')).toEqual(['127.0.0.2']);
    expect(await statusOf()).toBe('Online');
    expect((await s.client.audit()).entries[0]).toMatchObject({
      action: 'failback',
      target: 'web/primary',
      who: 'cli',
      reason: 'checked the logs',
    });
    await expect(s.client.failback('web', 'primary')).rejects.toMatchObject({ status: 409, code: 'NOT_AWAITING_FAILBACK' });
  } finally {
    await hs.close();
  }
}, 60_000);

test('Automatic with successesToRecover: back Online (and answered) on the third good probe in a row, not the first', async () => {
  const hs = await switchable(['127.0.0.2', '127.0.0.3']);
  try {
    const s = await h.start(h.tempDir(), { monitor: { intervalMs: () => 400, timeoutMs: () => 1000 } });
    await s.client.putProfile(
      primaryBackup('web', hs.port, { failback: { mode: 'Automatic', successesToRecover: 3, holdDownSeconds: 0 } }),
    );
    const statusOf = async (): Promise<string> =>
      (await s.client.status('web')).endpoints.find((e) => e.name === 'primary')!.endpointMonitorStatus;
    await waitFor(async () => (await statusOf()) === 'Online', { what: 'Online' });
    hs.down.add('127.0.0.2');
    await waitFor(async () => (await statusOf()) === 'Degraded', { what: 'Degraded', timeoutMs: 10_000, intervalMs: 20 });
    hs.down.delete('127.0.0.2');
    const upAt = Date.now();
    await waitFor(async () => (await dig(s.dns, 'web.tm.internal'))[0] === '127.0.0.3', { what: 'the backup answered meanwhile' });
    await waitFor(async () => (await dig(s.dns, 'web.tm.internal'))[0] === '127.0.0.2', {
      what: 'Online again',
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    // Three probes 400 ms apart: the first good one at most 400 ms after it came back, the third 800 ms later.
    expect(Date.now() - upAt).toBeGreaterThanOrEqual(800);
  } finally {
    await hs.close();
  }
}, 60_000);
