#!/usr/bin/env node
/**
 * package.json `prepare`. npm runs it after `npm ci`, and again when the first `npx tmkit` in a clone links
 * the clone into npx's cache: the build takes 15-60 s, and that second time dist/ was built from the same
 * sources a minute before. So it builds (`npm run build`) only when dist/ is missing or older than a source.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const { readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const SOURCES = ['src', 'providers', 'ui', 'package.json', 'package-lock.json', 'tsconfig.base.json', 'tsconfig.build.json'];
/** One output of each build step: tsc, the Terraform bundle, the dashboard. */
const OUTPUTS = ['dist/src/cli/bin.js', 'dist/providers/terraform/bin/terraform-provider-tmkit.bundle.js', 'dist/ui/index.html'];

function newest(path) {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const e of readdirSync(path)) {
    if (e === 'node_modules' || e === 'dist') continue;
    max = Math.max(max, newest(join(path, e)));
  }
  return max;
}

function built() {
  let oldest = Infinity;
  for (const f of OUTPUTS) {
    try {
      oldest = Math.min(oldest, statSync(join(root, f)).mtimeMs);
    } catch {
      return 0;
    }
  }
  return oldest;
}

const source = Math.max(...SOURCES.map((s) => newest(join(root, s))));
if (built() > source) {
  process.stderr.write('tmkit: dist/ is up to date with the sources; not rebuilding (npm run build does)\n');
} else {
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exitCode = r.status ?? 1;
}
