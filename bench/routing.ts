/**
 * `npm run bench:routing`: answers per second of the routing engine for each of the six methods on a
 * 1,000-profile snapshot with 3-level nesting, the real GeoLookup (shipped country database, distance
 * model) behind Geographic and Performance; then geo lookups per second on their own.
 *
 * Snapshot: for each nestable method (Priority, Weighted, Performance, Geographic, Subnet) 14 families of
 * 13 profiles: a top profile → 4 nested mid profiles → 2 nested leaf profiles each → 3 external endpoints,
 * every level using the family's method (910 profiles); plus 90 MultiValue profiles (MultiValue profiles
 * take external IP endpoints only, so they are leaves: 8 IPv4 + 2 IPv6 endpoints, maxReturn 4).
 * Queries: A queries for the top profiles of a method, round robin, clients round robin from
 * a "hot" set (the 16 real addresses of test/geo) or a "cold" set (50,000 random public IPv4 addresses,
 * each seen once per pass: geo cache misses on the first pass).
 *
 * Every row runs in a fresh child process: in one process, V8's state after one method changed another's
 * figure by up to 10×. "all six, interleaved" mixes every method's queries, as a DNS server sees them.
 *
 * "snapshot builds" times buildSnapshot() itself on the same 1,000 profiles: a full build, and incremental
 * rebuilds (`buildSnapshot(input, previous)`) after no change, after one probe verdict of a leaf changes
 * (the leaf and its two ancestors are compiled again) and after one leaf profile document is replaced.
 *
 * Environment: BENCH_SECONDS (per measurement, default 1.5), BENCH_METHODS (comma-separated subset of
 * priority, weighted, performance, geographic, subnet, multivalue, mixed, geo, build).
 */
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import { answer, buildSnapshot, type RoutingQuery } from '../src/core/routing';
import type { HealthView } from '../src/core/health/types';
import type { Profile, TrafficRoutingMethod } from '../src/core/model/types';
import { MmdbGeoLookup } from '../src/geo';
import { parseIpBytes } from '../src/core/net/ip';
import { GEO_IP_SYNTAX, isNonGlobal } from '../src/geo/ip';
import { ext, nested, profile } from '../src/testing/builders';
import { seededRng } from '../src/testing/rng';
import { REAL_ADDRESSES } from '../test/geo/support/real-addresses';
import { AZURE_REGIONS } from '../src/core/data';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 1.5);
const ZONE = 'bench.test';
const FAMILIES = 14;
const MULTIVALUE_PROFILES = 90;

type Nestable = Exclude<TrafficRoutingMethod, 'MultiValue'>;
const NESTABLE: Nestable[] = ['Priority', 'Weighted', 'Performance', 'Geographic', 'Subnet'];

/** Per-method endpoint settings for child i of n at a given level (0 top, 1 mid, 2 leaf). */
function settings(method: Nestable, level: number, i: number): Record<string, unknown> {
  switch (method) {
    case 'Priority':
      return { priority: i + 1 };
    case 'Weighted':
      return { weight: i + 1 };
    case 'Performance': {
      const byLevel = [
        ['westeurope', 'eastus', 'japaneast', 'australiaeast'],
        ['germanywestcentral', 'westus'],
        ['northeurope', 'centralus', 'eastasia'],
      ];
      return { endpointLocation: byLevel[level]![i] };
    }
    case 'Geographic': {
      const byLevel = [
        [['GEO-EU'], ['GEO-NA'], ['GEO-AS'], ['WORLD']],
        [['DE', 'FR', 'US', 'JP'], ['WORLD']],
        [['DE', 'US-CA'], ['WORLD'], ['FR']],
      ];
      return { geoMapping: byLevel[level]![i] };
    }
    case 'Subnet': {
      const byLevel = [
        [[{ first: '0.0.0.0', scope: 2 }], [{ first: '64.0.0.0', scope: 2 }], [{ first: '128.0.0.0', scope: 2 }], []],
        [[{ first: '0.0.0.0', scope: 1 }], []],
        [[{ first: '0.0.0.0', last: '127.255.255.255' }], [], [{ first: '8.8.8.8' }]],
      ];
      return { subnets: byLevel[level]![i] };
    }
  }
}

