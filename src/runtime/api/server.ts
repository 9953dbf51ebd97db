/**
 * The management API's handlers (design §5, §8): profiles, endpoints, status, resolve, the resource catalog
 * and the watchdog. Every write — a whole profile, its settings, one endpoint — builds the resulting profile
 * with core's edits and is validated whole against the other stored profiles inside the store's write, so
 * nothing invalid is ever stored and of two concurrent conditional writers exactly one wins. The HTTP
 * plumbing is http.ts.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type {
  DeleteResult, EndpointDeleteResult, EndpointWriteResult, HealthzBody, PreviewReport, ProfileList, ProfileSummaryList, ProfileStatusReport,
  ResolveResult, ResourceCatalogResponse, TrafficReport, WriteResult,
} from '../../core/api';
import { toWire } from '../../core/api';
import { problem, type Diagnostic } from '../../core/diagnostics';
import { parseResourceCatalog } from '../../core/model/catalog';
import { endpointEtag, findEndpoint, withEndpoint, withEndpointPatch, withoutEndpoint, withSettingsPatch } from '../../core/model/edit';
import { normalizeProfile } from '../../core/model/normalize';
import { DEFAULT_STACK, type EndpointInput, type Profile, type ProfileInput } from '../../core/model/types';
import { parseEtagList, StoreError, type Store, type StoredProfile } from '../../core/store';
import { deleteReferenced, nameClash } from '../../core/validate';
import { storeWriteFailure } from '../store/failures';
import { ApiProblem } from './errors';
import type { LiveEvents } from './events';
import { SummaryIndex } from './summaries';
import { dnssecRoutes, type DnssecApi } from './dnssec';
import { uiHandler } from './ui';
import { DEFAULT_MAX_BODY, header, HttpApi, readJson, type Ctx, type Reply, type Route } from './http';
import type { RuntimeMetrics } from './metrics';
import type { ProfileValidator } from './validation';

export { DEFAULT_MAX_BODY, MAX_JSON_DEPTH, jsonDeeperThan } from './http';

/** What `POST /v1/resolve` takes. */
export interface ResolveRequest {
  name: string;
  type: string;
  clientIp: string;
}

/** What the runtime's watchdog reports to `/healthz` (design §5; README "Runtime and API"). */
export interface HealthReport {
  storeRevision: number;
  servedRevision: number;
  lagRevisions: number;
  lagSeconds: number;
  degraded: boolean;
  reason?: string;
  /** Cluster mode: the node and its etcd connection. */
  cluster?: HealthzBody['cluster'];
}

export interface ApiOptions {
  store: Store;
  token: string;
  validator: ProfileValidator;
  metrics: RuntimeMetrics;
  logger: Logger;
  /** Live monitor status of a stored profile (`GET /v1/profiles/{name}/status`); absent → 503. */
  status?: (profile: StoredProfile) => Promise<ProfileStatusReport> | ProfileStatusReport;
  /** The answer the DNS server would give now (`POST /v1/resolve`); absent → 503. */
  resolve?: (query: ResolveRequest) => Promise<ResolveResult> | ResolveResult;
  /**
   * The watchdog (`GET /healthz`): how far the served DNS snapshot lags the store. Degraded → 503 with the
   * reason. Absent → 200 with the store revision only.
   */
  health?: () => Promise<HealthReport>;
  /** Traffic View of a stored profile since `since` (ms; `GET /v1/profiles/{name}/traffic`); absent → 503. */
  traffic?: (profile: StoredProfile, since: number) => TrafficReport;
  /** The routing map of a stored profile under a failure scenario (`POST /v1/preview`); absent → 503. */
  preview?: (profile: StoredProfile, down: string[]) => Promise<PreviewReport> | PreviewReport;
  /** Server-Sent Events (`GET /v1/events`); absent → 503. */
  events?: LiveEvents;
  /** The dashboard's built files (dist/ui), served at /ui/ without the token; absent → 404 with a hint. */
  uiDir?: string;
  /** Request body limit in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Where the store lives, for the messages of a full or read-only disk (507/503). */
  stateDir?: string;
  /** DNSSEC keys and rollovers (`serve --dnssec`); absent → the /v1/dnssec routes answer 404. */
  dnssec?: DnssecApi;
}

