import type { Command } from 'commander';

/** Every `tmkit` subcommand registers itself here; one module per command under src/cli/commands/. */
export const commands: Array<(program: Command) => void> = [
];
