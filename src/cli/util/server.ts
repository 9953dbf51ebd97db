/** `--server` / `--token` / `--state-dir` and the client they make (docs/cli.md). */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { DEFAULT_SERVER, DEFAULT_STATE_DIR, TmkitApiError, TmkitClient } from '../../client';
import { closestValue } from '../../core/validate/util';
import { CliError, EXIT_USAGE } from '../errors';
import { serverFromStateDir } from './server-file';

export interface ServerOptions {
  server?: string;
  token?: string;
  stateDir?: string;
  /** `--who` (util/operations.ts whoOption): sent with every write for the server's audit log. */
  who?: string;
}

/** `--server`'s help, for every command that has the option. */
export const SERVER_HELP =
  'management API URL, http:// or https:// (default TMKIT_SERVER, then the loopback URL a running `tmkit serve` ' +
  'wrote in <state-dir>/server.json, then http://127.0.0.1:5380)';

/** `--state-dir`'s help, for every command that has the option. */
export const STATE_DIR_HELP =
  'where a local `tmkit serve` keeps its token file and server.json (default TMKIT_STATE_DIR, then .tmkit in the working directory)';

/** Adds `--server` / `--token` / `--state-dir` (docs/cli.md). */
export function serverOptions(cmd: Command): Command {
  return cmd
    .option('--server <url>', SERVER_HELP)
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
  const server = resolveServer(opts);
  const client = new TmkitClient({
    server: server.url,
    ...(server.file !== undefined ? { serverSetting: `--server or TMKIT_SERVER (${server.url} is from ${server.file})` } : {}),
    ...(opts.token !== undefined ? { token: opts.token } : {}),
    ...(opts.stateDir !== undefined ? { stateDir: opts.stateDir } : {}),
    ...(typeof opts.who === 'string' ? { who: opts.who } : {}),
  });
  const src = client.tokenSource;
  if (src.origin === 'none') {
    void client.close();
    if (src.loopback && src.file !== undefined) {
      const what = existsSync(src.file) ? `token file ${src.file} is empty` : `token file not found at ${src.file}`;
      throw new CliError(`${what}; pass --token or --state-dir (the --state-dir of \`tmkit serve\`), or set TMKIT_TOKEN`);
    }
    throw new CliError(
      `no API token for ${client.server}: pass --token or set TMKIT_TOKEN (the token file of a local \`tmkit serve\` is read only for a server on loopback)`,
    );
  }
  return client;
}

/**
 * The server a command talks to (docs/cli.md): `--server`, else `TMKIT_SERVER`, else the loopback URL a
 * running `tmkit serve` wrote in the state dir (`--state-dir`, else TMKIT_STATE_DIR, else .tmkit: the dir
 * the token file is read from), else the default. `file`: the server.json the URL came from. A server.json
 * that is not taken (not tmkit's, or a URL that is not loopback) is named in a note on stderr.
 */
export function resolveServer(
  opts: Pick<ServerOptions, 'server' | 'stateDir'>,
  env: NodeJS.ProcessEnv = process.env,
  err: { write(s: string): unknown } = process.stderr,
): { url: string; file?: string } {
  const url = serverUrl(opts.server, env);
  if (opts.server !== undefined || (env.TMKIT_SERVER?.trim() || undefined) !== undefined) return { url };
  const found = serverFromStateDir(opts.stateDir ?? (env.TMKIT_STATE_DIR || undefined) ?? DEFAULT_STATE_DIR);
  if (found.url !== undefined) return { url: found.url, file: found.file };
  if (found.ignored !== undefined)
    err.write(`tmkit: ignoring ${found.file}: ${found.ignored}; using ${url} (pass --server or set TMKIT_SERVER)\n`);
  return { url };
}

/**
 * The management API's base URL from `--server`, else `TMKIT_SERVER` (an empty one counts as unset), else
 * the default (resolveServer puts the state dir's server.json before the default). A value that is not an
 * http(s) URL with a port from 1 to 65535 is a usage error (exit 2), one line naming where it came from and,
 * for `host:port`, the URL to write instead: tmkit does not guess the scheme, not even for loopback
 * (docs/cli.md).
 */
