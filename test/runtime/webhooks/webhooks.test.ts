/**
 * Webhooks (docs/webhooks.md) through the real runtime and a real receiver on loopback: every transition
 * exactly once and in order with a valid X-Tmkit-Signature while the receiver is up; at least once and in
 * order across a receiver outage (connections refused, then 503s); the bounded queue dropping the oldest
 * with a metric; the SSRF stance (loopback refused unless allowed); the delivery log; and the delivery
 * latency (event → receiver's 2xx), printed as p50/p99.
 */
import { createHmac } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TmkitApiError, TmkitClient } from '../../../src/client';
import type { EngineOptions } from '../../../src/runtime/engine';
import { profileInput } from '../api/fixtures';
import { engineHarness } from '../engine/harness';
import { healthServerPair } from '../../support/loopback';
import { waitFor } from '../../support/wait';

const { start: run, closers, engines } = engineHarness('tmkit-webhooks-');

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  arrived: number;
}

/** A webhook receiver on loopback: records every POST; `status` decides the answer; stop/start keep the port. */
async function receiver(): Promise<{
  url: string;
  got: Received[];
  status: { code: number };
  stop: () => Promise<void>;
  start: () => Promise<void>;
}> {
  const got: Received[] = [];
  const status = { code: 200 };
  let server: Server | undefined;
  let port = 0;
  const start = async (): Promise<void> => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (status.code >= 200 && status.code < 300)
          got.push({ headers: req.headers, body, json: JSON.parse(body) as Record<string, unknown>, arrived: Date.now() });
        res.writeHead(status.code).end();
      });
    });
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  };
  const stop = (): Promise<void> =>
    new Promise<void>((r) => {
      server!.closeAllConnections();
      server!.close(() => r());
    });
  await start();
  closers.push(() => (server?.listening ? stop() : Promise.resolve()));
  return { url: `http://127.0.0.1:${port}/hook`, got, status, stop, start };
}

const start = (webhooks: EngineOptions['webhooks']) => run(webhooks ? { webhooks } : {});

async function web(client: TmkitClient): Promise<void> {
  const [a, b] = await healthServerPair('127.0.0.91', '127.0.0.92');
  closers.push(a.close, b.close);
  await client.putProfile(
    profileInput('web', {
      monitorConfig: {
        protocol: 'HTTP',
        port: a.port,
        path: '/healthz',
        intervalInSeconds: 10,
        timeoutInSeconds: 5,
        toleratedNumberOfFailures: 0,
      },
      endpoints: [
        { name: 'a', type: 'externalEndpoints', target: '127.0.0.91' },
        { name: 'b', type: 'externalEndpoints', target: '127.0.0.92' },
      ],
    }),
  );
  await waitFor(
    async () => ((await client.status('web')).endpoints.every((e) => e.endpointMonitorStatus === 'Online') ? true : undefined),
    { what: 'both Online', timeoutMs: 10_000 },
  );
}

/** `n` transitions of web/a through pushed health (Degraded, then its clear), each served before the next. */
async function flap(client: TmkitClient, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) await client.pushHealth('web', 'a', { status: 'Degraded', ttlSeconds: 600, reason: `flap ${i}` });
    else await client.clearHealth('web', 'a');
  }
}

const line = (t: { endpoint: unknown; from: unknown; to: unknown; reason: unknown }): string =>
  `${String(t.endpoint)} ${String(t.from)}→${String(t.to)} ${String(t.reason)}`;

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

