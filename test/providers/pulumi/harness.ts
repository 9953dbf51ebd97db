/**
 * End-to-end harness: the real Pulumi CLI (built by scripts/install-pulumi.sh) driven through the Automation
 * API with inline programs, a file:// backend in a temp dir, and the provider plugins found through
 * `projectSettings.plugins.providers` (no install step).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { checkedBin } from '../../support/tools';
import { LocalWorkspace, PulumiCommand, type ProjectSettings, type PulumiFn, type Stack } from '@pulumi/pulumi/automation';

export const REPO = join(__dirname, '../../..');
/** The shipped launcher directory of the real plugin. */
export const TMKIT_PLUGIN_DIR = join(REPO, 'providers/pulumi/bin');

/**
 * The Pulumi CLI: PULUMI_CLI, else what `scripts/install-pulumi.sh --check` says is built. Throws (the test
 * fails, never skips) when there is none.
 */
export function findPulumiCli(): string {
  const fromEnv = process.env.PULUMI_CLI;
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new Error(
        `PULUMI_CLI=${fromEnv} does not exist: point it at a pulumi binary, or unset it and run \`bash scripts/install-pulumi.sh\``,
      );
    return fromEnv;
  }
  return join(
    checkedBin('install-pulumi.sh', 'The Pulumi CLI', "the Pulumi provider's end-to-end tests", 'the CLI', '10-15 min', 'PULUMI_CLI'),
    'pulumi',
  );
}

/**
 * The Pulumi YAML language host `pulumi-language-yaml`'s directory (the engine finds the host on PATH):
 * PULUMI_YAML_HOST (the binary), else what `scripts/install-pulumi-yaml.sh --check` says is built. Throws
 * (the test fails, never skips) when there is none.
 */
export function findPulumiYamlHostDir(): string {
  const fromEnv = process.env.PULUMI_YAML_HOST;
  if (fromEnv) {
    if (!existsSync(fromEnv) || basename(fromEnv) !== 'pulumi-language-yaml')
      throw new Error(
        `PULUMI_YAML_HOST=${fromEnv} is not a pulumi-language-yaml binary: point it at one, or unset it and run \`bash scripts/install-pulumi-yaml.sh\``,
      );
    return dirname(fromEnv);
  }
  return checkedBin(
    'install-pulumi-yaml.sh',
    'The Pulumi YAML language host',
    'the Pulumi YAML end-to-end tests',
    'pulumi-language-yaml',
    '1-2 min after the CLI',
    'PULUMI_YAML_HOST',
  );
}

/**
 * `tmkit-pulumi-codegen` (Pulumi's Python, Go and Node.js code generators over a schema), as
 * `scripts/install-pulumi-codegen.sh --check` finds it. Throws (the test fails, never skips) when it is not built.
 */
export function findPulumiCodegen(): string {
  return join(
    checkedBin(
      'install-pulumi-codegen.sh',
      "Pulumi's code generators",
      'the SDK generation test',
      'tmkit-pulumi-codegen',
      '1 min after the CLI',
    ),
    'tmkit-pulumi-codegen',
  );
}

/** Writes a launcher for the test-only `tmkittest` plugin (its TS entry run through swc) into `dir`. */
export function writeThingPlugin(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const launcher = join(dir, 'pulumi-resource-tmkittest');
  const register = require.resolve('@swc-node/register');
  const entry = join(__dirname, 'thing/main.ts');
  writeFileSync(
    launcher,
    `#!/bin/sh\nSWC_NODE_PROJECT=${JSON.stringify(join(REPO, 'tsconfig.json'))} exec ${JSON.stringify(process.execPath)} -r ${JSON.stringify(register)} ${JSON.stringify(entry)} "$@"\n`,
  );
  chmodSync(launcher, 0o755);
}

export interface E2eStack {
  stack: Stack;
  work: string;
  dataFile: string;
}

/**
 * A fresh project and stack in a temp dir, with both plugins wired in and `tmkittest:file` set.
 * `tmkitPlugin: false` leaves the tmkit plugin out of `plugins.providers` (the engine then looks on PATH);
 * `tmkitPluginDir` takes it from another checkout (bench/pulumi.ts --base).
 */
export async function newStack(
  program: PulumiFn,
  opts: { stackName?: string; env?: Record<string, string>; tmkitPlugin?: boolean; tmkitPluginDir?: string } = {},
): Promise<E2eStack> {
  const cli = findPulumiCli();
  const work = mkdtempSync(join(tmpdir(), 'tmkit-pulumi-e2e-'));
  const pluginDir = join(work, 'plugins');
  writeThingPlugin(pluginDir);
  mkdirSync(join(work, 'state'));
  mkdirSync(join(work, 'home'));
  const pulumiCommand = await PulumiCommand.get({ root: dirname(dirname(cli)), skipVersionCheck: false });
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: opts.stackName ?? 'dev', projectName: 'tmkite2e', program },
    {
      pulumiCommand,
      workDir: work,
      // `plugins` is a Pulumi.yaml key the SDK's ProjectSettings type lacks; it is written out as given.
      projectSettings: {
        name: 'tmkite2e',
        runtime: 'nodejs',
        backend: { url: `file://${join(work, 'state')}` },
        plugins: {
          providers: [
            { name: 'tmkittest', path: pluginDir },
            ...(opts.tmkitPlugin === false ? [] : [{ name: 'tmkit', path: opts.tmkitPluginDir ?? TMKIT_PLUGIN_DIR }]),
          ],
        },
      } as ProjectSettings,
      envVars: {
        PULUMI_CONFIG_PASSPHRASE: 'tmkit-e2e-passphrase',
        PULUMI_HOME: join(work, 'home'),
        PULUMI_SKIP_UPDATE_CHECK: 'true',
        PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: 'true',
        ...(opts.env ?? {}),
      },
    },
  );
  const dataFile = join(work, 'things.json');
  await stack.setConfig('tmkittest:file', { value: dataFile });
  return { stack, work, dataFile };
}
