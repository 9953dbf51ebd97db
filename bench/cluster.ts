/**
 * A tmkit cluster on etcd under measurement (issue 18 Acceptance): one etcd and three `tmkit serve` nodes
 * (dist/, as processes) on loopback, each its own probing location.
 *
 *   latency   change → answer on all nodes: at 1,000 stored profiles, a PATCH through one node (round robin)
 *             changes an endpoint's address; UDP queries poll all three nodes until every one answers the new
 *             address. p50/p90/p99/max of request-sent → last node answering. Goal: < 250 ms.
 *   failover  three locations probe one profile (interval 10, tolerated 0, timeout 5: bound 15 s); its primary's
 *             health server is refused (closed) or hung at a random moment; time until every node answers the
 *             backup. Goal: within the bound + 1 s.
 *   steady    1,000 profiles × 10 endpoints = 10,000 probed endpoints (TCP, 30 s interval, healthy), probed by
 *             each of the three nodes: once every verdict is in, etcd's revision over 60 s (writes per
 *             minute; goal 0: only transitions are written) and each node's RSS.
 *   outage    dnsperf against every node across a 60 s etcd outage (SIGKILL, restart): lost queries (goal: 0
 *             beyond noise); a writer PUTs profiles the whole time: every acknowledged write is in etcd after.
 *
 *   npm run bench:cluster [-- --only latency,failover,steady,outage] [--changes 100] [--trials 3]
 */
import { spawn, execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { queryUdp } from '../test/support/loopback';
import { startEtcd, type EtcdServer } from '../test/support/etcd';
import { api, startNode, stopNode, type NodeProcess } from '../test/runtime/cluster/support';
import { waitFor } from '../test/support/wait';
import { pct } from './support/udp';
import { tempDirs } from '../test/support/tmp';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : dflt;
};
const only = new Set(opt('only', 'latency,failover,steady,outage').split(','));
const CHANGES = Number(opt('changes', '100'));
const TRIALS = Number(opt('trials', '3'));

const tmp = tempDirs('tmkit-bench-', { cleanup: 'manual' });
const ms = (x: number): string => `${x.toFixed(1)} ms`;
const sleep = (t: number): Promise<void> => new Promise((r) => setTimeout(r, t));

/** Every node started, so that a failed run still stops them all. */
const started: NodeProcess[] = [];

async function cluster(etcd: EtcdServer, prefix: string, extra: string[] = []): Promise<NodeProcess[]> {
  const nodes = await Promise.all(
    [1, 2, 3].map((i) =>
      startNode({
        store: etcd.storeUrl(prefix),
        node: `n${i}`,
        location: `loc${i}`,
        stateDir: tmp(`tmkit-bench-n${i}-`),
        leaseTtl: 5,
        extra,
      }),
    ),
  );
  started.push(...nodes);
  return nodes;
}

async function putAll(node: NodeProcess, profiles: Array<Record<string, unknown>>, parallel = 16): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < profiles.length) {
        const p = profiles[next++]!;
        let r = await api(node, 'PUT', `/v1/profiles/${p.name as string}`, p, {}, 120_000);
        // An overloaded machine can make etcd miss a request deadline (503): the bench retries, like a client.
        for (let k = 0; r.status === 503 && k < 10; k++) {
          await sleep(1000);
          r = await api(node, 'PUT', `/v1/profiles/${p.name as string}`, p, {}, 120_000);
        }
        if (r.status >= 300) throw new Error(`PUT ${p.name as string}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      }
    }),
  );
}

async function etcdRevision(etcd: EtcdServer): Promise<number> {
  const res = await fetch(`${etcd.url}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from('/').toString('base64'), limit: 1 }),
  });
  const body = (await res.json()) as { header: { revision: string } };
  return Number(body.header.revision);
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

// ───────────────────────────── latency ─────────────────────────────