function buildProfiles(): { profiles: Profile[]; tops: Map<TrafficRoutingMethod, string[]> } {
  const profiles: Profile[] = [];
  const tops = new Map<TrafficRoutingMethod, string[]>();
  let ip = 0;
  const nextIp = (): string => `192.0.2.${(ip++ % 250) + 1}`;
  for (const method of NESTABLE) {
    const names: string[] = [];
    for (let f = 0; f < FAMILIES; f++) {
      const top = `${method.toLowerCase()}-${f}`;
      names.push(top);
      const mids = [0, 1, 2, 3].map((m) => `${top}-m${m}`);
      profiles.push(
        profile(
          top,
          method,
          mids.map((child, i) => nested(`n${i}`, child, settings(method, 0, i))),
        ),
      );
      for (const mid of mids) {
        const leaves = [0, 1].map((l) => `${mid}-l${l}`);
        profiles.push(
          profile(
            mid,
            method,
            leaves.map((child, i) => nested(`n${i}`, child, settings(method, 1, i))),
          ),
        );
        for (const leaf of leaves) {
          profiles.push(
            profile(
              leaf,
              method,
              [0, 1, 2].map((i) => ext(`e${i}`, nextIp(), settings(method, 2, i))),
            ),
          );
        }
      }
    }
    tops.set(method, names);
  }
  const mv: string[] = [];
  for (let i = 0; i < MULTIVALUE_PROFILES; i++) {
    const name = `multivalue-${i}`;
    mv.push(name);
    const eps = [
      ...Array.from({ length: 8 }, (_, k) => ext(`v4-${k}`, nextIp())),
      ext('v6-0', `2001:db8::${i * 2 + 1}`),
      ext('v6-1', `2001:db8::${i * 2 + 2}`),
    ];
    profiles.push(profile(name, 'MultiValue', eps, { maxReturn: 4 }));
  }
  tops.set('MultiValue', mv);
  return { profiles, tops };
}

function randomPublicIpv4(n: number, seed: number): string[] {
  const rng = seededRng(seed);
  const out: string[] = [];
  while (out.length < n) {
    const a = Math.floor(rng() * 223) + 1;
    const addr = `${a}.${Math.floor(rng() * 256)}.${Math.floor(rng() * 256)}.${Math.floor(rng() * 256)}`;
    if (!isNonGlobal(parseIpBytes(addr, GEO_IP_SYNTAX)!)) out.push(addr);
  }
  return out;
}

/** Runs `op(i)` for about SECONDS after a short warm-up; returns operations per second. */
function measure(op: (i: number) => void): number {
  let i = 0;
  const warmEnd = performance.now() + 200;
  while (performance.now() < warmEnd) for (let k = 0; k < 100; k++) op(i++);
  const start = performance.now();
  const end = start + SECONDS * 1000;
  let n = 0;
  let now = start;
  while (now < end) {
    for (let k = 0; k < 200; k++) op(i++ + k);
    n += 200;
    now = performance.now();
  }
  return n / ((now - start) / 1000);
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

function table(title: string, head: string[], rows: string[][]): void {
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]): string => cells.map((s, c) => (c === 0 ? s.padEnd(widths[c]!) : s.padStart(widths[c]!))).join('  ');
  console.log(`\n${title}`);
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

interface ChildResult {
  rows: string[][];
}

/** Sets up the snapshot and the query sets (each child process does this once). */
async function setup(): Promise<{
  geo: MmdbGeoLookup;
  snap: ReturnType<typeof buildSnapshot>;
  tops: Map<TrafficRoutingMethod, string[]>;
  hot: string[];
  cold: string[];
  tOpen: number;
  tBuild: number;
  profileCount: number;
}> {
  const t0 = performance.now();
  const geo = await MmdbGeoLookup.open();
  const tOpen = performance.now() - t0;
  const { profiles, tops } = buildProfiles();
  const t1 = performance.now();
  const snap = buildSnapshot({ zone: ZONE, profiles, geo });
  const tBuild = performance.now() - t1;
  return {
    geo,
    snap,
    tops,
    hot: REAL_ADDRESSES.map(([a]) => a),
    cold: randomPublicIpv4(50_000, 7),
    tOpen,
    tBuild,
    profileCount: profiles.length,
  };
}

