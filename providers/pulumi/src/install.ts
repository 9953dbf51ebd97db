/**
 * `tmkit pulumi install` (docs/ARCHITECTURE.md, "Providers"): puts the plugin where the Pulumi CLI finds it, offline. DIR gets one
 * executable, `pulumi-resource-tmkit`, a shell wrapper that execs the absolute path of the Node.js running
 * the install on the provider's JS inside the installed package (not `node` from PATH, which may be another
 * version when the engine starts the plugin). The engine finds it on PATH (the last stdout line exports it),
 * or `pulumi plugin install resource tmkit <version> --file DIR` copies it into the plugin cache. No
 * PulumiPlugin.yaml goes beside it: with one the engine would treat the directory as a plugin to run through
 * a language host. A reinstall rewrites nothing that is already identical.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface PulumiInstallOptions {
  /** Where the plugin goes (made absolute). */
  dir: string;
  version: string;
  /** Absolute path of the provider's JS entry (dist/providers/pulumi/src/main.js). */
  entry: string;
  /** Node binary the wrapper runs (default process.execPath). */
  node?: string;
}

export interface PulumiInstallResult {
  dir: string;
  executable: string;
  /** Files written (not identical before). */
  written: string[];
  /** `export PATH=DIR:$PATH`, the line to print last. */
  exportLine: string;
  /** The alternative to PATH: copy the plugin into Pulumi's plugin cache (offline). */
  pluginInstall: string;
}

const shQuote = (s: string): string => (/^[\w./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
const VERSION_RE = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

export function installPulumi(opts: PulumiInstallOptions): PulumiInstallResult {
  const dir = resolve(opts.dir);
  const node = opts.node ?? process.execPath;
  if (!VERSION_RE.test(opts.version))
    throw new Error(
      `install: version ${JSON.stringify(opts.version)} is not a semantic version (MAJOR.MINOR.PATCH), which Pulumi plugins need`,
    );
  if (!existsSync(opts.entry))
    throw new Error(`install: the provider entry ${opts.entry} does not exist; build the package first (npm run build)`);
  mkdirSync(dir, { recursive: true });
  const executable = join(dir, 'pulumi-resource-tmkit');
  const wrapper =
    `#!/bin/sh\n# pulumi-resource-tmkit ${opts.version}: the tmkit Pulumi provider, run with the Node.js that installed it (tmkit pulumi install).\n` +
    `exec '${node.replace(/'/g, `'\\''`)}' '${resolve(opts.entry).replace(/'/g, `'\\''`)}' "$@"\n`;
  const written: string[] = [];
  if (!(existsSync(executable) && readFileSync(executable, 'utf8') === wrapper)) {
    writeFileSync(executable, wrapper, { mode: 0o755 });
    written.push(executable);
  }
  chmodSync(executable, 0o755);
  return {
    dir,
    executable,
    written,
    exportLine: `export PATH=${shQuote(dir)}:$PATH`,
    pluginInstall: `pulumi plugin install resource tmkit ${opts.version} --file ${shQuote(dir)}`,
  };
}
