/**
 * `node -r @swc-node/register bench/measured-routing.ts`: the cost of one resolve() of a Performance profile
 * ranked by measured latency (`performanceLatency` Measured, every endpoint measured from one location) against
 * the same profile ranked by the distance model, at 2, 5 and 20 endpoints over five regions, clients round
 * robin over 65,536 addresses (TableGeo: no database, so the figures are routing's own). The DNS hot path runs
 * this on every query of a client-dependent name (no answer cache).
 *
 * Environment: BENCH_QUERIES (per measurement, default 200,000).
 */
import type { HealthView } from '../src/core/health/types';
import type { LatencyView, MeasuredRtt } from '../src/core/health/latency';
import { buildSnapshot, resolve } from '../src/core/routing';
import { profile } from '../src/testing/builders';
import { TableGeo } from '../src/testing/geo-table';

const N = Number(process.env.BENCH_QUERIES ?? 200_000);
const REGIONS = ['westeurope', 'japaneast', 'eastus', 'westus', 'brazilsouth'];
const geo = new TableGeo({ latency: { '*': { westeurope: 10, japaneast: 200, eastus: 90, westus: 150, brazilsouth: 190 } } });
const health: HealthView = { verdict: () => 'Online' };

function web(n: number, measured: boolean) {
  return profile(
    'web',
    'Performance',
    Array.from({ length: n }, (_, i) => ({
      name: `e${i}`,
      type: 'externalEndpoints',
      target: `192.0.2.${i + 1}`,
      endpointLocation: REGIONS[i % REGIONS.length],
    })),
    measured ? { performanceLatency: { source: 'Measured' } } : {},
  );
}

for (const n of [2, 5, 20]) {
  const rtt: Record<string, Record<string, MeasuredRtt>> = {};
  for (let i = 0; i < n; i++) rtt[`web/e${i}`] = { here: { ms: 10 + i * 3, samples: 50 } };
  const latency: LatencyView = { locations: [{ name: 'here' }], rtt, leaders: { web: { here: 'e0' } } };
  for (const measured of [false, true]) {
    const snap = buildSnapshot({ zone: 'tm.test', profiles: [web(n, measured)], health, geo, latency });
    const query = (i: number) => ({ name: 'web.tm.test', type: 'A', clientAddress: `198.51.${(i >> 8) & 255}.${i & 255}` });
    for (let i = 0; i < 20_000; i++) resolve(snap, query(i));
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) resolve(snap, query(i));
    const us = Number(process.hrtime.bigint() - t0) / N / 1000;
    console.log(`${String(n).padStart(2)} endpoints, ${measured ? 'measured      ' : 'distance model'}: ${us.toFixed(2)} µs per resolve`);
  }
}
