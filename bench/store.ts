/**
 * The store's write path (issue 16): N profile PUTs straight through SqliteStore (no HTTP), each its own
 * durable transaction (synchronous=FULL: every acknowledged write is fsynced), then N reads.
 *
 *   npm run bench:store [-- --puts 1000]                 # the driver this Node picks
 *   TMKIT_SQLITE_DRIVER=wasm npm run bench:store         # force node-sqlite3-wasm
 *   TMKIT_BENCH_STORE=/path/to/src/runtime/store/sqlite.ts npm run bench:store   # another checkout's store
 *
 * Prints one JSON line: driver, node, puts/s, per-PUT p50/p99 (ms), the total, and the reads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeProfile } from '../src/core/model/normalize';
import type { ProfileInput } from '../src/core/model/types';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) || dflt : dflt;
};
const puts = arg('--puts', 1000);
const modulePath = process.env.TMKIT_BENCH_STORE ?? '../src/runtime/store/sqlite';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SqliteStore } = require(modulePath) as typeof import('../src/runtime/store/sqlite');

function input(name: string, i: number): ProfileInput {
  return {
    name,
    trafficRoutingMethod: 'Weighted',
    dnsConfig: { relativeName: name, ttl: 30 },
    monitorConfig: { protocol: 'HTTPS', port: 443, path: '/healthz' },
    endpoints: Array.from({ length: 4 }, (_, e) => ({
      name: `ep-${e}`,
      type: 'externalEndpoints' as const,
      target: `192.0.2.${((i + e) % 250) + 1}`,
      weight: e + 1,
    })),
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-bench-store-'));
  try {
    const store = SqliteStore.open({ stateDir: dir });
    const driver = (store as { driver?: string }).driver ?? 'better-sqlite3';
    const profiles = Array.from({ length: puts }, (_, i) => normalizeProfile(input(`p${String(i).padStart(5, '0')}`, i)));
    const lat: number[] = [];
    const t0 = process.hrtime.bigint();
    for (const p of profiles) {
      const s = process.hrtime.bigint();
      await store.putProfile(p, { stack: 'bench' });
      lat.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
    const totalMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const r0 = process.hrtime.bigint();
    for (const p of profiles) await store.getProfile(p.name);
    const readMs = Number(process.hrtime.bigint() - r0) / 1e6;
    const all0 = process.hrtime.bigint();
    const n = (await store.getProfiles()).length;
    const allMs = Number(process.hrtime.bigint() - all0) / 1e6;
    await store.close();
    lat.sort((a, b) => a - b);
    const q = (f: number): number => Math.round(lat[Math.min(lat.length - 1, Math.floor(f * lat.length))]! * 1000) / 1000;
    console.log(
      JSON.stringify({
        driver,
        node: process.version,
        puts,
        putsPerSec: Math.round(puts / (totalMs / 1000)),
        totalMs: Math.round(totalMs),
        p50Ms: q(0.5),
        p99Ms: q(0.99),
        getsPerSec: Math.round(puts / (readMs / 1000)),
        getProfilesMs: Math.round(allMs * 10) / 10,
        profiles: n,
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
