/**
 * A tmkit app's project file, `tmkit.json` in the working directory (like cdktf.json): `app` runs the
 * constructs app, `output` is where `tmkit synth` has it write its document. `tmkit init` writes it; `synth`
 * reads it, and `plan`/`apply` without a FILE use the document synth writes (docs/cli.md).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { CliError, EXIT_USAGE } from '../errors';
import { displayFile, readJsonFile } from './files';

/** The project file `tmkit synth` reads from the working directory (like cdktf.json). */
export const CONFIG_FILE = 'tmkit.json';
/** Must match src/constructs/app.ts (the CLI does not load the constructs). */
export const OUTPUT_FILE = 'tmkit.out.json';
export const DEFAULT_OUTDIR = 'tmkit.out';

/** `tmkit.json`: `app` is the shell command that runs the constructs app; `output` its output directory. */
export interface TmkitConfig {
  app?: string;
  output?: string;
}

/** `<cwd>/tmkit.json`, checked (`{}` when there is none). */
export function readConfig(cwd: string): TmkitConfig {
  const file = join(cwd, CONFIG_FILE);
  if (!existsSync(file)) return {};
  const raw = readJsonFile(file, CONFIG_FILE);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new CliError(`${CONFIG_FILE} must hold a JSON object like {"app": "node app.js"}`);
  }
  const c = raw as Record<string, unknown>;
  for (const k of ['app', 'output'] as const) {
    if (c[k] !== undefined && (typeof c[k] !== 'string' || c[k] === ''))
      throw new CliError(`${CONFIG_FILE}: "${k}" must be a non-empty string`);
  }
  return { ...(c.app === undefined ? {} : { app: c.app as string }), ...(c.output === undefined ? {} : { output: c.output as string }) };
}

/**
 * The document `plan` and `apply` use when given no FILE: in a tmkit app (a `tmkit.json` in the working
 * directory), the one `tmkit synth` writes there (`<output>/tmkit.out.json`). Says on stderr which file it
 * is. Outside an app it is a usage error (exit 2); before the first `tmkit synth`, exit 1 saying to run it.
 */
export function synthesizedDocument(command: 'plan' | 'apply', err: { write(s: string): unknown } = process.stderr): string {
  const cwd = process.cwd();
  const verb = command === 'plan' ? 'planning' : 'applying';
  if (!existsSync(join(cwd, CONFIG_FILE))) {
    throw new CliError(
      `${command}: give a ${command === 'plan' ? 'document file or --from-terraform plan.json' : 'plan or document file'}; ` +
        `without one, ${command} uses the document \`tmkit synth\` writes, in a tmkit app (a directory with ${CONFIG_FILE}, see \`tmkit init\`)`,
      EXIT_USAGE,
    );
  }
  const output = readConfig(cwd).output ?? DEFAULT_OUTDIR;
  const file = displayFile(join(isAbsolute(output) ? output : resolve(cwd, output), OUTPUT_FILE), cwd);
  if (!existsSync(file)) {
    throw new CliError(
      `${command}: ${file} does not exist yet: run \`tmkit synth\` first (without a FILE, ${command} uses the document it writes, ` +
        `"output" of ${CONFIG_FILE})`,
    );
  }
  err.write(`tmkit: ${verb} ${file}, the document \`tmkit synth\` writes here (${CONFIG_FILE}); pass a FILE to ${command} another\n`);
  return file;
}
