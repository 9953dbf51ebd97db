/**
 * SIGTERM while probes of FQDN targets wait on DNS (issue 11 §2.2): the process exits within the documented
 * 5 s grace (plus a second), and a second signal exits at once.
 *
 * The probes' DNS server is a black hole of the test's own on loopback (`--probe-dns-server`): it reads
 * every query and never answers, over UDP and TCP, so every lookup hangs until it is cancelled. That is
 * reliable offline, whatever /etc/resolv.conf points at.
 */
import * as dgram from 'node:dgram';
import { readFileSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { TmkitClient } from '../../../src/client';
import { spawnServe, type ServeProcess } from '../../support/process';
import { tempDirs } from '../../support/tmp';

const tempDir = tempDirs('tmkit-shutdown-', { cleanup: 'manual' });
const running: ServeProcess[] = [];
let blackHole: { port: number; queries: () => number; close: () => Promise<void> };

beforeAll(async () => {
  blackHole = await startBlackHole();
});
afterAll(async () => {
  await blackHole.close();
  tempDir.removeAll();
});
afterEach(async () => {
  for (const s of running.splice(0)) {
    s.child.kill('SIGKILL');
    await s.exited;
  }
});

/** A DNS server that never answers: UDP datagrams are counted and dropped, TCP connections held silent. */
async function startBlackHole(): Promise<typeof blackHole> {
  let queries = 0;
  const held = new Set<net.Socket>();
  const udp = dgram.createSocket('udp4');
  udp.on('message', () => {
    queries++;
  });
  const port = await new Promise<number>((resolve) => udp.bind(0, '127.0.0.1', () => resolve(udp.address().port)));
  const tcp = net.createServer((s) => {
    held.add(s);
    s.on('error', () => undefined);
    s.on('data', () => {
      queries++;
    });
    s.on('close', () => held.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port,
    queries: () => queries,
    close: async () => {
      for (const s of held) s.destroy();
      await Promise.all([new Promise<void>((r) => udp.close(() => r())), new Promise<void>((r) => tcp.close(() => r()))]);
    },
  };
}

/** `n` FQDN endpoints, 200 per profile, probed over HTTP every 10 s with a 9 s timeout. */
function documentWith(n: number): string {
  const profiles = [];
  for (let p = 0; p * 200 < n; p++) {
    profiles.push({
      name: `fqdn-${p}`,
      trafficRoutingMethod: 'Weighted',
      dnsConfig: { relativeName: `fqdn-${p}`, ttl: 30 },
      monitorConfig: { protocol: 'HTTP', port: 80, path: '/health', intervalInSeconds: 10, timeoutInSeconds: 9 },
      endpoints: Array.from({ length: Math.min(200, n - p * 200) }, (_, i) => ({
        name: `e${i}`,
        type: 'externalEndpoints',
        target: `e${i}.p${p}.unresolvable.test`,
      })),
    });
  }
  const file = join(tempDir(), 'fqdn.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'tmkit/v1', profiles }));
  return file;
}

async function serveWithHangingLookups(endpoints: number): Promise<ServeProcess & { token: string }> {
  const before = blackHole.queries();
  const dir = tempDir();
  const s = await spawnServe(dir, ['--apply', documentWith(endpoints), '--probe-dns-server', `127.0.0.1:${blackHole.port}`]);
  running.push(s);
  // Every endpoint is probed at once on start: wait until the lookups really are in flight.
  const end = Date.now() + 20_000;
  while (blackHole.queries() - before < endpoints && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  expect(blackHole.queries() - before).toBeGreaterThanOrEqual(endpoints);
  return Object.assign(s, { token: readFileSync(join(dir, 'token'), 'utf8').trim() });
}

/** A PUT whose body never completes: the API keeps it in flight (draining it for the whole 5 s grace on stop). */
async function hangingRequest(s: ServeProcess & { token: string }): Promise<net.Socket> {
  const url = new URL(s.api);
  const slow = net.connect({ host: url.hostname, port: Number(url.port) });
  slow.on('error', () => undefined);
  await new Promise((r) => slow.once('connect', r));
  slow.write(
    `PUT /v1/profiles/slow HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${s.token}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"name":`,
  );
  await new Promise((r) => setTimeout(r, 200));
  return slow;
}

const elapsed = async (s: ServeProcess, since: number): Promise<{ ms: number; code: number | null }> => {
  const { code } = await s.exited;
  const ms = Date.now() - since;
  await s.closed; // the last lines of stdout/stderr
  return { ms, code };
};

test('SIGTERM with 1,200 FQDN endpoints whose lookups hang: "stopped" and exit 0 within 6 s', async () => {
  const s = await serveWithHangingLookups(1200);
  const t = Date.now();
  s.child.kill('SIGTERM');
  const r = await elapsed(s, t);
  expect(s.stdout()).toContain('tmkit serve: stopped');
  expect(r.code).toBe(0);
  expect(r.ms).toBeLessThan(6000);
  expect(s.stderr()).not.toContain('exiting now');
}, 120_000);

test('SIGTERM the moment the banner appears is a clean stop, never a kill by the signal (the handler is in place first)', async () => {
  for (let i = 0; i < 10; i++) {
    const s = await spawnServe(tempDir());
    s.child.kill('SIGTERM');
    const { code, signal } = await s.exited;
    await s.closed;
    expect({ code, signal, stopped: s.stdout().includes('tmkit serve: stopped') }).toEqual({ code: 0, signal: null, stopped: true });
  }
}, 120_000);

test('a second signal exits at once (1), while the first still waits for an in-flight API request', async () => {
  const s = await serveWithHangingLookups(100);
  const slow = await hangingRequest(s);
  s.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  expect(s.child.exitCode).toBeNull(); // still draining
  const t = Date.now();
  s.child.kill('SIGTERM');
  const r = await elapsed(s, t);
  slow.destroy();
  expect(r.code).toBe(1);
  expect(r.ms).toBeLessThan(1000);
  expect(s.stderr()).toContain('tmkit serve: second signal, exiting now');
}, 120_000);

test('the 5 s grace is honoured: an in-flight request is cut at 5 s, then the process exits 0', async () => {
  const s = await serveWithHangingLookups(100);
  const slow = await hangingRequest(s);
  const t = Date.now();
  s.child.kill('SIGTERM');
  const r = await elapsed(s, t);
  slow.destroy();
  expect(r.code).toBe(0);
  expect(r.ms).toBeGreaterThanOrEqual(4500);
  expect(r.ms).toBeLessThan(6500);
}, 120_000);

test('probes of FQDN targets go to --probe-dns-server and resolve through it (a DNS server that answers)', async () => {
  // A tiny authoritative answer for one name: A 127.0.0.1, so the probe reaches a real health server.
  const dnsPacket = await import('dns-packet');
  const answering = dgram.createSocket('udp4');
  answering.on('message', (msg, rinfo) => {
    const q = dnsPacket.decode(msg);
    const question = q.questions![0]!;
    const answers =
      question.type === 'A' && question.name === 'health.probe.test'
        ? [{ type: 'A' as const, name: question.name, ttl: 5, data: '127.0.0.1' }]
        : [];
    answering.send(
      dnsPacket.encode({ type: 'response', id: q.id, flags: dnsPacket.AUTHORITATIVE_ANSWER, questions: q.questions, answers }),
      rinfo.port,
      rinfo.address,
    );
  });
  const dnsPort = await new Promise<number>((resolve) => answering.bind(0, '127.0.0.1', () => resolve(answering.address().port)));
  const { createServer } = await import('node:http');
  const health = createServer((_req, res) => {
    res.writeHead(200);
    res.end('ok');
  });
  const httpPort = await new Promise<number>((resolve) =>
    health.listen(0, '127.0.0.1', () => resolve((health.address() as net.AddressInfo).port)),
  );
  try {
    const file = join(tempDir(), 'one.json');
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'tmkit/v1',
        profiles: [
          {
            name: 'one',
            trafficRoutingMethod: 'Priority',
            dnsConfig: { relativeName: 'one', ttl: 30 },
            monitorConfig: { protocol: 'HTTP', port: httpPort, path: '/', intervalInSeconds: 10, timeoutInSeconds: 5 },
            endpoints: [
              { name: 'a', type: 'externalEndpoints', target: 'health.probe.test' },
              { name: 'b', type: 'externalEndpoints', target: 'missing.probe.test' },
            ],
          },
        ],
      }),
    );
    const dir = tempDir();
    const s = await spawnServe(dir, ['--apply', file, '--probe-dns-server', `127.0.0.1:${dnsPort}`]);
    running.push(s);
    const client = new TmkitClient({ server: s.api, token: readFileSync(join(dir, 'token'), 'utf8').trim(), env: {} });
    const end = Date.now() + 20_000;
    let status = await client.status('one');
    while (status.endpoints.some((e) => !e.lastProbe) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      status = await client.status('one');
    }
    const [a, b] = status.endpoints;
    expect(a!.lastProbe).toMatchObject({ ok: true, reason: 'status 200', address: '127.0.0.1' });
    expect(b!.lastProbe).toMatchObject({ ok: false, reason: 'DNS: no address' });
    const res = await request(`${s.api}/healthz`);
    await res.body.text();
  } finally {
    await new Promise<void>((r) => answering.close(() => r()));
    await new Promise<void>((r) => health.close(() => r()));
  }
}, 120_000);
