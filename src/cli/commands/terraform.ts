import { join } from 'node:path';
import type { Command } from 'commander';
import { install } from '../../../providers/terraform/src/install';
import { packageRoot } from '../../package';
import { registerInstall } from '../util/command';

/**
 * `tmkit terraform install [--dir DIR]`: lays out the provider as a local filesystem mirror, for terraform
 * (registry.terraform.io/tmkit/tmkit) and OpenTofu (registry.opentofu.org/tmkit/tmkit) alike, and writes
 * DIR/terraformrc (providers/terraform/src/install.ts). Offline and repeatable; the last stdout line is the
 * TF_CLI_CONFIG_FILE export, which both CLIs read.
 */
export function registerTerraform(program: Command): void {
  const tf = program.command('terraform').description('the tmkit Terraform/OpenTofu provider (tmkit/tmkit)');
  registerInstall(
    tf,
    'install the provider into a local filesystem mirror and write a CLI configuration that terraform and tofu use',
    'where the mirror and terraformrc go',
    '.tmkit/terraform',
    (dir, version) => {
      const entry = join(packageRoot(), 'dist/providers/terraform/bin/terraform-provider-tmkit.js');
      const r = install({ dir, version, entry });
      return (
        `tmkit terraform install: ${r.sources.join(' and ')} ${version} in ${r.mirror}${r.written.length ? '' : ' (unchanged)'}\n` +
        `  provider  ${r.executable}\n  config    ${r.cliConfig}\n` +
        '  use it:   export the line below, then `terraform init` (or `tofu init`) in your configuration\n' +
        `${r.exportLine}\n`
      );
    },
  );
}
