/**
 * The Monitor: state per endpoint, transitions and history, target-set changes. Scheduling runs on fake
 * timers with a scripted probe; the end-to-end tests at the bottom use real time and a real HTTP server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProbeTarget } from '../../../src/core/health/targets';
import { Monitor, type EndpointTransition, type ProbeFn } from '../../../src/runtime/monitor/monitor';
import type { ProbeOutcome } from '../../../src/runtime/monitor/probe';
import { FakeTimers, deferred, flush } from './fake-timers';
import { target } from './servers';
import { waitFor } from '../../support/wait';

/** A probe whose outcome per key the test sets; records every call. */
function scripted() {
  const outcome = new Map<string, ProbeOutcome>();
  const calls: Array<{ key: string; timeoutMs?: number }> = [];
  const fn: ProbeFn = async (t, opts) => {
    calls.push({ key: t.key, ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) });
    return outcome.get(t.key) ?? { ok: true, reason: 'status 200', statusCode: 200, latencyMs: 1 };
  };
  const set = (key: string, ok: boolean, reason = ok ? 'status 200' : 'status 503') => outcome.set(key, { ok, reason, latencyMs: 1 });
  return { fn, set, calls };
}

const tgt = (endpoint: string, over: Partial<ProbeTarget> = {}): ProbeTarget =>
  target({ target: '192.0.2.1', port: 80, key: `p/${endpoint}`, endpoint, intervalInSeconds: 10, toleratedNumberOfFailures: 2, ...over });

