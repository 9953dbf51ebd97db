/**
 * End to end with the real terraform (1.11.4 here) and OpenTofu's tofu (1.10, helpers' CLIS): the test-only provider tmkittest, installed through
 * the install layout into a temp dir, driven through init, plan, apply, no-change plan, drift, in-place
 * update, replace, import, a data source, a validation error at its file:line, a handler failure shown as
 * a diagnostic, destroy, and a reinstall that keeps the lock file valid. Its backend is a JSON file the
 * test reads and edits.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { install } from '../../../providers/terraform/src/install';
import { tmkit } from '../../cli/run';
import { CLIS, cleanEnv, terraform, TEST_PROVIDER, type TfResult } from './helpers';

interface ThingConfig {
  name: string;
  size: number;
  weight?: number;
}

/** main.tf; returns the text and the 1-based line of the rule's weight. */
function mainTf(c: ThingConfig): { text: string; weightLine: number } {
  const lines = [
    'terraform {',
    '  required_providers {',
    '    tmkittest = { source = "tmkit/tmkittest" }',
    '  }',
    '}',
    '',
    'provider "tmkittest" {',
    '  state_file = "${path.module}/things.json"',
    '}',
    '',
    'resource "tmkittest_thing" "a" {',
    `  name    = "${c.name}"`,
    `  size    = ${c.size}`,
    '  tags    = { env = "dev" }',
    '  aliases = ["x", "y"]',
    '',
    '  settings {',
    '    port   = 80',
    '    labels = ["l1"]',
    '    rule {',
    '      name   = "r1"',
    `      weight = ${c.weight ?? 5}`,
    '    }',
    '  }',
    '',
    '  member {',
    '    name = "m1"',
    '    role = "admin"',
    '  }',
    '}',
    '',
    'data "tmkittest_lookup" "a" {',
    '  name = tmkittest_thing.a.name',
    '}',
    '',
    'output "revision" { value = tmkittest_thing.a.revision }',
    'output "found" { value = data.tmkittest_lookup.a.found }',
    '',
  ];
  return { text: lines.join('\n'), weightLine: lines.findIndex((l) => l.includes('weight =')) + 1 };
}

