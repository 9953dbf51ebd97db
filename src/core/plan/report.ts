import type { Diagnostic } from '../diagnostics';
import type { Profile } from '../model/types';
import { nestedChildren } from '../model/names';
import { plannedProfiles } from './diff';
import { failoverTimes, type FailoverEstimate } from './failover';
import { lintProfiles } from './lints';
import { liveHealth, type LiveHealthInput, type LiveHealthReport } from './live';
import type { ResourceCatalog } from '../ports';
import type { PlanPreview } from './preview-types';
import type { DeployedProfile, Plan } from './types';
import { planTestsFailed } from '../routing-tests/render';
import type { PlanTests } from '../routing-tests/types';

/** Failover time of one profile before and after the plan; `exceeds` against `--max-failover-seconds`. */
export interface FailoverRow {
  profile: string;
  before: FailoverEstimate | null;
  after: FailoverEstimate | null;
  exceeds: boolean;
}

/** Everything the renderers show: the plan (data), lints, failover times and the routing preview. */
export interface PlanReport {
  plan: Plan;
  warnings: Diagnostic[];
  failover: FailoverRow[];
  maxFailoverSeconds?: number;
  preview?: PlanPreview;
  /** What the server planned against says about health now (plans against a server; live.ts). */
  live?: LiveHealthReport;
  /**
   * Set when the plan previews changes to Azure's own Traffic Manager (an azurerm Terraform plan, ARM files),
   * not to a tmkit runtime: what was read, and what is known only after apply. Such a plan has no apply
   * order (Terraform or ARM applies it) and `tmkit apply` refuses it.
   */
  azure?: AzurePreview;
  /** The routing tests run with the plan (a tests file beside the document; docs/testing.md). */
  tests?: PlanTests;
  /**
   * The profiles the plan affects that rank Performance by measured latency (`performanceLatency.source`
   * Measured), sorted: the preview shows the distance model for them, the server its probes' measurements.
   */
  measuredLatency?: string[];
}

/** The sentence every format shows for `PlanReport.measuredLatency`. */
export function measuredLatencyText(profiles: readonly string[]): string {
  return (
    `Ranked by measured latency (performanceLatency source Measured): ${profiles.join(', ')}. The routing preview ` +
    `shows the distance model for them; the server ranks them by its probes' round trips once it has enough ` +
    `samples (tmkit resolve says which source ranked an answer).`
  );
}

/** What an Azure preview read (`source`), and its notes (values known after apply, stand-ins). */
export interface AzurePreview {
  source: string;
  notes: string[];
}

/** The label an Azure preview carries in every format. */
export function azurePreviewLabel(a: AzurePreview): string {
  return `Preview of Azure Traffic Manager changes (${a.source}), not of a tmkit runtime: Azure's rules, routing and failover, checked offline by tmkit`;
}

export interface ReportOptions {
  maxFailoverSeconds?: number;
  preview?: PlanPreview;
  /** The server's live health (statuses and overrides), for the "Live health" section and its warnings. */
  live?: LiveHealthInput;
  resources?: ResourceCatalog;
  /**
   * Warnings found elsewhere (validation of the document), listed before the plan's lints; only those about
   * profiles the plan writes (or the whole document) are kept.
   */
  warnings?: readonly Diagnostic[];
}

/**
 * Profiles whose answers the plan can change: every changed profile plus every profile that nests one of
 * them, directly or not (a child's change reaches the parent's clients). Sorted by name.
 */
export function affectedProfiles(plan: Plan, deployed: readonly DeployedProfile[]): { name: string; reason?: string }[] {
  const after = plannedProfiles(plan, deployed);
  const before = new Map(deployed.map((d) => [d.profile.name, d.profile] as const));
  const changed = new Set(plan.changes.filter((c) => c.action !== 'no-op').map((c) => c.profile));
  const out = new Map<string, string | undefined>();
  for (const n of changed) out.set(n, undefined);
  // Nesting before and after, child (lower-cased) → parents, built once.
  const parents = new Map<string, Set<string>>();
  for (const m of [before, after]) {
    for (const [n, p] of m) {
      for (const child of nestedChildren(p)) {
        const set = parents.get(child);
        if (set) set.add(n);
        else parents.set(child, new Set([n]));
      }
    }
  }
  const parentsOf = (child: string): string[] => [...(parents.get(child.toLowerCase()) ?? [])];
  const queue = [...changed];
  while (queue.length > 0) {
    const c = queue.shift()!;
    for (const p of parentsOf(c)) {
      if (out.has(p)) continue;
      out.set(p, `nests ${c}, which changes`);
      queue.push(p);
    }
  }
  return [...out.keys()].sort().map((name) => {
    const reason = out.get(name);
    return reason === undefined ? { name } : { name, reason };
  });
}

