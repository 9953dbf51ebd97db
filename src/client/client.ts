import { existsSync, readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import type { Agent, Dispatcher } from 'undici';
import type { Endpoint, EndpointInput, Profile, ProfileInput } from '../core/model/types';
import type { AzureResource } from '../core/ports';
import { TmkitApiError, TmkitConnectionError } from './errors';
import { fromWire } from '../core/api';
import type {
  NodeDrainRequest,
  NodeReadiness,
  ApiErrorBody,
  DeleteResult,
  EndpointDeleteResult,
  EndpointWriteResult,
  ProfileEntry,
  ProfileList,
  ProfileSummary,
  ProfileStatusReport,
  ResolveQuery,
  ResolveResult,
  ResourceCatalogResponse,
  WriteResult,
  DnsCookiesReport,
  DnssecReport,
  DnssecRolloverRequest,
  DnssecRolloverResult,
  PushedHealthReport,
  PushedHealthRequest,
  WebhookList,
  WebhookReport,
  WebhookRequest,
  AuditList,
  DecisionsReport,
  DrillList,
  DrillReport,
  ProbeFailureReport,
  ProbeFailureRequest,
  FailbackResult,
  NodeList,
  OverrideDeleteResult,
  OverrideList,
  OverrideRequest,
  OverrideResult,
  ShiftList,
  ShiftRenewal,
  ShiftRequest,
  ShiftResult,
} from '../core/api';

export const DEFAULT_SERVER = 'http://127.0.0.1:5380';
export const DEFAULT_STATE_DIR = '.tmkit';

export interface ClientOptions {
  /** Base URL; default `TMKIT_SERVER`, then `http://127.0.0.1:5380`. */
  server?: string;
  /**
   * Bearer token; default `TMKIT_TOKEN`, then — only when the server is on a loopback address —
   * `<stateDir>/token` (what a local `tmkit serve` generated), so a local token is never sent elsewhere.
   */
  token?: string;
  /** Default `TMKIT_STATE_DIR`, then `.tmkit`. */
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Retries after a connection error (never after an HTTP response); default 3. */
  retries?: number;
  /** First retry delay, doubled each time; default 100 ms. */
  retryDelayMs?: number;
  /** Per-request timeout; default 30 s. */
  timeoutMs?: number;
  /**
   * How this client's users set the server, for "cannot reach" messages: default `--server or TMKIT_SERVER`
   * (the CLI); a provider names its own setting (`server` in the provider block, `tmkit:server`).
   */
  serverSetting?: string;
  /**
   * Who is calling, for the server's audit log (docs/operations.md#audit-log): sent as `?who=` on every
   * request but GET and HEAD (a request that already names one keeps its own). Without it the server records `api`.
   */
  who?: string;
}

/** The request never reached the server: safe to retry any method. */
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
/** The connection broke mid-request: the server may have acted, so only safe methods are retried. */
const SOCKET_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** The request was sent but its response never came (broken connection, timeout): the server may have acted on it. */
const LOST_RESPONSE = new Set([...SOCKET_ERRORS, 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * True when a write failed without an answer although it may have reached the server (the connection broke
 * or timed out after the request was sent). The caller reads the object back to learn whether it was written.
 */
export function responseLost(err: unknown): boolean {
  if (err instanceof TmkitApiError || err instanceof TmkitConnectionError) return false;
  const code = errCode(err);
  return code !== undefined && LOST_RESPONSE.has(code);
}

function errCode(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string }; errors?: Array<{ code?: string }> } | undefined;
  return e?.code && e.code !== 'UND_ERR' ? e.code : (e?.cause?.code ?? e?.errors?.[0]?.code);
}

/** True for `localhost`, `127.0.0.0/8` and `::1`: the hosts a local token file is sent to (and a state dir's server.json may name). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export type PutOptions = { stack?: string; ifMatch?: string; ifNoneMatch?: string };

/**
 * Where the client's token came from: `option`, `env` (TMKIT_TOKEN), `file` (the state directory's token
 * file, read only for a loopback server), or `none`. `file` is the token file looked for (absolute), set
 * whenever the server is on loopback and no token was given, so a caller can say where it looked.
 */
export interface TokenSource {
  origin: 'option' | 'env' | 'file' | 'none';
  file?: string;
  /** False when the server is not on loopback (the token file is then never read). */
  loopback: boolean;
}

/**
 * undici loads on the first request, not with the module: it is most of a provider bundle's start-up
 * (Terraform starts its provider 3–4 times per command, and most starts never reach the API).
 */
let undiciModule: typeof import('undici') | undefined;
function undici(): typeof import('undici') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (undiciModule ??= require('undici') as typeof import('undici'));
}

