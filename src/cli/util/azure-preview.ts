/**
 * `tmkit plan --from-terraform plan.json` for a plan of azurerm Traffic Manager resources: a preview of
 * Azure's own Traffic Manager, offline. What Azure has (`before`) is the deployed state and what the plan
 * leaves (`after`) the desired document (src/core/model/azurerm-plan.ts); no tmkit server is asked. Every
 * diagnostic names the resource address that causes it.
 */
import type { Command } from 'commander';
import type { Diagnostic } from '../../core/diagnostics';
import {
  AZURE_PREVIEW_STACK,
  type AzurermPlanDocuments,
  azurermPlanDocuments,
  hasAzurermTrafficManager,
  maskSensitiveValues,
} from '../../core/model/azurerm-plan';
import { armPreviewDocuments } from '../../core/model/arm-preview';
import { type ResourceCatalogRecord, toResourceCatalog } from '../../core/model/catalog';
import type { DocumentInput } from '../../core/model/types';
import { normalize } from '../../core/model/normalize';
import {
  desiredDocument,
  failoverLimitMessages,
  planExitCode,
  renderJson,
  renderMarkdown,
  renderText,
  type DeployedProfile,
  type PlanReport,
} from '../../core/plan';
import type { ResourceCatalog } from '../../core/ports';
import { count } from '../../core/words';
import { CliError, EXIT_FAILED, EXIT_USAGE, setExitCode } from '../errors';
import { renderText as renderDiagnostics } from './diagnostics';
import { displayFile, readJsonFile, writeFileAtomic } from './files';
import { makeReport, readCatalog, wantColor } from './state';

export interface AzurePreviewOptions {
  preview: boolean;
  geoip?: string | undefined;
  resources?: string | undefined;
  clients?: Array<{ label: string; address: string }>;
  maxFailoverSeconds?: number;
}

