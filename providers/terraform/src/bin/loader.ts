/**
 * The provider executable's first file: loads the esbuild bundle next to it (`<this name>.bundle.js`) with a
 * V8 code cache, so that a start after the first skips compiling the 2.4 MB bundle. Terraform starts the
 * provider 3–4 times per command, and compiling was a third of each start (`npm run bench:terraform-start`).
 *
 * The cache is one file per bundle and Node build, in `$TMKIT_CACHE_DIR`, else `$XDG_CACHE_HOME/tmkit`, else
 * `~/.cache/tmkit`. It is written by the first start (about 10 ms more for that start), and again only when
 * V8 rejects it. V8 checks the source and its own version and flags before using the
 * data, and the file name holds the bundle's size and mtime and the Node version and arch, so a rebuilt
 * bundle or another Node never takes a stale cache. Any failure (no home, read-only disk, a torn file)
 * falls back to a plain compile: the cache can only make a start faster. Nothing here writes to stdout,
 * which carries the go-plugin handshake. `TMKIT_NO_CODE_CACHE=1` turns it off; `TMKIT_DEBUG_CODE_CACHE=1`
 * says hit/miss/rejected on stderr.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

type Wrapped = (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;

export function loadWithCodeCache(bundle: string, env: NodeJS.ProcessEnv = process.env): void {
  const source = readFileSync(bundle, 'utf8');
  const off = env.TMKIT_NO_CODE_CACHE === '1';
  const debug =
    env.TMKIT_DEBUG_CODE_CACHE === '1'
      ? (m: string): void => {
          process.stderr.write(`tmkit code cache: ${m}\n`);
        }
      : (): void => {};
  let cacheFile: string | undefined;
  let cachedData: Buffer | undefined;
  if (!off) {
    try {
      const st = statSync(bundle);
      const dir = env.TMKIT_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'tmkit');
      cacheFile = join(dir, `${basename(bundle, '.js')}-${st.size}-${Math.trunc(st.mtimeMs)}-${process.version}-${process.arch}.v8cache`);
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  const script = new Script(Module.wrap(source), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
  const state = cachedData === undefined ? 'miss' : script.cachedDataRejected === true ? 'rejected' : 'hit';
  debug(off ? 'off' : `${state} (${cacheFile})`);
  const mod = new Module(bundle, require.main);
  mod.filename = bundle;
  mod.paths = (Module as unknown as { _nodeModulePaths(d: string): string[] })._nodeModulePaths(dirname(bundle));
  const fn = script.runInThisContext() as Wrapped;
  fn.call(mod.exports, mod.exports, Module.createRequire(bundle), mod, bundle, dirname(bundle));
  if (cacheFile !== undefined && state !== 'hit') {
    // Now, not later: Terraform often stops a provider within milliseconds of its handshake (a schema-only
    // start). The server binds asynchronously, so this runs before the handshake line, once per bundle and Node.
    try {
      mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      renameSync(tmp, cacheFile);
      debug(`written (${cacheFile})`);
      // Caches of earlier builds of this bundle for this Node would only pile up (one per rebuild): drop them.
      const name = basename(cacheFile);
      const prefix = `${basename(bundle, '.js')}-`;
      const suffix = `-${process.version}-${process.arch}.v8cache`;
      for (const f of readdirSync(dirname(cacheFile))) {
        if (f !== name && f.startsWith(prefix) && f.endsWith(suffix)) {
          try {
            unlinkSync(join(dirname(cacheFile), f));
          } catch {
            /* another start removed it */
          }
        }
      }
    } catch (err) {
      debug(`not written: ${(err as Error).message}`);
    }
  }
}

if (require.main === module) loadWithCodeCache(__filename.replace(/\.js$/, '.bundle.js'));
