/** What the traffic-operation commands share (`override`, `drill`, `shift`, `endpoint failback`; docs/operations.md). */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import type { OverrideRecord } from '../../core/api';
import { formatDuration, parseDuration } from '../../core/operations/duration';
import { MAX_OVERRIDE_MS } from '../../core/operations/overrides';
import { TmkitApiError } from '../../client';
import { CliError, EXIT_USAGE } from '../errors';
import { toJsonText } from './files';
import { clientFor, serverFailure, type ServerOptions } from './server';

/**
 * A listing command (`audit`, `drill list`, `override list`): asks the server with a client made and closed
 * here, then prints the answer as JSON (`--json`), or `empty` when it lists nothing, or a line an item.
 * Failures read as operations failures.
 */
export async function printListing<R, T>(
  opts: ServerOptions & { json?: boolean },
  ask: (client: ReturnType<typeof clientFor>) => Promise<R>,
  items: (answer: R) => readonly T[],
  empty: string,
  line: (item: T) => string,
): Promise<void> {
  const client = clientFor(opts);
  try {
    const answer = await ask(client);
    if (opts.json) {
      process.stdout.write(toJsonText(answer));
      return;
    }
    const list = items(answer);
    if (list.length === 0) {
      process.stdout.write(empty);
      return;
    }
    for (const item of list) process.stdout.write(`${line(item)}\n`);
  } catch (err) {
    throw operationsFailure(err);
  } finally {
    await client.close();
  }
}

/** `--who`'s help: what the audit log records without it. */
export const WHO_HELP = 'who is doing this, for the audit log (default: $USER, else the OS account name)';

/**
 * The operator's name when `--who` is not given: `$USER` (`$USERNAME` on Windows), else the OS account
 * (os.userInfo), else `cli`; characters a name may not have (`DOMAIN\\alice`) become `_`, cut to 64.
 */
export function defaultWho(env: NodeJS.ProcessEnv = process.env): string {
  let name = env.USER?.trim() || env.USERNAME?.trim() || '';
  if (name === '') {
    try {
      name = userInfo().username;
    } catch {
      name = '';
    }
  }
  name = name
    .replace(/[^A-Za-z0-9 ._@:/-]/g, '_')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
  return name === '' ? 'cli' : name;
}

/**
 * `--who NAME` (default: the OS user, defaultWho): the name the audit log keeps for this operator. The
 * default is filled in when the command runs (not a commander default, which `--help` would print as this
 * machine's user); clientFor sends it with every write.
 */
export function whoOption(cmd: Command): Command {
  return cmd.option('--who <name>', WHO_HELP).hook('preAction', (_top, action) => {
    if (action.getOptionValue('who') === undefined) action.setOptionValue('who', defaultWho());
  });
}

/** A duration flag's milliseconds; a usage error (exit 2) naming the flag when it is not one. */
export function durationMs(flag: string, text: string, max = MAX_OVERRIDE_MS): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new CliError(`${flag} ${text}: expected a duration such as 90s, 30m, 2h, 1d or 1h30m`, EXIT_USAGE);
  if (ms < 1000 || ms > max) throw new CliError(`${flag} ${text}: expected 1s to ${formatDuration(max)}`, EXIT_USAGE);
  return ms;
}

/** `ov-… down web/primary until 2026-…Z (in 29m) by cli: game day` */
export function overrideLine(o: OverrideRecord, now = Date.now()): string {
  const what = o.kind === 'down' ? 'down' : `weight ${o.weight}`;
  const left = formatDuration(Math.max(0, Date.parse(o.expiresAt) - now));
  return `${o.id}  ${what} ${o.profile}/${o.endpoint} until ${o.expiresAt} (in ${left}) by ${o.who}${o.reason ? `: ${o.reason}` : ''}`;
}

/** An API refusal as the CLI says it: the server's one line (the safety rule, a 404, a 409), exit 1. */
export function operationsFailure(err: unknown): CliError {
  if (err instanceof TmkitApiError && err.status >= 400 && err.status < 500 && err.errors.length > 0) {
    return new CliError(err.errors.map((e) => e.message).join('; '));
  }
  return serverFailure(err);
}

/** Resolves after `ms`, or at once when `stop` fires. */
export function pause(ms: number, stop?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (stop?.aborted) {
      resolve();
      return;
    }
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      stop?.removeEventListener('abort', done);
      resolve();
    }
    stop?.addEventListener('abort', done);
  });
}

/** An AbortSignal that fires on Ctrl-C or SIGTERM (the listeners go with `release`). */
export function interruptSignal(): { signal: AbortSignal; release: () => void } {
  const c = new AbortController();
  const on = (): void => c.abort();
  process.once('SIGINT', on);
  process.once('SIGTERM', on);
  return {
    signal: c.signal,
    release: () => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    },
  };
}
