/**
 * Composite checks through the whole runtime (docs/health.md "Composite checks"): a real engine (API, prober,
 * DNS over UDP) and real HTTP servers as the endpoints, each path answering what the test says. DNS follows the
 * composite verdict; the status API and `tmkit status` show every check.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { TmkitClient } from '../../../src/client';
import { renderStatus } from '../../../src/cli/commands/status';
import { Engine } from '../../../src/runtime/engine';
import { aRecords, queryUdp } from '../../support/loopback';
import { tempDirs } from '../../support/tmp';
import { waitFor } from '../../support/wait';

const tempDir = tempDirs('tmkit-checks-');
let engine: Engine | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await engine?.stop();
  engine = undefined;
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

/** An HTTP server on `host` whose answer per path is `codes.get(path) ?? 200`. */
async function endpoint(host: string, port = 0): Promise<{ port: number; codes: Map<string, number> }> {
  const codes = new Map<string, number>();
  const server = createServer((req, res) => void res.writeHead(codes.get(req.url ?? '') ?? 200).end());
  servers.push(server);
  await new Promise<void>((r) => server.listen(port, host, () => r()));
  return { port: (server.address() as AddressInfo).port, codes };
}

test('DNS follows the composite verdict: a failing monitoringOnly check changes nothing, a failing mustBeHealthy check fails over', async () => {
  const primary = await endpoint('127.0.0.2');
  const backup = await endpoint('127.0.0.3', primary.port);
  engine = await Engine.start({
    stateDir: tempDir(),
    zone: 'tm.internal',
    dns: [{ address: '127.0.0.1', port: 0 }],
    api: { host: '127.0.0.1', port: 0 },
    logger: pino({ level: 'silent' }),
    env: {},
    monitor: { intervalMs: () => 150, timeoutMs: () => 1000 },
  });
  const client = new TmkitClient({ server: `http://127.0.0.1:${engine.apiAddress().port}`, token: engine.token.token, env: {} });
  const dns = engine.dnsAddresses()[0]!;
  primary.codes.set('/metrics', 500);
  await client.putProfile({
    name: 'app',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'app', ttl: 0 },
    monitorConfig: {
      protocol: 'HTTP',
      port: primary.port,
      intervalInSeconds: 10,
      timeoutInSeconds: 5,
      toleratedNumberOfFailures: 1,
      checks: [
        { name: 'api', path: '/api' },
        { name: 'login', path: '/login' },
        { name: 'db', path: '/db', mustBeHealthy: true },
        { name: 'metrics', path: '/metrics', monitoringOnly: true },
      ],
      quorum: 1,
    },
    endpoints: [
      { name: 'primary', type: 'externalEndpoints', target: '127.0.0.2' },
      { name: 'backup', type: 'externalEndpoints', target: '127.0.0.3' },
    ],
  });
  const online = await waitFor(
    async () => {
      const s = await client.status('app');
      const both = s.endpoints.every((e) => e.endpointMonitorStatus === 'Online');
      return both && (s.endpoints[0]!.lastProbe?.checks?.[3]?.consecutiveFailures ?? 0) >= 3 ? s : undefined;
    },
    { what: 'both Online, with three failed rounds of metrics on primary' },
  );
  expect(aRecords(await queryUdp(dns, 'app.tm.internal'))).toEqual(['127.0.0.2']);
  const p = online.endpoints.find((e) => e.name === 'primary')!;
  expect(p.lastProbe).toMatchObject({
    ok: true,
    reason: 'checks: api ok, login ok, db ok (must be healthy), metrics FAILED (500, monitoring only), 2 of 2 >= quorum 1',
  });
  expect(p.lastProbe!.checks!.map((c) => [c.name, c.ok, c.statusCode, c.mustBeHealthy, c.monitoringOnly])).toEqual([
    ['api', true, 200, false, false],
    ['login', true, 200, false, false],
    ['db', true, 200, true, false],
    ['metrics', false, 500, false, true],
  ]);
  const text = renderStatus(online);
  expect(text).toMatch(/^ {6}check db {11}ok \(status 200, [\d.]+ ms\) {2}\[must be healthy\]$/m);
  expect(text).toMatch(
    /^ {6}check metrics {6}FAILED \(status 500, [\d.]+ ms, \d+ consecutive failures\) {2}\[monitoring only: never counts\]$/m,
  );

  // One counting check down is within quorum 1; the answer stays.
  primary.codes.set('/login', 503);
  await waitFor(async () => (await client.status('app')).endpoints[0]!.lastProbe?.checks?.[1]?.consecutiveFailures === 3, {
    what: 'login failed three rounds',
  });
  expect((await client.status('app')).endpoints[0]!.endpointMonitorStatus).toBe('Online');
  expect(aRecords(await queryUdp(dns, 'app.tm.internal'))).toEqual(['127.0.0.2']);

  // The mustBeHealthy check fails: Degraded on its second failure (tolerated 1) and DNS answers the backup.
  primary.codes.set('/db', 503);
  await waitFor(async () => aRecords(await queryUdp(dns, 'app.tm.internal'))[0] === '127.0.0.3', { what: 'DNS to answer the backup' });
  const s = await client.status('app');
  expect(s.endpoints[0]).toMatchObject({ endpointMonitorStatus: 'Degraded' });
  expect(s.transitions[0]).toMatchObject({
    endpoint: 'primary',
    from: 'Online',
    to: 'Degraded',
    reason:
      'checks: api ok, login FAILED (503), db FAILED (503, must be healthy), metrics FAILED (500, monitoring only), 1 of 2 >= quorum 1',
  });
  expect(backup.codes.size).toBe(0);
});