export function serverUrl(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const envValue = env.TMKIT_SERVER?.trim() || undefined;
  const raw = option ?? envValue;
  if (raw === undefined) return DEFAULT_SERVER;
  const where = option !== undefined ? `--server ${raw}` : `TMKIT_SERVER=${raw}`;
  const fail = (why: string): never => {
    throw new CliError(`${where}: ${why}`, EXIT_USAGE);
  };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1];
  if (scheme === undefined) {
    return fail(
      /^[^\s/:]+:\d+(\/.*)?$|^\[[^\]]+\]:\d+(\/.*)?$|^[^\s/:]+$/.test(raw)
        ? `not a URL; write http://${raw}`
        : 'not a URL; write e.g. http://127.0.0.1:5380',
    );
  }
  if (!/^https?$/i.test(scheme)) fail(`the scheme must be http:// or https://, not ${scheme}://`);
  const port = /^[a-z]+:\/\/(?:\[[^\]]*\]|[^/?#:]*)(?::([^/?#]*))?/i.exec(raw)?.[1];
  if (port !== undefined && (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535))
    fail(`port ${port === '' ? '(empty)' : port} is not a number from 1 to 65535`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('not a URL; write e.g. http://127.0.0.1:5380');
  }
  if (url.hostname === '') fail('the URL has no host');
  return raw;
}

/** Turns a client error into a CliError that names the server and carries every diagnostic. */
export function serverFailure(err: unknown): CliError {
  return new CliError(
    `${(err as Error).message}${(err as { code?: string }).code === 'UNAUTHORIZED' ? ' (set --token or TMKIT_TOKEN)' : ''}`,
  );
}

/** True for the API's 404: no such profile, or no such endpoint in it. */
export function isNotFound(err: unknown): boolean {
  return err instanceof TmkitApiError && err.status === 404;
}

/** `; did you mean web?` when one of `names` is close to `name`, else ''. */
function didYouMean(name: string, names: readonly string[]): string {
  const prefixed = names.filter((n) => n.toLowerCase().startsWith(name.toLowerCase()));
  const near = closestValue(name, names) ?? (prefixed.length === 1 ? prefixed[0] : undefined);
  return near === undefined || near === name ? '' : `; did you mean ${near}?`;
}

/**
 * The one not-found message every command prints (`status`, `get`, `endpoint`): `profile wbe does not exist
 * on URL; did you mean web? (...)`, or for an endpoint `profile web has no endpoint prim on URL; did you mean
 * primary? (...)`. It asks the server for the names to suggest; when that fails too, it says the same without.
 */
export async function notFoundError(client: TmkitClient, profile: string, endpoint?: string): Promise<CliError> {
  const profiles = await client.listProfileSummaries().then(
    (r) => r.profiles.map((p) => p.name),
    () => undefined,
  );
  const existing = profiles?.find((p) => p.toLowerCase() === profile.toLowerCase());
  if (endpoint === undefined || (profiles !== undefined && existing === undefined)) {
    return new CliError(
      `profile ${profile} does not exist on ${client.server}${didYouMean(profile, profiles ?? [])} (\`tmkit list\` shows the deployed profiles)`,
    );
  }
  const endpoints = await client.getProfile(existing ?? profile).then(
    (e) => e.profile.endpoints.map((x) => x.name),
    () => undefined,
  );
  const has = endpoints === undefined ? '' : endpoints.length === 0 ? 'it has no endpoints; ' : `it has ${endpoints.join(', ')}; `;
  return new CliError(
    `profile ${existing ?? profile} has no endpoint ${endpoint} on ` +
      `${client.server}${didYouMean(endpoint, endpoints ?? [])} (${has}\`tmkit get ${existing ?? profile}\` shows them)`,
  );
}
