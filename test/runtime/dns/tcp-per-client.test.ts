/**
 * One client cannot block TCP DNS for everyone (issue 11 §2.8): connections per client (IPv4 address or
 * IPv6 /64) are capped, beyond the cap that client's new connections are closed, other clients are served.
 */
import * as net from 'node:net';
import { DnsServer } from '../../../src/runtime/dns';
import { clientKey } from '../../../src/runtime/dns/server';
import { seededRng } from '../../../src/testing/rng';
import { ZONE, buildQuery, emptySnapshot, framed, standardTable, tableResolver } from './support';
import { waitFor } from '../../support/wait';

let server: DnsServer;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
});

async function startServer(
  tcp: { maxConnections?: number; maxConnectionsPerClient?: number; idleTimeoutMs?: number } = {},
): Promise<number> {
  server = new DnsServer({
    zone: ZONE,
    snapshot: emptySnapshot(),
    resolve: tableResolver(standardTable()),
    rng: seededRng(1),
    listen: [{ address: '127.0.0.1', port: 0 }],
    tcp: { idleTimeoutMs: 60_000, ...tcp },
  });
  await server.start();
  return server.address().port;
}

/** A connected TCP socket from `from` (a loopback address), tracking whether the server closed it. */
async function connect(port: number, from = '127.0.0.1'): Promise<net.Socket & { closedByPeer?: boolean }> {
  const s: net.Socket & { closedByPeer?: boolean } = net.connect({ host: '127.0.0.1', port, localAddress: from });
  sockets.push(s);
  s.on('error', () => undefined);
  s.on('close', () => {
    s.closedByPeer = true;
  });
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('error', reject);
  });
  return s;
}

/** One query over `sock`; resolves with the answer's ID, or 'closed' when the server closes instead. */
function ask(sock: net.Socket, id: number): Promise<number | 'closed'> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const t = setTimeout(() => resolve('closed'), 10_000);
    sock.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        clearTimeout(t);
        resolve(buf.readUInt16BE(2));
      }
    });
    sock.once('close', () => {
      clearTimeout(t);
      resolve('closed');
    });
    sock.write(framed(buildQuery(id, `v4.${ZONE}`, 1)));
  });
}

test('one address holding every connection slot: its extra connections are closed, another client is still answered', async () => {
  // The attack from the issue (1,000 idle connections against a limit of 1,000), scaled to a limit of 100.
  const port = await startServer({ maxConnections: 100 });
  const attacker = await Promise.all(Array.from({ length: 100 }, () => connect(port, '127.0.0.1')));
  const refused = (): number => server.tcpRefusedPerClient ?? 0; // (absent before the cap existed)
  await waitFor(() => server.tcpConnections + refused() >= 100, {
    what: "the server to settle the attacker's connections",
    timeoutMs: 10_000,
    intervalMs: 10,
  });
  await waitFor(() => attacker.filter((s) => s.closedByPeer).length >= refused(), {
    what: 'the refused connections to be closed',
    timeoutMs: 10_000,
    intervalMs: 10,
  });

  const victim = await connect(port, '127.0.0.2');
  expect(await ask(victim, 4242)).toBe(4242);
  expect(server.tcpConnections).toBe(33); // the attacker's 32 (the default per-client cap) and the victim
  expect(refused()).toBe(68);
  // The attacker's kept connections still work: the cap refuses new ones, it does not break open ones.
  expect(await ask(attacker.find((s) => !s.closedByPeer)!, 7)).toBe(7);
});

test('the cap is per client and frees up: a closed connection makes room for a new one', async () => {
  const port = await startServer({ maxConnectionsPerClient: 2 });
  const a = await connect(port);
  const b = await connect(port);
  await waitFor(() => server.tcpConnections === 2, { what: 'two accepted', timeoutMs: 10_000, intervalMs: 10 });
  const c = await connect(port);
  expect(await ask(c, 1)).toBe('closed');
  const other = await Promise.all([connect(port, '127.0.0.3'), connect(port, '127.0.0.3')]);
  expect(await ask(other[1]!, 2)).toBe(2);
  a.destroy();
  await waitFor(() => server.tcpConnections === 3, { what: 'a to be gone on the server', timeoutMs: 10_000, intervalMs: 10 });
  const d = await connect(port);
  expect(await ask(d, 3)).toBe(3);
  expect(await ask(b, 4)).toBe(4);
});

test('clientKey: IPv4 by address (also IPv4-mapped), IPv6 by /64', () => {
  expect(clientKey('192.0.2.7')).toBe('192.0.2.7');
  expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
  expect(clientKey('2001:db8:1:2::1')).toBe(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
  expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
  expect(clientKey('::1')).toBe('0::/64');
});
