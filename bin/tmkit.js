#!/usr/bin/env node
'use strict';
// The `tmkit` command. The TypeScript sources are compiled to dist/ by `npm ci` (the prepare script).
let main;
try {
  main = require('../dist/cli/main.js');
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && /dist[\\/]cli[\\/]main/.test(String(err.message))) {
    process.stderr.write('tmkit: the compiled CLI is missing (dist/). Run `npm run build` in the tmkit package, then retry.\n');
    process.exit(1);
  }
  throw err;
}
main.run(process.argv.slice(2)).then((code) => { process.exitCode = code; });
