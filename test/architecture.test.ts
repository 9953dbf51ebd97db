/**
 * Guard rails for the layout (docs/ARCHITECTURE.md): which layer may import which, the floors inside the
 * runtime, commands never import each other, no import cycles anywhere in src/ and providers/, the
 * runtime's one clock, and what the dashboard (ui/src) may take from src/. Each fails the build (`npm test`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const REPO = resolve(__dirname, '..');
const ROOTS = ['src', 'providers'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (f === 'node_modules' || f === 'dist') return [];
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !f.endsWith('.d.ts') ? [p] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Relative imports of a file, resolved to repository paths (`src/core/x.ts`). Type-only imports count too. */
function importsOf(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of src.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3] ?? m[4]!;
    if (!spec.startsWith('.')) continue;
    const base = resolve(dirname(file), spec);
    const hit = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), base].find((c) => existsSync(c) && statSync(c).isFile());
    if (hit) out.push(relative(REPO, hit));
  }
  return out;
}

const all = ROOTS.flatMap((r) => files(join(REPO, r))).map((f) => relative(REPO, f));
const graph = new Map(all.map((f) => [f, importsOf(join(REPO, f))]));

/** The layer a file belongs to. */
function layerOf(f: string): string {
  if (f.startsWith('providers/')) return 'providers';
  const m = /^src\/([^/]+)\//.exec(f);
  if (m) return m[1]!;
  return f; // src/index.ts, src/package.ts
}

/** Who may import whom (docs/ARCHITECTURE.md). `src/package.ts` is a leaf utility (the package root and version). */
const ALLOWED: Record<string, string[]> = {
  core: ['core'],
  geo: ['core', 'geo'],
  constructs: ['core', 'constructs'],
  /** The bindings and the constructs → tmkit_* bridge over either library passed in (imports neither). */
  cdk: ['core', 'constructs', 'cdk'],
  /** tmkit/cdktf and tmkit/cdktn: the bindings made over cdktf and cdktn (the optional peers). */
  cdktf: ['core', 'constructs', 'cdk', 'cdktf'],
  cdktn: ['core', 'constructs', 'cdk', 'cdktn'],
  client: ['core', 'client'],
  testing: ['core', 'testing'],
  // geo: the Terraform provider's functions (provider::tmkit::resolve) place a client address offline.
  providers: ['core', 'geo', 'client', 'providers', 'src/package.ts'],
  runtime: ['core', 'geo', 'runtime', 'src/package.ts'],
  cli: ['core', 'geo', 'constructs', 'client', 'runtime', 'providers', 'cli', 'src/package.ts'],
  'src/index.ts': ['core', 'geo', 'constructs', 'client'],
  // tmkit/pulumi, the SDK of the Pulumi provider: only @pulumi/pulumi (its logic is the provider plugin's).
  pulumi: ['pulumi'],
  'src/package.ts': [],
};

test('the import graph was read', () => {
  expect(all.length).toBeGreaterThan(100);
  expect(graph.get('src/cli/main.ts')!.length).toBeGreaterThan(0);
});

test('layers import only the layers below them (core -> nothing; runtime never imports cli or client)', () => {
  const bad: string[] = [];
  for (const [f, deps] of graph) {
    const from = layerOf(f);
    const allowed = ALLOWED[from];
    if (!allowed) {
      bad.push(`${f}: layer '${from}' is not in the table`);
      continue;
    }
    for (const d of deps) {
      const to = layerOf(d);
      if (!allowed.includes(to)) bad.push(`${f} -> ${d} (${from} may import ${allowed.join(', ') || 'nothing'})`);
    }
  }
  expect(bad).toEqual([]);
});

/**
 * The floors of src/runtime (docs/ARCHITECTURE.md, "The runtime"): a part imports only parts on lower
 * floors (and itself). So the pipeline never imports the engine or the API, the health ledger never imports
 * the pipeline, and the store never imports anything that writes through it: no call can go up but through
 * a listener a higher part registered (the store's watch, the ledger's onChange).
 */
const RUNTIME_FLOORS: Record<string, number> = {
  'engine.ts': 9,
  api: 8,
  'read-models.ts': 7,
  'operations.ts': 7,
  'pipeline.ts': 6,
  'observers.ts': 6,
  ledger: 5,
  'traffic-view.ts': 5,
  'decision-log-file.ts': 5,
  webhooks: 5,
  'events.ts': 4,
  'metrics.ts': 4,
  dns: 3,
  cluster: 3,
  store: 2,
  monitor: 2,
  etcd: 1,
  'rebuild-loop.ts': 1,
  'snapshot-sink.ts': 1,
  'clock.ts': 0,
  'privileges.ts': 0,
};

