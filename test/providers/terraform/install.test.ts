/**
 * The install layout: an unpacked filesystem mirror with a byte-stable wrapper, and a terraformrc; the
 * `tmkit terraform install` command prints the export last. (The e2e test installs the test provider
 * the same way and runs terraform on it.)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { install, terraformPlatform } from '../../../providers/terraform/src/install';
import { tmkit } from '../../cli/run';
import { REPO, TEST_PROVIDER, TMKIT_PROVIDER, cleanEnv } from './helpers';

describe('install', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tmkit-install-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('mirror layout, an executable wrapper with absolute node and entry, and the CLI configuration', () => {
    const r = install({ dir, version: '1.2.3', entry: TMKIT_PROVIDER });
    const platform = terraformPlatform();
    expect(r.executable).toBe(join(dir, 'mirror/registry.terraform.io/tmkit/tmkit/1.2.3', platform, 'terraform-provider-tmkit_v1.2.3'));
    expect(statSync(r.executable).mode & 0o777).toBe(0o755);
    expect(readFileSync(r.executable, 'utf8')).toBe(
      `#!/bin/sh\n# terraform-provider-tmkit 1.2.3: runs the provider's JS with the Node.js that installed it.\nexec '${process.execPath}' '${TMKIT_PROVIDER}' "$@"\n`,
    );
    // The same wrapper under OpenTofu's registry host, so `tofu init` finds it too (same bytes, same hash).
    const tofu = join(dir, 'mirror/registry.opentofu.org/tmkit/tmkit/1.2.3', platform, 'terraform-provider-tmkit_v1.2.3');
    expect(readFileSync(tofu, 'utf8')).toBe(readFileSync(r.executable, 'utf8'));
    expect(statSync(tofu).mode & 0o777).toBe(0o755);
    expect(r.sources).toEqual(['registry.terraform.io/tmkit/tmkit', 'registry.opentofu.org/tmkit/tmkit']);
    const rc = readFileSync(r.cliConfig, 'utf8');
    expect(rc).toContain(
      `filesystem_mirror {\n    path    = "${join(dir, 'mirror')}"\n    include = ["registry.opentofu.org/tmkit/tmkit", "registry.terraform.io/tmkit/tmkit"]\n  }`,
    );
    expect(rc).toContain('direct {\n    exclude = ["registry.opentofu.org/tmkit/tmkit", "registry.terraform.io/tmkit/tmkit"]\n  }');
    expect(r.exportLine).toBe(`export TF_CLI_CONFIG_FILE=${join(dir, 'terraformrc')}`);
  });

  test('the wrapper really starts the provider (no cookie: it says it is a plugin and exits 1)', () => {
    const r = install({ dir, version: '0.0.1', type: 'tmkittest', entry: TEST_PROVIDER });
    let err: { status: number; stderr: string } | undefined;
    try {
      execFileSync(r.executable, [], { env: cleanEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      err = e as { status: number; stderr: string };
    }
    expect(err?.status).toBe(1);
    expect(err?.stderr).toMatch(/terraform-provider-tmkittest is a Terraform provider plugin/);
  });

  test('reinstall: identical bytes, nothing rewritten; two providers in one dir are both in the configuration', () => {
    const a = install({ dir, version: '1.0.0', entry: TMKIT_PROVIDER });
    const before = readFileSync(a.executable);
    const again = install({ dir, version: '1.0.0', entry: TMKIT_PROVIDER });
    expect(again.written).toEqual([]);
    expect(readFileSync(again.executable).equals(before)).toBe(true);
    install({ dir, version: '1.0.0', type: 'tmkittest', entry: TEST_PROVIDER });
    const rc = readFileSync(a.cliConfig, 'utf8');
    expect(rc).toContain(
      'include = ["registry.opentofu.org/tmkit/tmkit", "registry.opentofu.org/tmkit/tmkittest", "registry.terraform.io/tmkit/tmkit", "registry.terraform.io/tmkit/tmkittest"]',
    );
  });

  test('bad input: a non-semantic version, or an entry that does not exist, is refused with what to do', () => {
    expect(() => install({ dir, version: 'latest', entry: TMKIT_PROVIDER })).toThrow(/version "latest" is not a semantic version/);
    expect(() => install({ dir, version: '1.0.0', entry: join(dir, 'nope.js') })).toThrow(/does not exist; build the package first/);
  });

  test('tmkit terraform install --dir: installs tmkit/tmkit <package version>, last stdout line is the export', async () => {
    const r = await tmkit(['terraform', 'install', '--dir', dir], { baseEnv: cleanEnv() });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[lines.length - 1]).toBe(`export TF_CLI_CONFIG_FILE=${join(dir, 'terraformrc')}`);
    const version = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version as string;
    const exe = join(dir, 'mirror/registry.terraform.io/tmkit/tmkit', version, terraformPlatform(), `terraform-provider-tmkit_v${version}`);
    expect(readFileSync(exe, 'utf8')).toContain(`'${TMKIT_PROVIDER}'`);
    const again = await tmkit(['terraform', 'install', '--dir', dir], { baseEnv: cleanEnv() });
    expect(again.stdout).toContain('(unchanged)');
  });
});
