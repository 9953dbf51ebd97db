import { relative } from 'node:path';
import type { Command } from 'commander';
import { packageVersion } from '../../package';
import { displayFile } from '../util/files';
import { GEO_PACKAGE, packForInstall } from '../util/pack';

/**
 * `tmkit pack [--out DIR]`: from a clone, the two tarballs a project installs tmkit from without a registry
 * (src/cli/util/pack.ts), and the `npm install` line that does it.
 */
export function registerPack(program: Command): void {
  program
    .command('pack')
    .description('from a clone: pack tmkit (its dependencies bundled) and constructs into tarballs a project installs without a registry')
    .option('-o, --out <dir>', 'where the tarballs go', '.')
    .option('--geo', `also pack the geo database (${GEO_PACKAGE}, 15 MB), for a project that runs tmkit serve`)
    .action((opts: { out: string; geo?: boolean }) => {
      const p = packForInstall(opts.out, { geo: opts.geo === true });
      const files = [p.tmkit, p.constructs, ...(p.geo !== undefined ? [p.geo] : [])];
      const shown = (f: string): string => {
        const rel = relative(process.cwd(), f);
        return rel.startsWith('.') || rel.startsWith('/') ? displayFile(f) : `./${rel}`;
      };
      process.stdout.write(
        [
          `Packed tmkit ${packageVersion()} (${(p.bytes / 1e6).toFixed(1)} MB, ${p.files} files, ${p.bundled} ` +
            `dependencies bundled), its peer constructs${p.geo !== undefined ? ' and the geo database' : ''}:`,
          ...files.map((f) => `  ${shown(f)}`),
          'Install them in a project (no registry needed):',
          `  npm install --save-dev ${files.map(shown).join(' ')}`,
          '',
        ].join('\n'),
      );
    });
}
