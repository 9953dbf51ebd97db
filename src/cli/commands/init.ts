import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_STATE_DIR } from '../../client';
import { packageVersion } from '../../package';
import { CliError, EXIT_USAGE } from '../errors';
import { displayFile, toJsonText } from '../util/files';
import { packForInstall, runsFromClone } from '../util/pack';
import { packageRoot } from '../../package';

/** Azure's profile-name rule, and the stack rule (a DNS label). */
const PROFILE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,61}[A-Za-z0-9])?$/;
const STACK_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** Where `tmkit init` run from a clone puts the tarballs the app installs (package.json `file:` specs). */
const VENDOR = 'vendor';

/**
 * The devDependency spec for tmkit when it runs from an installed copy: the spec the project that installed
 * it uses (a `file:` tarball rebased to `dir`), else `^<version>` for the registry.
 */
function installedSpec(dir: string): string {
  const root = packageRoot();
  const parts = root.split(sep);
  const at = parts.lastIndexOf('node_modules');
  if (at > 0) {
    const project = parts.slice(0, at).join(sep) || sep;
    try {
      const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      const spec = pkg.devDependencies?.tmkit ?? pkg.dependencies?.tmkit;
      if (spec?.startsWith('file:')) return `file:${relative(dir, resolve(project, spec.slice(5))) || '.'}`;
      if (spec !== undefined) return spec;
    } catch {
      // no readable package.json: the registry spec
    }
  }
  return `^${packageVersion()}`;
}

/** `word` as one shell word: as it is when it is safe, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w./@+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

interface InitOptions {
  name?: string;
  stack?: string;
  force?: boolean;
}

/** A stack name from a directory name: lower-case letters, digits and `-` (falls back to `app`). */
function stackFrom(dir: string): string {
  const s = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return s === '' ? 'app' : s;
}

export function mainTs(profile: string, stack: string): string {
  return `/**
 * A tmkit constructs app (scaffolded by \`tmkit init\`): one Priority (failover) profile, "${profile}", with a
 * primary and a backup endpoint on loopback addresses (the self-hosted runtime allows them; Azure would
 * not, see \`tmkit validate --strict-azure\`).
 *
 *   npx tmkit synth                                  runs this file (tmkit.json "app"), validates, writes tmkit.out/tmkit.out.json
 *   npx tmkit plan tmkit.out/tmkit.out.json          what applying it to the running server would change
 *   npx tmkit apply tmkit.out/tmkit.out.json         deploy it (stack "${stack}": only this app's profiles are compared)
 *
 * The health probe asks http://<target>:8080/healthz every 10 s; answer it with 200 and the endpoint is Online.
 */
import { App, ExternalEndpoint, Profile } from 'tmkit';

const app = new App({ stack: '${stack}' });

const web = new Profile(app, '${profile}', {
  trafficRoutingMethod: 'Priority',
  dnsConfig: { ttl: 30 },
  monitorConfig: { protocol: 'HTTP', port: 8080, path: '/healthz', intervalInSeconds: 10, toleratedNumberOfFailures: 2 },
});
new ExternalEndpoint(web, 'primary', { target: '127.0.0.1' });
new ExternalEndpoint(web, 'backup', { target: '127.0.0.2' });

app.synth();
`;
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'commonjs',
    moduleResolution: 'node10',
    strict: true,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
  },
  include: ['*.ts'],
};

/**
 * `tmkit init [DIR]`: scaffolds a constructs app that synthesizes and validates as it is: `main.ts`,
 * `tmkit.json` (`{"app": "main.ts"}`: tmkit runs the file with the TypeScript loader it ships), and, when
 * missing, `package.json` (tmkit as a devDependency), `tsconfig.json` (for editors and `tsc`) and
 * `.gitignore` (`.tmkit/` holds the API token). Never overwrites `main.ts` or `tmkit.json` without `--force`.
 */
