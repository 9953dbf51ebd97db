import { join } from 'node:path';
import type { Command } from 'commander';
import { installPulumi } from '../../../providers/pulumi/src/install';
import { packageRoot } from '../../package';
import { registerInstall } from '../util/command';

/**
 * `tmkit pulumi install [--dir DIR]`: puts the provider plugin `pulumi-resource-tmkit` into DIR (docs/ARCHITECTURE.md, "Providers").
 * Offline and repeatable; the last stdout line is the PATH export the Pulumi CLI finds it through.
 */
export function registerPulumi(program: Command): void {
  const pulumi = program.command('pulumi').description('the tmkit Pulumi provider (pulumi-resource-tmkit; SDK: tmkit/pulumi)');
  registerInstall(
    pulumi,
    'install the provider plugin into a directory the Pulumi CLI finds it in (offline)',
    'where the plugin goes',
    '.tmkit/pulumi',
    (dir, version) => {
      const r = installPulumi({ dir, version, entry: join(packageRoot(), 'dist/providers/pulumi/src/main.js') });
      return (
        `tmkit pulumi install: pulumi-resource-tmkit ${version} in ${r.dir}${r.written.length ? '' : ' (unchanged)'}\n` +
        `  plugin    ${r.executable}\n` +
        `  or, instead of PATH, into Pulumi's plugin cache:  ${r.pluginInstall}\n` +
        '  use it:   export the line below (the engine finds the plugin on PATH), then `pulumi up`\n' +
        `${r.exportLine}\n`
      );
    },
  );
}
