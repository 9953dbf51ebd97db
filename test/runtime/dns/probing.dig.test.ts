/**
 * Health semantics seen through DNS: the runtime (Engine, in process) probes real HTTP health servers on
 * loopback, and the real `dig` shows what it answers.
 *
 * - expectedStatusCodeRanges add to 200 (behaviors.md §8): with ranges 300–399 an endpoint answering 200
 *   is Online and answered, one answering 302 too, one answering 201 is Degraded and skipped.
 * - tolerated failures are not used up early: a failing new endpoint is probed at once, then not again
 *   before one interval has passed, so with tolerated 1 it stays CheckingEndpoint (answered) for at least
 *   one interval after its first probe.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { TmkitClient } from '../../../src/client';
import { Engine, type EngineOptions } from '../../../src/runtime/engine';
import { dig } from './support';
import { profileInput } from '../api/fixtures';
import { waitFor } from '../../support/wait';
import { tempDirs } from '../../support/tmp';

const engines: Engine[] = [];
const servers: Server[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop();
  for (const s of servers.splice(0))
    await new Promise<void>((r) => {
      s.closeAllConnections();
      s.close(() => r());
    });
});
const tempDir = tempDirs('tmkit-probing-');

async function start(monitor: EngineOptions['monitor']): Promise<{ engine: Engine; client: TmkitClient; at: string[] }> {
  const stateDir = tempDir();
  const engine = await Engine.start({
    stateDir,
    zone: 'tm.internal',
    dns: [{ address: '127.0.0.1', port: 0 }],
    api: { host: '127.0.0.1', port: 0 },
    logger: pino({ level: 'silent' }),
    env: {},
    ...(monitor ? { monitor } : {}),
  });
  engines.push(engine);
  const client = new TmkitClient({ server: `http://127.0.0.1:${engine.apiAddress().port}`, token: engine.token.token, env: {} });
  return { engine, client, at: ['@127.0.0.1', '-p', String(engine.dnsAddresses()[0]!.port)] };
}

/**
 * HTTP health servers on several loopback addresses sharing one port (a profile has one probe port), each
 * answering a fixed status; every request's arrival time is recorded per host.
 */
async function statusServers(
  byHost: Record<string, number>,
): Promise<{ port: number; hits: Record<string, number[]>; close: (host: string) => Promise<void> }> {
  const hits: Record<string, number[]> = Object.fromEntries(Object.keys(byHost).map((h) => [h, []]));
  for (let attempt = 0; ; attempt++) {
    const made: Array<[string, Server]> = [];
    let port = 0;
    try {
      for (const [host, status] of Object.entries(byHost)) {
        const srv = createServer((req, res) => {
          hits[host]!.push(Date.now());
          res.writeHead(status, { location: '/elsewhere' }).end();
          req.resume();
        });
        await new Promise<void>((resolve, reject) => {
          srv.once('error', reject);
          srv.listen(port, host, () => resolve());
        });
        made.push([host, srv]);
        port = (srv.address() as AddressInfo).port;
      }
      servers.push(...made.map(([, s]) => s));
      const byName = new Map(made);
      return {
        port,
        hits,
        close: (host) =>
          new Promise<void>((r) => {
            const s = byName.get(host)!;
            s.closeAllConnections();
            s.close(() => r());
          }),
      };
    } catch (err) {
      for (const [, s] of made) s.close();
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20) throw err;
    }
  }
}

const answerOf = async (at: string[], name: string): Promise<string> => {
  const r = await dig([...at, name, 'A']);
  expect(r.status).toBe('NOERROR');
  return r.answer.map((a) => a[4]).join(',');
};

