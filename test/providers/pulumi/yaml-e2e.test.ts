/**
 * Pulumi YAML end to end: the example program examples/pulumi-yaml (`runtime: yaml`, a Priority
 * `tmkit:index:Profile` and two `tmkit:index:Endpoint`s) through the real `pulumi preview`, `up` and
 * `destroy` commands, run by the real YAML language host (`pulumi-language-yaml`, built from its Go module
 * by scripts/install-pulumi-yaml.sh) against a real `tmkit serve`, with real HTTP health endpoints on
 * 127.0.0.x and `dig`. The plugin is installed as a user installs it (`tmkit pulumi install`, found on
 * PATH); state is a file:// backend with a passphrase. The steps share one stack and run in order. Fails
 * (never skips) when the CLI or the host is missing (harness).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TmkitClient } from '../../../src/client';
import { installPulumi } from '../../../providers/pulumi/src/install';
import { healthServerPair, queryUdp } from '../../support/loopback';
import { dig, spawnServe, type ServeProcess } from '../../support/process';
import { waitFor } from '../../support/wait';
import { REPO, findPulumiCli, findPulumiYamlHostDir } from './harness';

jest.setTimeout(240_000);

const TOKEN = 'e2e-pulumi-yaml-t0ken-51c2';
const ZONE = 'tm.internal';
const PRIMARY = '127.0.0.51';
const SECONDARY = '127.0.0.52';
const EXAMPLE = join(REPO, 'examples/pulumi-yaml');

type Health = Awaited<ReturnType<typeof healthServerPair>>[number];
let health: Health[] = [];
let serve: ServeProcess;
let client: TmkitClient;
let work: string;
let project: string;
let env: NodeJS.ProcessEnv;
let pluginExe: string;
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `pulumi` in the project directory; resolves with its exit code and output (never rejects on exit codes). */
function pulumi(args: string[], opts: { cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      findPulumiCli(),
      [...args, '--non-interactive'],
      { cwd: opts.cwd ?? project, env, maxBuffer: 64 * 1024 * 1024, timeout: 200_000 },
      (err, stdout, stderr) => {
        if (err && typeof (err as { code?: unknown }).code !== 'number') return reject(err);
        resolve({ code: err ? Number((err as { code: number }).code) : 0, stdout, stderr });
      },
    );
  });
}

