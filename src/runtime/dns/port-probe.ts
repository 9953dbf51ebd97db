/**
 * Port probing before DNS binds (beside reuse-port.ts, which probes what the platform supports): a port free
 * for both UDP and TCP, and a check that a fixed port is not held by another process.
 */
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import { isIP } from 'node:net';
import type { ListenAddress } from './server';

/** A port on `address` that is free for both UDP and TCP right now. */
export async function freeDnsPort(address: string): Promise<number> {
  const v6 = isIP(address) === 6;
  for (let attempt = 0; attempt < 50; attempt++) {
    const udp = dgram.createSocket({ type: v6 ? 'udp6' : 'udp4', exclusive: true } as dgram.SocketOptions);
    const port = await new Promise<number>((res, rej) => {
      udp.once('error', rej);
      udp.bind({ address, port: 0, exclusive: true }, () => res(udp.address().port));
    });
    const ok = await new Promise<boolean>((res) => {
      const srv = net.createServer();
      srv.once('error', () => res(false));
      srv.listen({ host: address, port, exclusive: true }, () => srv.close(() => res(true)));
    });
    await new Promise<void>((r) => udp.close(() => r()));
    if (ok) return port;
  }
  throw new Error(`no port on ${address} is free for both UDP and TCP`);
}

/**
 * Fails with EADDRINUSE (as a bind would) unless `l`'s port is free for both UDP and TCP right now: bound
 * without SO_REUSEPORT, so a socket of any process, with or without it, makes it fail.
 */
export async function assertDnsPortFree(l: ListenAddress): Promise<void> {
  const v6 = isIP(l.address) === 6;
  // A bind refused for lack of the right (EACCES on a port below 1024) is that, not a port in use: passed on
  // as it came, so the caller's hint about CAP_NET_BIND_SERVICE and --user applies.
  const inUse = (proto: string, err: NodeJS.ErrnoException): Error =>
    err.code === 'EACCES'
      ? err
      : Object.assign(new Error(`${proto} ${l.address}:${l.port} is in use (${err.code ?? err.message}); another process listens there`), {
          code: err.code ?? 'EADDRINUSE',
        });
  const udp = dgram.createSocket({ type: v6 ? 'udp6' : 'udp4', ipv6Only: v6 } as dgram.SocketOptions);
  await new Promise<void>((res, rej) => {
    udp.once('error', (err) => {
      try {
        udp.close();
      } catch {
        /* never bound */
      }
      rej(inUse('UDP', err));
    });
    udp.bind({ address: l.address, port: l.port, exclusive: true }, () => res());
  });
  await new Promise<void>((r) => udp.close(() => r()));
  await new Promise<void>((res, rej) => {
    const srv = net.createServer();
    srv.once('error', (err) => rej(inUse('TCP', err)));
    srv.listen({ host: l.address, port: l.port, exclusive: true, ipv6Only: v6 }, () => srv.close(() => res()));
  });
}
