import * as net from 'node:net';

/**
 * A TCP port on `host` that was free a moment ago (bound to port 0, then closed), for what cannot listen on
 * port 0 itself: etcd, a server started later than its client, a flag given before the process starts.
 * Another process may take it meanwhile; callers that start a server on it retry on EADDRINUSE where it matters.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen({ host, port: 0, exclusive: true }, () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
