/** What several commands are made of: the `--format text|json` option, a client for one command, a provider's `install`. */
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { TmkitClient } from '../../client';
import { packageVersion } from '../../package';
import { clientFor, serverFailure, type ServerOptions } from './server';

/** `--format text|json` (default text). */
export function formatOption(help = 'output format'): Option {
  return new Option('--format <format>', help).choices(['text', 'json']).default('text');
}

/**
 * Runs `fn` with the client for the command's options and closes it after. An error becomes what `failure`
 * makes of it (by default `serverFailure`), made while the client is still open, so it may ask the server.
 */
export async function withClient<T>(
  opts: ServerOptions,
  fn: (client: TmkitClient) => Promise<T>,
  failure: (err: unknown, client: TmkitClient) => Error | Promise<Error> = serverFailure,
): Promise<T> {
  const client = clientFor(opts);
  try {
    return await fn(client);
  } catch (err) {
    throw await failure(err, client);
  } finally {
    await client.close();
  }
}

/** `tmkit <provider> install [--dir DIR]` under `provider`: `run` installs into the resolved DIR and returns what to print. */
export function registerInstall(
  provider: Command,
  description: string,
  dirHelp: string,
  defaultDir: string,
  run: (dir: string, version: string) => string,
): void {
  provider
    .command('install')
    .description(description)
    .option('--dir <dir>', dirHelp, defaultDir)
    .action((opts: { dir: string }) => {
      const version = packageVersion();
      process.stdout.write(run(resolve(opts.dir), version));
    });
}
