/**
 * `GET /v1/dnssec` and `POST /v1/dnssec/rollover`: the zone's DNSSEC keys and DS records, and key rollovers
 * (src/runtime/dns/dnssec/). Without `serve --dnssec` both answer 404 with a hint.
 */
import type { DnssecReport, DnssecRolloverResult } from '../../core/api';
import type { DnssecApi } from '../dns';
import { DnssecKeyError } from '../dns';
import type { Store } from '../../core/store';
import { audit, callerOf } from './audit';
import { ApiProblem } from './errors';
import { readJson, DEFAULT_MAX_BODY, route, type Ctx, type Reply, type Route } from './http';

const OFF = 'DNSSEC is off on this server: start it with tmkit serve --dnssec';

/** The routes; `dnssec` undefined: DNSSEC is off (404 naming the flag). */
/** `store`: where the audit log of rollovers goes. */
export function dnssecRoutes(dnssec: DnssecApi | undefined, store?: Store): Route[] {
  const on = (): DnssecApi => {
    if (!dnssec) throw ApiProblem.of(404, 'DNSSEC_OFF', OFF);
    return dnssec;
  };
  return [
    route('/v1/dnssec', { GET: async (): Promise<Reply<DnssecReport>> => ({ status: 200, body: on().report() }) }),
    route('/v1/dnssec/rollover', { POST: (c) => rollover(on(), c, store) }),
  ];
}

async function rollover(dnssec: DnssecApi, ctx: Ctx, store: Store | undefined): Promise<Reply<DnssecRolloverResult>> {
  const body = await readJson(ctx.req, DEFAULT_MAX_BODY);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw ApiProblem.of(400, 'BAD_REQUEST', 'the body must be {"kind": "zone" | "ksk", "finish": false}', { path: '$' });
  const b = body as Record<string, unknown>;
  if (b.kind !== undefined && b.kind !== 'zone' && b.kind !== 'ksk')
    throw ApiProblem.of(400, 'BAD_REQUEST', `kind ${JSON.stringify(b.kind)}: "zone" (the CSK, or the ZSK with split keys) or "ksk"`, {
      path: 'kind',
    });
  if (b.finish !== undefined && typeof b.finish !== 'boolean')
    throw ApiProblem.of(400, 'BAD_REQUEST', 'finish is true or false', { path: 'finish' });
  const caller = callerOf(ctx, b);
  const request = { kind: (b.kind as 'zone' | 'ksk' | undefined) ?? 'zone', finish: b.finish === true };
  try {
    const r = await dnssec.rollover(request);
    if (store)
      await audit(store, caller, request.finish ? 'dnssec.finish' : 'dnssec.rollover', request.kind, {
        keyTags: r.keyTags,
        steps: r.steps,
      });
    return { status: 200, body: r };
  } catch (err) {
    // Refused now (a rollover under way, nothing to finish): the request is fine, the keys' state is not.
    if (err instanceof DnssecKeyError) throw ApiProblem.of(409, 'DNSSEC_ROLLOVER', err.message);
    throw err;
  }
}
