import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { validate } from '../../core/validate';
import { count } from '../../core/words';
import { CliError, EXIT_FAILED, EXIT_OK, setExitCode } from '../errors';
import { countSeverities, renderText, summary } from '../util/diagnostics';
import { displayFile, readJsonFile } from '../util/files';
import { endpointCount, profileNames } from '../util/document';
import { CONFIG_FILE, DEFAULT_OUTDIR, OUTPUT_FILE, readConfig } from '../util/app-config';

interface SynthOptions {
  output?: string;
  strictAzure?: boolean;
}

function mtime(file: string): bigint | undefined {
  try {
    return statSync(file, { bigint: true }).mtimeNs;
  } catch {
    return undefined;
  }
}

/**
 * An `app` that is one file name (`main.ts`, `app.js`): tmkit runs it itself with node and its own
 * TypeScript loader (src/cli/run-app.ts), so the project needs nothing but tmkit. Anything else is a shell
 * command (`node dist/main.js`, `npx ts-node main.ts`), as in cdktf.json.
 */
export const APP_FILE = /^[^\s'"`;&|<>$]+\.(?:ts|mts|cts|js|mjs|cjs)$/;

/** Runs the app (a file, or a shell command) with TMKIT_OUTDIR set; its stdout and stderr both go to our stderr. */
function runApp(command: string, cwd: string, outdir: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolvePromise, reject) => {
    const env = { ...process.env, TMKIT_OUTDIR: outdir };
    const file = command.trim();
    const child = APP_FILE.test(file)
      ? spawn(process.execPath, [join(__dirname, '..', 'run-app.js'), file], { cwd, stdio: ['ignore', 2, 2], env })
      : spawn(command, { cwd, shell: true, stdio: ['ignore', 2, 2], env });
    child.on('error', (err) => reject(new CliError(`cannot start the app command \`${command}\`: ${err.message}`)));
    child.on('close', (code, signal) => resolvePromise({ code, signal }));
  });
}

/**
 * `tmkit synth [APP]`: runs the constructs app (the `app` command of tmkit.json, or APP) with
 * TMKIT_OUTDIR set, then validates the document it wrote and prints its path on stdout. Progress and
 * diagnostics go to stderr. Exit 1 when the app fails, writes nothing, or the document has errors.
 */
export function registerSynth(program: Command): void {
  program
    .command('synth')
    .description(`run the constructs app (command from ${CONFIG_FILE} "app", like cdktf) and validate the document it writes`)
    .argument(
      '[app]',
      `the app: a .ts/.js file tmkit runs itself (TypeScript included), or a shell command (default: "app" from ./${CONFIG_FILE})`,
    )
    .option('-o, --output <dir>', `output directory (default: "output" from ${CONFIG_FILE}, else ${DEFAULT_OUTDIR})`)
    .option('--strict-azure', 'also apply Azure-only rules when validating the result')
    .action(async (appArg: string | undefined, opts: SynthOptions, cmd: Command) => {
      const cwd = process.cwd();
      const config = readConfig(cwd);
      const app = appArg ?? config.app;
      if (app === undefined || app.trim() === '') {
        throw new CliError(
          `no app to run: ${existsSync(join(cwd, CONFIG_FILE)) ? `${CONFIG_FILE} has no "app"` : `no ${CONFIG_FILE} in ${cwd}`}. ` +
            `Run \`tmkit init\` to scaffold an app, create ${CONFIG_FILE} with {"app": "main.ts"}, or pass the app: tmkit synth main.ts`,
        );
      }
      if (APP_FILE.test(app.trim()) && !existsSync(resolve(cwd, app.trim()))) {
        throw new CliError(
          `the app file ${app.trim()} does not exist in ${cwd} (${appArg !== undefined ? 'the APP argument' : `"app" in ${CONFIG_FILE}`}); ` +
            "pass the app's entry file, e.g. `tmkit synth main.ts`, or run `tmkit init` to scaffold one",
        );
      }
      const outdir = resolve(cwd, opts.output ?? config.output ?? DEFAULT_OUTDIR);
      const file = join(outdir, OUTPUT_FILE);
      const before = mtime(file);
      process.stderr.write(`tmkit: running \`${app}\` (TMKIT_OUTDIR=${displayFile(outdir)})\n`);
      const { code, signal } = await runApp(app, cwd, outdir);
      if (code !== 0) {
        throw new CliError(
          `the app command \`${app}\` failed (${signal ? `killed by ${signal}` : `exit code ${code}`}); its output is above`,
        );
      }
      const after = mtime(file);
      if (after === undefined || after === before) {
        throw new CliError(
          `the app ran but did not write ${displayFile(file)}: make sure it calls app.synth() and leaves App's outdir unset ` +
            '(tmkit synth passes the directory in TMKIT_OUTDIR)',
        );
      }
      const document = readJsonFile(file, 'document');
      const diagnostics = validate(document, { strictAzure: opts.strictAzure === true });
      const names = profileNames(document);
      if (diagnostics.length > 0) process.stderr.write(renderText(diagnostics, names));
      const { errors } = countSeverities(diagnostics);
      process.stderr.write(
        `tmkit: ${displayFile(file)}: ${count(names.length, 'profile')}, ${count(endpointCount(document), 'endpoint')}; ${summary(diagnostics)}\n`,
      );
      process.stdout.write(`${displayFile(file)}\n`);
      setExitCode(cmd, errors > 0 ? EXIT_FAILED : EXIT_OK);
    });
}
