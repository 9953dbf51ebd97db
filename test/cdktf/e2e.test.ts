/**
 * examples/cdktf end to end with the real cdktf-cli 0.21 and terraform against a real `tmkit serve`:
 * `cdktf synth`, `diff`, `deploy` (dig answers), a second `diff` with no changes, and `destroy` (NXDOMAIN),
 * offline with --skip-provider-lock. The example runs as a user's project would: `tmkit` and `tmkit/cdktf`
 * resolve to this package's build.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../src/client';
import { dig, runTmkit, spawnServe, type ServeProcess } from '../support/process';
import { cleanEnv, REPO } from '../providers/terraform/helpers';

jest.setTimeout(300_000);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The Node that runs the cdktf CLI itself. cdktf-cli 0.21 loads @cdktf/node-pty-prebuilt-multiarch, whose
 * prebuilt addons stop at Node 21 (ABI 120), and nothing may compile here: on Node 22+ the CLI dies with
 * "Cannot find module '../build/Release/pty.node'". So in .ci/run's Node 24 pass the CLI runs on the
 * machine's Node 20 (TMKIT_NODE20); the app it synthesizes, the provider and tmkit still run on this Node.
 */
function cdktfNode(): string {
  const major = Number(process.versions.node.split('.')[0]);
  if (major <= 21) return process.execPath;
  const old = process.env.TMKIT_NODE20;
  if (!old)
    throw new Error(
      `cdktf-cli 0.21 cannot run on Node ${process.versions.node} (its node-pty prebuilds stop at Node 21): set TMKIT_NODE20 to a Node 20 binary for the CLI`,
    );
  return old;
}

describe('cdktf e2e: examples/cdktf with cdktf synth/diff/deploy/destroy', () => {
  let root: string;
  let project: string;
  let serve: ServeProcess;
  let env: NodeJS.ProcessEnv;
  let client: TmkitClient;

  const cdktf = (...args: string[]): Promise<Run> =>
    new Promise((resolve, reject) => {
      const child = spawn(cdktfNode(), [join(REPO, 'node_modules/cdktf-cli/bundle/bin/cdktf'), ...args], {
        cwd: project,
        env: cleanEnv({ ...env, CHECKPOINT_DISABLE: '1', DISABLE_VERSION_CHECK: '1', CI: '1', FORCE_COLOR: '0', NO_COLOR: '1' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
      });
      child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  const ok = (r: Run): Run => {
    if (r.code !== 0) throw new Error(`cdktf exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    return r;
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'tmkit-cdktf-e2e-'));
    project = join(root, 'project');
    cpSync(join(REPO, 'examples/cdktf'), project, { recursive: true });
    // `tmkit` as an installed package: its build, with the exports a release has ("." and "./cdktf").
    const pkg = join(project, 'node_modules/tmkit');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(
      join(pkg, 'package.json'),
      JSON.stringify({
        name: 'tmkit',
        main: './dist/src/index.js',
        exports: { '.': './dist/src/index.js', './cdktf': './dist/src/cdktf/index.js' },
      }),
    );
    symlinkSync(join(REPO, 'dist'), join(pkg, 'dist'));
    for (const dep of ['cdktf', 'constructs', '@swc-node', '@swc'])
      symlinkSync(join(REPO, 'node_modules', dep), join(project, 'node_modules', dep));
    serve = await spawnServe(join(root, 'state'), ['--zone', 'tm.internal']);
    const token = readFileSync(join(root, 'state', 'token'), 'utf8').trim();
    client = new TmkitClient({ server: serve.api, token, env: {} });
    const inst = await runTmkit(['terraform', 'install', '--dir', join(root, 'inst')]);
    expect(inst.code).toBe(0);
    const rc = /^export TF_CLI_CONFIG_FILE=(.+)$/m.exec(inst.stdout)![1]!;
    env = { TF_CLI_CONFIG_FILE: rc, TMKIT_SERVER: serve.api, TMKIT_TOKEN: token, HOME: root };
  });
  afterAll(async () => {
    await client?.close();
    serve?.child.kill('SIGTERM');
    await serve?.closed;
    rmSync(root, { recursive: true, force: true });
  });

  test('synth writes tmkit_* resources with references', async () => {
    ok(await cdktf('synth'));
    const out = JSON.parse(readFileSync(join(project, 'cdktf.out/stacks/traffic/cdk.tf.json'), 'utf8'));
    expect(Object.keys(out.resource.tmkit_profile).sort()).toEqual(['app', 'app-eu', 'app-us']);
    expect(out.resource.tmkit_nested_endpoint.app_eu).toMatchObject({
      profile_id: '${tmkit_profile.app.id}',
      target_resource_id: '${tmkit_profile.app-eu.id}',
    });
  });

  test('diff, deploy (dig answers), a second diff without changes', async () => {
    const diff = ok(await cdktf('diff', '--skip-provider-lock'));
    expect(diff.stdout).toMatch(/Plan: 9 to add, 0 to change, 0 to destroy/);
    const deploy = ok(await cdktf('deploy', '--skip-provider-lock', '--auto-approve'));
    expect(deploy.stdout).toMatch(/Apply complete! Resources: 9 added, 0 changed, 0 destroyed/);
    expect((await client.listProfiles({ stack: 'terraform' })).profiles.map((p) => p.name).sort()).toEqual(['app', 'app-eu', 'app-us']);
    expect(['192.0.2.11', '192.0.2.12', '198.51.100.21', '198.51.100.22']).toContain((await dig(serve.dns, 'app.tm.internal'))[0]);
    const again = ok(await cdktf('diff', '--skip-provider-lock'));
    expect(again.stdout).toMatch(/No changes/);
  });

  test('destroy removes them: NXDOMAIN', async () => {
    ok(await cdktf('destroy', '--skip-provider-lock', '--auto-approve'));
    expect((await client.listProfiles({ stack: 'terraform' })).profiles).toEqual([]);
    expect(await dig(serve.dns, 'app.tm.internal')).toEqual([]);
  });
});