function queriesFor(names: string[], clients: string[]): RoutingQuery[] {
  // Every (profile, client) pair, so profile and client vary independently.
  const qs: RoutingQuery[] = [];
  const n = Math.max(names.length, clients.length);
  for (let i = 0; i < n; i++)
    qs.push({ name: `${names[i % names.length]}.${ZONE}`, type: 'A', clientAddress: clients[i % clients.length]! });
  return qs;
}

/** One routing method, measured in its own process (JIT state from other methods skews figures by up to 10×). */
async function childMethod(method: TrafficRoutingMethod): Promise<ChildResult> {
  const { snap, tops, hot, cold } = await setup();
  const rng = seededRng(42);
  const names = tops.get(method)!;
  const hotQs = queriesFor(
    names,
    hot.flatMap((c) => names.map(() => c)),
  );
  const coldQs = queriesFor(names, cold);
  // Sanity: every query gets an answer with records, and the nesting is really walked.
  const sample = answer(snap, hotQs[0]!, rng);
  if (sample.rcode !== 'NOERROR' || sample.records.length === 0) {
    throw new Error(
      `${method}: expected records for ${hotQs[0]!.name} from ${hotQs[0]!.clientAddress}, got ${sample.rcode} ${JSON.stringify(sample.explanation)}`,
    );
  }
  // Profiles the answer went through (top → mid → leaf).
  const depth = new Set(sample.explanation.map((step) => step.profile)).size;
  const hotRate = measure((i) => void answer(snap, hotQs[i % hotQs.length]!, rng));
  const coldRate = measure((i) => void answer(snap, coldQs[i % coldQs.length]!, rng));
  return { rows: [[method, String(names.length), String(depth), fmt(hotRate), fmt(coldRate), `${(1e6 / hotRate).toFixed(2)}`]] };
}

/** All six methods interleaved, as a DNS server sees them. */
async function childMixed(): Promise<ChildResult> {
  const { snap, tops, hot, cold } = await setup();
  const rng = seededRng(42);
  const all = [...tops.values()].flat();
  const hotQs = queriesFor(
    all,
    hot.flatMap((c) => all.map(() => c)),
  );
  const coldQs = queriesFor(all, cold.slice(0, Math.max(all.length, cold.length)));
  const hotRate = measure((i) => void answer(snap, hotQs[(i * 7919) % hotQs.length]!, rng));
  const coldRate = measure((i) => void answer(snap, coldQs[(i * 7919) % coldQs.length]!, rng));
  return { rows: [['all six, interleaved', String(all.length), '1-3', fmt(hotRate), fmt(coldRate), `${(1e6 / hotRate).toFixed(2)}`]] };
}

async function childGeo(): Promise<ChildResult> {
  const { geo, hot, cold } = await setup();
  const regions = AZURE_REGIONS.map((r) => r.name);
  const fresh = await MmdbGeoLookup.open({ cacheSize: 1 }); // every lookup a cache miss: the MMDB walk itself
  const hotGeo = hot.map((a) => [a, geo.locate(a)] as const);
  const rows = [
    ['locate(), cached (16 real addresses)', measure((i) => void geo.locate(hot[i % hot.length]!))],
    ['locate(), uncached (MMDB walk + decode)', measure((i) => void fresh.locate(cold[i % cold.length]!))],
    ['locate(), 50k distinct addresses, 100k cache', measure((i) => void geo.locate(cold[i % cold.length]!))],
    [
      `latencyMs(), distance model (${regions.length} regions)`,
      measure((i) => {
        const [a, g] = hotGeo[i % hotGeo.length]!;
        void geo.latencyMs(a, g, regions[i % regions.length]!);
      }),
    ],
  ] as const;
  return { rows: rows.map(([name, rate]) => [name, fmt(rate), (1e6 / rate).toFixed(3)]) };
}

/**
 * Runs `op(i)` one call at a time for about SECONDS (for operations of milliseconds); returns wall and CPU
 * milliseconds per call (CPU time of this process: less sensitive to other processes on a busy machine).
 */
