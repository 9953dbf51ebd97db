import { TmkitError, type Diagnostic } from '../../core/diagnostics';
import { Option, type Command } from 'commander';
import { normalize } from '../../core/model/normalize';
import { DEFAULT_STACK, type Document, type DocumentInput, type Profile } from '../../core/model/types';
import {
  applyOrder, buildReport, checkPlanBase, diff, planExitCode, previewPlan, renderJson, renderMarkdown, renderText,
  type DeployedProfile, type Plan, type PlanReport, type PlanStep,
} from '../../core/plan';
import type { AzureResource, GeoLookup, ResourceCatalog } from '../../core/ports';
import { parseDocument } from '../../core/validate';
import { TmkitClient } from '../../client';
import { MmdbGeoLookup } from '../../geo';
import { CliError, EXIT_FAILED, EXIT_USAGE, setExitCode } from '../main';
import { renderText as renderDiagnostics } from '../util/diagnostics';
import { loadDocument, profileNames } from '../util/document';
import { readJsonFile, writeFileAtomic } from '../util/files';

export interface StateOptions {
  deployed?: string;
  server?: string;
  token?: string;
  resources?: string;
  geoip?: string;
}

interface PlanOptions extends StateOptions {
  format: 'text' | 'markdown' | 'json';
  out?: string;
  detailedExitcode?: boolean;
  maxFailoverSeconds?: string;
  preview: boolean;
  color?: boolean;
}

/**
 * Loads FILE and validates it; prints every diagnostic and fails (exit 1) when it has errors; returns the
 * warnings. Other stacks' deployed profiles are the validation context (a document may nest them, and
 * their relativeNames are taken); this stack's deployed profiles are not: the plan replaces them.
 */