describe('Monitor on fake timers', () => {
  test('CheckingEndpoint until the first result, Degraded after tolerated+1 failures, Online on the first success', async () => {
    const timers = new FakeTimers();
    const p = scripted();
    const m = new Monitor({ timers, probe: p.fn, location: 'test-loc', phase: () => 0 });
    const events: EndpointTransition[] = [];
    m.onTransition((e) => events.push(e));
    m.setTargets([tgt('a')]);
    expect(m.verdict('p', 'a')).toBe('CheckingEndpoint');
    expect(m.verdict('p', 'unknown')).toBeUndefined();
    m.start();
    await flush();
    expect(m.verdict('p', 'a')).toBe('Online');
    p.set('p/a', false, 'timeout');
    await timers.advance(10_000);
    await timers.advance(10_000);
    expect(m.verdict('p', 'a')).toBe('Online'); // 2 failures tolerated
    await timers.advance(10_000);
    expect(m.verdict('p', 'a')).toBe('Degraded');
    p.set('p/a', true);
    await timers.advance(10_000);
    expect(m.verdict('p', 'a')).toBe('Online');
    expect(events.map((e) => [e.at, e.from, e.to, e.reason, e.consecutiveFailures, e.location, e.key, e.profile, e.endpoint])).toEqual([
      [0, 'CheckingEndpoint', 'Online', 'status 200', 0, 'test-loc', 'p/a', 'p', 'a'],
      [30_000, 'Online', 'Degraded', 'timeout', 3, 'test-loc', 'p/a', 'p', 'a'],
      [40_000, 'Degraded', 'Online', 'status 200', 0, 'test-loc', 'p/a', 'p', 'a'],
    ]);
    const st = m.status('p', 'a')!;
    expect(st).toMatchObject({ verdict: 'Online', consecutiveFailures: 0, since: 40_000, location: 'test-loc', target: '192.0.2.1' });
    expect(st.lastProbe).toMatchObject({ at: 40_000, ok: true, reason: 'status 200' });
    expect(st.history).toEqual(events);
    expect(p.calls.every((c) => c.timeoutMs === 5000)).toBe(true);
    await m.stop();
  });

  test('history is bounded per endpoint', async () => {
    const timers = new FakeTimers();
    const p = scripted();
    const m = new Monitor({ timers, probe: p.fn, historySize: 3, phase: () => 0 });
    m.setTargets([tgt('flap', { toleratedNumberOfFailures: 0 })]);
    m.start();
    for (let i = 0; i < 10; i++) {
      p.set('p/flap', i % 2 === 1);
      await timers.advance(10_000);
    }
    const h = m.status('p', 'flap')!.history;
    expect(h).toHaveLength(3);
    expect(h.map((e) => e.at)).toEqual([80_000, 90_000, 100_000]);
    await m.stop();
  });

  test('changed settings reset the state (a transition) and probe at once; unchanged ones keep theirs', async () => {
    const timers = new FakeTimers();
    const p = scripted();
    const m = new Monitor({ timers, probe: p.fn, phase: () => 0.5 });
    const events: EndpointTransition[] = [];
    m.onTransition((e) => events.push(e));
    m.setTargets([tgt('a'), tgt('b')]);
    m.start();
    await timers.advance(1000);
    expect(p.calls.map((c) => c.key)).toEqual(['p/a', 'p/b']);
    p.calls.length = 0;
    events.length = 0;
    m.setTargets([tgt('a', { port: 8080 }), tgt('b')]);
    expect(m.verdict('p', 'a')).toBe('CheckingEndpoint');
    expect(m.verdict('p', 'b')).toBe('Online');
    expect(events.map((e) => [e.key, e.from, e.to, e.reason])).toEqual([['p/a', 'Online', 'CheckingEndpoint', 'probe settings changed']]);
    await flush();
    expect(p.calls.map((c) => c.key)).toEqual(['p/a']);
    expect(m.verdict('p', 'a')).toBe('Online');
    await m.stop();
  });

  test('a removed endpoint stops being probed; re-added, it starts over with CheckingEndpoint and an immediate probe', async () => {
    const timers = new FakeTimers();
    const p = scripted();
    const m = new Monitor({ timers, probe: p.fn, phase: () => 0.5 });
    m.setTargets([tgt('a'), tgt('b')]);
    m.start();
    await timers.advance(1000);
    m.setTargets([tgt('b')]);
    expect(m.verdict('p', 'a')).toBeUndefined();
    expect(m.status('p', 'a')).toBeUndefined();
    p.calls.length = 0;
    await timers.advance(60_000);
    expect(p.calls.filter((c) => c.key === 'p/a')).toEqual([]);
    // b: slots at 15 s, 25 s, … 55 s (the first one a full interval after its immediate probe at 0)
    expect(p.calls.filter((c) => c.key === 'p/b').length).toBe(5);
    m.setTargets([tgt('a'), tgt('b')]);
    expect(m.verdict('p', 'a')).toBe('CheckingEndpoint');
    await flush();
    expect(m.verdict('p', 'a')).toBe('Online');
    expect(
      m
        .statuses('p')
        .map((s) => s.key)
        .sort(),
    ).toEqual(['p/a', 'p/b']);
    await m.stop();
  });

  test('tolerated failures are not used up early: a failing new (or re-enabled) endpoint needs tolerated + 1 probes one interval apart', async () => {
    // The reported bug: tolerated 2 at a 10 s interval went Degraded 11–12 s after creation, because the
    // endpoint was probed at once and again at its phase slot 1.5 s later (0.3 s after a re-enable).
    const timers = new FakeTimers();
    const p = scripted();
    p.set('p/a', false, 'connection refused');
    const m = new Monitor({ timers, probe: p.fn, phase: () => 0.15 });
    m.start();
    m.setTargets([tgt('a')]); // created at 0, probed at once
    const degradedAt = async (): Promise<number> => {
      for (let i = 0; i < 1000; i++) {
        if (m.verdict('p', 'a') === 'Degraded') return timers.now();
        await timers.advance(100);
      }
      throw new Error('never Degraded');
    };
    await timers.advance(12_000);
    expect(m.status('p', 'a')).toMatchObject({ verdict: 'CheckingEndpoint', consecutiveFailures: 2 });
    expect(await degradedAt()).toBeGreaterThanOrEqual(20_000);
    // re-enabled (removed, then added again) at 29.7 s: the next slot of its phase would be 30 s, 0.3 s later
    await timers.advance(29_700 - timers.now());
    m.setTargets([]);
    m.setTargets([tgt('a')]);
    const reEnabled = timers.now();
    await timers.advance(15_000);
    expect(m.status('p', 'a')).toMatchObject({ verdict: 'CheckingEndpoint', consecutiveFailures: 2 });
    expect((await degradedAt()) - reEnabled).toBeGreaterThanOrEqual(20_000);
    await m.stop();
  });

  test('a result that arrives after the settings changed (or the target left) is ignored', async () => {
    const timers = new FakeTimers();
    const gate = deferred();
    let first = true;
    const fn: ProbeFn = async () => {
      if (first) {
        first = false;
        await gate.promise;
        return { ok: false, reason: 'stale', latencyMs: 1 };
      }
      return { ok: true, reason: 'status 200', latencyMs: 1 };
    };
    const m = new Monitor({ timers, probe: fn, phase: () => 0.5 });
    m.setTargets([tgt('a', { toleratedNumberOfFailures: 0 })]);
    m.start();
    await flush();
    m.setTargets([tgt('a', { toleratedNumberOfFailures: 0, path: '/new' })]);
    await flush();
    expect(m.verdict('p', 'a')).toBe('Online');
    gate.resolve();
    await flush();
    expect(m.verdict('p', 'a')).toBe('Online'); // the stale failure did not count
    expect(m.status('p', 'a')!.history.map((e) => e.reason)).toEqual(['status 200']);
    await m.stop();
  });

  test('a throwing listener does not stop probing', async () => {
    const timers = new FakeTimers();
    const p = scripted();
    const m = new Monitor({ timers, probe: p.fn, phase: () => 0 });
    m.onTransition(() => {
      throw new Error('listener bug');
    });
    const seen: string[] = [];
    const off = m.onTransition((e) => seen.push(e.to));
    m.setTargets([tgt('a', { toleratedNumberOfFailures: 0 })]);
    m.start();
    await flush();
    p.set('p/a', false);
    await timers.advance(10_000);
    off();
    p.set('p/a', true);
    await timers.advance(10_000);
    expect(seen).toEqual(['Online', 'Degraded']);
    expect(m.verdict('p', 'a')).toBe('Online');
    await m.stop();
  });
});

