/**
 * The `rrl` live event (docs/webhooks.md): sustained response rate limiting becomes one webhook delivery when it
 * starts and one when it recovers, never one per second. A real UDP flood from a loopback address against a real
 * runtime, and a real webhook receiver on loopback: in this process (the engine, with short sustained/recovered
 * times), and through `tmkit serve --workers 2`, where each worker's limiter reports over the worker IPC and the
 * primary folds them into one period.
 */
import * as dgram from 'node:dgram';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildQuery } from '../dns/support';
import { engineHarness } from '../engine/harness';
import { spawnServe, type ServeProcess } from '../../support/process';
import { tempDirs } from '../../support/tmp';
import { waitFor } from '../../support/wait';

const { start, closers } = engineHarness('tmkit-rrl-events-');
const tempDir = tempDirs('tmkit-rrl-serve-');

interface Hook {
  event: string;
  body: Record<string, unknown>;
  arrived: number;
}

/** A webhook receiver on loopback that records every POST. */
async function receiver(): Promise<{ url: string; got: Hook[] }> {
  const got: Hook[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({
        event: String(req.headers['x-tmkit-event']),
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        arrived: Date.now(),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closers.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

/**
 * Floods `port` with the same query from `from`, `perSecond` a second for `ms`, over `sockets` UDP sockets
 * (several source ports: with per-worker sockets the kernel spreads them over the workers). Answers are read
 * and dropped.
 */
async function flood(port: number, from: string, o: { perSecond: number; ms: number; sockets?: number }): Promise<number> {
  const socks = await Promise.all(
    Array.from({ length: o.sockets ?? 1 }, async () => {
      const s = dgram.createSocket('udp4');
      s.on('message', () => undefined);
      await new Promise<void>((r) => s.bind({ address: from, port: 0 }, () => r()));
      return s;
    }),
  );
  const query = buildQuery(7, 'tm.internal', 6);
  let sent = 0;
  const t0 = Date.now();
  while (Date.now() - t0 < o.ms) {
    const batch = Math.round(o.perSecond / 50);
    for (let i = 0; i < batch; i++) socks[sent++ % socks.length]!.send(query, port, '127.0.0.1');
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 200));
  for (const s of socks) s.close();
  return sent;
}

const rrlHooks = (got: Hook[]): Hook[] => got.filter((h) => h.event === 'rrl');

test('one sustained and one recovered delivery, with the prefix, class, counts and duration (DNS in this process)', async () => {
  const hook = await receiver();
  const s = await start({
    dnsLimits: { rrl: { rate: 10, mode: 'enforce', sustainedAfter: 1, recoveredAfter: 2 } },
    webhooks: { flags: [{ url: hook.url }], allowPrivate: true },
  });
  const port = s.engine.dnsAddresses()[0]!.port;

  // 3 s at 300/s from one address: limited from the first second on, sustained after 1 s.
  const floodStart = Date.now();
  const sent = await flood(port, '127.0.0.41', { perSecond: 300, ms: 3000 });
  expect(sent).toBeGreaterThan(600);
  await waitFor(() => rrlHooks(hook.got).some((h) => h.body.action === 'sustained'), { what: 'the rrl webhook', timeoutMs: 5000 });
  // A sustained flood gives one event, not one a second.
  expect(rrlHooks(hook.got)).toHaveLength(1);
  const sustained = rrlHooks(hook.got)[0]!.body;
  expect(sustained).toMatchObject({
    event: 'rrl',
    action: 'sustained',
    mode: 'enforce',
    prefix: '127.0.0.0/24',
    class: 'positive',
    key: 'tm.internal',
    processes: 1,
  });
  expect(sustained.durationSeconds as number).toBeGreaterThanOrEqual(1);
  expect(sustained.limited as number).toBeGreaterThan(100);
  expect(Date.parse(sustained.since as string)).toBeGreaterThanOrEqual(floodStart - 1000);

  // Quiet: recovered 2 s after the last limited answer, noticed by the limiter's tick with no traffic at all.
  await waitFor(() => rrlHooks(hook.got).some((h) => h.body.action === 'recovered'), { what: 'the rrl webhook', timeoutMs: 8000 });
  const recovered = rrlHooks(hook.got)[1]!.body;
  expect(recovered).toMatchObject({ action: 'recovered', prefix: '127.0.0.0/24', class: 'positive', processes: 1 });
  // Every limited answer of the flood, and the period from its start to the last limited answer.
  const limited = recovered.limited as number;
  expect(limited).toBeGreaterThanOrEqual(sustained.limited as number);
  expect(limited).toBeLessThanOrEqual(sent);
  const metrics = await s.client.metrics();
  const counted = [...metrics.matchAll(/^tmkit_dns_rrl_responses_total\{action="(?:slipped|dropped)"\} (\d+)/gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
  expect(limited).toBe(counted);
  expect(recovered.durationSeconds as number).toBeGreaterThanOrEqual(2);
  expect(recovered.durationSeconds as number).toBeLessThan(5);
  expect(Date.parse(recovered.at as string) - Date.parse(recovered.lastLimited as string)).toBeGreaterThanOrEqual(2000);

  // Nothing more while it stays quiet.
  await new Promise((r) => setTimeout(r, 1500));
  expect(rrlHooks(hook.got)).toHaveLength(2);

  // A later flood is a new period: sustained again.
  await flood(port, '127.0.0.42', { perSecond: 300, ms: 2000 });
  await waitFor(() => rrlHooks(hook.got).length === 3, { what: 'the rrl webhook', timeoutMs: 5000 });
  expect(rrlHooks(hook.got)[2]!.body).toMatchObject({ action: 'sustained', prefix: '127.0.0.0/24' });
}, 60_000);

describe('tmkit serve --workers 2', () => {
  let serve: ServeProcess | undefined;
  afterEach(async () => {
    if (serve && serve.child.exitCode === null && serve.child.signalCode === null) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  test("each worker's limiter reports to the primary over IPC: one sustained, one recovered for the node", async () => {
    const hook = await receiver();
    serve = await spawnServe(tempDir(), ['--workers', '2', '--rrl', '10', '--webhook', hook.url, '--webhook-allow-private']);
    const port = serve.dns.port;
    // 7 s (the default sustained-after is 5 s) from 8 source ports, spread over both workers' sockets.
    const sent = await flood(port, '127.0.0.43', { perSecond: 400, ms: 7000, sockets: 8 });
    expect(sent).toBeGreaterThan(2000);
    await waitFor(() => rrlHooks(hook.got).length >= 1, { what: 'the rrl webhook', timeoutMs: 5000 });
    const sustained = rrlHooks(hook.got)[0]!.body;
    expect(sustained).toMatchObject({
      action: 'sustained',
      mode: 'enforce',
      prefix: '127.0.0.0/24',
      class: 'positive',
      key: 'tm.internal',
    });
    expect(sustained.durationSeconds as number).toBeGreaterThanOrEqual(5);

    // Recovered 30 s (the default) after the last limited answer, once every worker that limited has.
    await waitFor(() => rrlHooks(hook.got).length >= 2, { what: 'the rrl webhook', timeoutMs: 45_000 });
    const recovered = rrlHooks(hook.got)[1]!.body;
    expect(recovered).toMatchObject({ action: 'recovered', prefix: '127.0.0.0/24' });
    expect(recovered.processes as number).toBeGreaterThanOrEqual(1);
    expect(recovered.processes as number).toBeLessThanOrEqual(2);
    expect(recovered.limited as number).toBeGreaterThan(1000);
    expect(recovered.limited as number).toBeLessThanOrEqual(sent);
    await new Promise((r) => setTimeout(r, 2000));
    expect(rrlHooks(hook.got)).toHaveLength(2);
    // The log says it once each, without the per-second noise.
    const log = serve.stdout() + serve.stderr();
    expect(log.match(/DNS rate limiting sustained/g) ?? []).toHaveLength(1);
    expect(log.match(/DNS rate limiting recovered/g) ?? []).toHaveLength(0); // info: below serve's --log-level warn
  }, 120_000);
});
