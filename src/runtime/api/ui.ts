/**
 * The dashboard's static files (`/ui/`, built by `npm run build:ui` into dist/ui and shipped in the package),
 * served by the API listener without the token: the page holds no data; every data call it makes needs the
 * token the user pastes in.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { ApiProblem } from './errors';
import type { Ctx, Reply } from './http';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The page may talk to its own origin only (as its own meta policy says), and may not be framed. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' " +
  "data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export function uiHandler(dir: string | undefined): (ctx: Ctx) => Promise<Reply> {
  return async (ctx): Promise<Reply> => {
    const path = ctx.url.pathname;
    if (path === '/' || path === '/ui') return { status: 302, body: '', headers: { location: '/ui/' } };
    if (!dir || !existsSync(join(dir, 'index.html'))) {
      throw ApiProblem.of(
        404,
        'NOT_FOUND',
        'the dashboard is not built into this installation (run `npm run build:ui` in a checkout); the API works without it',
      );
    }
    let rel: string;
    try {
      rel = path === '/ui/' ? 'index.html' : decodeURIComponent(path.slice('/ui/'.length));
    } catch {
      throw ApiProblem.of(400, 'BAD_REQUEST', `the path ${path} is not valid percent-encoding`);
    }
    const file = normalize(join(dir, rel));
    // No way out of the dashboard's directory; unknown paths of the single-page app get index.html.
    const target =
      file.startsWith(dir + sep) && existsSync(file) && statSync(file).isFile()
        ? file
        : extname(rel) === ''
          ? join(dir, 'index.html')
          : undefined;
    if (!target) throw ApiProblem.of(404, 'NOT_FOUND', `no dashboard file ${path}`);
    const type = TYPES[extname(target)] ?? 'application/octet-stream';
    const immutable = target.includes(`${sep}assets${sep}`);
    return {
      status: 200,
      body: readFileSync(target),
      headers: {
        'content-type': type,
        'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      },
    };
  };
}
