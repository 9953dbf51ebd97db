/**
 * `tmkit external-dns`: ExternalDNS's webhook provider (docs/kubernetes.md), an HTTP server beside ExternalDNS
 * that talks to a tmkit server through the API client. Every write is a document of this owner's stack
 * (`external-dns-<owner id>`) planned and applied through the deploy module, as `tmkit apply` does (ETags,
 * stale-plan refusal, `who` in the audit log); the mapping is external-dns-records.ts.
 *
 * Status codes: 5xx only when trying again can succeed (the tmkit server unreachable or failing, a write
 * that lost a race with another writer); 4xx with `{"error": …}` for what will fail again unchanged.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TmkitApiError, TmkitConnectionError, type TmkitClient } from '../../client';
import { responseLost } from '../../client/client';
import { executePlan, planDocument, PlanRefusedError } from '../../client/deploy';
import { API_VERSION } from '../../core/model/types';
import type { Plan } from '../../core/plan';
import { adjustEndpoint, applyChanges, type ExtChanges, type ExtEndpoint, type Held, RecordError, recordsOf } from './external-dns-records';

/** The webhook protocol's media type (sigs.k8s.io/external-dns/provider/webhook/api). */
export const MEDIA_TYPE = 'application/external.dns.webhook+json;version=1';
/** Request bodies above this are refused (413); ExternalDNS's own default limit is 5 MiB. */
export const MAX_BODY = 8 * 1024 * 1024;

export interface WebhookOptions {
  client: TmkitClient;
  /**
   * The zone given (`--zone`): checked against the one the tmkit server says it answers for. Absent: the
   * server's, asked when first needed.
   */
  zone?: string;
  owner: string;
  /** Apply deletes that leave a profile with no endpoint Online (the safety rule) instead of refusing them. */
  force: boolean;
  log: (line: string) => void;
}

/** The stack an owner id's profiles live in. */
export const STACK_PREFIX = 'external-dns-';
export const stackOf = (owner: string): string => `${STACK_PREFIX}${owner}`;

/** A webhook answer other than 2xx: its status and the `error` message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The webhook provider: `handle` answers one request. */
export class ExternalDnsWebhook {
  /** Writes run one at a time (ExternalDNS sends one at a time; another client must not interleave). */
  private queue: Promise<unknown> = Promise.resolve();
  /** The zone once the server confirmed it (or, from a server that does not say, the one given). */
  private known?: string;

  constructor(private readonly o: WebhookOptions) {}

  /**
   * The zone names are mapped under: the tmkit server's (its authorized `/healthz` says it), which `--zone`
   * must match. 503 while the server does not answer (ExternalDNS tries again); 409 on a mismatch, which only
   * a changed `--zone` fixes (no retry would).
   */
  async zone(): Promise<string> {
    if (this.known !== undefined) return this.known;
    let health: Awaited<ReturnType<TmkitClient['healthz']>>;
    try {
      health = await this.o.client.healthz();
    } catch (err) {
      throw new HttpError(503, `cannot ask the tmkit server its zone: ${(err as Error).message}; ExternalDNS will try again`);
    }
    // /healthz answers without the token too, with only its status: then the token was not taken.
    if (health.revision === undefined)
      throw new HttpError(
        403,
        `the tmkit server at ${this.o.client.server} did not take this provider's token: pass --token or TMKIT_TOKEN with a valid API token`,
      );
    const served = health.zone;
    const given = this.o.zone;
    if (served === undefined) {
      if (given === undefined)
        throw new HttpError(409, `the tmkit server at ${this.o.client.server} does not say its zone (an older version): pass --zone`);
      this.known = given;
    } else if (given !== undefined && given !== served) {
      throw new HttpError(
        409,
        `--zone ${given}: the tmkit server at ${this.o.client.server} answers for ${served}; pass --zone ${served}, or leave --zone out`,
      );
    } else this.known = served;
    return this.known;
  }

  get stack(): string {
    return stackOf(this.o.owner);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    try {
      if (path === '/healthz') return send(res, 200, { status: 'ok' }, 'application/json');
      if (path === '/readyz') {
        try {
          await this.o.client.healthz();
          return send(res, 200, { status: 'ready' }, 'application/json');
        } catch (err) {
          throw new HttpError(503, `the tmkit server is not answering: ${(err as Error).message}`);
        }
      }
      if (path === '/') {
        only(req, 'GET');
        return send(res, 200, { include: [await this.zone()] });
      }
      if (path === '/records') {
        if (req.method === 'GET') return send(res, 200, await this.records());
        only(req, 'POST');
        const changes = parseChanges(await readJson(req));
        await this.serial(() => this.apply(changes));
        res.writeHead(204).end();
        return;
      }
      if (path === '/adjustendpoints') {
        only(req, 'POST');
        const endpoints = parseEndpoints(await readJson(req), '$');
        return send(res, 200, this.adjust(endpoints, await this.zone()));
      }
      throw new HttpError(
        404,
        `no route ${path}: the webhook protocol has GET /, GET and POST /records, POST /adjustendpoints (and /healthz, /readyz)`,
      );
    } catch (err) {
      const e = asHttpError(err);
      this.o.log(`external-dns: ${req.method} ${path}: ${e.status} ${e.message}`);
      if (!res.headersSent) send(res, e.status, { error: e.message }, 'application/json');
    }
  }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const run = this.queue.then(f, f);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Every profile of the ExternalDNS stacks (every owner's: a shared name holds several owners' records). */
  private async held(): Promise<Held[]> {
    // The summaries say which stacks are ExternalDNS's; only those profiles are read in full.
    const summary = await this.o.client.listProfileSummaries();
    const entries = summary.full
      ? summary.full.profiles
      : (
          await Promise.all(
            [...new Set(summary.profiles.map((p) => p.stack).filter((s) => s.startsWith(STACK_PREFIX)))].map(
              async (stack) => (await this.o.client.listProfiles({ stack })).profiles,
            ),
          )
        ).flat();
    return entries.filter((p) => p.stack.startsWith(STACK_PREFIX)).map((p) => ({ stack: p.stack, profile: p.profile }));
  }