/** `pulumi ARGS` that must succeed; a failure shows its whole output. */
async function ok(args: string[]): Promise<string> {
  const r = await pulumi(args);
  if (r.code !== 0) throw new Error(`pulumi ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

interface PreviewJson {
  steps: Array<{
    op: string;
    urn: string;
    detailedDiff?: Record<string, { kind: string; inputDiff?: boolean }> | null;
    diffReasons?: string[];
  }>;
  changeSummary: Record<string, number>;
}

async function preview(...extra: string[]): Promise<PreviewJson> {
  return JSON.parse(await ok(['preview', '--json', ...extra])) as PreviewJson;
}

/** The tmkit resource steps of a preview (its changes), as `op name` (e.g. `update primary`). */
const tmkitSteps = (p: PreviewJson): string[] =>
  p.steps
    .filter((s) => s.urn.includes('::tmkit:index:'))
    .map((s) => `${s.op} ${s.urn.split('::').pop()}`)
    .sort();

/** What the last update did, from `pulumi stack history`. */
async function lastUpdate(): Promise<{ kind: string; result: string; resourceChanges: Record<string, number> }> {
  const history = JSON.parse(await ok(['stack', 'history', '--json', '--show-secrets=false'])) as Array<{
    kind: string;
    result: string;
    resourceChanges: Record<string, number>;
  }>;
  return history[0]!;
}

/**
 * What `dig` answers for web once DNS has followed the write `pulumi` was answered for (milliseconds after
 * the API's answer; at most 5 s here). A mismatch fails with the last answer.
 */
async function webAnswers(expected: string[]): Promise<void> {
  let last: string[] = [];
  try {
    await waitFor(
      async () => {
        last = await dig(serve.dns, `web.${ZONE}`);
        return JSON.stringify(last) === JSON.stringify(expected);
      },
      { what: `web.${ZONE} to answer ${expected.join(', ') || 'nothing'}`, timeoutMs: 5000 },
    );
  } catch {
    expect(last).toEqual(expected);
  }
}

async function pulumiProfiles(): Promise<string[]> {
  return (await client.listProfiles({ stack: 'pulumi' })).profiles.map((p) => p.name).sort();
}

beforeAll(async () => {
  const cli = findPulumiCli();
  const yamlHost = findPulumiYamlHostDir();
  work = mkdtempSync(join(tmpdir(), 'tmkit-pulumi-yaml-'));
  health = await healthServerPair(PRIMARY, SECONDARY);
  serve = await spawnServe(join(work, 'serve'), ['--zone', ZONE], { TMKIT_TOKEN: TOKEN });
  client = new TmkitClient({ server: serve.api, token: TOKEN, env: {} });

  // The plugin as a user installs it: `tmkit pulumi install` (the same function), found on PATH.
  const plugin = installPulumi({ dir: join(work, 'plugin'), version: VERSION, entry: join(REPO, 'dist/providers/pulumi/src/main.js') });
  pluginExe = plugin.executable;
  // The example, as it is in the repository (the stack's config file is written beside it, so a copy).
  project = join(work, 'project');
  mkdirSync(project);
  copyFileSync(join(EXAMPLE, 'Pulumi.yaml'), join(project, 'Pulumi.yaml'));
  mkdirSync(join(work, 'state'));
  mkdirSync(join(work, 'home'));
  env = {
    PATH: [yamlHost, plugin.dir, dirname(cli), process.env.PATH].join(':'),
    HOME: process.env.HOME,
    PULUMI_HOME: join(work, 'home'),
    PULUMI_BACKEND_URL: `file://${join(work, 'state')}`,
    PULUMI_CONFIG_PASSPHRASE: 'tmkit-yaml-e2e-passphrase',
    PULUMI_SKIP_UPDATE_CHECK: 'true',
    PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: 'true',
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
  };
  await ok(['stack', 'init', 'dev']);
  await ok(['config', 'set', 'tmkit:server', serve.api]);
  await ok(['config', 'set', '--secret', 'tmkit:token', TOKEN]);
  await ok(['config', 'set', 'primaryTarget', PRIMARY]);
  await ok(['config', 'set', 'secondaryTarget', SECONDARY]);
  await ok(['config', 'set', 'monitorPort', String(health[0]!.port)]);
});

afterAll(async () => {
  await client?.close();
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  await Promise.all(health.map((h) => h.close()));
  if (work) rmSync(work, { recursive: true, force: true });
});

test('preview of the YAML program plans the profile and both endpoints, and writes nothing', async () => {
  const p = await preview();
  expect(tmkitSteps(p)).toEqual(['create primary', 'create secondary', 'create web']);
  expect(p.changeSummary).toEqual({ create: 4 }); // the stack and three tmkit resources
  expect(await pulumiProfiles()).toEqual([]);
});

test('up deploys it: outputs, the stored profile, and dig answers with the primary', async () => {
  await ok(['up', '--yes', '--skip-preview']);
  expect(await lastUpdate()).toMatchObject({ kind: 'update', result: 'succeeded', resourceChanges: { create: 4 } });
  const outputs = JSON.parse(await ok(['stack', 'output', '--json'])) as Record<string, string>;
  expect(outputs).toEqual({
    fqdn: `web.${ZONE}`,
    webId: '/tmkit/stacks/pulumi/trafficManagerProfiles/web',
    primaryId: '/tmkit/stacks/pulumi/trafficManagerProfiles/web/externalEndpoints/primary',
  });
  expect(await pulumiProfiles()).toEqual(['web']);
  const web = (await client.getProfile('web')).profile;
  expect(web.trafficRoutingMethod).toBe('Priority');
  expect(web.monitorConfig.port).toBe(health[0]!.port);
  // The two Endpoint resources are created in parallel, in either order.
  expect(web.endpoints.map((e) => [e.name, e.target, e.priority]).sort()).toEqual([
    ['primary', PRIMARY, 1],
    ['secondary', SECONDARY, 2],
  ]);
  await webAnswers([PRIMARY]);
  // The token given with --secret is in the state only encrypted.
  const stacks = join(work, 'state/.pulumi/stacks/tmkit-yaml');
  const state = readFileSync(join(stacks, readdirSync(stacks).find((f) => f.endsWith('.json'))!), 'utf8');
  expect(state).toContain('tmkit:index:Endpoint');
  expect(state).not.toContain(TOKEN);
});

