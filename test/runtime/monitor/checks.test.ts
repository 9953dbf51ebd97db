/**
 * Composite health checks end to end (docs/health.md "Composite checks"): the real prober probing a real HTTP
 * server on loopback with the targets the core computes from a profile (`monitorConfig.checks`). Real time,
 * a 150 ms interval and a 2 s timeout instead of Azure's seconds (the Monitor's test hooks).
 */
import { validate } from '../../../src/core/validate';
import { normalizeProfile } from '../../../src/core/model/normalize';
import type { MonitorCheckInput, ProfileInput } from '../../../src/core/model/types';
import { probeTargets } from '../../../src/core/health/targets';
import { Monitor, type EndpointTransition } from '../../../src/runtime/monitor/monitor';
import { httpServer, httpsServer, selfSignedCert, type Running } from './servers';
import type { Server } from 'node:http';
import { waitFor } from '../../support/wait';

const HOST = '127.0.0.7';
const INTERVAL_MS = 150;
const TIMEOUT_MS = 2000;

/** Status code per path; a path missing here answers 200. Delay per path in ms. */
let codes: Map<string, number>;
let delays: Map<string, number>;
let server: Running<Server> & { requests: Array<{ url: string }> };
let arrivals: Array<{ url: string; at: number }>;
let monitor: Monitor | undefined;

beforeEach(async () => {
  codes = new Map();
  delays = new Map();
  arrivals = [];
  server = await httpServer(HOST, (req, res) => {
    arrivals.push({ url: req.url, at: Date.now() });
    const send = (): void => void res.writeHead(codes.get(req.url) ?? 200).end();
    const d = delays.get(req.url) ?? 0;
    if (d > 0) setTimeout(send, d);
    else send();
  });
});
afterEach(async () => {
  await monitor?.stop();
  monitor = undefined;
  await server.close();
});

function profile(checks: MonitorCheckInput[], extra: { quorum?: number; toleratedNumberOfFailures?: number } = {}): ProfileInput {
  return {
    name: 'web',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'web' },
    monitorConfig: { protocol: 'HTTP', port: server.port, path: '/', intervalInSeconds: 10, timeoutInSeconds: 5, checks, ...extra },
    endpoints: [{ name: 'a', type: 'externalEndpoints', target: HOST }],
  };
}

/** Validates the profile (no errors), normalizes it and starts a monitor on its targets. */
function start(p: ProfileInput): { m: Monitor; events: Array<EndpointTransition & { wall: number }> } {
  const v = validate({ apiVersion: 'tmkit/v1', profiles: [p] });
  expect(v.filter((d) => d.severity === 'error')).toEqual([]);
  const targets = probeTargets([normalizeProfile(p)], new Map());
  const m = (monitor = new Monitor({ intervalMs: () => INTERVAL_MS, timeoutMs: () => TIMEOUT_MS, location: 'e2e' }));
  const events: Array<EndpointTransition & { wall: number }> = [];
  m.onTransition((e) => events.push({ ...e, wall: Date.now() }));
  m.setTargets(targets);
  m.start();
  return { m, events };
}

const online = (m: Monitor) => waitFor(() => m.verdict('web', 'a') === 'Online', { what: 'Online', timeoutMs: 20_000, intervalMs: 5 });
/** Waits for `n` more completed rounds. */
async function rounds(m: Monitor, n: number): Promise<void> {
  let seen = 0;
  const off = m.onProbe(() => seen++);
  try {
    await waitFor(() => seen >= n, { what: `${n} probe rounds`, timeoutMs: 20_000, intervalMs: 5 });
  } finally {
    off();
  }
}

