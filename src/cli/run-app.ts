/**
 * Runs one constructs app file for `tmkit synth` (`"app": "main.ts"` in tmkit.json): `node run-app.js
 * FILE [ARGS...]`. TypeScript (and ESM) goes through jiti, a dependency of tmkit itself, so a project needs
 * nothing but tmkit to synthesize a `.ts` app. When the app's directory cannot resolve `tmkit` (tmkit run
 * with npx from elsewhere), `import ... from 'tmkit'` (and `tmkit/constructs`, ...) is pointed at the running tmkit.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { createJiti } from 'jiti';
import { packageRoot } from '../package';

function resolvesFrom(dir: string, id: string): boolean {
  try {
    createRequire(join(dir, 'noop.js')).resolve(id);
    return true;
  } catch {
    return false;
  }
}

/** `tmkit` and each of its subpaths (`tmkit/constructs`, ...) → the running tmkit's file (package.json `exports`). */
function selfAliases(): Record<string, string> {
  const root = packageRoot();
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports?: Record<string, string | { default?: string }> };
  const out: Record<string, string> = {};
  for (const [sub, target] of Object.entries(pkg.exports ?? {})) {
    const file = typeof target === 'string' ? target : target.default;
    if (file !== undefined) out[`tmkit${sub.slice(1)}`] = join(root, file);
  }
  out.tmkit = join(root, 'dist/src/index.js');
  return out;
}

async function main(argv: string[]): Promise<number> {
  const [fileArg, ...rest] = argv;
  if (fileArg === undefined) {
    process.stderr.write('tmkit: run-app needs the app file, e.g. `node run-app.js main.ts`\n');
    return 2;
  }
  const file = resolve(fileArg);
  if (!existsSync(file)) {
    process.stderr.write(`tmkit: the app file ${file} does not exist; set "app" in tmkit.json to your app's entry file (e.g. "main.ts")\n`);
    return 1;
  }
  const self = join(packageRoot(), 'dist/src/index.js');
  const alias = !resolvesFrom(dirname(file), 'tmkit') && existsSync(self) ? selfAliases() : undefined;
  const jiti = createJiti(file, { interopDefault: true, ...(alias ? { alias } : {}) });
  process.argv = [process.argv[0]!, file, ...rest];
  // import() rather than require: ESM apps and top-level await work too.
  await jiti.import(file);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // A SynthError lists every diagnostic in its message; a stack would only hide it.
    const e = err as { code?: string; message?: string; stack?: string };
    process.stderr.write(`${e?.code === 'SYNTH_INVALID' || e?.code === 'INVALID_PROPS' ? e.message : (e?.stack ?? String(err))}\n`);
    process.exitCode = 1;
  },
);
