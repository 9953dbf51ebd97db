/**
 * Failback across restarts and approvals, the ledger's side of the failback property (core/health/machine.ts
 * has the rules). Two jobs:
 *
 * - After a restart, an endpoint whose profile has failback rules beyond Azure's (Manual, more than one good
 *   probe, a hold-down) continues in the state it was saved in — Degraded or AwaitingFailback — instead of
 *   starting at CheckingEndpoint, where its first good probe would bring it straight back: a restart is no
 *   failback. (With Azure's rules the carried verdict only stands in until the first probe, previous-run.ts.)
 * - Failback approvals (`tmkit endpoint failback`, kept in the store beside the overrides) go to the prober's
 *   state machine of the endpoint; replayed after a restart, an approval older than the outage is ignored.
 */
import { isAzureFailback } from '../../core/health/machine';
import type { ProbeTarget } from '../../core/health/targets';
import type { FailbackApproval } from '../../core/store/operations';
import type { Monitor } from '../monitor';
import type { LedgerTransition, PreviousRun } from './previous-run';

/** Seeds the prober with the carried verdicts of endpoints with failback rules; returns the keys seeded. */
export function seedCarried(
  monitor: Monitor,
  previous: PreviousRun,
  targets: readonly ProbeTarget[],
  historyOf: (key: string) => readonly LedgerTransition[],
): string[] {
  const seeded: string[] = [];
  for (const t of targets) {
    if (isAzureFailback(t.failback)) continue;
    const c = previous.carriedState(t.key, historyOf(t.key));
    if (!c || (c.verdict !== 'Degraded' && c.verdict !== 'AwaitingFailback')) continue;
    const failedAt = c.failedAt ?? c.since;
    const ok = monitor.seed(t.key, {
      status: c.verdict,
      consecutiveFailures: c.verdict === 'Degraded' ? t.toleratedNumberOfFailures + 1 : 0,
      since: c.since,
      failedAt,
    });
    if (ok) {
      previous.handOver(t.key);
      seeded.push(t.key);
    }
  }
  return seeded;
}

/** Hands one approval to the prober (the endpoint may not be probed here: nothing happens then). */
export function applyApproval(monitor: Monitor, a: FailbackApproval): void {
  monitor.failback(
    `${a.profile}/${a.endpoint}`,
    Date.parse(a.approvedAt),
    `failback approved by ${a.who}${a.reason ? ` (${a.reason})` : ''}`,
  );
}