const STACK_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Conditional writes without If-Match re-apply their edit to a concurrently changed profile at most this often. */
const RETRIES = 5;
/** A stack listing of at most this many profiles reads their rows one by one; a larger one reads the table. */
const STACK_READ_ROWS = 500;

function stackOf(ctx: Ctx, required: boolean): string | undefined {
  const s = ctx.url.searchParams.get('stack') ?? header(ctx.req, 'tmkit-stack');
  if (s === undefined || s === null) return required ? DEFAULT_STACK : undefined;
  if (!STACK_RE.test(s)) throw ApiProblem.of(400, 'BAD_REQUEST', `stack '${s}' is not a valid stack name (1–64 letters, digits, '.', '_', '-')`, { path: 'stack' });
  return s;
}

function conditions(ctx: Ctx): { ifMatch?: string; ifNoneMatch?: string } {
  const ifMatch = header(ctx.req, 'if-match');
  const ifNoneMatch = header(ctx.req, 'if-none-match');
  return { ...(ifMatch !== undefined ? { ifMatch } : {}), ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}) };
}

function profileReply(status: number, name: string, stored: { etag: string; revision: number; created: boolean; changed: boolean }, stack: string, profile: Profile, warnings: Diagnostic[]): Reply<WriteResult> {
  return {
    status,
    headers: { etag: stored.etag },
    body: { name, stack, etag: stored.etag, revision: stored.revision, created: stored.created, changed: stored.changed, profile, warnings: warnings.map(toWire) },
  };
}

/** RFC 9110 §13.1 against one endpoint's ETag (`*`: it exists). Throws 412 naming what changed. */
function checkEndpointConditions(where: string, etag: string | undefined, c: { ifMatch?: string; ifNoneMatch?: string }): void {
  const matches = (h: string): boolean => {
    const tags = parseEtagList(h);
    if (tags.includes('*')) return etag !== undefined;
    return etag !== undefined && tags.some((t) => t === etag || `"${t}"` === etag);
  };
  if (c.ifMatch !== undefined && !matches(c.ifMatch)) {
    throw ApiProblem.of(412, 'PRECONDITION_FAILED', etag === undefined
      ? `${where} does not exist, so If-Match ${c.ifMatch} cannot match`
      : `${where} has changed: If-Match ${c.ifMatch} does not match its current ETag ${etag}; read it again and retry`);
  }
  if (c.ifNoneMatch !== undefined && matches(c.ifNoneMatch)) {
    throw ApiProblem.of(412, 'PRECONDITION_FAILED', `${where} already exists (ETag ${etag}) and If-None-Match ${c.ifNoneMatch} asks to create only`);
  }
}

/**
 * The management API (design §5, §8) on node:http. Every route but `/healthz` needs the bearer token.
 */
export class ApiServer {
  private readonly http: HttpApi;
  private readonly maxBody: number;
  private readonly summaries: SummaryIndex;