  /** GET /records: every record this owner wrote, in its stack or in a profile another owner's stack holds. */
  async records(): Promise<ExtEndpoint[]> {
    const zone = await this.zone();
    return (await this.held()).flatMap((h) => recordsOf(h.profile, zone, this.o.owner));
  }

  /** POST /adjustendpoints: what tmkit can hold, canonical; the rest dropped with its reason logged. */
  adjust(endpoints: ExtEndpoint[], zone: string): ExtEndpoint[] {
    const out: ExtEndpoint[] = [];
    for (const e of endpoints) {
      const a = adjustEndpoint(e, zone);
      if ('reason' in a) this.o.log(`external-dns: dropped ${e.dnsName} ${e.recordType}: ${a.reason}`);
      else out.push(a.endpoint);
    }
    return out;
  }

  /**
   * POST /records: the changes applied through plan and apply, one plan per stack they touch (this owner's, and
   * another owner's for a name that owner's stack holds). Every plan is checked (errors, the safety rule) before
   * any is applied.
   */
  async apply(changes: ExtChanges): Promise<void> {
    const { client, owner } = this.o;
    const zone = await this.zone();
    let next: ReturnType<typeof applyChanges>;
    try {
      next = applyChanges(await this.held(), changes, zone, owner, this.stack);
    } catch (err) {
      if (err instanceof RecordError) throw new HttpError(err.message.includes(': owned by ') ? 409 : 400, err.message);
      throw err;
    }
    for (const d of next.dropped) this.o.log(`external-dns: kept no TXT record ${d}`);
    const plans: Plan[] = [];
    const forced: string[] = [];
    for (const [stack, profiles] of next.stacks) {
      const planned = await planDocument(client, { apiVersion: API_VERSION, stack, profiles });
      if (!planned.ok) {
        throw new HttpError(
          422,
          `the records make profiles tmkit refuses: ${planned.diagnostics
            .filter((d) => d.severity === 'error')
            .map((d) => `${d.path}: ${d.message}`)
            .join('; ')}; fix the source's annotations (tmkit/* keys) or targets`,
        );
      }
      const plan = planned.report.plan;
      if (plan.errors.length > 0) {
        throw new HttpError(
          409,
          `cannot apply: ${plan.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}; a name held by another stack stays with it (remove it there, or filter it out of this ExternalDNS)`,
        );
      }
      const unsafe = planned.report.warnings.filter((w) => w.code === 'LIVE_NO_ONLINE_ENDPOINT');
      if (unsafe.length > 0 && !this.o.force) {
        throw new HttpError(
          409,
          `refused by the safety rule: ${unsafe.map((w) => w.message).join('; ')}; nothing was written. Bring another endpoint Online, or run tmkit external-dns with --force`,
        );
      }
      forced.push(...unsafe.map((w) => w.message));
      if (plan.steps.length > 0) plans.push(plan);
    }
    for (const m of forced) this.o.log(`external-dns: --force: ${m}`);
    for (const plan of plans) {
      const result = await executePlan(client, plan, (o) => {
        this.o.log(
          `external-dns: ${o.ok ? 'applied' : 'failed'} ${o.step.action} ${o.step.profile} in stack ${plan.stack} (owner ${owner})${o.error ? `: ${o.error}` : ''}`,
        );
      });
      if (result.failed) throw result.failed.cause ?? new Error(result.failed.error);
    }
  }
}

function only(req: IncomingMessage, method: string): void {
  if (req.method !== method) throw new HttpError(405, `${req.method} is not allowed here: use ${method}`);
}

function send(res: ServerResponse, status: number, body: unknown, type = MEDIA_TYPE): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) }).end(text);
}

