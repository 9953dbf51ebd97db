/**
 * The audit log's entries for the API's writes outside the traffic operations (docs/operations.md#audit-log):
 * profiles and endpoints (`PUT`/`PATCH`/`DELETE`, so `tmkit apply`, `destroy`, `endpoint disable|enable`,
 * Terraform and Pulumi), the resource catalog, pushed health (changes only), webhooks, DNSSEC rollovers and
 * cookie rotations. Who: the request's `?who=` (what the CLI's `--who` sends), else a body's `who` where the
 * route takes one, else `api`. The entry goes to the store's audit log (the one overrides write to) right after
 * the change commits; a store without operations (the API tests' harness) records nothing.
 */
import type { AuditEntry } from '../../core/api';
import { ANONYMOUS_CALLER, WHO_NAME } from '../../core/operations/audit';
import { MAX_REASON } from '../../core/operations/overrides';
import { hasOperations, type Store } from '../../core/store';
import { isoNow, systemClock } from '../clock';
import { ApiProblem } from './errors';
import type { Ctx } from './http';

/** Who made a request and why: `?who=` / `?reason=`, else the body's `who` / `reason`, else `api`. */
export interface Caller {
  who: string;
  reason?: string;
}

export function callerOf(ctx: Ctx, body?: Record<string, unknown>): Caller {
  const who = ctx.url.searchParams.get('who') ?? (typeof body?.who === 'string' ? body.who : ANONYMOUS_CALLER);
  const reason = ctx.url.searchParams.get('reason') ?? undefined;
  if (!WHO_NAME.test(who))
    throw ApiProblem.of(400, 'BAD_REQUEST', 'who is a name of 1–64 letters, digits, spaces and ._@:/- (e.g. "alice@ops")', { path: 'who' });
  if (reason !== undefined && reason.length > MAX_REASON)
    throw ApiProblem.of(400, 'BAD_REQUEST', `reason is at most ${MAX_REASON} characters`, { path: 'reason' });
  return { who, ...(reason ? { reason } : {}) };
}

/**
 * Appends `action` on `target` by `caller` to the audit log, now. After the change has committed: a store that
 * fails this write does not undo the change, so the failure is swallowed (the change's answer still says it
 * happened) and the entry is missing.
 */
export async function audit(
  store: Store,
  caller: Caller,
  action: string,
  target: string,
  details?: Record<string, unknown>,
): Promise<void> {
  if (!hasOperations(store)) return;
  const entry: AuditEntry = {
    at: isoNow(systemClock),
    who: caller.who,
    action,
    target,
    ...(caller.reason ? { reason: caller.reason } : {}),
    ...(details && Object.keys(details).length > 0 ? { details } : {}),
  };
  await store.operations.appendAudit(entry).catch(() => undefined);
}