  constructor(private readonly o: ApiOptions) {
    this.summaries = new SummaryIndex(o.store);
    this.maxBody = o.maxBodyBytes ?? DEFAULT_MAX_BODY;
    const routes: Route[] = [
      { pattern: /^\/metrics$/, name: '/metrics', methods: { GET: () => this.metrics() } },
      { pattern: /^\/v1\/profiles$/, name: '/v1/profiles', methods: { GET: (c) => this.listProfiles(c) } },
      { pattern: /^\/v1\/profiles\/([^/]+)$/, name: '/v1/profiles/{name}', methods: { GET: (c) => this.getProfile(c), PUT: (c) => this.putProfile(c), PATCH: (c) => this.patchProfile(c), DELETE: (c) => this.deleteProfile(c) } },
      { pattern: /^\/v1\/profiles\/([^/]+)\/endpoints\/([^/]+)$/, name: '/v1/profiles/{name}/endpoints/{endpoint}', methods: { GET: (c) => this.getEndpoint(c), PUT: (c) => this.putEndpoint(c), PATCH: (c) => this.patchEndpoint(c), DELETE: (c) => this.deleteEndpoint(c) } },
      { pattern: /^\/v1\/profiles\/([^/]+)\/status$/, name: '/v1/profiles/{name}/status', methods: { GET: (c) => this.profileStatus(c) } },
      { pattern: /^\/v1\/profiles\/([^/]+)\/traffic$/, name: '/v1/profiles/{name}/traffic', methods: { GET: (c) => this.traffic(c) } },
      { pattern: /^\/v1\/resolve$/, name: '/v1/resolve', methods: { POST: (c) => this.resolve(c) } },
      { pattern: /^\/v1\/preview$/, name: '/v1/preview', methods: { POST: (c) => this.preview(c) } },
      { pattern: /^\/v1\/events$/, name: '/v1/events', methods: { GET: (c) => this.events(c) } },
      { pattern: /^\/v1\/resources$/, name: '/v1/resources', methods: { GET: () => this.getResources(), PUT: (c) => this.putResources(c) } },
      ...dnssecRoutes(o.dnssec),
    ];
    const ui = uiHandler(o.uiDir);
    const open: Route[] = [
      { pattern: /^\/healthz$/, name: '/healthz', methods: { GET: () => this.healthz() } },
      { pattern: /^\/(?:ui(?:\/.*)?)?$/, name: '/ui/', methods: { GET: ui } },
    ];
    this.http = new HttpApi({ token: o.token, metrics: o.metrics, logger: o.logger, routes, open, problem: (e, m, r) => this.problem(e, m, r) });
  }

  get server(): Server { return this.http.server; }

  /** Listens on host:port (0 = any free port); resolves to the bound address. */
  listen(host: string, port: number): Promise<AddressInfo> { return this.http.listen(host, port); }

  /** Stops accepting connections, lets in-flight requests finish (up to `graceMs`), then closes the rest. */
  close(graceMs = 5_000): Promise<void> {
    this.summaries.close();
    return this.http.close(graceMs);
  }

