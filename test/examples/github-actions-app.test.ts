/**
 * SLOW (one `tmkit init`, which packs tmkit, and three offline `npm` installs: about 1-2 min). Issue 40 item 5:
 * examples/github-actions/tmkit-plan.yml copied into a scratch `tmkit init` app works as a pull request would
 * run it. The app is a git repository with a `main` branch and a `change` branch (pushed to a bare `origin`,
 * checked out shallow as actions/checkout does); the workflow's `run:` steps, read from the YAML with their
 * `env:` and `if:`, run in order under bash as on a runner (GITHUB_ENV, GITHUB_OUTPUT, RUNNER_TEMP), with no
 * runtime configured and no npm registry (tmkit comes from the app's committed vendor/ tarballs). The
 * pull request's paths trigger the workflow, the plan is against the base branch's synthesized app and shows
 * the change; a base branch whose app cannot be synthesized fails its step instead of planning against an
 * empty document.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, REPO, cleanEnv } from '../support/process';

jest.setTimeout(600_000);

const load = createRequire(__filename)('js-yaml').load as (text: string) => unknown;
const picomatch = createRequire(__filename)('picomatch') as (glob: string, o?: object) => (path: string) => boolean;

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Workflow {
  on: { pull_request: { paths: string[] } };
  env: Record<string, string>;
  jobs: { plan: { steps: Step[] } };
}

const workflow = load(readFileSync(join(REPO, 'examples/github-actions/tmkit-plan.yml'), 'utf8')) as Workflow;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: cleanEnv({ ...OFFLINE, ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function ok(cmd: string, args: string[], cwd: string): Promise<string> {
  const r = await sh(cmd, args, cwd);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

let dir: string;
/** No npm registry (tmkit is unpublished): --offline, an empty cache of the test's own, a registry nobody serves. */
let OFFLINE: NodeJS.ProcessEnv = {};
const GIT = ['-c', 'user.name=dev', '-c', 'user.email=dev@example.com', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-gha-app-'));
  mkdirSync(join(dir, 'npm-cache'));
  OFFLINE = {
    npm_config_offline: 'true',
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_update_notifier: 'false',
  };
  // The developer: tmkit init (from this clone: vendor/ tarballs), npm install (writes package-lock.json), commit.
  await ok(process.execPath, [BIN, 'init', 'app', '--stack', 'shop', '--name', 'web'], dir);
  const app = join(dir, 'app');
  await ok('npm', ['install', '--no-audit', '--no-fund'], app);
  await ok('git', [...GIT, 'init', '-q'], app);
  await ok('git', [...GIT, 'add', '.'], app);
  await ok('git', [...GIT, 'commit', '-q', '-m', 'tmkit init'], app);
  // The pull request: the profile's TTL 30 → 60.
  await ok('git', [...GIT, 'checkout', '-q', '-b', 'change'], app);
  const main = readFileSync(join(app, 'main.ts'), 'utf8');
  expect(main).toContain('dnsConfig: { ttl: 30 }');
  // …and routing tests the change declares (synth writes tmkit.out/tmkit.tests.json; the workflow runs them).
  const change = main
    .replace('dnsConfig: { ttl: 30 }', 'dnsConfig: { ttl: 60 }')
    .replace(
      'app.synth();',
      "web.expect('primary first', { expect: ['primary'] });\nweb.expect('primary down: backup', { down: ['primary'], expect: ['backup'] });\nweb.expect('failover bound', { maxFailoverSeconds: 120 });\napp.synth();",
    );
  writeFileSync(join(app, 'main.ts'), change);
  await ok('git', [...GIT, 'commit', '-q', '-am', 'longer TTL'], app);
  // A base branch whose app does not synthesize.
  await ok('git', [...GIT, 'checkout', '-q', '-b', 'broken', 'main'], app);
  writeFileSync(join(app, 'main.ts'), `${main}throw new Error('half-finished refactoring');\n`);
  await ok('git', [...GIT, 'commit', '-q', '-am', 'broken'], app);
  await ok('git', [...GIT, 'clone', '-q', '--bare', app, join(dir, 'origin.git')], dir);
}, 600_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `${{ … }}` as the workflow uses it, for a pull request with no runtime secrets. */
function expr(text: string, ctx: { base: string; env: Record<string, string>; outputs: Record<string, Record<string, string>> }): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_m, e: string) => {
    if (e === "secrets.TMKIT_SERVER != ''") return 'false';
    if (/^secrets\.\w+$/.test(e)) return '';
    if (e === 'github.base_ref') return ctx.base;
    let m = /^env\.(\w+) != '(.*)'$/.exec(e);
    if (m) return String(ctx.env[m[1]!] !== m[2]);
    m = /^steps\.(\w+)\.outputs\.(\w+) == '(.*)'$/.exec(e);
    if (m) return String(ctx.outputs[m[1]!]?.[m[2]!] === m[3]);
    throw new Error(`the test does not know the expression \${{ ${e} }}: teach expr() what it means on a pull request`);
  });
}

