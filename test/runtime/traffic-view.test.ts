/**
 * Issue 19 server side, against a real engine (SQLite, the shipped geo database, real DNS): Traffic View
 * counts real `dig +subnet` queries per country and endpoint for enrolled profiles only, /v1/events streams
 * transitions, revisions and traffic, /v1/preview gives the routing map under a failure scenario, and /ui/
 * is served without the token.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { request } from 'undici';
import { TmkitClient } from '../../src/client';
import type { ProfileInput } from '../../src/core/model/types';
import { Engine } from '../../src/runtime/engine';
import { dig } from './dns/support';
import { healthServer } from '../support/loopback';
import { waitFor } from '../support/wait';

let engine: Engine;
let client: TmkitClient;
let api: string;
let at: string[];
const dir = mkdtempSync(join(tmpdir(), 'tmkit-traffic-'));

const geoProfile = (name: string, enrolled: boolean, port: number): ProfileInput => ({
  name,
  trafficRoutingMethod: 'Geographic',
  dnsConfig: { relativeName: name, ttl: 0 },
  ...(enrolled ? { trafficViewEnrollmentStatus: 'Enabled' } : {}),
  monitorConfig: { protocol: 'HTTP', port, path: '/healthz', intervalInSeconds: 10, timeoutInSeconds: 5, toleratedNumberOfFailures: 0 },
  endpoints: [
    { name: 'eu', type: 'externalEndpoints', target: '127.0.0.2', geoMapping: ['GEO-EU'] },
    { name: 'world', type: 'externalEndpoints', target: '127.0.0.3', geoMapping: ['WORLD'] },
  ],
});

let health: Awaited<ReturnType<typeof healthServer>>;
beforeAll(async () => {
  health = await healthServer('127.0.0.2');
  engine = await Engine.start({
    stateDir: dir,
    zone: 'tm.internal',
    dns: [{ address: '127.0.0.1', port: 0 }],
    api: { host: '127.0.0.1', port: 0 },
    logger: pino({ level: 'silent' }),
    env: {},
    monitor: { intervalMs: () => 200, timeoutMs: () => 1000 },
  });
  api = `http://127.0.0.1:${engine.apiAddress().port}`;
  client = new TmkitClient({ server: api, token: engine.token.token, env: {} });
  const d = engine.dnsAddresses()[0]!;
  at = [`@${d.address}`, '-p', String(d.port)];
}, 60_000);
afterAll(async () => {
  await client.close();
  await engine.stop();
  await health.close();
  rmSync(dir, { recursive: true, force: true });
});

test('Traffic View counts dig +subnet queries per country and endpoint, only for enrolled profiles', async () => {
  await client.putProfile(geoProfile('shop', true, health.port));
  await client.putProfile(geoProfile('quiet', false, health.port));
  await engine.settle();
  for (let i = 0; i < 3; i++) expect((await dig([...at, '+subnet=194.25.2.0/24', 'shop.tm.internal'])).answer[0]![4]).toBe('127.0.0.2'); // DE
  for (let i = 0; i < 2; i++) expect((await dig([...at, '+subnet=8.8.8.0/24', 'shop.tm.internal'])).answer[0]![4]).toBe('127.0.0.3'); // US
  await dig([...at, '+subnet=194.25.2.0/24', 'quiet.tm.internal']);
  const report = await waitFor(
    async () => {
      const r = await request(`${api}/v1/profiles/shop/traffic`, { headers: { authorization: `Bearer ${engine.token.token}` } });
      const body = (await r.body.json()) as { buckets: Array<{ counts: Array<{ country: string; endpoint: string; queries: number }> }> };
      const counts = body.buckets.flatMap((b) => b.counts);
      return counts.reduce((n, c) => n + c.queries, 0) >= 5 ? body : undefined;
    },
    { what: 'the counts', timeoutMs: 10_000 },
  );
  expect(report).toMatchObject({ profile: 'shop', trafficViewEnrollmentStatus: 'Enabled', bucketSeconds: 60 });
  const cells = report.buckets.flatMap((b) => b.counts).sort((a, b) => a.country.localeCompare(b.country));
  expect(cells).toEqual([
    { country: 'DE', endpoint: 'shop/eu', queries: 3 },
    { country: 'US', endpoint: 'shop/world', queries: 2 },
  ]);
  const quiet = await request(`${api}/v1/profiles/quiet/traffic`, { headers: { authorization: `Bearer ${engine.token.token}` } });
  expect(await quiet.body.json()).toMatchObject({ profile: 'quiet', trafficViewEnrollmentStatus: 'Disabled', buckets: [] });
  const bad = await request(`${api}/v1/profiles/shop/traffic?since=yesterday`, {
    headers: { authorization: `Bearer ${engine.token.token}` },
  });
  expect(bad.statusCode).toBe(400);
  await bad.body.dump();
});

test('/v1/events streams revisions, transitions and traffic (token required)', async () => {
  const noToken = await request(`${api}/v1/events`);
  expect(noToken.statusCode).toBe(401);
  await noToken.body.dump();
  const ac = new AbortController();
  const res = await request(`${api}/v1/events`, { headers: { authorization: `Bearer ${engine.token.token}` }, signal: ac.signal });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
  let text = '';
  const events = (async () => {
    try {
      for await (const chunk of res.body) text += String(chunk);
    } catch {
      /* aborted */
    }
  })();
  const seen = (event: string, pattern: RegExp) =>
    waitFor(() => [...text.matchAll(new RegExp(`event: ${event}\\ndata: ([^\\n]*)`, 'g'))].some((m) => pattern.test(m[1]!)), {
      what: `event ${event}`,
      timeoutMs: 15_000,
    });
  const w = await client.patchProfile('shop', { dnsConfig: { ttl: 5 } });
  await seen('revision', new RegExp(`"revision":${w.revision}`));
  await dig([...at, '+subnet=194.25.2.0/24', 'shop.tm.internal']);
  await seen('traffic', /"profile":"shop".*"country":"DE"/);
  await health.close(); // the eu endpoint's health server goes away
  await seen('transition', /"profile":"shop","endpoint":"eu","from":"Online","to":"Degraded"/);
  ac.abort();
  await events;
});

