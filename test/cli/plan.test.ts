import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, tmkit } from './run';

/** `tmkit plan` / `tmkit preview` as processes, offline (`--deployed`). */
const SAMPLE = join(REPO, 'examples/github-actions/sample');
const MAIN = join(SAMPLE, 'main.tmkit.out.json');
const PR = join(SAMPLE, 'pr.tmkit.out.json');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-plan-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

describe('tmkit plan', () => {
  test('text plan against a deployed document: changes, preview, summary; exit 0, or 2 with --detailed-exitcode', async () => {
    const r = await tmkit(['plan', PR, '--deployed', MAIN]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  ~ profile contoso-web (update, base ETag "unknown")');
    expect(r.stdout).toContain('      ~ endpoints[eu-west].weight: 50 -> 40');
    expect(r.stdout).toContain('Routing preview');
    expect(r.stdout.trimEnd().split('\n').pop()).toBe('Plan: 1 to add, 2 to change, 1 to replace, 1 to destroy.');
    expect(r.stdout).not.toContain('\u001b['); // not a TTY: no colours
    const d = await tmkit(['plan', PR, '--deployed', MAIN, '--detailed-exitcode', '--no-preview']);
    expect(d.code).toBe(2);
    expect(d.stdout).not.toContain('Routing preview');
  });

  test('no changes: exit 0 even with --detailed-exitcode', async () => {
    const r = await tmkit(['plan', MAIN, '--deployed', MAIN, '--detailed-exitcode']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No changes. The deployed profiles of stack "web" match the document (5 profiles).');
  });

  test('--format json and --out write the same versioned plan', async () => {
    const out = join(dir, 'plan.json');
    const r = await tmkit(['plan', PR, '--deployed', MAIN, '--format', 'json', '--out', out]);
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(printed).toEqual(JSON.parse(readFileSync(out, 'utf8')));
    expect(printed.formatVersion).toBe(1);
    expect(printed.steps.map((s: { method: string; profile: string }) => `${s.method} ${s.profile}`)).toEqual([
      'PUT contoso-api',
      'PUT contoso-geo',
      'PUT contoso-web',
      'PUT status',
      'DELETE old-api',
    ]);
    // validation warnings of the document travel with the plan
    expect(printed.warnings.map((w: { code: string }) => w.code)).toContain('GEO_ENDPOINT_NOT_NESTED');
  });

  test("--max-failover-seconds below a profile's worst case: exit 1, flagged", async () => {
    const r = await tmkit(['plan', PR, '--deployed', MAIN, '--max-failover-seconds', '150', '--no-preview']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/contoso-geo +190 s -> 190 s EXCEEDS 150 s/);
  });

  test('an invalid document: exit 1, every diagnostic on stderr', async () => {
    const bad = file('bad.json', { apiVersion: 'tmkit/v1', profiles: [{ name: 'x', dnsConfig: { relativeName: 'x', ttl: -1 } }] });
    const r = await tmkit(['plan', bad, '--deployed', MAIN]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('profiles[x].trafficRoutingMethod');
    expect(r.stderr).toContain('is not a valid document');
  });

  test('a profile owned by another stack: the plan has an error, exit 1', async () => {
    const deployed = file('deployed.json', {
      profiles: [{ name: 'status', stack: 'ops', etag: '"7"', profile: JSON.parse(readFileSync(MAIN, 'utf8')).profiles[3] }],
    });
    const r = await tmkit(['plan', PR, '--deployed', deployed, '--no-preview']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('PLAN_PROFILE_OWNED_BY_OTHER_STACK');
    expect(r.stderr).toContain('the plan has 1 error and cannot be applied');
  });

  test("a document may nest another stack's deployed profile (validated with it as context, never touched)", async () => {
    const shared = {
      name: 'shared-eu',
      profileStatus: 'Enabled',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'shared-eu', ttl: 30 },
      monitorConfig: {
        protocol: 'HTTP',
        port: 80,
        path: '/',
        intervalInSeconds: 30,
        timeoutInSeconds: 10,
        toleratedNumberOfFailures: 3,
        customHeaders: [],
        expectedStatusCodeRanges: [],
      },
      trafficViewEnrollmentStatus: 'Disabled',
      endpoints: [
        {
          name: 's1',
          type: 'externalEndpoints',
          target: 's1.example.net',
          endpointStatus: 'Enabled',
          weight: 1,
          priority: 1,
          geoMapping: [],
          subnets: [],
          customHeaders: [],
          alwaysServe: 'Disabled',
        },
      ],
    };
    const deployed = file('platform.json', { profiles: [{ name: 'shared-eu', stack: 'platform', etag: '"p1"', profile: shared }] });
    const doc = file('nests.json', {
      apiVersion: 'tmkit/v1',
      stack: 'app',
      profiles: [
        {
          name: 'front',
          trafficRoutingMethod: 'Priority',
          dnsConfig: { relativeName: 'front' },
          endpoints: [
            { name: 'eu', type: 'nestedEndpoints', targetResourceId: 'shared-eu' },
            { name: 'x', type: 'externalEndpoints', target: 'x.example.net' },
          ],
        },
      ],
    });
    const r = await tmkit(['plan', doc, '--deployed', deployed, '--detailed-exitcode']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Plan: 1 to add, 0 to change, 0 to replace, 0 to destroy.');
    expect(r.stdout).toContain('if shared-eu/s1 fails: x +100 pts');
    expect(r.stdout).not.toMatch(/shared-eu \(.*(update|destroy)/);
  });

  test('usage errors exit 2', async () => {
    const r = await tmkit(['plan', PR, '--deployed', MAIN, '--max-failover-seconds', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--max-failover-seconds must be a whole number of seconds');
    expect((await tmkit(['plan', PR, '--format', 'yaml'])).code).toBe(2);
  });

  test('no server reachable: exit 1 and says how to plan offline', async () => {
    const r = await tmkit(['plan', PR, '--server', 'http://127.0.0.1:9', '--token', 't'], { env: { TMKIT_SERVER: '', TMKIT_TOKEN: '' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot read the deployed profiles from http://127.0.0.1:9');
    expect(r.stderr).toContain('--deployed FILE');
  });
});

describe('tmkit preview', () => {
  test('offline: every profile of the document, with specific clients', async () => {
    const r = await tmkit(['preview', PR, '--clients', '192.0.2.1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  contoso-geo (Geographic)');
    expect(r.stdout).toContain('      GEO-ME: contoso-eu/eu-primary (15 regions:');
    expect(r.stdout).not.toContain('Plan:');
  });

  test('against a deployed state: only what the change affects, before vs after', async () => {
    const r = await tmkit(['preview', PR, '--deployed', MAIN, '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('| `eu-west` | 50% | 40% | −10 pts |');
    expect(r.stdout).not.toContain('`contoso-eu` | routing');
  });

  test('--clients must be IP addresses', async () => {
    const r = await tmkit(['preview', PR, '--clients', 'example.com']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--clients: not an IP address: example.com');
  });
});