const readKv = (file: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

/** A shallow checkout of `branch` (as actions/checkout) and the workflow's run steps in it, against `base`. */
async function runWorkflow(
  branch: string,
  base: string,
  only?: (s: Step) => boolean,
): Promise<{ ws: string; steps: Array<{ name: string; code: number | null; out: string }> }> {
  const ws = join(dir, `ws-${branch}-${base}`);
  const temp = mkdtempSync(join(dir, 'runner-temp-'));
  await ok('git', [...GIT, 'clone', '-q', '--depth=1', '--branch', branch, `file://${join(dir, 'origin.git')}`, ws], dir);
  const ctx = { base, env: {} as Record<string, string>, outputs: {} as Record<string, Record<string, string>> };
  for (const [k, v] of Object.entries(workflow.env)) ctx.env[k] = expr(v, ctx);
  const steps: Array<{ name: string; code: number | null; out: string }> = [];
  for (const step of workflow.jobs.plan.steps) {
    if (step.run === undefined || (only && !only(step))) continue;
    if (step.if !== undefined && expr(step.if, ctx) !== 'true') continue;
    const githubEnv = join(temp, `env-${steps.length}`);
    const githubOutput = join(temp, `output-${steps.length}`);
    writeFileSync(githubEnv, '');
    writeFileSync(githubOutput, '');
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expr(v, ctx)]));
    const script = join(temp, `step-${steps.length}.sh`);
    writeFileSync(script, step.run);
    // GitHub's default shell on Linux runners: bash --noprofile --norc -eo pipefail {0}.
    const r = await sh('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], ws, {
      ...ctx.env,
      ...stepEnv,
      RUNNER_TEMP: temp,
      GITHUB_ENV: githubEnv,
      GITHUB_OUTPUT: githubOutput,
      GITHUB_WORKSPACE: ws,
      CI: 'true',
    });
    Object.assign(ctx.env, readKv(githubEnv));
    if (step.id) ctx.outputs[step.id] = readKv(githubOutput);
    steps.push({ name: step.name ?? step.run.split('\n')[0]!, code: r.code, out: `${r.stdout}${r.stderr}` });
    appendFileSync(join(temp, 'log'), `## ${step.name}\n${r.stdout}${r.stderr}\n`);
    if (r.code !== 0) break; // a failed step ends the job
  }
  return { ws, steps };
}

test('the pull request of a tmkit init app triggers the workflow: its paths filter matches what the change touches', async () => {
  const changed = (await ok('git', ['diff', '--name-only', 'main', 'change'], join(dir, 'app'))).trim().split('\n');
  expect(changed).toEqual(['main.ts']);
  const filters = workflow.on.pull_request.paths.map((p) => picomatch(p, { dot: true }));
  expect(changed.filter((f) => filters.some((m) => m(f)))).toEqual(['main.ts']);
  // The document the workflow plans is the one tmkit init's tmkit.json makes synth write.
  const tmkitJson = JSON.parse(readFileSync(join(dir, 'app/tmkit.json'), 'utf8')) as { output: string };
  expect(workflow.env.DOCUMENT).toBe(`${tmkitJson.output}/tmkit.out.json`);
  // vendor/ (the tarballs npm ci installs) and the lock file are committed, so CI has tmkit without a registry.
  const tracked = (await ok('git', ['ls-files'], join(dir, 'app'))).split('\n');
  expect(tracked).toEqual(expect.arrayContaining(['package-lock.json', expect.stringMatching(/^vendor\/tmkit-.*\.tgz$/)]));
});

test("the workflow's steps plan the change against the base branch's synthesized app: a real diff in the comment", async () => {
  const { ws, steps } = await runWorkflow('change', 'main');
  expect(steps.map((s) => [s.name, s.code])).toEqual([
    ['npm ci', 0],
    ["Synthesize the pull request's document", 0],
    ['Deployed state from the base branch (when no runtime is configured)', 0],
    ['tmkit plan', 0],
    ['tmkit test', 0],
  ]);
  const md = readFileSync(join(ws, 'plan.md'), 'utf8');
  // The app's routing tests ran: their lines in the comment, the JUnit report beside the plan.
  expect(md).toContain('**Routing tests (tmkit.out/tmkit.tests.json): 3 tests passed.**');
  expect(md).toContain('PASS  primary down: backup [web]: answered backup with primary down');
  expect(readFileSync(join(ws, 'tmkit-tests.xml'), 'utf8')).toContain('<testsuite name="tmkit test" tests="3" failures="0"');
  expect(md.startsWith('<!-- tmkit-plan -->\n')).toBe(true);
  // One profile changed (not "1 to add": the base is the synthesized main branch, not an empty document).
  expect(md).toContain('**Plan: 0 to add, 1 to change, 0 to replace, 0 to destroy.**');
  expect(md).toContain('| `~` | `web` | update | dnsConfig.ttl 30 → 60 |');
  expect(md).toContain('| `dnsConfig.ttl` | 30 | 60 |');
  expect(JSON.parse(readFileSync(join(ws, 'plan.json'), 'utf8'))).toBeInstanceOf(Object); // the artifact
});

test('a base branch whose app does not synthesize fails its step loudly, and nothing is planned', async () => {
  const { ws, steps } = await runWorkflow('change', 'broken');
  const last = steps[steps.length - 1]!;
  expect(last.name).toBe('Deployed state from the base branch (when no runtime is configured)');
  expect(last.code).not.toBe(0);
  expect(last.out).toContain('half-finished refactoring');
  expect(steps.map((s) => s.name)).not.toContain('tmkit plan');
  expect(() => readFileSync(join(ws, 'plan.md'))).toThrow();
});
