/**
 * SLOW: one real `npm install` of the packed package. 3–6 min here at load ~8: the install 162–259 s, nearly
 * all of it better-sqlite3's build from source (that dependency is being replaced by a pure-WebAssembly
 * one; without install scripts the same install takes 5 s), the two tsc runs 19–30 s, the rest about 10 s.
 *
 * Issue 13 §6 (packaging) and issue 16 item 2. `npm pack` the repository (dist/ as `npm run build` or `npm
 * test`'s pretest built it), install the tarball into an empty scratch project from the npm cache
 * (`--prefer-offline`) the way README.md's "Installing" says a constructs/provider user does (`tmkit` and
 * `constructs`; `@types/node` for the type checks), WITHOUT the optional geo database package, and prove:
 * - the tarball carries only what runs (no tests, benches, sources or source maps) and every file the code
 *   looks up at run time (the exports targets, dist/ui, the bundled Terraform provider, the Pulumi launcher);
 * - no geo database and no native addon land in node_modules;
 * - `tsc` (strict, node16 and bundler resolution) resolves the types of `tmkit`, `tmkit/constructs`,
 *   `tmkit/client` and `tmkit/core`, and refuses deep imports the exports map does not list;
 * - each entry point loads only its layers at run time;
 * - `tmkit init` + `tmkit synth` (a TypeScript app, run by tmkit's own loader) + `tmkit validate` work;
 * - `tmkit serve` and `tmkit dns` fail with GEO_DB_MISSING (package, version, `npm install` command) before
 *   they create anything; everything else works without the package: plan and preview offline, terraform
 *   and pulumi install, and `serve --geoip FILE` with apply, status and a real dig.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { cleanEnv, dig, REPO } from '../support/process';
import { run, type Run } from './run';

jest.setTimeout(600_000);

const repoPkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
  exports: Record<string, string | { types: string; default: string }>;
};
const GEO_PACKAGE = '@ip-location-db/geo-whois-asn-country-mmdb';
const GEO_VERSION = repoPkg.devDependencies[GEO_PACKAGE]!;
const TSC = join(REPO, 'node_modules/typescript/bin/tsc');

let dir: string;
let app: string;
let tarFiles: string[];
let installMs: number;
const tmkit = (args: string[], cwd = app, timeoutMs = 120_000): Promise<Run> =>
  run(process.execPath, [join(app, 'node_modules/tmkit/dist/src/cli/bin.js'), ...args], cwd, timeoutMs);

beforeAll(async () => {
  if (!existsSync(join(REPO, 'dist/src/core/index.js')))
    throw new Error('dist/ is not built: run `npm run build` first (npm test does it in pretest)');
  dir = mkdtempSync(join(tmpdir(), 'tmkit-pack-'));
  const packDir = join(dir, 'pack');
  mkdirSync(packDir);
  const pack = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', packDir], REPO);
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  const tarball = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz'))!);
  tarFiles = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replace(/^package\//, ''));

  app = join(dir, 'scratch-app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch-app', version: '0.0.0', private: true }));
  const started = Date.now();
  const install = await run(
    'npm',
    [
      'install',
      '--save-dev',
      tarball,
      `constructs@${repoPkg.devDependencies.constructs}`,
      `@types/node@${repoPkg.devDependencies['@types/node']}`,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
    ],
    app,
    540_000,
  );
  installMs = Date.now() - started;
  if (install.code !== 0) throw new Error(`npm install failed (${install.code}):\n${install.stderr}`);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every file under `root` (relative paths), node_modules included. */
function walk(root: string): string[] {
  const out: string[] = [];
  const visit = (d: string): void => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) visit(p);
      else out.push(relative(root, p));
    }
  };
  visit(root);
  return out;
}

