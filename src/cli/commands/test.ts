import { Option, type Command } from 'commander';
import { toResourceCatalog } from '../../core/model/catalog';
import { desiredDocument } from '../../core/plan';
import type { ResourceCatalog } from '../../core/ports';
import {
  readRoutingTests,
  renderProblems,
  renderTestsJson,
  renderTestsJunit,
  renderTestsText,
  runRoutingTests,
} from '../../core/routing-tests';
import { count } from '../../core/words';
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE, setExitCode } from '../errors';
import { renderText as renderDiagnostics } from '../util/diagnostics';
import { readJsonFile, writeFileAtomic } from '../util/files';
import { openPreviewGeo } from '../util/geo';
import { readCatalog, readDocumentFile } from '../util/state';
import { azureTestInput } from '../util/azure-preview';
import { loadTerraformPlan } from '../util/terraform-plan';

interface TestOptions {
  format: 'text' | 'json' | 'junit';
  fromTerraform?: string;
  fromArm?: string;
  junit?: string;
  geoip?: string;
  resources?: string;
}

/** A file that cannot be used (missing, not JSON, invalid) is a bad file: exit 2, not a failing test. */
function badFile<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof CliError && err.exitCode === EXIT_FAILED) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }
}

/**
 * `tmkit test DOCUMENT TESTS.json`: routing expectations run against the document offline, with the
 * routing engine DNS uses (docs/testing.md). Exit 0 all pass, 1 any fails, 2 a bad document or tests file
 * (every problem printed with its path first).
 */
export function registerTest(program: Command): void {
  program
    .command('test')
    .description('run routing tests (expected answers, failover bounds, no single point of failure, shares) against a document, offline')
    .argument('[document]', 'tmkit/v1 document (e.g. tmkit.out/tmkit.out.json) or the JSON Azure prints for profiles')
    .argument('[tests]', 'tests file: {"tests": [{"name", "profile", "client", "down", "expect", ...}]} (docs/testing.md)')
    .option(
      '--from-terraform <plan.json>',
      'instead of DOCUMENT: the profiles a Terraform plan leaves (`terraform show -json tfplan`; tmkit_* or azurerm_traffic_manager_* resources)',
    )
    .option(
      '--from-arm <file.json>',
      "instead of DOCUMENT: Azure's profiles in an ARM template or `az network traffic-manager profile show/list` output",
    )
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'junit']).default('text'))
    .option('--junit <file>', 'also write the results as JUnit XML (for CI test reports)')
    .option('--resources <file>', 'resource catalog for Azure endpoints (ARM id → target, location, state), as given to tmkit serve')
    .option(
      '--geoip <file.mmdb>',
      "MaxMind-format database that places the tests' client addresses (default: the country database package)",
    )
    .action(async (first: string | undefined, second: string | undefined, opts: TestOptions, cmd: Command) => {
      const { kind, documentFile, testsFile } = testSource(first, second, opts);
      const azure = kind === 'document' ? undefined : badFile(() => azureTestInput(kind, documentFile));
      const raw =
        kind === 'document'
          ? badFile(() => readDocumentFile(documentFile))
          : (azure?.document ?? badFile(() => loadTerraformPlan(documentFile, []).document));
      const desired = desiredDocument(raw, []);
      if (!desired.document) {
        process.stderr.write(renderDiagnostics(desired.diagnostics, desired.profileNames));
        throw new CliError(
          kind === 'document'
            ? `${documentFile} is not a valid document: fix the errors above (tmkit validate ${documentFile} shows them too)`
            : `${documentFile}: the profiles it describes break Azure's rules (above): fix them, then test again`,
          EXIT_USAGE,
        );
      }
      const rawTests = badFile(() => readJsonFile(testsFile, 'tests file', 'write {"tests": [...]}; see docs/testing.md'));
      const given = opts.resources !== undefined ? badFile(() => readCatalog(opts.resources!)) : undefined;
      // An Azure input's own endpoints (targets and regions as far as it tells), then --resources over them.
      const resources: ResourceCatalog | undefined = azure
        ? new Map([...toResourceCatalog(azure.catalog), ...(given ?? new Map())])
        : given;
      const { tests, problems } = readRoutingTests(rawTests, {
        profiles: desired.document.profiles,
        ...(resources ? { resources } : {}),
      });
      if (problems.length > 0) {
        for (const line of renderProblems(testsFile, problems)) process.stderr.write(`tmkit: ${line}\n`);
        throw new CliError(
          `${testsFile}: ${count(problems.length, 'problem')}; no test ran (docs/testing.md describes the file)`,
          EXIT_USAGE,
        );
      }
      const geo = await openPreviewGeo(
        opts.geoip,
        tests.some((t) => t.client !== undefined),
      );
      const results = runRoutingTests({
        profiles: desired.document.profiles,
        tests,
        geo,
        ...(resources ? { resources } : {}),
      });
      if (opts.junit !== undefined) writeFileAtomic(opts.junit, renderTestsJunit(results));
      process.stdout.write(
        opts.format === 'json' ? renderTestsJson(results) : opts.format === 'junit' ? renderTestsJunit(results) : renderTestsText(results),
      );
      setExitCode(cmd, results.every((r) => r.passed) ? EXIT_OK : EXIT_FAILED);
    });
}

/** Where the profiles come from (DOCUMENT, or --from-terraform / --from-arm) and the tests file. */
function testSource(
  first: string | undefined,
  second: string | undefined,
  opts: TestOptions,
): { kind: 'document' | 'terraform' | 'arm'; documentFile: string; testsFile: string } {
  const from = opts.fromTerraform ?? opts.fromArm;
  if (opts.fromTerraform !== undefined && opts.fromArm !== undefined)
    throw new CliError('--from-terraform and --from-arm each give the profiles: pass one of them', EXIT_USAGE);
  if (from !== undefined) {
    if (first === undefined || second !== undefined)
      throw new CliError(
        `with ${opts.fromTerraform !== undefined ? '--from-terraform' : '--from-arm'} give only the tests file: tmkit test --from-… FILE TESTS.json`,
        EXIT_USAGE,
      );
    return { kind: opts.fromTerraform !== undefined ? 'terraform' : 'arm', documentFile: from, testsFile: first };
  }
  if (first === undefined || second === undefined)
    throw new CliError(
      'give a document and a tests file: tmkit test DOCUMENT TESTS.json (or --from-terraform / --from-arm FILE TESTS.json)',
      EXIT_USAGE,
    );
  return { kind: 'document', documentFile: first, testsFile: second };
}
