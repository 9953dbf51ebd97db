/**
 * The end-to-end suite of the CDK examples (test/cdktf/e2e.test.ts, test/cdktn/e2e.test.ts): examples/<name>
 * with the real CLI (cdktf-cli 0.21 or cdktn-cli 0.24) and terraform against a real `tmkit serve`: `synth`,
 * `diff`, `deploy` (dig answers), a second `diff` with no changes, and `destroy` (NXDOMAIN), offline with
 * --skip-provider-lock. The example runs as a user's project would: `tmkit` and `tmkit/<name>` resolve to this
 * package's build (dist/: `npm run build` first).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../src/client';
import { REPO, type TfResult, terraform } from '../providers/terraform/helpers';
import { dig, runTmkit, spawnServe, type ServeProcess } from './process';

export interface CdkCli {
  /** The library and the example's name: `cdktf` or `cdktn` (examples/<name>, `tmkit/<name>`). */
  readonly name: 'cdktf' | 'cdktn';
  /** The CLI's script, from the repository's root. */
  readonly script: string;
  /** The Node that runs the CLI (which Node it needs, and where else to find one, or an error saying how). */
  node(): string;
}

export function cdkE2eSuite(cli: CdkCli): void {
  jest.setTimeout(300_000);

  describe(`${cli.name} e2e: examples/${cli.name} with ${cli.name} synth/diff/deploy/destroy`, () => {
    let root: string;
    let project: string;
    let serve: ServeProcess;
    let env: NodeJS.ProcessEnv;
    let client: TmkitClient;

    /** The CLI in the project, on its Node (spawned as terraform is: the same environment, nothing of this one's TF_*). */
    const run = (...args: string[]): Promise<TfResult> =>
      terraform(
        [join(REPO, cli.script), ...args],
        project,
        { ...env, DISABLE_VERSION_CHECK: '1', CI: '1', FORCE_COLOR: '0', NO_COLOR: '1' },
        cli.node(),
      );
    const ok = (r: TfResult): TfResult => {
      if (r.code !== 0) throw new Error(`${cli.name} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      return r;
    };

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), `tmkit-${cli.name}-e2e-`));
      project = join(root, 'project');
      cpSync(join(REPO, 'examples', cli.name), project, { recursive: true });
      // `tmkit` as an installed package: its build, with the exports a release has ("." and "./<name>").
      const pkg = join(project, 'node_modules/tmkit');
      mkdirSync(pkg, { recursive: true });
      writeFileSync(
        join(pkg, 'package.json'),
        JSON.stringify({
          name: 'tmkit',
          main: './dist/src/index.js',
          exports: { '.': './dist/src/index.js', [`./${cli.name}`]: `./dist/src/${cli.name}/index.js` },
        }),
      );
      symlinkSync(join(REPO, 'dist'), join(pkg, 'dist'));
      for (const dep of [cli.name, 'constructs', '@swc-node', '@swc'])
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
      ok(await run('synth'));
      const out = JSON.parse(readFileSync(join(project, 'cdktf.out/stacks/traffic/cdk.tf.json'), 'utf8'));
      expect(Object.keys(out.resource.tmkit_profile).sort()).toEqual(['app', 'app-eu', 'app-us']);
      expect(out.resource.tmkit_nested_endpoint.app_eu).toMatchObject({
        profile_id: '${tmkit_profile.app.id}',
        target_resource_id: '${tmkit_profile.app-eu.id}',
      });
    });

    test('diff, deploy (dig answers), a second diff without changes', async () => {
      const diff = ok(await run('diff', '--skip-provider-lock'));
      expect(diff.stdout).toMatch(/Plan: 9 to add, 0 to change, 0 to destroy/);
      const deploy = ok(await run('deploy', '--skip-provider-lock', '--auto-approve'));
      expect(deploy.stdout).toMatch(/Apply complete! Resources: 9 added, 0 changed, 0 destroyed/);
      expect((await client.listProfiles({ stack: 'terraform' })).profiles.map((p) => p.name).sort()).toEqual(['app', 'app-eu', 'app-us']);
      expect(['192.0.2.11', '192.0.2.12', '198.51.100.21', '198.51.100.22']).toContain((await dig(serve.dns, 'app.tm.internal'))[0]);
      const again = ok(await run('diff', '--skip-provider-lock'));
      expect(again.stdout).toMatch(/No changes/);
    });

    test('destroy removes them: NXDOMAIN', async () => {
      ok(await run('destroy', '--skip-provider-lock', '--auto-approve'));
      expect((await client.listProfiles({ stack: 'terraform' })).profiles).toEqual([]);
      expect(await dig(serve.dns, 'app.tm.internal')).toEqual([]);
    });
  });
}