/** The diagnostic with the resource address its path points into (the longest known prefix), if any. */
function withAddress(d: Diagnostic, addresses: Record<string, string>): Diagnostic {
  const path = d.path.toLowerCase();
  let best = '';
  for (const key of Object.keys(addresses)) {
    if ((path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`)) && key.length > best.length) best = key;
  }
  return best === '' ? d : { ...d, message: `${d.message} (resource ${addresses[best]})` };
}

/**
 * The plan report of an azurerm Terraform plan (its JSON already read), with the masking of sensitive
 * values for everything printed. Exit 1 (CliError) when the file cannot be previewed or the planned
 * profiles break Azure's rules, each error printed with its rule code and resource address.
 */
export async function azurermPlanReport(
  file: string,
  raw: unknown,
  opts: AzurePreviewOptions,
): Promise<{ report: PlanReport; mask: (s: string) => string }> {
  const { az, mask } = azurermDocuments(file, raw);
  const label = displayFile(file);
  const report = await previewReport(
    {
      source: `Terraform plan ${label}`,
      before: az.before,
      after: az.after,
      diagnostics: az.issues.map((d) => withAddress(d, az.addresses)),
      decorate: (d) => withAddress(d, az.addresses),
      catalog: az.catalog,
      standIns: az.standIns,
      notes: az.notes,
      mask,
      fix: 'fix the errors above in the configuration, then plan again',
    },
    opts,
  );
  return { report, mask };
}

/**
 * The documents of an azurerm plan (its JSON already read) and the masking of its sensitive values. Exit 1
 * (CliError) when the file cannot be previewed: each problem with its resource address.
 */
function azurermDocuments(file: string, raw: unknown): { az: AzurermPlanDocuments; mask: (s: string) => string } {
  const az = azurermPlanDocuments(raw);
  const mask = (s: string): string => maskSensitiveValues(s, az.sensitive);
  if (az.problems.length > 0)
    throw new CliError(mask(`${displayFile(file)}: ${az.problems.map((p) => `${p.address}: ${p.message}`).join('; ')}`));
  return { az, mask };
}

/** Exit 1 when an ARM file's import has errors: every issue printed, the first in the message (`verb`: previewed, tested). */
function refuseArmErrors(file: string, issues: readonly Diagnostic[], verb: string): void {
  const errors = issues.filter((i) => i.severity === 'error');
  if (errors.length === 0) return;
  process.stderr.write(renderDiagnostics(issues, []));
  throw new CliError(`${displayFile(file)}: cannot be ${verb}: ${errors[0]!.message} (and the errors above)`);
}

/** What an Azure preview plans: before against after, with the notes and the catalog of Azure endpoints. */
interface PreviewInput {
  source: string;
  before: DocumentInput;
  after: DocumentInput;
  /** Problems found reading the input (printed with validation's). */
  diagnostics: Diagnostic[];
  decorate: (d: Diagnostic) => Diagnostic;
  catalog: ResourceCatalogRecord;
  standIns: Record<string, string>;
  notes: string[];
  mask: (s: string) => string;
  fix: string;
}

/** The report of an Azure preview; exit 1 with every diagnostic when the after state breaks a rule. */
async function previewReport(input: PreviewInput, opts: AzurePreviewOptions): Promise<PlanReport> {
  const deployed: DeployedProfile[] = normalize(input.before).profiles.map((profile) => ({
    profile,
    etag: '"azure"',
    stack: AZURE_PREVIEW_STACK,
  }));
  const desired = desiredDocument(input.after, deployed);
  const diagnostics = [...input.diagnostics, ...desired.diagnostics.map(input.decorate)];
  if (!desired.document || diagnostics.some((d) => d.severity === 'error')) {
    process.stderr.write(input.mask(renderDiagnostics(diagnostics, desired.profileNames)));
    throw new CliError(`${input.source}: the planned Traffic Manager profiles break Azure's rules: ${input.fix}`);
  }
  const user = opts.resources !== undefined ? readCatalog(opts.resources) : new Map();
  const resources: ResourceCatalog = new Map([...toResourceCatalog(input.catalog), ...user]);
  // A stand-in is said only for resources the --resources catalog does not describe.
  const notes = [...input.notes, ...Object.entries(input.standIns).flatMap(([id, note]) => (user.has(id.toLowerCase()) ? [] : [note]))];
  const report = await makeReport(
    desired.document,
    { deployed, resources },
    {
      preview: opts.preview,
      geoip: opts.geoip,
      warnings: diagnostics.filter((d) => d.severity === 'warning'),
      ...(opts.clients ? { clients: opts.clients } : {}),
      ...(opts.maxFailoverSeconds !== undefined ? { maxFailoverSeconds: opts.maxFailoverSeconds } : {}),
    },
  );
  report.azure = { source: input.source, notes };
  return report;
}

/** What an ARM file may be, for the error of one that is not. */
const ARM_HINT = 'an ARM template, or `az network traffic-manager profile show -g <group> -n <name>` (or `list -g <group>`) output';

/**
 * `--from-arm AFTER.json [--deployed-arm BEFORE.json]`: the report of Azure's Traffic Manager going from
 * BEFORE (nothing, without it) to AFTER, each an ARM template or `az network traffic-manager profile
 * show/list` output. Exit 1 when a file holds no profile or cannot be imported faithfully.
 */
export async function armPreviewReport(afterFile: string, beforeFile: string | undefined, opts: AzurePreviewOptions): Promise<PlanReport> {
  const after = readJsonFile(afterFile, 'ARM file', ARM_HINT);
  const before = beforeFile !== undefined ? readJsonFile(beforeFile, 'ARM file', ARM_HINT) : undefined;
  const arm = armPreviewDocuments(after, before);
  if (beforeFile !== undefined) refuseArmErrors(beforeFile, arm.issues.before, 'previewed');
  refuseArmErrors(afterFile, arm.issues.after, 'previewed');
  const source = `ARM ${displayFile(afterFile)}${beforeFile !== undefined ? ` against ${displayFile(beforeFile)}` : ', nothing deployed before'}`;
  return previewReport(
    {
      source,
      before: arm.before,
      after: arm.after,
      diagnostics: arm.issues.after.filter((i) => i.severity === 'warning'),
      decorate: (d) => d,
      catalog: arm.catalog,
      standIns: arm.standIns,
      notes: [],
      mask: (s) => s,
      fix: 'fix them in the template, then plan again',
    },
    opts,
  );
}

/**
 * The JSON of `--from-terraform FILE` when it is a plan of azurerm Traffic Manager resources (an Azure
 * preview), else undefined (a tmkit_* plan, planned against the runtime). Refuses a plan with both kinds and
 * the options that name another deployed state.
 */
export function azurermPlanFile(file: string, opts: { deployed?: string | undefined; server?: string | undefined }): unknown {
  const raw = readJsonFile(file, 'Terraform plan', 'write it with: terraform plan -out tfplan && terraform show -json tfplan > plan.json');
  if (!hasAzurermTrafficManager(raw)) return undefined;
  const changes = (raw as { resource_changes: Array<{ type?: unknown }> }).resource_changes;
  if (changes.some((c) => typeof c.type === 'string' && c.type.startsWith('tmkit_'))) {
    throw new CliError(
      `${displayFile(file)} has both tmkit_* and azurerm_traffic_manager_* resources: tmkit previews one kind per plan; ` +
        'plan them in separate configurations (or with -target)',
      EXIT_USAGE,
    );
  }
  for (const [flag, v] of [
    ['--deployed', opts.deployed],
    ['--server', opts.server],
  ] as const) {
    if (v !== undefined) {
      throw new CliError(
        `${flag}: an azurerm plan previews Azure, whose current state is the plan's own (before); drop ${flag}`,
        EXIT_USAGE,
      );
    }
  }
  return raw;
}

/** Prints the report as `tmkit plan` does (--format, --out, exit code, failover limit lines). */
export function printPlan(
  report: PlanReport,
  mask: (s: string) => string,
  opts: {
    format: 'text' | 'markdown' | 'json';
    out?: string | undefined;
    color?: boolean | undefined;
    detailedExitcode?: boolean | undefined;
  },
  cmd: Command,
): void {
  if (opts.out !== undefined) writeFileAtomic(opts.out, mask(renderJson(report)));
  if (opts.format === 'json') process.stdout.write(mask(renderJson(report)));
  else if (opts.format === 'markdown') process.stdout.write(mask(renderMarkdown(report)));
  else process.stdout.write(mask(renderText(report, { color: wantColor(opts.color) })));
  const code = planExitCode(report, opts.detailedExitcode === true);
  for (const m of failoverLimitMessages(report)) process.stderr.write(`tmkit: ${m}\n`);
  if (code === EXIT_FAILED && report.plan.errors.length > 0)
    process.stderr.write(`tmkit: the plan has ${count(report.plan.errors.length, 'error')} and cannot be applied\n`);
  setExitCode(cmd, code);
}

/**
 * What `tmkit test --from-terraform PLAN.json` / `--from-arm FILE.json` tests: the profiles an azurerm plan
 * leaves (its `after`), or those of an ARM file, with the catalog of their Azure endpoints (targets and
 * regions as far as the input tells; stand-ins otherwise). Undefined for a Terraform plan of tmkit_*
 * resources (the caller reads it as `tmkit plan` does). Exit 1 when the file cannot be read as such.
 */
export function azureTestInput(
  kind: 'terraform' | 'arm',
  file: string,
): { document: DocumentInput; catalog: ResourceCatalogRecord } | undefined {
  if (kind === 'terraform') {
    const raw = azurermPlanFile(file, {});
    if (raw === undefined) return undefined;
    const { az } = azurermDocuments(file, raw);
    return { document: az.after, catalog: az.catalog };
  }
  const arm = armPreviewDocuments(readJsonFile(file, 'ARM file', ARM_HINT), undefined);
  refuseArmErrors(file, arm.issues.after, 'tested');
  return { document: arm.after, catalog: arm.catalog };
}