async function latency(etcd: EtcdServer): Promise<void> {
  const nodes = await cluster(etcd, 'bench-latency');
  // Always Serve: answered without probing, so 1,000 profiles add no probe load to the measurement.
  const profiles = Array.from({ length: 1000 }, (_, i) => ({
    name: `p${i}`,
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: `p${i}`, ttl: 30 },
    endpoints: [
      { name: 'a', type: 'externalEndpoints', target: `10.${(i >> 8) & 255}.${i & 255}.1`, alwaysServe: 'Enabled' },
      { name: 'b', type: 'externalEndpoints', target: `10.${(i >> 8) & 255}.${i & 255}.2`, alwaysServe: 'Enabled' },
    ],
  }));
  const t0 = performance.now();
  await putAll(nodes[0]!, profiles);
  console.log(`latency: 1,000 profiles stored through one node in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await waitFor(
    async () =>
      (await Promise.all(nodes.map((n) => api(n, 'GET', '/healthz')))).every((h) => h.body.revision === 1000 && h.body.lagRevisions === 0),
    { what: 'every node serves 1,000 profiles', timeoutMs: 120_000, intervalMs: 200 },
  );
  const all: number[] = [];
  const ack: number[] = [];
  for (let c = 0; c < CHANGES; c++) {
    const i = Math.floor(Math.random() * 1000);
    const target = `192.0.2.${(c % 250) + 1}`;
    const via = nodes[c % 3]!;
    const start = performance.now();
    const w = api(via, 'PATCH', `/v1/profiles/p${i}/endpoints/a`, { target });
    let acked = NaN;
    void w.then(() => {
      acked = performance.now();
    });
    const pending = new Set(nodes);
    while (pending.size > 0) {
      for (const n of [...pending]) {
        const r = await queryUdp(n.dns, `p${i}.tm.internal`, 'A', 2000).catch(() => undefined);
        if (r?.answers.some((a) => a.data === target)) pending.delete(n);
      }
    }
    const done = performance.now();
    const res = await w;
    if (res.status !== 200) throw new Error(`PATCH: ${res.status}`);
    all.push(done - start);
    if (!Number.isNaN(acked)) ack.push(Math.max(0, done - acked));
  }
  console.log(
    `latency: change → answer on all 3 nodes, ${CHANGES} changes at 1,000 profiles: p50 ${ms(pct(all, 50))}, p90 ${ms(pct(all, 90))}, p99 ${ms(pct(all, 99))}, max ${ms(Math.max(...all))}; ack → all nodes p50 ${ms(pct(ack, 50))}`,
  );
  await Promise.all(nodes.map((n) => stopNode(n)));
}

// ───────────────────────────── failover ─────────────────────────────

async function failover(etcd: EtcdServer): Promise<void> {
  const nodes = await cluster(etcd, 'bench-failover');
  // One profile per trial, all created first: by the time a trial kills its primary, the endpoint has left the
  // immediate probe after its creation behind (the bound is for steady state; docs/health.md "Worst-case failover").
  const trials = await Promise.all(
    Array.from({ length: TRIALS * 2 }, async (_, t) => {
      const mode = t % 2 === 0 ? 'refused' : 'hang';
      const held: Socket[] = [];
      const state = { hang: false };
      const primaryIp = `127.0.2.${2 * t + 1}`;
      const backupIp = `127.0.2.${2 * t + 2}`;
      const srv: Server = createServer((req, res) => {
        if (state.hang) {
          held.push(req.socket);
          return;
        }
        res.writeHead(200).end('ok');
      });
      const backup: Server = createServer((_req, res) => {
        res.writeHead(200).end('ok');
      });
      await new Promise<void>((r) => srv.listen(0, primaryIp, () => r()));
      const port = (srv.address() as AddressInfo).port;
      await new Promise<void>((r) => backup.listen(port, backupIp, () => r()));
      const name = `f${t}`;
      const put = await api(nodes[t % 3]!, 'PUT', `/v1/profiles/${name}`, {
        name,
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: name, ttl: 0 },
        monitorConfig: { protocol: 'HTTP', port, path: '/', intervalInSeconds: 10, timeoutInSeconds: 5, toleratedNumberOfFailures: 0 },
        endpoints: [
          { name: 'primary', type: 'externalEndpoints', target: primaryIp },
          { name: 'backup', type: 'externalEndpoints', target: backupIp },
        ],
      });
      if (put.status !== 201) throw new Error(`PUT ${name}: ${put.status} ${JSON.stringify(put.body)}`);
      return { t, mode, held, state, srv, backup, name, backupIp };
    }),
  );
  await waitFor(
    async () => {
      const st = await Promise.all(trials.flatMap((x) => nodes.map((n) => api(n, 'GET', `/v1/profiles/${x.name}/status`))));
      return st.every((s) =>
        s.body.endpoints.every(
          (e: { locations?: Array<{ verdict: string }> }) => e.locations?.length === 3 && e.locations.every((l) => l.verdict === 'Online'),
        ),
      );
    },
    { what: 'three locations say Online everywhere', timeoutMs: 60_000, intervalMs: 200 },
  );
  await sleep(20_000);
  const results: string[] = [];
  for (const x of trials) {
    await sleep(Math.random() * 10_000);
    const killed = performance.now();
    if (x.mode === 'refused') {
      x.srv.closeAllConnections();
      x.srv.close();
    } else x.state.hang = true;
    const pending = new Set(nodes);
    while (pending.size > 0) {
      for (const n of [...pending]) {
        const r = await queryUdp(n.dns, `${x.name}.tm.internal`, 'A', 2000).catch(() => undefined);
        if (r?.answers.some((a) => a.data === x.backupIp)) pending.delete(n);
      }
      await sleep(50);
    }
    const s = (performance.now() - killed) / 1000;
    results.push(`${x.mode} ${s.toFixed(2)} s`);
    console.log(
      `failover: trial ${x.t + 1} (${x.mode}): all 3 nodes answer the backup ${s.toFixed(2)} s after the primary failed (bound 15 s, goal ≤ 16 s)`,
    );
    for (const h of x.held) h.destroy();
    x.srv.close();
    x.backup.close();
  }
  console.log(`failover: ${results.join(', ')}`);
  await Promise.all(nodes.map((n) => stopNode(n)));
}

// ───────────────────────────── steady ─────────────────────────────

async function steady(etcd: EtcdServer): Promise<void> {
  // Ten loopback addresses, one TCP port: every endpoint of a profile has its own address.
  const listeners: TcpServer[] = [];
  let port = 0;
  for (let a = 1; a <= 10; a++) {
    const s = createTcpServer((sock) => {
      sock.on('error', () => undefined);
      sock.resume();
    });
    await new Promise<void>((r) => s.listen(port, `127.0.1.${a}`, () => r()));
    port = (s.address() as AddressInfo).port;
    listeners.push(s);
  }
  const nodes = await cluster(etcd, 'bench-steady');
  const profiles = Array.from({ length: 1000 }, (_, i) => ({
    name: `s${i}`,
    trafficRoutingMethod: 'Weighted',
    dnsConfig: { relativeName: `s${i}`, ttl: 30 },
    monitorConfig: { protocol: 'TCP', port, intervalInSeconds: 30, timeoutInSeconds: 10, toleratedNumberOfFailures: 3 },
    endpoints: Array.from({ length: 10 }, (_, e) => ({ name: `e${e}`, type: 'externalEndpoints', target: `127.0.1.${e + 1}` })),
  }));
  const rev0 = await etcdRevision(etcd);
  const t0 = performance.now();
  await putAll(nodes[0]!, profiles, 2);
  console.log(`steady: 1,000 profiles × 10 endpoints stored in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await waitFor(
    async () => {
      const m = await api(nodes[1]!, 'GET', '/metrics');
      const n = (String(m.body).match(/^tmkit_location_verdict\{[^}]*\} 1$/gm) ?? []).length;
      return n === 30_000;
    },
    { what: '30,000 verdicts (10,000 endpoints × 3 locations) decided Online', timeoutMs: 600_000, intervalMs: 5000 },
  );
  const warm = ((performance.now() - t0) / 1000).toFixed(0);
  const revWarm = await etcdRevision(etcd);
  console.log(
    `steady: every verdict in ${warm} s after the first write; etcd revisions from the first write until then: ${revWarm - rev0} (1,000 configuration writes, the rest verdict transactions of ≤ 100 keys)`,
  );
  await sleep(5_000);
  const a = await etcdRevision(etcd);
  await sleep(60_000);
  const b = await etcdRevision(etcd);
  const rss = nodes.map((n) => rssMb(n.child.pid!));
  const probes = await api(nodes[0]!, 'GET', '/metrics');
  const ok = Number(/tmkit_cluster_verdict_writes_total\{op="put"\} (\d+)/.exec(String(probes.body))?.[1]);
  const grants = Number(/tmkit_cluster_lease_grants_total (\d+)/.exec(String(probes.body))?.[1]);
  console.log(
    `steady: etcd writes in 60 s with 10,000 endpoints × 3 locations, nothing failing: ${b - a} (revision ${a} → ${b}); verdict puts by node 1 since start: ${ok}, leases granted to it: ${grants}`,
  );
  console.log(`steady: node RSS at 10,000 probed endpoints: ${rss.map((r) => `${r.toFixed(0)} MB`).join(', ')}`);
  await Promise.all(nodes.map((n) => stopNode(n)));
  for (const l of listeners) l.close();
}

