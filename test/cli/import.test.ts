import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tmkit } from './run';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-import-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SUB = '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network';

/** `az network traffic-manager profile show` output (flattened, with nulls) for a parent and its child. */
const parent = {
  dnsConfig: { fqdn: 'shop.trafficmanager.net', relativeName: 'shop', ttl: 60 },
  endpoints: [
    {
      endpointLocation: 'West US',
      endpointMonitorStatus: 'Online',
      endpointStatus: 'Enabled',
      geoMapping: null,
      id: `${SUB}/trafficManagerProfiles/shop/externalEndpoints/us`,
      minChildEndpoints: null,
      name: 'us',
      priority: 1,
      resourceGroup: 'rg',
      target: 'us.shop.example.com',
      targetResourceId: null,
      type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
      weight: 1,
    },
    {
      endpointLocation: 'West Europe',
      endpointMonitorStatus: 'Online',
      endpointStatus: 'Enabled',
      geoMapping: null,
      id: `${SUB}/trafficManagerProfiles/shop/nestedEndpoints/eu`,
      minChildEndpoints: 1,
      name: 'eu',
      priority: 2,
      resourceGroup: 'rg',
      target: 'shop-eu.trafficmanager.net',
      targetResourceId: `${SUB}/trafficManagerProfiles/shop-eu`,
      type: 'Microsoft.Network/trafficManagerProfiles/nestedEndpoints',
      weight: 1,
    },
  ],
  id: `${SUB}/trafficManagerProfiles/shop`,
  location: 'global',
  maxReturn: null,
  monitorConfig: {
    customHeaders: [],
    expectedStatusCodeRanges: [],
    intervalInSeconds: 30,
    path: '/',
    port: 80,
    profileMonitorStatus: 'Online',
    protocol: 'HTTP',
    timeoutInSeconds: 10,
    toleratedNumberOfFailures: 3,
  },
  name: 'shop',
  profileStatus: 'Enabled',
  resourceGroup: 'rg',
  tags: {},
  trafficRoutingMethod: 'Performance',
  trafficViewEnrollmentStatus: 'Disabled',
  type: 'Microsoft.Network/trafficManagerProfiles',
};
const child = {
  id: `${SUB}/trafficManagerProfiles/shop-eu`,
  name: 'shop-eu',
  type: 'Microsoft.Network/trafficManagerProfiles',
  location: 'global',
  properties: {
    profileStatus: 'Enabled',
    trafficRoutingMethod: 'Weighted',
    dnsConfig: { relativeName: 'shop-eu', fqdn: 'shop-eu.trafficmanager.net', ttl: 60 },
    monitorConfig: {
      profileMonitorStatus: 'Online',
      protocol: 'HTTP',
      port: 80,
      path: '/',
      intervalInSeconds: 30,
      toleratedNumberOfFailures: 3,
      timeoutInSeconds: 10,
    },
    endpoints: [
      {
        id: `${SUB}/trafficManagerProfiles/shop-eu/externalEndpoints/a`,
        name: 'a',
        type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
        properties: { endpointStatus: 'Enabled', endpointMonitorStatus: 'Online', target: 'a.eu.shop.example.com', weight: 3, priority: 1 },
      },
      {
        id: `${SUB}/trafficManagerProfiles/shop-eu/externalEndpoints/b`,
        name: 'b',
        type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
        properties: { endpointStatus: 'Enabled', endpointMonitorStatus: 'Online', target: 'b.eu.shop.example.com', weight: 1, priority: 2 },
      },
    ],
  },
};

function file(name: string, content: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(content));
  return p;
}

test('imports an array of profiles to stdout; the result validates', async () => {
  const r = await tmkit(['import', file('both.json', [parent, child])], { cwd: dir });
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout);
  expect(doc.apiVersion).toBe('tmkit/v1');
  expect(doc.profiles.map((p: { name: string }) => p.name)).toEqual(['shop', 'shop-eu']);
  expect(doc.profiles[0].endpoints[1]).toEqual({
    name: 'eu',
    type: 'nestedEndpoints',
    targetResourceId: 'shop-eu',
    endpointStatus: 'Enabled',
    endpointLocation: 'West Europe',
    minChildEndpoints: 1,
  });
  expect(r.stdout).not.toMatch(/fqdn|MonitorStatus|resourceGroup|"id"/);
  expect(r.stderr).toContain('imported 2 profiles (4 endpoints) to stdout; import: 0 errors, 0 warnings; validation: 0 errors, 0 warnings');

  writeFileSync(join(dir, 'imported.json'), r.stdout);
  const v = await tmkit(['validate', 'imported.json'], { cwd: dir });
  expect(v.code).toBe(0);
});

test('--out writes the file; --stack sets the owner', async () => {
  const r = await tmkit(['import', file('child.json', child), '--out', 'out/child.tmkit.json', '--stack', 'shop'], { cwd: dir });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe('');
  const doc = JSON.parse(readFileSync(join(dir, 'out/child.tmkit.json'), 'utf8'));
  expect(doc.stack).toBe('shop');
  expect(doc.profiles[0].endpoints.map((e: { weight: number }) => e.weight)).toEqual([3, 1]);
});

test('a parent alone: the nested id is kept and a warning says to import the child too', async () => {
  const r = await tmkit(['import', file('parent.json', parent)], { cwd: dir });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).profiles[0].endpoints[1].targetResourceId).toBe(`${SUB}/trafficManagerProfiles/shop-eu`);
  expect(r.stderr).toMatch(/profile shop\n +warning +profiles\[shop\]\.endpoints\[eu\]\.targetResourceId +ARM_IMPORT_NESTED_OUTSIDE/);
  expect(r.stderr).toMatch(/validation: 1 error/); // NESTED_TARGET_NOT_FOUND until the child is there
});

test('an unconvertible value: the document is still written, exit 1', async () => {
  const template = {
    resources: [
      {
        type: 'Microsoft.Network/trafficManagerProfiles',
        name: 'web',
        properties: { trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: "[parameters('dns')]" } },
      },
    ],
  };
  const r = await tmkit(['import', file('template.json', template)], { cwd: dir });
  expect(r.code).toBe(1);
  expect(JSON.parse(r.stdout).profiles[0].name).toBe('web');
  expect(r.stderr).toMatch(/ARM_IMPORT_EXPRESSION/);
  expect(r.stderr).toMatch(/fix the errors above by hand/);
});

test.each([
  ['not a profile', { hello: 'world' }, /nothing imported from x\.json: the input is not a Traffic Manager profile/],
  ['already tmkit', { apiVersion: 'tmkit/v1', profiles: [] }, /nothing imported from x\.json: the input already is a tmkit document/],
])('%s: exit 1', async (_what, content, message) => {
  file('x.json', content);
  const r = await tmkit(['import', 'x.json'], { cwd: dir });
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
});

test('missing input: exit 1 saying how to export a profile', async () => {
  const r = await tmkit(['import', 'missing.json'], { cwd: dir });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(
    /cannot read input missing\.json: no such file \(export a profile with `az network traffic-manager profile show/,
  );
});

test('`-` reads standard input (az ... | tmkit import -)', async () => {
  const r = await tmkit(['import', '-'], { input: JSON.stringify(child) });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).profiles[0].name).toBe('shop-eu');
});

test('usage: no FILE is exit 2', async () => {
  const r = await tmkit(['import']);
  expect(r.code).toBe(2);
});
