/**
 * TCP that cannot be held (issue 39 item 4): a message must arrive whole within `messageTimeoutMs` of its
 * first byte (a byte does not extend it), the idle timeout counts from the last answer, and at the
 * connection cap a new connection takes the slot of the longest idle one (else the nearest message
 * deadline), never one whose answer is being written. Real sockets on loopback; every load bounded.
 */
import * as net from 'node:net';
import { DnsServer, type TcpOptions } from '../../../src/runtime/dns/server';
import { seededRng } from '../../../src/testing/rng';
import { waitFor } from '../../support/wait';
import { LONG_LABEL, ZONE, buildQuery, emptySnapshot, framed, standardTable, tableResolver } from './support';

let server: DnsServer | undefined;
const sockets = new Set<net.Socket>();
let stopped = false;
afterEach(async () => {
  stopped = true;
  for (const s of sockets) s.destroy();
  sockets.clear();
  await server?.close();
  server = undefined;
});
beforeEach(() => {
  stopped = false;
});

async function startServer(tcp: Partial<TcpOptions>): Promise<number> {
  server = new DnsServer({
    zone: ZONE,
    snapshot: emptySnapshot(),
    resolve: tableResolver(standardTable()),
    rng: seededRng(1),
    listen: [{ address: '127.0.0.1', port: 0 }],
    tcp,
  });
  await server.start();
  return server.address().port;
}

type Sock = net.Socket & { closedAt?: number };

/** A connected socket from `from` (a loopback address); `closedAt` is set when it closes. */
async function connect(port: number, from = '127.0.0.1'): Promise<Sock> {
  const s: Sock = net.connect({ host: '127.0.0.1', port, localAddress: from });
  sockets.add(s);
  s.on('error', () => undefined);
  s.on('close', () => {
    s.closedAt = performance.now();
    sockets.delete(s);
  });
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('error', reject);
  });
  return s;
}

/** One query on `sock`: the answer's ID, or 'closed' / 'timeout'. */
function ask(sock: net.Socket, id: number, timeoutMs = 5000): Promise<number | 'closed' | 'timeout'> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const done = (v: number | 'closed' | 'timeout'): void => {
      clearTimeout(t);
      sock.off('data', onData);
      sock.off('close', onClose);
      resolve(v);
    };
    const onData = (c: Buffer): void => {
      buf = Buffer.concat([buf, c]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) done(buf.readUInt16BE(2));
    };
    const onClose = (): void => done('closed');
    const t = setTimeout(() => done('timeout'), timeoutMs);
    sock.on('data', onData);
    sock.once('close', onClose);
    sock.write(framed(buildQuery(id, `v4.${ZONE}`, 1)));
  });
}

/** A new client from 127.0.0.1: connect and ask once; the answer's ID (or why not) and the milliseconds it took. */
async function probe(port: number, id: number, timeoutMs: number): Promise<{ got: number | 'closed' | 'timeout'; ms: number }> {
  const t0 = performance.now();
  const s = await connect(port);
  const got = await ask(s, id, timeoutMs);
  const ms = performance.now() - t0;
  s.destroy();
  return { got, ms };
}

/**
 * A slowloris client: sends the first octet of a length prefix, then one more octet every `everyMs`, of a
 * message that never ends (65535 octets announced). Returns when connected; stops with the test.
 */
async function dripper(port: number, from: string, everyMs: number): Promise<Sock> {
  const s = await connect(port, from);
  s.write(Buffer.from([0xff]));
  const timer = setInterval(() => {
    if (s.destroyed || stopped) clearInterval(timer);
    else s.write(Buffer.from([0]));
  }, everyMs);
  s.on('close', () => clearInterval(timer));
  return s;
}

test('a client dripping one byte every 500 ms is closed at the message deadline, while a normal client is answered', async () => {
  const port = await startServer({ messageTimeoutMs: 1000, idleTimeoutMs: 60_000 });
  const t0 = performance.now();
  const slow = await dripper(port, '127.0.0.2', 500);
  // Mid-drip another client is answered.
  const normal = await connect(port);
  expect(await ask(normal, 7)).toBe(7);
  await waitFor(() => slow.closedAt !== undefined, { what: 'the dripping client to be closed', timeoutMs: 5000, intervalMs: 20 });
  const after = slow.closedAt! - t0;
  expect(after).toBeGreaterThanOrEqual(900);
  expect(after).toBeLessThan(1000 + 1000);
  expect(server!.tcpMessageTimeouts).toBe(1);
  // The normal client, idle since its answer (not dripping), is still open and answered again.
  expect(normal.closedAt).toBeUndefined();
  expect(await ask(normal, 8)).toBe(8);
});

test('the idle timeout counts from the last answer: a connection asking within it stays, then closes after it', async () => {
  const port = await startServer({ messageTimeoutMs: 60_000, idleTimeoutMs: 800 });
  const s = await connect(port);
  for (let i = 0; i < 3; i++) {
    expect(await ask(s, i)).toBe(i);
    await new Promise((r) => setTimeout(r, 400));
  }
  const answeredAt = performance.now();
  await ask(s, 9);
  await waitFor(() => s.closedAt !== undefined, { what: 'the idle connection to be closed', timeoutMs: 5000, intervalMs: 20 });
  expect(s.closedAt! - answeredAt).toBeGreaterThanOrEqual(700);
  expect(server!.tcpIdleTimeouts).toBe(1);
});

