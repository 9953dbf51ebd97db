import { Option, type Command } from 'commander';
import { parseResourceCatalog, toResourceCatalog } from '../../core/model/catalog';
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
import { readDocumentFile } from '../util/state';

interface TestOptions {
  format: 'text' | 'json' | 'junit';
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
    .argument('<document>', 'tmkit/v1 document (e.g. tmkit.out/tmkit.out.json) or the JSON Azure prints for profiles')
    .argument('<tests>', 'tests file: {"tests": [{"name", "profile", "client", "down", "expect", ...}]} (docs/testing.md)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'junit']).default('text'))
    .option('--junit <file>', 'also write the results as JUnit XML (for CI test reports)')
    .option('--resources <file>', 'resource catalog for Azure endpoints (ARM id → target, location, state), as given to tmkit serve')
    .option(
      '--geoip <file.mmdb>',
      "MaxMind-format database that places the tests' client addresses (default: the country database package)",
    )
    .action(async (documentFile: string, testsFile: string, opts: TestOptions, cmd: Command) => {
      const raw = badFile(() => readDocumentFile(documentFile));
      const desired = desiredDocument(raw, []);
      if (!desired.document) {
        process.stderr.write(renderDiagnostics(desired.diagnostics, desired.profileNames));
        throw new CliError(
          `${documentFile} is not a valid document: fix the errors above (tmkit validate ${documentFile} shows them too)`,
          EXIT_USAGE,
        );
      }
      const rawTests = badFile(() => readJsonFile(testsFile, 'tests file', 'write {"tests": [...]}; see docs/testing.md'));
      const resources = opts.resources !== undefined ? badFile(() => readCatalog(opts.resources!)) : undefined;
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

/** `--resources FILE`: the catalog format `tmkit serve --resources` takes. */
function readCatalog(file: string): ResourceCatalog {
  const { catalog, errors } = parseResourceCatalog(readJsonFile(file, 'resource catalog'));
  if (errors.length > 0)
    throw new CliError(`--resources ${file}: ${errors.map((e) => `${e.path ? `${e.path}: ` : ''}${e.message}`).join('; ')}`, EXIT_USAGE);
  return toResourceCatalog(catalog);
}