/** Composes the report: lints on the profiles the plan writes, failover times before/after for affected profiles. */
export function buildReport(plan: Plan, deployed: readonly DeployedProfile[], options: ReportOptions = {}): PlanReport {
  const after = plannedProfiles(plan, deployed);
  const before = new Map<string, Profile>(deployed.map((d) => [d.profile.name, d.profile]));
  const written = plan.changes.filter((c) => c.action !== 'no-op' && c.action !== 'delete').map((c) => c.after!);
  const lower = new Map([...after].map(([n, p]) => [n.toLowerCase(), p]));
  const writtenNames = written.map((p) => p.name);
  const aboutWritten = (w: Diagnostic): boolean => {
    if (!w.path.startsWith('profiles[')) return true; // about the document as a whole
    return writtenNames.some((n) => {
      const prefix = `profiles[${n}]`;
      const next = w.path.charAt(prefix.length);
      return w.path.startsWith(prefix) && (next === '' || next === '.' || next === '[');
    });
  };
  // Only warnings about what the plan writes: a reviewer of this change is not asked about untouched profiles.
  const warnings = [...(options.warnings ?? []).filter(aboutWritten), ...lintProfiles(written, (n) => lower.get(n.toLowerCase()))];
  const names = affectedProfiles(plan, deployed).map((a) => a.name);
  const fb = failoverTimes(before, names);
  const fa = failoverTimes(after, names);
  const max = options.maxFailoverSeconds;
  const failover = names.map((profile) => {
    const a = fa.get(profile) ?? null;
    return {
      profile,
      before: fb.get(profile) ?? null,
      after: a,
      exceeds: max !== undefined && a !== null && a.seconds !== null && a.seconds > max,
    };
  });
  const live = options.live ? liveHealth(plan, deployed, options.live, options.resources) : undefined;
  if (live) warnings.push(...live.warnings);
  const report: PlanReport = { plan, warnings, failover };
  if (max !== undefined) report.maxFailoverSeconds = max;
  if (options.preview) report.preview = options.preview;
  if (live) report.live = live.report;
  const measured = names.filter((n) => {
    const p = after.get(n);
    return p?.trafficRoutingMethod === 'Performance' && p.performanceLatency?.source === 'Measured';
  });
  if (measured.length > 0) report.measuredLatency = measured;
  return report;
}

/**
 * One sentence per profile whose worst-case failover exceeds `--max-failover-seconds`: which profile, by
 * how much, and where the time comes from (the formula with this profile's numbers), with what to change.
 */
export function failoverLimitMessages(report: PlanReport): string[] {
  const max = report.maxFailoverSeconds;
  if (max === undefined) return [];
  return report.failover
    .filter((f) => f.exceeds && f.after?.seconds != null)
    .map((f) => {
      const a = f.after!;
      const seconds = a.seconds!;
      const worst = a.via[a.via.length - 1];
      const from = a.via.length > 1 ? `; the slowest detection is nested profile ${worst}'s (${a.via.join(' → ')})` : '';
      return (
        `profile ${f.profile}: worst-case failover ${seconds} s exceeds --max-failover-seconds ${max} by ${seconds - max} s: ` +
        `probe interval × (tolerated failures + 1) + timeout + TTL = ${a.formula}${from}. ` +
        `Lower dnsConfig.ttl (${a.ttl} s) or the probing of ${worst ?? f.profile} (monitorConfig.intervalInSeconds ` +
        `10, fewer toleratedNumberOfFailures, a shorter timeoutInSeconds), or raise the limit`
      );
    });
}

/** Design §4 exit codes for `plan`: 1 on errors or a failover limit exceeded, 2 with changes under --detailed-exitcode. */
export function planExitCode(report: PlanReport, detailedExitcode: boolean): 0 | 1 | 2 {
  if (report.plan.errors.length > 0 || report.failover.some((f) => f.exceeds) || planTestsFailed(report.tests)) return 1;
  const s = report.plan.summary;
  return detailedExitcode && s.add + s.change + s.replace + s.destroy > 0 ? 2 : 0;
}
