/**
 * A real TCP proxy on 127.0.0.1:0 in front of a tmkit API that loses answers: each request passes through to
 * the server, but the answer to the first request matching `drop` (method and path, e.g. one endpoint's PUT)
 * never reaches the client: the proxy cuts both connections the moment the answer starts coming back, after
 * the server has acted on the request. The client sees the connection break (undici's "other side closed"),
 * as after a network failure on the way back. Everything else is forwarded as is.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface LosingProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The request lines whose answers were lost (`PUT /v1/...`). */
  lost: string[];
  /** Every request line seen, in order. */
  seen: string[];
  close(): Promise<void>;
}

const REQUEST_LINE = /(?:^|\r\n)(GET|HEAD|PUT|PATCH|POST|DELETE) (\S+) HTTP\/1\.1\r\n/g;

export function losingProxy(target: string, drop: (method: string, path: string) => boolean, times = 1): Promise<LosingProxy> {
  const upstreamUrl = new URL(target);
  const lost: string[] = [];
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect({ host: upstreamUrl.hostname, port: Number(upstreamUrl.port) });
    sockets.add(client).add(upstream);
    let losing: string | undefined;
    client.on('data', (chunk: Buffer) => {
      // undici sends one request at a time on a connection (no pipelining): the last request line is the one answered next.
      for (const m of chunk.toString('latin1').matchAll(REQUEST_LINE)) {
        const line = `${m[1]} ${m[2]}`;
        seen.push(line);
        if (lost.length < times && drop(m[1]!, m[2]!)) losing = line;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (losing !== undefined) {
        lost.push(losing);
        losing = undefined;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({
        url: `http://127.0.0.1:${port}`,
        lost,
        seen,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}
