import { Command, CommanderError } from 'commander';
import { packageVersion } from '../package';
import { commands } from './commands';
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE, exitCodeOf } from './errors';

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
    const c = exitCodeOf(action);
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