/** The body as JSON; 415 unless it says it is JSON, 413 above MAX_BODY, 400 when it does not parse. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!type.includes('json')) throw new HttpError(415, `Content-Type ${type || '(none)'}: send ${MEDIA_TYPE} (or application/json)`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY)
      throw new HttpError(
        413,
        `the body is larger than ${MAX_BODY} bytes: send the changes in smaller batches (ExternalDNS --batch-change-size)`,
      );
    chunks.push(c as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new HttpError(400, `the body is not JSON (${(err as Error).message}): send ExternalDNS's endpoints or plan.Changes`);
  }
}

/** `[]Endpoint`, checked: a 400 names the first path that is not one. */
function parseEndpoints(v: unknown, path: string): ExtEndpoint[] {
  if (v === null) return [];
  if (!Array.isArray(v)) throw new HttpError(400, `${path}: an array of endpoints ({dnsName, recordType, targets})`);
  return v.map((e, i) => {
    const p = `${path}[${i}]`;
    if (typeof e !== 'object' || e === null) throw new HttpError(400, `${p}: an endpoint object ({dnsName, recordType, targets})`);
    const o = e as Record<string, unknown>;
    if (typeof o.dnsName !== 'string' || o.dnsName === '') throw new HttpError(400, `${p}.dnsName: a DNS name (a non-empty string)`);
    if (typeof o.recordType !== 'string' || o.recordType === '')
      throw new HttpError(400, `${p}.recordType: a record type such as A, AAAA or CNAME`);
    if (o.targets !== undefined && (!Array.isArray(o.targets) || o.targets.some((t) => typeof t !== 'string')))
      throw new HttpError(400, `${p}.targets: an array of strings`);
    if (o.setIdentifier !== undefined && typeof o.setIdentifier !== 'string') throw new HttpError(400, `${p}.setIdentifier: a string`);
    if (o.recordTTL !== undefined && (typeof o.recordTTL !== 'number' || !Number.isInteger(o.recordTTL) || o.recordTTL < 0))
      throw new HttpError(400, `${p}.recordTTL: a whole number of seconds`);
    const ps = o.providerSpecific;
    if (
      ps !== undefined &&
      ps !== null &&
      (!Array.isArray(ps) || ps.some((x) => typeof x?.name !== 'string' || typeof (x?.value ?? '') !== 'string'))
    )
      throw new HttpError(400, `${p}.providerSpecific: an array of {name, value} strings`);
    const labels = o.labels;
    if (labels !== undefined && labels !== null && (typeof labels !== 'object' || Array.isArray(labels)))
      throw new HttpError(400, `${p}.labels: an object of strings`);
    return {
      dnsName: o.dnsName,
      recordType: o.recordType,
      targets: (o.targets as string[] | undefined) ?? [],
      ...(o.setIdentifier ? { setIdentifier: o.setIdentifier as string } : {}),
      ...(o.recordTTL ? { recordTTL: o.recordTTL as number } : {}),
      ...(labels ? { labels: labels as Record<string, string> } : {}),
      ...(Array.isArray(ps)
        ? { providerSpecific: (ps as Array<{ name: string; value?: string }>).map((x) => ({ name: x.name, value: x.value ?? '' })) }
        : {}),
    };
  });
}

function parseChanges(v: unknown): ExtChanges {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new HttpError(400, '$: plan.Changes, an object with create, updateOld, updateNew and delete arrays of endpoints');
  const o = v as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !['create', 'updateOld', 'updateNew', 'delete'].includes(k));
  if (unknown.length > 0) throw new HttpError(400, `$.${unknown[0]}: not a field of plan.Changes (create, updateOld, updateNew, delete)`);
  return {
    create: parseEndpoints(o.create ?? [], '$.create'),
    updateOld: parseEndpoints(o.updateOld ?? [], '$.updateOld'),
    updateNew: parseEndpoints(o.updateNew ?? [], '$.updateNew'),
    delete: parseEndpoints(o.delete ?? [], '$.delete'),
  };
}

/** 5xx for what a retry can fix (ExternalDNS retries those), 4xx for the rest. */
function asHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof TmkitConnectionError || responseLost(err))
    return new HttpError(503, `${(err as Error).message}; ExternalDNS will try again`);
  if (err instanceof PlanRefusedError && err.issues.some((i) => i.code === 'PLAN_STALE'))
    return new HttpError(503, `${err.message} (another writer moved first; ExternalDNS will try again)`);
  if (err instanceof PlanRefusedError) return new HttpError(409, err.message);
  if (err instanceof TmkitApiError) {
    if (err.status >= 500 || err.status === 412 || err.status === 429)
      return new HttpError(503, `${err.message}; ExternalDNS will try again`);
    if (err.status === 401 || err.status === 403)
      return new HttpError(
        403,
        `the tmkit server refused this provider's token (${err.status}): pass --token or TMKIT_TOKEN with a valid API token`,
      );
    return new HttpError(409, err.message);
  }
  return new HttpError(500, `${(err as Error)?.message ?? String(err)}`);
}

/** Starts the webhook on `host:port` (0: any free port); resolves with the server and its URL. */
export async function startWebhook(
  o: WebhookOptions,
  host: string,
  port: number,
): Promise<{ server: Server; url: string; webhook: ExternalDnsWebhook }> {
  const webhook = new ExternalDnsWebhook(o);
  const server = createServer((req, res) => void webhook.handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return { server, url: `http://${h}:${a.port}`, webhook };
}
