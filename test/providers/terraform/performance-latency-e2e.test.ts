/**
 * The `performance_latency` block of tmkit_profile with the real terraform against a real `tmkit serve`: plan
 * shows the defaults, apply stores it, a second plan is empty, a bad value is refused at plan naming the
 * block's attribute, and removing the block removes the property.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok, tfWorkspace, type TfResult, type TfWorkspace } from './helpers';

jest.setTimeout(240_000);

const main = (block: string): string => `
terraform {
  required_providers {
    tmkit = { source = "tmkit/tmkit" }
  }
}
provider "tmkit" {}
resource "tmkit_profile" "web" {
  name                   = "web"
  traffic_routing_method = "Performance"
  dns_config {
    relative_name = "web"
    ttl           = 30
  }
${block}
}
resource "tmkit_external_endpoint" "eu" {
  name                 = "eu"
  profile_id           = tmkit_profile.web.id
  target               = "192.0.2.1"
  endpoint_location    = "westeurope"
  always_serve_enabled = true
}
`;

let ws: TfWorkspace;
const tf = (...args: string[]): Promise<TfResult> => ws.tf(...args);

beforeAll(async () => {
  ws = await tfWorkspace('tmkit-tf-perf-latency-');
});
afterAll(async () => {
  await ws.close();
});

test('performance_latency { source = "Measured" }: planned with defaults, applied, no changes after; a bad value is refused; removing the block removes it', async () => {
  writeFileSync(join(ws.work, 'main.tf'), main('  performance_latency {\n    source       = "Measured"\n    tolerance_ms = 30\n  }'));
  ok(await tf('init', '-input=false'));
  const plan = ok(await tf('plan', '-input=false'));
  expect(plan.stdout).toMatch(/\+ performance_latency \{\n\s+\+ min_samples\s+= 5\n\s+\+ source\s+= "Measured"\n\s+\+ tolerance_ms = 30\n/);
  ok(await tf('apply', '-auto-approve', '-input=false'));
  expect((await ws.client.getProfile('web')).profile.performanceLatency).toEqual({ source: 'Measured', toleranceMs: 30, minSamples: 5 });
  expect((await tf('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);

  writeFileSync(join(ws.work, 'main.tf'), main('  performance_latency {\n    min_samples = 0\n  }'));
  const bad = await tf('plan', '-input=false');
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toMatch(/performance_latency\[0\]\.min_samples|min_samples/);
  expect(bad.stderr).toContain('minSamples 0 is out of range: an integer 1–100');

  writeFileSync(join(ws.work, 'main.tf'), main(''));
  const removal = ok(await tf('plan', '-input=false'));
  expect(removal.stdout).toMatch(/- performance_latency \{/);
  ok(await tf('apply', '-auto-approve', '-input=false'));
  expect((await ws.client.getProfile('web')).profile.performanceLatency).toBeUndefined();
  expect((await tf('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);
});
