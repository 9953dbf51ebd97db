/**
 * `npm run bench:terraform [-- --endpoints 1000] [--rounds 2] [--cli tofu] [--base DIR]`: the tmkit Terraform
 * provider against a real `tmkit serve` on 127.0.0.1:0, next to the floors measured in the same run, as ratios.
 * N endpoints in profiles of 200 (Azure's limit), every layout timed through `apply` (create), `plan` with no
 * change, `apply` of one weight changed, and `destroy`:
 *
 * - tmkit, count: `tmkit_profile` count = N/200 and `tmkit_external_endpoint` count = N (the usual layout);
 * - tmkit, separate blocks: one resource block per object (what a generator writes; Terraform's own cost
 *   per block is about twice a counted instance's, so it is labelled and not the reference);
 * - tmkit, inline: N/200 `tmkit_profile` with `endpoint` blocks (one write per profile);
 * - floors: `terraform_data` count = N; the same graph in `terraform_data` (N/200 parents, N children each
 *   referencing its parent's id); and the same graph in the test-only trivial provider `tmkittest` on the
 *   same plugin layer (`stateless = true`: no backend), the plugin layer's own cost; and the same graph in
 *   `tmkittest` resources that carry tmkit's own schemas and nothing behind them: what Terraform alone spends on
 *   resources of that size, so the tmkit layout over it is what the tmkit provider and server add.
 * - `--base DIR`: another checkout, built (`npm run build` there), whose provider runs the tmkit count layout
 *   too ("before"), against the same server in the same run.
 *
 * Ratios: create and destroy over the trivial provider with the same graph, no-op plan over `terraform_data`
 * with the same graph, each also over the same-schema floor; inline create over the `terraform_data` count
 * floor. Rounds alternate the layouts (even rounds in reverse order); the best round of each is shown (the
 * machine is shared). Bounded:
 * everything on loopback, destroyed after each layout, the server stopped at the end.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { install } from '../providers/terraform/src/install';

const REPO = join(__dirname, '..');
const BIN = join(REPO, 'dist/src/cli/bin.js');
const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const N = Number(arg('endpoints', '1000'));
const ROUNDS = Number(arg('rounds', '2'));
const CLI = arg('cli', 'terraform');
const BASE = process.argv.includes('--base') ? arg('base', '') : undefined;
const PER_PROFILE = 200;
const P = Math.ceil(N / PER_PROFILE);

interface Layout {
  key: string;
  label: string;
  /** main.tf with endpoint 0's weight `w0`. */
  hcl(w0: number): string;
  /** Which installed providers (TF_CLI_CONFIG_FILE). */
  install: 'after' | 'before';
}

const tmkitHead = (stack: string): string =>
  `terraform {\n  required_providers {\n    tmkit = { source = "tmkit/tmkit" }\n  }\n}\nprovider "tmkit" {\n  stack = "${stack}"\n}\n`;
const target = (i: string): string => `"10.\${floor(${i} / 65536) % 256}.\${floor(${i} / 256) % 256}.\${${i} % 256}"`;
const profileBlock = (prefix: string, extra = ''): string => `resource "tmkit_profile" "p" {
  count                  = ${P}
  name                   = "${prefix}-\${count.index}"
  traffic_routing_method = "Weighted"
  dns_config {
    relative_name = "${prefix}-\${count.index}"
  }
  monitor_config {
    protocol = "TCP"
    port     = 9
  }
${extra}}
`;

function countLayout(prefix: string, stack: string): (w0: number) => string {
  return (w0) => `${tmkitHead(stack)}${profileBlock(prefix)}
resource "tmkit_external_endpoint" "e" {
  count                = ${N}
  name                 = "e\${count.index}"
  profile_id           = tmkit_profile.p[floor(count.index / ${PER_PROFILE})].id
  target               = ${target('count.index')}
  weight               = count.index == 0 ? ${w0} : 1
  always_serve_enabled = true
}
`;
}

function separateLayout(w0: number): string {
  const out = [tmkitHead('bench-separate')];
  for (let p = 0; p < P; p++) {
    out.push(
      `resource "tmkit_profile" "p${p}" {\n  name = "sep-${p}"\n  traffic_routing_method = "Weighted"\n  dns_config {\n    relative_name = "sep-${p}"\n  }\n  monitor_config {\n    protocol = "TCP"\n    port     = 9\n  }\n}\n`,
    );
    for (let i = p * PER_PROFILE; i < Math.min(N, (p + 1) * PER_PROFILE); i++) {
      out.push(
        `resource "tmkit_external_endpoint" "e${i}" {\n  name = "e${i}"\n  profile_id = tmkit_profile.p${p}.id\n  target = "10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}"\n  weight = ${i === 0 ? w0 : 1}\n  always_serve_enabled = true\n}\n`,
      );
    }
  }
  return out.join('');
}

