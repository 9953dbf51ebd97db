import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { external, plan, profile, same } from '../support/azurerm-plan';
import { tmkit } from './run';

/**
 * `tmkit test --from-terraform PLAN.json TESTS` and `--from-arm FILE TESTS` (issue 41 item 3): the routing
 * tests run against what an azurerm plan leaves, or Azure's profiles in an ARM template, offline (no tmkit
 * server: TMKIT_SERVER points at a closed port). The real CLI on plan JSON built from azurerm's schema.
 */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-test-azure-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OFFLINE = { TMKIT_SERVER: 'http://127.0.0.1:9', TMKIT_TOKEN: 'x'.repeat(32), NO_COLOR: '1' };
const run = (args: string[]) => tmkit(args, { env: OFFLINE });
const EXT = 'azurerm_traffic_manager_external_endpoint';
const P = 'azurerm_traffic_manager_profile';

function write(name: string, value: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(value, null, 2));
  return p;
}

const TESTS = {
  tests: [
    { name: 'primary first', profile: 'web', expect: ['primary'] },
    { name: 'primary down: backup', profile: 'web', down: ['primary'], expect: ['backup'] },
    { name: 'no SPOF', profile: 'web', noSinglePointOfFailure: true },
  ],
};

/** An azurerm plan of a Priority profile; `swap` swaps the two priorities in the change. */
function azurermPlan(name: string, swap: boolean): string {
  const web = profile('web', 'Priority');
  const a = external('web', 'primary', 'weu.example.com', { priority: 1 });
  const b = external('web', 'backup', 'neu.example.com', { priority: 2 });
  return write(
    name,
    plan([
      same(`${P}.web`, web),
      swap ? { address: `${EXT}.primary`, action: 'update', before: a, after: { ...a, priority: 2 } } : same(`${EXT}.primary`, a),
      swap ? { address: `${EXT}.backup`, action: 'update', before: b, after: { ...b, priority: 1 } } : same(`${EXT}.backup`, b),
    ]),
  );
}

test('--from-terraform: the tests pass on the plan as it is, and fail on one that swaps the priorities, saying what is answered', async () => {
  const tests = write('tests.json', TESTS);
  const ok = await run(['test', '--from-terraform', azurermPlan('same.json', false), tests]);
  expect(ok.stderr).toBe('');
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain('3 tests passed');
  const bad = await run(['test', '--from-terraform', azurermPlan('swap.json', true), tests, '--format', 'junit']);
  expect(bad.code).toBe(1);
  expect(bad.stdout).toContain('<testsuite name="tmkit test" tests="3" failures="1"');
  expect(bad.stdout).toContain('answered backup');
});

test('--from-arm: an ARM template is tested the same way', async () => {
  const template = (primary: number, backup: number) => ({
    $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
    contentVersion: '1.0.0.0',
    resources: [
      {
        type: 'Microsoft.Network/trafficManagerProfiles',
        apiVersion: '2022-04-01',
        name: 'web',
        location: 'global',
        properties: {
          profileStatus: 'Enabled',
          trafficRoutingMethod: 'Priority',
          dnsConfig: { relativeName: 'web', ttl: 30 },
          monitorConfig: {
            protocol: 'HTTPS',
            port: 443,
            path: '/health',
            intervalInSeconds: 30,
            timeoutInSeconds: 10,
            toleratedNumberOfFailures: 3,
          },
          endpoints: [
            {
              type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
              name: 'primary',
              properties: { target: '203.0.113.10', endpointStatus: 'Enabled', priority: primary },
            },
            {
              type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
              name: 'backup',
              properties: { target: '203.0.113.20', endpointStatus: 'Enabled', priority: backup },
            },
          ],
        },
      },
    ],
  });
  const tests = write('tests-arm.json', TESTS);
  const ok = await run(['test', '--from-arm', write('ok.json', template(1, 2)), tests]);
  expect(ok.stderr).toBe('');
  expect(ok.code).toBe(0);
  const bad = await run(['test', '--from-arm', write('swapped.json', template(2, 1)), tests]);
  expect(bad.code).toBe(1);
  expect(bad.stdout).toMatch(/FAIL +primary first \[web\]: .*answered backup/);
});

test('usage: one source of profiles, and the tests file alone beside --from-*', async () => {
  const tests = write('tests-u.json', TESTS);
  const f = azurermPlan('u.json', false);
  const both = await run(['test', '--from-terraform', f, '--from-arm', f, tests]);
  expect(both.code).toBe(2);
  expect(both.stderr).toBe('tmkit: --from-terraform and --from-arm each give the profiles: pass one of them\n');
  const extra = await run(['test', '--from-terraform', f, f, tests]);
  expect(extra.code).toBe(2);
  expect(extra.stderr).toMatch(/^tmkit: with --from-terraform give only the tests file/);
  const none = await run(['test', tests]);
  expect(none.code).toBe(2);
  expect(none.stderr).toMatch(/^tmkit: give a document and a tests file/);
});
