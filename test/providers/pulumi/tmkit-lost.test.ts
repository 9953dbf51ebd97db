/**
 * The Pulumi provider with the real Pulumi CLI and a real `tmkit serve`, through a real TCP proxy that loses
 * answers (test/providers/lost-response-proxy.ts): an Endpoint create whose answer never came back after the
 * server wrote it converges in the same `pulumi up` (the provider reads it back and adopts it), and the next
 * preview has no changes. And rule warnings reach the engine as warnings on the resource: WEIGHT_IGNORED on an
 * Endpoint of a Priority profile (the server's, after the write) and on a Profile's inline endpoint (at check).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineEvent } from '@pulumi/pulumi/automation';
import * as network from 'tmkit/pulumi';
import { TmkitClient } from '../../../src/client';
import { spawnServe, type ServeProcess } from '../../support/process';
import { losingProxy, type LosingProxy } from '../lost-response-proxy';
import { newStack, type E2eStack } from './harness';

jest.setTimeout(240_000);

const TOKEN = 'e2e-pulumi-lost-t0ken-3c1d';
let root: string;
let serve: ServeProcess;
let proxy: LosingProxy;
let client: TmkitClient;
let e2e: E2eStack | undefined;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tmkit-pulumi-lost-'));
  serve = await spawnServe(join(root, 'state'), ['--zone', 'tm.internal'], { TMKIT_TOKEN: TOKEN });
  client = new TmkitClient({ server: serve.api, token: TOKEN, env: {} });
  proxy = await losingProxy(serve.api, (method, path) => method === 'PUT' && path.startsWith('/v1/profiles/lost/endpoints/two?'));
});
afterAll(async () => {
  if (e2e) rmSync(e2e.work, { recursive: true, force: true });
  await proxy.close();
  await client.close();
  serve.child.kill('SIGTERM');
  await serve.closed;
  rmSync(root, { recursive: true, force: true });
});

const warnings = (events: EngineEvent[]): string[] =>
  events.flatMap((e) => (e.diagnosticEvent && e.diagnosticEvent.severity === 'warning' ? [e.diagnosticEvent.message] : []));

const program = (weight?: number) => async () => {
  const p = new network.Profile('lost', { profileName: 'lost', trafficRoutingMethod: 'Priority', dnsConfig: { relativeName: 'lost' } });
  new network.Endpoint('one', {
    profileName: p.name,
    endpointName: 'one',
    endpointType: 'ExternalEndpoints',
    target: '192.0.2.31',
    ...(weight ? { weight } : {}),
  });
  new network.Endpoint('two', { profileName: p.name, endpointName: 'two', endpointType: 'ExternalEndpoints', target: '192.0.2.32' });
  new network.Profile('inline', {
    profileName: 'inline-p',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'inline-p' },
    endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.41', weight: 4 }],
  });
  return {};
};

test('an Endpoint create whose answer is lost converges in the same up, once; the next preview has no changes', async () => {
  e2e = await newStack(program());
  await e2e.stack.setConfig('tmkit:server', { value: proxy.url });
  await e2e.stack.setConfig('tmkit:token', { value: TOKEN, secret: true });
  const up = await e2e.stack.up();
  expect(proxy.lost).toEqual([expect.stringMatching(/^PUT \/v1\/profiles\/lost\/endpoints\/two\?/)]);
  expect(up.summary.result).toBe('succeeded');
  expect(up.summary.resourceChanges?.create).toBe(5); // the stack, three resources, the provider
  expect((await client.getProfile('lost')).profile.endpoints.map((e) => e.name).sort()).toEqual(['one', 'two']);
  const pv = await e2e.stack.preview();
  expect(pv.changeSummary.same).toBe(5);
});

test('rule warnings reach the engine: WEIGHT_IGNORED on an Endpoint (after the write) and on an inline endpoint (at check)', async () => {
  const events: EngineEvent[] = [];
  await e2e!.stack.up({
    program: program(5),
    onEvent: (e) => {
      events.push(e);
    },
  });
  const said = warnings(events).join('\n');
  expect(said).toMatch(/weight: weight is ignored by Priority routing \(only Weighted uses it\).*\[WEIGHT_IGNORED\]/);
  expect(said).toMatch(/endpoints\[0\]\.weight: weight is ignored by Priority routing.*\[WEIGHT_IGNORED\]/);
  const down = await e2e!.stack.destroy();
  expect(down.summary.result).toBe('succeeded');
});