/** Typed client for the management API (docs/api.md), on undici. */
export class TmkitClient {
  readonly server: string;
  private readonly token: string | undefined;
  /** Where the token came from (or where it was looked for). */
  readonly tokenSource: TokenSource;
  private agentInstance: Agent | undefined;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly timeoutMs: number;
  private readonly serverSetting: string | undefined;
  private readonly who: string | undefined;

  constructor(options: ClientOptions = {}) {
    const env = options.env ?? process.env;
    this.server = (options.server ?? env.TMKIT_SERVER ?? DEFAULT_SERVER).replace(/\/+$/, '');
    const url = new URL(this.server);
    const loopback = isLoopback(url.hostname);
    const envToken = env.TMKIT_TOKEN?.trim() || undefined;
    let token = options.token ?? envToken;
    let source: TokenSource = { origin: options.token !== undefined ? 'option' : envToken !== undefined ? 'env' : 'none', loopback };
    if (token === undefined && loopback) {
      const file = resolvePath(options.stateDir ?? (env.TMKIT_STATE_DIR || undefined) ?? DEFAULT_STATE_DIR, 'token');
      if (existsSync(file)) token = readFileSync(file, 'utf8').trim() || undefined;
      source = { origin: token !== undefined ? 'file' : 'none', file, loopback };
    }
    this.token = token;
    this.tokenSource = source;
    this.retries = options.retries ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 100;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.serverSetting = options.serverSetting;
    this.who = options.who;
  }

  /** The connection pool, made on first use (see undici() above). */
  private get agent(): Agent {
    return (this.agentInstance ??= new (undici().Agent)({ keepAliveTimeout: 4_000, connect: { timeout: 5_000 } }));
  }

  /** True when a token was found (option, TMKIT_TOKEN or the local token file). */
  get hasToken(): boolean {
    return this.token !== undefined;
  }

