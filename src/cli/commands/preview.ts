import { Option, type Command } from 'commander';
import {
  buildReport,
  diff,
  plannedProfiles,
  previewRouting,
  renderJson,
  renderMarkdown,
  renderText,
  type PlanReport,
} from '../../core/plan';
import { EXIT_FAILED, EXIT_OK, setExitCode } from '../errors';
import { openPreviewGeo } from '../util/geo';
import {
  addClientsOption,
  addStateOptions,
  loadDesired,
  loadState,
  makeReport,
  previewClients,
  readDocumentFile,
  wantColor,
  type StateOptions,
} from '../util/state';

interface PreviewOptions extends StateOptions {
  againstServer?: boolean;
  clients: string[];
  format: 'text' | 'markdown' | 'json';
  scenarios: boolean;
  color?: boolean;
}

/**
 * `tmkit preview FILE`: who gets which endpoint. Offline (default) it previews every profile of FILE as
 * written; with `--against-server` (or `--deployed FILE`) it compares with the deployed state and previews
 * the profiles the change affects, before vs after. `--clients` adds specific client addresses.
 */
export function registerPreview(program: Command): void {
  addStateOptions(
    addClientsOption(
      program
        .command('preview')
        .description('routing preview: which endpoint every region, range or client gets, failure scenarios and failover times')
        .argument('<file>', 'tmkit/v1 document (e.g. tmkit.out.json)')
        .option('--against-server', 'compare with the profiles deployed on the server (before vs after)'),
    )
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
      .option('--no-scenarios', 'skip the failure scenarios')
      .option('--color', 'colour the text output (default: when stdout is a terminal and NO_COLOR is unset)')
      .option('--no-color', 'never colour'),
  ).action(async (file: string, opts: PreviewOptions, cmd: Command) => {
    const clients = previewClients(opts.clients);
    const compare = opts.againstServer === true || opts.deployed !== undefined;
    const raw = readDocumentFile(file);
    const state = await loadState(opts, compare, raw);
    const { document: desired, warnings } = loadDesired(file, state?.deployed ?? [], raw);
    let report: PlanReport;
    if (state) {
      report = await makeReport(desired, state, { preview: true, geoip: opts.geoip, clients, warnings });
    } else {
      const plan = diff(desired, []);
      const preview = previewRouting({
        before: new Map(),
        after: plannedProfiles(plan, []),
        profiles: desired.profiles.map((p) => ({ name: p.name, action: 'preview' as const })),
        geo: await openPreviewGeo(opts.geoip, clients.length > 0),
        clients,
        scenarios: opts.scenarios,
      });
      report = buildReport(plan, [], { preview, warnings });
    }
    if (opts.format === 'json') process.stdout.write(renderJson(report));
    else if (opts.format === 'markdown') process.stdout.write(renderMarkdown(report, { title: 'tmkit preview' }));
    else process.stdout.write(renderText(report, { color: wantColor(opts.color), changes: false }));
    if (report.plan.errors.length > 0) {
      for (const e of report.plan.errors) process.stderr.write(`tmkit: ${e.path}: ${e.message} [${e.code}]\n`);
    }
    setExitCode(cmd, report.plan.errors.length > 0 ? EXIT_FAILED : EXIT_OK);
  });
}
