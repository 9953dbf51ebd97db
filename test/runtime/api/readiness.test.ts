/**
 * Issue 39, items 7 and 9: readiness apart from liveness (`GET /readyz`, the drain) on a real engine with
 * real DNS, `/healthz` without the token, and the management API's own guards: failed token checks throttled per
 * source address (logged once a minute), and a connection cap of its own.
 */
import { Agent, request } from 'undici';
import type { LiveEvent } from '../../../src/core/api';
import { AuthThrottle } from '../../../src/runtime/api/auth';
import { DEFAULT_MAX_CONNECTIONS } from '../../../src/runtime/api/http';
import { dig } from '../../support/process';
import { engineHarness } from '../engine/harness';
import { call, startApi, TOKEN, type Harness } from './harness';

const { start } = engineHarness('tmkit-readiness-');

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const r = await request(url, { headers });
  return { status: r.statusCode, text: await r.body.text() };
}

describe('readiness (GET /readyz) and the drain', () => {
  test('ready; drained: 503 with who and why while dig still answers; undrained: ready again; audited, and a node event', async () => {
    const { engine, client } = await start();
    const api = `http://127.0.0.1:${engine.apiAddress().port}`;
    const dnsAt = engine.dnsAddresses()[0]!;
    const events: LiveEvent[] = [];
    const off = engine.events.onEvent((e) => events.push(e));

    expect(await get(`${api}/readyz`)).toEqual({ status: 200, text: 'ready\n' });
    expect(await client.node()).toEqual({ state: 'ready', ready: true });

    const drained = await client.drainNode({ who: 'alice', reason: 'kernel upgrade' });
    expect(drained).toMatchObject({ state: 'draining', ready: false, drain: { who: 'alice', reason: 'kernel upgrade' } });
    const r = await get(`${api}/readyz`);
    expect(r.status).toBe(503);
    expect(r.text).toMatch(/^draining \(tmkit node drain at \d{4}-\d\d-\d\dT[\d:.]+Z by alice: kernel upgrade\)\n$/);
    // DNS keeps answering while drained; liveness is not readiness.
    expect((await dig(dnsAt, 'tm.internal', 'SOA')).length).toBe(1);
    expect((await get(`${api}/healthz`)).status).toBe(200);

    const back = await client.undrainNode({ who: 'alice' });
    expect(back).toEqual({ state: 'ready', ready: true });
    expect(await get(`${api}/readyz`)).toEqual({ status: 200, text: 'ready\n' });

    const audit = (await client.audit(10)).entries.map((e) => [e.action, e.who, e.reason]);
    expect(audit).toEqual([
      ['node.undrain', 'alice', undefined],
      ['node.drain', 'alice', 'kernel upgrade'],
    ]);
    expect(events.filter((e) => e.type === 'node').map((e) => (e.data as { action: string }).action)).toEqual(['drained', 'undrained']);
    off();
  });

  test('the drain needs the token; /readyz does not', async () => {
    const { engine } = await start();
    const api = `http://127.0.0.1:${engine.apiAddress().port}`;
    expect((await request(`${api}/v1/node/drain`, { method: 'POST' })).statusCode).toBe(401);
    expect((await get(`${api}/readyz`)).status).toBe(200);
  });

  test('/healthz without the token says only ok; with it, the revisions', async () => {
    const { engine } = await start();
    const api = `http://127.0.0.1:${engine.apiAddress().port}`;
    expect(await get(`${api}/healthz`)).toEqual({ status: 200, text: '{\n  "status": "ok"\n}\n' });
    const full = JSON.parse((await get(`${api}/healthz`, { authorization: `Bearer ${engine.token.token}` })).text) as Record<
      string,
      unknown
    >;
    expect(full).toEqual({ status: 'ok', zone: 'tm.internal', revision: 0, servedRevision: 0, lagRevisions: 0, lagSeconds: 0 });
  });
});

describe('the management API: failed token checks throttled per source', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startApi();
  });
  afterEach(async () => {
    await h.close();
  });

  test('12 wrong tokens from one address: 429 with Retry-After; a good token from another address: 200; logged once', async () => {
    const statuses: number[] = [];
    let retryAfter: string | undefined;
    for (let i = 0; i < 12; i++) {
      const r = await call(h.base, 'GET', '/v1/profiles', { auth: 'Bearer wrong-token-guess' });
      statuses.push(r.status);
      if (r.status === 429) {
        retryAfter = String(r.headers['retry-after']);
        expect(r.body.errors[0].code).toBe('TOO_MANY_AUTH_FAILURES');
      }
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual([429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(10);
    // Even the right token waits from that address (no guessing while throttled)…
    expect((await call(h.base, 'GET', '/v1/profiles')).status).toBe(429);
    // …but another address is not held up, and the open routes answer.
    const from2 = new Agent({ localAddress: '127.0.0.2' });
    const other = await request(`${h.base}/v1/profiles`, { headers: { authorization: `Bearer ${TOKEN}` }, dispatcher: from2 });
    await other.body.text();
    await from2.close();
    expect(other.statusCode).toBe(200);
    expect((await call(h.base, 'GET', '/healthz', { auth: null })).status).toBe(200);

    const refused = h.logs.map((l) => JSON.parse(l) as { msg: string; source?: string }).filter((l) => /refused/.test(l.msg));
    expect(refused).toHaveLength(1);
    expect(refused[0]!.source).toBe('127.0.0.1');
    const requestLines = h.logs.map((l) => JSON.parse(l) as { msg: string; status?: number }).filter((l) => l.msg === 'api request');
    expect(requestLines.filter((l) => l.status === 401 || l.status === 429)).toEqual([]);
  });

  test('the API has a connection cap of its own (default 512, configurable)', async () => {
    expect(h.api.server.maxConnections).toBe(DEFAULT_MAX_CONNECTIONS);
    expect(DEFAULT_MAX_CONNECTIONS).toBe(512);
    const capped = await startApi({ maxConnections: 7 });
    try {
      expect(capped.api.server.maxConnections).toBe(7);
    } finally {
      await capped.close();
    }
  });
});

describe('AuthThrottle', () => {
  test('refills over time, logs at most once a minute per source, and forgets the least recently seen past its bound', () => {
    let now = 0;
    const t = new AuthThrottle({ burst: 3, perSeconds: 3, maxSources: 100, logEveryMs: 60_000 }, () => now);
    expect([t.failed('10.0.0.1'), t.failed('10.0.0.1'), t.failed('10.0.0.1')]).toEqual([1, 0, 0]);
    expect(t.retryAfter('10.0.0.1')).toBe(1);
    expect(t.retryAfter('10.0.0.2')).toBe(0);
    now += 1_000;
    expect(t.retryAfter('10.0.0.1')).toBe(0);
    now += 60_000;
    expect(t.failed('10.0.0.1')).toBe(3); // the two unlogged ones and this one
    for (let i = 0; i < 10_000; i++) t.failed(`2001:db8:${(i >> 8).toString(16)}:${(i & 255).toString(16)}::1`);
    expect(t.size).toBe(100);
    expect(AuthThrottle.sourceKey('2001:db8:0:1:a:b:c:d')).toBe('2001:db8:0:1::/64');
    expect(AuthThrottle.sourceKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(AuthThrottle.sourceKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
  });
});
