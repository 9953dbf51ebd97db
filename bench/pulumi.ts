/**
 * `npm run bench:pulumi [-- --endpoints 1000] [--rounds 2] [--starts 20] [--base DIR]`: the Pulumi provider
 * against a real `tmkit serve`, next to the engine's own floor measured in the same run, as ratios:
 *
 * - the plugin's start-up (spawn → port line, what the engine waits for on every command), next to `node -e`;
 * - `pulumi up` (the real CLI, Automation API, inline program, file backend) creating N endpoints in profiles
 *   of 200 (Azure's limit) as Endpoint resources, one weight changed, `pulumi destroy`; the same with the
 *   endpoints inline in the Profiles (one resource per profile);
 * - floors: the same graph as ComponentResources (N/200 parents, N children: no provider, no API), with the
 *   engine's checkpoints on (the default: the file backend rewrites the whole state after every step) and
 *   with PULUMI_SKIP_CHECKPOINTS=true; the Endpoint layout runs both ways too, so each is compared with its
 *   own floor.
 * - `--base DIR`: another checkout, built (`npm run build` there), whose plugin runs the Endpoint layout
 *   too ("before"), against the same server in the same run.
 *
 * Rounds alternate the layouts; the best round of each is shown (the machine is shared).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import * as network from '../src/pulumi';
import { newStack } from '../test/providers/pulumi/harness';
import { spawnToPort } from '../test/providers/pulumi/spawn';
import { spawnServe } from '../test/support/process';

const REPO = join(__dirname, '..');
const TOKEN = 'bench-pulumi-token';
const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const N = Number(arg('endpoints', '1000'));
const ROUNDS = Number(arg('rounds', '2'));
const STARTS = Number(arg('starts', '20'));
const BASE = process.argv.includes('--base') ? arg('base', '') : undefined;
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
function layout(prefix: string, w0: number) {
  const profiles: Array<{ name: string; endpoints: Array<{ name: string; target: string; weight: number }> }> = [];
  for (let p = 0; p * PER_PROFILE < N; p++) {
    const count = Math.min(PER_PROFILE, N - p * PER_PROFILE);
    profiles.push({
      name: `${prefix}-${p}`,
      // Loopback targets: probes are refused at once (no listener), so probing costs little.
      endpoints: Array.from({ length: count }, (_, i) => ({
        name: `e${i}`,
        target: `127.${10 + p}.0.${i + 1}`,
        weight: p === 0 && i === 0 ? w0 : 1,
      })),
    });
  }
  return profiles;
}

const monitorConfig = { protocol: 'TCP', port: 9, intervalInSeconds: 30 } as const;

class Node extends pulumi.ComponentResource {
  constructor(name: string, args: Record<string, unknown>, opts?: pulumi.ComponentResourceOptions) {
    super('bench:index:Node', name, args, opts);
    this.registerOutputs(args);
  }
}

type Shape = 'resources' | 'inline' | 'components';

function program(prefix: string, w0: number, shape: Shape) {
  return async () => {
    for (const p of layout(prefix, w0)) {
      const args = { profileName: p.name, trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: p.name, ttl: 30 }, monitorConfig };
      if (shape === 'inline') {
        new network.Profile(p.name, { ...args, endpoints: p.endpoints.map((e) => ({ ...e, type: 'externalEndpoints' })) });
      } else if (shape === 'resources') {
        const profile = new network.Profile(p.name, args);
        for (const e of p.endpoints)
          new network.Endpoint(`${p.name}-${e.name}`, {
            profileName: profile.name,
            endpointName: e.name,
            endpointType: 'ExternalEndpoints',
            target: e.target,
            weight: e.weight,
          });
      } else {
        const parent = new Node(p.name, args);
        for (const e of p.endpoints) new Node(`${p.name}-${e.name}`, { profile: p.name, ...e }, { dependsOn: [parent] });
      }
    }
    return {};
  };
}

interface Layout {
  key: string;
  label: string;
  shape: Shape;
  skip: boolean;
  plugin?: string;
}
const LAYOUTS: Layout[] = [
  {
    key: 'resources',
    label: `Endpoint resources (${Math.ceil(N / PER_PROFILE)} Profiles + ${N} Endpoints)`,
    shape: 'resources',
    skip: false,
  },
  ...(BASE
    ? [
        {
          key: 'before',
          label: 'Endpoint resources, before (--base)',
          shape: 'resources' as const,
          skip: false,
          plugin: join(BASE, 'providers/pulumi/bin'),
        },
      ]
    : []),
  { key: 'components', label: 'floor: ComponentResources, same graph', shape: 'components', skip: false },
  { key: 'resources-skip', label: 'Endpoint resources, PULUMI_SKIP_CHECKPOINTS', shape: 'resources', skip: true },
  { key: 'components-skip', label: 'floor: ComponentResources, same graph, PULUMI_SKIP_CHECKPOINTS', shape: 'components', skip: true },
  { key: 'inline', label: `inline endpoints (${Math.ceil(N / PER_PROFILE)} Profiles)`, shape: 'inline', skip: false },
];

interface Times {
  create: number;
  change: number;
  destroy: number;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tmkit-bench-pulumi-'));
  console.log(
    `bench:pulumi — node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ${N} endpoints, ${ROUNDS} round(s)`,
  );

  const launcher = join(REPO, 'providers/pulumi/bin/pulumi-resource-tmkit');
  const floor: number[] = [];
  const plugin: number[] = [];
  await spawnToPort(launcher, ['127.0.0.1:1']);
  for (let i = 0; i < STARTS; i++) {
    floor.push((await spawnToPort(process.execPath, ['-e', 'console.log(1)'])).ms);
    plugin.push((await spawnToPort(launcher, ['127.0.0.1:1'])).ms);
  }
  console.log(
    `plugin start (spawn → port line, n=${STARTS}): median ${quantile(plugin, 0.5).toFixed(0)} ms, p90 ${quantile(plugin, 0.9).toFixed(0)} ms` +
      ` (node -e: median ${quantile(floor, 0.5).toFixed(0)} ms, p90 ${quantile(floor, 0.9).toFixed(0)} ms)`,
  );

  const serve = await spawnServe(join(work, 'state'), ['--zone', 'bench.internal'], { TMKIT_TOKEN: TOKEN });
  const best = new Map<string, Times>();
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const l of LAYOUTS) {
        const prefix = `${l.key.replace(/[^a-z]/g, '')}${round}`;
        const s = await newStack(program(prefix, 1, l.shape), {
          stackName: prefix,
          env: l.skip ? { PULUMI_SKIP_CHECKPOINTS: 'true' } : {},
          ...(l.plugin ? { tmkitPluginDir: l.plugin } : {}),
        });
        await s.stack.setConfig('tmkit:server', { value: serve.api });
        await s.stack.setConfig('tmkit:token', { value: TOKEN, secret: true });
        await s.stack.setConfig('tmkit:stack', { value: `pulumi-${prefix}` });
        try {
          const [create] = await timed(() => s.stack.up());
          const [change] = await timed(() => s.stack.up({ program: program(prefix, 7, l.shape) }));
          const [destroy] = await timed(() => s.stack.destroy());
          const t = { create, change, destroy };
          console.log(
            `round ${round} | ${l.label} | create ${sec(create)} | one weight ${sec(change)} | destroy ${sec(destroy)} | load ${loadavg()[0]!.toFixed(1)}`,
          );
          const b = best.get(l.key);
          best.set(
            l.key,
            b ? { create: Math.min(b.create, t.create), change: Math.min(b.change, t.change), destroy: Math.min(b.destroy, t.destroy) } : t,
          );
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
  console.log('\n| Layout | `pulumi up` create | ×floor | one weight | `pulumi destroy` | ×floor |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const l of LAYOUTS) {
    const t = best.get(l.key)!;
    const f = best.get(l.skip ? 'components-skip' : 'components')!;
    console.log(
      `| ${l.label} | ${sec(t.create)} | ${x(t.create, f.create)} | ${sec(t.change)} | ${sec(t.destroy)} | ${x(t.destroy, f.destroy)} |`,
    );
  }
}

const sec = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const x = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
