/** TCP per RFC 7766: length prefix, several queries per connection, pipelining, idle timeout, connection limit (with eviction). */
import * as net from 'node:net';
import * as dnsPacket from 'dns-packet';
import { DnsServer } from '../../../src/runtime/dns';
import { seededRng } from '../../../src/testing/rng';
import { ZONE, buildQuery, emptySnapshot, framed, standardTable, tableResolver, tcpCollect } from './support';

async function startServer(tcp: { idleTimeoutMs?: number; maxConnections?: number; maxPipelined?: number } = {}): Promise<DnsServer> {
  const s = new DnsServer({
    zone: ZONE,
    snapshot: emptySnapshot(),
    resolve: tableResolver(standardTable()),
    rng: seededRng(1),
    listen: [{ address: '127.0.0.1', port: 0 }],
    tcp,
  });
  await s.start();
  return s;
}

function waitClose(sock: net.Socket, timeoutMs: number): Promise<'closed' | 'open'> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve('open'), timeoutMs);
    sock.on('close', () => {
      clearTimeout(t);
      resolve('closed');
    });
  });
}

describe('TCP', () => {
  let server: DnsServer;
  afterEach(() => server?.close());

  test('pipelining: 50 queries written at once are all answered, matched by ID', async () => {
    server = await startServer({ maxPipelined: 8 }); // forces the server to yield between batches
    const names = ['v4', 'v6', 'weighted', 'nope', 'geo'];
    const queries = Array.from({ length: 50 }, (_, i) => buildQuery(1000 + i, `${names[i % names.length]}.${ZONE}`, i % 2 ? 28 : 1));
    const answers = await tcpCollect('127.0.0.1', server.address().port, Buffer.concat(queries.map(framed)), 50);
    const byId = new Map(answers.map((a) => [a.readUInt16BE(0), dnsPacket.decode(a)]));
    expect([...byId.keys()].sort()).toEqual(queries.map((_, i) => 1000 + i));
    for (let i = 0; i < 50; i++) {
      const d = byId.get(1000 + i)!;
      expect(d.questions![0]!.name).toBe(`${names[i % names.length]}.${ZONE}`);
      expect((d as { rcode?: string }).rcode).toBe(names[i % names.length] === 'nope' ? 'NXDOMAIN' : 'NOERROR');
    }
  });

  test('a query split across several TCP segments is reassembled', async () => {
    server = await startServer();
    const port = server.address().port;
    const msg = framed(buildQuery(77, `v4.${ZONE}`, 1));
    const got = await new Promise<Buffer>((resolve, reject) => {
      const sock = net.connect({ host: '127.0.0.1', port }, async () => {
        for (const b of msg) {
          sock.write(Buffer.from([b]));
          await new Promise((r) => setImmediate(r));
        }
      });
      let buf = Buffer.alloc(0);
      sock.on('data', (c) => {
        buf = Buffer.concat([buf, c]);
        if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          sock.end();
          resolve(buf.subarray(2));
        }
      });
      sock.on('error', reject);
    });
    expect(got.readUInt16BE(0)).toBe(77);
    expect(dnsPacket.decode(got).answers![0]).toMatchObject({ type: 'A', data: '192.0.2.10' });
  });

  test('several queries one after another on one connection, then the idle timeout closes it', async () => {
    server = await startServer({ idleTimeoutMs: 1500 }); // generous: a loaded CI machine may pause between queries
    const port = server.address().port;
    const sock = net.connect({ host: '127.0.0.1', port });
    await new Promise((r) => sock.once('connect', r));
    let buf = Buffer.alloc(0);
    const next = (): Promise<Buffer> =>
      new Promise((resolve) => {
        const onData = (c: Buffer): void => {
          buf = Buffer.concat([buf, c]);
          if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
            const l = buf.readUInt16BE(0);
            const m = buf.subarray(2, 2 + l);
            buf = buf.subarray(2 + l);
            sock.off('data', onData);
            resolve(m);
          }
        };
        sock.on('data', onData);
      });
    for (let i = 0; i < 3; i++) {
      const p = next();
      sock.write(framed(buildQuery(i, `v4.${ZONE}`, 1)));
      expect((await p).readUInt16BE(0)).toBe(i);
    }
    expect(await waitClose(sock, 10000)).toBe('closed');
  });

  test('connection limit: at the cap a new connection takes the slot of the oldest one that sent nothing, the others still answered', async () => {
    server = await startServer({ maxConnections: 2 });
    const port = server.address().port;
    const open = async (): Promise<net.Socket> => {
      const s = net.connect({ host: '127.0.0.1', port });
      s.on('error', () => undefined);
      await new Promise((r) => s.once('connect', r));
      return s;
    };
    const ask = (s: net.Socket, id: number): Promise<Buffer> =>
      new Promise<Buffer>((resolve) => {
        s.once('data', (d) => resolve(d));
        s.write(framed(buildQuery(id, `v4.${ZONE}`, 1)));
      });
    const a = await open();
    const aClosed = waitClose(a, 10000);
    const b = await open();
    // Make sure both are accepted before the third arrives.
    while (server.tcpConnections < 2) await new Promise((r) => setTimeout(r, 10));
    const c = await open();
    expect((await ask(c, 5)).readUInt16BE(2)).toBe(5);
    expect(await aClosed).toBe('closed');
    expect((await ask(b, 6)).readUInt16BE(2)).toBe(6);
    expect(server.tcpConnections).toBe(2);
    expect(server.tcpEvictedIdle).toBe(1);
    b.destroy();
    c.destroy();
  });

  test('a framed message too short for a header closes the connection', async () => {
    server = await startServer();
    const sock = net.connect({ host: '127.0.0.1', port: server.address().port });
    sock.on('error', () => undefined);
    await new Promise((r) => sock.once('connect', r));
    sock.write(Buffer.from([0, 3, 1, 2, 3]));
    expect(await waitClose(sock, 10000)).toBe('closed');
  });

  test('FORMERR over TCP keeps the connection usable', async () => {
    server = await startServer();
    const port = server.address().port;
    const data = Buffer.concat([framed(buildQuery(1, `v4.${ZONE}`, 1, { qdcount: 2 })), framed(buildQuery(2, `v4.${ZONE}`, 1))]);
    const [a, b] = await tcpCollect('127.0.0.1', port, data, 2);
    expect(a!.readUInt16BE(0)).toBe(1);
    expect(a![3]! & 0xf).toBe(1);
    expect(b!.readUInt16BE(0)).toBe(2);
    expect(b![3]! & 0xf).toBe(0);
  });
});
