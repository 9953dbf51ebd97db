/**
 * TEMPORARY (issue 19): a stand-in for `GET /v1/events` until `tmkit serve` has it, so that the browser test
 * can drive the dashboard's live path (fetch streaming, SSE parsing, reconnects) with events it chooses.
 * The page's request is routed here by Playwright (route.continue with this URL); it checks the bearer token
 * like the real route. Delete with the other temporary parts once the server streams events.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SseDouble {
  url: string;
  /** Streams open now. */
  clients: () => number;
  /** Connections accepted so far. */
  connections: () => number;
  push: (event: string, data: unknown) => void;
  /** Ends every open stream (the page should reconnect after the `retry` it was given). */
  drop: () => void;
  close: () => Promise<void>;
}

export async function startSseDouble(token: string, retryMs = 200): Promise<SseDouble> {
  const open = new Set<ServerResponse>();
  let connections = 0;
  const server = createServer((req, res) => {
    if (req.url !== '/v1/events') {
      res.writeHead(404).end();
      return;
    }
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAUTHORIZED","message":"bad token"}]}');
      return;
    }
    connections++;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write(`retry: ${retryMs}\n: connected\n\n`);
    open.add(res);
    res.on('close', () => open.delete(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    clients: () => open.size,
    connections: () => connections,
    push: (event, data) => {
      for (const res of open) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    drop: () => {
      for (const res of open) res.end();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const res of open) res.end();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
