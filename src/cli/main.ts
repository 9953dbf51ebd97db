import { Command, CommanderError } from 'commander';
import { packageVersion } from '../package';
import { commands } from './commands';
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE, exitCodeOf } from './errors';

/**
 * Options people type from terraform and other tools, and the tmkit option they mean. Suggested only where
 * the command has that option (`apply -y` → `--yes`; `plan -y` stays a plain unknown option).
 */
const HABITS: Readonly<Record<string, string>> = {
  '-y': '--yes',
  '--auto-approve': '--yes',
  '-auto-approve': '--yes',
  '--approve': '--yes',
};

/**
 * Commander's Command, remembering which (sub)command a usage error came from, so that `run` can print it
 * as one `tmkit: <command>: ...` line with the right did-you-mean and `--help` pointer.
 */
class TmkitCommand extends Command {
  override createCommand(name?: string): Command {
    return new TmkitCommand(name);
  }

  override error(message: string, errorOptions?: { code?: string; exitCode?: number }): never {
    try {
      return super.error(message, errorOptions);
    } catch (err) {
      if (err instanceof CommanderError) usageCommand.set(err, this);
      throw err;
    }
  }
}
const usageCommand = new WeakMap<CommanderError, Command>();

export function buildProgram(): Command {
  const program = new TmkitCommand('tmkit')
    .description('DNS traffic management as code: Azure Traffic Manager semantics, self-hosted')
    .version(packageVersion())
    .exitOverride()
    // Usage errors are printed by `run` as one line (usageLine); commander prints nothing itself.
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s), outputError: () => undefined })
    .configureHelp({
      optionDescription: (o) => withDefault(o.description, o.defaultValue, o.defaultValueDescription, o.argChoices),
      argumentDescription: (a) => withDefault(a.description, a.defaultValue, a.defaultValueDescription, a.argChoices),
    });
  for (const register of commands) register(program);
  return program;
}

/**
 * An option's or argument's help text with its choices and default as a reader wants them: `(choices:
 * text, json; default: text)`, values unquoted, no `default: []` for repeatable options, and no second default
 * when the description already says one (`... (repeatable; default ns1.<zone>)`).
 */
function withDefault(
  description: string,
  value: unknown,
  valueDescription: string | undefined,
  choices: readonly string[] | undefined,
): string {
  const extra: string[] = [];
  if (choices) extra.push(`choices: ${choices.join(', ')}`);
  const shown =
    valueDescription ??
    (value === undefined || typeof value === 'boolean' || (Array.isArray(value) && value.length === 0)
      ? undefined
      : typeof value === 'string'
        ? value
        : JSON.stringify(value));
  if (shown !== undefined && !/(^|[(;,]\s*)default\b/.test(description)) extra.push(`default: ${shown}`);
  return extra.length === 0 ? description : `${description} (${extra.join('; ')})`;
}

/** `endpoint disable` for that subcommand; '' for the program itself. */
function commandPath(cmd: Command | undefined): string {
  const names: string[] = [];
  for (let c = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * A commander usage error as the one line every tmkit usage error is: `tmkit: apply: unknown option '-y';
 * did you mean --yes? (see tmkit apply --help)`.
 */
export function usageLine(err: CommanderError, cmd: Command | undefined): string {
  let text = err.message
    .replace(/^error: /, '')
    .replace(/\s*\n\(Did you mean (.+)\?\)\s*$/, '; did you mean $1?')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\.$/, '');
  const flag = /^unknown option '([^']+)'/.exec(text)?.[1];
  const meant = flag === undefined ? undefined : HABITS[flag];
  if (meant !== undefined && !text.includes('did you mean') && cmd?.options.some((o) => o.long === meant))
    text += `; did you mean ${meant}?`;
  const path = commandPath(cmd);
  return `tmkit: ${path === '' ? '' : `${path}: `}${text} (see \`tmkit ${path === '' ? '' : `${path} `}--help\`)\n`;
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
      process.stderr.write(usageLine(err, usageCommand.get(err)));
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

/** How long a finished command may take to exit by itself (stdout draining) before it is made to. */
const EXIT_GRACE_MS = 5_000;

/**
 * The executable's end: the command's exit code, and an exit once the event loop is empty. A handle left
 * open (a socket a failed start never closed, inside node:cluster or out of it) would otherwise keep a process
 * whose command is over alive — a `tmkit dns --workers 2` on a busy port once waited on such a one — so an
 * unref'd timer exits after EXIT_GRACE_MS; it never delays a process that ends by itself.
 */
export function exitWhenDone(code: number): void {
  process.exitCode = code;
  setTimeout(() => {
    process.stderr.write(
      `tmkit: still running ${EXIT_GRACE_MS / 1000} s after the command ended (a handle was left open); exiting with ${code}\n`,
    );
    process.exit(code);
  }, EXIT_GRACE_MS).unref();
}
