/**
 * The management API's HTTP plumbing (node:http): reading bodies within their limits, JSON that is UTF-8 and
 * not too deep, routing by path pattern and method, the bearer token, error bodies, metrics and the request
 * log. The handlers (server.ts) see parsed requests and return typed replies; nothing here knows profiles.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { toWire } from '../../core/api';
import { AuthThrottle, bearerMatches, type AuthThrottleOptions } from './auth';
import { ApiProblem } from './errors';
import type { RuntimeMetrics } from '../metrics';

export const DEFAULT_MAX_BODY = 1024 * 1024;
/** The API server's own connection cap (`ApiOptions.maxConnections`): DNS has its own, this keeps the API's apart. */
export const DEFAULT_MAX_CONNECTIONS = 512;

/** One request as a handler sees it: `params` are the route pattern's groups, percent-decoded. */
export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: string[];
  /** The request bears the valid token (on the open routes too, which answer more to it: `/healthz`). */
  authorized: boolean;
}

/**
 * A handler's answer: status, JSON body (or text, or bytes), extra headers. `streamed`: the handler took over
 * the response itself (Server-Sent Events) and nothing is sent for it.
 */
export interface Reply<T = unknown> {
  status: number;
  body: T;
  headers?: Record<string, string>;
  streamed?: boolean;
}
export type Handler = (ctx: Ctx) => Promise<Reply>;
/** A compiled route (made by `route`): `name` labels its metrics and log lines. */
export interface Route {
  pattern: RegExp;
  name: string;
  methods: Record<string, Handler>;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A route, written once as its path pattern, as docs/api.md writes it: `/v1/profiles/{name}/endpoints/{endpoint}`.
 * Each `{param}` is one whole path segment (`ctx.params`, in order, percent-decoded); a final `/*` matches
 * the rest of the path, empty or not (not a param). The pattern is also the route's name in the metrics'
 * `route` label and the request log (a final `*` left off: `/ui/*` is `/ui/`). `alsoAt`: exact paths the
 * same route answers too (the dashboard's redirects from `/` and `/ui`).
 */
export function route(path: string, methods: Record<string, Handler>, alsoAt: string[] = []): Route {
  const rest = path.endsWith('/*');
  const name = rest ? path.slice(0, -1) : path;
  const segments = name.split('/').slice(1);
  if (
    !name.startsWith('/') ||
    segments.slice(0, -1).some((s) => s === '') ||
    segments.some((s) => !/^(?:\{[A-Za-z]\w*\}|[^{}*]*)$/.test(s))
  ) {
    throw new Error(`route pattern '${path}': write /literal/{param}/… with each {param} a whole segment, and * only as a final /*`);
  }
  const source = segments.map((s) => `\\/${s.startsWith('{') ? '([^/]+)' : escapeRe(s)}`).join('') + (rest ? '.*' : '');
  const alternatives = [source, ...alsoAt.map(escapeRe)];
  return { pattern: new RegExp(alternatives.length === 1 ? `^${source}$` : `^(?:${alternatives.join('|')})$`), name, methods };
}

export interface HttpApiOptions {
  token: string;
  metrics: RuntimeMetrics;
  logger: Logger;
  routes: Route[];
  /** Routes served without the token (`/healthz`). */
  open: Route[];
  /** Turns any thrown error into the problem to answer with (ApiProblems pass through). */
  problem: (err: unknown, method: string, route: string) => ApiProblem;
  /** Failed token checks throttled per source address (auth.ts `AuthThrottle`; defaults: 10 in 10 s). */
  authThrottle?: AuthThrottleOptions;
  /** Connections the server holds at most (default DEFAULT_MAX_CONNECTIONS); more are closed as they come. */
  maxConnections?: number;
}

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = Buffer.isBuffer(body) ? body : typeof body === 'string' ? body : `${JSON.stringify(body, null, 2)}\n`;
  res.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/plain; version=0.0.4; charset=utf-8' : 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** Requests that sent `Expect: 100-continue`: how to send the 100 once the body is wanted (readBody). */
const continuations = new WeakMap<IncomingMessage, () => void>();

/** How long a connection closed after an error keeps draining the client's body (lingering close). */
const LINGER_MS = 5_000;

/**
 * Closes like Apache's and nginx's lingering close: after a response with `Connection: close` sent before
 * the request body was read (413), Node would close the socket while the client is still sending, and the
 * kernel's reset can discard the 413 before the client reads it. Instead: send our FIN, keep reading and
 * discarding until the client closes its side (it has read the response) or LINGER_MS passes.
 */
function lingerOnClose(res: ServerResponse): void {
  const socket = res.socket as (NonNullable<ServerResponse['socket']> & { destroySoon?: () => void }) | null;
  if (!socket) return;
  socket.destroySoon = () => {
    socket.end();
    socket.resume();
    const t = setTimeout(() => socket.destroy(), LINGER_MS);
    t.unref();
    socket.once('end', () => socket.destroy());
    socket.once('close', () => clearTimeout(t));
  };
}

/**
 * Reads the body up to `limit` bytes. A body past the limit is answered with 413 at once (when the
 * declared Content-Length says so, before reading any of it), with `Connection: close`; the rest of the body
 * is read and discarded until the response is out and the connection closes, so the client can send its
 * body off and read the 413 instead of meeting a connection reset.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = (): ApiProblem =>
      ApiProblem.of(
        413,
        'PAYLOAD_TOO_LARGE',
        `the request body is larger than the ${limit}-byte limit; send one profile per request`,
        {},
        { connection: 'close' },
      );
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > limit) {
      // No 100 Continue for it (RFC 9110 §10.1.1): a client that waits for one reads the 413 and sends nothing.
      req.resume(); // discard whatever arrives until the connection closes
      reject(tooLarge());
      return;
    }
    continuations.get(req)?.();
    continuations.delete(req);
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    req.on('data', (c: Buffer) => {
      if (settled) return;
      size += c.length;
      if (size > limit) {
        settled = true;
        chunks.length = 0;
        reject(tooLarge());
      } else chunks.push(c);
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks));
    });
    // The client went away before the end (Node reports it as an 'aborted' ECONNRESET error, then 'close'):
    // settle with a 400, so the handler finishes and the request is logged as any refused request, not as
    // a server failure. No one reads the answer.
    const early = (): void => {
      if (!settled) {
        settled = true;
        reject(ApiProblem.of(400, 'BAD_REQUEST', 'the request body ended early: the client closed the connection'));
      }
    };
    req.on('error', early);
    req.on('close', early);
  });
}

/** Deepest nesting of objects and arrays a request body may have (a profile needs about 6). */
export const MAX_JSON_DEPTH = 64;

/** UTF-8 only (RFC 8259 §8.1): a malformed sequence is an error, never a silent U+FFFD. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Whether JSON text nests objects/arrays deeper than `limit`. One pass over the text, brackets inside
 * strings ignored; runs before JSON.parse, so a hostile body never reaches code that recurses over it.
 */
export function jsonDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const buf = await readBody(req, limit);
  if (buf.length === 0) throw ApiProblem.of(400, 'MALFORMED_JSON', 'the request body is empty; send a JSON document');
  return parseJson(buf);
}

/**
 * The JSON body of a request whose body is optional (`who` and `reason` of a drain, a failback, a shift's end):
 * undefined when empty, else parsed under readJson's rules (UTF-8, depth, valid JSON).
 */
export async function readOptionalJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const buf = await readBody(req, limit);
  return buf.length === 0 ? undefined : parseJson(buf);
}