test('with maxConnections 50 and 50 idle connections, a new client is answered within 1 s and the oldest idle one is closed', async () => {
  const port = await startServer({ maxConnections: 50, maxConnectionsPerClient: 64, idleTimeoutMs: 60_000 });
  const idle: Sock[] = [];
  for (let i = 0; i < 50; i++) {
    const s = await connect(port);
    expect(await ask(s, i)).toBe(i); // one exchange each, then idle (oldest first)
    idle.push(s);
  }
  expect(server!.tcpConnections).toBe(50);
  const { got, ms } = await probe(port, 4242, 1000);
  expect(got).toBe(4242);
  expect(ms).toBeLessThan(1000);
  await waitFor(() => idle[0]!.closedAt !== undefined, {
    what: 'the oldest idle connection to be closed',
    timeoutMs: 2000,
    intervalMs: 10,
  });
  expect(idle.slice(1).every((s) => s.closedAt === undefined)).toBe(true);
  expect(server!.tcpEvictedIdle).toBe(1);
  expect(server!.tcpRefusedFull).toBe(0);
  expect(await ask(idle[1]!, 99)).toBe(99);
});

test('60 slow-drip connections from 60 addresses against a cap of 50: a new client is answered within 1 s in at least 9 of 10 probes', async () => {
  const port = await startServer({ maxConnections: 50, idleTimeoutMs: 10_000, messageTimeoutMs: 2000 });
  // Each attacker drips one byte every 500 ms and reconnects 100 ms after it is closed, for as long as the test runs.
  const attack = (from: string): void => {
    void dripper(port, from, 500)
      .then((s) => s.on('close', () => !stopped && setTimeout(() => !stopped && attack(from), 100)))
      .catch(() => !stopped && setTimeout(() => !stopped && attack(from), 100));
  };
  for (let i = 2; i <= 61; i++) attack(`127.0.0.${i}`);
  await waitFor(() => server!.tcpConnections >= 50, { what: 'the attackers to fill the cap', timeoutMs: 5000, intervalMs: 20 });
  await new Promise((r) => setTimeout(r, 1000)); // every slot dripping, some past a deadline

  const results: Array<{ got: number | 'closed' | 'timeout'; ms: number }> = [];
  for (let i = 0; i < 10; i++) {
    results.push(await probe(port, 100 + i, 1000));
    await new Promise((r) => setTimeout(r, 250));
  }
  const answered = results.filter((r, i) => r.got === 100 + i && r.ms < 1000);
  const figures = {
    answered: `${answered.length}/10`,
    ms: results.map((r) => Math.round(r.ms)),
    evictedPending: server!.tcpEvictedPending,
    evictedIdle: server!.tcpEvictedIdle,
    messageTimeouts: server!.tcpMessageTimeouts,
    refusedFull: server!.tcpRefusedFull,
    open: server!.tcpConnections,
  };
  console.log(`slow-drip: ${JSON.stringify(figures)}`);
  expect(answered.length).toBeGreaterThanOrEqual(9);
  expect(server!.tcpConnections).toBeLessThanOrEqual(50);
}, 30_000);

test('an answer being written is not cut: a client that reads slowly keeps its connection past the message deadline and gets every answer', async () => {
  const port = await startServer({ maxConnections: 2, messageTimeoutMs: 300, idleTimeoutMs: 5000 });
  // Many pipelined queries with large answers (24 AAAA each), not read for a while: the server's writes back up.
  const n = 6000;
  const a = await connect(port);
  a.pause();
  a.write(Buffer.concat(Array.from({ length: n }, (_, i) => framed(buildQuery(i, `${LONG_LABEL}.big.${ZONE}`, 28)))));
  await new Promise((r) => setTimeout(r, 800)); // past the message deadline
  // The cap is reached with a new connection b; a third one, c, takes b's slot, not a's (a's answers are being written).
  const b = await connect(port, '127.0.0.2');
  await waitFor(() => server!.tcpConnections === 2, { what: 'b to be accepted', timeoutMs: 2000, intervalMs: 10 });
  const c = await connect(port, '127.0.0.3');
  expect(await ask(c, 50_000)).toBe(50_000);
  await waitFor(() => b.closedAt !== undefined, { what: 'b to be closed for c', timeoutMs: 2000, intervalMs: 10 });
  expect(a.closedAt).toBeUndefined();

  // a reads again: every answer arrives whole and in order.
  const ids: number[] = [];
  let buf = Buffer.alloc(0);
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`got ${ids.length}/${n} answers`)), 15_000);
    a.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        ids.push(buf.readUInt16BE(2));
        buf = buf.subarray(2 + buf.readUInt16BE(0));
      }
      if (ids.length === n) {
        clearTimeout(t);
        resolve();
      }
    });
    a.once('close', () => {
      clearTimeout(t);
      reject(new Error(`closed after ${ids.length}/${n} answers`));
    });
    a.resume();
  });
  expect(ids).toEqual(Array.from({ length: n }, (_, i) => i));
  expect(server!.tcpMessageTimeouts).toBe(0);
}, 30_000);