test('expectedStatusCodeRanges 300–399 add to 200: the 200 endpoint is answered, a 302 one takes over, a 201 one is skipped', async () => {
  const srv = await statusServers({ '127.0.0.41': 200, '127.0.0.42': 201, '127.0.0.43': 302 });
  const { client, at } = await start({ intervalMs: () => 200, timeoutMs: () => 1000 });
  await client.putProfile(
    profileInput('codes', {
      monitorConfig: {
        protocol: 'HTTP',
        port: srv.port,
        path: '/health',
        intervalInSeconds: 10,
        timeoutInSeconds: 5,
        toleratedNumberOfFailures: 0,
        expectedStatusCodeRanges: [{ min: 300, max: 399 }],
      },
      endpoints: [
        { name: 'ok200', type: 'externalEndpoints', target: '127.0.0.41', priority: 1 },
        { name: 'created201', type: 'externalEndpoints', target: '127.0.0.42', priority: 2 },
        { name: 'found302', type: 'externalEndpoints', target: '127.0.0.43', priority: 3 },
      ],
    }),
  );
  const decided = await waitFor(
    async () => {
      const s = await client.status('codes');
      return s.endpoints.every((e) => e.lastProbe !== undefined && e.endpointMonitorStatus !== 'CheckingEndpoint') ? s : undefined;
    },
    { what: 'every endpoint probed and decided', timeoutMs: 15_000 },
  );
  expect(Object.fromEntries(decided.endpoints.map((e) => [e.name, [e.endpointMonitorStatus, e.lastProbe?.statusCode]]))).toEqual({
    ok200: ['Online', 200],
    created201: ['Degraded', 201],
    found302: ['Online', 302],
  });
  expect(await answerOf(at, 'codes.tm.internal')).toBe('127.0.0.41');

  // The 200 endpoint goes away: the 201 one (priority 2) is Degraded, so DNS answers the 302 one.
  await srv.close('127.0.0.41');
  await waitFor(async () => (await answerOf(at, 'codes.tm.internal')) === '127.0.0.43', {
    what: 'DNS to answer the 302 endpoint',
    timeoutMs: 15_000,
  });
  const after = await client.status('codes');
  // A probe that lands while the server is closing sees a reset; one after it, a refusal. Both are a failure.
  expect(after.endpoints.find((e) => e.name === 'ok200')).toMatchObject({
    endpointMonitorStatus: 'Degraded',
    lastProbe: { ok: false, reason: expect.stringMatching(/^connection (refused|reset)$/) },
  });
});

test('tolerated 1: a failing new endpoint is CheckingEndpoint and answered until its second probe, at least one interval after the first', async () => {
  const INTERVAL = 1500;
  const srv = await statusServers({ '127.0.0.51': 503 });
  // phase 0.2: the second probe used to come at the endpoint's phase slot, 0.3 s after the first
  const { client, at } = await start({ intervalMs: () => INTERVAL, timeoutMs: () => 1000, phase: () => 0.2 });
  const putAt = Date.now();
  await client.putProfile(
    profileInput('fresh', {
      monitorConfig: {
        protocol: 'HTTP',
        port: srv.port,
        path: '/health',
        intervalInSeconds: 10,
        timeoutInSeconds: 5,
        toleratedNumberOfFailures: 1,
      },
      endpoints: [
        { name: 'new', type: 'externalEndpoints', target: '127.0.0.51', priority: 1 },
        { name: 'backup', type: 'externalEndpoints', target: '192.0.2.99', priority: 2, alwaysServe: 'Enabled' },
      ],
    }),
  );
  const hits = srv.hits['127.0.0.51']!;
  // dig until the backup is answered; every answer with the time its dig started
  const answers: Array<{ at: number; answer: string }> = [];
  await waitFor(
    async () => {
      const t = Date.now();
      const answer = await answerOf(at, 'fresh.tm.internal');
      answers.push({ at: t, answer });
      return answer === '192.0.2.99';
    },
    { what: 'DNS to answer the backup', timeoutMs: 15_000, intervalMs: 40 },
  );
  const first = hits[0]!;
  expect(first - putAt).toBeLessThan(INTERVAL); // the first probe comes at once
  expect(hits.length).toBeGreaterThanOrEqual(2);
  // the second probe, seen by the health server: a full interval later (50 ms allowed for the difference
  // in connect time between the two requests)
  expect(hits[1]! - first).toBeGreaterThanOrEqual(INTERVAL - 50);
  // DNS answered the new endpoint (CheckingEndpoint after one tolerated failure) for that whole interval
  const beforeSecond = answers.filter((a) => a.at > first && a.at < first + INTERVAL - 100);
  expect(beforeSecond.length).toBeGreaterThanOrEqual(3);
  expect(beforeSecond.map((a) => a.answer)).toEqual(beforeSecond.map(() => '127.0.0.51'));
  const switched = answers.find((a) => a.answer === '192.0.2.99')!;
  expect(switched.at).toBeGreaterThanOrEqual(first + INTERVAL - 100);
  const s = await client.status('fresh');
  expect(s.endpoints.find((e) => e.name === 'new')).toMatchObject({
    endpointMonitorStatus: 'Degraded',
    consecutiveFailures: 2,
    lastProbe: { statusCode: 503 },
  });
});
