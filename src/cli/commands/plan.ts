import { Option, type Command } from 'commander';
import { failoverLimitMessages, planExitCode, renderJson, renderMarkdown, renderText } from '../../core/plan';
import { count } from '../../core/words';
import { CliError, EXIT_FAILED, EXIT_USAGE, setExitCode } from '../errors';
import { writeFileAtomic } from '../util/files';
import { synthesizedDocument } from '../util/app-config';
import {
  addClientsOption,
  addStateOptions,
  loadDesired,
  loadState,
  makeReport,
  parseSeconds,
  previewClients,
  readDocumentFile,
  wantColor,
  type StateOptions,
} from '../util/state';
import { armPreviewReport, azurermPlanFile, azurermPlanReport, printPlan } from '../util/azure-preview';
import { loadTerraformPlan } from '../util/terraform-plan';
import { testsBeside, testsMessages } from '../util/plan-tests';

interface PlanOptions extends StateOptions {
  format: 'text' | 'markdown' | 'json';
  out?: string;
  detailedExitcode?: boolean;
  maxFailoverSeconds?: string;
  preview: boolean;
  clients: string[];
  color?: boolean;
  fromTerraform?: string;
  fromArm?: string;
  deployedArm?: string;
}

/**
 * `tmkit plan FILE`: what applying FILE would change on the runtime (or against `--deployed`), with the
 * routing preview (`--clients`: also these addresses, as `tmkit preview` shows them), failover times and
 * lints. Without FILE (and --from-terraform), in a tmkit app: the document `tmkit synth` writes. Exit 0 no
 * changes (or changes without --detailed-exitcode), 2 changes with --detailed-exitcode, 1 invalid input,
 * plan errors or a failover limit exceeded.
 */
export function registerPlan(program: Command): void {
  addStateOptions(
    addClientsOption(
      program
        .command('plan')
        .description('show what applying a document would change, with a routing preview (what clients get before and after)')
        .argument(
          '[file]',
          'tmkit/v1 document or the JSON Azure prints for profiles (default, in a tmkit app: what `tmkit synth` writes, tmkit.out/tmkit.out.json)',
        )
        .option(
          '--from-terraform <plan.json>',
          'plan what a Terraform plan would leave on the runtime: the JSON of `terraform show -json tfplan` (its tmkit_* resources; its azurerm_traffic_manager_* resources instead: a preview of Azure, offline)',
        )
        .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
        .option('--out <file>', 'also write the plan as JSON (formatVersion 1) for `tmkit apply <file>`')
        .option('--detailed-exitcode', 'exit 2 when there are changes (0 none, 1 errors), like terraform')
        .option('--max-failover-seconds <n>', "exit 1 when a changed profile's worst-case failover time exceeds n seconds")
        .option('--no-preview', 'skip the routing preview'),
    )
      .option(
        '--from-arm <after.json>',
        "preview Azure's own Traffic Manager offline: an ARM template's Microsoft.Network/trafficManagerProfiles, or `az network traffic-manager profile show/list` output",
      )
      .option('--deployed-arm <before.json>', 'with --from-arm: what Azure has now, in the same forms (default: nothing yet)')
      .option('--color', 'colour the text output (default: when stdout is a terminal and NO_COLOR is unset)')
      .option('--no-color', 'never colour'),
  ).action(async (fileArg: string | undefined, opts: PlanOptions, cmd: Command) => {
    const max = parseSeconds('--max-failover-seconds', opts.maxFailoverSeconds);
    if (opts.fromArm !== undefined || opts.deployedArm !== undefined) {
      if (opts.fromArm === undefined) throw new CliError('--deployed-arm BEFORE.json goes with --from-arm AFTER.json', EXIT_USAGE);
      if (cmd.args.length > 0 || opts.fromTerraform !== undefined || opts.deployed !== undefined || opts.server !== undefined) {
        throw new CliError(
          '--from-arm previews Azure offline, before (--deployed-arm) against after: give no document file, --from-terraform, --deployed or --server with it',
          EXIT_USAGE,
        );
      }
      const report = await armPreviewReport(opts.fromArm, opts.deployedArm, {
        preview: opts.preview,
        geoip: opts.geoip,
        resources: opts.resources,
        ...(max !== undefined ? { maxFailoverSeconds: max } : {}),
      });
      printPlan(report, (s) => s, opts, cmd);
      return;
    }
    const clients = previewClients(opts.clients);
    if (clients.length > 0 && !opts.preview)
      throw new CliError('--clients adds addresses to the routing preview, which --no-preview turns off: drop one of them', EXIT_USAGE);
    if (fileArg !== undefined && opts.fromTerraform !== undefined) {
      throw new CliError('give a document file or --from-terraform plan.json (one of them)', EXIT_USAGE);
    }
    const file = fileArg ?? (opts.fromTerraform === undefined ? synthesizedDocument('plan') : undefined);
    // An azurerm plan previews Azure's own Traffic Manager: offline, its before is what Azure has.
    const azure = opts.fromTerraform !== undefined ? azurermPlanFile(opts.fromTerraform, opts) : undefined;
    if (azure !== undefined) {
      const { report, mask } = await azurermPlanReport(opts.fromTerraform!, azure, {
        preview: opts.preview,
        geoip: opts.geoip,
        resources: opts.resources,
        ...(max !== undefined ? { maxFailoverSeconds: max } : {}),
      });
      printPlan(report, mask, opts, cmd);
      return;
    }
    const raw = file !== undefined ? readDocumentFile(file) : undefined;
    const state = (await loadState(opts, true, raw))!;
    const tf = opts.fromTerraform !== undefined ? loadTerraformPlan(opts.fromTerraform, state.deployed) : undefined;
    const desired = tf ?? loadDesired(file!, state.deployed, raw);
    const mask = tf?.mask ?? ((s: string): string => s);
    const report = await makeReport(desired.document, state, {
      preview: opts.preview,
      geoip: opts.geoip,
      clients,
      warnings: desired.warnings,
      ...(max !== undefined ? { maxFailoverSeconds: max } : {}),
    });
    // The routing tests beside the document (tmkit.tests.json), in the plan and its exit code.
    const tests =
      file !== undefined ? await testsBeside(file, desired.document, { geoip: opts.geoip, resources: state.resources }) : undefined;
    if (tests) report.tests = tests;
    if (opts.out !== undefined) writeFileAtomic(opts.out, mask(renderJson(report)));
    if (opts.format === 'json') process.stdout.write(mask(renderJson(report)));
    else if (opts.format === 'markdown') process.stdout.write(mask(renderMarkdown(report)));
    else process.stdout.write(mask(renderText(report, { color: wantColor(opts.color) })));
    const code = planExitCode(report, opts.detailedExitcode === true);
    for (const m of failoverLimitMessages(report)) process.stderr.write(`tmkit: ${m}\n`);
    for (const m of testsMessages(report.tests)) process.stderr.write(`tmkit: ${m}\n`);
    if (code === EXIT_FAILED && report.plan.errors.length > 0)
      process.stderr.write(`tmkit: the plan has ${count(report.plan.errors.length, 'error')} and cannot be applied\n`);
    setExitCode(cmd, code);
  });
}
