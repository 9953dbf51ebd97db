/**
 * Composite health checks (`monitorConfig.checks`, docs/health.md "Composite checks"): how one probe round
 * of every check of an endpoint makes one verdict. Pure; the state machine (machine.ts) applies it.
 *
 * Each check keeps its own count of consecutive failures; a check is *down* once that count exceeds the
 * profile's toleratedNumberOfFailures (t), as the single probe is. With q = quorum (default: every counting
 * check) and "counting" = neither mustBeHealthy nor monitoringOnly:
 *
 * | after counting this round                                              | round is | machine does              |
 * |------------------------------------------------------------------------|----------|---------------------------|
 * | every mustBeHealthy check passed now and ≥ q counting checks passed now | good     | a success                 |
 * | a mustBeHealthy check is down, or fewer than q counting checks are up   | bad      | Degraded (unless already) |
 * | otherwise (failures still within the tolerance)                         | soft     | a failure within tolerance|
 *
 * monitoringOnly checks are probed and named in the reason but never looked at. "good" and "bad" never hold
 * together (a check that passed now has no failures, so it is up). With t = 0, soft never happens.
 */

/** One check's result in a round, with the role it plays. */
export interface CheckResult {
  name: string;
  ok: boolean;
  /** The probe's reason: `status 503`, `timeout`, `connected`... */
  reason: string;
  mustBeHealthy: boolean;
  monitoringOnly: boolean;
}

export type RoundKind = 'good' | 'bad' | 'soft';

export interface CompositeRound {
  kind: RoundKind;
  /** Each check's consecutive failures after this round. */
  failures: Record<string, number>;
  /** `checks: api ok, login FAILED (503), 1 of 2 < quorum 2`. */
  reason: string;
}

const counts = (c: Pick<CheckResult, 'mustBeHealthy' | 'monitoringOnly'>): boolean => !c.mustBeHealthy && !c.monitoringOnly;

/** What a failed check's reason shows: the bare status code of an HTTP answer, else the reason itself. */
const shortReason = (reason: string): string => /^status (\d{3})$/.exec(reason)?.[1] ?? reason;

/** The round's verdict (the table above) from the checks' previous failure counts. */
export function compositeRound(
  results: readonly CheckResult[],
  previous: Readonly<Record<string, number>> | undefined,
  tolerated: number,
  quorum: number,
): CompositeRound {
  const failures: Record<string, number> = {};
  for (const c of results) failures[c.name] = c.ok ? 0 : (previous?.[c.name] ?? 0) + 1;
  const down = (c: CheckResult): boolean => (failures[c.name] ?? 0) > tolerated;
  const counting = results.filter(counts);
  const passing = counting.filter((c) => c.ok).length;
  const up = counting.filter((c) => !down(c)).length;
  const must = results.filter((c) => c.mustBeHealthy);
  const kind: RoundKind = must.every((c) => c.ok) && passing >= quorum ? 'good' : must.some(down) || up < quorum ? 'bad' : 'soft';
  const parts = results.map((c) => {
    const role = c.mustBeHealthy ? 'must be healthy' : c.monitoringOnly ? 'monitoring only' : '';
    if (c.ok) return `${c.name} ok${role === '' ? '' : ` (${role})`}`;
    return `${c.name} FAILED (${shortReason(c.reason)}${role === '' ? '' : `, ${role}`})`;
  });
  if (counting.length > 0) parts.push(`${passing} of ${counting.length} ${passing >= quorum ? '>=' : '<'} quorum ${quorum}`);
  return { kind, failures, reason: `checks: ${parts.join(', ')}` };
}

/**
 * A profile's composite checks in one line, for plans and reports: `checks api HTTP:80/api, db TCP:5432 (must
 * be healthy), metrics HTTP:80/metrics (monitoring only); quorum 1 of 1`. Undefined without checks.
 */
export function describeChecks(m: {
  checks?: ReadonlyArray<{ name: string; protocol: string; port: number; path?: string; mustBeHealthy: boolean; monitoringOnly: boolean }>;
  quorum?: number;
}): string | undefined {
  if (m.checks === undefined) return undefined;
  const list = m.checks.map((c) => {
    const role = c.mustBeHealthy ? ' (must be healthy)' : c.monitoringOnly ? ' (monitoring only)' : '';
    return `${c.name} ${c.protocol}:${c.port}${c.path ?? ''}${role}`;
  });
  const counting = m.checks.filter(counts).length;
  return `checks ${list.join(', ')}${counting > 0 ? `; quorum ${m.quorum ?? counting} of ${counting}` : ''}`;
}
