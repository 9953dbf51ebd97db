/**
 * SLOW (one `tmkit pack` and one `npm install`, about 30-60 s here). Issue 28 item 1: a newcomer's own app,
 * installed from a clone on a machine with no registry access to tmkit, end to end:
 * `tmkit init` (run from this clone) → `npm install` → `tmkit synth` → `tmkit apply` against a real
 * `tmkit serve` → `dig` answers. The install is offline for real: `--offline`, an empty npm cache of its own
 * and an unreachable registry, so everything comes from the app's vendor/ tarballs (src/cli/util/pack.ts),
 * and npm prints no warning (no EBADENGINE from a devDependency, no install-scripts list: the tarball has no
 * `prepare` and its bundled dependencies run no scripts).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, dig, spawnServe, type ServeProcess } from '../support/process';
import { run } from './run';

jest.setTimeout(600_000);

let dir: string;
let serve: ServeProcess | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-clone-install-'));
});
afterAll(async () => {
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

test('init from a clone → npm install offline (no registry, empty cache, no warnings) → synth → apply → dig', async () => {
  const init = await run(process.execPath, [BIN, 'init', 'my-app'], dir);
  expect(init.stderr).toBe('');
  expect(init.code).toBe(0);
  const app = join(dir, 'my-app');
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const version = (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version;
  const constructsVersion = (
    JSON.parse(readFileSync(join(__dirname, '../../node_modules/constructs/package.json'), 'utf8')) as { version: string }
  ).version;
  expect(pkg.devDependencies).toEqual({
    tmkit: `file:vendor/tmkit-${version}.tgz`,
    constructs: `file:vendor/constructs-${constructsVersion}.tgz`,
  });
  expect(init.stdout).toContain('npm install                  # from vendor/, no registry needed');

  // No registry: --offline, a cache of its own that starts empty, and a registry nobody listens on.
  const cache = join(dir, 'empty-npm-cache');
  mkdirSync(cache);
  const install = await run('npm', ['install', '--offline', '--no-audit', '--no-fund'], app, 300_000, {
    npm_config_cache: cache,
    npm_config_registry: 'http://127.0.0.1:9/',
  });
  expect({ code: install.code, stderr: install.stderr }).toEqual({ code: 0, stderr: '' });
  expect(install.stdout).toMatch(/added 2 packages/);
  expect(existsSync(join(app, 'node_modules/tmkit/node_modules/commander/package.json'))).toBe(true); // bundled
  const installed = JSON.parse(readFileSync(join(app, 'node_modules/tmkit/package.json'), 'utf8')) as {
    scripts?: unknown;
    devDependencies?: unknown;
  };
  expect({ scripts: installed.scripts, devDependencies: installed.devDependencies }).toEqual({
    scripts: undefined,
    devDependencies: undefined,
  });

  // The app's own tmkit from here on, as `npx tmkit` runs it there.
  const appBin = join(app, 'node_modules/tmkit/dist/src/cli/bin.js');
  const synth = await run(process.execPath, [appBin, 'synth'], app);
  expect(synth.stderr).toContain('tmkit: tmkit.out/tmkit.out.json: 1 profile, 2 endpoints; 0 errors, 0 warnings');
  expect(synth.code).toBe(0);

  // A real tmkit serve (this clone's, which has the geo database) in the scratch dir.
  const token = 'clone-install-test-token';
  serve = await spawnServe(join(dir, 'state'), [], { TMKIT_TOKEN: token }, dir);
  const apply = await run(process.execPath, [appBin, 'apply', 'tmkit.out/tmkit.out.json', '--yes'], app, 120_000, {
    TMKIT_SERVER: serve.api,
    TMKIT_TOKEN: token,
  });
  expect(apply.stdout).toContain('Apply complete: 1 added, 0 changed, 0 replaced, 0 destroyed (stack "my-app"');
  expect(apply.code).toBe(0);
  expect(await dig(serve.dns, 'my-app.tm.internal')).toEqual(['127.0.0.1']);
  process.stderr.write(
    `clone-install test: init ${(init.ms / 1000).toFixed(1)} s (it packs), npm install ${(install.ms / 1000).toFixed(1)} s, synth ${(synth.ms / 1000).toFixed(1)} s, ` +
      `apply ${(apply.ms / 1000).toFixed(1)} s: init → apply ${((init.ms + install.ms + synth.ms + apply.ms) / 1000).toFixed(1)} s\n`,
  );
});