describe('Monitor end to end (real time, real HTTP server)', () => {
  const HOST = '127.0.0.4';
  let status = 200;
  let hits: number[] = [];
  let server: Server;
  let port: number;
  let monitor: Monitor | undefined;

  beforeEach(async () => {
    status = 200;
    hits = [];
    server = createServer((_req, res) => {
      hits.push(status);
      res.writeHead(status).end();
    });
    await new Promise<void>((r) => server.listen(0, HOST, () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    await monitor?.stop();
    monitor = undefined;
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  test.each([0, 2])('tolerated %i: Degraded after exactly tolerated+1 failed probes, then Online again', async (tolerated) => {
    const m = (monitor = new Monitor({ intervalMs: () => 150, timeoutMs: () => 2000, location: 'e2e' }));
    const events: Array<EndpointTransition & { failedHitsSoFar: number }> = [];
    m.onTransition((e) => events.push({ ...e, failedHitsSoFar: hits.filter((h) => h !== 200).length }));
    m.setTargets([target({ target: HOST, port, key: 'web/a', profile: 'web', endpoint: 'a', toleratedNumberOfFailures: tolerated })]);
    m.start();
    await waitFor(() => m.verdict('web', 'a') === 'Online', { what: 'Online', timeoutMs: 20000, intervalMs: 10 });
    status = 503;
    await waitFor(() => m.verdict('web', 'a') === 'Degraded', { what: 'Degraded', timeoutMs: 30000, intervalMs: 10 });
    const down = events.find((e) => e.to === 'Degraded')!;
    expect(down).toMatchObject({
      from: 'Online',
      reason: 'status 503',
      consecutiveFailures: tolerated + 1,
      failedHitsSoFar: tolerated + 1,
    });
    status = 200;
    await waitFor(() => m.verdict('web', 'a') === 'Online', { what: 'Online again', timeoutMs: 20000, intervalMs: 10 });
    expect(events.map((e) => [e.from, e.to])).toEqual([
      ['CheckingEndpoint', 'Online'],
      ['Online', 'Degraded'],
      ['Degraded', 'Online'],
    ]);
    expect(m.status('web', 'a')!.lastProbe).toMatchObject({ ok: true, reason: 'status 200', statusCode: 200, address: HOST });
  });

  test('server killed: Degraded with "connection refused"; restarted on the same port: Online', async () => {
    const m = (monitor = new Monitor({ intervalMs: () => 150, timeoutMs: () => 2000 }));
    m.setTargets([target({ target: HOST, port, key: 'web/a', profile: 'web', endpoint: 'a', toleratedNumberOfFailures: 1 })]);
    m.start();
    await waitFor(() => m.verdict('web', 'a') === 'Online', { what: 'Online', timeoutMs: 20000, intervalMs: 10 });
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await waitFor(() => m.verdict('web', 'a') === 'Degraded', { what: 'Degraded', timeoutMs: 30000, intervalMs: 10 });
    expect(m.status('web', 'a')!.history.at(-1)).toMatchObject({ to: 'Degraded', reason: 'connection refused', consecutiveFailures: 2 });
    await new Promise<void>((r) => server.listen(port, HOST, () => r()));
    await waitFor(() => m.verdict('web', 'a') === 'Online', { what: 'Online again', timeoutMs: 20000, intervalMs: 10 });
  });

  test('stop() returns promptly even with a probe stuck on a hung endpoint', async () => {
    const { tcpServer } = await import('./servers');
    const hung = await tcpServer(HOST);
    try {
      const m = new Monitor({ intervalMs: () => 1000, timeoutMs: () => 60_000 });
      m.setTargets([target({ target: HOST, port: hung.port })]);
      m.start();
      await waitFor(() => hung.accepted.length === 1, { what: 'probe connected', timeoutMs: 10000, intervalMs: 10 });
      await m.stop();
      await waitFor(() => hung.open.size === 0, { what: 'hung socket closed by the prober', timeoutMs: 10000, intervalMs: 10 });
      expect(m.stats().running).toBe(0);
    } finally {
      await hung.close();
    }
  });
});
