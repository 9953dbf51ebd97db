/**
 * Install layout (docs/ARCHITECTURE.md, "Providers"): an unpacked filesystem mirror that Terraform and
 * OpenTofu install the provider from, offline, and a CLI configuration pointing at it (both read
 * TF_CLI_CONFIG_FILE).
 *
 *   DIR/mirror/<host>/<namespace>/<type>/<version>/<os>_<arch>/terraform-provider-<type>_v<version>
 *   DIR/terraformrc
 *
 * `<host>` is each registry a bare `source = "tmkit/tmkit"` resolves to: registry.terraform.io for terraform,
 * registry.opentofu.org for tofu. The provider is laid out under both (the same wrapper bytes, so the same
 * hash), so one install serves either CLI and a configuration moves between them unchanged.
 *
 * The executable is a two-line shell wrapper that execs the absolute path of the Node binary running the
 * install (process.execPath) on the provider's JS inside the installed package. Absolute paths, not
 * `exec node`: a `node` found on PATH at plan time may be another version than the one the package was
 * installed with. The wrapper's bytes (and so the h1: hash in .terraform.lock.hcl) are the same for
 * every reinstall of one version on one machine; another machine or Node location gives other bytes,
 * so the lock file is per machine (commit it without this provider's hashes, or run `terraform
 * providers lock` there). A reinstall rewrites nothing that is already identical.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const DEFAULT_HOSTNAME = 'registry.terraform.io';
/** The registries `<namespace>/<type>` means to terraform and to OpenTofu's tofu. */
export const DEFAULT_HOSTNAMES = [DEFAULT_HOSTNAME, 'registry.opentofu.org'] as const;

export interface InstallOptions {
  /** Where the mirror and terraformrc go (made absolute). */
  dir: string;
  version: string;
  /** Provider type (the name after terraform-provider-), default "tmkit". */
  type?: string;
  /** Registry namespace, default "tmkit". */
  namespace?: string;
  /** Registry hosts to lay the provider out under (default DEFAULT_HOSTNAMES: terraform's and OpenTofu's). */
  hostnames?: readonly string[];
  /** Absolute path of the provider's JS entry point. */
  entry: string;
  /** Node binary the wrapper runs (default process.execPath). */
  node?: string;
  /** Terraform platform, default this machine's (e.g. linux_amd64). */
  platform?: string;
}

export interface InstallResult {
  /** Provider source address, e.g. registry.terraform.io/tmkit/tmkit (the first host's). */
  source: string;
  /** Every source address installed (one per host). */
  sources: string[];
  /** The first host's executable. */
  executable: string;
  mirror: string;
  cliConfig: string;
  /** `export TF_CLI_CONFIG_FILE=...`, the line to print last. */
  exportLine: string;
  /** Files written (not identical before). */
  written: string[];
}

/** Terraform's platform name for this machine. */
export function terraformPlatform(platform: string = process.platform, arch: string = process.arch): string {
  const os = platform === 'win32' ? 'windows' : platform;
  const cpu = arch === 'x64' ? 'amd64' : arch === 'ia32' ? '386' : arch === 'arm' ? 'arm' : arch;
  return `${os}_${cpu}`;
}

const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const hclString = (s: string): string => JSON.stringify(s);

const VERSION_RE = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
const NAME_RE = /^[a-z0-9][a-z0-9-]*$/;

function writeIfChanged(file: string, content: string, mode: number, written: string[]): void {
  if (existsSync(file) && readFileSync(file, 'utf8') === content) {
    chmodSync(file, mode);
    return;
  }
  writeFileSync(file, content, { mode });
  chmodSync(file, mode);
  written.push(file);
}

export function install(opts: InstallOptions): InstallResult {
  const dir = resolve(opts.dir);
  const type = opts.type ?? 'tmkit';
  const namespace = opts.namespace ?? 'tmkit';
  const hostnames = opts.hostnames ?? DEFAULT_HOSTNAMES;
  const node = opts.node ?? process.execPath;
  if (!VERSION_RE.test(opts.version))
    throw new Error(
      `install: version ${JSON.stringify(opts.version)} is not a semantic version (MAJOR.MINOR.PATCH); Terraform only installs such versions`,
    );
  if (!NAME_RE.test(type) || !NAME_RE.test(namespace))
    throw new Error(`install: provider ${namespace}/${type}: namespace and type are lower-case letters, digits and dashes`);
  if (!existsSync(opts.entry))
    throw new Error(`install: the provider entry ${opts.entry} does not exist; build the package first (npm run build)`);
  const platform = opts.platform ?? terraformPlatform();
  const mirror = join(dir, 'mirror');
  const written: string[] = [];
  const wrapper =
    `#!/bin/sh\n# terraform-provider-${type} ${opts.version}: runs the provider's JS with the ` +
    `Node.js that installed it.\nexec ${shQuote(node)} ${shQuote(resolve(opts.entry))} "$@"\n`;
  const executables = hostnames.map((hostname) => {
    const pkgDir = join(mirror, hostname, namespace, type, opts.version, platform);
    mkdirSync(pkgDir, { recursive: true });
    const executable = join(pkgDir, `terraform-provider-${type}_v${opts.version}`);
    writeIfChanged(executable, wrapper, 0o755, written);
    return executable;
  });

  // Every provider in this mirror comes from it (several may be installed into one DIR).
  const sources: string[] = [];
  for (const host of readdirSync(mirror).sort()) {
    for (const ns of safeDirs(join(mirror, host))) for (const t of safeDirs(join(mirror, host, ns))) sources.push(`${host}/${ns}/${t}`);
  }
  const list = sources.map(hclString).join(', ');
  const rc =
    `# Written by \`tmkit terraform install\`: install ${sources.join(', ')} from the local mirror, everything else as usual.\n` +
    `provider_installation {\n  filesystem_mirror {\n    path    = ${hclString(mirror)}\n    ` +
    `include = [${list}]\n  }\n  direct {\n    exclude = [${list}]\n  }\n}\n`;
  const cliConfig = join(dir, 'terraformrc');
  writeIfChanged(cliConfig, rc, 0o644, written);
  const installed = hostnames.map((h) => `${h}/${namespace}/${type}`);
  return {
    source: installed[0]!,
    sources: installed,
    executable: executables[0]!,
    mirror,
    cliConfig,
    exportLine: `export TF_CLI_CONFIG_FILE=${shQuote(cliConfig).replace(/^'([\w./-]+)'$/, '$1')}`,
    written,
  };
}

function safeDirs(d: string): string[] {
  try {
    return readdirSync(d, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}
