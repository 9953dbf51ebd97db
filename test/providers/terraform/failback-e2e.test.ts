/**
 * The `failback` block of tmkit_profile with the real terraform against a real `tmkit serve`: plan shows the
 * defaults, apply stores it, a second plan is empty; overrides made meanwhile are no drift (they are runtime
 * operations, not configuration); removing the block removes the property.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok, tfWorkspace, type TfResult, type TfWorkspace } from './helpers';

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

let ws: TfWorkspace;
const tf = (...args: string[]): Promise<TfResult> => ws.tf(...args);

beforeAll(async () => {
  ws = await tfWorkspace('tmkit-tf-failback-');
});
afterAll(async () => {
  await ws.close();
});

test('failback { mode = "Manual" }: planned with defaults, applied, no changes after; overrides are no drift; removing the block removes it', async () => {
  writeFileSync(join(ws.work, 'main.tf'), main('  failback {\n    mode                 = "Manual"\n    successes_to_recover = 3\n  }'));
  ok(await tf('init', '-input=false'));
  const plan = ok(await tf('plan', '-input=false'));
  expect(plan.stdout).toMatch(/\+ failback \{\n\s+\+ hold_down_seconds\s+= 0\n\s+\+ mode\s+= "Manual"\n\s+\+ successes_to_recover = 3\n/);
  ok(await tf('apply', '-auto-approve', '-input=false'));
  expect((await ws.client.getProfile('web')).profile.failback).toEqual({ mode: 'Manual', successesToRecover: 3, holdDownSeconds: 0 });
  expect((await tf('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);

  // Runtime traffic operations are not configuration: Terraform sees no drift.
  await ws.client.createOverride({ kind: 'down', profile: 'web', endpoint: 'primary', for: '10m', who: 'test' });
  const after = await tf('plan', '-input=false', '-detailed-exitcode');
  expect(after.code).toBe(0);
  expect(after.stdout).toContain('No changes.');

  writeFileSync(join(ws.work, 'main.tf'), main(''));
  const removal = ok(await tf('plan', '-input=false'));
  expect(removal.stdout).toMatch(/- failback \{/);
  ok(await tf('apply', '-auto-approve', '-input=false'));
  expect((await ws.client.getProfile('web')).profile.failback).toBeUndefined();
  expect((await tf('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);
});
