/**
 * package.json `prepare` (scripts/prepare.js; issue 28 item 9): npm runs it after `npm ci` and again when the
 * first `npx tmkit` in a clone links the clone into npx's cache, which rebuilt dist/ silently for 15-25 s.
 * It builds only when dist/ is missing or older than a source. Run here on a small tree of its own, whose
 * `build` script leaves a mark, so that the test never rebuilds this checkout.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO } from '../cli/run';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-prepare-'));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(REPO, 'scripts/prepare.js'), join(dir, 'scripts/prepare.js'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'prepare-fixture',
      version: '0.0.0',
      private: true,
      scripts: { build: "node -e \"require('fs').writeFileSync('built', '')\"" },
    }),
  );
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src/a.ts'), 'export {};\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const prepare = () =>
  spawnSync(process.execPath, [join(dir, 'scripts/prepare.js')], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
const outputs = ['dist/src/cli/bin.js', 'dist/providers/terraform/bin/terraform-provider-tmkit.bundle.js', 'dist/ui/index.html'];
function buildOutputs(at: Date): void {
  for (const f of outputs) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    writeFileSync(join(dir, f), '');
    utimesSync(join(dir, f), at, at);
  }
}

test('without dist/ it builds', () => {
  const r = prepare();
  expect(r.status).toBe(0);
  expect(existsSync(join(dir, 'built'))).toBe(true);
  rmSync(join(dir, 'built'));
});

test('with dist/ newer than every source it does not build, and says so', () => {
  utimesSync(join(dir, 'src/a.ts'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  for (const f of ['package.json', 'scripts/prepare.js'])
    utimesSync(join(dir, f), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  utimesSync(join(dir, 'src'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  buildOutputs(new Date());
  const r = prepare();
  expect(r.status).toBe(0);
  expect(r.stderr).toBe('tmkit: dist/ is up to date with the sources; not rebuilding (npm run build does)\n');
  expect(existsSync(join(dir, 'built'))).toBe(false);
});

test('a source newer than dist/ (an edit, a pull) builds again; so does one missing output', () => {
  buildOutputs(new Date(Date.now() - 30_000));
  writeFileSync(join(dir, 'src/a.ts'), 'export const edited = 1;\n');
  expect(prepare().status).toBe(0);
  expect(existsSync(join(dir, 'built'))).toBe(true);
  rmSync(join(dir, 'built'));
  buildOutputs(new Date(Date.now() + 60_000));
  rmSync(join(dir, outputs[2]!));
  expect(prepare().status).toBe(0);
  expect(existsSync(join(dir, 'built'))).toBe(true);
});
