import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tmkit } from './run';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-validate-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

const ext = (name: string, target: string, more: object = {}) => ({ name, type: 'externalEndpoints', target, ...more });

const broken = {
  apiVersion: 'tmkit/v1',
  profiles: [
    {
      name: 'a.b',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'ab', ttl: -1 },
      endpoints: [ext('x', 'x.example.com', { priority: 0 }), ext('y', 'y.example.com', { priority: 2 })],
    },
    {
      name: 'b',
      trafficRoutingMethod: 'Weighted',
      dnsConfig: { relativeName: 'b' },
      endpoints: [ext('z', 'z.example.com', { weight: 5000 })],
    },
  ],
};

test('a valid document: exit 0 and a one-line summary', async () => {
  const r = await tmkit(['validate', 'examples/nested/tmkit.out.json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toBe('examples/nested/tmkit.out.json: valid (2 profiles, 5 endpoints)\n');
});

test('errors: exit 1, every diagnostic, grouped by profile with path and code', async () => {
  const r = await tmkit(['validate', file('broken.json', broken)], { cwd: dir });
  expect(r.code).toBe(1);
  const lines = r.stdout.split('\n');
  expect(lines[0]).toBe('broken.json: invalid: 3 errors, 0 warnings (2 profiles, 3 endpoints)');
  const groupA = lines.indexOf('profile a.b');
  const groupB = lines.indexOf('profile b');
  expect(groupA).toBeGreaterThan(0);
  expect(groupB).toBeGreaterThan(groupA);
  const inA = lines.slice(groupA, groupB).join('\n');
  expect(inA).toMatch(/error +profiles\[a\.b\]\.dnsConfig\.ttl +TTL_RANGE/);
  expect(inA).toMatch(/error +profiles\[a\.b\]\.endpoints\[x\]\.priority +PRIORITY_RANGE/);
  expect(lines.slice(groupB).join('\n')).toMatch(/error +profiles\[b\]\.endpoints\[z\]\.weight +WEIGHT_RANGE/);
  expect(r.stdout).toContain('hint: ');
});

test('warnings only: exit 0', async () => {
  const geo = {
    apiVersion: 'tmkit/v1',
    profiles: [
      {
        name: 'g',
        trafficRoutingMethod: 'Geographic',
        dnsConfig: { relativeName: 'g' },
        endpoints: [ext('fr', 'fr.example.com', { geoMapping: ['FR'] })],
      },
    ],
  };
  const r = await tmkit(['validate', file('geo.json', geo)], { cwd: dir });
  expect(r.code).toBe(0);
  expect(r.stdout.split('\n')[0]).toMatch(/^geo\.json: valid with warnings: 0 errors, \d+ warnings/);
  expect(r.stdout).toContain('GEO_WORLD_MISSING');
});

test('--format json: one JSON object for machines', async () => {
  const r = await tmkit(['validate', file('broken2.json', broken), '--format', 'json'], { cwd: dir });
  expect(r.code).toBe(1);
  const out = JSON.parse(r.stdout);
  expect(out).toMatchObject({ source: 'tmkit/v1', valid: false, errors: 3, warnings: 0, profiles: 2, endpoints: 3 });
  expect(out.diagnostics.map((d: { profile: string; code: string; path: string }) => [d.profile, d.code, d.path])).toEqual(
    expect.arrayContaining([
      ['a.b', 'TTL_RANGE', 'profiles[a.b].dnsConfig.ttl'],
      ['a.b', 'PRIORITY_RANGE', 'profiles[a.b].endpoints[x].priority'],
      ['b', 'WEIGHT_RANGE', 'profiles[b].endpoints[z].weight'],
    ]),
  );
});

test('Azure ARM JSON is detected and imported before validation', async () => {
  const arm = {
    id: '/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/contoso',
    name: 'contoso',
    type: 'Microsoft.Network/trafficManagerProfiles',
    location: 'global',
    properties: {
      profileStatus: 'Enabled',
      trafficRoutingMethod: 'Performance',
      dnsConfig: { relativeName: 'contoso', fqdn: 'contoso.trafficmanager.net', ttl: 35 },
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
          name: 'eu',
          type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
          properties: { endpointStatus: 'Enabled', endpointMonitorStatus: 'Online', target: 'eu.contoso.example', weight: 1, priority: 1 },
        },
      ],
    },
  };
  const r = await tmkit(['validate', file('arm.json', arm), '--format', 'json'], { cwd: dir });
  expect(r.code).toBe(1); // Performance without endpointLocation
  const out = JSON.parse(r.stdout);
  expect(out.source).toBe('arm-profile');
  expect(out.diagnostics).toEqual([
    expect.objectContaining({
      profile: 'contoso',
      code: 'ENDPOINT_LOCATION_REQUIRED',
      path: 'profiles[contoso].endpoints[eu].endpointLocation',
    }),
  ]);
});

test('--strict-azure adds the public-address rule', async () => {
  const plain = await tmkit(['validate', 'examples/basic/tmkit.out.json']);
  expect(plain.code).toBe(0);
  const strict = await tmkit(['validate', 'examples/basic/tmkit.out.json', '--strict-azure']);
  expect(strict.code).toBe(1);
  expect(strict.stdout).toContain('TARGET_NOT_PUBLIC');
});

test.each([
  ['no FILE', ['validate'], /missing required argument 'file'/],
  ['an unknown format', ['validate', 'x.json', '--format', 'xml'], /Allowed choices are text, json/],
  ['an unknown option', ['validate', 'x.json', '--frobnicate'], /unknown option/],
])('usage error (%s): exit 2', async (_what, args, message) => {
  const r = await tmkit(args);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stdout).toBe('');
});

test.each([
  ['a missing file', () => join(dir, 'nope.json'), /cannot read document .*nope\.json: no such file \(pass a tmkit\/v1 document/],
  ['invalid JSON', () => file('bad.json', '{"apiVersion": '), /bad\.json is not valid JSON/],
  ['a directory', () => dir, /it is a directory/],
])('%s: exit 1 with a message saying what to do', async (_what, path, message) => {
  const r = await tmkit(['validate', path()]);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(message);
});

test('a file that is neither tmkit nor ARM: validation says what is wrong (exit 1)', async () => {
  const r = await tmkit(['validate', file('other.json', { hello: 'world' })], { cwd: dir });
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/document\n/);
});
