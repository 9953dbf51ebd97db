/**
 * The `failback` block of tmkit_profile with the real terraform against a real `tmkit serve`: plan shows the
 * defaults, apply stores it, a second plan is empty; overrides made meanwhile are no drift (they are runtime
 * controls, not configuration); removing the block removes the property.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../../src/client';
import { runTmkit, spawnServe, type ServeProcess } from '../../runtime/serve/process';
import { terraform, type TfResult } from './helpers';

jest.setTimeout(240_000);

const main = (failback: string): string => `
terraform {
  required_providers {
    tmkit = { source = "tmkit/tmkit" }
  }
}
provider "tmkit" {}
resource "tmkit_profile" "web" {
  name                   = "web"
  traffic_routing_method = "Priority"
  dns_config {
    relative_name = "web"
    ttl           = 30
  }
${failback}
}
resource "tmkit_external_endpoint" "primary" {
  name                 = "primary"
  profile_id           = tmkit_profile.web.id
  target               = "192.0.2.1"
  always_serve_enabled = true
}
resource "tmkit_external_endpoint" "backup" {
  name                 = "backup"
  profile_id           = tmkit_profile.web.id
  target               = "192.0.2.2"
  always_serve_enabled = true
}
`;

let root: string;
let work: string;
let serve: ServeProcess;
let env: NodeJS.ProcessEnv;
let client: TmkitClient;
const tf = (...args: string[]): Promise<TfResult> => terraform([...args, '-no-color'], work, env);
const ok = (r: TfResult): TfResult => {
  if (r.code !== 0) throw new Error(`terraform exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r;
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmkit-tf-failback-'));
  work = join(root, 'work');
  mkdirSync(work);
  serve = await spawnServe(join(root, 'state'), ['--zone', 'tm.internal']);
  const token = readFileSync(join(root, 'state', 'token'), 'utf8').trim();
  client = new TmkitClient({ server: serve.api, token, env: {} });
  const inst = await runTmkit(['terraform', 'install', '--dir', join(root, 'inst')]);
  const rc = /^export TF_CLI_CONFIG_FILE=(.+)$/m.exec(inst.stdout.trim().split('\n').pop()!)![1]!;
  env = { TF_CLI_CONFIG_FILE: rc, TF_DATA_DIR: join(work, '.terraform'), TMKIT_SERVER: serve.api, TMKIT_TOKEN: token };
});
afterAll(async () => {
  await client.close();
  serve.child.kill('SIGTERM');
  await serve.closed;
  rmSync(root, { recursive: true, force: true });
});

test('failback { mode = "Manual" }: planned with defaults, applied, no changes after; overrides are no drift; removing the block removes it', async () => {
  writeFileSync(join(work, 'main.tf'), main('  failback {\n    mode                 = "Manual"\n    successes_to_recover = 3\n  }'));
  ok(await tf('init', '-input=false'));
  const plan = ok(await tf('plan', '-input=false'));
  expect(plan.stdout).toMatch(/\+ failback \{\n\s+\+ hold_down_seconds\s+= 0\n\s+\+ mode\s+= "Manual"\n\s+\+ successes_to_recover = 3\n/);
  ok(await tf('apply', '-auto-approve', '-input=false'));
  expect((await client.getProfile('web')).profile.failback).toEqual({ mode: 'Manual', successesToRecover: 3, holdDownSeconds: 0 });
  expect((await tf('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);

  // Runtime traffic controls are not configuration: Terraform sees no drift.
  await client.createOverride({ kind: 'down', profile: 'web', endpoint: 'primary', for: '10m', who: 'test' });
  const after = await tf('plan', '-input=false', '-detailed-exitcode');
  expect(after.code).toBe(0);
  expect(after.stdout).toContain('No changes.');

  writeFileSync(join(work, 'main.tf'), main(''));
  const removal = ok(await tf('plan', '-input=false'));
  expect(removal.stdout).toMatch(/- failback \{/);
  ok(await tf('apply', '-auto-approve', '-input=false'));
  expect((await client.getProfile('web')).profile.failback).toBeUndefined();
  expect((await tf('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);
});
