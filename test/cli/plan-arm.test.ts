import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tmkit } from './run';

/**
 * `tmkit plan --from-arm AFTER.json --deployed-arm BEFORE.json`: Azure's Traffic Manager previewed offline,
 * BEFORE as `az network traffic-manager profile show` prints it (flattened, read-only values included),
 * AFTER as an ARM template. No tmkit server (TMKIT_SERVER points at a closed port).
 */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-plan-arm-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OFFLINE = { TMKIT_SERVER: 'http://127.0.0.1:9', TMKIT_TOKEN: 'x'.repeat(32), NO_COLOR: '1' };
const run = (args: string[]) => tmkit(args, { env: OFFLINE });

const SUB = '/subscriptions/6f0c1ab2-3d4e-4f50-8a6b-7c8d9e0f1a2b';
const PROFILE_ID = `${SUB}/resourceGroups/rg-traffic/providers/Microsoft.Network/trafficManagerProfiles/web`;
const APP = `${SUB}/resourceGroups/rg-apps/providers/Microsoft.Web/sites/shop-weu`;

function file(name: string, value: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(value, null, 2));
  return p;
}

/** `az network traffic-manager profile show -g rg-traffic -n web`. */
const azShow = {
  allowedEndpointRecordTypes: null,
  dnsConfig: { fqdn: 'web.trafficmanager.net', relativeName: 'web', ttl: 30 },
  endpoints: [
    {
      alwaysServe: 'Disabled',
      customHeaders: [],
      endpointLocation: 'West Europe',
      endpointMonitorStatus: 'Online',
      endpointStatus: 'Enabled',
      geoMapping: null,
      id: `${PROFILE_ID}/azureEndpoints/app`,
      minChildEndpoints: null,
      minChildEndpointsIPv4: null,
      minChildEndpointsIPv6: null,
      name: 'app',
      priority: 1,
      resourceGroup: 'rg-traffic',
      subnets: [],
      target: 'shop-weu.azurewebsites.net',
      targetResourceId: APP,
      type: 'Microsoft.Network/trafficManagerProfiles/azureEndpoints',
      weight: 1,
    },
    {
      alwaysServe: 'Disabled',
      customHeaders: [],
      endpointLocation: null,
      endpointMonitorStatus: 'Online',
      endpointStatus: 'Enabled',
      geoMapping: null,
      id: `${PROFILE_ID}/externalEndpoints/onprem`,
      name: 'onprem',
      priority: 2,
      resourceGroup: 'rg-traffic',
      subnets: [],
      target: '203.0.113.10',
      targetResourceId: null,
      type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
      weight: 1,
    },
  ],
  id: PROFILE_ID,
  location: 'global',
  maxReturn: null,
  monitorConfig: {
    customHeaders: [],
    expectedStatusCodeRanges: [],
    intervalInSeconds: 30,
    path: '/health',
    port: 443,
    profileMonitorStatus: 'Online',
    protocol: 'HTTPS',
    timeoutInSeconds: 10,
    toleratedNumberOfFailures: 3,
  },
  name: 'web',
  profileStatus: 'Enabled',
  resourceGroup: 'rg-traffic',
  tags: {},
  trafficRoutingMethod: 'Priority',
  trafficViewEnrollmentStatus: 'Disabled',
  type: 'Microsoft.Network/trafficManagerProfiles',
};

/** The ARM template of the change: the two priorities swapped. */
function template(appPriority: number, onpremPriority: number) {
  return {
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
              type: 'Microsoft.Network/trafficManagerProfiles/azureEndpoints',
              name: 'app',
              properties: { targetResourceId: APP, endpointStatus: 'Enabled', priority: appPriority },
            },
            {
              type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
              name: 'onprem',
              properties: { target: '203.0.113.10', endpointStatus: 'Enabled', priority: onpremPriority },
            },
          ],
        },
      },
    ],
  };
}

describe('tmkit plan --from-arm AFTER.json --deployed-arm BEFORE.json', () => {
  test('a template that swaps the priorities of az show output previews the new primary; nothing else differs', async () => {
    const before = file('before.json', azShow);
    const after = file('after.json', template(2, 1));
    const r = await run(['plan', '--from-arm', after, '--deployed-arm', before]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Preview of Azure Traffic Manager changes \(ARM .*after\.json against .*before\.json\), not of a tmkit runtime/,
    );
    expect(r.stdout).toContain('      ~ endpoints[app].priority: 1 -> 2');
    expect(r.stdout).toContain('      ~ endpoints[onprem].priority: 2 -> 1');
    expect(r.stdout).not.toContain('target'); // the Web App's target is its resource's, read from az output into the catalog
    expect(r.stdout).toContain('      active: app -> onprem');
    expect(r.stdout).not.toContain('Apply order');
    const same = await run(['plan', '--from-arm', file('same.json', template(1, 2)), '--deployed-arm', before, '--detailed-exitcode']);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('No changes.');
  });

  test('without --deployed-arm everything is new; a template-only Azure endpoint gets a stand-in that the output names', async () => {
    const r = await run(['plan', '--from-arm', file('new.json', template(1, 2)), '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('### tmkit preview of Azure Traffic Manager — ARM');
    expect(r.stdout).toContain('nothing deployed before');
    expect(r.stdout).toContain('previewed as shop-weu.azurewebsites.net without a region');
  });

  test('a duplicate priority exits 1 with the rule; usage errors exit 2', async () => {
    const r = await run(['plan', '--from-arm', file('dup.json', template(1, 1)), '--deployed-arm', file('b.json', azShow)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PRIORITY_DUPLICATE');
    expect(r.stderr).toContain("break Azure's rules");
    const lone = await run(['plan', '--deployed-arm', file('c.json', azShow)]);
    expect(lone.code).toBe(2);
    expect(lone.stderr).toContain('--deployed-arm BEFORE.json goes with --from-arm AFTER.json');
    const both = await run(['plan', '--from-arm', file('d.json', azShow), '--deployed', file('e.json', azShow)]);
    expect(both.code).toBe(2);
  });
});
