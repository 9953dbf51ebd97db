import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { normalizeProfile } from '../../core/model/normalize';
import { childProfileName } from '../../core/model/names';
import { DEFAULT_STACK, type Endpoint, type Profile, type ProfileInput } from '../../core/model/types';
import { storeWriteFailure } from '../store/failures';
import { toWire } from '../../core/api';
import { problem, type Diagnostic } from '../../core/diagnostics';
import { parseResourceCatalog } from '../../core/model/catalog';
import { StoreError, type Store, type StoredProfile } from '../../core/store';
import { bearerMatches } from './auth';
import { ApiProblem } from './errors';
import type { RuntimeMetrics } from './metrics';
import type { ProfileValidator } from './validation';

/** What `POST /v1/resolve` takes. */
export interface ResolveRequest {
  name: string;
  type: string;
  clientIp: string;
}

export interface ApiOptions {
  store: Store;
  token: string;
  validator: ProfileValidator;
  metrics: RuntimeMetrics;
  logger: Logger;
  /** Live monitor status of a stored profile (`GET /v1/profiles/{name}/status`); absent → 503. */
  status?: (profile: StoredProfile) => Promise<unknown> | unknown;
  /** The answer the DNS server would give now (`POST /v1/resolve`); absent → 503. */
  resolve?: (query: ResolveRequest) => Promise<unknown> | unknown;
  /**
   * The watchdog (`GET /healthz`): how far the served DNS snapshot lags the store. Degraded → 503 with the
   * reason. Absent → 200 with the store revision only.
   */
  health?: () => Promise<HealthReport>;
  /** Request body limit in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Where the store lives, for the messages of a full or read-only disk (507/503). */
  stateDir?: string;
}

/** What the runtime's watchdog reports to `/healthz` (design §5; README "Runtime and API"). */
export interface HealthReport {
  storeRevision: number;
  servedRevision: number;
  lagRevisions: number;
  lagSeconds: number;
  degraded: boolean;
  reason?: string;
}

export const DEFAULT_MAX_BODY = 1024 * 1024;
const STACK_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: string[];
}