  /** Low-level request: JSON in, JSON (or text) out; throws TmkitApiError on any non-2xx. */
  async call<T>(
    method: Dispatcher.HttpMethod,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: T }> {
    const url = `${this.server}${this.withWho(method, path)}`;
    const h: Record<string, string> = { accept: 'application/json', ...headers };
    if (this.token !== undefined) h.authorization = `Bearer ${this.token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      h['content-type'] = 'application/json';
    }
    for (let attempt = 0; ; attempt++) {
      let res: Dispatcher.ResponseData;
      try {
        res = await undici().request(url, {
          method,
          headers: h,
          body: payload,
          dispatcher: this.agent,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        });
      } catch (err) {
        const code = errCode(err);
        const retriable =
          (code !== undefined && CONNECT_ERRORS.has(code)) ||
          (code !== undefined && SOCKET_ERRORS.has(code) && (method === 'GET' || method === 'HEAD'));
        if (!retriable) throw err;
        if (attempt >= this.retries) throw new TmkitConnectionError(this.server, err, attempt + 1, this.serverSetting);
        await new Promise((r) => setTimeout(r, this.retryDelayMs * 2 ** attempt));
        continue;
      }
      const text = await res.body.text();
      const type = String(res.headers['content-type'] ?? '');
      let parsed: unknown = text;
      if (type.includes('json') && text !== '') {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      if (res.statusCode >= 200 && res.statusCode < 300) return { status: res.statusCode, headers: res.headers, body: parsed as T };
      const errors = (parsed as Partial<ApiErrorBody> | undefined)?.errors;
      throw new TmkitApiError(res.statusCode, Array.isArray(errors) ? errors.map(fromWire) : [], method, path);
    }
  }

  /** `path` with `who=` added for a write, when this client has a name and the path does not name one. */
  private withWho(method: Dispatcher.HttpMethod, path: string): string {
    if (this.who === undefined || method === 'GET' || method === 'HEAD') return path;
    const q = path.indexOf('?');
    if (q >= 0 && new URLSearchParams(path.slice(q + 1)).has('who')) return path;
    return `${path}${q >= 0 ? '&' : '?'}${new URLSearchParams({ who: this.who }).toString()}`;
  }

  private static q(params: Record<string, string | undefined>): string {
    const s = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
    return s === '' ? '' : `?${s}`;
  }

  private static cond(o: { ifMatch?: string; ifNoneMatch?: string }): Record<string, string> {
    const h: Record<string, string> = {};
    if (o.ifMatch !== undefined) h['if-match'] = o.ifMatch;
    if (o.ifNoneMatch !== undefined) h['if-none-match'] = o.ifNoneMatch;
    return h;
  }

  /** `GET /healthz`: without a valid token the server says only `status` (no revision, no zone). */
  async healthz(): Promise<{ status: string; revision?: number; zone?: string }> {
    return (await this.call<{ status: string; revision?: number; zone?: string }>('GET', '/healthz')).body;
  }

  async metrics(): Promise<string> {
    return (await this.call<string>('GET', '/metrics')).body;
  }

  async listProfiles(options: { stack?: string } = {}): Promise<ProfileList> {
    return (await this.call<ProfileList>('GET', `/v1/profiles${TmkitClient.q({ stack: options.stack })}`)).body;
  }

  /**
   * Every profile's summary (`?view=summary`: name, stack, ETag, relativeName, nested children). A server
   * from before the summary view ignores the parameter and sends the full listing: then `full` has it.
   */
  async listProfileSummaries(
    options: { stack?: string } = {},
  ): Promise<{ revision: number; profiles: ProfileSummary[]; full?: ProfileList }> {
    const body = (
      await this.call<{ revision: number; profiles: Array<ProfileSummary | ProfileEntry> }>(
        'GET',
        `/v1/profiles${TmkitClient.q({ stack: options.stack, view: 'summary' })}`,
      )
    ).body;
    if (body.profiles.some((p) => !Array.isArray((p as Partial<ProfileSummary>).nested))) {
      return { revision: body.revision, profiles: [], full: body as ProfileList };
    }
    return body as { revision: number; profiles: ProfileSummary[] };
  }

  /** The profile with its ETag and stack; throws TmkitApiError `NOT_FOUND` (404) when missing. */
  async getProfile(name: string): Promise<ProfileEntry> {
    const r = await this.call<Profile>('GET', `/v1/profiles/${encodeURIComponent(name)}`);
    return { name, profile: r.body, etag: String(r.headers.etag ?? ''), stack: String(r.headers['tmkit-stack'] ?? '') };
  }

  /** Like getProfile, but undefined when the profile does not exist. */
  async findProfile(name: string): Promise<ProfileEntry | undefined> {
    try {
      return await this.getProfile(name);
    } catch (err) {
      if (err instanceof TmkitApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  async putProfile(profile: Profile | ProfileInput, options: PutOptions = {}): Promise<WriteResult> {
    const path = `/v1/profiles/${encodeURIComponent(profile.name)}${TmkitClient.q({ stack: options.stack })}`;
    return (await this.call<WriteResult>('PUT', path, profile, TmkitClient.cond(options))).body;
  }

  async deleteProfile(name: string, options: { stack?: string; ifMatch?: string } = {}): Promise<DeleteResult> {
    const path = `/v1/profiles/${encodeURIComponent(name)}${TmkitClient.q({ stack: options.stack })}`;
    return (await this.call<DeleteResult>('DELETE', path, undefined, TmkitClient.cond(options))).body;
  }

  /**
   * Merge-patches one endpoint (`null` removes a property), then the server validates the whole profile. The
   * safety rule refuses a patch that leaves a profile with no endpoint able to serve (409 ENDPOINT_UNSAFE) unless `force`.
   */
  async patchEndpoint(
    profile: string,
    endpoint: string,
    patch: Partial<Record<keyof Endpoint, unknown>>,
    options: { stack?: string; ifMatch?: string; reason?: string; force?: boolean } = {},
  ): Promise<WriteResult> {
    const q = TmkitClient.q({ stack: options.stack, reason: options.reason, force: options.force ? 'true' : undefined });
    const path = `/v1/profiles/${encodeURIComponent(profile)}/endpoints/${encodeURIComponent(endpoint)}${q}`;
    return (await this.call<WriteResult>('PATCH', path, patch, TmkitClient.cond(options))).body;
  }

  /** Merge-patches the profile's settings (docs/ARCHITECTURE.md, "Providers"); its endpoints are never touched. `ifMatch`: the profile's ETag. */
  async patchProfile(
    name: string,
    patch: Record<string, unknown>,
    options: { stack?: string; ifMatch?: string } = {},
  ): Promise<WriteResult> {
    const path = `/v1/profiles/${encodeURIComponent(name)}${TmkitClient.q({ stack: options.stack })}`;
    return (await this.call<WriteResult>('PATCH', path, patch, TmkitClient.cond(options))).body;
  }

  /** One endpoint with its own ETag, its profile's stack and ETag; throws TmkitApiError `NOT_FOUND` (404) when missing. */
  async getEndpoint(profile: string, endpoint: string): Promise<{ endpoint: Endpoint; etag: string; stack: string; profileEtag: string }> {
    const r = await this.call<Endpoint>('GET', `/v1/profiles/${encodeURIComponent(profile)}/endpoints/${encodeURIComponent(endpoint)}`);
    return {
      endpoint: r.body,
      etag: String(r.headers.etag ?? ''),
      stack: String(r.headers['tmkit-stack'] ?? ''),
      profileEtag: String(r.headers['tmkit-profile-etag'] ?? ''),
    };
  }

  /** Creates or replaces one endpoint; `ifMatch`/`ifNoneMatch: '*'` are the endpoint's ETag conditions. */
  async putEndpoint(profile: string, endpoint: Endpoint | EndpointInput, options: PutOptions = {}): Promise<EndpointWriteResult> {
    const path = `/v1/profiles/${encodeURIComponent(profile)}/endpoints/${encodeURIComponent(endpoint.name)}${TmkitClient.q({ stack: options.stack })}`;
    return (await this.call<EndpointWriteResult>('PUT', path, endpoint, TmkitClient.cond(options))).body;
  }

  /** Deletes one endpoint; `ifMatch` is the endpoint's ETag. */
  async deleteEndpoint(
    profile: string,
    endpoint: string,
    options: { stack?: string; ifMatch?: string } = {},
  ): Promise<EndpointDeleteResult> {
    const path = `/v1/profiles/${encodeURIComponent(profile)}/endpoints/${encodeURIComponent(endpoint)}${TmkitClient.q({ stack: options.stack })}`;
    return (await this.call<EndpointDeleteResult>('DELETE', path, undefined, TmkitClient.cond(options))).body;
  }

  async status(name: string): Promise<ProfileStatusReport> {
    return (await this.call<ProfileStatusReport>('GET', `/v1/profiles/${encodeURIComponent(name)}/status`)).body;
  }

  async resolve(query: ResolveQuery): Promise<ResolveResult> {
    return (await this.call<ResolveResult>('POST', '/v1/resolve', query)).body;
  }

  async getResources(): Promise<ResourceCatalogResponse> {
    return (await this.call<ResourceCatalogResponse>('GET', '/v1/resources')).body;
  }

  async putResources(resources: Record<string, AzureResource>): Promise<{ revision: number; count: number }> {
    return (await this.call<{ revision: number; count: number }>('PUT', '/v1/resources', resources)).body;
  }

  /** The zone's DNSSEC keys and DS records (`serve --dnssec`; 404 DNSSEC_OFF without it). */
  async dnssec(): Promise<DnssecReport> {
    return (await this.call<DnssecReport>('GET', '/v1/dnssec')).body;
  }

  /** Starts a rollover of the zone-signing key (`kind: 'zone'`) or the KSK, or finishes one (`finish: true`). */
  async dnssecRollover(request: DnssecRolloverRequest): Promise<DnssecRolloverResult> {
    return (await this.call<DnssecRolloverResult>('POST', '/v1/dnssec/rollover', request)).body;
  }

  /** Where the DNS cookie secret is kept (the state dir, or etcd for a cluster); 404 COOKIES_OFF with `--no-cookies`. */
  async dnsCookies(): Promise<DnsCookiesReport> {
    return (await this.call<DnsCookiesReport>('GET', '/v1/dns/cookies')).body;
  }

  /** Rotates the DNS cookie secret (every node of a cluster): a new one, the old one still accepted. */
  async rotateDnsCookies(): Promise<DnsCookiesReport> {
    return (await this.call<DnsCookiesReport>('POST', '/v1/dns/cookies/rotate', {})).body;
  }

  /** Health pushed from outside: marks an endpoint Online or Degraded for `ttlSeconds` (docs/health.md). */
  async pushHealth(profile: string, endpoint: string, request: PushedHealthRequest): Promise<PushedHealthReport> {
    return (await this.call<PushedHealthReport>('PUT', TmkitClient.healthPath(profile, endpoint), request)).body;
  }

  /** Ends an endpoint's pushed health now (`cleared: false` when it had none). */
  async clearHealth(profile: string, endpoint: string): Promise<{ profile: string; endpoint: string; cleared: boolean }> {
    return (await this.call<{ profile: string; endpoint: string; cleared: boolean }>('DELETE', TmkitClient.healthPath(profile, endpoint)))
      .body;
  }

  /** Makes the server's prober fail an endpoint's probes for a while (a detection drill; `tmkit drill --mode detection`). */
  async injectProbeFailure(profile: string, endpoint: string, request: ProbeFailureRequest): Promise<ProbeFailureReport> {
    return (await this.call<ProbeFailureReport>('PUT', `${TmkitClient.endpointPath(profile, endpoint)}/probe-failure`, request)).body;
  }

  /** Ends an injected probe failure now (`cleared: false` when none was in force). */
  async clearProbeFailure(profile: string, endpoint: string): Promise<{ profile: string; endpoint: string; cleared: boolean }> {
    return (
      await this.call<{ profile: string; endpoint: string; cleared: boolean }>(
        'DELETE',
        `${TmkitClient.endpointPath(profile, endpoint)}/probe-failure`,
      )
    ).body;
  }

  private static endpointPath(profile: string, endpoint: string): string {
    return `/v1/profiles/${encodeURIComponent(profile)}/endpoints/${encodeURIComponent(endpoint)}`;
  }

  private static healthPath(profile: string, endpoint: string): string {
    return `/v1/profiles/${encodeURIComponent(profile)}/endpoints/${encodeURIComponent(endpoint)}/health`;
  }

  /** The server's webhooks and their delivery logs (docs/webhooks.md). */
  async webhooks(): Promise<WebhookList> {
    return (await this.call<WebhookList>('GET', '/v1/webhooks')).body;
  }

  async addWebhook(request: WebhookRequest): Promise<WebhookReport> {
    return (await this.call<WebhookReport>('POST', '/v1/webhooks', request)).body;
  }

  async deleteWebhook(id: string): Promise<{ id: string; deleted: true }> {
    return (await this.call<{ id: string; deleted: true }>('DELETE', `/v1/webhooks/${encodeURIComponent(id)}`)).body;
  }

  // Traffic operations (docs/operations.md).

  /** Makes an override (409 OVERRIDE_UNSAFE when the safety rule refuses a `down` one without `force`). */
  async createOverride(request: OverrideRequest): Promise<OverrideResult> {
    return (await this.call<OverrideResult>('POST', '/v1/overrides', request)).body;
  }

  /** The overrides in force. */
  async listOverrides(): Promise<OverrideList> {
    return (await this.call<OverrideList>('GET', '/v1/overrides')).body;
  }

  /** Ends an override before its expiry. */
  async clearOverride(id: string, options: { who?: string; reason?: string } = {}): Promise<OverrideDeleteResult> {
    return (await this.call<OverrideDeleteResult>('DELETE', `/v1/overrides/${encodeURIComponent(id)}${TmkitClient.q(options)}`)).body;
  }

  /** The holds of running shifts (one `tmkit shift` per endpoint at a time). */
  async listShifts(): Promise<ShiftList> {
    return (await this.call<ShiftList>('GET', '/v1/shifts')).body;
  }

  /** Takes the hold of an endpoint for a shift (409 SHIFT_HELD, naming the holder, when another shift has it). */
  async startShift(request: ShiftRequest): Promise<ShiftResult> {
    return (await this.call<ShiftResult>('POST', '/v1/shifts', request)).body;
  }

  /** Renews a shift's hold (409 SHIFT_CANCELLED once cancelled, 409 SHIFT_LOST when it no longer holds it). */
  async renewShift(id: string, renewal: ShiftRenewal = {}): Promise<ShiftResult> {
    return (await this.call<ShiftResult>('PUT', `/v1/shifts/${encodeURIComponent(id)}`, renewal)).body;
  }

  /** Ends a shift's hold (the shift is done, rolled back or interrupted). */
  async endShift(id: string, options: { who?: string; reason?: string } = {}): Promise<ShiftResult> {
    return (await this.call<ShiftResult>('DELETE', `/v1/shifts/${encodeURIComponent(id)}${TmkitClient.q(options)}`)).body;
  }

  /** Cancels a running shift: it rolls back its steps when it next renews its hold. */
  async cancelShift(id: string, options: { who?: string; reason?: string } = {}): Promise<ShiftResult> {
    return (await this.call<ShiftResult>('POST', `/v1/shifts/${encodeURIComponent(id)}/cancel`, options)).body;
  }

  /** Approves the failback of an endpoint of a profile with failback mode Manual. */
  async failback(profile: string, endpoint: string, options: { who?: string; reason?: string } = {}): Promise<FailbackResult> {
    return (
      await this.call<FailbackResult>(
        'POST',
        `/v1/profiles/${encodeURIComponent(profile)}/endpoints/${encodeURIComponent(endpoint)}/failback`,
        options,
      )
    ).body;
  }

  /** The newest audit entries (who, what, when, why), newest first. */
  async audit(limit = 100): Promise<AuditList> {
    return (await this.call<AuditList>('GET', `/v1/audit?limit=${limit}`)).body;
  }

  /** The decision log of the node this client talks to: real answered queries and why, oldest first. */
  async decisions(q: { profile?: string; client?: string; since?: string; limit?: number } = {}): Promise<DecisionsReport> {
    const params = new URLSearchParams();
    if (q.profile !== undefined) params.set('profile', q.profile);
    if (q.client !== undefined) params.set('client', q.client);
    if (q.since !== undefined) params.set('since', q.since);
    if (q.limit !== undefined) params.set('limit', String(q.limit));
    const qs = params.toString();
    return (await this.call<DecisionsReport>('GET', `/v1/decisions${qs ? `?${qs}` : ''}`)).body;
  }

  /** Keeps a drill report (a running one is replaced by its final one, by id). */
  async putDrill(report: DrillReport): Promise<DrillReport> {
    return (await this.call<DrillReport>('POST', '/v1/drills', report)).body;
  }

  async drills(limit = 20): Promise<DrillList> {
    return (await this.call<DrillList>('GET', `/v1/drills?limit=${limit}`)).body;
  }

  /** Where each node answers DNS (one entry for a single server). */
  async nodes(): Promise<NodeList> {
    return (await this.call<NodeList>('GET', '/v1/nodes')).body;
  }

  /** This node's readiness (what `GET /readyz` says: ready, draining, or not ready and why). */
  async node(): Promise<NodeReadiness> {
    return (await this.call<NodeReadiness>('GET', '/v1/node')).body;
  }

  /** Takes this node out of rotation (`/readyz` 503) until undrained or restarted; DNS keeps answering. */
  async drainNode(request: NodeDrainRequest = {}): Promise<NodeReadiness> {
    return (await this.call<NodeReadiness>('POST', '/v1/node/drain', request)).body;
  }

  /** Puts this node back into rotation. */
  async undrainNode(request: NodeDrainRequest = {}): Promise<NodeReadiness> {
    return (await this.call<NodeReadiness>('POST', '/v1/node/undrain', request)).body;
  }

  async close(): Promise<void> {
    await this.agentInstance?.close();
  }
}