export function loadDesired(file: string, deployed: readonly DeployedProfile[] = []): { document: Document; warnings: Diagnostic[] } {
  const loaded = loadDocument(file);
  const raw = loaded.input as { stack?: unknown } | null;
  const stack = typeof raw?.stack === 'string' ? raw.stack : DEFAULT_STACK;
  const names = new Set(profileNames(loaded.input));
  const context = deployed.filter((d) => d.stack !== stack && !names.has(d.profile.name)).map((d) => d.profile);
  const parsed = parseDocument(loaded.input, context.length > 0 ? { context } : {});
  const diagnostics = [...loaded.importIssues, ...parsed.diagnostics];
  if (!parsed.document || diagnostics.some((d) => d.severity === 'error')) {
    process.stderr.write(renderDiagnostics(diagnostics, profileNames(loaded.input)));
    throw new CliError(`${file} is not a valid document: fix the errors above (tmkit validate ${file} shows them too), then plan again`);
  }
  const warnings = diagnostics.filter((d) => d.severity === 'warning')
    .map((d): Diagnostic => ({ severity: 'warning', code: d.code, path: d.path, message: d.message, ...(d.hint !== undefined ? { hint: d.hint } : {}) }));
  return { document: parsed.document, warnings };
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A deployed-state file (`--deployed FILE`), in any of three shapes:
 * - the body of `GET /v1/profiles`: `{"profiles": [{"name", "stack", "etag", "profile"}]}`;
 * - a list of `{"profile", "etag", "stack"}`;
 * - a tmkit/v1 document (e.g. the main branch's tmkit.out.json): its profiles, its stack, ETag `"unknown"`.
 * Missing `stack` means `default`; a missing ETag is `"unknown"` (fine for review; `tmkit apply` of such a
 * plan is refused by the server's If-Match).
 */
export function parseDeployed(raw: unknown, file: string): DeployedProfile[] {
  if (isObj(raw) && typeof raw.apiVersion === 'string') {
    const doc = normalize(raw as unknown as DocumentInput);
    return doc.profiles.map((profile) => ({ profile, etag: '"unknown"', stack: doc.stack }));
  }
  const list = Array.isArray(raw) ? raw : isObj(raw) && Array.isArray(raw.profiles) ? raw.profiles : undefined;
  if (!list) throw new CliError(`--deployed ${file}: expected {"profiles": [...]} (GET /v1/profiles), a list of {"profile", "etag", "stack"}, or a tmkit/v1 document`);
  return list.map((e, i) => {
    if (!isObj(e) || !isObj(e.profile) || typeof e.profile.name !== 'string') {
      throw new CliError(`--deployed ${file}: entry ${i} needs a "profile" object with a "name"`);
    }
    return {
      profile: e.profile as unknown as Profile,
      etag: typeof e.etag === 'string' ? e.etag : '"unknown"',
      stack: typeof e.stack === 'string' ? e.stack : 'default',
    };
  });
}

function parseCatalog(raw: unknown, file: string): ResourceCatalog {
  const obj = isObj(raw) && isObj(raw.resources) ? raw.resources : raw;
  if (!isObj(obj)) throw new CliError(`--resources ${file}: expected an object mapping ARM ids to {target, location, state}`);
  return new Map(Object.entries(obj).map(([id, r]) => [id.toLowerCase(), r as AzureResource]));
}

/** The deployed state and resource catalog: from `--deployed` (offline) or the server (`--server`, TMKIT_SERVER). */
export async function loadState(opts: StateOptions, required: boolean): Promise<{ deployed: DeployedProfile[]; resources?: ResourceCatalog; source: string } | undefined> {
  let resources = opts.resources !== undefined ? parseCatalog(readJsonFile(opts.resources, 'resource catalog'), opts.resources) : undefined;
  if (opts.deployed !== undefined) {
    const deployed = parseDeployed(readJsonFile(opts.deployed, 'deployed state', 'write one with: curl -H "Authorization: Bearer $TMKIT_TOKEN" $TMKIT_SERVER/v1/profiles'), opts.deployed);
    return { deployed, ...(resources ? { resources } : {}), source: opts.deployed };
  }
  if (!required) return undefined;
  const client = new TmkitClient({ ...(opts.server !== undefined ? { server: opts.server } : {}), ...(opts.token !== undefined ? { token: opts.token } : {}) });
  try {
    const list = await client.listProfiles();
    if (!resources) {
      try {
        const cat = await client.getResources();
        resources = new Map(Object.entries(cat.resources).map(([id, r]) => [id.toLowerCase(), r]));
      } catch { /* an older server without a catalog: Azure endpoints need inline targets */ }
    }
    return {
      deployed: list.profiles.map((e) => ({ profile: e.profile, etag: e.etag, stack: e.stack })),
      ...(resources ? { resources } : {}),
      source: client.server,
    };
  } catch (err) {
    throw new CliError(`cannot read the deployed profiles from ${client.server}: ${(err as Error).message} ` +
      '(start `tmkit serve`, set --server/TMKIT_SERVER and --token/TMKIT_TOKEN, or plan offline with --deployed FILE)');
  } finally {
    await client.close();
  }
}

export async function openGeo(geoip: string | undefined): Promise<GeoLookup> {
  try {
    return await MmdbGeoLookup.open(geoip !== undefined ? { geoip } : {});
  } catch (err) {
    throw new CliError(`cannot open the geo database${geoip ? ` ${geoip}` : ''}: ${(err as Error).message}`);
  }
}

export function parseSeconds(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`${flag} must be a whole number of seconds, 0 or more (got ${v})`, EXIT_USAGE);
  return n;
}

export function wantColor(flag: boolean | undefined): boolean {
  if (flag !== undefined) return flag;
  return process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
}

export function addStateOptions(cmd: Command): Command {
  return cmd
    .option('--deployed <file>', 'plan against a local deployed state instead of the server: GET /v1/profiles output, or a tmkit/v1 document (e.g. the main branch\'s)')
    .option('--server <url>', 'management API (default TMKIT_SERVER, then http://127.0.0.1:5380)')
    .option('--token <token>', 'API token (default TMKIT_TOKEN, then .tmkit/token for a local server)')
    .option('--resources <file>', 'resource catalog for Azure endpoints (ARM id → target, location, state), as given to tmkit serve')
    .option('--geoip <file.mmdb>', 'MaxMind-format database for the preview (default: the shipped country database)');
}

/**
 * `tmkit plan FILE`: what applying FILE would change on the runtime (or against `--deployed`), with the
 * routing preview, failover times and lints. Exit 0 no changes (or changes without --detailed-exitcode),
 * 2 changes with --detailed-exitcode, 1 invalid input, plan errors or a failover limit exceeded.
 */
export function registerPlan(program: Command): void {
  addStateOptions(program
    .command('plan')
    .description('show what applying a document would change, with a routing preview (what clients get before and after)')
    .argument('<file>', 'tmkit/v1 document (e.g. tmkit.out.json) or the JSON Azure prints for profiles')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
    .option('--out <file>', 'also write the plan as JSON (formatVersion 1) for `tmkit apply <file>`')
    .option('--detailed-exitcode', 'exit 2 when there are changes (0 none, 1 errors), like terraform')
    .option('--max-failover-seconds <n>', 'exit 1 when a changed profile\'s worst-case failover time exceeds n seconds')
    .option('--no-preview', 'skip the routing preview')
    .option('--color', 'colour the text output (default: when stdout is a terminal and NO_COLOR is unset)')
    .option('--no-color', 'never colour'))
    .action(async (file: string, opts: PlanOptions, cmd: Command) => {
      const max = parseSeconds('--max-failover-seconds', opts.maxFailoverSeconds);
      const state = (await loadState(opts, true))!;
      const desired = loadDesired(file, state.deployed);
      const report = await makeReport(desired.document, state, {
        preview: opts.preview, geoip: opts.geoip, warnings: desired.warnings, ...(max !== undefined ? { maxFailoverSeconds: max } : {}),
      });
      if (opts.out !== undefined) writeFileAtomic(opts.out, renderJson(report));
      if (opts.format === 'json') process.stdout.write(renderJson(report));
      else if (opts.format === 'markdown') process.stdout.write(renderMarkdown(report));
      else process.stdout.write(renderText(report, { color: wantColor(opts.color) }));
      const code = planExitCode(report, opts.detailedExitcode === true);
      if (code === EXIT_FAILED && report.plan.errors.length > 0) process.stderr.write(`tmkit: the plan has ${report.plan.errors.length} error(s) and cannot be applied\n`);
      setExitCode(cmd, code);
    });
}

export async function makeReport(
  desired: Document,
  state: { deployed: DeployedProfile[]; resources?: ResourceCatalog },
  opts: { preview: boolean; geoip?: string | undefined; maxFailoverSeconds?: number; clients?: Array<{ label: string; address: string }>; warnings?: Diagnostic[] },
): Promise<PlanReport> {
  const plan = diff(desired, state.deployed);
  const preview = opts.preview
    ? previewPlan(plan, state.deployed, await openGeo(opts.geoip), {
      ...(state.resources ? { resources: state.resources } : {}),
      ...(opts.clients ? { clients: opts.clients } : {}),
    })
    : undefined;
  return buildReport(plan, state.deployed, {
    ...(preview ? { preview } : {}),
    ...(opts.warnings ? { warnings: opts.warnings } : {}),
    ...(opts.maxFailoverSeconds !== undefined ? { maxFailoverSeconds: opts.maxFailoverSeconds } : {}),
  });
}

/** One step's outcome while a plan is applied. */
export interface StepOutcome {
  index: number;
  total: number;
  step: PlanStep;
  ok: boolean;
  /** New ETag after a PUT. */
  etag?: string;
  error?: string;
}

export interface ApplyResult {
  applied: StepOutcome[];
  /** The step that failed (nothing after it was attempted). */
  failed?: StepOutcome;
  notApplied: PlanStep[];
}

/**
 * Thrown before anything is written: the plan has errors, or the server changed since it was made.
 * (Not a CliError subclass: commands/index.ts loads this module while cli/main.ts is still initialising;
 * `tmkit apply` turns it into `new CliError(err.message)`, exit 1.)
 */
export class PlanRefusedError extends TmkitError {
  constructor(message: string, readonly issues: Diagnostic[]) {
    super('PLAN_REFUSED', message, issues);
  }
}

/**
 * Applies a plan through the management API (for `tmkit apply`): refuses a plan with errors; refuses a
 * stale one (checkPlanBase against `GET /v1/profiles`: someone deployed in between) before writing
 * anything; then runs applyOrder(plan) one call at a time with the plan's preconditions (`If-Match` with
 * the base ETag, `If-None-Match: *` for creates), reporting each step to `onStep`, and stops at the first
 * failure. The result says exactly which steps were applied and which were not.
 */
export async function executePlan(client: TmkitClient, plan: Plan, onStep?: (o: StepOutcome) => void | Promise<void>): Promise<ApplyResult> {
  if (plan.errors.length > 0) {
    throw new PlanRefusedError(`the plan has ${plan.errors.length} error(s) and cannot be applied: ${plan.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, plan.errors);
  }
  const list = await client.listProfiles();
  const stale = checkPlanBase(plan, list.profiles.map((e) => ({ profile: e.profile, etag: e.etag, stack: e.stack })));
  if (stale.length > 0) {
    throw new PlanRefusedError(`the plan is stale, nothing was applied: ${stale.map((i) => i.message).join('; ')}. ${stale[0]!.hint}`, stale);
  }
  const steps = applyOrder(plan);
  const applied: StepOutcome[] = [];
  for (let i = 0; i < steps.length; i++) {
    const { body, ...step } = steps[i]!;
    const base = { index: i + 1, total: steps.length, step };
    let outcome: StepOutcome;
    try {
      if (step.method === 'PUT') {
        const r = await client.putProfile(body!, {
          stack: plan.stack,
          ...(step.ifMatch !== undefined ? { ifMatch: step.ifMatch } : {}),
          ...(step.ifNoneMatch !== undefined ? { ifNoneMatch: step.ifNoneMatch } : {}),
        });
        outcome = { ...base, ok: true, etag: r.etag };
      } else {
        await client.deleteProfile(step.profile, { stack: plan.stack, ...(step.ifMatch !== undefined ? { ifMatch: step.ifMatch } : {}) });
        outcome = { ...base, ok: true };
      }
    } catch (err) {
      const failed: StepOutcome = { ...base, ok: false, error: (err as Error).message };
      await onStep?.(failed);
      return { applied, failed, notApplied: steps.slice(i + 1).map(({ body: _b, ...s }) => s) };
    }
    applied.push(outcome);
    await onStep?.(outcome);
  }
  return { applied, notApplied: [] };
}