/** `src/runtime/ledger/x.ts` → `ledger`; `src/runtime/pipeline.ts` → `pipeline.ts`. */
function runtimePart(f: string): string | undefined {
  const m = /^src\/runtime\/([^/]+)/.exec(f);
  return m ? m[1] : undefined;
}

test("the runtime's parts import only lower floors (the pipeline never the engine; the store never the API)", () => {
  const bad: string[] = [];
  for (const [f, deps] of graph) {
    const from = runtimePart(f);
    if (from === undefined) continue;
    const floor = RUNTIME_FLOORS[from];
    if (floor === undefined) {
      bad.push(`${f}: part '${from}' has no floor in RUNTIME_FLOORS`);
      continue;
    }
    for (const d of deps) {
      const to = runtimePart(d);
      if (to === undefined || to === from) continue;
      if (!(RUNTIME_FLOORS[to]! < floor)) bad.push(`${f} -> ${d} (${from} is on floor ${floor}, ${to} on ${RUNTIME_FLOORS[to]})`);
    }
  }
  expect(bad).toEqual([]);
});

test('the DNS wing has one face: nothing outside src/runtime/dns/ imports a file inside it but its index.ts', () => {
  const bad = [...graph].flatMap(([f, deps]) =>
    f.startsWith('src/runtime/dns/')
      ? []
      : deps.filter((d) => d.startsWith('src/runtime/dns/') && d !== 'src/runtime/dns/index.ts').map((d) => `${f} -> ${d}`),
  );
  expect(bad).toEqual([]);
});

test('the runtime reads time only through its clock (src/runtime/clock.ts): no Date.now() or new Date() elsewhere', () => {
  const bad: string[] = [];
  for (const f of all) {
    if (!f.startsWith('src/runtime/') || f === 'src/runtime/clock.ts') continue;
    readFileSync(join(REPO, f), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const code = line.replace(/\/\/.*$/, '');
        if (/\bDate\.now\b|new Date\(\)/.test(code)) bad.push(`${f}:${i + 1}: ${line.trim()}`);
      });
  }
  expect(bad).toEqual([]);
});

test('CLI commands never import each other (shared code lives in the layers or cli/util)', () => {
  const bad = [...graph].flatMap(([f, deps]) =>
    f.startsWith('src/cli/commands/') && !f.endsWith('/index.ts')
      ? deps.filter((d) => d.startsWith('src/cli/commands/')).map((d) => `${f} -> ${d}`)
      : [],
  );
  expect(bad).toEqual([]);
});

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(g: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1 || (g.get(v) ?? []).includes(v)) out.push(c.sort());
    }
  };
  for (const v of g.keys()) if (!idx.has(v)) visit(v);
  return out;
}

test('no import cycles in src/ and providers/', () => {
  expect(cycles(graph).map((c) => c.join(' <-> '))).toEqual([]);
});

test('the cycle finder finds a cycle', () => {
  expect(
    cycles(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
        ['d', ['a']],
      ]),
    ),
  ).toEqual([['a', 'b', 'c']]);
});

// ---------------------------------------------------------------------------------------------------
// The package's entry points (package.json `exports`, README.md "Installing"): what each one may load.

interface Pkg {
  exports: Record<string, string | { types: string; default: string }>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Pkg;

/** Bare (package) imports of a file: `node:*` dropped, subpaths cut to the package name. */
function packagesOf(file: string): string[] {
  const out = new Set<string>();
  for (const m of readFileSync(join(REPO, file), 'utf8').matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3] ?? m[4]!;
    if (spec.startsWith('.') || spec.startsWith('node:')) continue;
    out.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
  }
  return [...out];
}

/** Every file an entry loads (relative imports, transitively; type-only imports count too). */
function closure(entry: string): string[] {
  const seen = new Set<string>([entry]);
  const todo = [entry];
  while (todo.length > 0)
    for (const d of graph.get(todo.pop()!) ?? [])
      if (!seen.has(d)) {
        seen.add(d);
        todo.push(d);
      }
  return [...seen].sort();
}

