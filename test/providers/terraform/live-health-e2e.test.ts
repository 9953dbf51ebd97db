/**
 * Plans that see live health, in `terraform plan` (issue 30 §5): with the real terraform, a real `tmkit serve`
 * and a real HTTP server as the healthy endpoint, a plan that changes a deployed profile shows its health now
 * as warnings (an endpoint Degraded, for how long), and warns when the change leaves the profile with no
 * endpoint Online (disabling the only Online endpoint). A plan with nothing to do reads no health and warns
 * of nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../../support/wait';
import { ok, tfWorkspace, type TfWorkspace } from './helpers';

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

let ws: TfWorkspace;
let health: Server;
let port: number;

beforeAll(async () => {
  // The healthy endpoint: 127.0.0.1 answers 200; 127.0.0.2 (nothing listens there) refuses: Degraded.
  health = createServer((_req, res) => {
    res.end('ok');
  });
  await new Promise<void>((r) => health.listen(0, '127.0.0.1', r));
  port = (health.address() as AddressInfo).port;
  ws = await tfWorkspace('tmkit-tf-live-');
});
afterAll(async () => {
  await ws.close();
  await new Promise<void>((r) => health.close(() => r()));
});

test('terraform plan warns with the live health, and when the change leaves the profile with no endpoint Online', async () => {
  writeFileSync(join(ws.work, 'main.tf'), main({ ttl: 30, primaryEnabled: true }));
  ok(await ws.tf('init', '-input=false'));
  ok(await ws.tf('apply', '-auto-approve', '-input=false'));
  await waitFor(
    async () => {
      const by = new Map((await ws.client.status('live')).endpoints.map((e) => [e.name, e.endpointMonitorStatus]));
      return by.get('primary') === 'Online' && by.get('backup') === 'Degraded';
    },
    { what: 'primary Online and backup Degraded' },
  );

  // Nothing to do: no health read, no warning.
  const none = ok(await ws.tf('plan', '-input=false'));
  expect(none.stdout).toMatch(/No changes\./);
  expect(`${none.stdout}${none.stderr}`).not.toMatch(/Warning/);

  // A harmless change (the TTL): the health now, not the "no endpoint Online" warning.
  writeFileSync(join(ws.work, 'main.tf'), main({ ttl: 60, primaryEnabled: true }));
  let plan = ok(await ws.tf('plan', '-input=false'));
  let said = `${plan.stdout}${plan.stderr}`;
  expect(said).toMatch(/Warning: live health now: live\/backup: Degraded for \d+s \(/);
  expect(said).not.toMatch(/no endpoint Online/);

  // Disabling the only Online endpoint: the warning names the profile and what is left (in the stored
  // order, which is the order the parallel creates landed in).
  writeFileSync(join(ws.work, 'main.tf'), main({ ttl: 30, primaryEnabled: false }));
  plan = ok(await ws.tf('plan', '-input=false'));
  said = `${plan.stdout}${plan.stderr}`;
  expect(said).toMatch(
    /Warning: with the live health now, this change leaves profile live with no endpoint Online \(Online now: primary; after: (primary Disabled, backup Degraded|backup Degraded, primary Disabled)\)/,
  );

  // A plan writes nothing.
  const stored = (await ws.client.getProfile('live')).profile;
  expect(stored.dnsConfig.ttl).toBe(30);
  expect(stored.endpoints.find((e) => e.name === 'primary')?.endpointStatus).toBe('Enabled');
  ok(await ws.tf('destroy', '-auto-approve', '-input=false'));
});
