import { TmkitError, type Diagnostic } from '../../diagnostics';
import { toJson } from '../attributes';
import type { FailoverEstimate } from '../failover';
import type { PlanReport } from '../report';
import type { JsonValue, Plan, PlanStep, ProfileChange, Writer } from '../types';
import type { Profile } from '../../model/types';

/**
 * The machine-readable plan (`tmkit plan --format json`, `--out plan.json`; what `tmkit apply plan.json`
 * reads). Format version 1 — fields are only ever added within a version:
 *
 * ```
 * { "formatVersion": 1, "kind": "tmkit-plan", "stack": "web",
 *   "summary": { "add", "change", "replace", "destroy", "unchanged" },
 *   "changes": [ { "profile", "action": "create|update|replace|delete|no-op", "baseEtag"?, "replaceReasons": [],
 *                  "attributes": [ { "path": "endpoints[eu].weight", "kind": "add|remove|change|reorder",
 *                                    "before"?, "after"?, "forcesReplacement"? } ],
 *                  "before"?: Profile, "after"?: Profile } ],      // no-op: profile, action, baseEtag only
 *   "steps": [ { "action", "profile", "method": "PUT|DELETE", "ifMatch"?, "ifNoneMatch"?: "*", "after": [] } ],
 *   "errors": [ Issue ], "warnings": [ Issue ],                    // Issue = {severity, code, path, message, hint?, profile?}
 *   "failover": [ { "profile", "before": Estimate|null, "after": Estimate|null, "exceeds": bool } ],
 *   "maxFailoverSeconds": number|null,
 *   "preview": { "clientModel", "profiles": [ ProfilePreview ] } | null,
 *   "live"?: { "at", "endpoints": [ { "profile", "endpoint", "status", "since"?, "seconds"?, "reason", "overrides": [] } ],
 *              "fallback": [ profile ], "unread"? },                 // planned against a server (core/plan/live.ts)
 *   "azure"?: { "source", "notes": [] },                          // an Azure preview (azurerm plan, ARM files)
 *   "tests"?: { "file", "results": [ { "name", "profile", "passed", "message", "details": [] } ],
 *               "problems": [ { "path", "message" } ] },            // routing tests beside the document
 *   "measuredLatency"?: [ profile ] }                             // affected profiles ranked by measured latency
 * ```
 * Keys appear in this order; nothing depends on the time or machine, so the same inputs give the same bytes
 * (`live`, read from a server at a moment, is the one exception).
 */
export const PLAN_FORMAT_VERSION = 1;

export function planToJson(report: PlanReport): JsonValue {
  const { plan } = report;
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    kind: 'tmkit-plan',
    stack: plan.stack,
    summary: toJson(plan.summary),
    changes: plan.changes.map(changeJson),
    steps: plan.steps.map((s) => toJson(s)),
    errors: plan.errors.map(issueJson),
    warnings: report.warnings.map(issueJson),
    failover: report.failover.map((f) => ({
      profile: f.profile,
      before: estimateJson(f.before),
      after: estimateJson(f.after),
      exceeds: f.exceeds,
    })),
    maxFailoverSeconds: report.maxFailoverSeconds ?? null,
    preview: report.preview ? toJson(report.preview) : null,
    // Plans against a server only: what its live health says (it depends on the moment, unlike the rest).
    ...(report.live ? { live: toJson(report.live) } : {}),
    // Azure previews only (azurerm plans, ARM files): what was read and what is known after apply.
    ...(report.azure ? { azure: { source: report.azure.source, notes: [...report.azure.notes] } } : {}),
    // With a tests file beside the document: the routing tests' results (docs/testing.md).
    ...(report.tests ? { tests: toJson(report.tests) } : {}),
    // Affected profiles that rank by measured latency (performanceLatency source Measured).
    ...(report.measuredLatency ? { measuredLatency: [...report.measuredLatency] } : {}),
  };
}

export function renderJson(report: PlanReport): string {
  return `${JSON.stringify(planToJson(report), null, 2)}\n`;
}

export function writeJson(report: PlanReport, out: Writer): void {
  out.write(renderJson(report));
}

function changeJson(c: ProfileChange): JsonValue {
  const o: { [k: string]: JsonValue } = { profile: c.profile, action: c.action };
  if (c.baseEtag !== undefined) o.baseEtag = c.baseEtag;
  if (c.action === 'no-op') return o;
  o.replaceReasons = c.replaceReasons;
  o.attributes = toJson(c.attributes);
  if (c.before) o.before = toJson(c.before);
  if (c.after) o.after = toJson(c.after);
  return o;
}