function inlineLayout(w0: number): string {
  return `${tmkitHead('bench-inline')}${profileBlock(
    'inl',
    `  dynamic "endpoint" {
    for_each = range(count.index * ${PER_PROFILE}, min(${N}, (count.index + 1) * ${PER_PROFILE}))
    content {
      name                 = "e\${endpoint.value}"
      target               = ${target('endpoint.value')}
      weight               = endpoint.value == 0 ? ${w0} : 1
      always_serve_enabled = true
    }
  }
`,
  )}`;
}

function dataCount(w0: number): string {
  return `resource "terraform_data" "e" {\n  count = ${N}\n  input = { name = "e\${count.index}", target = ${target('count.index')}, weight = count.index == 0 ? ${w0} : 1 }\n}\n`;
}

function dataGraph(w0: number): string {
  return (
    `resource "terraform_data" "p" {\n  count = ${P}\n  input = { name = "p-\${count.index}", method = "Weighted" }\n}\n` +
    `resource "terraform_data" "e" {\n  count = ${N}\n  input = { name = "e\${count.index}", profile_id = terraform_data.p[floor(count.index / ${PER_PROFILE})].id, target = ${target('count.index')}, weight = count.index == 0 ? ${w0} : 1 }\n}\n`
  );
}

function trivialGraph(w0: number): string {
  return (
    `terraform {\n  required_providers {\n    tmkittest = { source = "tmkit/tmkittest" }\n  }\n}\nprovider "tmkittest" {\n  stateless = true\n}\n` +
    `resource "tmkittest_thing" "p" {\n  count = ${P}\n  name  = "p-\${count.index}"\n  tags  = { method = "Weighted" }\n}\n` +
    `resource "tmkittest_thing" "e" {\n  count = ${N}\n  name  = "e\${count.index}"\n  size  = count.index == 0 ? ${w0} : 1\n  tags  = { profile_id = tmkittest_thing.p[floor(count.index / ${PER_PROFILE})].id, target = ${target('count.index')} }\n}\n`
  );
}

/** The count layout on tmkittest's resources with tmkit's schemas and nothing behind them (Terraform's own cost of those schemas). */
function shapedGraph(w0: number): string {
  return countLayout(
    'shp',
    'bench-shaped',
  )(w0)
    .replace(/tmkit = \{ source = "tmkit\/tmkit" \}/, 'tmkittest = { source = "tmkit/tmkittest" }')
    .replace(/provider "tmkit" \{\n {2}stack = "[^"]*"\n\}/, 'provider "tmkittest" {\n  stateless = true\n}')
    .replaceAll('tmkit_profile', 'tmkittest_profile_shape')
    .replaceAll('tmkit_external_endpoint', 'tmkittest_external_endpoint_shape');
}

const ONLY = process.argv.includes('--only') ? arg('only', '').split(',') : undefined;
const ALL: Layout[] = [
  { key: 'count', label: `tmkit, count (${P} profiles + ${N} endpoints)`, hcl: countLayout('cnt', 'bench-count'), install: 'after' },
  ...(BASE
    ? [{ key: 'before', label: 'tmkit, count, before (--base)', hcl: countLayout('bef', 'bench-before'), install: 'before' as const }]
    : []),
  { key: 'separate', label: `tmkit, separate blocks (${P + N} blocks)`, hcl: separateLayout, install: 'after' },
  { key: 'inline', label: `tmkit, inline endpoint blocks (${P} profiles)`, hcl: inlineLayout, install: 'after' },
  { key: 'trivial', label: 'floor: tmkittest (trivial provider), same graph', hcl: trivialGraph, install: 'after' },
  { key: 'shaped', label: "floor: tmkittest with tmkit's schemas, same graph", hcl: shapedGraph, install: 'after' },
  { key: 'graph', label: 'floor: terraform_data, same graph', hcl: dataGraph, install: 'after' },
  { key: 'data', label: `floor: terraform_data count = ${N}`, hcl: dataCount, install: 'after' },
];
const LAYOUTS = ONLY ? ALL.filter((l) => ONLY.includes(l.key)) : ALL;

interface Times {
  create: number;
  plan: number;
  update: number;
  destroy: number;
}

/** API requests the server has answered so far (tmkit_api_requests_total, all routes). */
let requests: () => Promise<number> = async () => 0;

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
    });
    child.stderr!.on('data', (d: Buffer) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, code, out }));
  });
}

async function timed(cwd: string, env: NodeJS.ProcessEnv, what: string, ...args: string[]): Promise<number> {
  const r = await run(CLI, [...args, '-input=false', '-no-color'], cwd, env);
  if (r.code !== 0) throw new Error(`${CLI} ${what} exited ${r.code}:\n${r.out.slice(-3000)}`);
  return r.ms;
}

