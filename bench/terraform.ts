/**
 * `npm run bench:terraform [-- 1,100,1000]`: the tmkit Terraform provider against a real `tmkit serve` on
 * 127.0.0.1:0. For each size N (endpoints, 200 per profile at most, as Azure allows): wall time of
 * `terraform apply` creating them, `terraform plan` with no changes, and `terraform apply` of one weight
 * changed, next to `tmkit apply` of the same document and the same one-weight change (another stack, same
 * runtime, same run), as ratios. Provider start-up alone is `npm run bench:terraform-start`. Bounded: one
 * run per size, everything on loopback, the server stopped at the end.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { install } from '../providers/terraform/src/install';

const REPO = join(__dirname, '..');
const BIN = join(REPO, 'dist/src/cli/bin.js');
const SIZES = (process.argv[2] ?? '1,100,1000').split(',').map(Number);

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d; });
    child.stderr!.on('data', (d: Buffer) => { out += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, code, out }));
  });
}
const must = async (p: Promise<{ ms: number; code: number | null; out: string }>, what: string): Promise<number> => {
  const r = await p;
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}:\n${r.out.slice(-3000)}`);
  return r.ms;
};

/** N endpoints in ceil(N/200) Weighted profiles named `<prefix>-<i>`; `bump` raises the first endpoint's weight. */
function layout(n: number, prefix: string, bump: boolean): Array<{ name: string; endpoints: Array<{ name: string; target: string; weight: number }> }> {
  const out = [];
  for (let p = 0; p * 200 < n; p++) {
    const endpoints = [];
    for (let i = p * 200; i < Math.min(n, (p + 1) * 200); i++) endpoints.push({ name: `e${i}`, target: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, weight: bump && i === 0 ? 2 : 1 });
    out.push({ name: `${prefix}-${p}`, endpoints });
  }
  return out;
}

function hcl(n: number, bump: boolean): string {
  const lines = ['terraform {', '  required_providers {', '    tmkit = { source = "tmkit/tmkit" }', '  }', '}', 'provider "tmkit" {}', ''];
  for (const p of layout(n, 'tf', bump)) {
    lines.push(`resource "tmkit_profile" "${p.name}" {`, `  name = "${p.name}"`, '  traffic_routing_method = "Weighted"', `  dns_config {`, `    relative_name = "${p.name}"`, '  }', '}');
    for (const e of p.endpoints) {
      lines.push(`resource "tmkit_external_endpoint" "${p.name}-${e.name}" {`, `  name = "${e.name}"`, `  profile_id = tmkit_profile.${p.name}.id`, `  target = "${e.target}"`, `  weight = ${e.weight}`, '  always_serve_enabled = true', '}');
    }
  }
  return `${lines.join('\n')}\n`;
}

function doc(n: number, bump: boolean): string {
  return JSON.stringify({
    apiVersion: 'tmkit/v1', stack: 'bench-doc',
    profiles: layout(n, 'doc', bump).map((p) => ({
      name: p.name, trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: p.name },
      endpoints: p.endpoints.map((e) => ({ name: e.name, type: 'externalEndpoints', target: e.target, weight: e.weight, alwaysServe: 'Enabled' })),
    })),
  });
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'tmkit-bench-tf-'));
  const serve = spawn(process.execPath, [BIN, 'serve', '--state-dir', join(root, 'state'), '--dns', '127.0.0.1:0', '--api', '127.0.0.1:0', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const api = await new Promise<string>((resolve, reject) => {
    let out = '';
    serve.stdout!.on('data', (d: Buffer) => { out += d; const m = /API {2}(http:\/\/\S+)/.exec(out); if (m) resolve(m[1]!); });
    serve.on('exit', (c) => reject(new Error(`tmkit serve exited ${c}`)));
  });
  const token = readFileSync(join(root, 'state', 'token'), 'utf8').trim();
  const rc = install({ dir: join(root, 'inst'), version: JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version, entry: join(REPO, 'dist/providers/terraform/bin/terraform-provider-tmkit.js') }).cliConfig;
  const env = { TF_CLI_CONFIG_FILE: rc, TMKIT_SERVER: api, TMKIT_TOKEN: token, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' };
  const rows: string[] = [];
  try {
    for (const n of SIZES) {
      const work = join(root, `tf-${n}`);
      mkdirSync(work);
      writeFileSync(join(work, 'main.tf'), hcl(n, false));
      await must(run('terraform', ['init', '-input=false'], work, env), 'terraform init');
      const tfCreate = await must(run('terraform', ['apply', '-auto-approve', '-input=false', '-parallelism=10'], work, env), 'terraform apply');
      const tfPlan = await must(run('terraform', ['plan', '-input=false'], work, env), 'terraform plan');
      writeFileSync(join(work, 'main.tf'), hcl(n, true));
      const tfUpdate = await must(run('terraform', ['apply', '-auto-approve', '-input=false'], work, env), 'terraform apply (one weight)');
      writeFileSync(join(work, 'doc.json'), doc(n, false));
      writeFileSync(join(work, 'doc2.json'), doc(n, true));
      const tkCreate = await must(run(process.execPath, [BIN, 'apply', join(work, 'doc.json'), '--yes'], work, env), 'tmkit apply');
      const tkPlan = await must(run(process.execPath, [BIN, 'plan', join(work, 'doc.json'), '--no-preview'], work, env), 'tmkit plan');
      const tkUpdate = await must(run(process.execPath, [BIN, 'apply', join(work, 'doc2.json'), '--yes'], work, env), 'tmkit apply (one weight)');
      const f = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
      const r = (a: number, b: number): string => `${(a / b).toFixed(1)}×`;
      rows.push(`| ${n} | ${f(tfCreate)} / ${f(tkCreate)} = ${r(tfCreate, tkCreate)} | ${f(tfPlan)} / ${f(tkPlan)} = ${r(tfPlan, tkPlan)} | ${f(tfUpdate)} / ${f(tkUpdate)} = ${r(tfUpdate, tkUpdate)} |`);
      process.stdout.write(`${rows[rows.length - 1]}\n`);
      await must(run('terraform', ['destroy', '-auto-approve', '-input=false'], work, env), 'terraform destroy');
    }
  } finally {
    serve.kill('SIGTERM');
    rmSync(root, { recursive: true, force: true });
  }
  process.stdout.write(`\nendpoints | create: terraform apply / tmkit apply | no-change: terraform plan / tmkit plan | one weight: terraform apply / tmkit apply\n|---|---|---|---|\n${rows.join('\n')}\n`);
}

void main().catch((err: unknown) => { process.stderr.write(`${(err as Error).stack}\n`); process.exit(1); });
