/**
 * One error convention (issue 28 item 5): every usage error is one `tmkit: ...` line and exit 2,
 * with did-you-mean for terraform habits (`-y`, `--auto-approve` → `--yes`); not-found messages are the same
 * in `status`, `get` and `endpoint`, with a did-you-mean for the profile (and the endpoint), and `resolve`
 * suggests the FQDN; JSON parse errors give line and column on every Node; `validate main.ts` and `synth
 * nope.ts` say what is wrong. The server part runs against a real runtime (test/cli/day2-server.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDay2Server, loopbackProfile, type Day2Server } from './day2-server';
import { oneLine, tmkit } from './run';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-errors-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const noServerEnv = { TMKIT_SERVER: '', TMKIT_TOKEN: '', TMKIT_STATE_DIR: '' };

describe('usage errors: one `tmkit:` line, exit 2', () => {
  test.each([
    [['apply', 'x.json', '-y'], "tmkit: apply: unknown option '-y'; did you mean --yes? (see `tmkit apply --help`)"],
    [
      ['apply', 'x.json', '--auto-approve'],
      "tmkit: apply: unknown option '--auto-approve'; did you mean --yes? (see `tmkit apply --help`)",
    ],
    [['destroy', '-y'], "tmkit: destroy: unknown option '-y'; did you mean --yes? (see `tmkit destroy --help`)"],
    [['plan', 'x.json', '-y'], "tmkit: plan: unknown option '-y' (see `tmkit plan --help`)"],
    [['apply', 'x.json', '--yess'], "tmkit: apply: unknown option '--yess'; did you mean --yes? (see `tmkit apply --help`)"],
    [['validate'], "tmkit: validate: missing required argument 'file' (see `tmkit validate --help`)"],
    [['nope'], "tmkit: unknown command 'nope'; did you mean node? (see `tmkit --help`)"],
    [['xyzzy'], "tmkit: unknown command 'xyzzy' (see `tmkit --help`)"],
    [
      ['dns', '--document', 'x.json', '--rrl', '20', '--rrl-exempt', '10.0.0.1/8'],
      'tmkit: --rrl-exempt 10.0.0.1/8: host bits are set after /8 (did you mean 10.0.0.0/8?); expected an IP address or a CIDR such as 192.0.2.0/24 or 2001:db8::/32',
    ],
    [['endpoint', 'disable', 'web'], "tmkit: endpoint disable: missing required argument 'endpoint' (see `tmkit endpoint disable --help`)"],
    [
      ['status', '--format', 'xml'],
      "tmkit: status: option '--format <format>' argument 'xml' is invalid. Allowed choices are text, json (see `tmkit status --help`)",
    ],
  ])('tmkit %j', async (args, line) => {
    const r = await tmkit(args, { cwd: dir, env: noServerEnv });
    expect(oneLine(r.stderr)).toBe(line);
    expect(r.code).toBe(2);
  });
});

describe('files', () => {
  test('JSON parse errors give line and column (the same on Node 20 and 24)', async () => {
    writeFileSync(join(dir, 'comma.json'), '{\n  "apiVersion": "tmkit/v1",,\n}\n');
    writeFileSync(join(dir, 'token.json'), '{\n  "profiles": [\n    ]]\n}\n');
    writeFileSync(join(dir, 'short.json'), '{"profiles": [');
    const comma = await tmkit(['validate', 'comma.json'], { cwd: dir });
    expect(oneLine(comma.stderr)).toBe(
      'tmkit: document comma.json is not valid JSON: line 2, column 28: Expected double-quoted property name',
    );
    expect(comma.code).toBe(1);
    expect(oneLine((await tmkit(['validate', 'token.json'], { cwd: dir })).stderr)).toMatch(
      /^tmkit: document token\.json is not valid JSON: line 3, column 6: /,
    );
    expect(oneLine((await tmkit(['plan', 'short.json', '--deployed', 'short.json'], { cwd: dir })).stderr)).toBe(
      'tmkit: document short.json is not valid JSON: line 1, column 15: Unexpected end of JSON input',
    );
  });

  test('validate main.ts: this is a constructs app, run tmkit synth', async () => {
    writeFileSync(join(dir, 'main.ts'), "import { App } from 'tmkit';\n");
    const r = await tmkit(['validate', 'main.ts'], { cwd: dir });
    expect(oneLine(r.stderr)).toBe(
      'tmkit: main.ts: this is a constructs app, not a JSON document: run `tmkit synth` (it runs the app, validates it and writes tmkit.out/tmkit.out.json)',
    );
    expect(r.code).toBe(1);
  });

  test('synth nope.ts: the file does not exist, one line, nothing run', async () => {
    const r = await tmkit(['synth', 'nope.ts'], { cwd: dir });
    expect(oneLine(r.stderr)).toBe(
      `tmkit: the app file nope.ts does not exist in ${dir} (the APP argument); pass the app's entry file, e.g. \`tmkit synth main.ts\`, or run \`tmkit init\` to scaffold one`,
    );
    expect(r.code).toBe(1);
  });
});

describe('not found, against a real server', () => {
  let s: Day2Server;
  beforeAll(async () => {
    s = await startDay2Server('tmkit-errors-server-');
    await s.client.putProfile(loopbackProfile('web', 9, ['127.0.0.1', '127.0.0.2']));
    await s.client.putProfile({ ...loopbackProfile('web', 9, ['127.0.0.3']), name: 'api', dnsConfig: { relativeName: 'api', ttl: 30 } });
    await s.engine.settle();
  });
  afterAll(() => s.close());
  const cli = (args: string[]) => tmkit([...args, '--server', s.api], { cwd: s.dir });

  test('status, get and endpoint say the same thing, with a did-you-mean for the profile', async () => {
    const line = `tmkit: profile wbe does not exist on ${s.api}; did you mean web? (\`tmkit list\` shows the deployed profiles)`;
    for (const args of [
      ['status', 'wbe'],
      ['status', 'wbe', '--format', 'json'],
      ['get', 'wbe'],
      ['endpoint', 'disable', 'wbe', 'e1'],
    ]) {
      const r = await cli(args);
      expect({ args, line: oneLine(r.stderr), code: r.code }).toEqual({ args, line, code: 1 });
    }
    expect(oneLine((await cli(['status', 'zzzzzz'])).stderr)).toBe(
      `tmkit: profile zzzzzz does not exist on ${s.api} (\`tmkit list\` shows the deployed profiles)`,
    );
  });

  test("an endpoint that does not exist: the profile's endpoints and a did-you-mean", async () => {
    const r = await cli(['endpoint', 'enable', 'web', 'e']);
    expect(oneLine(r.stderr)).toBe(
      `tmkit: profile web has no endpoint e on ${s.api}; did you mean e1? (it has e1, e2; \`tmkit get web\` shows them)`,
    );
    expect(r.code).toBe(1);
  });

  test('resolve web: did you mean web.tm.internal; a misspelt FQDN too', async () => {
    const bare = await cli(['resolve', 'web']);
    expect(bare.stdout).toMatch(/^web A from 127\.0\.0\.1: REFUSED\n/);
    expect(oneLine(bare.stderr)).toBe('tmkit: web is outside the zone tm.internal; did you mean web.tm.internal?');
    const typo = await cli(['resolve', 'wbe.tm.internal']);
    expect(oneLine(typo.stderr)).toBe('tmkit: wbe.tm.internal does not exist; did you mean web.tm.internal?');
    const right = await cli(['resolve', 'web.tm.internal']);
    expect(right.stderr).toBe('');
    expect(right.code).toBe(0);
  });
});
