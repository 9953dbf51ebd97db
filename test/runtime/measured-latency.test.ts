/**
 * Performance routing from measured latency in a real engine (fast probing every 150 ms, SQLite, the shipped
 * geo database, real DNS answered to `dig +subnet`): two real HTTP endpoints on loopback whose /healthz
 * answers after a delay we set. The distance model sends a German client to `near` (westeurope); once the
 * prober measured `near` 150 ms slower, the client gets `far`; the tolerance band holds the choice while
 * the other is better by less than toleranceMs (no flapping), and lets it go once it is better by more.
 */
import { request } from 'undici';
import { dig } from './dns/support';
import { delayed, measuredProfile } from './measured-support';
import { harness } from './operations/support';
import { waitFor } from '../support/wait';

/** A client in Germany (ECS): the distance model puts West Europe far ahead of Japan East. */
const GERMANY = '+subnet=194.25.2.0/24';
const ANSWER = { near: '127.0.0.2', far: '127.0.0.3' } as const;

const h = harness('tmkit-measured-');
let servers: Awaited<ReturnType<typeof delayed>> | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
});

test('measured latency moves a client to the faster endpoint, holds it within toleranceMs, and lets it go beyond', async () => {
  servers = await delayed([ANSWER.near, ANSWER.far]);
  servers.delay.set(ANSWER.near, 150);
  const s = await h.start(h.tempDir());
  // A 40 ms tolerance: wide enough that a load spike on one probe (30% of it in the EWMA) cannot cross it.
  await s.client.putProfile(measuredProfile(servers.port, 5, undefined, 40));
  const at = [`@${s.dns.address}`, '-p', String(s.dns.port)];
  const answer = async (): Promise<string> => (await dig([...at, GERMANY, 'web.tm.internal'])).answer[0]?.[4] ?? '(none)';
  const why = async (): Promise<string> =>
    (await s.client.resolve({ name: 'web.tm.internal', type: 'A', clientIp: '194.25.2.1' })).explanation
      .map((x) => `${x.kind}${x.endpoint ? ` ${x.endpoint}` : ''}: ${x.detail}`)
      .join('\n');

  // Before five samples: the distance model (near).
  await waitFor(async () => (await s.client.status('web')).endpoints.every((e) => e.endpointMonitorStatus === 'Online'), {
    what: 'both Online',
  });
  expect(await answer()).toBe(ANSWER.near);
  expect(await why()).toMatch(/performance-source: distance model/);

  // Measured: far is 150 ms faster to probe.
  await waitFor(async () => (await answer()) === ANSWER.far, { what: 'the measured answer far', timeoutMs: 20_000 });
  const measured = await why();
  expect(measured).toMatch(/performance-source: measured: client mapped to \S+ \(the only probing location\); 2 of 2 endpoints/);
  expect(measured).toMatch(/select far: measured: [\d.]+ ms from \S+ \(EWMA of \d+ probes\)/);
  // The routing map (POST /v1/preview) ranks by the same measurements and says so on every row.
  const preview = await request(`${s.api}/v1/preview`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.engine.token.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ profile: 'web' }),
  });
  const rows = ((await preview.body.json()) as { rows: { label: string; endpoint: string; performanceSource?: string }[] }).rows;
  expect(rows.find((r) => r.label === 'Germany')).toMatchObject({ endpoint: 'web/far', performanceSource: 'measured' });
  expect(new Set(rows.map((r) => r.performanceSource))).toEqual(new Set(['measured']));

  // near becomes the faster by 25 ms (within the 40 ms tolerance): far stays, probe after probe.
  servers.delay.set(ANSWER.near, 0);
  servers.delay.set(ANSWER.far, 25);
  const seen = new Set<string>();
  const until = Date.now() + 5_000;
  while (Date.now() < until) {
    seen.add(await answer());
    await new Promise((r) => setTimeout(r, 100));
  }
  expect([...seen]).toEqual([ANSWER.far]);
  expect(await why()).toMatch(/within the 40 ms tolerance of the best \(near, [\d.]+ ms\): kept/);

  // near better by 100 ms (beyond the tolerance): back to near.
  servers.delay.set(ANSWER.far, 100);
  await waitFor(async () => (await answer()) === ANSWER.near, { what: 'back to near', timeoutMs: 20_000 });
  expect(await why()).toMatch(/select near: measured: /);
}, 90_000);