function parseJson(buf: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(buf);
  } catch {
    throw ApiProblem.of(
      400,
      'MALFORMED_JSON',
      'the request body is not valid UTF-8; send JSON encoded as UTF-8 (names, tags and every other string)',
    );
  }
  if (jsonDeeperThan(text, MAX_JSON_DEPTH)) {
    throw ApiProblem.of(
      400,
      'JSON_TOO_DEEP',
      `the request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; a profile needs far fewer (flatten values such as tags)`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw ApiProblem.of(400, 'MALFORMED_JSON', `the request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** A token (a run without spaces) longer than this in an error message is cut: messages echo what was sent. */
const MAX_ECHO = 256;

/**
 * An error message as sent: every run of more than MAX_ECHO characters without a space (a 100 000-character
 * name, duration or URL echoed back) cut to its start and its length, so the message stays one readable line.
 */
export function clampEcho(message: string): string {
  return message.replace(new RegExp(`\\S{${MAX_ECHO + 1},}`, 'gu'), (run) => `${run.slice(0, 64)}…(${run.length} characters)`);
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/**
 * The server: every route but the open ones needs the bearer token (checked before routing, in constant
 * time); every request is counted, timed and logged without headers or bodies.
 */
export class HttpApi {
  readonly server: Server;
  private readonly throttle: AuthThrottle;

  constructor(private readonly options: HttpApiOptions) {
    this.throttle = new AuthThrottle(options.authThrottle);
    this.server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, (req, res) => {
      void this.handle(req, res);
    });
    this.server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    // `Expect: 100-continue`: the 100 goes out only when the handler reads the body (not for a 401, a 404 or
    // a declared body over the limit, which get their final status instead).
    this.server.on('checkContinue', (req, res) => {
      continuations.set(req, () => res.writeContinue());
      void this.handle(req, res);
    });
  }

  /**
   * Every route this server answers, by its name (the pattern), its methods, and whether it is open (no
   * token). Tests sweep it (test/runtime/api/bad-input-sweep.test.ts), so a new route cannot go unswept.
   */
  routeTable(): Array<{ name: string; methods: string[]; open: boolean }> {
    const row = (r: Route, open: boolean) => ({ name: r.name, methods: Object.keys(r.methods), open });
    return [...this.options.open.map((r) => row(r, true)), ...this.options.routes.map((r) => row(r, false))];
  }

  /** Listens on host:port (0 = any free port); resolves to the bound address. */
  listen(host: string, port: number): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  /** Stops accepting connections, lets in-flight requests finish (up to `graceMs`), then closes the rest. */
  close(graceMs = 5_000): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server.listening) {
        resolve();
        return;
      }
      const t = setTimeout(() => this.server.closeAllConnections(), graceMs);
      t.unref();
      this.server.close(() => {
        clearTimeout(t);
        resolve();
      });
      this.server.closeIdleConnections();
    });
  }

  private match(routes: Route[], path: string): { route: Route; params: string[] } | undefined {
    for (const r of routes) {
      const m = r.pattern.exec(path);
      if (m) return { route: r, params: m.slice(1) };
    }
    return undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const method = req.method ?? 'GET';
    let routeName = 'unknown';
    let status = 500;
    /** Failed token checks (and 429s) of this source to log now; -1: not one (the request is logged as any). */
    let refusedToLog = -1;
    try {
      const url = new URL(req.url ?? '/', 'http://tmkit.invalid');
      const auth = header(req, 'authorization');
      let matched = this.match(this.options.open, url.pathname);
      let authorized = matched !== undefined && auth !== undefined && bearerMatches(auth, this.options.token);
      if (!matched) {
        const source = req.socket.remoteAddress;
        const wait = this.throttle.retryAfter(source);
        if (wait > 0) {
          refusedToLog = this.throttle.refused(source);
          throw ApiProblem.of(
            429,
            'TOO_MANY_AUTH_FAILURES',
            `too many failed token checks from this address: retry in ${wait} s with the right token`,
            {},
            { 'retry-after': String(wait) },
          );
        }
        authorized = bearerMatches(auth, this.options.token);
        if (!authorized) {
          refusedToLog = this.throttle.failed(source);
          throw ApiProblem.of(
            401,
            'UNAUTHORIZED',
            'missing or wrong bearer token: send "Authorization: Bearer <token>" (the token is in <state-dir>/token or TMKIT_TOKEN)',
            {},
            { 'www-authenticate': 'Bearer realm="tmkit"' },
          );
        }
        matched = this.match(this.options.routes, url.pathname);
      }
      if (!matched)
        throw ApiProblem.of(
          404,
          'ROUTE_NOT_FOUND',
          `no API route ${url.pathname}; see GET /v1/profiles, /v1/resolve, /v1/resources, /healthz, /metrics`,
        );
      routeName = matched.route.name;
      const handler = matched.route.methods[method] ?? (method === 'HEAD' ? matched.route.methods.GET : undefined);
      if (!handler) {
        const allow = Object.keys(matched.route.methods).join(', ');
        throw ApiProblem.of(
          405,
          'METHOD_NOT_ALLOWED',
          `${method} is not allowed on ${matched.route.name}; allowed: ${allow}`,
          {},
          { allow },
        );
      }
      let params: string[];
      try {
        params = matched.params.map((p) => decodeURIComponent(p));
      } catch {
        throw ApiProblem.of(400, 'BAD_REQUEST', `the path ${url.pathname} is not valid percent-encoding`);
      }
      const reply = await handler({ req, res, url, params, authorized });
      status = reply.status;
      if (!reply.streamed) send(res, reply.status, reply.body, reply.headers);
    } catch (err) {
      const p = this.options.problem(err, method, routeName);
      status = p.status;
      if (!res.headersSent) {
        if (p.headers?.connection === 'close' && !req.complete) lingerOnClose(res);
        send(res, p.status, { errors: p.errors.map((e) => toWire({ ...e, message: clampEcho(e.message) })) }, p.headers);
      } else res.destroy();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.options.metrics.apiRequests.inc({ route: routeName, method, code: String(status) });
      this.options.metrics.apiLatency.observe({ route: routeName, method }, seconds);
      // Never log headers (Authorization) or bodies. A source failing the token check is logged at most once a
      // minute, with how many it failed since (a guessing client must not flood the log). The access log, a line
      // per request, is at debug: one `tmkit status` makes several requests (`serve --log-level debug` shows them).
      if (refusedToLog > 0) {
        this.options.logger.warn(
          { source: AuthThrottle.sourceKey(req.socket.remoteAddress), refused: refusedToLog, status },
          'api requests refused: missing or wrong token (logged once a minute per source)',
        );
      } else if (refusedToLog < 0) {
        this.options.logger.debug({ method, route: routeName, status, ms: Math.round(seconds * 1000) }, 'api request');
      }
    }
  }
}
