/**
 * What Traffic View costs DNS (issue 19: at most 5%), measured side by side in one run:
 *   1. in process: Responder.handle ns/query for the same answers with the profile enrolled
 *      (trafficViewEnrollmentStatus Enabled) and not, from 4,096 client addresses, drained once per 100,000
 *      queries (a second at 100k q/s), rounds interleaved;
 *   2. over UDP: dnsperf q/s against `tmkit dns` serving the same document enrolled and not, runs
 *      alternated (dnsperf from Debian; skipped with a note when it is missing).
 * `npm run bench:traffic` (DNS_TRAFFIC_QUERIES, DNSPERF_SECONDS tune it).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeProfile } from '../../src/core/model/normalize';
import type { ProfileInput } from '../../src/core/model/types';
import { buildSnapshot, resolve } from '../../src/core/routing';
import { Responder } from '../../src/runtime/dns';

const N = Number(process.env.DNS_TRAFFIC_QUERIES ?? 2_000_000);
const SECONDS = Number(process.env.DNSPERF_SECONDS ?? 10);
const ROUNDS = 5;

const profile = (name: string, enrolled: boolean): ProfileInput => ({
  name,
  trafficRoutingMethod: 'Weighted',
  dnsConfig: { relativeName: name, ttl: 30 },
  ...(enrolled ? { trafficViewEnrollmentStatus: 'Enabled' as const } : {}),
  endpoints: [
    { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', weight: 1 },
    { name: 'b', type: 'externalEndpoints', target: '192.0.2.2', weight: 3 },
  ],
});

function query(id: number, name: string): Buffer {
  const q = Buffer.concat([
    ...name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])),
    Buffer.from([0, 0, 1, 0, 1]),
  ]);
  const h = Buffer.alloc(12);
  h.writeUInt16BE(id, 0);
  h.writeUInt16BE(0x0100, 2);
  h.writeUInt16BE(1, 4);
  return Buffer.concat([h, q]);
}

function inProcess(): void {
  const geo = { locate: (a: string) => ({ country: ['DE', 'FR', 'US', 'JP'][Number(a.split('.')[2]) & 3]! }), latencyMs: () => undefined };
  const make = (enrolled: boolean) =>
    new Responder({
      zone: 'tm.internal',
      resolve,
      rng: Math.random,
      snapshot: buildSnapshot({
        zone: 'tm.internal',
        geo,
        health: { verdict: () => 'Online' },
        profiles: [normalizeProfile(profile('web', enrolled))],
      }),
    });
  const plain = make(false);
  const counted = make(true);
  const clients = Array.from({ length: 4096 }, (_, i) => `198.51.${i >> 8}.${(i & 255) + 1}`);
  const q = query(1, 'web.tm.internal');
  const run = (r: Responder): number => {
    const t = process.hrtime.bigint();
    for (let i = 0; i < N; i++) {
      r.handle(q, clients[i & 4095]!, 'udp');
      if (i % 100_000 === 99_999) r.drainTraffic();
    }
    return Number(process.hrtime.bigint() - t) / N;
  };
  run(plain);
  run(counted); // warm up
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    a.push(run(plain));
    b.push(run(counted));
  }
  const med = (x: number[]) => [...x].sort((p, q2) => p - q2)[Math.floor(x.length / 2)]!;
  const rows = counted.drainTraffic();
  console.log(`traffic: Responder.handle, not enrolled: ${med(a).toFixed(0)} ns/query (rounds ${a.map((x) => x.toFixed(0)).join(', ')})`);
  console.log(
    `traffic: Responder.handle, enrolled:     ${med(b).toFixed(0)} ns/query (rounds ${b.map((x) => x.toFixed(0)).join(', ')}); +${(med(b) - med(a)).toFixed(0)} ns, ratio ${(med(b) / med(a)).toFixed(3)}; last drain ${rows.length} cells`,
  );
}

async function overUdp(): Promise<void> {
  if (spawnSync('dnsperf', ['-h']).error) {
    console.log('traffic: dnsperf not installed (Debian: apt-get install dnsperf); the UDP comparison is skipped');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-bench-traffic-'));
  const bin = join(__dirname, '../../dist/src/cli/bin.js');
  const qfile = join(dir, 'queries');
  writeFileSync(qfile, 'web.tm.internal A\n');
  const rate = (enrolled: boolean): Promise<number> =>
    new Promise((resolveRate, reject) => {
      const doc = join(dir, `doc-${enrolled}.json`);
      writeFileSync(doc, JSON.stringify({ apiVersion: 'tmkit/v1', profiles: [profile('web', enrolled)] }));
      const child = spawn(process.execPath, [bin, 'dns', '--document', doc, '--listen', '127.0.0.1:0'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d) => {
        out += String(d);
        const m = /127\.0\.0\.1:(\d+)/.exec(out);
        if (!m) return;
        child.stdout.removeAllListeners('data');
        try {
          const res = execFileSync(
            'dnsperf',
            ['-s', '127.0.0.1', '-p', m[1]!, '-d', qfile, '-l', String(SECONDS), '-c', '8', '-Q', '200000', '-q', '500'],
            { encoding: 'utf8' },
          );
          resolveRate(Number(/Queries per second:\s+([\d.]+)/.exec(res)?.[1] ?? NaN));
        } catch (err) {
          reject(err);
        } finally {
          child.kill('SIGTERM');
        }
      });
    });
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 3; i++) {
    a.push(await rate(false));
    b.push(await rate(true));
  }
  const med = (x: number[]) => [...x].sort((p, q) => p - q)[1]!;
  console.log(
    `traffic: dnsperf against tmkit dns (one process), not enrolled: ${med(a).toFixed(0)} q/s (${a.map((x) => x.toFixed(0)).join(', ')})`,
  );
  console.log(
    `traffic: dnsperf against tmkit dns (one process), enrolled:     ${med(b).toFixed(0)} q/s (${b.map((x) => x.toFixed(0)).join(', ')}); ratio ${(med(b) / med(a)).toFixed(3)}`,
  );
}

inProcess();
void overUdp();
