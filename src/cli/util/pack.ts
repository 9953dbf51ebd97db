/**
 * Tarballs that install tmkit from a clone on a machine with no registry access (`tmkit pack`, and `tmkit
 * init` run from a clone). Until tmkit is published, a project gets it from a clone this way:
 *
 * - `tmkit-<version>.tgz`: the package as `npm pack` makes it from the clone's dist/, with its runtime
 *   dependencies bundled (`bundleDependencies`, copied from the clone's node_modules), so `npm install` of it
 *   needs no registry; and without lifecycle scripts or devDependencies, so there is no `prepare` build to
 *   run and nothing for npm 11 to warn about (bundled dependencies run no install scripts).
 * - `constructs-<version>.tgz`: tmkit's peer dependency, packed from the clone's node_modules, so the project
 *   and tmkit share it as a peer and it installs without a registry too.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { DEFAULT_COUNTRY_DATABASE_PACKAGE } from '../../geo/lookup';
import { packageRoot } from '../../package';
import { CliError } from '../errors';

interface Manifest {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [key: string]: unknown;
}

export interface Packed {
  /** Absolute paths of the tarballs. */
  tmkit: string;
  constructs: string;
  /** The geo database package's tarball, when asked for (`--geo`). */
  geo?: string;
  /** The tmkit tarball's size in bytes, its number of files, and how many packages are bundled in it. */
  bytes: number;
  files: number;
  bundled: number;
}

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** True when tmkit runs from a clone (a checkout with its own node_modules), not from an installed copy. */
export function runsFromClone(root = packageRoot()): boolean {
  return !root.split(sep).includes('node_modules') && existsSync(join(root, 'node_modules'));
}

/** Where `name` resolves from the package in `dir`, as Node resolves it: `dir/node_modules/name`, then up to `root`. */
function locate(dir: string, name: string, root: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    const candidate = join(d, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (d === root || dirname(d) === d) return undefined;
  }
}

/** The package directories (under `root`) of every runtime dependency of the package in `root`, transitively. */
function runtimeClosure(root: string): string[] {
  const seen = new Set<string>();
  const queue = [root];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    const m = readManifest(dir);
    const wanted = [
      ...Object.keys(m.dependencies ?? {}).map((n) => ({ n, optional: false })),
      ...Object.keys(m.optionalDependencies ?? {}).map((n) => ({ n, optional: true })),
    ];
    for (const { n, optional } of wanted) {
      const found = locate(dir, n, root);
      if (found === undefined) {
        if (optional) continue;
        throw new CliError(
          `pack: ${n} (a dependency of ${m.name ?? dir}) is not installed in ${join(root, 'node_modules')}; run \`npm ci\` in the clone first`,
        );
      }
      if (!seen.has(found)) {
        seen.add(found);
        queue.push(found);
      }
    }
  }
  return [...seen];
}

/** `npm pack` of `dir` into `out`; the tarball's path, size and file count (from `--json`). */
function npmPack(dir: string, out: string): { file: string; bytes: number; files: number; bundled: number } {
  const r = spawnSync('npm', ['pack', dir, '--ignore-scripts', '--json', '--pack-destination', out], {
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_loglevel: 'error' },
  });
  if (r.error || r.status !== 0)
    throw new CliError(`pack: npm pack ${dir} failed: ${r.error?.message ?? r.stderr.trim().split('\n').slice(-3).join(' ')}`);
  const [info] = JSON.parse(r.stdout) as Array<{ filename: string; size: number; entryCount: number; bundled?: string[] }>;
  if (!info) throw new CliError(`pack: npm pack ${dir} printed no tarball`);
  return { file: join(out, info.filename), bytes: info.size, files: info.entryCount, bundled: info.bundled?.length ?? 0 };
}

/** The geo database package (an optional peer: only where `tmkit serve` runs). */
export const GEO_PACKAGE = DEFAULT_COUNTRY_DATABASE_PACKAGE;

/**
 * Packs tmkit (with its runtime dependencies) and constructs into `out`, from the clone tmkit runs from;
 * with `geo`, the geo database package too (from the clone's node_modules, where it is a devDependency).
 */
export function packForInstall(out: string, options: { geo?: boolean } = {}, root = packageRoot()): Packed {
  if (!runsFromClone(root)) {
    throw new CliError(
      `pack: tmkit runs from ${root}, an installed copy; run \`npx tmkit pack\` in a clone of the tmkit repository (after \`npm ci\`)`,
    );
  }
  if (!existsSync(join(root, 'dist', 'src', 'cli', 'bin.js')))
    throw new CliError(`pack: ${join(root, 'dist')} is not built; run \`npm ci\` (or \`npm run build\`) in ${root} first`);
  const constructsDir = locate(root, 'constructs', root);
  if (constructsDir === undefined)
    throw new CliError(
      `pack: constructs (tmkit's peer dependency) is not installed in ${join(root, 'node_modules')}; run \`npm ci\` in the clone first`,
    );
  const stage = mkdtempSync(join(tmpdir(), 'tmkit-pack-'));
  try {
    const manifest = readManifest(root);
    const { scripts: _scripts, devDependencies: _dev, allowScripts: _allow, ...rest } = manifest;
    writeFileSync(
      join(stage, 'package.json'),
      `${JSON.stringify({ ...rest, bundleDependencies: Object.keys(manifest.dependencies ?? {}) }, null, 2)}\n`,
    );
    // What `files` lists (npm pack applies its exclusions again in the stage), then each runtime dependency
    // at its place in the clone's node_modules, without the dependencies nested in it (they are copied as
    // members of the closure themselves) and without .bin links.
    for (const f of ['dist', 'README.md', 'LICENSE', 'providers/pulumi/bin/pulumi-resource-tmkit']) {
      if (existsSync(join(root, f))) cpSync(join(root, f), join(stage, f), { recursive: true });
    }
    for (const dep of runtimeClosure(root)) {
      const rel = relative(root, dep);
      cpSync(dep, join(stage, rel), { recursive: true, filter: (src) => !relative(dep, src).split(sep).includes('node_modules') });
    }
    mkdirSync(resolve(out), { recursive: true });
    const tmkit = npmPack(stage, resolve(out));
    const constructs = npmPack(constructsDir, resolve(out));
    let geo: string | undefined;
    if (options.geo) {
      const geoDir = locate(root, GEO_PACKAGE, root);
      if (geoDir === undefined)
        throw new CliError(`pack: ${GEO_PACKAGE} is not installed in ${join(root, 'node_modules')}; run \`npm ci\` in the clone first`);
      geo = npmPack(geoDir, resolve(out)).file;
    }
    return {
      tmkit: tmkit.file,
      constructs: constructs.file,
      ...(geo !== undefined ? { geo } : {}),
      bytes: tmkit.bytes,
      files: tmkit.files,
      bundled: tmkit.bundled,
    };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
