/**
 * Composite checks (`check` blocks and `quorum` in monitor_config) with the real terraform against a real
 * `tmkit serve`: apply stores them, a second plan is empty (omitted values come back computed), a change
 * of one check is an in-place update, removing the blocks goes back to the single probe.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok, tfWorkspace, type TfResult, type TfWorkspace } from './helpers';

jest.setTimeout(240_000);

const main = (monitor: string): string => `
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
  monitor_config {
    port = 8080
    path = "/healthz"
${monitor}
  }
}
resource "tmkit_external_endpoint" "primary" {
  name                 = "primary"
  profile_id           = tmkit_profile.web.id
  target               = "192.0.2.1"
  always_serve_enabled = true
}
`;

const CHECKS = (loginPath: string): string => `
    quorum = 1
    check {
      name = "api"
      path = "/api"
    }
    check {
      name = "login"
      path = "${loginPath}"
      expected_status_code_ranges = ["200-399"]
    }
    check {
      name            = "db"
      protocol        = "TCP"
      port            = 5432
      must_be_healthy = true
    }`;

let ws: TfWorkspace;
const tf = (...args: string[]): Promise<TfResult> => ws.tf(...args);

beforeAll(async () => {
  ws = await tfWorkspace('tmkit-tf-checks-');
});
afterAll(async () => {
  await ws.close();
});

test('check blocks: applied, no changes after; one changed check is an update; removing them restores the single probe', async () => {
  writeFileSync(join(ws.work, 'main.tf'), main(CHECKS('/login')));
  ok(await tf('init', '-input=false'));
  ok(await tf('apply', '-auto-approve', '-input=false'));
  const m = (await ws.client.getProfile('web')).profile.monitorConfig;
  expect(m.quorum).toBe(1);
  expect(m.checks).toEqual([
    { name: 'api', protocol: 'HTTP', port: 8080, path: '/api', expectedStatusCodeRanges: [], mustBeHealthy: false, monitoringOnly: false },
    {
      name: 'login',
      protocol: 'HTTP',
      port: 8080,
      path: '/login',
      expectedStatusCodeRanges: [{ min: 200, max: 399 }],
      mustBeHealthy: false,
      monitoringOnly: false,
    },
    { name: 'db', protocol: 'TCP', port: 5432, expectedStatusCodeRanges: [], mustBeHealthy: true, monitoringOnly: false },
  ]);
  const empty = await tf('plan', '-input=false', '-detailed-exitcode');
  expect(empty.stdout).toContain('No changes.');
  expect(empty.code).toBe(0);

  writeFileSync(join(ws.work, 'main.tf'), main(CHECKS('/signin')));
  const update = ok(await tf('plan', '-input=false'));
  expect(update.stdout).toMatch(/~ path\s+= "\/login" -> "\/signin"/);
  expect(update.stdout).toContain('1 to change, 0 to destroy');
  ok(await tf('apply', '-auto-approve', '-input=false'));
  expect((await ws.client.getProfile('web')).profile.monitorConfig.checks![1]!.path).toBe('/signin');
  expect((await tf('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);

  writeFileSync(join(ws.work, 'main.tf'), main(''));
  ok(await tf('apply', '-auto-approve', '-input=false'));
  const plain = (await ws.client.getProfile('web')).profile.monitorConfig;
  expect(plain.checks).toBeUndefined();
  expect(plain.quorum).toBeUndefined();
  expect((await tf('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);
});

test('a bad check is refused at plan time, at the check block, with the rule', async () => {
  writeFileSync(
    join(ws.work, 'main.tf'),
    main('    quorum = 3\n    check {\n      name = "api"\n    }\n    check {\n      name = "login"\n      path = "/login"\n    }'),
  );
  const r = await tf('plan', '-input=false', '-no-color');
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('quorum 3 is out of range: an integer 1–2');
  expect(r.stderr).toContain('MONITOR_QUORUM_RANGE');
});
