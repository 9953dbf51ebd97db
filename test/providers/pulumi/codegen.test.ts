/**
 * The SDKs that Python, Go (and Node.js) users get from `pulumi package add`: the plugin's schema, read from the
 * installed plugin by the real `pulumi package get-schema`, through Pulumi's own code generators
 * (pkg/v3/codegen, the functions the language hosts' GeneratePackage calls; built by
 * scripts/install-pulumi-codegen.sh, because the hosts themselves cannot be built here). It checks that the
 * schema binds without errors, that the resource classes exist with every input of the schema, and that the
 * generated Python and Go parse. No program in those languages runs (docs/pulumi.md says so).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { installPulumi } from '../../../providers/pulumi/src/install';
import { REPO, findPulumiCli, findPulumiCodegen } from './harness';

jest.setTimeout(120_000);

const run = promisify(execFile);
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

interface Schema {
  name: string;
  resources: Record<string, { inputProperties: Record<string, unknown> }>;
}

let work: string;
let out: string;
let schema: Schema;

const read = (rel: string): string => readFileSync(join(out, rel), 'utf8');

function walk(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith(ext))
    .map((d) => join(d.parentPath, d.name));
}

beforeAll(async () => {
  const cli = findPulumiCli();
  const codegen = findPulumiCodegen();
  work = mkdtempSync(join(tmpdir(), 'tmkit-pulumi-codegen-'));
  const plugin = installPulumi({ dir: join(work, 'plugin'), version: VERSION, entry: join(REPO, 'dist/providers/pulumi/src/main.js') });
  const env = {
    PATH: `${dirname(cli)}:${process.env.PATH}`,
    HOME: process.env.HOME,
    PULUMI_HOME: join(work, 'home'),
    PULUMI_SKIP_UPDATE_CHECK: 'true',
  };
  const got = await run(cli, ['package', 'get-schema', plugin.executable, '--non-interactive'], { cwd: work, env, maxBuffer: 16 << 20 });
  schema = JSON.parse(got.stdout) as Schema;
  writeFileSync(join(work, 'schema.json'), got.stdout);
  out = join(work, 'sdk');
  const gen = await run(codegen, [join(work, 'schema.json'), out], { cwd: work });
  // Binding validates the schema as gen-sdk does; a diagnostic would have failed the run.
  expect(gen.stdout).toMatch(/^python: \d+ files$/m);
  expect(gen.stdout).toMatch(/^go: \d+ files$/m);
  expect(gen.stdout).toMatch(/^nodejs: \d+ files$/m);
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the schema read from the plugin has the two resource types', () => {
  expect(schema.name).toBe('tmkit');
  expect(Object.keys(schema.resources).sort()).toEqual(['tmkit:index:Endpoint', 'tmkit:index:Profile']);
});

test('Python: package pulumi_tmkit with Profile and Endpoint resource classes taking every schema input; the files compile', async () => {
  const profile = read('python/pulumi_tmkit/profile.py');
  const endpoint = read('python/pulumi_tmkit/endpoint.py');
  expect(profile).toMatch(/^class Profile\(pulumi\.CustomResource\):/m);
  expect(endpoint).toMatch(/^class Endpoint\(pulumi\.CustomResource\):/m);
  // The module registers both types, so `import pulumi_tmkit` resolves them from state (refresh, import).
  expect(read('python/pulumi_tmkit/__init__.py')).toContain('"tmkit:index:Profile": "Profile"');
  // The getters carry the schema's names: every input of the schema is a property of the args class.
  for (const [file, text] of [
    ['tmkit:index:Profile', profile],
    ['tmkit:index:Endpoint', endpoint],
  ] as const) {
    for (const name of Object.keys(schema.resources[file]!.inputProperties)) {
      const snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      expect(`${file} ${name}: ${text.includes(`def ${snake}(self)`) || text.includes(`@pulumi.getter(name="${name}")`)}`).toBe(
        `${file} ${name}: true`,
      );
    }
  }
  expect(profile).toContain('traffic_routing_method: pulumi.Input[_builtins.str]');
  const files = walk(join(out, 'python'), '.py');
  expect(files.length).toBeGreaterThan(5);
  await run('python3', ['-m', 'py_compile', ...files]);
});

test('Go: package tmkit with NewProfile and NewEndpoint, every schema input a tagged field; the files parse (gofmt)', async () => {
  const profile = read('go/tmkit/profile.go');
  const endpoint = read('go/tmkit/endpoint.go');
  expect(profile).toMatch(/^package tmkit$/m);
  expect(profile).toMatch(/^func NewProfile\(ctx \*pulumi\.Context,$/m);
  expect(endpoint).toMatch(/^func NewEndpoint\(ctx \*pulumi\.Context,$/m);
  for (const [type, text] of [
    ['tmkit:index:Profile', profile],
    ['tmkit:index:Endpoint', endpoint],
  ] as const) {
    const missing = Object.keys(schema.resources[type]!.inputProperties).filter((name) => !text.includes(`pulumi:"${name}"`));
    expect(`${type}: ${missing.join(', ')}`).toBe(`${type}: `);
  }
  const goroot = (await run('go', ['env', 'GOROOT'])).stdout.trim();
  const fmt = await run(join(goroot, 'bin/gofmt'), ['-e', '-l', join(out, 'go')]);
  expect(fmt.stderr).toBe('');
});

test('Node.js: the generated classes have the names the shipped SDK (tmkit/pulumi) exports', async () => {
  expect(read('nodejs/profile.ts')).toMatch(/^export class Profile extends pulumi\.CustomResource \{/m);
  expect(read('nodejs/endpoint.ts')).toMatch(/^export class Endpoint extends pulumi\.CustomResource \{/m);
  const shipped = await import('tmkit/pulumi');
  expect(typeof shipped.Profile).toBe('function');
  expect(typeof shipped.Endpoint).toBe('function');
  expect(typeof shipped.Provider).toBe('function');
  expect(read('nodejs/index.ts')).toMatch(/export const Provider: typeof import\("\.\/provider"\)\.Provider/);
});
