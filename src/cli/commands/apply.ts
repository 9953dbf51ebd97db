import type { Command } from 'commander';
import { setExitCode } from '../errors';
import { applyFile, terminalConfirm, type ApplyOptions } from '../util/apply';
import { wantColor } from '../util/state';
import { SERVER_HELP, STATE_DIR_HELP } from '../util/server';
import { synthesizedDocument } from '../util/app-config';
import { whoOption } from '../util/operations';

export function registerApply(program: Command): void {
  whoOption(program.command('apply'))
    .description('apply a saved plan (tmkit plan --out), or plan a document against the server and apply it after confirmation')
    .argument(
      '[file]',
      'plan.json from `tmkit plan FILE --out plan.json`, or a tmkit/v1 document; - reads stdin ' +
        '(default, in a tmkit app: what `tmkit synth` writes, tmkit.out/tmkit.out.json)',
    )
    .option('--yes', "apply a document's plan without asking (required when stdin is not a terminal)")
    .option('--detailed-exitcode', 'exit 2 when changes were applied (0 nothing to do, 1 errors)')
    .option('--preview', 'include the routing preview in the printed plan (documents)')
    .option('--server <url>', SERVER_HELP)
    .option('--token <token>', 'API token (default TMKIT_TOKEN, then <state-dir>/token for a local server)')
    .option('--state-dir <dir>', STATE_DIR_HELP)
    .option('--resources <file>', "resource catalog for Azure endpoints (default: the server's)")
    .option('--geoip <file.mmdb>', 'MaxMind-format database for --preview')
    .option('--color', 'colour the plan (default: when stdout is a terminal and NO_COLOR is unset)')
    .option('--no-color', 'never colour')
    .action(async (fileArg: string | undefined, opts: ApplyOptions, cmd: Command) => {
      const file = fileArg ?? synthesizedDocument('apply');
      const confirm = terminalConfirm(file === '-');
      const code = await applyFile(
        file,
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
