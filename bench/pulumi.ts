/**
 * The Pulumi provider against `tmkit apply`, both on one real `tmkit serve`:
 * - the plugin's start-up (spawn → port line, what the engine waits for on every command);
 * - `pulumi up` (the real CLI, Automation API, inline program, file backend) that creates N endpoints, and
 *   one that changes one endpoint's weight, next to `tmkit apply` of the same document and the same change;
 *   for N = 1, 100 and 1,000 (at most 200 per profile, Azure's limit: 1,000 is five profiles), with the
 *   endpoints declared inline in the Profiles and as Endpoint resources. Ratios are pulumi / tmkit apply.
 *
 *   npm run bench:pulumi [-- --sizes 1,100,1000] [-- --starts 20]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as network from '../src/pulumi';
import { newStack } from '../test/providers/pulumi/harness';
import { spawnToPort } from '../test/providers/pulumi/spawn';
import { runTmkit, spawnServe } from '../test/runtime/serve/process';

const REPO = join(__dirname, '..');
const TOKEN = 'bench-pulumi-token';
const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const SIZES = arg('sizes', '1,100,1000').split(',').map(Number);
const STARTS = Number(arg('starts', '20'));
const PER_PROFILE = 200;

const quantile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
};

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const r = await fn();
  return [performance.now() - t0, r];
}

/** N endpoints in ceil(N/200) Weighted profiles named `<prefix>-<p>`; endpoint 0 of profile 0 has weight `w0`. */
function layout(prefix: string, n: number, w0: number) {
  const profiles: Array<{ name: string; endpoints: Array<{ name: string; target: string; weight: number }> }> = [];
  for (let p = 0; p * PER_PROFILE < n; p++) {
    const count = Math.min(PER_PROFILE, n - p * PER_PROFILE);
    profiles.push({
      name: `${prefix}-${p}`,
      // Loopback targets: probes are refused at once (no listener), so probing costs little.
      endpoints: Array.from({ length: count }, (_, i) => ({ name: `e${i}`, target: `127.${10 + p}.0.${i + 1}`, weight: p === 0 && i === 0 ? w0 : 1 })),
    });
  }
  return profiles;
}

const monitorConfig = { protocol: 'TCP', port: 9, intervalInSeconds: 30 } as const;

function program(prefix: string, n: number, w0: number, shape: 'inline' | 'resources') {
  return async () => {
    for (const p of layout(prefix, n, w0)) {
      const args = { profileName: p.name, trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: p.name, ttl: 30 }, monitorConfig };
      if (shape === 'inline') {
        new network.Profile(p.name, { ...args, endpoints: p.endpoints.map((e) => ({ ...e, type: 'externalEndpoints' })) });
      } else {
        const profile = new network.Profile(p.name, args);
        for (const e of p.endpoints) new network.Endpoint(`${p.name}-${e.name}`, { profileName: profile.name, endpointName: e.name, endpointType: 'ExternalEndpoints', target: e.target, weight: e.weight });
      }
    }
    return {};
  };
}

function documentOf(prefix: string, n: number, w0: number, stack: string): string {
  return JSON.stringify({
    apiVersion: 'tmkit/v1', stack,
    profiles: layout(prefix, n, w0).map((p) => ({
      name: p.name, trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: p.name, ttl: 30 }, monitorConfig,
      endpoints: p.endpoints.map((e) => ({ ...e, type: 'externalEndpoints' })),
    })),
  });
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tmkit-bench-pulumi-'));
  console.log(`bench:pulumi — node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  // 1. Start-up of the plugin.
  const launcher = join(REPO, 'providers/pulumi/bin/pulumi-resource-tmkit');
  const floor: number[] = [];
  const plugin: number[] = [];
  await spawnToPort(launcher, ['127.0.0.1:1']);
  for (let i = 0; i < STARTS; i++) {
    floor.push((await spawnToPort(process.execPath, ['-e', 'console.log(1)'])).ms);
    plugin.push((await spawnToPort(launcher, ['127.0.0.1:1'])).ms);
  }
  console.log(`\nplugin start (spawn → port line, n=${STARTS}): median ${quantile(plugin, 0.5).toFixed(0)} ms, p90 ${quantile(plugin, 0.9).toFixed(0)} ms` +
    ` (node -e: median ${quantile(floor, 0.5).toFixed(0)} ms, p90 ${quantile(floor, 0.9).toFixed(0)} ms)`);

  const serve = await spawnServe(join(work, 'state'), ['--zone', 'bench.internal'], { TMKIT_TOKEN: TOKEN });
  const env = { TMKIT_SERVER: serve.api, TMKIT_TOKEN: TOKEN };
  const rows: string[] = [];
  try {
    for (const n of SIZES) {
      // tmkit apply: the same document, then the same one-weight change.
      const doc = join(work, `apply-${n}.json`);
      writeFileSync(doc, documentOf(`a${n}`, n, 1, `apply-${n}`));
      const [applyCreate, r1] = await timed(() => runTmkit(['apply', doc, '--yes'], { env }));
      if (r1.code !== 0) throw new Error(`tmkit apply failed: ${r1.stderr}`);
      writeFileSync(doc, documentOf(`a${n}`, n, 7, `apply-${n}`));
      const [applyChange, r2] = await timed(() => runTmkit(['apply', doc, '--yes'], { env }));
      if (r2.code !== 0) throw new Error(`tmkit apply failed: ${r2.stderr}`);
      writeFileSync(doc, JSON.stringify({ apiVersion: 'tmkit/v1', stack: `apply-${n}`, profiles: [] }));
      await runTmkit(['apply', doc, '--yes'], { env });

      for (const shape of ['inline', 'resources'] as const) {
        const prefix = `${shape === 'inline' ? 'i' : 'r'}${n}`;
        const s = await newStack(program(prefix, n, 1, shape), { stackName: prefix });
        await s.stack.setConfig('tmkit:server', { value: serve.api });
        await s.stack.setConfig('tmkit:token', { value: TOKEN, secret: true });
        await s.stack.setConfig('tmkit:stack', { value: `pulumi-${prefix}` });
        try {
          const [upCreate] = await timed(() => s.stack.up());
          const [upChange, changed] = await timed(() => s.stack.up({ program: program(prefix, n, 7, shape) }));
          if (changed.summary.resourceChanges?.['update'] !== 1) throw new Error(`expected one update, got ${JSON.stringify(changed.summary.resourceChanges)}`);
          const [destroy] = await timed(() => s.stack.destroy());
          const resources = shape === 'inline' ? Math.ceil(n / PER_PROFILE) : Math.ceil(n / PER_PROFILE) + n;
          rows.push(`| ${n.toLocaleString('en-US')} | ${shape === 'inline' ? 'inline `endpoints`' : 'Endpoint resources'} | ${resources.toLocaleString('en-US')} | ` +
            `${(upCreate / 1000).toFixed(1)} s | ${(applyCreate / 1000).toFixed(1)} s | ${(upCreate / applyCreate).toFixed(1)}× | ` +
            `${(upChange / 1000).toFixed(1)} s | ${(applyChange / 1000).toFixed(1)} s | ${(upChange / applyChange).toFixed(1)}× | ${(destroy / 1000).toFixed(1)} s |`);
          console.log(rows[rows.length - 1]);
        } finally {
          rmSync(s.work, { recursive: true, force: true });
        }
      }
    }
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(work, { recursive: true, force: true });
  }
  console.log('\n| Endpoints | Pulumi shape | Pulumi resources | `pulumi up` create | `tmkit apply` create | ratio | `pulumi up` one weight | `tmkit apply` one weight | ratio | `pulumi destroy` |');
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(r);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
