/**
 * The package's version, read from the package.json above this module. Found by walking up, because the
 * module runs from two depths: `src/` (tests, through swc) and `dist/src/` or `dist/providers/...` (the build).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findVersion(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'tmkit' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here (or not ours): keep walking up
    }
    if (dirname(dir) === dir) throw new Error(`tmkit: no package.json of "tmkit" above ${from}: the installation is incomplete; reinstall the package`);
  }
}

export const VERSION: string = findVersion(__dirname);