export function registerInit(program: Command): void {
  program
    .command('init')
    .description(
      'scaffold a tmkit constructs app (main.ts, tmkit.json, package.json) that `tmkit synth` synthesizes and validates as it is',
    )
    .argument('[dir]', 'directory of the new app (created if missing)', '.')
    .option('--name <profile>', 'name (and DNS label) of the example profile (default: the stack name)')
    .option('--stack <name>', "the document's stack (default: the directory name), so this app never plans away another app's profiles")
    .option('--force', 'overwrite an existing main.ts and tmkit.json')
    .action((dirArg: string, opts: InitOptions) => {
      const dir = resolve(dirArg);
      const stack = opts.stack ?? stackFrom(dir);
      const name = opts.name ?? stack;
      if (!PROFILE_NAME.test(name)) {
        throw new CliError(
          `--name ${JSON.stringify(name)}: a profile name is 1–63 letters, digits, "-" and ".", starting and ending with a letter or digit`,
          EXIT_USAGE,
        );
      }
      if (!STACK_NAME.test(stack)) {
        throw new CliError(
          `--stack ${JSON.stringify(stack)}: a stack is 1–63 letters, digits and "-", starting and ending with a letter or digit`,
          EXIT_USAGE,
        );
      }
      const existing = ['main.ts', 'tmkit.json'].filter((f) => existsSync(join(dir, f)));
      if (existing.length > 0 && !opts.force) {
        throw new CliError(
          `${existing.map((f) => displayFile(join(dir, f))).join(' and ')} already exist${existing.length === 1 ? 's' : ''}; ` +
            `nothing was written (pass --force to overwrite, or init another directory)`,
        );
      }
      mkdirSync(dir, { recursive: true });
      const written: string[] = [];
      const write = (file: string, text: string): void => {
        writeFileSync(join(dir, file), text);
        written.push(file);
      };
      write('main.ts', mainTs(name, stack));
      write('tmkit.json', toJsonText({ app: 'main.ts', output: 'tmkit.out' }));
      const pkgFile = join(dir, 'package.json');
      const hasPackageJson = existsSync(pkgFile);
      let needsTmkit = !hasPackageJson;
      if (hasPackageJson) {
        try {
          const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as {
            dependencies?: Record<string, string>;
            devDependencies?: Record<string, string>;
          };
          needsTmkit = pkg.dependencies?.tmkit === undefined && pkg.devDependencies?.tmkit === undefined;
        } catch {
          needsTmkit = true;
        }
      }
      // tmkit is not on the registry yet: from a clone, the app gets tarballs of it (its dependencies
      // bundled) and of constructs in vendor/, which npm installs with no registry (util/pack.ts).
      const vendored = needsTmkit && runsFromClone() ? packForInstall(join(dir, VENDOR)) : undefined;
      const specs = vendored
        ? { tmkit: `file:${VENDOR}/${basename(vendored.tmkit)}`, constructs: `file:${VENDOR}/${basename(vendored.constructs)}` }
        : { tmkit: installedSpec(dir) };
      if (vendored) written.push(`${VENDOR}/`);
      if (!hasPackageJson) {
        write(
          'package.json',
          toJsonText({
            name: stack,
            version: '0.0.0',
            private: true,
            scripts: { synth: 'tmkit synth', plan: 'tmkit plan tmkit.out/tmkit.out.json', apply: 'tmkit apply tmkit.out/tmkit.out.json' },
            devDependencies: specs,
          }),
        );
      }
      if (!existsSync(join(dir, 'tsconfig.json'))) write('tsconfig.json', toJsonText(TSCONFIG));
      if (!existsSync(join(dir, '.gitignore'))) write('.gitignore', 'node_modules/\n.tmkit/\n');
      const shown = displayFile(dir);
      // The server the app deploys to: a `tmkit serve` started where init runs (the README's quick start, in
      // the clone) keeps its token and address in ./.tmkit; from the app, TMKIT_STATE_DIR points there.
      const serveState = resolve(DEFAULT_STATE_DIR);
      const stateDir =
        serveState !== join(dir, DEFAULT_STATE_DIR) && existsSync(join(serveState, 'token')) ? relative(dir, serveState) : undefined;
      const install = written.includes('package.json')
        ? 'npm install'
        : `npm install --save-dev ${Object.values(specs)
            .map((v) => (v.startsWith('file:') ? `./${v.slice(5)}` : `tmkit@${v}`))
            .join(' ')}`;
      process.stdout.write(
        [
          `Scaffolded a tmkit app in ${shown} (stack "${stack}", profile "${name}"): ${written.join(', ')}.`,
          'Next:',
          ...(shown === '.' ? [] : [`  cd ${shellWord(shown)}`]),
          ...(needsTmkit
            ? [
                `  ${install.padEnd(28)} # ${vendored ? `from ${VENDOR}/, no registry needed; ` : ''}synth runs main.ts with tmkit's own TypeScript loader`,
              ]
            : []),
          `  ${'npx tmkit synth'.padEnd(28)} # runs main.ts, validates, writes tmkit.out/tmkit.out.json`,
          ...(stateDir !== undefined
            ? [
                `  ${`export TMKIT_STATE_DIR=${shellWord(stateDir)}`.padEnd(28)} ` +
                  `# the token and address of the tmkit serve run in ${shellWord(relative(dir, dirname(serveState)) || '.')}`,
              ]
            : []),
          `  ${'npx tmkit plan'.padEnd(28)} # what applying tmkit.out/tmkit.out.json would change on the running tmkit serve`,
          `  ${'npx tmkit apply'.padEnd(28)} # deploys it there (stack "${stack}": only this app's profiles are compared)`,
          '',
        ].join('\n'),
      );
    });
}
