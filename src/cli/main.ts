import { Command, CommanderError } from 'commander';
import { TmkitError } from '../core/diagnostics';
import { commands } from './commands';
import { packageVersion } from '../package';

/** Exit codes (design §4): 0 ok, 1 invalid input or failed operation, 2 usage. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** Thrown by commands for an expected failure: the message is printed as is, no stack. */
export class CliError extends TmkitError {
  constructor(message: string, readonly exitCode: number = EXIT_FAILED) {
    super(exitCode === EXIT_USAGE ? 'USAGE' : 'FAILED', message);
  }
}

export function buildProgram(): Command {
  const program = new Command('tmkit')
    .description('DNS traffic management as code: Azure Traffic Manager semantics, self-hosted')
    .version(packageVersion())
    .showHelpAfterError('(run `tmkit --help` or `tmkit <command> --help` for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });
  for (const register of commands) register(program);
  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  let code = EXIT_OK;
  program.hook('postAction', (_this, action) => {
    const c = (action as Command & { exitCodeValue?: number }).exitCodeValue;
    if (typeof c === 'number') code = c;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT_OK;
      return EXIT_USAGE;
    }
    if (err instanceof CliError) {
      process.stderr.write(`tmkit: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`tmkit: unexpected error: ${(err as Error)?.stack ?? String(err)}\n`);
    return EXIT_FAILED;
  }
}

/** Lets a command set the exit code without throwing (e.g. `validate` found errors and printed them). */
export function setExitCode(cmd: Command, code: number): void {
  (cmd as Command & { exitCodeValue?: number }).exitCodeValue = code;
}
