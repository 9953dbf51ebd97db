/**
 * examples/terraform (issue 40 item 7): following its README leaves Terraform's working files next to
 * main.tf (`terraform init` → `.terraform/` and the lock file, `apply` → state, step 5 → `tfplan` and
 * `plan.json`), in from-azurerm/ too. git ignores them all there, and still tracks the example itself.
 */
import { spawnSync } from 'node:child_process';
import { REPO } from '../support/process';

/** The paths of `paths` (relative to the repository) that git ignores, as `git check-ignore` says. */
function ignored(paths: string[]): string[] {
  const r = spawnSync('git', ['check-ignore', '--no-index', '--stdin'], { cwd: REPO, input: paths.join('\n'), encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`git check-ignore failed: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => l !== '');
}

const LEFT_BY_TERRAFORM = [
  '.terraform/providers/registry.terraform.io/tmkit/tmkit/0.1.0/linux_amd64/terraform-provider-tmkit',
  '.terraform/terraform.tfstate',
  '.terraform.lock.hcl',
  '.terraform.tfstate.lock.info',
  'terraform.tfstate',
  'terraform.tfstate.backup',
  'tfplan',
  'plan.json',
  'crash.log',
];

test.each(['examples/terraform', 'examples/terraform/from-azurerm'])('%s: what terraform and tofu leave is ignored', (dir) => {
  const paths = LEFT_BY_TERRAFORM.map((p) => `${dir}/${p}`);
  expect(ignored(paths)).toEqual(paths);
});

test('the example itself stays tracked', () => {
  const tracked = ['examples/terraform/main.tf', 'examples/terraform/README.md', 'examples/terraform/.gitignore'];
  tracked.push('examples/terraform/from-azurerm/main.tf', 'examples/terraform/from-azurerm/azurerm.tf');
  expect(ignored(tracked)).toEqual([]);
});
