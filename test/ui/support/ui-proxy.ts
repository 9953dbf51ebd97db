/**
 * TEMPORARY (issue 19): until `tmkit serve` serves the dashboard at /ui/ itself, the browser test puts this
 * in front of it: /ui/ from dist/ui (what `npm run build:ui` made), everything else passed through to the
 * real API unchanged, so the page is same-origin with the API as it will be. Delete once serve has /ui/
 * (browser.test.ts uses serve directly as soon as GET /ui/ answers HTML).
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { REPO } from '../../cli/run';

export const UI_DIST = join(REPO, 'dist/ui');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json', '.map': 'application/json',
};

export async function startUiProxy(api: string): Promise<{ url: string; close: () => Promise<void> }> {
  if (!existsSync(join(UI_DIST, 'index.html'))) throw new Error(`${UI_DIST}/index.html is missing: run npm run build:ui (npm test's build does it)`);
  const upstream = new URL(api);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/ui' || path.startsWith('/ui/')) {
      const rel = path === '/ui' || path === '/ui/' ? 'index.html' : decodeURIComponent(path.slice('/ui/'.length));
      const file = normalize(join(UI_DIST, rel));
      if (!file.startsWith(UI_DIST + sep) || !existsSync(file) || !statSync(file).isFile()) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      createReadStream(file).pipe(res);
      return;
    }
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', (err) => { if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }); res.end(`proxy: ${err.message}`); });
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