function msPerCall(op: (i: number) => void): { wall: number; cpu: number } {
  let i = 0;
  const warmEnd = performance.now() + 300;
  while (performance.now() < warmEnd) op(i++);
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const end = start + SECONDS * 1000;
  let n = 0;
  let now = start;
  while (now < end) {
    op(i++);
    n++;
    now = performance.now();
  }
  const cpu = process.cpuUsage(cpu0);
  return { wall: (now - start) / n, cpu: (cpu.user + cpu.system) / 1000 / n };
}

/** buildSnapshot() on the benchmark's profiles: full, and incremental after typical changes. */
async function childBuild(): Promise<ChildResult> {
  const { geo } = await setup();
  const { profiles } = buildProfiles();
  const leaf = 'priority-0-m0-l0';
  const views: HealthView[] = ['Online', 'Degraded'].map((v) => ({
    verdict: (p, e) => (p === leaf && e === 'e0' ? (v as 'Online' | 'Degraded') : 'Online'),
  }));
  const input = (i: number, docs: Profile[] = profiles) => ({ zone: ZONE, profiles: docs, health: views[i % 2]!, geo });
  const k = profiles.findIndex((p) => p.name === leaf);
  const copies = [0, 1].map(() => profiles.map((p, j) => (j === k ? (JSON.parse(JSON.stringify(p)) as Profile) : p)));
  let prev = buildSnapshot(input(0));
  const rows: [string, { wall: number; cpu: number }][] = [
    ['full build', msPerCall(() => void buildSnapshot(input(0)))],
    [
      'incremental, nothing changed',
      msPerCall(() => {
        prev = buildSnapshot(input(0), prev);
      }),
    ],
    [
      'incremental, one leaf verdict changed',
      msPerCall((i) => {
        prev = buildSnapshot(input(i), prev);
      }),
    ],
    [
      'incremental, one leaf document replaced',
      msPerCall((i) => {
        prev = buildSnapshot(input(0, copies[i % 2]), prev);
      }),
    ],
  ];
  return { rows: rows.map(([name, ms]) => [name, String(profiles.length), ms.wall.toFixed(3), ms.cpu.toFixed(3)]) };
}

function runChild(task: string): ChildResult {
  const r = spawnSync(process.execPath, [...process.execArgv, __filename], {
    env: { ...process.env, BENCH_CHILD: task },
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`bench child ${task} failed (exit ${r.status}):\n${r.stderr}`);
  const line = r.stdout.trim().split('\n').pop()!;
  return JSON.parse(line) as ChildResult;
}

async function main(): Promise<void> {
  const child = process.env.BENCH_CHILD;
  if (child !== undefined) {
    const result =
      child === 'geo'
        ? await childGeo()
        : child === 'build'
          ? await childBuild()
          : child === 'mixed'
            ? await childMixed()
            : await childMethod(child as TrafficRoutingMethod);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const { tOpen, tBuild, profileCount } = await setup();
  console.log(
    `routing benchmark: ${profileCount} profiles (3-level nesting), geo database opened in ${tOpen.toFixed(0)} ms, snapshot built in ${tBuild.toFixed(1)} ms, ${SECONDS}s per figure, each row in a fresh process`,
  );
  console.log(
    `node ${process.version}, ${process.platform}/${process.arch}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(2)}`,
  );

  const only = process.env.BENCH_METHODS?.split(',').map((m) => m.trim().toLowerCase());
  const tasks = (['Priority', 'Weighted', 'Performance', 'Geographic', 'Subnet', 'MultiValue', 'mixed'] as string[]).filter(
    (m) => !only || only.includes(m.toLowerCase()),
  );
  const rows = tasks.flatMap((t) => runChild(t).rows);
  table(
    'answers/second (answer(): resolve + sample), one core',
    ['method', 'top profiles', 'levels', 'hot clients/s', '50k clients/s', 'µs/answer (hot)'],
    rows,
  );
  if (!only || only.includes('geo')) table('geo lookups/second, one core', ['operation', 'ops/s', 'µs/op'], runChild('geo').rows);
  if (!only || only.includes('build'))
    table('snapshot builds (buildSnapshot), one core', ['build', 'profiles', 'ms/build', 'CPU ms/build'], runChild('build').rows);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
