/** `--server` / `--token` and the client they make (design §4). */
import type { Command } from 'commander';
import { TmkitClient } from '../../client';
import { CliError } from '../errors';

export interface ServerOptions { server?: string; token?: string }

/** Adds `--server` / `--token` (design §4). */
export function serverOptions(cmd: Command): Command {
  return cmd
    .option('--server <url>', 'management API (default TMKIT_SERVER, then http://127.0.0.1:5380)')
    .option('--token <token>', 'API token (default TMKIT_TOKEN, then .tmkit/token for a local server)');
}

export function clientFor(opts: ServerOptions): TmkitClient {
  return new TmkitClient({ ...(opts.server !== undefined ? { server: opts.server } : {}), ...(opts.token !== undefined ? { token: opts.token } : {}) });
}

/** Turns a client error into a CliError that names the server and carries every diagnostic. */
export function serverFailure(err: unknown): CliError {
  return new CliError(`${(err as Error).message}${(err as { code?: string }).code === 'UNAUTHORIZED' ? ' (set --token or TMKIT_TOKEN)' : ''}`);
}
