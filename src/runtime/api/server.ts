/**
 * The management API (docs/api.md) on node:http: the routes of each resource module (profiles.ts,
 * endpoints.ts, resources.ts, reads.ts, pushed-health.ts, …), the dashboard's files (ui.ts), and the one
 * mapping from failures to HTTP problems. Every route but `/healthz`, `/readyz` and `/ui/` needs the bearer token; the
 * HTTP plumbing is http.ts. Writes go straight to the store, which validates them (core/store/admission.ts).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { StoreError, type Store } from '../../core/store';
import type { LiveEvents } from '../events';
import type { RuntimeMetrics } from '../metrics';
import { storeWriteFailure } from '../store/failures';
import type { ApiContext } from './common';
import { endpointRoutes } from './endpoints';
import { ApiProblem } from './errors';
import { DEFAULT_MAX_BODY, HttpApi, route, type Route } from './http';
import { profileRoutes } from './profiles';
import type { RuntimeReports } from '../read-models';
import { readRoutes } from './reads';
import { resourceRoutes } from './resources';
import { SummaryIndex } from './summaries';
import type { CookieSecretSource, DnssecApi } from '../dns';
import { cookieRoutes } from './cookies';
import { dnssecRoutes } from './dnssec';
import { pushedHealthRoutes } from './pushed-health';
import { probeFailureRoutes } from './probe-failures';
import type { ProbeFailures } from '../monitor/probe-failures';
import { webhookRoutes } from './webhooks';
import type { WebhooksApi } from '../webhooks';
import type { PushedHealthApi } from '../ledger';
import type { OperationsPort } from '../operations';
import { nodeRoutes, operationsRoutes } from './operations';
import type { AuthThrottleOptions } from './auth';
import { uiHandler } from './ui';

export { DEFAULT_MAX_BODY, MAX_JSON_DEPTH, jsonDeeperThan } from './http';
export type { HealthReport, ResolveRequest, RuntimeReports } from '../read-models';

export interface ApiOptions {
  store: Store;
  token: string;
  metrics: RuntimeMetrics;
  logger: Logger;
  /** The running server's answers (status, resolve, health, traffic, preview); a missing one answers 503. */
  reports?: Partial<RuntimeReports>;
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
  /** The DNS cookie secret and its rotation; absent (`--no-cookies`) → the /v1/dns/cookies routes answer 404. */
  cookies?: CookieSecretSource;
  /** Health pushed from outside (`…/endpoints/{e}/health`); absent → 503. */
  pushedHealth?: PushedHealthApi;
  /** Probe failures a detection drill injects (`…/endpoints/{e}/probe-failure`); absent → 503. */
  probeFailures?: ProbeFailures;
  /** Webhooks (`/v1/webhooks`); absent → 503. */
  webhooks?: WebhooksApi;
  /** Traffic operations (overrides, failback, drills, audit; operations.ts) and the node's readiness; absent → those routes answer 503. */
  ops?: OperationsPort;
  /** Failed token checks throttled per source address (default: 429 after 10 within 10 s; docs/api.md). */
  authThrottle?: AuthThrottleOptions;
  /** The API server's connection cap (default 512), apart from DNS's. */
  maxConnections?: number;
}

/** The store's refusals and their HTTP status; the diagnostics they carry are the body. */
const STORE_STATUS: Partial<Record<StoreError['code'], number>> = {
  PRECONDITION_FAILED: 412,
  NOT_FOUND: 404,
  STACK_CONFLICT: 409,
  PROFILE_INVALID: 400,
  PROFILE_NAME_CONFLICT: 409,
  PROFILE_REFERENCED: 409,
};

export class ApiServer {
  private readonly http: HttpApi;
  private readonly summaries: SummaryIndex;