async function measure(l: Layout, dir: string, env: NodeJS.ProcessEnv): Promise<{ t: Times; req: Times }> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'main.tf'), l.hcl(1));
  await timed(dir, env, 'init', 'init');
  const counted = async (what: string, ...args: string[]): Promise<[number, number]> => {
    const r0 = await requests();
    const ms = await timed(dir, env, what, ...args);
    return [ms, (await requests()) - r0 - 1];
  };
  const [create, rc] = await counted('apply', 'apply', '-auto-approve');
  const [plan, rp] = await counted('plan', 'plan');
  writeFileSync(join(dir, 'main.tf'), l.hcl(2));
  const [update, ru] = await counted('apply (one weight)', 'apply', '-auto-approve');
  const [destroy, rd] = await counted('destroy', 'destroy', '-auto-approve');
  return { t: { create, plan, update, destroy }, req: { create: rc, plan: rp, update: ru, destroy: rd } };
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'tmkit-bench-tf-'));
  const version = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version as string;
  const entry = (dir: string, name: string): string => {
    const e = join(dir, `dist/providers/terraform/bin/terraform-provider-${name}.js`);
    if (!existsSync(e)) throw new Error(`${e} does not exist: build that checkout first (npm run build)`);
    return e;
  };
  const after = join(root, 'inst-after');
  install({ dir: after, version, entry: entry(REPO, 'tmkit') });
  install({ dir: after, version, type: 'tmkittest', entry: entry(REPO, 'tmkittest') });
  const before = join(root, 'inst-before');
  if (BASE) install({ dir: before, version, entry: entry(BASE, 'tmkit') });

  const serve = spawn(
    process.execPath,
    [BIN, 'serve', '--state-dir', join(root, 'state'), '--dns', '127.0.0.1:0', '--api', '127.0.0.1:0', '--log-level', 'warn'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const api = await new Promise<string>((resolve, reject) => {
    let out = '';
    serve.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = /API {2}(http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    serve.on('exit', (c) => reject(new Error(`tmkit serve exited ${c}`)));
  });
  const token = readFileSync(join(root, 'state', 'token'), 'utf8').trim();
  requests = async () => {
    const text = await (await fetch(`${api}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    return [...text.matchAll(/^tmkit_api_requests_total\{.*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  };
  const version0 = (await run(CLI, ['version'], root, {})).out.split('\n').find((l) => / v\d/.test(l)) ?? CLI;
  console.log(
    `bench:terraform — ${version0}, node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ${N} endpoints in ${P} profiles, ${ROUNDS} round(s)`,
  );
  const best = new Map<string, Times>();
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      // Even rounds run the layouts in reverse, so none always meets the server first (a fresh store grows its file).
      for (const l of round % 2 === 1 ? LAYOUTS : [...LAYOUTS].reverse()) {
        const env = {
          TF_CLI_CONFIG_FILE: join(l.install === 'after' ? after : before, 'terraformrc'),
          TMKIT_SERVER: api,
          TMKIT_TOKEN: token,
          TF_IN_AUTOMATION: '1',
          CHECKPOINT_DISABLE: '1',
        };
        const { t, req } = await measure(l, join(root, l.key), env);
        console.log(
          `round ${round} | ${l.label} | create ${s(t.create)} | plan ${s(t.plan)} | one weight ${s(t.update)} | destroy ${s(t.destroy)} | API requests ${req.create}/${req.plan}/${req.update}/${req.destroy} | load ${loadavg()[0]!.toFixed(1)}`,
        );
        const b = best.get(l.key);
        best.set(
          l.key,
          b
            ? {
                create: Math.min(b.create, t.create),
                plan: Math.min(b.plan, t.plan),
                update: Math.min(b.update, t.update),
                destroy: Math.min(b.destroy, t.destroy),
              }
            : t,
        );
      }
    }
  } finally {
    serve.kill('SIGTERM');
    rmSync(root, { recursive: true, force: true });
  }
  const trivial = best.get('trivial');
  const graph = best.get('graph');
  const shaped = best.get('shaped');
  const data = best.get('data');
  const r = (a: number, b: number | undefined): string => (b === undefined ? '–' : x(a, b));
  console.log(
    '\n| Layout | create | ×trivial | ×same schemas | no-op plan | ×terraform_data graph | ×same schemas | one weight | destroy | ×trivial | ×same schemas |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const l of LAYOUTS) {
    const t = best.get(l.key)!;
    console.log(
      `| ${l.label} | ${s(t.create)} | ${r(t.create, trivial?.create)} | ${r(t.create, shaped?.create)} | ${s(t.plan)} | ${r(t.plan, graph?.plan)} | ${r(t.plan, shaped?.plan)} | ${s(t.update)} | ${s(t.destroy)} | ${r(t.destroy, trivial?.destroy)} | ${r(t.destroy, shaped?.destroy)} |`,
    );
  }
  const inline = best.get('inline');
  const count = best.get('count');
  if (data && inline) console.log(`\ninline create over the terraform_data count floor: ${x(inline.create, data.create)}`);
  if (data && count) console.log(`count-layout create over the terraform_data count floor: ${x(count.create, data.create)}`);
}

const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const x = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

void main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