test('every transition exactly once, in order, signed; the delivery log and latency', async () => {
  const rx = await receiver();
  const { client, stateDir } = await start({ allowPrivate: true });
  const secretFile = join(stateDir, 'hook-secret');
  writeFileSync(secretFile, 's3cret-for-tests\n', { mode: 0o600 });
  const hook = await client.addWebhook({ url: rx.url, events: ['transition'], secretFile });
  expect(hook).toMatchObject({ url: rx.url, events: ['transition'], signed: true, origin: 'api', queued: 0 });
  await web(client);
  // 48 flaps: with its first Online, web/a's 49 transitions fit the 50 the ledger keeps per endpoint.
  await flap(client, 48);
  const status = await client.status('web');
  // The ledger's transitions (newest first in the status), oldest first.
  expect(status.transitions).toHaveLength(50);
  const expected = [...status.transitions].reverse().map(line);
  await waitFor(() => (rx.got.length >= expected.length ? true : undefined), { what: 'every transition delivered', timeoutMs: 10_000 });
  await new Promise((r) => setTimeout(r, 300)); // nothing more comes
  expect(rx.got.map((g) => line(g.json as never))).toEqual(expected);
  expect(new Set(rx.got.map((g) => g.headers['x-tmkit-delivery'])).size).toBe(rx.got.length);
  for (const g of rx.got) {
    expect(g.headers['x-tmkit-signature']).toBe(`sha256=${createHmac('sha256', 's3cret-for-tests').update(g.body).digest('hex')}`);
    expect(g.headers['x-tmkit-event']).toBe('transition');
    expect(g.json).toMatchObject({
      event: 'transition',
      id: g.headers['x-tmkit-delivery'],
      profile: 'web',
      location: expect.any(String),
      at: expect.stringMatching(/^\d{4}-/),
    });
  }
  expect(rx.got.at(-1)!.json).toMatchObject({
    endpoint: 'a',
    from: 'Degraded',
    to: 'Online',
    source: 'pushed',
    reason: 'pushed Degraded cleared',
  });

  const [report] = (await client.webhooks()).webhooks;
  expect(report).toMatchObject({ id: hook.id, delivered: rx.got.length, dropped: 0, failed: 0, queued: 0 });
  expect(report!.deliveries[0]).toMatchObject({ outcome: 'delivered', status: 200, attempt: 1, event: 'transition' });
  const latencies = report!.deliveries.map((d) => d.latencyMs!);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  process.stdout.write(
    `webhook delivery latency (event → receiver's 200, loopback, last ${latencies.length}): p50 ${p50} ms, p99 ${p99} ms\n`,
  );
  expect(p99).toBeLessThan(250);
  const metrics = await client.metrics();
  expect(metrics).toMatch(new RegExp(`tmkit_webhook_deliveries_total\\{webhook="${hook.id}",outcome="delivered"\\} ${rx.got.length}`));
});