/** Per entry: the layers its files may come from, and the packages they may import. */
const ENTRIES: Record<string, { layers: string[]; packages: string[] }> = {
  '.': { layers: ['src/index.ts', 'core', 'geo', 'constructs', 'client'], packages: ['constructs', 'maxmind', 'undici'] },
  './core': { layers: ['core'], packages: [] },
  './client': { layers: ['core', 'client'], packages: ['undici'] },
  './constructs': { layers: ['core', 'constructs'], packages: ['constructs'] },
  './cdktf': { layers: ['core', 'constructs', 'cdk', 'cdktf'], packages: ['cdktf', 'constructs'] },
  './cdktn': { layers: ['core', 'constructs', 'cdk', 'cdktn'], packages: ['cdktn', 'constructs'] },
  './pulumi': { layers: ['pulumi'], packages: ['@pulumi/pulumi'] },
};

/** `./dist/src/x/index.js` → `src/x/index.ts`. */
const sourceOf = (target: string): string => target.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts');

test('every exports entry has types beside its code and a source file, and is in the layer table', () => {
  const bad: string[] = [];
  for (const [sub, target] of Object.entries(pkg.exports)) {
    if (sub === './package.json') continue;
    if (typeof target === 'string') {
      bad.push(`${sub}: needs {types, default}`);
      continue;
    }
    if (target.types !== target.default.replace(/\.js$/, '.d.ts'))
      bad.push(`${sub}: types ${target.types} is not beside ${target.default}`);
    if (!graph.has(sourceOf(target.default))) bad.push(`${sub}: no source ${sourceOf(target.default)}`);
    if (!ENTRIES[sub]) bad.push(`${sub}: not in ENTRIES (say which layers and packages it may load)`);
  }
  expect(bad).toEqual([]);
  expect(Object.keys(pkg.exports).sort()).toEqual([...Object.keys(ENTRIES), './package.json'].sort());
});

test('each entry point loads only its layers and packages (tmkit/core: nothing outside core; no entry reaches the runtime)', () => {
  const bad: string[] = [];
  for (const [sub, rule] of Object.entries(ENTRIES)) {
    const target = pkg.exports[sub] as { default: string };
    for (const f of closure(sourceOf(target.default))) {
      if (!rule.layers.includes(layerOf(f))) bad.push(`${sub}: ${f} (layer ${layerOf(f)}; allowed ${rule.layers.join(', ')})`);
      for (const p of packagesOf(f))
        if (!rule.packages.includes(p)) bad.push(`${sub}: ${f} imports ${p} (allowed ${rule.packages.join(', ') || 'none'})`);
    }
  }
  expect(bad).toEqual([]);
});

test('every package the code imports is declared: a dependency, or a peer imported only where README says it is needed', () => {
  /** Peers, and the only places that may import them. */
  const PEER_USERS: Record<string, RegExp> = {
    constructs: /^src\/(constructs|cdk|cdktf|cdktn)\//,
    cdktf: /^src\/cdktf\//,
    cdktn: /^src\/cdktn\//,
    '@pulumi/pulumi': /^(src\/pulumi|providers\/pulumi\/src)\//,
    'google-protobuf': /^providers\/pulumi\/src\//,
  };
  const bad: string[] = [];
  for (const f of all) {
    if (f.startsWith('src/testing/') || f.includes('/testing/') || f.startsWith('providers/terraform/src/bin/tmkittest')) continue; // not shipped
    for (const p of packagesOf(f)) {
      if (pkg.dependencies[p] !== undefined || p === 'tmkit') continue; // tmkit: `tmkit init`'s template text
      if (pkg.peerDependencies[p] === undefined) {
        bad.push(`${f} imports ${p}: neither a dependency nor a peer dependency`);
        continue;
      }
      if (!PEER_USERS[p]?.test(f)) bad.push(`${f} imports the peer ${p} (only ${PEER_USERS[p] ?? 'nowhere'})`);
    }
  }
  expect(bad).toEqual([]);
  // Peers are also devDependencies (the repository's own tests and README's `npx tmkit serve` use them).
  for (const p of Object.keys(pkg.peerDependencies)) expect({ p, dev: pkg.devDependencies[p] !== undefined }).toEqual({ p, dev: true });
  // Only constructs is a required peer: everything else is optional.
  expect(Object.keys(pkg.peerDependencies).filter((p) => pkg.peerDependenciesMeta[p]?.optional !== true)).toEqual(['constructs']);
});

test('the geo database package is named in one place only (src/geo/lookup.ts, resolved lazily)', () => {
  const hits = all.filter((f) => readFileSync(join(REPO, f), 'utf8').includes('@ip-location-db/'));
  expect(hits).toEqual(['src/geo/lookup.ts']);
  expect(packagesOf('src/geo/lookup.ts')).not.toContain('@ip-location-db/geo-whois-asn-country-mmdb');
});

