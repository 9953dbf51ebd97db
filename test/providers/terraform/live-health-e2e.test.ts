/**
 * Plans that see live health, in `terraform plan` (issue 30 §5): with the real terraform, a real `tmkit serve`
 * and a real HTTP server as the healthy endpoint, a plan that changes a deployed profile shows its health now
 * as warnings (an endpoint Degraded, for how long), and warns when the change leaves the profile with no
 * endpoint Online (disabling the only Online endpoint). A plan with nothing to do reads no health and warns
 * of nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../../src/client';
import { runTmkit, spawnServe, type ServeProcess } from '../../runtime/serve/process';
import { terraform, type TfResult } from './helpers';

jest.setTimeout(240_000);

const main = (o: { ttl: number; primaryEnabled: boolean }): string => `
terraform {
  required_providers {
    tmkit = { source = "tmkit/tmkit" }
  }
}
provider "tmkit" {}
resource "tmkit_profile" "live" {
  name                   = "live"
  traffic_routing_method = "Priority"
  dns_config {
    relative_name = "live"
    ttl           = ${o.ttl}
  }
  monitor_config {
    protocol                     = "HTTP"
    port                         = ${port}
    path                         = "/"
    interval_in_seconds          = 10
    timeout_in_seconds           = 5
    tolerated_number_of_failures = 0
  }
}
resource "tmkit_external_endpoint" "primary" {
  name       = "primary"
  profile_id = tmkit_profile.live.id
  target     = "127.0.0.1"
  priority   = 1
  enabled    = ${o.primaryEnabled}
}
resource "tmkit_external_endpoint" "backup" {
  name       = "backup"
  profile_id = tmkit_profile.live.id
  target     = "127.0.0.2"
  priority   = 2
}
`;

let root: string;
let work: string;
let serve: ServeProcess;
let env: NodeJS.ProcessEnv;
let client: TmkitClient;
let health: Server;
let port: number;
const tf = (...args: string[]): Promise<TfResult> => terraform([...args, '-no-color'], work, env);
const ok = (r: TfResult): TfResult => {
  if (r.code !== 0) throw new Error(`terraform exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r;
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmkit-tf-live-'));
  work = join(root, 'work');
  mkdirSync(work);
  // The healthy endpoint: 127.0.0.1 answers 200; 127.0.0.2 (nothing listens there) refuses: Degraded.
  health = createServer((_req, res) => { res.end('ok'); });
  await new Promise<void>((r) => health.listen(0, '127.0.0.1', r));
  port = (health.address() as AddressInfo).port;
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
  await new Promise<void>((r) => health.close(() => r()));
  rmSync(root, { recursive: true, force: true });
});

async function until(what: string, ok: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('terraform plan warns with the live health, and when the change leaves the profile with no endpoint Online', async () => {
  writeFileSync(join(work, 'main.tf'), main({ ttl: 30, primaryEnabled: true }));
  ok(await tf('init', '-input=false'));
  ok(await tf('apply', '-auto-approve', '-input=false'));
  await until('primary Online and backup Degraded', async () => {
    const by = new Map((await client.status('live')).endpoints.map((e) => [e.name, e.endpointMonitorStatus]));
    return by.get('primary') === 'Online' && by.get('backup') === 'Degraded';
  });

  // Nothing to do: no health read, no warning.
  const none = ok(await tf('plan', '-input=false'));
  expect(none.stdout).toMatch(/No changes\./);
  expect(`${none.stdout}${none.stderr}`).not.toMatch(/Warning/);

  // A harmless change (the TTL): the health now, not the "no endpoint Online" warning.
  writeFileSync(join(work, 'main.tf'), main({ ttl: 60, primaryEnabled: true }));
  let plan = ok(await tf('plan', '-input=false'));
  let said = `${plan.stdout}${plan.stderr}`;
  expect(said).toMatch(/Warning: live health now: live\/backup: Degraded for \d+s \(/);
  expect(said).not.toMatch(/no endpoint Online/);

  // Disabling the only Online endpoint: the warning names the profile and what is left.
  writeFileSync(join(work, 'main.tf'), main({ ttl: 30, primaryEnabled: false }));
  plan = ok(await tf('plan', '-input=false'));
  said = `${plan.stdout}${plan.stderr}`;
  expect(said).toMatch(/Warning: with the live health now, this change leaves profile live with no endpoint Online \(Online now: primary; after: primary Disabled, backup Degraded\)/);

  // A plan writes nothing.
  const stored = (await client.getProfile('live')).profile;
  expect(stored.dnsConfig.ttl).toBe(30);
  expect(stored.endpoints.find((e) => e.name === 'primary')?.endpointStatus).toBe('Enabled');
  ok(await tf('destroy', '-auto-approve', '-input=false'));
});
