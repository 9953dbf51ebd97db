/**
 * In-process cost of the packet handler (no sockets): nanoseconds per query for Responder.handle on cached
 * answers, next to the ceiling's work (copy a canned reply, patch the ID). This is the part of the
 * per-query cost tmkit adds; the rest (dgram receive/send) is the same for both. Run by bench/dns/run.sh.
 *
 * Also the slow paths: cache misses (a responder whose question cache holds one entry, so alternating
 * questions are looked up in the zone and encoded on every query: profile answers, apex SOA and NS with
 * glue, NXDOMAIN) and a client-dependent name (Performance: looked up per query for the query's client, the
 * encoding cached by content). DNS_HANDLER_QUERIES sets the hit-path count (default 2,000,000); the slow
 * paths run a tenth of it.
 */
import { buildSnapshot, resolve } from '../../src/core/routing';
import { normalizeProfile } from '../../src/core/model/normalize';
import { decisionTail, dnstapHead, encodeFrames, framesRoom, QueryTap, Responder } from '../../src/runtime/dns';
import { loadKeySet, newKeySet, ZoneSigner } from '../../src/runtime/dns';

const N = Number(process.env.DNS_HANDLER_QUERIES ?? 2_000_000);
const N_SLOW = Math.max(1, Math.floor(N / 10));

function query(id: number, name: string, opt?: Buffer, qtype = 1): Buffer {
  const labels = name.split('.');
  const q = Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])),
    Buffer.from([0, 0, qtype, 0, 1]),
  ]);
  const h = Buffer.alloc(12);
  h.writeUInt16BE(id, 0);
  h.writeUInt16BE(0x0100, 2);
  h.writeUInt16BE(1, 4);
  h.writeUInt16BE(opt ? 1 : 0, 10);
  return Buffer.concat([h, q, opt ?? Buffer.alloc(0)]);
}
const ext = (name: string, target: string, extra: Record<string, unknown> = {}) => ({ name, type: 'externalEndpoints', target, ...extra });
const snapshot = buildSnapshot({
  zone: 'tm.internal',
  geo: { locate: () => undefined, latencyMs: () => undefined },
  health: { verdict: () => 'Online' },
  profiles: [
    normalizeProfile({
      name: 'weighted',
      trafficRoutingMethod: 'Weighted',
      dnsConfig: { relativeName: 'weighted', ttl: 30 },
      endpoints: [ext('a', '192.0.2.1', { weight: 1 }), ext('b', '192.0.2.2', { weight: 3 })],
    }),
    normalizeProfile({
      name: 'failover',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'failover', ttl: 10 },
      endpoints: [ext('p', '192.0.2.10'), ext('s', '192.0.2.11')],
    }),
    normalizeProfile({
      name: 'perf',
      trafficRoutingMethod: 'Performance',
      dnsConfig: { relativeName: 'perf', ttl: 20 },
      endpoints: [
        ext('x', '192.0.2.21', { endpointLocation: 'westeurope' }),
        ext('y', '192.0.2.22', { endpointLocation: 'westeurope' }),
        ext('z', '192.0.2.23', { endpointLocation: 'westeurope' }),
      ],
    }),
  ],
});
const authority = {
  nsNames: ['ns1.tm.internal', 'ns2.tm.internal'],
  nsAddresses: { 'ns1.tm.internal': ['192.0.2.53'], 'ns2.tm.internal': ['2001:db8::53'] },
};
const responder = new Responder({ zone: 'tm.internal', snapshot, resolve, rng: Math.random, ...authority });
const missing = new Responder({ zone: 'tm.internal', snapshot, resolve, rng: Math.random, cacheSize: 1, ...authority });
const opt = Buffer.from([0, 0, 41, 4, 208, 0, 0, 0, 0, 0, 0]);
const ecs = Buffer.from([0, 0, 41, 4, 208, 0, 0, 0, 0, 0, 11, 0, 8, 0, 7, 0, 1, 24, 0, 198, 51, 100]);
const sets: Array<[string, Buffer[]]> = [
  ['plain (weighted + failover)', [query(1, 'weighted.tm.internal'), query(2, 'Failover.TM.internal')]],
  ['EDNS', [query(1, 'weighted.tm.internal', opt), query(2, 'failover.tm.internal', opt)]],
  ['EDNS + ECS', [query(1, 'weighted.tm.internal', ecs), query(2, 'failover.tm.internal', ecs)]],
];
const misses: Buffer[] = [
  query(1, 'weighted.tm.internal'),
  query(2, 'tm.internal', undefined, 2),
  query(3, 'failover.tm.internal'),
  query(4, 'nope.tm.internal'),
];
const clients = Array.from({ length: 256 }, (_, i) => `198.51.${i >> 4}.${(i & 15) + 1}`);
const perfQuery = query(5, 'perf.tm.internal');

