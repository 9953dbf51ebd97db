import type { Command } from 'commander';
import { importArm } from '../../core/model/arm-import';
import { validate } from '../../core/validate';
import { count } from '../../core/words';
import { CliError, EXIT_FAILED, EXIT_OK, setExitCode } from '../errors';
import { countSeverities, renderText, summary } from '../util/diagnostics';
import { displayFile, readJsonFile, toJsonText, writeFileAtomic } from '../util/files';
import { endpointCount, profileNames } from '../util/document';

interface ImportOptions {
  out?: string;
  stack?: string;
}

/**
 * `tmkit import FILE [--out FILE]`: converts the JSON Azure prints for one or more profiles (or an ARM
 * template) into a tmkit/v1 document. The document goes to stdout (or --out); problems go to stderr.
 * Exit 1 when the input holds no profile or something could not be converted faithfully.
 */
export function registerImport(program: Command): void {
  program
    .command('import')
    .description('convert Azure ARM JSON for Traffic Manager profiles (az ... profile show, REST, ARM template) into a tmkit/v1 document')
    .argument('<file>', 'JSON file (- for stdin): one profile, an array of profiles, {"value": [...]} or an ARM template')
    .option('-o, --out <file>', 'write the document to this file instead of stdout')
    .option('--stack <name>', "set the document's stack (who owns these profiles)")
    .action((file: string, opts: ImportOptions, cmd: Command) => {
      const raw = readJsonFile(
        file,
        'input',
        'export a profile with `az network traffic-manager profile show -g <group> -n <name> > profile.json`',
      );
      const { document, issues } = importArm(raw, opts.stack === undefined ? {} : { stack: opts.stack });
      const names = document ? profileNames(document) : [];
      if (issues.length > 0) process.stderr.write(renderText(issues, names));
      if (!document) {
        throw new CliError(
          `nothing imported from ${displayFile(file)}: ${issues.find((i) => i.severity === 'error')?.message ?? 'no profile found'}`,
        );
      }
      const text = toJsonText(document);
      if (opts.out !== undefined) writeFileAtomic(opts.out, text);
      else process.stdout.write(text);

      const target = opts.out === undefined ? 'stdout' : displayFile(opts.out);
      const found = validate(document);
      const { errors } = countSeverities(issues);
      process.stderr.write(
        `tmkit: imported ${count(names.length, 'profile')} (${count(endpointCount(document), 'endpoint')}) to ${target}` +
          `; import: ${summary(issues)}; validation: ${summary(found)}` +
          (found.length > 0 ? ` (see \`tmkit validate ${opts.out === undefined ? '<file>' : displayFile(opts.out)}\`)` : '') +
          '\n',
      );
      if (errors > 0) process.stderr.write('tmkit: the document is incomplete: fix the errors above by hand\n');
      setExitCode(cmd, errors > 0 ? EXIT_FAILED : EXIT_OK);
    });
}
