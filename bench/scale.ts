/**
 * bench:scale — no O(N) work per change (issue 17 §4), at 10,000 profiles / 100,000 endpoints.
 *
 *   npm run bench:scale [-- --profiles 10000] [--endpoints 10] [--changes 100] [--transitions 40] [--seed DIR] [--no-serve]
 *
 * 1. Seeds a state dir (`--seed DIR` keeps and reuses it: seeding 10,000 profiles through the store takes
 *    about 90 s of fsyncs): N Priority profiles with E external endpoints each (127.x addresses, TCP probe on
 *    port 9, tolerated failures 0), all in one stack.
 * 2. Starts the Engine in its own process (bench/scale-server.ts: what `tmkit serve` runs, with the injected
 *    prober of the runtime tests so 100,000 endpoints are "probed" without 3,000 real connections a second)
 *    and times its start-up (Engine.start; then until every endpoint's first verdict is served) and RSS.
 * 3. Config change → DNS answer: PUTs one random profile with a new first endpoint address through the
 *    management API and polls DNS over UDP until it answers it (write→DNS, and ack→DNS from the 2xx).
 * 4. Health transition → DNS answer: marks a profile's first endpoint down (then up again) in the injected
 *    prober (probed every 100 ms) and times from the probe that flips the verdict returning to the first DNS
 *    answer that follows it (the other endpoint, then back).
 * 5. Plan of one changed profile against the server: `planDocument` (what `tmkit plan FILE --server` does:
 *    GET /v1/profiles + GET /v1/resources, diff, preview, report) of the whole N-profile document with one
 *    profile changed, and of a one-profile stack against the same N-profile server.
 * 6. Rows read per write and endpoints retargeted per write (where the code under test counts them).
 * 7. Unless --no-serve: the real `tmkit serve` CLI on the same state dir (real prober: connection refused on
 *    127.x:9), time to its "DNS … API …" lines and RSS then and 10 s later.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeQuerier, pct } from './support/udp';
import { TmkitClient, planDocument } from '../src/client';
import { normalizeProfile } from '../src/core/model/normalize';
import { DEFAULT_STACK, type ProfileInput } from '../src/core/model/types';
import { MmdbGeoLookup } from '../src/geo';
import { SqliteStore } from '../src/runtime/store';

const REPO = join(__dirname, '..');
const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) || dflt : dflt;
};
const sarg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const N = arg('--profiles', 10_000);
const E = arg('--endpoints', 10);
const CHANGES = arg('--changes', 100);
const TRANSITIONS = arg('--transitions', 40);
const HOT = 20;
const name = (i: number): string => `p${String(i).padStart(5, '0')}`;
const addr = (i: number, e: number): string => `127.${1 + ((i >> 8) & 127)}.${i & 255}.${e + 1}`;

function input(i: number, first?: string): ProfileInput {
  return {
    name: name(i),
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: name(i), ttl: 30 },
    monitorConfig: { protocol: 'TCP', port: 9, intervalInSeconds: 30, timeoutInSeconds: 10, toleratedNumberOfFailures: 0 },
    endpoints: Array.from({ length: E }, (_, e) => ({
      name: `e${e}`,
      type: 'externalEndpoints' as const,
      target: e === 0 && first ? first : addr(i, e),
    })),
  };
}

async function seed(dir: string): Promise<void> {
  if (existsSync(join(dir, 'tmkit.db'))) return;
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const store = SqliteStore.open({ stateDir: dir });
  for (let i = 0; i < N; i++) await store.putProfile(normalizeProfile(input(i)), { stack: DEFAULT_STACK });
  await store.close();
  process.stdout.write(`seeded ${N} profiles × ${E} endpoints in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}

const fmt = (x: number): string => `${x.toFixed(1).padStart(7)} ms`;
const summary = (label: string, xs: number[]): string =>
  `${label.padEnd(26)} n ${String(xs.length).padStart(3)}  p50 ${fmt(pct(xs, 50))}  p90 ${fmt(pct(xs, 90))}  p99 ${fmt(pct(xs, 99))}  max ${fmt(Math.max(...xs))}`;
const mb = (b: number): string => `${(b / 1048576).toFixed(0)} MB`;

interface Ready {
  dns: number;
  api: string;
  token: string;
  startMs: number;
  settledMs: number;
  savedMs: number;
  rss: number;
  store?: { rowsRead: number; viewRebuilds: number };
  prober?: { retargets: { full: number; incremental: number; endpoints: number } };
}

function startServer(stateDir: string, hot: string[]): Promise<{ child: ChildProcess; ready: Ready; spawnToReadyMs: number }> {
  const t0 = performance.now();
  const child = fork(join(__dirname, 'scale-server.ts'), [stateDir, hot.join(',')], {
    execArgv: ['-r', '@swc-node/register', '--expose-gc', ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((x) => x !== '')],
    cwd: REPO,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`scale-server exited ${c}`)));
    child.on('message', (m: { type: string } & Ready) => {
      if (m.type === 'ready') {
        child.removeAllListeners('exit');
        resolve({ child, ready: m, spawnToReadyMs: performance.now() - t0 });
      }
    });
  });
}

function ask<T>(child: ChildProcess, msg: object, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string }): void => {
      if (m.type === type) {
        child.off('message', on);
        resolve(m as T);
      }
    };
    child.on('message', on);
    child.send(msg);
  });
}

async function realServe(stateDir: string): Promise<string> {
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      '-r',
      '@swc-node/register',
      '-e',
      `require('./src/cli/main').run(process.argv.slice(1)).then((c) => { process.exitCode = c; })`,
      'serve',
      '--state-dir',
      stateDir,
      '--dns',
      '127.0.0.1:0',
      '--api',
      '127.0.0.1:0',
      '--log-level',
      'error',
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  let out = '';
  const readyMs = await new Promise<number>((resolve, reject) => {
    child.on('exit', (c) => reject(new Error(`serve exited ${c}: ${out}`)));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (/DNS {2}UDP\+TCP/.test(out) && /API {2}http/.test(out)) resolve(performance.now() - t0);
    });
  });
  const rssReady = rss();
  await new Promise((r) => setTimeout(r, 10_000));
  const rss10 = rss();
  child.removeAllListeners('exit');
  await new Promise<void>((r) => {
    child.on('exit', () => r());
    child.kill('SIGTERM');
  });
  return `tmkit serve (CLI, real prober): spawn → listening ${(readyMs / 1000).toFixed(2)} s; RSS ${mb(rssReady)} then, ${mb(rss10)} 10 s later`;
}

async function main(): Promise<void> {
  const seedDir = sarg('--seed') ?? join(tmpdir(), `tmkit-bench-scale-${N}x${E}`);
  await seed(seedDir);
  const work = mkdtempSync(join(tmpdir(), 'tmkit-bench-scale-run-'));
  const stateDir = join(work, 'state');
  cpSync(seedDir, stateDir, { recursive: true });
  const hotProfiles = Array.from({ length: HOT }, (_, k) => Math.floor((k * N) / HOT));
  const { child, ready, spawnToReadyMs } = await startServer(
    stateDir,
    hotProfiles.map((i) => `${name(i)}/e0`),
  );
  process.on('exit', () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const lines: string[] & { push: (...l: string[]) => number } = [
    `bench:scale — ${N} profiles × ${E} endpoints (${N * E} probed), ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
    `start-up: Engine.start ${(ready.startMs / 1000).toFixed(2)} s, every first verdict served ${(ready.settledMs / 1000).toFixed(2)} s, every monitor record saved ${(ready.savedMs / 1000).toFixed(2)} s (first start only), spawn → ready ${(spawnToReadyMs / 1000).toFixed(2)} s; RSS ${mb(ready.rss)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const push = lines.push.bind(lines);
  lines.push = (...l: string[]): number => {
    process.stdout.write(`${l.join('\n')}\n`);
    return push(...l);
  };
  const client = new TmkitClient({ server: ready.api, token: ready.token, env: {} });
  const dns = makeQuerier(ready.dns);

  // Config change → DNS answer.
  let before = await ask<Ready>(child, { type: 'stats', gc: false }, 'stats');
  const writeToDns: number[] = [];
  const ackToDns: number[] = [];
  /** The first endpoint address of the profiles the run changed (the plan's document must match them). */
  const changedFirst = new Map<number, string>();
  let rnd = 12345;
  const next = (): number => {
    rnd = (rnd * 1103515245 + 12345) & 0x7fffffff;
    return rnd;
  };
  for (let c = 0; c < CHANGES + 3; c++) {
    if (c === 3) before = await ask<Ready>(child, { type: 'stats', gc: false }, 'stats');
    const i = next() % N;
    const ip = `192.0.2.${(c % 250) + 1}`;
    const t0 = performance.now();
    await client.putProfile(input(i, ip));
    changedFirst.set(i, ip);
    const tAck = performance.now();
    for (;;) {
      const a = await dns.query(`${name(i)}.tm.internal`);
      if (a.length === 1 && a[0] === ip) break;
      if (performance.now() - t0 > 10_000) throw new Error(`change ${c} did not reach DNS within 10 s`);
    }
    const t1 = performance.now();
    if (process.env.BENCH_SCALE_TRACE)
      process.stdout.write(`change ${c}: write→DNS ${(t1 - t0).toFixed(1)} ms (ack ${(tAck - t0).toFixed(1)} ms)\n`);
    if (c >= 3) {
      writeToDns.push(t1 - t0);
      ackToDns.push(t1 - tAck);
    } // the first three warm up (the first builds the check view)
    await new Promise((r) => setTimeout(r, 20));
  }
  const after = await ask<Ready>(child, { type: 'stats', gc: false }, 'stats');
  lines.push(summary('config change: write→DNS', writeToDns), summary('config change: ack→DNS', ackToDns));
  if (before.store && after.store) {
    lines.push(
      `store: ${((after.store.rowsRead - before.store.rowsRead) / CHANGES).toFixed(1)} profile rows read per write, ${after.store.viewRebuilds - before.store.viewRebuilds} view walks over ${CHANGES} writes (after 3 warm-up writes; the first walks the table once)`,
    );
  }
  if (before.prober && after.prober) {
    const r0 = before.prober.retargets;
    const r1 = after.prober.retargets;
    lines.push(
      `prober: ${((r1.endpoints - r0.endpoints) / CHANGES).toFixed(1)} endpoints looked at per write (of ${N * E}); ${r1.full - r0.full} full retargets`,
    );
  }

  // Health transition → DNS answer.
  const transition: number[] = [];
  let missed = 0;
  for (let k = 0; k < TRANSITIONS; k++) {
    const i = hotProfiles[k % HOT]!;
    const key = `${name(i)}/e0`;
    const goingDown = Math.floor(k / HOT) % 2 === 0;
    const want = goingDown ? addr(i, 1) : (changedFirst.get(i) ?? addr(i, 0)); // the config changes may have moved e0
    const flipped = new Promise<number>((resolve) => {
      const on = (m: { type: string; key: string; at: number }): void => {
        if ((m.type === 'failed' || m.type === 'recovered') && m.key === key) {
          child.off('message', on);
          resolve(m.at);
        }
      };
      child.on('message', on);
    });
    child.send({ type: goingDown ? 'down' : 'up', key });
    let seenAt = 0;
    const t0 = performance.now();
    for (;;) {
      const a = await dns.query(`${name(i)}.tm.internal`);
      if (a.length === 1 && a[0] === want) {
        seenAt = performance.timeOrigin + performance.now();
        break;
      }
      if (performance.now() - t0 > 10_000) break;
    }
    if (seenAt === 0) {
      missed++;
      process.stdout.write(`transition ${k} of ${key} (${goingDown ? 'down' : 'up'}) did not reach DNS within 10 s\n`);
      continue;
    }
    transition.push(Math.max(0, seenAt - (await flipped)));
  }
  lines.push(`${summary('health transition → DNS', transition)}${missed > 0 ? `; ${missed} not seen within 10 s` : ''}`);
  const mid = await ask<Ready & { loopDelayMaxMs: number }>(child, { type: 'stats', gc: false }, 'stats');
  lines.push(`engine event-loop delay max ${mid.loopDelayMaxMs.toFixed(0)} ms since ready`);

  // Plan of one changed profile against the server.
  const geo = await MmdbGeoLookup.open();
  const planWhole: number[] = [];
  const planStack: number[] = [];
  const solo = { ...input(N), name: 'solo', dnsConfig: { relativeName: 'solo', ttl: 30 } };
  await client.putProfile(solo, { stack: 'solo' });
  for (let r = 0; r < 6; r++) {
    const doc = {
      apiVersion: 'tmkit/v1',
      stack: DEFAULT_STACK,
      profiles: Array.from({ length: N }, (_, i) => (i === 7 ? input(i, `198.51.100.${r + 1}`) : input(i, changedFirst.get(i)))),
    };
    let t0 = performance.now();
    const p = await planDocument(client, doc, { geo });
    if (!p.ok || p.report.plan.summary.change !== 1)
      throw new Error(
        `whole-document plan: expected 1 change, got ${JSON.stringify(p.ok ? p.report.plan.summary : p.diagnostics.slice(0, 3))}`,
      );
    if (r > 0) planWhole.push(performance.now() - t0);
    t0 = performance.now();
    const q = await planDocument(
      client,
      { apiVersion: 'tmkit/v1', stack: 'solo', profiles: [{ ...solo, endpoints: solo.endpoints!.slice(1) }] },
      { geo },
    );
    if (!q.ok || q.report.plan.summary.change !== 1)
      throw new Error(
        `one-profile plan: expected 1 change, got ${JSON.stringify(q.ok ? q.report.plan.summary : q.diagnostics.slice(0, 3))}`,
      );
    if (r > 0) planStack.push(performance.now() - t0);
  }
  lines.push(summary(`plan: ${N}-profile doc, 1 chg`, planWhole), summary('plan: 1-profile stack', planStack));

  const end = await ask<Ready>(child, { type: 'stats' }, 'stats');
  lines.push(`engine RSS after the run ${mb(end.rss)} (JS heap ${mb((end as Ready & { heapUsed: number }).heapUsed)})`);
  dns.close();
  await client.close();
  await new Promise<void>((r) => {
    child.on('exit', () => r());
    child.send({ type: 'stop' });
  });
  if (!process.argv.includes('--no-serve')) {
    rmSync(stateDir, { recursive: true, force: true });
    cpSync(seedDir, stateDir, { recursive: true });
    lines.push(await realServe(stateDir));
  }
  rmSync(work, { recursive: true, force: true });
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
