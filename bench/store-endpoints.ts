/**
 * The endpoint write path (issue 29 §1): endpoint PUTs through the management API (a real ApiServer on
 * loopback over a real SqliteStore, every write durable) into a profile of 1 endpoint and into one of 200,
 * measured in the same run, then 10 writers at once (group commit: one transaction and one fsync per turn), each
 * into its own profile and all into one (Terraform's pattern: counted endpoints of one profile, parallelism 10).
 * A write into 200 endpoints should cost about what a write into 1 does.
 *
 *   npm run bench:store-endpoints [-- --writes 300]
 *   TMKIT_BENCH_REPO=/path/to/other/checkout npm run bench:store-endpoints   # the same bench on other code
 *
 * Prints one JSON line per case: p50/p99 ms per write and writes/s, and the 200:1 ratio of the p50s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { TmkitClient } from '../src/client';
import type { EndpointInput, ProfileInput } from '../src/core/model/types';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) || dflt : dflt;
};
const writes = arg('--writes', 300);
const repo = process.env.TMKIT_BENCH_REPO ?? join(__dirname, '..');
/* eslint-disable @typescript-eslint/no-require-imports */
const api = require(join(repo, 'src/runtime/api')) as Record<string, unknown>;
const { SqliteStore, StateDirLock } = require(join(repo, 'src/runtime/store')) as typeof import('../src/runtime/store');
let metricsMod: Record<string, unknown>;
try {
  metricsMod = require(join(repo, 'src/runtime/metrics')) as Record<string, unknown>;
} catch {
  metricsMod = api;
}
/* eslint-enable @typescript-eslint/no-require-imports */

const endpoint = (i: number, weight = 1): EndpointInput => ({
  name: `ep-${i}`,
  type: 'externalEndpoints',
  target: `10.${(i >> 8) & 255}.${i & 255}.1`,
  weight,
});
const profile = (name: string, n: number): ProfileInput => ({
  name,
  trafficRoutingMethod: 'Weighted',
  dnsConfig: { relativeName: name, ttl: 30 },
  monitorConfig: { protocol: 'HTTP', port: 80, path: '/' },
  endpoints: Array.from({ length: n }, (_, i) => endpoint(i)),
});

const pct = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]! * 1000) / 1000;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-bench-ep-'));
  // As tmkit serve opens it: holding the state dir, so the store is this file's only writer.
  const lock = StateDirLock.acquire(dir);
  const store = SqliteStore.open({ stateDir: dir, lockHeld: true, driver: lock.driver });
  const token = 'bench-token-0123456789';
  const Metrics = metricsMod.RuntimeMetrics as new () => unknown;
  const Server = api.ApiServer as new (
    o: Record<string, unknown>,
  ) => { listen(h: string, p: number): Promise<{ port: number }>; close(): Promise<void> };
  const server = new Server({
    store,
    token,
    metrics: new Metrics(),
    logger: pino({ level: 'silent' }),
    ...(api.defaultValidator ? { validator: api.defaultValidator } : {}),
  });
  const { port } = await server.listen('127.0.0.1', 0);
  const client = new TmkitClient({ server: `http://127.0.0.1:${port}`, token, env: {}, retries: 0 });
  const out: Record<string, unknown>[] = [];
  try {
    // Other profiles beside them, as a server has.
    for (let i = 0; i < 200; i++) await client.putProfile(profile(`other-${i}`, 4));
    const p50s: Record<number, number> = {};
    for (const size of [1, 200]) {
      const name = `p${size}`;
      await client.putProfile(profile(name, size));
      const lat: number[] = [];
      const t0 = performance.now();
      for (let k = 0; k < writes; k++) {
        const s = performance.now();
        await client.putEndpoint(name, endpoint(k % size, 1 + (k % 7)));
        lat.push(performance.now() - s);
      }
      const total = performance.now() - t0;
      p50s[size] = pct(lat, 0.5);
      out.push({
        case: `endpoint PUT into a profile of ${size}`,
        writes,
        p50Ms: pct(lat, 0.5),
        p99Ms: pct(lat, 0.99),
        perSec: Math.round(writes / (total / 1000)),
      });
    }
    // The same writes without HTTP: what the API's handler does (read, edit, conditional write).
    if (!api.defaultValidator) {
      const { withEndpoint } = require(join(repo, 'src/core/model/edit')) as typeof import('../src/core/model/edit'); // eslint-disable-line @typescript-eslint/no-require-imports
      for (const size of [1, 200]) {
        const name = `p${size}`;
        const lat: number[] = [];
        for (let k = 0; k < writes; k++) {
          const s = performance.now();
          const current = (await store.getProfile(name))!;
          const { input } = withEndpoint(current.profile, endpoint(k % size, 1 + ((k + 3) % 7)));
          await store.putProfile(input, { stack: current.stack, ifMatch: current.etag });
          lat.push(performance.now() - s);
        }
        out.push({
          case: `store: endpoint write into a profile of ${size} (no HTTP)`,
          writes,
          p50Ms: pct(lat, 0.5),
          p99Ms: pct(lat, 0.99),
        });
      }
    }
    // Ten writers at once, each its own profile of 200 endpoints.
    for (let w = 0; w < 10; w++) await client.putProfile(profile(`c${w}`, 200));
    const lat: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, async (_, w) => {
        for (let k = 0; k < Math.ceil(writes / 10); k++) {
          const s = performance.now();
          await client.putEndpoint(`c${w}`, endpoint(k % 200, 1 + (k % 7)));
          lat.push(performance.now() - s);
        }
      }),
    );
    const total = performance.now() - t0;
    out.push({
      case: '10 concurrent writers, profiles of 200',
      writes: lat.length,
      p50Ms: pct(lat, 0.5),
      p99Ms: pct(lat, 0.99),
      perSec: Math.round(lat.length / (total / 1000)),
    });
    // Ten writers at once into one profile of 200, each its own endpoints: what `terraform apply` of counted
    // endpoints does (parallelism 10, neighbours in one profile).
    const lat1: number[] = [];
    const t1 = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, async (_, w) => {
        for (let k = 0; k < Math.ceil(writes / 10); k++) {
          const s = performance.now();
          await client.putEndpoint('c0', endpoint((w * 20 + k) % 200, 2 + (k % 7)));
          lat1.push(performance.now() - s);
        }
      }),
    );
    const total1 = performance.now() - t1;
    out.push({
      case: '10 concurrent writers, one profile of 200',
      writes: lat1.length,
      p50Ms: pct(lat1, 0.5),
      p99Ms: pct(lat1, 0.99),
      perSec: Math.round(lat1.length / (total1 / 1000)),
    });
    out.push({ ratio200to1p50: Math.round((p50s[200]! / p50s[1]!) * 100) / 100 });
  } finally {
    await client.close();
    await server.close();
    await store.close();
    lock.release();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ repo, node: process.version, driver: (store as { driver?: string }).driver, results: out }));
}

void main();