  constructor(private readonly deps: ApiOptions) {
    this.summaries = new SummaryIndex(deps.store);
    const c: ApiContext = { store: deps.store, summaries: this.summaries, maxBody: deps.maxBodyBytes ?? DEFAULT_MAX_BODY };
    const reads = readRoutes({ ...c, reports: deps.reports ?? {}, metrics: deps.metrics, ...(deps.events ? { events: deps.events } : {}) });
    const node = nodeRoutes(c, deps.ops);
    const routes: Route[] = [
      ...profileRoutes(c),
      ...endpointRoutes(c, deps.ops),
      ...resourceRoutes(c),
      ...reads.routes,
      ...dnssecRoutes(deps.dnssec, deps.store),
      ...cookieRoutes(deps.cookies, deps.store),
      ...operationsRoutes(c, deps.ops),
      ...node.routes,
      ...pushedHealthRoutes(c, deps.pushedHealth),
      ...probeFailureRoutes(c, deps.probeFailures),
      ...webhookRoutes(c, deps.webhooks),
    ];
    const open: Route[] = [...reads.open, ...node.open, route('/ui/*', { GET: uiHandler(deps.uiDir) }, ['/', '/ui'])];
    this.http = new HttpApi({
      token: deps.token,
      metrics: deps.metrics,
      logger: deps.logger,
      routes,
      open,
      problem: (e, m, r) => this.problem(e, m, r),
      ...(deps.authThrottle ? { authThrottle: deps.authThrottle } : {}),
      ...(deps.maxConnections !== undefined ? { maxConnections: deps.maxConnections } : {}),
    });
  }

  get server(): Server {
    return this.http.server;
  }

  /** Every route with its methods (HttpApi.routeTable). */
  routeTable(): Array<{ name: string; methods: string[]; open: boolean }> {
    return this.http.routeTable();
  }

  /** Listens on host:port (0 = any free port); resolves to the bound address. */
  listen(host: string, port: number): Promise<AddressInfo> {
    return this.http.listen(host, port);
  }

  /** Stops accepting connections, lets in-flight requests finish (up to `graceMs`), then closes the rest. */
  close(graceMs = 5_000): Promise<void> {
    this.summaries.close();
    return this.http.close(graceMs);
  }

  private problem(err: unknown, method: string, route: string): ApiProblem {
    if (err instanceof ApiProblem) return err;
    if (err instanceof StoreError) {
      const status = STORE_STATUS[err.code];
      if (status !== undefined) {
        if (err.diagnostics.length > 0) return new ApiProblem(status, [...err.diagnostics]);
        return ApiProblem.of(status, err.code, err.message, err.code === 'STACK_CONFLICT' ? { path: 'stack' } : {});
      }
      // etcd cannot be reached (cluster mode): refused at once, nothing written; DNS keeps answering.
      if (err.code === 'STORE_UNAVAILABLE') return ApiProblem.of(503, 'STORE_UNAVAILABLE', err.message, {}, { 'retry-after': '5' });
    }
    const failure = storeWriteFailure(err);
    if (failure !== undefined) {
      // The server's disk, not the request: nothing was written (the transaction rolled back), and DNS keeps
      // answering from the snapshot in memory.
      this.deps.logger.error({ err, method, route }, 'the store could not be written');
      const where = this.deps.stateDir ?? 'the state dir';
      const code = String((err as { code?: unknown }).code);
      const kept = 'nothing was written; DNS keeps answering from the configuration in memory';
      if (failure === 'full') return ApiProblem.of(507, 'STORAGE_FULL', `disk full at ${where}: free space and retry (${code}; ${kept})`);
      if (failure === 'readonly')
        return ApiProblem.of(
          503,
          'STORAGE_READ_ONLY',
          `the store at ${where} is read-only (${code}: a read-only file or file system): make it writable and retry (${kept})`,
        );
      return ApiProblem.of(
        503,
        'STORAGE_IO_ERROR',
        `the store at ${where} could not be written (${code}: an I/O error): check the disk and the kernel log, then retry (${kept})`,
      );
    }
    this.deps.logger.error({ err, method, route }, 'api request failed');
    return ApiProblem.of(500, 'INTERNAL', 'internal error; the server log has the details');
  }
}