  private problem(err: unknown, method: string, route: string): ApiProblem {
    if (err instanceof ApiProblem) return err;
    if (err instanceof StoreError) {
      switch (err.code) {
        case 'PRECONDITION_FAILED': return ApiProblem.of(412, 'PRECONDITION_FAILED', err.message);
        case 'STACK_CONFLICT': return ApiProblem.of(409, 'STACK_CONFLICT', err.message, { path: 'stack' });
        case 'NOT_FOUND': return ApiProblem.of(404, 'NOT_FOUND', err.message);
        // etcd cannot be reached (cluster mode): refused at once, nothing written; DNS keeps answering.
        case 'STORE_UNAVAILABLE': return ApiProblem.of(503, 'STORE_UNAVAILABLE', err.message, {}, { 'retry-after': '5' });
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

  private async healthz(): Promise<Reply<HealthzBody>> {
    const h = this.o.health ? await this.o.health() : undefined;
    if (!h) return { status: 200, body: { status: 'ok', revision: await this.o.store.revision() } };
    return {
      status: h.degraded ? 503 : 200,
      body: { status: h.degraded ? 'degraded' : 'ok', revision: h.storeRevision, servedRevision: h.servedRevision, lagRevisions: h.lagRevisions, lagSeconds: h.lagSeconds, ...(h.reason !== undefined ? { reason: h.reason } : {}), ...(h.cluster ? { cluster: h.cluster } : {}) },
    };
  }

  private async metrics(): Promise<Reply<string>> {
    return { status: 200, body: await this.o.metrics.registry.metrics(), headers: { 'content-type': this.o.metrics.registry.contentType } };
  }

  /**
   * `GET /v1/profiles`: every profile with its body, or one stack's (`?stack=`, read by the summary index:
   * only that stack's rows); `?view=summary`: name, stack, ETag, relativeName and nested children only.
   */
  private async listProfiles(ctx: Ctx): Promise<Reply<ProfileList | ProfileSummaryList>> {
    const stack = stackOf(ctx, false);
    const view = ctx.url.searchParams.get('view');
    if (view !== null && view !== 'summary' && view !== 'full') {
      throw ApiProblem.of(400, 'BAD_REQUEST', `view '${view}' is not known: use view=summary (names, stacks, ETags, relativeNames, nested children) or view=full (the default)`, { path: 'view' });
    }
    if (view === 'summary') {
      const { revision, profiles } = await this.summaries.list();
      return { status: 200, body: { revision, profiles: stack === undefined ? profiles : profiles.filter((p) => p.stack === stack) } };
    }
    const revision = await this.o.store.revision();
    let rows: StoredProfile[];
    const names = stack === undefined ? undefined : await this.summaries.namesOf(stack);
    if (names !== undefined && names.length <= STACK_READ_ROWS) {
      rows = (await Promise.all(names.map((n) => this.o.store.getProfile(n)))).filter((p): p is StoredProfile => p !== undefined && p.stack === stack);
      rows.sort((a, b) => (a.profile.name < b.profile.name ? -1 : a.profile.name > b.profile.name ? 1 : 0));
    } else {
      rows = (await this.o.store.getProfiles()).filter((p) => stack === undefined || p.stack === stack);
    }
    const profiles = rows.map((p) => ({ name: p.profile.name, stack: p.stack, etag: p.etag, profile: p.profile }));
    return { status: 200, body: { revision, profiles } };
  }

  /**
   * The stored profile a URL names. Profile names are case-insensitive (as in Azure): the exact name first,
   * else the one stored profile whose name differs only in case (found in the summary index: no full read).
   */
  private async findProfile(name: string): Promise<StoredProfile | undefined> {
    const exact = await this.o.store.getProfile(name);
    if (exact) return exact;
    const stored = await this.summaries.resolve(name);
    return stored === undefined ? undefined : this.o.store.getProfile(stored);
  }

  private async mustGet(name: string): Promise<StoredProfile> {
    const p = await this.findProfile(name);
    if (!p) throw ApiProblem.of(404, 'NOT_FOUND', `profile '${name}' does not exist`, { path: `profiles[${name}]` });
    return p;
  }

  /** The stored profile for a write that names a stack: 409 when another stack owns it. */
  private async mustGetOwned(name: string, stack: string | undefined): Promise<StoredProfile> {
    const current = await this.mustGet(name);
    if (stack !== undefined && current.stack !== stack) {
      throw ApiProblem.of(409, 'STACK_CONFLICT', `profile '${current.profile.name}' is owned by stack '${current.stack}', not '${stack}'`, { path: 'stack' });
    }
    return current;
  }

  private async getProfile(ctx: Ctx): Promise<Reply<Profile>> {
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

  /**
   * Stores `input` as profile `name` of `stack`, validated whole inside the write (with the case-insensitive
   * name rule), under the given preconditions. Returns the result and the warnings.
   */
  private async write(input: ProfileInput, name: string, stack: string, cond: { ifMatch?: string; ifNoneMatch?: string }): Promise<{ r: Awaited<ReturnType<Store['putProfile']>>; profile: Profile; warnings: Diagnostic[] }> {
    const profile = normalizeProfile(input);
    let warnings: Diagnostic[] = [];
    const r = await this.o.store.putProfile(profile, {
      stack,
      ...cond,
      check: (view) => {
        const clash = nameClash(name, view.profiles.keys());
        if (clash) throw new ApiProblem(409, [clash]);
        warnings = this.validateIn(input, name, view.profiles.values());
      },
    });
    return { r, profile, warnings };
  }

  /**
   * Re-applies `edit` to the current profile until it is stored: with an explicit `If-Match` once (a
   * concurrent change is then the client's 412); without, the edit is re-applied to the newer profile.
   */
  private async editLoop<T>(name: string, stack: string | undefined, explicitIfMatch: string | undefined, edit: (current: StoredProfile) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.mustGetOwned(name, stack);
      try {
        return await edit(current);
      } catch (err) {
        if (explicitIfMatch === undefined && err instanceof StoreError && err.code === 'PRECONDITION_FAILED' && attempt < RETRIES) continue;
        throw err;
      }
    }
  }

  private async putProfile(ctx: Ctx): Promise<Reply<WriteResult>> {
    const urlName = ctx.params[0]!;
    const stack = stackOf(ctx, true)!;
    const body = await readJson(ctx.req, this.maxBody);
    if (!isObj(body)) throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be one profile (a JSON object)', { path: '$' });
    // The URL is case-insensitive; the body's name is the profile's name (PUT /v1/profiles/WEB with
    // {"name":"web"} writes web). A name that differs from a stored one only in case is a conflict.
    if (body.name === undefined) body.name = urlName;
    else if (typeof body.name !== 'string' || body.name.toLowerCase() !== urlName.toLowerCase()) {
      throw ApiProblem.of(400, 'NAME_MISMATCH', `the body names profile '${String(body.name)}' but the URL names '${urlName}'; they must be equal`, { path: `profiles[${urlName}].name` });
    }
    const name = body.name as string;
    const { r, profile, warnings } = await this.write(body as unknown as ProfileInput, name, stack, conditions(ctx));
    return profileReply(r.created ? 201 : 200, name, r, stack, profile, warnings);
  }

  /** `PATCH /v1/profiles/{name}`: a JSON merge patch of the settings; the endpoints are never touched. */
  private async patchProfile(ctx: Ctx): Promise<Reply<WriteResult>> {
    const stack = stackOf(ctx, false);
    const patch = await readJson(ctx.req, this.maxBody);
    if (!isObj(patch)) throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be a JSON merge patch of profile settings, e.g. {"dnsConfig":{"ttl":60}}', { path: '$' });
    const explicit = header(ctx.req, 'if-match');
    return this.editLoop(ctx.params[0]!, stack, explicit, async (current) => {
      const name = current.profile.name;
      const edited = withSettingsPatch(current.profile, patch);
      if ('error' in edited) throw new ApiProblem(400, [edited.error]);
      const { r, profile, warnings } = await this.write(edited.input, name, current.stack, { ifMatch: explicit ?? current.etag });
      return profileReply(200, name, r, current.stack, profile, warnings);
    });
  }

  private async deleteProfile(ctx: Ctx): Promise<Reply<DeleteResult>> {
    const stack = stackOf(ctx, false);
    // The stored name (case-insensitive URL); a profile that does not exist is the store's 404.
    const name = (await this.findProfile(ctx.params[0]!))?.profile.name ?? ctx.params[0]!;
    const opts: Parameters<Store['deleteProfile']>[1] = {
      check: (view) => {
        const referenced = deleteReferenced(name, [...view.profiles.values()].map((p) => p.profile));
        if (referenced) throw new ApiProblem(409, [referenced]);
      },
    };
    if (stack !== undefined) opts.stack = stack;
    const ifMatch = header(ctx.req, 'if-match');
    if (ifMatch !== undefined) opts.ifMatch = ifMatch;
    const r = await this.o.store.deleteProfile(name, opts);
    return { status: 200, body: { name, deleted: true, revision: r.revision } };
  }

  private endpointNotFound(p: Profile, name: string): ApiProblem {
    return ApiProblem.of(404, 'NOT_FOUND', `profile '${p.name}' has no endpoint '${name}' (it has ${p.endpoints.map((e) => `'${e.name}'`).join(', ') || 'none'})`, { path: `profiles[${p.name}].endpoints[${name}]` });
  }

  private async getEndpoint(ctx: Ctx): Promise<Reply> {
    const p = await this.mustGet(ctx.params[0]!);
    const e = findEndpoint(p.profile, ctx.params[1]!);
    if (!e) throw this.endpointNotFound(p.profile, ctx.params[1]!);
    return { status: 200, body: e, headers: { etag: endpointEtag(p.profile.name, e), 'tmkit-stack': p.stack, 'tmkit-profile-etag': p.etag } };
  }

  /**
   * `PUT /v1/profiles/{name}/endpoints/{endpoint}`: creates or replaces one endpoint. `If-Match` /
   * `If-None-Match: *` are the endpoint's (its ETag); the profile is written conditionally on the version the
   * endpoint was checked against, so of two writers holding one endpoint ETag exactly one wins.
   */
  private async putEndpoint(ctx: Ctx): Promise<Reply<EndpointWriteResult>> {
    const urlEndpoint = ctx.params[1]!;
    const stack = stackOf(ctx, false);
    const body = await readJson(ctx.req, this.maxBody);
    if (!isObj(body)) throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be one endpoint (a JSON object), e.g. {"type":"externalEndpoints","target":"192.0.2.10"}', { path: '$' });
    if (body.name === undefined) body.name = urlEndpoint;
    else if (typeof body.name !== 'string' || body.name.toLowerCase() !== urlEndpoint.toLowerCase()) {
      throw ApiProblem.of(400, 'NAME_MISMATCH', `the body names endpoint '${String(body.name)}' but the URL names '${urlEndpoint}'; they must be equal`, { path: `endpoints[${urlEndpoint}].name` });
    }
    const cond = conditions(ctx);
    return this.editLoop(ctx.params[0]!, stack, cond.ifMatch, async (current) => {
      const name = current.profile.name;
      const existing = findEndpoint(current.profile, urlEndpoint);
      const where = `endpoint '${name}/${urlEndpoint}'`;
      checkEndpointConditions(where, existing ? endpointEtag(name, existing) : undefined, cond);
      if (existing && existing.name !== body.name) {
        throw ApiProblem.of(409, 'PROFILE_NAME_CONFLICT', `endpoint names are case-insensitive and profile '${name}' already has endpoint '${existing.name}'; use that name or delete it first`, { path: `profiles[${name}].endpoints[${String(body.name)}].name` });
      }
      const { input, created } = withEndpoint(current.profile, body as unknown as EndpointInput);
      const { r, profile, warnings } = await this.write(input, name, current.stack, { ifMatch: current.etag });
      const stored = findEndpoint(profile, urlEndpoint)!;
      const etag = endpointEtag(name, stored);
      return {
        status: created ? 201 : 200,
        headers: { etag, 'tmkit-profile-etag': r.etag },
        body: { profile: name, stack: current.stack, etag, profileEtag: r.etag, revision: r.revision, created, changed: r.changed, endpoint: stored, warnings: warnings.map(toWire) },
      };
    });
  }

  private async deleteEndpoint(ctx: Ctx): Promise<Reply<EndpointDeleteResult>> {
    const endpoint = ctx.params[1]!;
    const stack = stackOf(ctx, false);
    const cond = conditions(ctx);
    return this.editLoop(ctx.params[0]!, stack, cond.ifMatch, async (current) => {
      const name = current.profile.name;
      const existing = findEndpoint(current.profile, endpoint);
      checkEndpointConditions(`endpoint '${name}/${endpoint}'`, existing ? endpointEtag(name, existing) : undefined, cond);
      const input = withoutEndpoint(current.profile, endpoint);
      if (!input) throw this.endpointNotFound(current.profile, endpoint);
      const { r } = await this.write(input, name, current.stack, { ifMatch: current.etag });
      return { status: 200, headers: { 'tmkit-profile-etag': r.etag }, body: { profile: name, endpoint: existing!.name, deleted: true, profileEtag: r.etag, revision: r.revision } };
    });
  }

  /** `PATCH …/endpoints/{endpoint}`: a JSON merge patch of one endpoint; `If-Match` is the profile's ETag. */
  private async patchEndpoint(ctx: Ctx): Promise<Reply<WriteResult>> {
    const endpointName = ctx.params[1]!;
    const stack = stackOf(ctx, false);
    const patch = await readJson(ctx.req, this.maxBody);
    if (!isObj(patch)) throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be a JSON object of endpoint properties, e.g. {"endpointStatus":"Disabled"}', { path: '$' });
    if ('name' in patch && patch.name !== endpointName) {
      throw ApiProblem.of(400, 'NAME_MISMATCH', `an endpoint cannot be renamed by PATCH (body name '${String(patch.name)}', URL '${endpointName}'); PUT the profile instead`, { path: `profiles[${ctx.params[0]!}].endpoints[${endpointName}].name` });
    }
    const explicit = header(ctx.req, 'if-match');
    return this.editLoop(ctx.params[0]!, stack, explicit, async (current) => {
      const name = current.profile.name;
      const input = withEndpointPatch(current.profile, endpointName, patch);
      if (!input) throw this.endpointNotFound(current.profile, endpointName);
      const { r, profile, warnings } = await this.write(input, name, current.stack, { ifMatch: explicit ?? current.etag });
      return profileReply(200, name, r, current.stack, profile, warnings);
    });
  }

  private async profileStatus(ctx: Ctx): Promise<Reply<ProfileStatusReport>> {
    const p = await this.mustGet(ctx.params[0]!);
    if (!this.o.status) throw ApiProblem.of(503, 'NOT_AVAILABLE', 'this server has no monitor attached; status is unavailable');
    return { status: 200, body: await this.o.status(p), headers: { etag: p.etag } };
  }

  private async resolve(ctx: Ctx): Promise<Reply<ResolveResult>> {
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

  private async traffic(ctx: Ctx): Promise<Reply<TrafficReport>> {
    const p = await this.mustGet(ctx.params[0]!);
    if (!this.o.traffic) throw ApiProblem.of(503, 'NOT_AVAILABLE', 'this server has no DNS attached; Traffic View is unavailable');
    const raw = ctx.url.searchParams.get('since');
    const since = raw === null ? 0 : Date.parse(raw);
    if (Number.isNaN(since)) throw ApiProblem.of(400, 'BAD_REQUEST', `since '${raw}' is not an ISO 8601 time such as 2026-12-02T10:00:00Z`, { path: 'since' });
    return { status: 200, body: this.o.traffic(p, since) };
  }

  private async preview(ctx: Ctx): Promise<Reply<PreviewReport>> {
    const body = await readJson(ctx.req, this.maxBody);
    if (!isObj(body) || typeof body.profile !== 'string') throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be {"profile": "<name>", "down": ["<endpoint>", ...]}', { path: 'profile' });
    const down = body.down ?? [];
    if (!Array.isArray(down) || down.some((d) => typeof d !== 'string')) throw ApiProblem.of(400, 'BAD_REQUEST', 'down is a list of endpoint names (or child/endpoint paths) to treat as Degraded', { path: 'down' });
    const p = await this.mustGet(body.profile);
    if (!this.o.preview) throw ApiProblem.of(503, 'NOT_AVAILABLE', 'this server has no routing engine attached; the preview is unavailable');
    return { status: 200, body: await this.o.preview(p, down as string[]) };
  }

  private async events(ctx: Ctx): Promise<Reply<undefined>> {
    const events = this.o.events;
    if (!events) throw ApiProblem.of(503, 'NOT_AVAILABLE', 'this server publishes no events');
    if (events.full) throw ApiProblem.of(429, 'TOO_MANY_STREAMS', 'too many event streams are open; close one (each browser tab of the dashboard holds one)');
    events.subscribe(ctx.res);
    return { status: 200, body: undefined, streamed: true };
  }

  private async getResources(): Promise<Reply<ResourceCatalogResponse>> {
    return { status: 200, body: { revision: await this.o.store.revision(), resources: await this.o.store.getResources() } };
  }

  private async putResources(ctx: Ctx): Promise<Reply<{ revision: number; count: number }>> {
    const body = await readJson(ctx.req, this.maxBody);
    const { catalog, errors } = parseResourceCatalog(isObj(body) && 'revision' in body ? { resources: body.resources } : body);
    if (errors.length > 0) throw new ApiProblem(400, errors);
    const r = await this.o.store.putResources(catalog);
    return { status: 200, body: { revision: r.revision, count: Object.keys(catalog).length } };
  }
}