/** Best of 3 rounds, in ns/query: wall-clock and process CPU time (less disturbed by other processes on the machine). */
function time(n: number, fn: (i: number) => void): { wall: number; cpu: number } {
  let wall = Infinity;
  let cpu = Infinity;
  for (let round = 0; round < 3; round++) {
    const c = process.cpuUsage();
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn(i);
    wall = Math.min(wall, Number(process.hrtime.bigint() - t) / n);
    const d = process.cpuUsage(c);
    cpu = Math.min(cpu, ((d.user + d.system) * 1000) / n);
  }
  return { wall, cpu };
}
const show = (t: { wall: number; cpu: number }): string => `${t.wall.toFixed(0)} ns/query (CPU ${t.cpu.toFixed(0)} ns)`;

const canned = responder.handle(sets[0]![1][0]!, '127.0.0.1', 'udp')!;
const q0 = sets[0]![1][0]!;
const ceiling = time(N, () => {
  const o = Buffer.from(canned);
  o[0] = q0[0]!;
  o[1] = q0[1]!;
});
console.log(`handler: ceiling work (copy canned reply, patch ID): ${show(ceiling)}`);
for (const [label, qs] of sets) {
  const t = time(N, (i) => responder.handle(qs[i & 1]!, '127.0.0.1', 'udp'));
  console.log(`handler: tmkit Responder.handle, ${label}: ${show(t)} (+${(t.wall - ceiling.wall).toFixed(0)} ns over the ceiling's work)`);
}
// The tap (issue 42): a sampled query is explained and recorded. The decision log (serve --decision-sample 1:
// every query) and dnstap's encoding of the two frames (what --dnstap-sample 1 adds before the socket write).
{
  const tap = new QueryTap({ decisionSample: 1 });
  const qs = sets[1]![1];
  const explained = time(N, (i) => {
    const q = qs[i & 1]!;
    tap.due();
    responder.explain = true;
    const out = responder.handle(q, '127.0.0.1', 'udp');
    responder.explain = false;
    tap.record(
      {
        tcp: false,
        client: '127.0.0.1',
        clientPort: 5353,
        server: '127.0.0.1',
        serverPort: 53,
        queryTime: 0,
        responseTime: 0,
        query: q,
        response: out,
      },
      responder.explained,
      responder.currentSnapshot,
      1,
      responder.serial,
    );
  });
  const plain = time(N, (i) => responder.handle(qs[i & 1]!, '127.0.0.1', 'udp'));
  console.log(
    `handler: decision log on every query (explain + record + ring): ${show(explained)} vs ${show(plain)} without: +${(explained.wall - plain.wall).toFixed(0)} ns`,
  );
  // dnstap on every query (--dnstap-sample 1, no decision log): explained, both frames encoded with the
  // decision JSON in extra, as the writer does into its arena (the socket write is not in it).
  const head = dnstapHead(Buffer.from('bench-host'), Buffer.from('tmkit bench'));
  const arena = Buffer.allocUnsafe(1 << 20);
  const loopback = new Uint8Array([127, 0, 0, 1]);
  const addresses = { get: () => loopback };
  let at = 0;
  const frames = time(N, (i) => {
    const q = qs[i & 1]!;
    const queryTime = performance.timeOrigin + performance.now();
    responder.explain = true;
    const out = responder.handle(q, '127.0.0.1', 'udp');
    responder.explain = false;
    const ev = {
      tcp: false,
      client: '127.0.0.1',
      clientPort: 5353,
      server: '127.0.0.1',
      serverPort: 53,
      queryTime,
      responseTime: performance.timeOrigin + performance.now(),
      query: q,
      response: out,
    };
    const x = responder.explained!;
    const tail = decisionTail(x, 'udp', responder.currentSnapshot, 1, responder.serial);
    if (arena.length - at < framesRoom(ev, head, x, tail)) at = 0;
    at = encodeFrames(arena, at, ev, head, x, tail, addresses);
  });
  console.log(
    `handler: dnstap on every query (explain + both frames encoded, decision JSON in extra): ${show(frames)} vs ${show(plain)} without: +${(frames.wall - plain.wall).toFixed(0)} ns`,
  );
}