test('the tarball carries only what runs: dist (no maps, no test helpers), the Pulumi launcher, README, LICENSE', () => {
  process.stderr.write(`pack test: ${tarFiles.length} files in the tarball; npm install took ${(installMs / 1000).toFixed(1)} s\n`);
  const allowed =
    /^(dist\/src\/|dist\/providers\/|dist\/ui\/|providers\/pulumi\/bin\/pulumi-resource-tmkit$|package\.json$|README\.md$|LICENSE$)/;
  expect(tarFiles.filter((f) => !allowed.test(f))).toEqual([]);
  expect(tarFiles.filter((f) => /(^|\/)(test|bench|examples|testing)\/|\.test\.|\.map$|tmkittest|(?<!\.d)\.tsx?$/.test(f))).toEqual([]);
  // What the code reads at run time, relative to the package root or its own directory.
  for (const f of [
    'dist/src/cli/bin.js',
    'dist/src/cli/run-app.js',
    'dist/src/package.js',
    'dist/ui/index.html',
    'dist/src/core/data/geographic-hierarchy.json',
    'dist/src/core/data/azure-regions.json',
    'dist/src/geo/country-coordinates.json',
    'dist/providers/terraform/bin/terraform-provider-tmkit.js',
    'dist/providers/terraform/bin/terraform-provider-tmkit.bundle.js',
    'dist/providers/terraform/proto/descriptor.json',
    'dist/providers/pulumi/src/main.js',
    'providers/pulumi/bin/pulumi-resource-tmkit',
    'LICENSE',
    'README.md',
  ])
    expect(tarFiles).toContain(f);
  expect(tarFiles.some((f) => f.startsWith('dist/ui/assets/') && f.endsWith('.js'))).toBe(true);
  // Every exports target (and its types) is in the tarball.
  for (const [sub, target] of Object.entries(repoPkg.exports)) {
    const files = typeof target === 'string' ? [target] : [target.types, target.default];
    for (const f of files)
      expect({ sub, file: f, packed: tarFiles.includes(f.replace(/^\.\//, '')) }).toEqual({ sub, file: f, packed: true });
  }
});

test('the scratch project has tmkit and constructs, and no geo database', () => {
  const nm = join(app, 'node_modules');
  const files = walk(nm);
  const bytes = files.reduce((n, f) => n + statSync(join(nm, f)).size, 0);
  const packages = files.filter((f) =>
    /(^|\/)node_modules\/(@[^/]+\/)?[^/@]+\/package\.json$|^(@[^/]+\/)?[^/]+\/package\.json$/.test(f),
  ).length;
  process.stderr.write(`pack test: scratch node_modules ${(bytes / 1e6).toFixed(1)} MB in ${files.length} files, ${packages} packages\n`);
  expect(existsSync(join(nm, 'tmkit/package.json'))).toBe(true);
  expect(JSON.parse(readFileSync(join(nm, 'constructs/package.json'), 'utf8')).version).toBe(repoPkg.devDependencies.constructs);
  expect(existsSync(join(nm, GEO_PACKAGE))).toBe(false);
  expect(walk(nm).filter((f) => f.endsWith('.mmdb'))).toEqual([]);
  // No TypeScript loader or compiler was needed (tmkit runs main.ts with jiti, its own dependency).
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
  expect(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).sort()).toEqual(['@types/node', 'constructs', 'tmkit']);
  expect(existsSync(join(nm, 'jiti/package.json'))).toBe(true);
});

test('no native addon is installed (no .node file, no binding.gyp)', () => {
  // better-sqlite3 is being replaced by node:sqlite / node-sqlite3-wasm; until that lands it is the one hit.
  const addons = walk(join(app, 'node_modules')).filter((f) => f.endsWith('.node') || f.endsWith('binding.gyp'));
  expect(addons).toEqual([]);
});

test('tsc (strict; node16 and bundler resolution) resolves tmkit, tmkit/constructs, tmkit/client, tmkit/core', async () => {
  const use = [
    "import { App as RootApp, Profile as RootProfile, TmkitClient as RootClient, validate as rootValidate, MmdbGeoLookup } from 'tmkit';",
    "import { App, Profile, ExternalEndpoint, type ProfileProps } from 'tmkit/constructs';",
    "import { TmkitClient, StackResources, planReport, TmkitApiError, type ClientOptions } from 'tmkit/client';",
    "import { validate, normalize, buildSnapshot, GEO_REGIONS, type Document, type GeoLookup, type Diagnostic } from 'tmkit/core';",
    '// @ts-expect-error the exports map lists no deep paths',
    "import { Engine } from 'tmkit/dist/src/runtime/engine';",
    '',
    'type IsAny<T> = 0 extends 1 & T ? true : false;',
    'const notAny: [IsAny<typeof RootApp>, IsAny<typeof RootProfile>, IsAny<typeof RootClient>, IsAny<typeof rootValidate>, IsAny<typeof MmdbGeoLookup>,',
    '  IsAny<typeof App>, IsAny<ProfileProps>, IsAny<typeof ExternalEndpoint>, IsAny<typeof StackResources>, IsAny<typeof planReport>, IsAny<typeof TmkitApiError>,',
    '  IsAny<ClientOptions>, IsAny<typeof normalize>, IsAny<typeof buildSnapshot>, IsAny<Document>, IsAny<GeoLookup>, IsAny<typeof GEO_REGIONS>] =',
    '  [false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false];',
    'const app = new App({ stack: "types" });',
    'const p = new Profile(app, "web", { trafficRoutingMethod: "Priority", dnsConfig: { relativeName: "web" }, monitorConfig: { protocol: "HTTP", port: 80 } });',
    'new ExternalEndpoint(p, "a", { target: "192.0.2.1", priority: 1 });',
    '// @ts-expect-error not a routing method',
    'new Profile(app, "bad", { trafficRoutingMethod: "Nearest", dnsConfig: { relativeName: "bad" }, monitorConfig: { protocol: "HTTP", port: 80 } });',
    'const diagnostics: Diagnostic[] = validate({ apiVersion: "tmkit/v1", profiles: [] });',
    'const client: TmkitClient = new TmkitClient({ server: "http://127.0.0.1:1", token: "t" });',
    'const geo: GeoLookup = { locate: () => undefined, latencyMs: () => undefined };',
    'const doc: Document = normalize({ apiVersion: "tmkit/v1", profiles: [] });',
    'export { notAny, diagnostics, client, geo, doc, Engine };',
    '',
  ].join('\n');
  writeFileSync(join(app, 'use.ts'), use);
  writeFileSync(
    join(app, 'use-esm.mts'),
    "import { App } from 'tmkit/constructs';\nimport { validate } from 'tmkit/core';\nimport { TmkitClient } from 'tmkit/client';\nimport { Profile } from 'tmkit';\nexport const x: [App, ReturnType<typeof validate>, typeof TmkitClient, typeof Profile] | undefined = undefined;\n",
  );
  const base = { strict: true, noEmit: true, skipLibCheck: false, types: ['node'], target: 'ES2022' };
  for (const [name, opts] of [
    ['node16', { module: 'node16', moduleResolution: 'node16' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
  ] as const) {
    writeFileSync(
      join(app, `tsconfig.${name}.json`),
      JSON.stringify({ compilerOptions: { ...base, ...opts }, files: ['use.ts', 'use-esm.mts'] }),
    );
    const r = await run(process.execPath, [TSC, '-p', `tsconfig.${name}.json`], app);
    expect({ name, code: r.code, out: r.stdout + r.stderr }).toEqual({ name, code: 0, out: '' });
  }
  // The check can fail: the @ts-expect-error lines above need real types (an `any` makes them unused, an
  // error), and so does the not-any tuple.
});

test('each entry point loads only its own layers at run time', async () => {
  const probe = (spec: string): Promise<Run> =>
    run(
      process.execPath,
      [
        '-e',
        `
    require(${JSON.stringify(spec)});
    const root = require('node:path').dirname(require.resolve('tmkit/package.json'));
    const loaded = Object.keys(require.cache).map((f) => f.startsWith(root + '/') ? 'tmkit/' + f.slice(root.length + 1) : f.replace(/^.*node_modules\\//, ''));
    process.stdout.write(JSON.stringify(loaded));`,
      ],
      app,
    );
  const loaded = async (spec: string): Promise<string[]> => {
    const r = await probe(spec);
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout) as string[];
  };
  const core = await loaded('tmkit/core');
  expect(core.filter((f) => !f.startsWith('tmkit/dist/src/core/'))).toEqual([]);
  const client = await loaded('tmkit/client');
  expect(client.filter((f) => !/^(tmkit\/dist\/src\/(core|client)\/|undici\/)/.test(f))).toEqual([]);
  const constructs = await loaded('tmkit/constructs');
  expect(constructs.filter((f) => !/^(tmkit\/dist\/src\/(core|constructs)\/|constructs\/)/.test(f))).toEqual([]);
  const root = await loaded('tmkit');
  expect(root.filter((f) => /^tmkit\/dist\/src\/(runtime|cli)\/|better-sqlite3|etcd3|@grpc|geo-whois/.test(f))).toEqual([]);
  expect(root).toContain('tmkit/dist/src/constructs/index.js');
  const deep = await probe('tmkit/dist/src/runtime/engine.js');
  expect(deep.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
});

test('tmkit init, tmkit synth (main.ts via tmkit/constructs and tmkit) and tmkit validate from the installed CLI', async () => {
  const init = await tmkit(['init']);
  expect(init.stderr).toBe('');
  expect(init.code).toBe(0);
  expect(init.stdout).toContain(
    'Scaffolded a tmkit app in . (stack "scratch-app", profile "scratch-app"): main.ts, tmkit.json, tsconfig.json, .gitignore.',
  );
  expect(readFileSync(join(app, 'main.ts'), 'utf8')).toContain("from 'tmkit'");
  // A second Profile declared through the tmkit/constructs subpath, in a module main.ts imports.
  writeFileSync(
    join(app, 'extra.ts'),
    [
      "import { ExternalEndpoint, Profile } from 'tmkit/constructs';",
      "import type { App } from 'tmkit';",
      'export function addExtra(app: App): void {',
      "  const p = new Profile(app, 'extra', { trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'extra' }, monitorConfig: { protocol: 'TCP', port: 443 } });",
      "  new ExternalEndpoint(p, 'one', { target: '192.0.2.10', weight: 1 });",
      '}',
      '',
    ].join('\n'),
  );
  const main = readFileSync(join(app, 'main.ts'), 'utf8');
  const synthCall = /^(\s*)(\w+)\.synth\(\);?$/m.exec(main);
  expect(synthCall).not.toBeNull();
  writeFileSync(
    join(app, 'main.ts'),
    `import { addExtra } from './extra';\n${main.replace(synthCall![0], `${synthCall![1]}addExtra(${synthCall![2]});\n${synthCall![0]}`)}`,
  );

  const synth = await tmkit(['synth']);
  expect(synth.stderr).toContain('tmkit: running `main.ts` (TMKIT_OUTDIR=tmkit.out)');
  expect(synth.stderr).toContain('tmkit: tmkit.out/tmkit.out.json: 2 profiles, 3 endpoints; 0 errors, 0 warnings');
  expect(synth.code).toBe(0);
  const doc = JSON.parse(readFileSync(join(app, 'tmkit.out/tmkit.out.json'), 'utf8'));
  expect(doc).toMatchObject({ apiVersion: 'tmkit/v1', stack: 'scratch-app' });
  expect(doc.profiles.map((p: { name: string }) => p.name).sort()).toEqual(['extra', 'scratch-app']);

  const validate = await tmkit(['validate', 'tmkit.out/tmkit.out.json']);
  expect(validate.stdout).toBe('tmkit.out/tmkit.out.json: valid (2 profiles, 3 endpoints)\n');
  expect(validate.code).toBe(0);
});

const missing = `the geo database ${GEO_PACKAGE} (^${GEO_VERSION}, an optional peer dependency of tmkit) is not installed`;
const installCommand = `npm install ${GEO_PACKAGE}@${GEO_VERSION}`;

test('tmkit serve and tmkit dns without the geo package: GEO_DB_MISSING with the npm install command, before anything is created', async () => {
  const state = join(dir, 'serve-state');
  const serve = await tmkit(['serve', '--state-dir', state, '--dns', '127.0.0.1:0', '--api', '127.0.0.1:0']);
  expect(serve.code).toBe(1);
  expect(serve.stdout).toBe('');
  expect(serve.stderr).toBe(
    `tmkit: serve: ${missing}; it places DNS clients for Geographic and Performance routing. Install it next to tmkit: ${installCommand} (or pass --geoip FILE.mmdb, a city-level database used alone) [GEO_DB_MISSING]\n`,
  );
  expect(existsSync(state)).toBe(false);

  const dns = await tmkit(['dns', '--document', 'tmkit.out/tmkit.out.json', '--listen', '127.0.0.1:0']);
  expect(dns.code).toBe(1);
  expect(dns.stderr).toContain(`tmkit: dns: ${missing}`);
  expect(dns.stderr).toContain(installCommand);
  expect(dns.stderr).toContain('[GEO_DB_MISSING]');
});

test('without the geo package: preview and plan offline, terraform and pulumi install work; preview --clients says what is missing', async () => {
  const preview = await tmkit(['preview', 'tmkit.out/tmkit.out.json']);
  expect(preview.stderr).toBe('');
  expect(preview.code).toBe(0);
  expect(preview.stdout).toContain('extra');

  const clients = await tmkit(['preview', 'tmkit.out/tmkit.out.json', '--clients', '8.8.8.8']);
  expect(clients.code).toBe(1);
  expect(clients.stderr).toContain(`tmkit: --clients needs a geo database to place the addresses: ${missing}`);
  expect(clients.stderr).toContain('[GEO_DB_MISSING]');

  writeFileSync(join(app, 'deployed.json'), JSON.stringify({ profiles: [] }));
  const plan = await tmkit(['plan', 'tmkit.out/tmkit.out.json', '--deployed', 'deployed.json', '--format', 'json']);
  expect(plan.code).toBe(0);
  const report = JSON.parse(plan.stdout);
  expect(report.changes.map((c: { action: string; profile: string }) => `${c.action} ${c.profile}`).sort()).toEqual([
    'create extra',
    'create scratch-app',
  ]);
  expect(report.preview).toBeDefined();

  const tf = await tmkit(['terraform', 'install', '--dir', join(dir, 'tf')]);
  expect(tf.code).toBe(0);
  const executable = /provider {2}(\S+)/.exec(tf.stdout)![1]!;
  // The wrapper execs the bundled provider inside the installed package; run by hand it says what it is.
  expect(readFileSync(executable, 'utf8')).toContain(
    join(app, 'node_modules/tmkit/dist/providers/terraform/bin/terraform-provider-tmkit.js'),
  );
  const started = await run(executable, [], app);
  expect(started.code).toBe(1);
  expect(started.stderr).toContain('is a Terraform provider plugin: Terraform starts it');

  const pu = await tmkit(['pulumi', 'install', '--dir', join(dir, 'pulumi')]);
  expect(pu.code).toBe(0);
  expect(readFileSync(join(dir, 'pulumi/pulumi-resource-tmkit'), 'utf8')).toContain(
    join(app, 'node_modules/tmkit/dist/providers/pulumi/src/main.js'),
  );
});

test('serve --geoip FILE works without the package (the city database alone): apply, status, dig, the dashboard', async () => {
  const geoip = join(REPO, 'node_modules', GEO_PACKAGE, 'geo-whois-asn-country.mmdb');
  const state = join(dir, 'geoip-state');
  const child = spawn(
    process.execPath,
    [
      join(app, 'node_modules/tmkit/dist/src/cli/bin.js'),
      'serve',
      '--state-dir',
      state,
      '--geoip',
      geoip,
      '--dns',
      '127.0.0.1:0',
      '--api',
      '127.0.0.1:0',
      '--log-level',
      'warn',
    ],
    { cwd: app, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    const banner = await new Promise<{ dns: { address: string; port: number }; api: string }>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`serve did not start:\n${out}\n${err}`)), 60_000);
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const dnsM = /DNS {2}UDP\+TCP (\d+\.\d+\.\d+\.\d+):(\d+)/.exec(out);
        const apiM = /API {2}(http:\/\/\S+)/.exec(out);
        if (dnsM && apiM) {
          clearTimeout(t);
          resolve({ dns: { address: dnsM[1]!, port: Number(dnsM[2]) }, api: apiM[1]! });
        }
      });
      void exited.then((code) => {
        clearTimeout(t);
        reject(new Error(`serve exited ${code}:\n${out}\n${err}`));
      });
    });
    const remote = ['--server', banner.api, '--state-dir', state];
    const apply = await tmkit(['apply', 'tmkit.out/tmkit.out.json', '--yes', ...remote]);
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Apply complete: 2 added');
    const status = await tmkit(['status', ...remote]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^extra\s+extra\.tm\.internal\s+Weighted/m);
    expect(await dig(banner.dns, 'extra.tm.internal')).toEqual(['192.0.2.10']);
    const ui = await fetch(`${banner.api}/ui/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('<script');
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});
