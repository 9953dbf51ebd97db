/**
 * `/v1/webhooks`: list (with each webhook's delivery log), add, remove (docs/webhooks.md, docs/api.md). The
 * webhooks themselves live in src/runtime/webhooks/; without them (the API tests' harness) these routes
 * answer 503.
 */
import { LIVE_EVENT_TYPES, unknownEventTypes, type WebhookList, type WebhookReport, type WebhookRequest } from '../../core/api';
import { problem, type Diagnostic } from '../../core/diagnostics';
import { WebhookRefused, type WebhooksApi } from '../webhooks';
import { audit, callerOf } from './audit';
import { attached, readObject, refuseUnknown, type ApiContext } from './common';
import { ApiProblem } from './errors';
import { route, type Ctx, type Reply, type Route } from './http';

export function webhookRoutes(c: ApiContext, webhooks: WebhooksApi | undefined): Route[] {
  const on = attached(webhooks, 'this server has no webhooks attached');
  return [
    route('/v1/webhooks', {
      GET: async (): Promise<Reply<WebhookList>> => ({ status: 200, body: { webhooks: on().list() } }),
      POST: (x) => add(c, on(), x),
    }),
    route('/v1/webhooks/{id}', { DELETE: (x) => remove(c, on(), x) }),
  ];
}

/** The longest webhook URL taken (browsers and proxies commonly stop near 2,048). */
const MAX_WEBHOOK_URL = 2048;

async function add(c: ApiContext, webhooks: WebhooksApi, ctx: Ctx): Promise<Reply<WebhookReport>> {
  const body = await readObject(c, ctx, '{"url": "https://…", "events": ["transition", "revision"], "secretFile": "/path"}');
  refuseUnknown(body, ['url', 'events', 'secretFile', 'format', 'who'], '{"url", "events"?, "secretFile"?, "format"?, "who"?}');
  const errors: Diagnostic[] = [];
  if (typeof body.url !== 'string' || body.url === '')
    errors.push(problem('BAD_REQUEST', 'url (the http or https URL to POST events to) is required', { path: 'url' }));
  else if (body.url.length > MAX_WEBHOOK_URL)
    errors.push(problem('BAD_REQUEST', `url is ${body.url.length} characters long: at most ${MAX_WEBHOOK_URL}`, { path: 'url' }));
  if (body.events !== undefined && (!Array.isArray(body.events) || body.events.some((e) => typeof e !== 'string'))) {
    errors.push(problem('BAD_REQUEST', `events is a list of event types: ${LIVE_EVENT_TYPES.join(', ')} (none: all)`, { path: 'events' }));
  } else if (body.events !== undefined) {
    // A typo would never fire: every name must be a live event type.
    const unknown = unknownEventTypes(body.events as string[]);
    if (unknown.length > 0)
      errors.push(
        problem(
          'BAD_REQUEST',
          `events: unknown event type${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}; the event types are ${LIVE_EVENT_TYPES.join(', ')} (none: all)`,
          { path: 'events' },
        ),
      );
  }
  if (body.secretFile !== undefined && (typeof body.secretFile !== 'string' || body.secretFile === ''))
    errors.push(
      problem('BAD_REQUEST', 'secretFile is the path of a regular file on the server holding the HMAC secret', { path: 'secretFile' }),
    );
  if (body.format !== undefined && body.format !== 'json' && body.format !== 'slack')
    errors.push(
      problem('BAD_REQUEST', 'format is "json" (the event) or "slack" (a Slack/Teams-compatible {"text"} body)', { path: 'format' }),
    );
  if (errors.length > 0) throw new ApiProblem(400, errors);
  const caller = callerOf(ctx, body);
  try {
    const w = await webhooks.add(body as unknown as WebhookRequest);
    await audit(c.store, caller, 'webhook.add', w.id, { url: w.url, events: w.events });
    return { status: 201, body: w };
  } catch (err) {
    if (err instanceof WebhookRefused)
      throw err.field === 'events'
        ? ApiProblem.of(400, 'BAD_REQUEST', err.message, { path: 'events' })
        : ApiProblem.of(400, 'WEBHOOK_NOT_ALLOWED', err.message, { path: err.field === 'secretFile' ? 'secretFile' : 'url' });
    throw err;
  }
}

async function remove(c: ApiContext, webhooks: WebhooksApi, ctx: Ctx): Promise<Reply<{ id: string; deleted: true }>> {
  const id = ctx.params[0]!;
  const caller = callerOf(ctx);
  const url = webhooks.list().find((w) => w.id === id)?.url;
  let removed: boolean;
  try {
    removed = webhooks.remove(id);
  } catch (err) {
    if (err instanceof WebhookRefused) throw ApiProblem.of(409, 'WEBHOOK_NOT_ALLOWED', err.message);
    throw err;
  }
  if (!removed) throw ApiProblem.of(404, 'NOT_FOUND', `no webhook ${id}; GET /v1/webhooks lists them`);
  await audit(c.store, caller, 'webhook.remove', id, url !== undefined ? { url } : undefined);
  return { status: 200, body: { id, deleted: true } };
}
