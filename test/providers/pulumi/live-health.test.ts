/**
 * Plans that see live health, in Pulumi's preview (issue 30 §5): with the real Pulumi CLI, a real `tmkit serve`
 * and a real HTTP server as the healthy endpoint, a preview of a change shows the profile's health now as
 * warnings on the resource (an endpoint Degraded, an override in force), and warns when the change leaves the
 * profile with no endpoint Online (disabling the only Online one). A preview without such a change warns of
 * the health only; nothing is written by either.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineEvent } from '@pulumi/pulumi/automation';
import * as network from 'tmkit/pulumi';
import { TmkitClient } from '../../../src/client';
import { waitFor } from '../../support/wait';
import { spawnServe, type ServeProcess } from '../../support/process';
import { newStack, type E2eStack } from './harness';

jest.setTimeout(240_000);

const TOKEN = 'e2e-pulumi-live-t0ken-81f2';
let root: string;
let serve: ServeProcess;
let client: TmkitClient;
let health: Server;
let port: number;
let e2e: E2eStack | undefined;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmkit-pulumi-live-'));
  // The healthy endpoint: 127.0.0.1 answers 200; 127.0.0.2 (nothing listens there) refuses: Degraded.
  health = createServer((_req, res) => {
    res.end('ok');
  });
  await new Promise<void>((r) => health.listen(0, '127.0.0.1', r));
  port = (health.address() as AddressInfo).port;
  serve = await spawnServe(join(root, 'state'), ['--zone', 'tm.internal'], { TMKIT_TOKEN: TOKEN });
  client = new TmkitClient({ server: serve.api, token: TOKEN, env: {} });
});
afterAll(async () => {
  if (e2e) rmSync(e2e.work, { recursive: true, force: true });
  await client.close();
  serve.child.kill('SIGTERM');
  await serve.closed;
  await new Promise<void>((r) => health.close(() => r()));
  rmSync(root, { recursive: true, force: true });
});

const warnings = (events: EngineEvent[]): string[] =>
  events.flatMap((e) => (e.diagnosticEvent && e.diagnosticEvent.severity === 'warning' ? [e.diagnosticEvent.message] : []));

const program =
  (primaryStatus: 'Enabled' | 'Disabled', ttl = 30) =>
  async () => {
    const p = new network.Profile('live', {
      profileName: 'live',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'live', ttl },
      monitorConfig: { protocol: 'HTTP', port, path: '/', intervalInSeconds: 10, timeoutInSeconds: 5, toleratedNumberOfFailures: 0 },
    });
    new network.Endpoint('primary', {
      profileName: p.name,
      endpointName: 'primary',
      endpointType: 'ExternalEndpoints',
      target: '127.0.0.1',
      priority: 1,
      endpointStatus: primaryStatus,
    });
    new network.Endpoint('backup', {
      profileName: p.name,
      endpointName: 'backup',
      endpointType: 'ExternalEndpoints',
      target: '127.0.0.2',
      priority: 2,
    });
    return {};
  };

test('preview warns with the live health, and when the change leaves the profile with no endpoint Online', async () => {
  e2e = await newStack(program('Enabled'));
  await e2e.stack.setConfig('tmkit:server', { value: serve.api });
  await e2e.stack.setConfig('tmkit:token', { value: TOKEN, secret: true });
  expect((await e2e.stack.up()).summary.result).toBe('succeeded');
  await waitFor(
    async () => {
      const s = await client.status('live');
      const by = new Map(s.endpoints.map((e) => [e.name, e.endpointMonitorStatus]));
      return by.get('primary') === 'Online' && by.get('backup') === 'Degraded';
    },
    { what: 'primary Online and backup Degraded' },
  );

  // A harmless change (the TTL): the health now, no "no endpoint Online" warning.
  let events: EngineEvent[] = [];
  await e2e.stack.preview({
    program: program('Enabled', 60),
    onEvent: (e) => {
      events.push(e);
    },
  });
  let said = warnings(events).join('\n');
  expect(said).toMatch(/live health now: live\/backup: Degraded for \d+s \(/);
  expect(said).not.toMatch(/no endpoint Online/);

  // Disabling the only Online endpoint: the warning names the profile and what is left (in the stored
  // order, which is the order the parallel creates landed in).
  events = [];
  await e2e.stack.preview({
    program: program('Disabled'),
    onEvent: (e) => {
      events.push(e);
    },
  });
  said = warnings(events).join('\n');
  expect(said).toMatch(
    /this change leaves profile live with no endpoint Online \(Online now: primary; after: (primary Disabled, backup Degraded|backup Degraded, primary Disabled)\)/,
  );
  expect(said).toMatch(/live health now: live\/backup: Degraded/);

  // An override in force is part of the health shown.
  const o = await client.createOverride({ kind: 'down', profile: 'live', endpoint: 'backup', for: '10m', reason: 'game day', force: true });
  events = [];
  await e2e.stack.preview({
    program: program('Enabled', 60),
    onEvent: (e) => {
      events.push(e);
    },
  });
  expect(warnings(events).join('\n')).toMatch(/live\/backup: Degraded .*; override down by \S+ until \S+ \(game day\)/);
  await client.clearOverride(o.override.id);

  // Nothing was written by the previews.
  const stored = (await client.getProfile('live')).profile;
  expect(stored.dnsConfig.ttl).toBe(30);
  expect(stored.endpoints.find((e) => e.name === 'primary')?.endpointStatus).toBe('Enabled');
  expect((await e2e.stack.destroy()).summary.result).toBe('succeeded');
});
