/**
 * `tmkit init` (issue 16, day-2 CLI): scaffolds a constructs app that synthesizes and validates as it is,
 * in a directory with no node_modules at all (tmkit runs main.ts with its own loader and points
 * `import 'tmkit'` at itself). The packed-package path is test/package/synth-app.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTmkit } from '../support/process';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-init-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

jest.setTimeout(180_000); // init from a clone packs tmkit (10-20 s)

test('init DIR scaffolds main.ts, tmkit.json, package.json, tsconfig.json and .gitignore; synth and validate pass as they are', async () => {
  const r = await runTmkit(['init', 'my-app'], { cwd: dir });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(
    'Scaffolded a tmkit app in my-app (stack "my-app", profile "my-app"): main.ts, tmkit.json, vendor/, package.json, tsconfig.json, .gitignore.',
  );
  const app = join(dir, 'my-app');
  expect(JSON.parse(readFileSync(join(app, 'tmkit.json'), 'utf8'))).toEqual({ app: 'main.ts', output: 'tmkit.out' });
  // Run from this clone: tmkit is not on the registry yet, so the app gets tarballs in vendor/ (issue 28 item 1;
  // their offline install is test/package/clone-install.test.ts).
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
  expect(pkg.devDependencies).toEqual({
    tmkit: expect.stringMatching(/^file:vendor\/tmkit-\d+\.\d+\.\d+\.tgz$/),
    constructs: expect.stringMatching(/^file:vendor\/constructs-10\.[\d.]+\.tgz$/),
  });
  for (const spec of Object.values(pkg.devDependencies as Record<string, string>))
    expect(existsSync(join(app, spec.slice('file:'.length)))).toBe(true);
  expect(readFileSync(join(app, '.gitignore'), 'utf8')).toContain('.tmkit/');
  expect(existsSync(join(app, 'node_modules'))).toBe(false);

  const synth = await runTmkit(['synth'], { cwd: app });
  expect(synth.stderr).toContain('tmkit: tmkit.out/tmkit.out.json: 1 profile, 2 endpoints; 0 errors, 0 warnings');
  expect(synth.code).toBe(0);
  const v = await runTmkit(['validate', 'tmkit.out/tmkit.out.json'], { cwd: app });
  expect(v.stdout).toBe('tmkit.out/tmkit.out.json: valid (1 profile, 2 endpoints)\n');
  expect(JSON.parse(readFileSync(join(app, 'tmkit.out/tmkit.out.json'), 'utf8')).stack).toBe('my-app');
});

test('init never overwrites main.ts or tmkit.json without --force, and keeps an existing package.json', async () => {
  const app = join(dir, 'existing');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name":"x","private":true}');
  expect((await runTmkit(['init', '--stack', 'team-x', '--name', 'front'], { cwd: app })).code).toBe(0);
  expect(readFileSync(join(app, 'package.json'), 'utf8')).toBe('{"name":"x","private":true}');
  expect(readdirSync(join(app, 'vendor')).sort()).toEqual([
    expect.stringMatching(/^constructs-.*\.tgz$/),
    expect.stringMatching(/^tmkit-.*\.tgz$/),
  ]);
  const again = await runTmkit(['init'], { cwd: app });
  expect(again.code).toBe(1);
  expect(again.stderr).toBe(
    'tmkit: main.ts and tmkit.json already exist; nothing was written (pass --force to overwrite, or init another directory)\n',
  );
  writeFileSync(join(app, 'main.ts'), '// mine\n');
  expect((await runTmkit(['init', '--force', '--stack', 'team-x', '--name', 'front'], { cwd: app })).code).toBe(0);
  expect(readFileSync(join(app, 'main.ts'), 'utf8')).toContain("new Profile(app, 'front'");
  const synth = await runTmkit(['synth'], { cwd: app });
  expect(synth.code).toBe(0);
  expect(JSON.parse(readFileSync(join(app, 'tmkit.out/tmkit.out.json'), 'utf8'))).toMatchObject({
    stack: 'team-x',
    profiles: [{ name: 'front' }],
  });
});

test('a bad --name or --stack is a usage error', async () => {
  expect((await runTmkit(['init', join(dir, 'bad'), '--name', 'no_underscores'], { cwd: dir })).code).toBe(2);
  expect((await runTmkit(['init', join(dir, 'bad'), '--stack', '-x'], { cwd: dir })).code).toBe(2);
  expect(existsSync(join(dir, 'bad'))).toBe(false);
});

test("the next step quotes a directory name a shell would split: cd 'My App'", async () => {
  const app = join(dir, 'My App');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name":"mine","private":true,"devDependencies":{"tmkit":"file:../tmkit.tgz"}}');
  const r = await runTmkit(['init', 'My App'], { cwd: dir });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("\n  cd 'My App'\n");
});