function issueJson(i: Diagnostic): JsonValue {
  return toJson({ severity: i.severity, code: i.code, path: i.path, message: i.message, hint: i.hint, profile: i.profile });
}

function estimateJson(e: FailoverEstimate | null): JsonValue {
  return e === null ? null : toJson(e);
}

/** A plan file that cannot be read: wrong version, not a tmkit plan, missing fields. */
export class PlanFormatError extends TmkitError {
  declare readonly code: 'PLAN_FILE_NOT_A_PLAN' | 'PLAN_FILE_VERSION' | 'PLAN_FILE_INVALID';
  constructor(code: 'PLAN_FILE_NOT_A_PLAN' | 'PLAN_FILE_VERSION' | 'PLAN_FILE_INVALID', message: string) {
    super(code, message);
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads a parsed plan.json back into a `Plan` (for `tmkit apply plan.json`: `applyOrder(plan)` gives the
 * calls, `plan.changes[].baseEtag` the ETags every profile must still have on the server). Throws
 * `PlanFormatError` with a message that says what to do.
 */
export function readPlanJson(value: unknown): Plan {
  if (!isObj(value) || value.kind !== 'tmkit-plan') {
    throw new PlanFormatError(
      'PLAN_FILE_NOT_A_PLAN',
      'not a tmkit plan file (expected "kind": "tmkit-plan"); create one with `tmkit plan FILE --out plan.json`',
    );
  }
  if (isObj(value.azure)) {
    throw new PlanFormatError(
      'PLAN_FILE_NOT_A_PLAN',
      'this plan previews changes to Azure Traffic Manager, not to a tmkit runtime: apply it with terraform (or the ARM deployment) it came from',
    );
  }
  if (value.formatVersion !== PLAN_FORMAT_VERSION) {
    throw new PlanFormatError(
      'PLAN_FILE_VERSION',
      `plan formatVersion ${String(value.formatVersion)} is not supported (this tmkit reads ${PLAN_FORMAT_VERSION}); re-run \`tmkit plan\` with this version`,
    );
  }
  const bad = (what: string): never => {
    throw new PlanFormatError('PLAN_FILE_INVALID', `plan file: ${what}; re-run \`tmkit plan --out\``);
  };
  if (typeof value.stack !== 'string') bad('"stack" must be a string');
  if (!Array.isArray(value.changes)) bad('"changes" must be a list');
  if (!Array.isArray(value.steps)) bad('"steps" must be a list');
  const changes = (value.changes as unknown[]).map((c, i): ProfileChange => {
    if (!isObj(c) || typeof c.profile !== 'string' || typeof c.action !== 'string')
      return bad(`changes[${i}] needs "profile" and "action"`);
    const action = c.action as ProfileChange['action'];
    if (!['create', 'update', 'replace', 'delete', 'no-op'].includes(action)) bad(`changes[${i}].action "${action}" is unknown`);
    if ((action === 'create' || action === 'update' || action === 'replace') && !isObj(c.after))
      bad(`changes[${i}] (${action}) needs "after"`);
    if (action !== 'create' && typeof c.baseEtag !== 'string') bad(`changes[${i}] (${action}) needs "baseEtag"`);
    const out: ProfileChange = {
      profile: c.profile,
      action,
      attributes: Array.isArray(c.attributes) ? (c.attributes as ProfileChange['attributes']) : [],
      replaceReasons: Array.isArray(c.replaceReasons) ? (c.replaceReasons as string[]) : [],
    };
    if (typeof c.baseEtag === 'string') out.baseEtag = c.baseEtag;
    if (isObj(c.before)) out.before = c.before as unknown as Profile;
    if (isObj(c.after)) out.after = c.after as unknown as Profile;
    return out;
  });
  const steps = (value.steps as unknown[]).map((s, i): PlanStep => {
    if (!isObj(s) || typeof s.profile !== 'string' || (s.method !== 'PUT' && s.method !== 'DELETE'))
      return bad(`steps[${i}] needs "profile" and "method"`);
    return s as unknown as PlanStep;
  });
  const summary = isObj(value.summary) ? (value.summary as unknown as Plan['summary']) : bad('"summary" missing');
  const errors = Array.isArray(value.errors) ? (value.errors as Diagnostic[]) : [];
  return { stack: value.stack as string, changes, steps, errors, summary };
}
