import type { Command } from 'commander';
import { setExitCode } from '../errors';
import { destroyStack, terminalConfirm, type ApplyOptions } from '../util/apply';
import { serverOptions } from '../util/server';
import { whoOption } from '../util/operations';
import { wantColor } from '../util/state';

/**
 * `tmkit destroy [--stack S]`: like `terraform destroy`: plans the removal of every profile of one stack
 * (never another stack's), prints the plan, asks on a terminal (`--yes` skips the question and is required
 * without one), then deletes through the deploy module, parents before the children they nest.
 */
export function registerDestroy(program: Command): void {
  whoOption(
    serverOptions(
      program
        .command('destroy')
        .description(
          'delete every profile of one stack from the server: shows the plan, asks for confirmation, then deletes (like terraform destroy)',
        )
        .option('--stack <name>', 'the stack whose profiles are destroyed', 'default')
        .option('--yes', 'destroy without asking (required when stdin is not a terminal)')
        .option('--detailed-exitcode', 'exit 2 when profiles were destroyed (0 nothing to do, 1 errors)')
        .option('--color', 'colour the plan (default: when stdout is a terminal and NO_COLOR is unset)')
        .option('--no-color', 'never colour'),
    ),
  ).action(async (opts: ApplyOptions & { stack: string }, cmd: Command) => {
    const confirm = terminalConfirm(false);
    const code = await destroyStack(
      opts.stack,
      { ...opts, color: wantColor(opts.color) },
      {
        out: process.stdout,
        err: process.stderr,
        ...(confirm ? { confirm } : {}),
      },
    );
    setExitCode(cmd, code);
  });
}
