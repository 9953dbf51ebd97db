/** `--server` / `--token` / `--state-dir` and the client they make (docs/cli.md). */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { TmkitClient } from '../../client';
import { CliError } from '../errors';

export interface ServerOptions { server?: string; token?: string; stateDir?: string }

const STATE_DIR_HELP = 'where a local `tmkit serve` keeps its token file (default TMKIT_STATE_DIR, then .tmkit in the working directory)';

/** Adds `--server` / `--token` / `--state-dir` (docs/cli.md). */
export function serverOptions(cmd: Command): Command {
  return cmd
    .option('--server <url>', 'management API (default TMKIT_SERVER, then http://127.0.0.1:5380)')
    .option('--token <token>', 'API token (default TMKIT_TOKEN, then <state-dir>/token for a local server)')
    .option('--state-dir <dir>', STATE_DIR_HELP);
}

/** Only `--state-dir`, for commands that add `--server` and `--token` themselves. */
export function stateDirOption(cmd: Command): Command {
  return cmd.option('--state-dir <dir>', STATE_DIR_HELP);
}

/**
 * The client for the command's options. Without any token (no --token, no TMKIT_TOKEN, no token file)
 * every API call would be refused with 401, so this fails first and says where it looked.
 */
export function clientFor(opts: ServerOptions): TmkitClient {
  const client = new TmkitClient({
    ...(opts.server !== undefined ? { server: opts.server } : {}),
    ...(opts.token !== undefined ? { token: opts.token } : {}),
    ...(opts.stateDir !== undefined ? { stateDir: opts.stateDir } : {}),
  });
  const src = client.tokenSource;
  if (src.origin === 'none') {
    void client.close();
    if (src.loopback && src.file !== undefined) {
      const what = existsSync(src.file) ? `token file ${src.file} is empty` : `token file not found at ${src.file}`;
      throw new CliError(`${what}; pass --token or --state-dir (the --state-dir of \`tmkit serve\`), or set TMKIT_TOKEN`);
    }
    throw new CliError(`no API token for ${client.server}: pass --token or set TMKIT_TOKEN (the token file of a local \`tmkit serve\` is read only for a server on loopback)`);
  }
  return client;
}

/** Turns a client error into a CliError that names the server and carries every diagnostic. */
export function serverFailure(err: unknown): CliError {
  return new CliError(`${(err as Error).message}${(err as { code?: string }).code === 'UNAUTHORIZED' ? ' (set --token or TMKIT_TOKEN)' : ''}`);
}