type Handler = (ctx: Ctx) => Promise<Reply>;
interface Reply { status: number; body: unknown; headers?: Record<string, string> }
interface Route { pattern: RegExp; name: string; methods: Record<string, Handler> }

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : `${JSON.stringify(body, null, 2)}\n`;
  res.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/plain; version=0.0.4; charset=utf-8' : 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/**
 * Reads the body up to `limit` bytes. A body past the limit is answered with 413 at once (when the
 * declared Content-Length says so, before reading any of it), with `Connection: close`; the rest of the body
 * is read and discarded until the response is out and the connection closes, so the client can send its
 * body off and read the 413 instead of meeting a connection reset.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = (): ApiProblem => ApiProblem.of(413, 'PAYLOAD_TOO_LARGE',
      `the request body is larger than the ${limit}-byte limit; send one profile per request`, {}, { connection: 'close' });
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > limit) {
      req.resume(); // discard whatever arrives until the connection closes
      reject(tooLarge());
      return;
    }
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
    req.on('error', (err) => { if (!settled) { settled = true; reject(err); } });
    // The client went away before the end: settle, so the handler finishes.
    req.on('close', () => { if (!settled) { settled = true; reject(ApiProblem.of(400, 'BAD_REQUEST', 'the request body ended early')); } });
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
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) { if (++depth > limit) return true; }
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const buf = await readBody(req, limit);
  if (buf.length === 0) throw ApiProblem.of(400, 'MALFORMED_JSON', 'the request body is empty; send a JSON document');
  let text: string;
  try {
    text = utf8.decode(buf);
  } catch {
    throw ApiProblem.of(400, 'MALFORMED_JSON', 'the request body is not valid UTF-8; send JSON encoded as UTF-8 (names, tags and every other string)');
  }
  if (jsonDeeperThan(text, MAX_JSON_DEPTH)) {
    throw ApiProblem.of(400, 'JSON_TOO_DEEP', `the request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; a profile needs far fewer (flatten values such as tags)`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw ApiProblem.of(400, 'MALFORMED_JSON', `the request body is not valid JSON: ${(err as Error).message}`);
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function stackOf(ctx: Ctx, required: boolean): string | undefined {
  const s = ctx.url.searchParams.get('stack') ?? header(ctx.req, 'tmkit-stack');
  if (s === undefined || s === null) return required ? DEFAULT_STACK : undefined;
  if (!STACK_RE.test(s)) throw ApiProblem.of(400, 'BAD_REQUEST', `stack '${s}' is not a valid stack name (1–64 letters, digits, '.', '_', '-')`, { path: 'stack' });
  return s;
}

const toItems = (d: readonly Diagnostic[]) => d.map(toWire);

/** Profiles with a nested endpoint pointing at `name`. */
function referrersOf(name: string, profiles: Iterable<StoredProfile>): string[] {
  const out: string[] = [];
  for (const p of profiles) {
    for (const e of p.profile.endpoints) {
      // Nested references match profile names case-insensitively, as the routing engine resolves them.
      if (e.type === 'nestedEndpoints' && e.targetResourceId !== undefined && childProfileName(e.targetResourceId).toLowerCase() === name.toLowerCase()) {
        out.push(`${p.profile.name}/${e.name}`);
      }
    }
  }
  return out;
}

function profileReply(status: number, name: string, stored: { etag: string; revision: number; created: boolean; changed: boolean }, stack: string, profile: Profile, warnings: Diagnostic[]): Reply {
  return {
    status,
    headers: { etag: stored.etag },
    body: { name, stack, etag: stored.etag, revision: stored.revision, created: stored.created, changed: stored.changed, profile, warnings: toItems(warnings) },
  };
}

/** Applies a JSON merge patch (RFC 7396) to an endpoint: `null` removes a property. */
function mergeEndpoint(e: Endpoint, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...e };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/**
 * The management API (design §5) on node:http. Every route but `/healthz` needs the bearer token; every
 * write is validated in full against the stored profiles inside the store's write, so nothing invalid is
 * ever stored and concurrent conditional writers cannot both win.
 */
export class ApiServer {
  readonly server: Server;
  private readonly routes: Route[];
  private readonly maxBody: number;

  constructor(private readonly o: ApiOptions) {
    this.maxBody = o.maxBodyBytes ?? DEFAULT_MAX_BODY;
    this.routes = [
      { pattern: /^\/metrics$/, name: '/metrics', methods: { GET: () => this.metrics() } },
      { pattern: /^\/v1\/profiles$/, name: '/v1/profiles', methods: { GET: (c) => this.listProfiles(c) } },
      { pattern: /^\/v1\/profiles\/([^/]+)$/, name: '/v1/profiles/{name}', methods: { GET: (c) => this.getProfile(c), PUT: (c) => this.putProfile(c), DELETE: (c) => this.deleteProfile(c) } },
      { pattern: /^\/v1\/profiles\/([^/]+)\/endpoints\/([^/]+)$/, name: '/v1/profiles/{name}/endpoints/{endpoint}', methods: { PATCH: (c) => this.patchEndpoint(c) } },
      { pattern: /^\/v1\/profiles\/([^/]+)\/status$/, name: '/v1/profiles/{name}/status', methods: { GET: (c) => this.profileStatus(c) } },
      { pattern: /^\/v1\/resolve$/, name: '/v1/resolve', methods: { POST: (c) => this.resolve(c) } },
      { pattern: /^\/v1\/resources$/, name: '/v1/resources', methods: { GET: () => this.getResources(), PUT: (c) => this.putResources(c) } },
    ];
    this.server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, (req, res) => { void this.handle(req, res); });
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
      if (!this.server.listening) { resolve(); return; }
      const t = setTimeout(() => this.server.closeAllConnections(), graceMs);
      t.unref();
      this.server.close(() => { clearTimeout(t); resolve(); });
      this.server.closeIdleConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const method = req.method ?? 'GET';
    let routeName = 'unknown';
    let status = 500;
    try {
      const url = new URL(req.url ?? '/', 'http://tmkit.invalid');
      if (url.pathname === '/healthz') {
        routeName = '/healthz';
        if (method !== 'GET' && method !== 'HEAD') throw ApiProblem.of(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on /healthz; use GET`, {}, { allow: 'GET, HEAD' });
        const h = this.o.health ? await this.o.health() : undefined;
        status = h?.degraded ? 503 : 200;
        send(res, status, h
          ? { status: h.degraded ? 'degraded' : 'ok', revision: h.storeRevision, servedRevision: h.servedRevision, lagRevisions: h.lagRevisions, lagSeconds: h.lagSeconds, ...(h.reason !== undefined ? { reason: h.reason } : {}) }
          : { status: 'ok', revision: await this.o.store.revision() });
        return;
      }
      if (!bearerMatches(header(req, 'authorization'), this.o.token)) {
        throw ApiProblem.of(401, 'UNAUTHORIZED',
          'missing or wrong bearer token: send "Authorization: Bearer <token>" (the token is in <state-dir>/token or TMKIT_TOKEN)',
          {}, { 'www-authenticate': 'Bearer realm="tmkit"' });
      }
      let matched: { route: Route; params: string[] } | undefined;
      for (const route of this.routes) {
        const m = route.pattern.exec(url.pathname);
        if (m) { matched = { route, params: m.slice(1) }; break; }
      }
      if (!matched) throw ApiProblem.of(404, 'ROUTE_NOT_FOUND', `no API route ${url.pathname}; see GET /v1/profiles, /v1/resolve, /v1/resources, /healthz, /metrics`);
      routeName = matched.route.name;
      const handler = matched.route.methods[method];
      if (!handler) {
        const allow = Object.keys(matched.route.methods).join(', ');
        throw ApiProblem.of(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${matched.route.name}; allowed: ${allow}`, {}, { allow });
      }
      let params: string[];
      try {
        params = matched.params.map((p) => decodeURIComponent(p));
      } catch {
        throw ApiProblem.of(400, 'BAD_REQUEST', `the path ${url.pathname} is not valid percent-encoding`);
      }
      const reply = await handler({ req, res, url, params });
      status = reply.status;
      send(res, reply.status, reply.body, reply.headers);
    } catch (err) {
      const p = this.problem(err, method, routeName);
      status = p.status;
      if (!res.headersSent) send(res, p.status, { errors: toItems(p.errors) }, p.headers);
      else res.destroy();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.o.metrics.apiRequests.inc({ route: routeName, method, code: String(status) });
      this.o.metrics.apiLatency.observe({ route: routeName, method }, seconds);
      // Never log headers (Authorization) or bodies.
      this.o.logger.info({ method, route: routeName, status, ms: Math.round(seconds * 1000) }, 'api request');
    }
  }

  private problem(err: unknown, method: string, route: string): ApiProblem {
    if (err instanceof ApiProblem) return err;
    if (err instanceof StoreError) {
      switch (err.code) {
        case 'PRECONDITION_FAILED': return ApiProblem.of(412, 'PRECONDITION_FAILED', err.message);
        case 'STACK_CONFLICT': return ApiProblem.of(409, 'STACK_CONFLICT', err.message, { path: 'stack' });
        case 'NOT_FOUND': return ApiProblem.of(404, 'NOT_FOUND', err.message);
        default: break;
      }
    }
    const failure = storeWriteFailure(err);
    if (failure !== undefined) {
      // The server's disk, not the request: nothing was written (the transaction rolled back), and DNS keeps
      // answering from the snapshot in memory.
      this.o.logger.error({ err, method, route }, 'the store could not be written');
      const where = this.o.stateDir ?? 'the state dir';
      const code = String((err as { code?: unknown }).code);
      const kept = 'nothing was written; DNS keeps answering from the configuration in memory';
      if (failure === 'full') return ApiProblem.of(507, 'STORAGE_FULL', `disk full at ${where}: free space and retry (${code}; ${kept})`);
      if (failure === 'readonly') return ApiProblem.of(503, 'STORAGE_READ_ONLY', `the store at ${where} is read-only (${code}: a read-only file or file system): make it writable and retry (${kept})`);
      return ApiProblem.of(503, 'STORAGE_IO_ERROR', `the store at ${where} could not be written (${code}: an I/O error): check the disk and the kernel log, then retry (${kept})`);
    }
    this.o.logger.error({ err, method, route }, 'api request failed');
    return ApiProblem.of(500, 'INTERNAL', 'internal error; the server log has the details');
  }

  private async metrics(): Promise<Reply> {
    return { status: 200, body: await this.o.metrics.registry.metrics(), headers: { 'content-type': this.o.metrics.registry.contentType } };
  }

  private async listProfiles(ctx: Ctx): Promise<Reply> {
    const stack = stackOf(ctx, false);
    const all = await this.o.store.getProfiles();
    const profiles = all.filter((p) => stack === undefined || p.stack === stack)
      .map((p) => ({ name: p.profile.name, stack: p.stack, etag: p.etag, profile: p.profile }));
    return { status: 200, body: { revision: await this.o.store.revision(), profiles } };
  }

  /**
   * The stored profile a URL names. Profile names are case-insensitive (as in Azure): the exact name first,
   * else the one stored profile whose name differs only in case (the scan only runs on a miss).
   */
  private async findProfile(name: string): Promise<StoredProfile | undefined> {
    const exact = await this.o.store.getProfile(name);
    if (exact) return exact;
    const lower = name.toLowerCase();
    return (await this.o.store.getProfiles()).find((p) => p.profile.name.toLowerCase() === lower);
  }

  private async mustGet(name: string): Promise<StoredProfile> {
    const p = await this.findProfile(name);
    if (!p) throw ApiProblem.of(404, 'NOT_FOUND', `profile '${name}' does not exist`, { path: `profiles[${name}]` });
    return p;
  }

  private async getProfile(ctx: Ctx): Promise<Reply> {
    const p = await this.mustGet(ctx.params[0]!);
    return { status: 200, body: p.profile, headers: { etag: p.etag, 'tmkit-stack': p.stack } };
  }

  /** Validates `input` against the other profiles of `view`; throws 400 with every diagnostic on errors. */
  private validateIn(input: unknown, name: string, profiles: Iterable<StoredProfile>): Diagnostic[] {
    const context = [...profiles].filter((p) => p.profile.name !== name).map((p) => p.profile);
    const diagnostics = this.o.validator(input, context);
    if (diagnostics.some((d) => d.severity === 'error')) throw new ApiProblem(400, diagnostics.filter((d) => d.severity === 'error').concat(diagnostics.filter((d) => d.severity !== 'error')));
    return diagnostics;
  }

  private async putProfile(ctx: Ctx): Promise<Reply> {
    const urlName = ctx.params[0]!;
    const stack = stackOf(ctx, true)!;
    const body = await readJson(ctx.req, this.maxBody);
    if (!isObj(body)) throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be one profile (a JSON object)', { path: '$' });
    // The URL is case-insensitive; the body's name is the profile's name (PUT /v1/profiles/WEB with
    // {"name":"web"} writes web). A name that differs from a stored one only in case is a conflict below.
    if (body.name === undefined) body.name = urlName;
    else if (typeof body.name !== 'string' || body.name.toLowerCase() !== urlName.toLowerCase()) {
      throw ApiProblem.of(400, 'NAME_MISMATCH', `the body names profile '${String(body.name)}' but the URL names '${urlName}'; they must be equal`, { path: `profiles[${urlName}].name` });
    }
    const name = body.name as string;
    const profile = normalizeProfile(body as unknown as ProfileInput);
    let warnings: Diagnostic[] = [];
    const opts: Parameters<Store['putProfile']>[1] = {
      stack,
      check: (view) => {
        const clash = [...view.profiles.keys()].find((k) => k !== name && k.toLowerCase() === name.toLowerCase());
        if (clash !== undefined) {
          throw ApiProblem.of(409, 'PROFILE_NAME_CONFLICT',
            `profile names are case-insensitive (as in Azure) and profile '${clash}' already exists; use that name or delete it first`,
            { path: `profiles[${name}].name` });
        }
        warnings = this.validateIn(body, name, view.profiles.values());
      },
    };
    const ifMatch = header(ctx.req, 'if-match');
    const ifNoneMatch = header(ctx.req, 'if-none-match');
    if (ifMatch !== undefined) opts.ifMatch = ifMatch;
    if (ifNoneMatch !== undefined) opts.ifNoneMatch = ifNoneMatch;
    const r = await this.o.store.putProfile(profile, opts);
    return profileReply(r.created ? 201 : 200, name, r, stack, profile, warnings);
  }

  private async deleteProfile(ctx: Ctx): Promise<Reply> {
    const stack = stackOf(ctx, false);
    // The stored name (case-insensitive URL); a profile that does not exist is the store's 404.
    const name = (await this.findProfile(ctx.params[0]!))?.profile.name ?? ctx.params[0]!;
    const opts: Parameters<Store['deleteProfile']>[1] = {
      check: (view) => {
        const refs = referrersOf(name, [...view.profiles.values()].filter((p) => p.profile.name !== name));
        if (refs.length > 0) {
          throw ApiProblem.of(409, 'PROFILE_REFERENCED',
            `profile '${name}' is still the child of nested endpoint${refs.length > 1 ? 's' : ''} ${refs.map((r) => `'${r}'`).join(', ')}; remove or retarget ${refs.length > 1 ? 'them' : 'it'} first`,
            { path: `profiles[${name}]` });
        }
      },
    };
    if (stack !== undefined) opts.stack = stack;
    const ifMatch = header(ctx.req, 'if-match');
    if (ifMatch !== undefined) opts.ifMatch = ifMatch;
    const r = await this.o.store.deleteProfile(name, opts);
    return { status: 200, body: { name, deleted: true, revision: r.revision } };
  }

  private async patchEndpoint(ctx: Ctx): Promise<Reply> {
    const endpointName = ctx.params[1]!;
    let name = ctx.params[0]!;
    const stack = stackOf(ctx, false);
    const patch = await readJson(ctx.req, this.maxBody);
    if (!isObj(patch)) throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be a JSON object of endpoint properties, e.g. {"endpointStatus":"Disabled"}', { path: '$' });
    if ('name' in patch && patch.name !== endpointName) {
      throw ApiProblem.of(400, 'NAME_MISMATCH', `an endpoint cannot be renamed by PATCH (body name '${String(patch.name)}', URL '${endpointName}'); PUT the profile instead`, { path: `profiles[${name}].endpoints[${endpointName}].name` });
    }
    const explicitIfMatch = header(ctx.req, 'if-match');
    // Without If-Match the merge is retried on a concurrent change (it is re-applied to the newer profile).
    for (let attempt = 0; ; attempt++) {
      const current = await this.mustGet(name);
      name = current.profile.name; // the stored name (the URL's is case-insensitive)
      if (stack !== undefined && current.stack !== stack) {
        throw ApiProblem.of(409, 'STACK_CONFLICT', `profile '${name}' is owned by stack '${current.stack}', not '${stack}'`, { path: 'stack' });
      }
      const idx = current.profile.endpoints.findIndex((e) => e.name === endpointName);
      if (idx < 0) throw ApiProblem.of(404, 'NOT_FOUND', `profile '${name}' has no endpoint '${endpointName}' (it has ${current.profile.endpoints.map((e) => `'${e.name}'`).join(', ') || 'none'})`, { path: `profiles[${name}].endpoints[${endpointName}]` });
      const input: Record<string, unknown> = { ...current.profile, endpoints: current.profile.endpoints.map((e, i) => (i === idx ? mergeEndpoint(e, patch) : e)) };
      const profile = normalizeProfile(input as unknown as ProfileInput);
      let warnings: Diagnostic[] = [];
      try {
        const r = await this.o.store.putProfile(profile, {
          stack: current.stack,
          ifMatch: explicitIfMatch ?? current.etag,
          check: (view) => { warnings = this.validateIn(input, name, view.profiles.values()); },
        });
        return profileReply(200, name, r, current.stack, profile, warnings);
      } catch (err) {
        if (explicitIfMatch === undefined && err instanceof StoreError && err.code === 'PRECONDITION_FAILED' && attempt < 5) continue;
        throw err;
      }
    }
  }

  private async profileStatus(ctx: Ctx): Promise<Reply> {
    const p = await this.mustGet(ctx.params[0]!);
    if (!this.o.status) throw ApiProblem.of(503, 'NOT_AVAILABLE', 'this server has no monitor attached; status is unavailable');
    return { status: 200, body: await this.o.status(p), headers: { etag: p.etag } };
  }

  private async resolve(ctx: Ctx): Promise<Reply> {
    const body = await readJson(ctx.req, this.maxBody);
    if (!isObj(body)) throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be {"name": "...", "type": "A", "clientIp": "..."}', { path: '$' });
    const errors: Diagnostic[] = [];
    if (typeof body.name !== 'string' || body.name.trim() === '') errors.push(problem('BAD_REQUEST', 'name (the DNS name to resolve) is required', { path: 'name' }));
    if (body.type !== undefined && (typeof body.type !== 'string' || !/^[A-Za-z0-9]+$/.test(body.type))) errors.push(problem('BAD_REQUEST', 'type is a DNS record type such as A, AAAA, CNAME, ANY', { path: 'type' }));
    if (body.clientIp !== undefined && typeof body.clientIp !== 'string') errors.push(problem('BAD_REQUEST', 'clientIp is an IPv4 or IPv6 address string', { path: 'clientIp' }));
    if (errors.length > 0) throw new ApiProblem(400, errors);
    if (!this.o.resolve) throw ApiProblem.of(503, 'NOT_AVAILABLE', 'this server has no routing engine attached; resolve is unavailable');
    const query: ResolveRequest = {
      name: body.name as string,
      type: typeof body.type === 'string' ? body.type.toUpperCase() : 'A',
      clientIp: typeof body.clientIp === 'string' ? body.clientIp : '127.0.0.1',
    };
    return { status: 200, body: await this.o.resolve(query) };
  }

  private async getResources(): Promise<Reply> {
    return { status: 200, body: { revision: await this.o.store.revision(), resources: await this.o.store.getResources() } };
  }

  private async putResources(ctx: Ctx): Promise<Reply> {
    const body = await readJson(ctx.req, this.maxBody);
    const { catalog, errors } = parseResourceCatalog(isObj(body) && 'revision' in body ? { resources: body.resources } : body);
    if (errors.length > 0) throw new ApiProblem(400, errors);
    const r = await this.o.store.putResources(catalog);
    return { status: 200, body: { revision: r.revision, count: Object.keys(catalog).length } };
  }
}
