import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { installPulumi } from '../../../providers/pulumi/src/install';
import { packageRoot, packageVersion } from '../../package';

/**
 * `tmkit pulumi install [--dir DIR]`: puts the provider plugin `pulumi-resource-tmkit` into DIR (docs/ARCHITECTURE.md, "Providers").
 * Offline and repeatable; the last stdout line is the PATH export the Pulumi CLI finds it through.
 */
export function registerPulumi(program: Command): void {
  const pulumi = program.command('pulumi').description('the tmkit Pulumi provider (pulumi-resource-tmkit; SDK: tmkit/pulumi)');
  pulumi.command('install')
    .description('install the provider plugin into a directory the Pulumi CLI finds it in (offline)')
    .option('--dir <dir>', 'where the plugin goes', '.tmkit/pulumi')
    .action((opts: { dir: string }) => {
      const version = packageVersion();
      const r = installPulumi({ dir: resolve(opts.dir), version, entry: join(packageRoot(), 'dist/providers/pulumi/src/main.js') });
      process.stdout.write(
        `tmkit pulumi install: pulumi-resource-tmkit ${version} in ${r.dir}${r.written.length ? '' : ' (unchanged)'}\n` +
          `  plugin    ${r.executable}\n` +
          `  or, instead of PATH, into Pulumi's plugin cache:  ${r.pluginInstall}\n` +
          '  use it:   export the line below (the engine finds the plugin on PATH), then `pulumi up`\n' +
          `${r.exportLine}\n`,
      );
    });
}
