/**
 * Wording every command shares (issue 16 item 8): counts agree with their noun ("1 endpoint", never
 * "1 endpoints" or "1 profile(s)"), and messages follow one casing rule: lines on stderr start with
 * `tmkit: ` and a lower-case word (continuation lines are indented), result sentences on stdout start
 * upper-case ("No changes.", "Apply complete: …").
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tmkit } from './run';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-messages-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const one = {
  apiVersion: 'tmkit/v1',
  profiles: [
    {
      name: 'solo',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'solo' },
      endpoints: [{ name: 'a', type: 'externalEndpoints', target: '127.0.0.1' }],
    },
  ],
};
const azureOne = {
  name: 'solo',
  type: 'Microsoft.Network/trafficManagerProfiles',
  location: 'global',
  properties: {
    profileStatus: 'Enabled',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'solo', ttl: 30 },
    monitorConfig: { protocol: 'HTTP', port: 80, path: '/' },
    endpoints: [
      {
        name: 'a',
        type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
        properties: { target: 'a.example.com', endpointStatus: 'Enabled' },
      },
    ],
  },
};

/** Every stderr line is `tmkit: <lower-case>`, an indented continuation, or a diagnostics report heading (`document`, `profile x`). */
function expectStderrCasing(stderr: string): void {
  for (const line of stderr.split('\n').filter((l) => l !== '')) expect(line).toMatch(/^(tmkit: [a-z-]|\s|document$|profile \S+$)/);
}

test('counts of one read "1 profile, 1 endpoint" in validate, import and synth-like summaries', async () => {
  writeFileSync(join(dir, 'one.json'), JSON.stringify(one));
  writeFileSync(join(dir, 'azure.json'), JSON.stringify(azureOne));
  const v = await tmkit(['validate', 'one.json'], { cwd: dir });
  expect(v.stdout).toBe('one.json: valid (1 profile, 1 endpoint)\n');
  const i = await tmkit(['import', 'azure.json'], { cwd: dir });
  expect(i.code).toBe(0);
  expect(i.stderr).toContain('tmkit: imported 1 profile (1 endpoint) to stdout');
  expectStderrCasing(i.stderr);
  const p = await tmkit(['plan', 'one.json', '--deployed', 'one.json', '--no-preview'], { cwd: dir });
  expect(p.stdout).toContain('No changes. The deployed profiles of stack "default" match the document (1 profile).');
  expect(p.stdout).not.toMatch(/\(s\)/);
});

test('errors on stderr all start with "tmkit: " and a lower-case word', async () => {
  const cases: string[][] = [
    ['validate', 'missing.json'],
    ['plan', 'missing.json', '--deployed', 'missing.json'],
    ['import', 'one.json'],
    ['apply', 'one.json', '--server', 'http://127.0.0.1:9', '--token', 'x'],
  ];
  writeFileSync(join(dir, 'one.json'), JSON.stringify(one));
  for (const args of cases) {
    const r = await tmkit(args, { cwd: dir, env: { TMKIT_SERVER: '', TMKIT_TOKEN: '' } });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toBe('');
    expectStderrCasing(r.stderr);
  }
});