describe.each(CLIS)('$name e2e with the test provider (tmkittest)', (cli) => {
  let root: string;
  let work: string;
  let env: NodeJS.ProcessEnv;
  const things = (): Record<string, Record<string, unknown>> => JSON.parse(readFileSync(join(work, 'things.json'), 'utf8')).things;
  const tf = async (...args: string[]): Promise<TfResult> => terraform([...args, '-no-color'], work, env, cli.bin);
  const ok = (r: TfResult): TfResult => {
    if (r.code !== 0) throw new Error(`terraform exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    return r;
  };
  const write = (c: ThingConfig): number => {
    const m = mainTf(c);
    writeFileSync(join(work, 'main.tf'), m.text);
    return m.weightLine;
  };
  const installIt = (): string =>
    install({ dir: join(root, 'tfinstall'), version: '0.1.0', type: 'tmkittest', entry: TEST_PROVIDER }).cliConfig;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'tmkit-tf-e2e-'));
    work = join(root, 'work');
    require('node:fs').mkdirSync(work);
    env = { TF_CLI_CONFIG_FILE: installIt(), TF_DATA_DIR: join(work, '.terraform') };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('init installs the provider from the filesystem mirror and locks its hash', async () => {
    write({ name: 'alpha', size: 3 });
    const r = ok(await tf('init', '-input=false'));
    expect(r.stdout).toMatch(/Installing tmkit\/tmkittest v0\.1\.0/);
    expect(r.stdout).toContain(`${cli.product} has been successfully initialized!`);
    const lock = readFileSync(join(work, '.terraform.lock.hcl'), 'utf8');
    expect(lock).toContain(`provider "${cli.registry}/tmkit/tmkittest" {\n  version = "0.1.0"`);
    expect(lock).toMatch(/"h1:[A-Za-z0-9+/=]{44}"/);
  });

  test('plan on create: computed attributes are known after apply, nested blocks and sets planned as configured', async () => {
    const r = ok(await tf('plan', '-input=false'));
    expect(r.stdout).toMatch(/\+ id +?= \(known after apply\)/);
    expect(r.stdout).toMatch(/\+ revision = \(known after apply\)/);
    expect(r.stdout).toMatch(/\+ settings \{[\s\S]*\+ port {3}= 80[\s\S]*\+ rule \{[\s\S]*\+ weight = 5/);
    expect(r.stdout).toMatch(/\+ member \{\s+\+ name = "m1"\s+\+ role = "admin"/);
    expect(r.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
  });

  test('apply creates it in the backend; the data source reads it; a second plan has no changes', async () => {
    const r = ok(await tf('apply', '-auto-approve', '-input=false'));
    expect(r.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    expect(r.stdout).toMatch(/found = true/);
    expect(r.stdout).toMatch(/revision = 1/);
    expect(things()['thing-alpha']).toMatchObject({
      id: 'thing-alpha',
      name: 'alpha',
      size: 3,
      revision: 1,
      tags: { env: 'dev' },
      settings: { port: 80, labels: ['l1'], rule: [{ name: 'r1', weight: 5 }] },
      member: [{ name: 'm1', role: 'admin' }],
    });
    const again = ok(await tf('plan', '-input=false', '-detailed-exitcode'));
    expect(again.stdout).toContain('No changes.');
  });

  test('drift: a change in the backend is read back and planned away', async () => {
    const file = join(work, 'things.json');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    data.things['thing-alpha'].size = 9;
    writeFileSync(file, JSON.stringify(data));
    const r = await tf('plan', '-input=false', '-detailed-exitcode');
    expect(r.code).toBe(2); // changes present
    expect(r.stdout).toMatch(/~ size +?= 9 -> 3/);
    expect(r.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  });

  test('in-place update: the changed attribute is updated, the dependent computed one is unknown until apply', async () => {
    write({ name: 'alpha', size: 4 });
    const plan = ok(await tf('plan', '-input=false'));
    expect(plan.stdout).toMatch(/~ revision = 1 -> \(known after apply\)/);
    expect(plan.stdout).toMatch(/update in-place/);
    const r = ok(await tf('apply', '-auto-approve', '-input=false'));
    expect(r.stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed.');
    expect(things()['thing-alpha']).toMatchObject({ size: 4, revision: 2 });
  });

  test('replace: a requiresReplace attribute forces a new object', async () => {
    write({ name: 'beta', size: 4 });
    const r = ok(await tf('apply', '-auto-approve', '-input=false'));
    expect(r.stdout).toMatch(/~ name +?= "alpha" -> "beta" # forces replacement/);
    expect(r.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 1 destroyed.');
    expect(Object.keys(things())).toEqual(['thing-beta']);
    expect(things()['thing-beta']).toMatchObject({ revision: 1 });
  });

  test('import: a partial state from ImportResourceState, completed by ReadResource, then no changes', async () => {
    ok(await tf('state', 'rm', 'tmkittest_thing.a'));
    const imp = ok(await tf('import', '-input=false', 'tmkittest_thing.a', 'thing-beta'));
    expect(imp.stdout).toContain('Import successful!');
    const show = ok(await tf('state', 'show', 'tmkittest_thing.a'));
    expect(show.stdout).toMatch(/name +?= "beta"/);
    expect(show.stdout).toMatch(/port {3}= 80/);
    const plan = ok(await tf('plan', '-input=false', '-detailed-exitcode'));
    expect(plan.stdout).toContain('No changes.');
    const bad = await tf('import', '-input=false', 'tmkittest_thing.b', 'thing-nope');
    expect(bad.code).toBe(1);
  });

  test('a validation error on a nested attribute is printed at its file and line', async () => {
    const line = write({ name: 'beta', size: 4, weight: 5000 });
    const r = await tf('plan', '-input=false');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error: weight must be between 0 and 1000');
    expect(r.stderr).toContain(`on main.tf line ${line}, in resource "tmkittest_thing" "a":`);
    expect(r.stderr).toMatch(new RegExp(`${line}:\\s+weight = 5000`));
    write({ name: 'beta', size: 4 });
  });

  test('a handler that throws becomes an error diagnostic, not a crash', async () => {
    const file = join(work, 'things.json');
    const saved = readFileSync(file, 'utf8');
    writeFileSync(file, '{ not json');
    const r = await tf('plan', '-input=false');
    writeFileSync(file, saved);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Error: tmkittest_thing: .*JSON/);
    expect(r.stderr).not.toMatch(/plugin exited|crashed|panic/i);
  });

  test('destroy removes it from the backend', async () => {
    const r = ok(await tf('destroy', '-auto-approve', '-input=false'));
    expect(r.stdout).toContain('Destroy complete! Resources: 1 destroyed.');
    expect(things()).toEqual({});
  });

  test('reinstall writes identical bytes; init with the existing lock file still passes', async () => {
    const lockBefore = readFileSync(join(work, '.terraform.lock.hcl'), 'utf8');
    const r1 = install({ dir: join(root, 'tfinstall'), version: '0.1.0', type: 'tmkittest', entry: TEST_PROVIDER });
    expect(r1.written).toEqual([]);
    rmSync(join(work, '.terraform'), { recursive: true, force: true });
    const r = ok(await tf('init', '-input=false'));
    expect(r.stdout).toContain('Reusing previous version of tmkit/tmkittest from the dependency lock file');
    expect(readFileSync(join(work, '.terraform.lock.hcl'), 'utf8')).toBe(lockBefore);
  });
});

describe.each(CLIS)('$name with the tmkit provider itself (installed by `tmkit terraform install`)', (cli) => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'tmkit-tf-tmkit-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('init and plan with its provider block (server, sensitive token, stack) succeed', async () => {
    const inst = await tmkit(['terraform', 'install', '--dir', join(root, 'inst')], { baseEnv: cleanEnv() });
    expect(inst.code).toBe(0);
    const rc = /^export TF_CLI_CONFIG_FILE=(.+)$/m.exec(inst.stdout)![1]!;
    const work = join(root, 'work');
    require('node:fs').mkdirSync(work);
    writeFileSync(
      join(work, 'main.tf'),
      [
        'terraform {',
        '  required_providers {',
        '    tmkit = { source = "tmkit/tmkit" }',
        '  }',
        '}',
        'provider "tmkit" {',
        '  server = "http://127.0.0.1:5380"',
        '  token  = "secret"',
        '  stack  = "e2e"',
        '}',
        '',
      ].join('\n'),
    );
    const env = { TF_CLI_CONFIG_FILE: rc };
    const init = await terraform(['init', '-input=false', '-no-color'], work, env, cli.bin);
    expect(init.stderr).toBe('');
    expect(init.stdout).toMatch(/Installing tmkit\/tmkit v\d+\.\d+\.\d+/);
    const plan = await terraform(['plan', '-input=false', '-no-color'], work, env, cli.bin);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    const schema = await terraform(['providers', 'schema', '-json'], work, env, cli.bin);
    const p = JSON.parse(schema.stdout).provider_schemas[`${cli.registry}/tmkit/tmkit`].provider.block.attributes;
    expect(p.token).toMatchObject({ type: 'string', optional: true, sensitive: true });
    expect(Object.keys(p).sort()).toEqual(['server', 'stack', 'token']);
  });
});