// ───────────────────────────── outage ─────────────────────────────

function dnsperf(server: { address: string; port: number }, seconds: number, qps: number, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      'dnsperf',
      ['-s', server.address, '-p', String(server.port), '-d', file, '-l', String(seconds), '-Q', String(qps), '-t', '2'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    p.stderr.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    p.on('error', reject);
    p.on('close', () => resolve(out));
  });
}

async function outage(etcd: EtcdServer): Promise<void> {
  const nodes = await cluster(etcd, 'bench-outage');
  const base = Array.from({ length: 50 }, (_, i) => ({
    name: `o${i}`,
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: `o${i}`, ttl: 30 },
    endpoints: [{ name: 'a', type: 'externalEndpoints', target: `10.0.${i}.1`, alwaysServe: 'Enabled' }],
  }));
  await putAll(nodes[0]!, base);
  const qfile = join(tmp('tmkit-bench-dnsperf-'), 'queries');
  writeFileSync(qfile, base.map((p) => `${p.name}.tm.internal A\n`).join(''));
  const SECONDS = 80;
  const runs = nodes.map((n) => dnsperf(n.dns, SECONDS, 1000, qfile));
  // A writer the whole time: acknowledged writes must all be there afterwards.
  const acked: string[] = [];
  const refused: number[] = [];
  let stop = false;
  const writer = (async () => {
    for (let i = 0; !stop; i++) {
      const r = await api(nodes[i % 3]!, 'PUT', `/v1/profiles/w${i}`, {
        name: `w${i}`,
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: `w${i}`, ttl: 30 },
        endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', alwaysServe: 'Enabled' }],
      }).catch(() => ({ status: 0, ms: 0 }));
      if (r.status === 201) acked.push(`w${i}`);
      else refused.push(r.ms);
      await sleep(100);
    }
  })();
  await sleep(10_000);
  console.log('outage: etcd SIGKILL for 60 s');
  await etcd.stop('SIGKILL');
  await sleep(60_000);
  await etcd.start();
  console.log('outage: etcd back');
  const outs = await Promise.all(runs);
  stop = true;
  await writer;
  for (const [i, out] of outs.entries()) {
    const sent = /Queries sent:\s+(\d+)/.exec(out)?.[1];
    const completed = /Queries completed:\s+(\d+)/.exec(out)?.[1];
    const lost = /Queries lost:\s+(\d+)/.exec(out)?.[1];
    console.log(`outage: node ${i + 1}: dnsperf ${SECONDS} s at ≤ 1,000 qps: sent ${sent}, completed ${completed}, lost ${lost}`);
  }
  await waitFor(async () => (await Promise.all(nodes.map((n) => api(n, 'GET', '/healthz')))).every((h) => h.status === 200), {
    what: 'every node reaches etcd again',
    timeoutMs: 30_000,
    intervalMs: 200,
  });
  const stored = new Set((await api(nodes[2]!, 'GET', '/v1/profiles')).body.profiles.map((p: { name: string }) => p.name));
  const missing = acked.filter((n) => !stored.has(n));
  const refusedMs = refused.filter((x) => x > 0);
  console.log(
    `outage: writes acknowledged ${acked.length}, refused ${refused.length} (503, p50 ${refusedMs.length ? ms(pct(refusedMs, 50)) : '-'}, max ${refusedMs.length ? ms(Math.max(...refusedMs)) : '-'}); acknowledged writes missing afterwards: ${missing.length}`,
  );
  await Promise.all(nodes.map((n) => stopNode(n)));
}

async function main(): Promise<void> {
  await new Promise<void>((r, j) => execFile('dnsperf', ['-h'], () => r()).on('error', j)).catch(() => {
    throw new Error('dnsperf is not installed (Debian: apt-get install dnsperf)');
  });
  const etcd = await startEtcd({ args: ['--quota-backend-bytes', String(4 * 1024 ** 3)] });
  try {
    if (only.has('latency')) await latency(etcd);
    if (only.has('failover')) await failover(etcd);
    if (only.has('steady')) await steady(etcd);
    if (only.has('outage')) await outage(etcd);
  } finally {
    await Promise.all(started.map((n) => stopNode(n, 'SIGKILL')));
    await etcd.destroy();
    tmp.removeAll();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
