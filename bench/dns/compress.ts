/**
 * Name compression, before/after in one run (no sockets: a micro-bench for a busy machine, where
 * `npm run bench:dns` would measure the neighbours). Per answer kind (CNAME, NODATA + SOA, apex NS +
 * glue, 8 AAAA):
 *   - size: the response with names in full (dns-packet, as before) and compressed;
 *   - hit: Responder.handle() on a cached answer (the per-query path), `compressNames` false vs true;
 *   - miss: encoding one answer (what a cache miss costs on top of routing): dns-packet.encode, as the
 *     responder did before, vs encodeMessage.
 * Rounds interleave the variants; the best round per variant is kept. Figures only; not a test.
 * Env: DNS_COMPRESS_BENCH_ROUNDS (default 7), DNS_COMPRESS_BENCH_N (queries per round, default 200000).
 */
import * as dnsPacket from 'dns-packet';
import { Responder } from '../../src/runtime/dns';
import { encodeMessage, type WireRecord } from '../../src/runtime/dns/encode';
import { seededRng } from '../../src/testing/rng';
import { LONG_LABEL, ZONE, buildQuery, emptySnapshot, standardTable, tableResolver } from '../../test/runtime/dns/support';

const ROUNDS = Number(process.env.DNS_COMPRESS_BENCH_ROUNDS ?? 7);
const N = Number(process.env.DNS_COMPRESS_BENCH_N ?? 200000);

const make = (compressNames: boolean): Responder =>
  new Responder({
    zone: ZONE,
    snapshot: emptySnapshot(),
    resolve: tableResolver(standardTable()),
    rng: seededRng(1),
    soa: { serial: 7 },
    nsNames: ['ns1.tm.internal', 'ns2.tm.internal'],
    nsAddresses: { 'ns1.tm.internal': ['192.0.2.53'] },
    compressNames,
  });

const soa: WireRecord = {
  type: 'SOA',
  name: ZONE,
  ttl: 30,
  data: { mname: `ns1.${ZONE}`, rname: `hostmaster.${ZONE}`, serial: 7, refresh: 3600, retry: 600, expire: 86400, minimum: 30 },
};
const multi = `${LONG_LABEL}.m.${ZONE}`;
const cases: Array<{
  label: string;
  name: string;
  qtype: number;
  records: { answers?: WireRecord[]; authorities?: WireRecord[]; additionals?: WireRecord[] };
}> = [
  {
    label: 'CNAME',
    name: `weighted.${ZONE}`,
    qtype: 1,
    records: { answers: [{ type: 'CNAME', name: `weighted.${ZONE}`, ttl: 30, data: 'a.example.net' }] },
  },
  { label: 'NODATA + SOA', name: `v4.${ZONE}`, qtype: 28, records: { authorities: [soa] } },
  {
    label: 'apex NS + glue',
    name: ZONE,
    qtype: 2,
    records: {
      answers: [
        { type: 'NS', name: ZONE, ttl: 300, data: `ns1.${ZONE}` },
        { type: 'NS', name: ZONE, ttl: 300, data: `ns2.${ZONE}` },
      ],
      additionals: [{ type: 'A', name: `ns1.${ZONE}`, ttl: 300, data: '192.0.2.53' }],
    },
  },
  {
    label: '8 AAAA',
    name: multi,
    qtype: 28,
    records: {
      answers: Array.from({ length: 8 }, (_, i) => ({ type: 'AAAA' as const, name: multi, ttl: 10, data: `2001:db8::${i + 1}` })),
    },
  },
];

function nsPerOp(fn: () => void, n: number): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - t0) / n;
}

let sink = 0;
console.log(`bench:dns-compress: ${ROUNDS} rounds × ${N} queries (hit) / ${N >> 2} encodings (miss), best round`);
console.log(
  'answer          | octets before → after (saved) | hit ns/query before → after (ratio) | miss ns/encode dns-packet → encodeMessage (ratio)',
);
for (const c of cases) {
  const q = buildQuery(0x1234, c.name, c.qtype);
  const before = make(false);
  const after = make(true);
  const sizeBefore = before.handle(q, '192.0.2.1', 'tcp')!.length - 2;
  const sizeAfter = after.handle(q, '192.0.2.1', 'tcp')!.length - 2;
  const question = { name: c.name, type: c.qtype, class: 1 };
  const dp = (r: WireRecord): dnsPacket.Answer =>
    ({ type: r.type, name: r.name, ttl: r.ttl, class: 'IN', data: r.data }) as dnsPacket.Answer;
  const packet = {
    type: 'response' as const,
    id: 0,
    flags: 0x8400,
    questions: [
      { name: c.name, type: ({ 1: 'A', 2: 'NS', 28: 'AAAA' } as const)[c.qtype as 1 | 2 | 28], class: 'IN' },
    ] as dnsPacket.Question[],
    answers: (c.records.answers ?? []).map(dp),
    authorities: (c.records.authorities ?? []).map(dp),
    additionals: (c.records.additionals ?? []).map(dp),
  };
  const msg = { flags: 0x8400, question, ...c.records };
  if (dnsPacket.encode(packet).length !== encodeMessage(msg, { compress: false }).length)
    throw new Error(`${c.label}: dns-packet and encodeMessage({ compress: false }) disagree`);
  const best = { hitBefore: Infinity, hitAfter: Infinity, missBefore: Infinity, missAfter: Infinity };
  for (let r = 0; r < ROUNDS; r++) {
    best.hitBefore = Math.min(
      best.hitBefore,
      nsPerOp(() => {
        sink += before.handle(q, '192.0.2.1', 'udp')!.length;
      }, N),
    );
    best.hitAfter = Math.min(
      best.hitAfter,
      nsPerOp(() => {
        sink += after.handle(q, '192.0.2.1', 'udp')!.length;
      }, N),
    );
    best.missBefore = Math.min(
      best.missBefore,
      nsPerOp(() => {
        sink += dnsPacket.encode(packet).length;
      }, N >> 2),
    );
    best.missAfter = Math.min(
      best.missAfter,
      nsPerOp(() => {
        sink += encodeMessage(msg).length;
      }, N >> 2),
    );
  }
  const f = (x: number): string => x.toFixed(0);
  console.log(
    `${c.label.padEnd(15)} | ${String(sizeBefore).padStart(4)} → ${String(sizeAfter).padStart(4)} (${String(sizeBefore - sizeAfter).padStart(3)}) | ${f(best.hitBefore).padStart(5)} → ${f(best.hitAfter).padStart(5)} (${(best.hitAfter / best.hitBefore).toFixed(2)}) | ${f(best.missBefore).padStart(6)} → ${f(best.missAfter).padStart(6)} (${(best.missAfter / best.missBefore).toFixed(2)})`,
  );
}
if (sink === 0) console.log('');