test('a config change previews as a one-property update, and up moves DNS to the secondary', async () => {
  await ok(['config', 'set', 'primaryStatus', 'Disabled']);
  const p = await preview('--diff');
  expect(p.changeSummary).toEqual({ same: 3, update: 1 });
  expect(tmkitSteps(p)).toEqual(['update primary']); // steps without --show-sames: only the changes
  const step = p.steps.find((s) => s.urn.endsWith('::primary'))!;
  expect(step.diffReasons).toEqual(['endpointStatus']);
  expect(step.detailedDiff).toEqual({ endpointStatus: { kind: 'update', inputDiff: true } });
  expect(await dig(serve.dns, `web.${ZONE}`)).toEqual([PRIMARY]); // preview wrote nothing

  await ok(['up', '--yes', '--skip-preview']);
  expect(await lastUpdate()).toMatchObject({ result: 'succeeded', resourceChanges: { same: 3, update: 1 } });
  const primary = (await client.getProfile('web')).profile.endpoints.find((e) => e.name === 'primary');
  expect(primary?.endpointStatus).toBe('Disabled');
  await webAnswers([SECONDARY]);
});

test('a second preview finds no changes (--expect-no-changes passes)', async () => {
  const p = await preview('--expect-no-changes');
  expect(p.changeSummary).toEqual({ same: 4 });
  expect(tmkitSteps(p)).toEqual([]);
});

test('a bad value in the YAML program fails preview at its property path, with the rule, before any write', async () => {
  const bad = join(work, 'bad');
  mkdirSync(bad);
  const yaml = readFileSync(join(EXAMPLE, 'Pulumi.yaml'), 'utf8').replace('ttl: 30', 'ttl: -1');
  expect(yaml).toContain('ttl: -1');
  writeFileSync(join(bad, 'Pulumi.yaml'), yaml);
  copyFileSync(join(project, 'Pulumi.dev.yaml'), join(bad, 'Pulumi.dev.yaml'));
  const before = (await client.getProfile('web')).etag;
  const r = await pulumi(['preview', '--stack', 'dev'], { cwd: bad });
  expect(r.code).not.toBe(0);
  expect(r.stdout + r.stderr).toMatch(
    /tmkit:index:Profile resource 'web'.*property dnsConfig\.ttl .*has a problem: ttl -1 is out of range: an integer 0–2147483647 seconds/,
  );
  expect((await client.getProfile('web')).etag).toBe(before);
});

test('`pulumi package get-schema` reads the plugin; `gen-sdk --language yaml` writes the package lock YAML uses', async () => {
  // The path to the plugin executable is the schema source docs/pulumi.md gives for `pulumi package add`.
  const schema = JSON.parse(await ok(['package', 'get-schema', pluginExe])) as { name: string; version: string; resources: object };
  expect(schema.name).toBe('tmkit');
  expect(schema.version).toBe(VERSION);
  expect(Object.keys(schema.resources).sort()).toEqual(['tmkit:index:Endpoint', 'tmkit:index:Profile']);
  const out = join(work, 'sdk');
  await ok(['package', 'gen-sdk', pluginExe, '--language', 'yaml', '--out', out]);
  expect(readdirSync(join(out, 'yaml'))).toEqual([`tmkit-${VERSION}.yaml`]);
  expect(readFileSync(join(out, 'yaml', `tmkit-${VERSION}.yaml`), 'utf8')).toBe(
    `packageDeclarationVersion: 1\nname: tmkit\nversion: ${VERSION}\n`,
  );
});

test('destroy deletes the profile and its endpoints: NXDOMAIN', async () => {
  await ok(['destroy', '--yes', '--skip-preview']);
  expect(await lastUpdate()).toMatchObject({ kind: 'destroy', result: 'succeeded', resourceChanges: { delete: 4 } });
  expect(await pulumiProfiles()).toEqual([]);
  await webAnswers([]);
  expect((await queryUdp(serve.dns, `web.${ZONE}`)).rcode).toBe('NXDOMAIN');
  expect(JSON.parse(await ok(['stack', 'output', '--json']))).toEqual({});
});