// ---------------------------------------------------------------------------------------------------
// The dashboard (ui/src, Preact; docs/ARCHITECTURE.md: "ui/ may import core's types"). Vite bundles it for
// the browser, so of src/ it may take core's types (`import type`, erased from the bundle) and the values of
// the few core modules named below (pure data and functions, bundled as they are), and nothing else: never
// the runtime, the client, geo or any other layer, not even their types.

/** The core modules whose values the dashboard may bundle: the region hierarchy, child profile names. */
const UI_CORE_VALUES = ['src/core/data/index.ts', 'src/core/model/names.ts'];

interface UiImport {
  file: string;
  /** A repository path (`src/core/api/index.ts`; the spec's own path when no file matches) or a bare package spec. */
  target: string;
  bare: boolean;
  /** `import type …` / `export type … from`: erased, nothing of the target is bundled. */
  typeOnly: boolean;
}

function uiImportsOf(file: string): UiImport[] {
  const out: UiImport[] = [];
  for (const m of readFileSync(join(REPO, file), 'utf8').matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3] ?? m[4]!;
    const typeOnly = m[1] !== undefined && /^\s*(?:import|export)\s+type\s/.test(m[0]);
    if (!spec.startsWith('.')) {
      out.push({ file, target: spec, bare: true, typeOnly });
      continue;
    }
    const base = resolve(dirname(join(REPO, file)), spec);
    const hit = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx'), base].find(
      (c) => existsSync(c) && statSync(c).isFile(),
    );
    out.push({ file, target: relative(REPO, hit ?? base), bare: false, typeOnly });
  }
  return out;
}

/** The dashboard's imports that break the rule above, each with the reason. */
function uiViolations(imports: UiImport[]): string[] {
  const bad: string[] = [];
  for (const i of imports) {
    const edge = `${i.file} -> ${i.target}`;
    if (i.bare) {
      if (/^tmkit(?:\/|$)/.test(i.target))
        bad.push(`${edge}: the dashboard takes core by relative path (type imports), never the tmkit package`);
    } else if (i.target.startsWith('ui/')) {
    } else if (!i.target.startsWith('src/core/')) {
      bad.push(`${edge}: the dashboard may import from src/ only core (its types, and the values of ${UI_CORE_VALUES.join(', ')})`);
    } else if (!i.typeOnly && !UI_CORE_VALUES.includes(i.target)) {
      bad.push(
        `${edge}: a value import of a core module not in UI_CORE_VALUES (write \`import type\`, or add the module to the list if it is pure and meant to be bundled)`,
      );
    }
  }
  return bad;
}

const uiFiles = files(join(REPO, 'ui', 'src')).map((f) => relative(REPO, f));
const uiImports = uiFiles.flatMap(uiImportsOf);

test("the dashboard's imports were read (ui/src)", () => {
  expect(uiFiles.length).toBeGreaterThan(10);
  expect(uiImports.some((i) => i.target.startsWith('src/core/') && i.typeOnly)).toBe(true);
  for (const m of UI_CORE_VALUES) expect({ m, core: m.startsWith('src/core/') && graph.has(m) }).toEqual({ m, core: true });
});

test("ui/src imports from src/ only core's types and the core value modules in UI_CORE_VALUES (never runtime or client)", () => {
  expect(uiViolations(uiImports)).toEqual([]);
});

test('the dashboard rule finds a forbidden import', () => {
  const edge = (target: string, typeOnly: boolean, bare = false): UiImport => ({ file: 'ui/src/x.ts', target, bare, typeOnly });
  const allowed = [
    edge('ui/src/api/client.ts', false),
    edge('src/core/api/index.ts', true),
    edge('src/core/data/index.ts', false),
    edge('src/core/model/names.ts', false),
    edge('preact/hooks', false, true),
  ];
  const forbidden = [
    edge('src/runtime/api/server.ts', false),
    edge('src/runtime/read-models.ts', true),
    edge('src/client/index.ts', true),
    edge('src/core/plan/index.ts', false),
    edge('src/geo/lookup.ts', false),
    edge('tmkit/client', false, true),
  ];
  expect(uiViolations(allowed)).toEqual([]);
  expect(uiViolations(forbidden).map((b) => b.split(':')[0])).toEqual(forbidden.map((i) => `ui/src/x.ts -> ${i.target}`));
  expect(uiImportsOf('ui/src/lib/tree.ts')).toEqual(
    expect.arrayContaining([
      { file: 'ui/src/lib/tree.ts', target: 'src/core/model/names.ts', bare: false, typeOnly: false },
      { file: 'ui/src/lib/tree.ts', target: 'ui/src/api/types.ts', bare: false, typeOnly: true },
    ]),
  );
});
