/**
 * `npm run bench:validate`: validate() over a generated 1,000-profile, 20,000-endpoint valid document
 * (every routing method, three levels of nesting). Prints ms per run and endpoints per second.
 */
import { performance } from 'node:perf_hooks';
import { GEO_REGIONS } from '../src/core/data';
import { validate } from '../src/core/validate';

type Obj = Record<string, unknown>;
const PER = 20;
const ext = (name: string, target: string, extra: Obj = {}): Obj => ({ name, type: 'externalEndpoints', target, ...extra });
const nested = (name: string, child: string, extra: Obj = {}): Obj => ({
  name,
  type: 'nestedEndpoints',
  targetResourceId: child,
  ...extra,
});
const profile = (name: string, method: string, endpoints: Obj[], extra: Obj = {}): Obj => ({
  name,
  trafficRoutingMethod: method,
  dnsConfig: { relativeName: name, ttl: 30 },
  monitorConfig: {
    protocol: 'HTTPS',
    port: 443,
    path: '/health',
    intervalInSeconds: 30,
    timeoutInSeconds: 10,
    toleratedNumberOfFailures: 3,
  },
  endpoints,
  ...extra,
});
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const REGIONS = ['westeurope', 'North Europe', 'eastus', 'westus2', 'japaneast', 'australiaeast', 'brazilsouth', 'southeastasia'];
const COUNTRIES = [...GEO_REGIONS.values()].filter((r) => r.depth === 2).map((r) => r.code);

export function generate(): Obj {
  const profiles: Obj[] = [];
  // 200 Weighted leaves: FQDN targets.
  for (const i of range(200))
    profiles.push(
      profile(
        `w${i}`,
        'Weighted',
        range(PER).map((j) => ext(`e${j}`, `w${i}-e${j}.example.net`, { weight: 1 + (j % 10) })),
      ),
    );
  // 200 Priority: 5 nested Weighted children + 15 FQDN endpoints (depth 2).
  for (const i of range(200)) {
    profiles.push(
      profile(
        `p${i}`,
        'Priority',
        range(PER).map((j) =>
          j < 5 ? nested(`n${j}`, `w${(i + j * 7) % 200}`, { minChildEndpoints: 2 }) : ext(`e${j}`, `p${i}-e${j}.example.net`),
        ),
      ),
    );
  }
  // 150 Geographic: all nested over Priority profiles (depth 3), WORLD on the first endpoint.
  for (const i of range(150)) {
    profiles.push(
      profile(
        `g${i}`,
        'Geographic',
        range(PER).map((j) =>
          nested(`n${j}`, `p${(i + j) % 200}`, {
            geoMapping: j === 0 ? ['WORLD'] : COUNTRIES.slice((j - 1) * 3, j * 3),
          }),
        ),
      ),
    );
  }
  // 150 Performance: external endpoints with locations, some nested.
  for (const i of range(150)) {
    profiles.push(
      profile(
        `f${i}`,
        'Performance',
        range(PER).map((j) =>
          j % 4 === 0
            ? nested(`n${j}`, `w${(i * 3 + j) % 200}`, { endpointLocation: REGIONS[j % REGIONS.length] })
            : ext(`e${j}`, `f${i}-e${j}.example.net`, { endpointLocation: REGIONS[j % REGIONS.length] }),
        ),
      ),
    );
  }
  // 150 Subnet: 19 endpoints with IPv4 and IPv6 ranges (CIDR and first–last), one fallback.
  for (const i of range(150)) {
    profiles.push(
      profile(
        `s${i}`,
        'Subnet',
        range(PER).map((j) =>
          ext(`e${j}`, `s${i}-e${j}.example.net`, {
            subnets:
              j === PER - 1
                ? []
                : [
                    { first: `10.${i % 256}.${j}.0`, scope: 24 },
                    { first: `172.16.${j}.1`, last: `172.16.${j}.200` },
                    { first: `2001:db8:${i.toString(16)}:${j.toString(16)}::`, scope: 64 },
                  ],
          }),
        ),
      ),
    );
  }
  // 150 MultiValue: 10 IPv4 + 10 IPv6 literals.
  for (const i of range(150)) {
    profiles.push(
      profile(
        `m${i}`,
        'MultiValue',
        range(PER).map((j) => ext(`e${j}`, j % 2 === 0 ? `192.0.2.${j + 1}` : `2001:db8::${i.toString(16)}:${j}`)),
        { maxReturn: 4 },
      ),
    );
  }
  return { apiVersion: 'tmkit/v1', stack: 'bench', profiles };
}

function main(): void {
  const doc = generate();
  const profiles = (doc.profiles as Obj[]).length;
  const endpoints = (doc.profiles as Obj[]).reduce((n, p) => n + (p.endpoints as unknown[]).length, 0);
  const first = validate(doc);
  if (first.length > 0) {
    console.error(`the generated document is not clean: ${first.length} diagnostics, e.g.`, first.slice(0, 5));
    process.exitCode = 1;
    return;
  }
  for (let i = 0; i < 3; i++) validate(doc); // warm-up (JIT)
  const runs = 10;
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    validate(doc);
    times.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000 / runs;
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / runs;
  const median = times[Math.floor(runs / 2)]!;
  console.log(`validate(): ${profiles} profiles, ${endpoints} endpoints, ${runs} runs after 3 warm-up runs`);
  console.log(
    `  ms per run: mean ${mean.toFixed(1)}, median ${median.toFixed(1)}, min ${times[0]!.toFixed(1)}, max ${times[runs - 1]!.toFixed(1)}`,
  );
  console.log(`  CPU ms per run (user+system, incl. GC threads; less sensitive to a loaded machine): ${cpuMs.toFixed(1)}`);
  console.log(`  endpoints/second: ${Math.round(endpoints / (median / 1000)).toLocaleString('en-US')} (median)`);
}

if (require.main === module) main();
