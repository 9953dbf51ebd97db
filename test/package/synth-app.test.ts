/**
 * A real `npm install` of the packed package (13 s: nothing is compiled since the store's SQLite is node:sqlite or WebAssembly).
 *
 * Issue 16 item 2: the documented way to run a TypeScript constructs app works with what the package
 * installs, and nothing else. `npm pack` the repository (dist/ as `npm test`'s pretest built it), install the
 * tarball into an empty scratch project from the npm registry's cache (`--prefer-offline`), then run what
 * README says: `npx tmkit init`, `npx tmkit synth` (tmkit runs main.ts with jiti, its own dependency),
 * `npx tmkit validate`. The scratch project declares no TypeScript loader, compiler or @swc package.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, REPO } from '../runtime/serve/process';

jest.setTimeout(600_000);

interface Run { code: number | null; stdout: string; stderr: string }

function run(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: cleanEnv({ npm_config_update_notifier: 'false' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.on('error', (err) => { clearTimeout(t); reject(err); });
    child.on('close', (code) => { clearTimeout(t); resolve({ code, stdout, stderr }); });
  });
}

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'tmkit-package-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('from a packed tarball in a scratch project: tmkit init, tmkit synth of main.ts, tmkit validate', async () => {
  const packDir = join(dir, 'pack');
  mkdirSync(packDir);
  const pack = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', packDir], REPO, 120_000);
  expect(pack.code).toBe(0);
  const tarball = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz'))!);

  const app = join(dir, 'scratch-app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch-app', version: '0.0.0', private: true }));
  const install = await run('npm', ['install', '--save-dev', tarball, '--prefer-offline', '--no-audit', '--no-fund'], app, 540_000);
  expect(install.stderr).not.toMatch(/npm error/);
  expect(install.code).toBe(0);
  expect(existsSync(join(app, 'node_modules/jiti/package.json'))).toBe(true);

  const npx = (...args: string[]) => run('npx', ['--no-install', 'tmkit', ...args], app, 120_000);
  const init = await npx('init');
  expect(init.stderr).toBe('');
  expect(init.code).toBe(0);
  expect(init.stdout).toContain('Scaffolded a tmkit app in . (stack "scratch-app", profile "scratch-app"): main.ts, tmkit.json, tsconfig.json, .gitignore.');
  expect(JSON.parse(readFileSync(join(app, 'tmkit.json'), 'utf8'))).toEqual({ app: 'main.ts', output: 'tmkit.out' });
  expect(readFileSync(join(app, 'main.ts'), 'utf8')).toContain("from 'tmkit'");

  const synth = await npx('synth');
  expect(synth.stderr).toContain('tmkit: running `main.ts` (TMKIT_OUTDIR=tmkit.out)');
  expect(synth.stderr).toContain('tmkit: tmkit.out/tmkit.out.json: 1 profile, 2 endpoints; 0 errors, 0 warnings');
  expect(synth.code).toBe(0);
  expect(synth.stdout).toBe('tmkit.out/tmkit.out.json\n');
  const doc = JSON.parse(readFileSync(join(app, 'tmkit.out/tmkit.out.json'), 'utf8'));
  expect(doc).toMatchObject({ apiVersion: 'tmkit/v1', stack: 'scratch-app', profiles: [{ name: 'scratch-app', trafficRoutingMethod: 'Priority' }] });

  const validate = await npx('validate', 'tmkit.out/tmkit.out.json');
  expect(validate.stdout).toBe('tmkit.out/tmkit.out.json: valid (1 profile, 2 endpoints)\n');
  expect(validate.code).toBe(0);

  // Nothing but tmkit was added to the project.
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
  expect(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })).toEqual(['tmkit']);
});
