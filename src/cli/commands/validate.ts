import type { Diagnostic } from '../../core/diagnostics';
import { Option, type Command } from 'commander';
import { validate } from '../../core/validate';
import { count } from '../../core/words';
import { EXIT_FAILED, EXIT_OK, setExitCode } from '../errors';
import { countSeverities, groupByProfile, renderText, summary } from '../util/diagnostics';
import { displayFile, toJsonText } from '../util/files';
import { endpointCount, loadDocument, profileNames } from '../util/document';

interface ValidateOptions {
  format: 'text' | 'json';
  strictAzure?: boolean;
}

/**
 * `tmkit validate FILE`: every problem of a document at once, grouped by profile. Exit 1 on any error,
 * 0 with warnings only. FILE may also hold the JSON Azure prints for profiles (imported first).
 */
export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check a tmkit/v1 document (or Azure ARM JSON for profiles) against every Traffic Manager rule')
    .argument('<file>', 'tmkit/v1 document (e.g. tmkit.out.json) or the JSON Azure prints for profiles; - reads stdin')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--strict-azure', 'also apply Azure-only rules (Azure rejects private, loopback and documentation-range targets)')
    .action((file: string, opts: ValidateOptions, cmd: Command) => {
      const loaded = loadDocument(file);
      const found = validate(loaded.input, { strictAzure: opts.strictAzure === true });
      const diagnostics: Diagnostic[] = [...loaded.importIssues, ...found];
      const names = profileNames(loaded.input);
      const { errors, warnings } = countSeverities(diagnostics);
      const source = loaded.kind === 'tmkit' || loaded.kind === 'unknown' ? 'tmkit/v1' : loaded.kind;
      if (opts.format === 'json') {
        process.stdout.write(
          toJsonText({
            file,
            source,
            valid: errors === 0,
            errors,
            warnings,
            profiles: names.length,
            endpoints: endpointCount(loaded.input),
            diagnostics: groupByProfile(diagnostics, names).flatMap((g) =>
              g.diagnostics.map((d) => ({ ...d, profile: g.profile ?? null })),
            ),
          }),
        );
      } else {
        const shown = displayFile(file);
        const what =
          `${count(names.length, 'profile')}, ${count(endpointCount(loaded.input), 'endpoint')}` +
          `${source === 'tmkit/v1' ? '' : `, imported from ${source}`}`;
        if (diagnostics.length === 0) process.stdout.write(`${shown}: valid (${what})\n`);
        else {
          process.stdout.write(`${shown}: ${errors === 0 ? 'valid with warnings' : 'invalid'}: ${summary(diagnostics)} (${what})\n\n`);
          process.stdout.write(renderText(diagnostics, names));
        }
      }
      setExitCode(cmd, errors > 0 ? EXIT_FAILED : EXIT_OK);
    });
}