test('at least once, in order, across a receiver outage (refused connections, then 503s)', async () => {
  const rx = await receiver();
  const { client } = await start({ allowPrivate: true, tuning: { retryBaseMs: 20, retryMaxMs: 200 } });
  await web(client);
  await client.addWebhook({ url: rx.url, events: ['transition'] });
  await flap(client, 4);
  await waitFor(() => (rx.got.length >= 4 ? true : undefined), { what: 'the first 4 delivered', timeoutMs: 10_000 });

  await rx.stop();
  await flap(client, 6); // while nothing listens: connection refused
  await new Promise((r) => setTimeout(r, 400));
  await rx.start();
  rx.status.code = 503; // up but failing
  await new Promise((r) => setTimeout(r, 400));
  expect(rx.got.length).toBe(4);
  const [during] = (await client.webhooks()).webhooks;
  expect(during!.queued).toBe(6);
  expect(during!.deliveries.some((d) => d.outcome === 'retrying' && /ECONNREFUSED/.test(d.error ?? ''))).toBe(true);
  expect(during!.deliveries[0]).toMatchObject({ outcome: 'retrying', status: 503 });
  rx.status.code = 200;
  await flap(client, 2);

  // The ledger's transitions since the webhook was added (the two first probes' came before it).
  const expected = [...(await client.status('web')).transitions].reverse().map(line).slice(2);
  expect(expected).toHaveLength(12);
  await waitFor(() => (new Set(rx.got.map((g) => g.headers['x-tmkit-delivery'])).size >= 12 ? true : undefined), {
    what: 'all 12 delivered',
    timeoutMs: 15_000,
  });
  // At least once: deduplicated on X-Tmkit-Delivery, every transition is there, in order.
  const seen = new Set<string>();
  const deduped = rx.got.filter((g) => {
    const id = String(g.headers['x-tmkit-delivery']);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  expect(deduped.map((g) => line(g.json as never))).toEqual(expected);
  const [after] = (await client.webhooks()).webhooks;
  expect(after).toMatchObject({ delivered: 12, failed: 0, dropped: 0, queued: 0 });
});

test('traffic operations reach webhooks too: an override made and cleared, as JSON and as a chat line', async () => {
  const rx = await receiver();
  const chat = await receiver();
  const { client } = await start({ allowPrivate: true });
  await web(client);
  await client.addWebhook({ url: rx.url, events: ['override'] });
  await client.addWebhook({ url: chat.url, events: ['override'], format: 'slack' });
  const made = await client.createOverride({ kind: 'down', profile: 'web', endpoint: 'a', for: '10m', reason: 'patching', who: 'ops' });
  await client.clearOverride(made.override.id, { who: 'ops' });
  await waitFor(() => (rx.got.length >= 2 && chat.got.length >= 2 ? true : undefined), {
    what: 'both override events delivered twice',
    timeoutMs: 10_000,
  });
  expect(rx.got.map((g) => [g.headers['x-tmkit-event'], g.json.action, (g.json.override as { id: string }).id])).toEqual([
    ['override', 'created', made.override.id],
    ['override', 'cleared', made.override.id],
  ]);
  expect(chat.got.map((g) => String(g.json.text))).toEqual([
    expect.stringMatching(/^tmkit: override down of web\/a created \(by ops, until \S+\): patching$/),
    expect.stringMatching(/^tmkit: override down of web\/a cleared \(by ops, until \S+\): patching$/),
  ]);
});

test('the queue is bounded: the oldest waiting events are dropped and counted', async () => {
  const rx = await receiver();
  const { client } = await start({ allowPrivate: true, tuning: { maxQueue: 3, retryBaseMs: 20, retryMaxMs: 50 } });
  await web(client);
  const hook = await client.addWebhook({ url: rx.url, events: ['transition'] });
  await rx.stop();
  await flap(client, 10);
  const [w] = (await client.webhooks()).webhooks;
  expect(w).toMatchObject({ queued: 3, dropped: 7 });
  expect(w!.deliveries.filter((d) => d.outcome === 'dropped')).toHaveLength(7);
  expect(await client.metrics()).toMatch(new RegExp(`tmkit_webhook_dropped_total\\{webhook="${hook.id}"\\} 7`));
  await rx.start();
  await waitFor(() => (rx.got.length >= 3 ? true : undefined), { what: 'the 3 kept delivered', timeoutMs: 10_000 });
  // The newest survive: the in-flight head (the first), then the last two.
  expect(rx.got.map((g) => String(g.json.reason))).toEqual([
    expect.stringMatching(/^pushed Degraded: flap 0/),
    expect.stringMatching(/^pushed Degraded: flap 8/),
    'pushed Degraded cleared',
  ]);
});

test('SSRF stance: loopback and private destinations are refused unless the server allows them; flag webhooks cannot be removed by the API', async () => {
  const rx = await receiver();
  const { client } = await start({ flags: [{ url: 'https://hooks.example.com/tmkit' }] });
  const refused = async (url: string): Promise<string> => {
    try {
      await client.addWebhook({ url });
      return 'accepted';
    } catch (err) {
      return `${(err as TmkitApiError).status} ${(err as TmkitApiError).code}: ${(err as TmkitApiError).errors[0]?.message}`;
    }
  };
  expect(await refused(rx.url)).toMatch(/^400 WEBHOOK_NOT_ALLOWED: .*127\.0\.0\.1 is .*--webhook-allow-private/);
  expect(await refused('http://10.1.2.3/hook')).toMatch(/^400 WEBHOOK_NOT_ALLOWED: .*10\.1\.2\.3 is private/);
  expect(await refused('http://[::1]:8080/hook')).toMatch(/^400 WEBHOOK_NOT_ALLOWED/);
  expect(await refused('http://localhost:8080/hook')).toMatch(/^400 WEBHOOK_NOT_ALLOWED/);
  expect(await refused('ftp://hooks.example.com/')).toMatch(/^400 WEBHOOK_NOT_ALLOWED: .*http:\/\/ or https:\/\//);
  const list = (await client.webhooks()).webhooks;
  expect(list.map((w) => [w.id, w.origin, w.events])).toEqual([['flag-1', 'flag', ['*']]]);
  await expect(client.deleteWebhook('flag-1')).rejects.toMatchObject({ status: 409 });
  await expect(client.deleteWebhook('wh-nope')).rejects.toMatchObject({ status: 404 });
});

test('API webhooks are kept in the state dir (mode 0600) and come back after a restart', async () => {
  const rx = await receiver();
  const first = await start({ allowPrivate: true });
  const hook = await first.client.addWebhook({ url: rx.url, events: ['revision'], format: 'slack' });
  await engines.pop()!.stop();
  const { client } = await run({ stateDir: first.stateDir, webhooks: { allowPrivate: true } });
  expect((await client.webhooks()).webhooks.map((w) => [w.id, w.format, w.events])).toEqual([[hook.id, 'slack', ['revision']]]);
  expect(statSync(join(first.stateDir, 'webhooks.json')).mode & 0o777).toBe(0o600);
  await client.putProfile(profileInput('other'));
  await waitFor(() => rx.got.find((g) => typeof g.json.text === 'string'), { what: 'a Slack-shaped revision event', timeoutMs: 5000 });
  expect(rx.got.at(-1)!.json).toMatchObject({
    text: expect.stringMatching(/^tmkit: configuration revision \d+ is served$/),
    tmkit: { event: 'revision' },
  });
  await client.deleteWebhook(hook.id);
  expect((await client.webhooks()).webhooks).toEqual([]);
});

test('a composite-check transition reaches the webhook with the reason naming every check (docs/health.md "Composite checks")', async () => {
  const rx = await receiver();
  const { client } = await start({ allowPrivate: true });
  await client.addWebhook({ url: rx.url, events: ['transition'] });
  // A server whose /db answers 503 once `down` is set; /api always 200.
  let down = false;
  const server = createServer((req, res) => void res.writeHead(req.url === '/db' && down ? 503 : 200).end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.93', () => r()));
  closers.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  await client.putProfile(
    profileInput('chk', {
      monitorConfig: {
        protocol: 'HTTP',
        port,
        intervalInSeconds: 10,
        timeoutInSeconds: 5,
        toleratedNumberOfFailures: 0,
        checks: [
          { name: 'api', path: '/api' },
          { name: 'db', path: '/db', mustBeHealthy: true },
        ],
      },
      endpoints: [{ name: 'a', type: 'externalEndpoints', target: '127.0.0.93' }],
    }),
  );
  await waitFor(() => (rx.got.some((g) => g.json.to === 'Online') ? true : undefined), { what: 'the Online transition delivered' });
  down = true;
  const degraded = await waitFor(() => rx.got.find((g) => g.json.to === 'Degraded'), { what: 'the Degraded transition delivered' });
  expect(degraded.json).toMatchObject({
    event: 'transition',
    profile: 'chk',
    endpoint: 'a',
    from: 'Online',
    to: 'Degraded',
    reason: 'checks: api ok, db FAILED (503, must be healthy), 1 of 1 >= quorum 1',
  });
});
