/**
 * bench:plan — plan 1,000 profiles against a deployed set, routing preview included.
 *
 * Estate: 1,000 profiles in one stack: 400 Weighted, 200 Priority, 150 Performance, 100 Geographic (each
 * nesting a Priority child for Europe), 50 Subnet, 100 MultiValue; 3 to 4 endpoints each. Two plans:
 *  - "typical PR": 10% of the profiles change (weights, a geo mapping, an endpoint added or removed),
 *    20 are created and 20 deleted;
 *  - "everything changes": every profile has a change (worst case for the preview).
 * Prints the wall time (and this process's CPU time, less sensitive to a busy machine) of fetching the
 * deployed state + diff + preview + report + all three renderers, median of 5 runs after a warm-up:
 *  - in-process: the deployed set given as data (the pure plan engine alone);
 *  - against a running management API (real HTTP on 127.0.0.1, SQLite store in a temp dir, the deployed
 *    set applied through the API first): GET /v1/profiles with the client, then the same work — what
 *    `tmkit plan FILE --server ...` does after start-up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { executePlan } from '../src/client';
import { TmkitClient } from '../src/client';
import { ApiServer } from '../src/runtime/api';
import { RuntimeMetrics } from '../src/runtime/metrics';
import { SqliteStore } from '../src/runtime/store';
import { normalize } from '../src/core/model/normalize';
import type { Document, DocumentInput, EndpointInput, ProfileInput } from '../src/core/model/types';
import { buildReport, diff, previewPlan, renderJson, renderMarkdown, renderText, type DeployedProfile } from '../src/core/plan';
import { MmdbGeoLookup } from '../src/geo';

const REGIONS = ['westeurope', 'northeurope', 'eastus', 'westus2', 'japaneast', 'southeastasia', 'brazilsouth', 'australiaeast'];
const ext = (name: string, extra: Partial<EndpointInput> = {}): EndpointInput => ({
  name,
  type: 'externalEndpoints',
  target: `${name}.example.net`,
  ...extra,
});

function estate(changeEvery: number): { before: ProfileInput[]; after: ProfileInput[] } {
  const before: ProfileInput[] = [];
  const after: ProfileInput[] = [];
  const push = (b: ProfileInput | undefined, a: ProfileInput | undefined): void => {
    if (b) before.push(b);
    if (a) after.push(a);
  };
  for (let i = 0; i < 1000; i++) {
    const n = `p${String(i).padStart(4, '0')}`;
    const change = i % changeEvery === 0;
    const base = { dnsConfig: { relativeName: n, ttl: 30 }, monitorConfig: { protocol: 'HTTPS' as const, port: 443, path: '/health' } };
    if (i < 400) {
      const eps = (w: number) => [ext(`${n}-a`, { weight: w }), ext(`${n}-b`, { weight: 100 - w }), ext(`${n}-c`, { weight: 10 })];
      push(
        { name: n, trafficRoutingMethod: 'Weighted', ...base, endpoints: eps(50) },
        { name: n, trafficRoutingMethod: 'Weighted', ...base, endpoints: eps(change ? 40 : 50) },
      );
    } else if (i < 600) {
      const eps = [ext(`${n}-1`), ext(`${n}-2`), ext(`${n}-3`)];
      push(
        { name: n, trafficRoutingMethod: 'Priority', ...base, endpoints: eps },
        { name: n, trafficRoutingMethod: 'Priority', ...base, endpoints: change ? eps.slice(0, 2) : eps },
      );
    } else if (i < 750) {
      const eps = (k: number) =>
        Array.from({ length: k }, (_, j) => ext(`${n}-${j}`, { endpointLocation: REGIONS[(i + j) % REGIONS.length]! }));
      push(
        { name: n, trafficRoutingMethod: 'Performance', ...base, endpoints: eps(3) },
        { name: n, trafficRoutingMethod: 'Performance', ...base, endpoints: eps(change ? 4 : 3) },
      );
    } else if (i < 850) {
      const child = `${n}-eu`;
      const childProfile: ProfileInput = {
        name: child,
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: child, ttl: 30 },
        endpoints: [ext(`${child}-1`), ext(`${child}-2`)],
      };
      const geo = (extra: string[]) => [
        { name: 'eu', type: 'nestedEndpoints', targetResourceId: child, geoMapping: ['GEO-EU', ...extra] },
        ext(`${n}-na`, { geoMapping: ['GEO-NA', 'GEO-SA'] }),
        ext(`${n}-as`, { geoMapping: ['GEO-AS', 'GEO-AP'] }),
        ext(`${n}-w`, { geoMapping: ['WORLD'] }),
      ];
      push(childProfile, childProfile);
      push(
        { name: n, trafficRoutingMethod: 'Geographic', ...base, endpoints: geo([]) },
        { name: n, trafficRoutingMethod: 'Geographic', ...base, endpoints: geo(change ? ['GEO-ME'] : []) },
      );
      i++; // the child counts towards the 1,000
    } else if (i < 900) {
      const eps = (s: number) => [ext(`${n}-corp`, { subnets: [{ first: `10.${i % 250}.0.0`, scope: s }] }), ext(`${n}-rest`)];
      push(
        { name: n, trafficRoutingMethod: 'Subnet', ...base, endpoints: eps(16) },
        { name: n, trafficRoutingMethod: 'Subnet', ...base, endpoints: eps(change ? 17 : 16) },
      );
    } else {
      const eps = (k: number) =>
        Array.from({ length: k }, (_, j) => ({ name: `${n}-${j}`, type: 'externalEndpoints', target: `192.0.${i % 250}.${j + 1}` }));
      push(
        { name: n, trafficRoutingMethod: 'MultiValue', ...base, maxReturn: 2, endpoints: eps(3) },
        { name: n, trafficRoutingMethod: 'MultiValue', ...base, maxReturn: 2, endpoints: eps(change ? 4 : 3) },
      );
    }
  }
  if (changeEvery > 1) {
    // 20 created, 20 deleted.
    for (let j = 0; j < 20; j++)
      after.push({
        name: `new${j}`,
        trafficRoutingMethod: 'Weighted',
        dnsConfig: { relativeName: `new${j}` },
        endpoints: [ext(`new${j}-a`), ext(`new${j}-b`)],
      });
    for (let j = 0; j < 20; j++)
      after.splice(
        after.findIndex((p) => p.name === `p${String(400 + j * 5 + 1).padStart(4, '0')}`),
        1,
      );
  }
  return { before, after };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface Timing {
  total: number;
  cpu: number;
  fetch: number;
  diff: number;
  preview: number;
  render: number;
}

interface Source {
  name: string;
  fetch: () => Promise<DeployedProfile[]>;
  close: () => Promise<void>;
}

/** The deployed estate (the same for both plans) behind a real management API, seeded through the API. */
async function serverSource(deployedDoc: Document): Promise<Source> {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-bench-plan-'));
  const store = SqliteStore.open({ stateDir: dir });
  const token = 'bench-token';
  const api = new ApiServer({ store, token, metrics: new RuntimeMetrics(), logger: pino({ level: 'silent' }) });
  const addr = await api.listen('127.0.0.1', 0);
  const client = new TmkitClient({ server: `http://127.0.0.1:${addr.port}`, token });
  const t = performance.now();
  const seeded = await executePlan(client, diff(deployedDoc, []));
  if (seeded.failed) throw new Error(`seeding the server failed at ${seeded.failed.step.profile}: ${seeded.failed.error}`);
  console.log(`  (seeded ${seeded.applied.length} profiles through the API in ${(performance.now() - t).toFixed(0)} ms)`);
  return {
    name: 'server',
    fetch: async () => (await client.listProfiles()).profiles.map((e) => ({ profile: e.profile, etag: e.etag, stack: e.stack })),
    close: async () => {
      await client.close();
      await api.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function memorySource(deployedDoc: Document): Source {
  const deployed: DeployedProfile[] = deployedDoc.profiles.map((profile, k) => ({ profile, etag: `"${k}"`, stack: 'bench' }));
  return { name: 'memory', fetch: async () => deployed, close: async () => {} };
}

async function measure(label: string, desired: Document, source: Source, geo: MmdbGeoLookup): Promise<void> {
  const runs: Timing[] = [];
  let summary = '';
  let sizes = '';
  for (let run = 0; run < 6; run++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const deployed = await source.fetch();
    const a = performance.now();
    const plan = diff(desired, deployed);
    const b = performance.now();
    const preview = previewPlan(plan, deployed, geo);
    const c = performance.now();
    const report = buildReport(plan, deployed, { preview, maxFailoverSeconds: 300 });
    const text = renderText(report);
    const md = renderMarkdown(report);
    const json = renderJson(report);
    const d = performance.now();
    const cpu = process.cpuUsage(cpu0);
    if (run === 0) {
      // warm-up
      summary = `${desired.profiles.length} desired vs ${deployed.length} deployed: ${plan.summary.add} add, ${plan.summary.change} change, ${plan.summary.destroy} destroy; ${preview.profiles.length} profiles previewed`;
      sizes = `text ${(text.length / 1024).toFixed(0)} KiB, markdown ${(md.length / 1024).toFixed(0)} KiB, json ${(json.length / 1024 / 1024).toFixed(1)} MiB`;
      continue;
    }
    runs.push({ total: d - t0, cpu: (cpu.user + cpu.system) / 1000, fetch: a - t0, diff: b - a, preview: c - b, render: d - c });
  }
  const m = (k: keyof Timing): string => median(runs.map((r) => r[k])).toFixed(0);
  const total = median(runs.map((r) => r.total));
  console.log(`  ${label}`);
  console.log(`    ${summary}`);
  console.log(
    `    total ${total.toFixed(0)} ms wall, ${m('cpu')} ms CPU of this process (median of 5): ${source.name === 'server' ? `GET /v1/profiles ${m('fetch')} ms, ` : ''}diff ${m('diff')} ms, preview ${m('preview')} ms, report + 3 renderers ${m('render')} ms`,
  );
  console.log(`    output: ${sizes}`);
  console.log(`    target < 2000 ms: ${total < 2000 ? 'met' : 'MISSED'}`);
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const geo = MmdbGeoLookup.openSync();
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  console.log(
    `bench:plan — 1,000 profiles, routing preview included (node ${process.version}, ${cpus().length} CPUs, load average ${load})`,
  );
  console.log(`geo database open: ${(performance.now() - t0).toFixed(0)} ms (once per command, not included below)`);
  const plans = [
    ['typical PR (10% changed, 20 created, 20 deleted)', 10],
    ['everything changes (1,000 changed)', 1],
  ] as const;
  const before = estate(10).before; // the deployed estate is the same for both plans
  const deployedDoc = normalize({ apiVersion: 'tmkit/v1', stack: 'bench', profiles: before } as DocumentInput);
  const desired = (every: number): Document =>
    normalize({ apiVersion: 'tmkit/v1', stack: 'bench', profiles: estate(every).after } as DocumentInput);
  console.log('\nagainst a running management API (HTTP on 127.0.0.1, SQLite store):');
  const server = await serverSource(deployedDoc);
  for (const [label, every] of plans) await measure(label, desired(every), server, geo);
  await server.close();
  console.log('\nin-process (deployed set given as data, no server round trip):');
  const memory = memorySource(deployedDoc);
  for (const [label, every] of plans) await measure(label, desired(every), memory, geo);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
