import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, tmkit } from './run';

/**
 * A throw-away copy of examples/basic laid out like the repository (`examples/basic`, with `src` and
 * `node_modules` linked), so the app's `import '../../src'` and `node -r @swc-node/register` resolve.
 * Its tmkit.json says `"app": "main.ts"`: tmkit runs the file with its own TypeScript loader.
 */
let root: string;
let basic: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'tmkit-synth-'));
  symlinkSync(join(REPO, 'src'), join(root, 'src'), 'dir');
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
  basic = join(root, 'examples/basic');
  cpSync(join(REPO, 'examples/basic'), basic, { recursive: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const committed = (): string => readFileSync(join(REPO, 'examples/basic/tmkit.out.json'), 'utf8');

test('synth runs the app from tmkit.json, validates, prints the path; the result equals the committed example', async () => {
  unlinkSync(join(basic, 'tmkit.out.json'));
  const r = await tmkit(['synth'], { cwd: basic });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe('tmkit.out.json\n');
  expect(r.stderr).toContain('tmkit: running `main.ts` (TMKIT_OUTDIR=.)');
  expect(r.stderr).toContain('tmkit.out.json: 1 profile, 2 endpoints; 0 errors, 0 warnings');
  expect(readFileSync(join(basic, 'tmkit.out.json'), 'utf8')).toBe(committed());
});

test('APP and --output override tmkit.json; APP may be any shell command', async () => {
  const r = await tmkit(['synth', 'node -r @swc-node/register main.ts', '--output', 'build/out'], { cwd: basic });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(`${join('build/out', 'tmkit.out.json')}\n`);
  expect(readFileSync(join(basic, 'build/out/tmkit.out.json'), 'utf8')).toBe(committed());
});

describe('failures', () => {
  let dir: string;
  let n = 0;
  beforeEach(() => {
    dir = join(root, `case-${++n}`);
    mkdirSync(dir);
  });

  const script = (body: string): string => {
    writeFileSync(join(dir, 'app.js'), body);
    return 'node app.js';
  };

  test('no tmkit.json and no APP: exit 1 saying how to configure', async () => {
    const r = await tmkit(['synth'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /no app to run: no tmkit\.json in .*Run `tmkit init` to scaffold an app, create tmkit\.json with \{"app": "main\.ts"\}/,
    );
  });

  test('tmkit.json that is not an object: exit 1', async () => {
    writeFileSync(join(dir, 'tmkit.json'), '["node app.js"]');
    const r = await tmkit(['synth'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/tmkit\.json must hold a JSON object/);
  });

  test('the app fails: exit 1, its output shown on stderr', async () => {
    const r = await tmkit(['synth', script('console.log("app says hi"); process.exit(3)')], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('app says hi');
    expect(r.stderr).toMatch(/the app command `node app\.js` failed \(exit code 3\)/);
  });

  test('the app writes nothing: exit 1 explaining app.synth() and TMKIT_OUTDIR', async () => {
    const r = await tmkit(['synth', script('')], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the app ran but did not write tmkit\.out\/tmkit\.out\.json: make sure it calls app\.synth\(\)/);
  });

  test('the app writes an invalid document: diagnostics on stderr, exit 1, path still printed', async () => {
    const doc = {
      apiVersion: 'tmkit/v1',
      profiles: [
        {
          name: 'p',
          trafficRoutingMethod: 'Weighted',
          dnsConfig: { relativeName: 'p' },
          endpoints: [{ name: 'e', type: 'externalEndpoints', target: 'e.example.com', weight: 0 }],
        },
      ],
    };
    const body = `const fs = require('fs'); fs.mkdirSync(process.env.TMKIT_OUTDIR, { recursive: true }); fs.writeFileSync(process.env.TMKIT_OUTDIR + '/tmkit.out.json', ${JSON.stringify(JSON.stringify(doc))});`;
    const r = await tmkit(['synth', script(body)], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/profile p\n +error +profiles\[p\]\.endpoints\[e\]\.weight +WEIGHT_RANGE/);
    expect(r.stdout).toBe(`${join('tmkit.out', 'tmkit.out.json')}\n`);
  });

  test('construct errors: the app throws one error listing every problem with construct paths', async () => {
    const body = `
      const { App, Profile, ExternalEndpoint } = require(${JSON.stringify(join(REPO, 'dist/src/index.js'))});
      const app = new App();
      const p = new Profile(app, 'web', { trafficRoutingMethod: 'Priority' });
      new ExternalEndpoint(p, 'a', { target: 'a.example.com', priority: 1 });
      new ExternalEndpoint(p, 'b', { target: 'b.example.com', priority: 1 });
      const q = new Profile(app, 'perf', { trafficRoutingMethod: 'Performance' });
      new ExternalEndpoint(q, 'x', { target: 'x.example.com' });
      app.synth();`;
    const r = await tmkit(['synth', script(body)], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the construct tree has 2 errors; nothing was written/);
    expect(r.stderr).toMatch(/\[web\/b\] error +profiles\[web\]\.endpoints\[b\]\.priority +PRIORITY_DUPLICATE/);
    expect(r.stderr).toMatch(/\[perf\/x\] error +profiles\[perf\]\.endpoints\[x\]\.endpointLocation +ENDPOINT_LOCATION_REQUIRED/);
    expect(existsSync(join(dir, 'tmkit.out', 'tmkit.out.json'))).toBe(false);
  });
});

test('an app file is run by tmkit itself: TypeScript without any loader in the project, construct errors listed without a stack', async () => {
  const dir = join(root, 'bare-ts');
  mkdirSync(dir);
  const app = (second: string): string =>
    [
      `import { App, ExternalEndpoint, Profile } from ${JSON.stringify(join(REPO, 'dist/src/index.js'))};`,
      'const app: App = new App();',
      "const p = new Profile(app, 'web', { trafficRoutingMethod: 'Priority' });",
      "new ExternalEndpoint(p, 'a', { target: 'a.example.com', priority: 1 });",
      `const second: number = ${second};`,
      "new ExternalEndpoint(p, 'b', { target: 'b.example.com', priority: second });",
      'app.synth();',
    ].join('\n');
  writeFileSync(join(dir, 'main.ts'), app('1'));
  const r = await tmkit(['synth', 'main.ts'], { cwd: dir });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/\[web\/b\] error +profiles\[web\]\.endpoints\[b\]\.priority +PRIORITY_DUPLICATE/);
  expect(r.stderr).not.toMatch(/\n +at /);
  writeFileSync(join(dir, 'main.ts'), app('2'));
  const ok = await tmkit(['synth', 'main.ts'], { cwd: dir });
  expect(ok.stderr).toContain('tmkit.out/tmkit.out.json: 1 profile, 2 endpoints; 0 errors, 0 warnings');
  expect(ok.code).toBe(0);
});

test('usage: an unknown option is exit 2', async () => {
  const r = await tmkit(['synth', '--nope'], { cwd: basic });
  expect(r.code).toBe(2);
});