test('/v1/preview: the routing map of a deployed profile, with a failure scenario', async () => {
  const call = async (body: unknown) => {
    const r = await request(`${api}/v1/preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${engine.token.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: r.statusCode,
      body: (await r.body.json()) as { rows: Array<{ client: string; endpoint: string; probability: number }>; errors?: unknown },
    };
  };
  await client.putProfile({
    ...geoProfile('map', false, 1),
    endpoints: geoProfile('map', false, 1).endpoints!.map((e) => ({ ...e, alwaysServe: 'Enabled' as const })),
  });
  const now = await call({ profile: 'map' });
  expect(now.status).toBe(200);
  const de = (r: typeof now) => r.body.rows.filter((x) => x.client === 'DE');
  expect(de(now)).toEqual([expect.objectContaining({ client: 'DE', endpoint: 'map/eu', probability: 1 })]);
  expect(now.body.rows.find((x) => x.client === 'US')).toMatchObject({ endpoint: 'map/world', probability: 1 });
  // eu down: Geographic answers a mapped endpoint even when Degraded (docs/routing.md), so DE keeps eu.
  const down = await call({ profile: 'map', down: ['eu'] });
  expect(down.body).toMatchObject({ profile: 'map', trafficRoutingMethod: 'Geographic', down: ['eu'] });
  expect(de(down)[0]).toMatchObject({ endpoint: 'map/eu' });
  expect((await call({ profile: 'nope' })).status).toBe(404);
  expect((await call({ profile: 'map', down: 'eu' })).status).toBe(400);
});

test('/ui/ is served from the API listener without the token, with a strict content security policy', async () => {
  const page = await request(`${api}/ui/`);
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.headers['content-security-policy']).toMatch(
    /default-src 'none'; script-src 'self'.*connect-src 'self'.*frame-ancestors 'none'/,
  );
  expect(await page.body.text()).toMatch(/<div id="app"|<script type="module"/);
  const root = await request(`${api}/`);
  expect(root.statusCode).toBe(302);
  expect(root.headers.location).toBe('/ui/');
  await root.body.dump();
  const traversal = await request(`${api}/ui/..%2F..%2Fpackage.json`);
  expect(traversal.statusCode).toBe(404);
  await traversal.body.dump();
  // The data behind it still needs the token.
  const data = await request(`${api}/v1/profiles`);
  expect(data.statusCode).toBe(401);
  await data.body.dump();
});