const miss = time(N_SLOW, (i) => missing.handle(misses[i & 3]!, '127.0.0.1', 'udp'));
if (missing.stats.cacheHits !== 0) throw new Error(`bench: expected no cache hits on the miss path, got ${missing.stats.cacheHits}`);
console.log(
  `handler: tmkit Responder.handle, cache miss (weighted, apex NS + glue, failover, NXDOMAIN; looked up and encoded every query): ${show(miss)}`,
);
const dyn = time(N_SLOW, (i) => responder.handle(perfQuery, clients[i & 255]!, 'udp'));
console.log(
  `handler: tmkit Responder.handle, client-dependent (Performance, 256 clients; looked up per query, encoding cached by content): ${show(dyn)}`,
);

// DNSSEC (serve --dnssec): the same questions with the DO bit, signed. A hit is a copy like any other; a miss
// encodes again with the signatures from the signature cache, or signs (the signer's cache holding one RRset,
// so every RRset of every query is signed: the cost of a new answer content, e.g. after a failover).
const doOpt = Buffer.from([0, 0, 41, 4, 208, 0, 0, 0x80, 0, 0, 0]);
const doQueries = [query(1, 'weighted.tm.internal', doOpt), query(2, 'failover.tm.internal', doOpt)];
const doMisses = misses.map((_m, i) =>
  query(i + 1, ['weighted.tm.internal', 'tm.internal', 'failover.tm.internal', 'nope.tm.internal'][i]!, doOpt, i === 1 ? 2 : 1),
);
for (const algorithm of [13, 15] as const) {
  const { keys } = loadKeySet(newKeySet('tm.internal', { algorithm, split: false }, Date.now() - 1000), 'bench');
  const signed = new Responder({ zone: 'tm.internal', snapshot, resolve, rng: Math.random, ...authority });
  signed.setSigner(new ZoneSigner(keys, { zone: 'tm.internal' }));
  const hit = time(N, (i) => signed.handle(doQueries[i & 1]!, '127.0.0.1', 'udp'));
  console.log(`handler: tmkit Responder.handle, DNSSEC ${algorithm} (DO, signed answers), cache hit: ${show(hit)}`);
  const reencode = new Responder({ zone: 'tm.internal', snapshot, resolve, rng: Math.random, cacheSize: 1, ...authority });
  const warm = new ZoneSigner(keys, { zone: 'tm.internal' });
  reencode.setSigner(warm);
  const re = time(N_SLOW, (i) => reencode.handle(doMisses[i & 3]!, '127.0.0.1', 'udp'));
  console.log(
    `handler: tmkit Responder.handle, DNSSEC ${algorithm}, answer cache miss, signatures cached (looked up, encoded with cached RRSIGs): ${show(re)}`,
  );
  const cold = new Responder({ zone: 'tm.internal', snapshot, resolve, rng: Math.random, cacheSize: 1, ...authority });
  const signer = new ZoneSigner(keys, { zone: 'tm.internal', cacheSize: 1 });
  cold.setSigner(signer);
  const n = Math.max(1, Math.floor(N_SLOW / 20));
  const before = signer.stats().signatures;
  const t = time(n, (i) => cold.handle(doMisses[i & 3]!, '127.0.0.1', 'udp'));
  const perQuery = (signer.stats().signatures - before) / (3 * n);
  console.log(
    `handler: DNSSEC ${algorithm} cache-miss signing cost: ${(t.wall / 1000).toFixed(1)} µs/query (CPU ${(t.cpu / 1000).toFixed(1)} µs) with ${perQuery.toFixed(2)} signatures each = ${(t.wall / perQuery / 1000).toFixed(1)} µs per signature (looked up, signed, encoded)`,
  );
  // A random-name flood over the signing budget (issue 39): every name new, every answer the TC refusal.
  const flood = new Responder({ zone: 'tm.internal', snapshot, resolve, rng: Math.random, ...authority });
  const spent = new ZoneSigner(keys, { zone: 'tm.internal', signRate: 1 });
  flood.setSigner(spent);
  const randomNames = Array.from({ length: N_SLOW }, (_, i) =>
    query(i & 0xffff, `${Math.random().toString(36).slice(2, 14)}.tm.internal`, doOpt),
  );
  const over = time(N_SLOW, (i) => flood.handle(randomNames[i]!, `198.51.${(i >> 8) & 255}.${i & 255}`, 'udp'));
  console.log(`handler: DNSSEC ${algorithm} random name over the signing budget (TC refusal, nothing signed): ${show(over)}`);
  for (const s of [warm, signer, signed.dnssec!, spent]) s.close();
}
