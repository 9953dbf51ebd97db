/**
 * Where the tmkit package is installed and its version. The compiled code lives in dist/src/... and
 * dist/providers/..., the sources in src/... and providers/... (tests run them directly), so the package
 * root is found by walking up to the package.json named "tmkit" rather than by a fixed relative path.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

let cached: { root: string; version: string } | undefined;

function find(): { root: string; version: string } {
  if (cached) return cached;
  let dir = __dirname;
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'tmkit' && typeof pkg.version === 'string') return (cached = { root: dir, version: pkg.version });
    } catch {
      // no package.json here: keep walking up
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`tmkit: cannot find the tmkit package.json above ${__dirname}; reinstall the package`);
    dir = up;
  }
}

/** Absolute path of the installed tmkit package (the directory holding its package.json). */
export function packageRoot(): string {
  return find().root;
}

/** The tmkit package version (package.json "version"). */
export function packageVersion(): string {
  return find().version;
}