describe('composite checks against a real HTTP server', () => {
  test.each([0, 2])(
    'tolerated %i: a failing mustBeHealthy check makes the endpoint Degraded within the failover bound while the others pass',
    async (tolerated) => {
      const { m, events } = start(
        profile(
          [
            { name: 'api', path: '/api' },
            { name: 'login', path: '/login' },
            { name: 'db', path: '/db', mustBeHealthy: true },
          ],
          { toleratedNumberOfFailures: tolerated },
        ),
      );
      await online(m);
      await rounds(m, 2);
      const injected = Date.now();
      codes.set('/db', 503);
      await waitFor(() => m.verdict('web', 'a') === 'Degraded', { what: 'Degraded', timeoutMs: 20_000, intervalMs: 5 });
      const down = events.find((e) => e.to === 'Degraded')!;
      // detection = interval × (tolerated + 1) + timeout (core/plan/failover.ts), on the test's interval and timeout.
      expect(down.wall - injected).toBeLessThanOrEqual(INTERVAL_MS * (tolerated + 1) + TIMEOUT_MS);
      expect(down).toMatchObject({
        from: 'Online',
        reason: 'checks: api ok, login ok, db FAILED (503, must be healthy), 2 of 2 >= quorum 2',
        consecutiveFailures: tolerated + 1,
      });
      const last = m.status('web', 'a')!.lastProbe!;
      expect(last.checks!.map((c) => [c.name, c.ok, c.statusCode, c.consecutiveFailures])).toEqual([
        ['api', true, 200, 0],
        ['login', true, 200, 0],
        ['db', false, 503, tolerated + 1],
      ]);
      codes.delete('/db');
      await online(m);
      expect(events.map((e) => [e.from, e.to])).toEqual([
        ['CheckingEndpoint', 'Online'],
        ['Online', 'Degraded'],
        ['Degraded', 'Online'],
      ]);
    },
  );

  test('a failing monitoringOnly check changes nothing, and is still probed and reported', async () => {
    codes.set('/metrics', 500);
    const { m, events } = start(
      profile([
        { name: 'api', path: '/api' },
        { name: 'metrics', path: '/metrics', monitoringOnly: true },
      ]),
    );
    await online(m);
    await rounds(m, 5);
    expect(m.verdict('web', 'a')).toBe('Online');
    expect(events.map((e) => e.to)).toEqual(['Online']);
    const last = m.status('web', 'a')!.lastProbe!;
    expect(last.ok).toBe(true);
    expect(last.reason).toBe('checks: api ok, metrics FAILED (500, monitoring only), 1 of 1 >= quorum 1');
    expect(last.checks!.find((c) => c.name === 'metrics')!.consecutiveFailures).toBeGreaterThanOrEqual(6);
    expect(server.requests.filter((r) => r.url === '/metrics').length).toBeGreaterThanOrEqual(6);
  });

  test('quorum edges: 1 of 2 keeps it Online at quorum 1, Degraded at the default (all); 0 of 2 is Degraded at quorum 1', async () => {
    codes.set('/login', 503);
    const one = start(
      profile(
        [
          { name: 'api', path: '/api' },
          { name: 'login', path: '/login' },
        ],
        { quorum: 1 },
      ),
    );
    await online(one.m);
    await rounds(one.m, 3);
    expect(one.m.verdict('web', 'a')).toBe('Online');
    codes.set('/api', 503);
    await waitFor(() => one.m.verdict('web', 'a') === 'Degraded', { what: 'Degraded at 0 of 2', timeoutMs: 20_000, intervalMs: 5 });
    expect(one.events.at(-1)!.reason).toBe('checks: api FAILED (503), login FAILED (503), 0 of 2 < quorum 1');
    await monitor!.stop();

    codes.delete('/api');
    const all = start(
      profile([
        { name: 'api', path: '/api' },
        { name: 'login', path: '/login' },
      ]),
    );
    await waitFor(() => all.m.verdict('web', 'a') === 'Degraded', { what: 'Degraded at 1 of 2', timeoutMs: 20_000, intervalMs: 5 });
    expect(all.events.at(-1)!.reason).toBe('checks: api ok, login FAILED (503), 1 of 2 < quorum 2');
  });

  test('each round probes every check at once: the round takes the slowest check, not the sum', async () => {
    delays.set('/a', 300);
    delays.set('/b', 300);
    delays.set('/c', 300);
    const { m } = start(
      profile([
        { name: 'a', path: '/a' },
        { name: 'b', path: '/b' },
        { name: 'c', path: '/c' },
      ]),
    );
    await online(m);
    const first = arrivals.slice(0, 3);
    expect(first.map((a) => a.url).sort()).toEqual(['/a', '/b', '/c']);
    // All three requests arrived before the first answer (300 ms after the first arrival) left the server.
    expect(first[2]!.at - first[0]!.at).toBeLessThan(250);
    const last = m.status('web', 'a')!.lastProbe!;
    expect(last.latencyMs).toBeGreaterThanOrEqual(290);
    expect(last.latencyMs).toBeLessThan(800);
  });

  test('a TCP check beside HTTP checks takes the profile port unless given one', async () => {
    const { m } = start(
      profile([
        { name: 'api', path: '/api' },
        { name: 'port', protocol: 'TCP' },
      ]),
    );
    await online(m);
    const last = m.status('web', 'a')!.lastProbe!;
    expect(last.checks!.map((c) => [c.name, c.reason])).toEqual([
      ['api', 'status 200'],
      ['port', 'connected'],
    ]);
  });

  test("an HTTPS check reports its certificate as the endpoint's (status warnings, the expiry metric)", async () => {
    const tls = await httpsServer(HOST, selfSignedCert('checks.test'), (_req, res) => void res.writeHead(200).end());
    try {
      const { m } = start(
        profile([
          { name: 'api', path: '/api' },
          { name: 'tls', protocol: 'HTTPS', port: tls.port, path: '/' },
        ]),
      );
      await online(m);
      const last = m.status('web', 'a')!.lastProbe!;
      expect(last.checks!.map((c) => [c.name, c.reason])).toEqual([
        ['api', 'status 200'],
        ['tls', 'status 200'],
      ]);
      expect(last.certificate!.names).toContain('checks.test');
      expect(last.certificate!.validTo).toBe(last.checks![1]!.certificate!.validTo);
    } finally {
      await tls.close();
    }
  });
});
