#!/usr/bin/env node
/** The `tmkit` executable (package.json "bin"): runs the CLI and exits with its code. */
import { exitWhenDone, run } from './main';
import { endQuietlyOnClosedPipe } from './util/pipe';

endQuietlyOnClosedPipe();
void run(process.argv.slice(2)).then(exitWhenDone);
