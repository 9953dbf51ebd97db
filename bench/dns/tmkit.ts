/** `tmkit` from the TypeScript sources (no build needed); node:cluster re-runs this file in each worker. */
import { run } from '../../src/cli/main';

void run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
