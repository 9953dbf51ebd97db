/** Exit codes (docs/cli.md) and the CLI's expected-failure error; every command imports these from here. */
import type { Command } from 'commander';
import { TmkitError } from '../core/diagnostics';

/** 0 ok, 1 invalid input or failed operation, 2 usage (and `--detailed-exitcode` with changes). */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** `plan`/`apply --detailed-exitcode`: there were (or are) changes. */
export const EXIT_CHANGES = 2;

/** Thrown by commands for an expected failure: the message is printed as is, no stack. */
export class CliError extends TmkitError {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILED,
  ) {
    super(exitCode === EXIT_USAGE ? 'USAGE' : 'FAILED', message);
  }
}

/** Lets a command set the exit code without throwing (e.g. `validate` found errors and printed them). */
export function setExitCode(cmd: Command, code: number): void {
  (cmd as Command & { exitCodeValue?: number }).exitCodeValue = code;
}

/** The exit code a command set (undefined: none). */
export function exitCodeOf(cmd: Command): number | undefined {
  return (cmd as Command & { exitCodeValue?: number }).exitCodeValue;
}
