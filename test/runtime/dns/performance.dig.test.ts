/**
 * Performance routing over real DNS with the real routing engine and `dig`: the endpoints of the closest
 * region split the clients evenly by a hash of the client, so one client (an ECS subnet, or the source
 * address without ECS) gets the same answer on every query, also when other clients' queries come in
 * between (the responder's caches must not hand one client's answer to another).
 */
import { buildSnapshot, resolve } from '../../../src/core/routing';
import { DnsServer } from '../../../src/runtime/dns';
import { ext, profile } from '../../../src/testing/builders';
import { TableGeo } from '../../../src/testing/geo-table';
import { seededRng } from '../../../src/testing/rng';
import { dig } from './support';

const ZONE = 'tm.internal';
const WEU = ['192.0.2.1', '192.0.2.2', '192.0.2.3'];
// Every client: West Europe 10 ms, Japan East 200 ms; the three West Europe endpoints tie.
const geo = new TableGeo({ latency: { '*': { westeurope: 10, japaneast: 200 } } });
const snap = buildSnapshot({
  zone: ZONE,
  profiles: [
    profile(
      'perf',
      'Performance',
      [
        ...WEU.map((ip, i) => ext(`weu${i}`, ip, { endpointLocation: 'westeurope' })),
        ext('jpe', '192.0.2.9', { endpointLocation: 'japaneast' }),
      ],
      { dnsConfig: { relativeName: 'perf', ttl: 30 } },
    ),
  ],
  geo,
});
/** What the routing engine says this client gets (it must be one certain answer). */
function engineAnswer(clientAddress: string, ecsSourcePrefix?: number): string {
  const r = resolve(snap, {
    name: `perf.${ZONE}`,
    type: 'A',
    clientAddress,
    ...(ecsSourcePrefix !== undefined ? { ecsSourcePrefix } : {}),
  });
  expect(r.outcomes).toHaveLength(1);
  return r.outcomes[0]!.records[0]!.data;
}

let server: DnsServer;
let at: string[];
beforeAll(async () => {
  server = new DnsServer({ zone: ZONE, snapshot: snap, resolve, rng: seededRng(3), listen: [{ address: '127.0.0.1', port: 0 }] });
  await server.start();
  at = ['@127.0.0.1', '-p', String(server.address().port)];
});
afterAll(() => server.close());

const a = async (args: string[]): Promise<{ data: string; subnet?: string }> => {
  const r = await dig([...at, ...args, 'perf.tm.internal', 'A']);
  expect(r.status).toBe('NOERROR');
  expect(r.answer).toHaveLength(1);
  expect(r.answer[0]!.slice(0, 4)).toEqual(['perf.tm.internal.', '30', 'IN', 'A']);
  return { data: r.answer[0]![4]!, ...(r.clientSubnet !== undefined ? { subnet: r.clientSubnet } : {}) };
};

test("dig +subnet: each /24 always gets the same endpoint (its hash's), interleaved with other subnets; together they use all three", async () => {
  const subnets = Array.from({ length: 12 }, (_, i) => `203.0.${i * 7}.0`);
  const first = new Map<string, string>();
  for (let round = 0; round < 3; round++) {
    for (const net of subnets) {
      const r = await a([`+subnet=${net}/24`]);
      expect(r.subnet).toBe(`${net}/24/24`); // the answer depends on the subnet: scope = source prefix
      if (round === 0) first.set(net, r.data);
      expect({ net, round, answer: r.data }).toEqual({ net, round, answer: first.get(net) });
    }
  }
  for (const [net, data] of first) expect(data).toBe(engineAnswer(net, 24));
  const used = new Set(first.values());
  expect([...used].sort()).toEqual(WEU); // an even split over clients reaches every tied endpoint, never Japan East
});

test('without ECS the source address is the client: dig -b from different loopback addresses, each stable', async () => {
  const sources = Array.from({ length: 10 }, (_, i) => `127.0.0.${20 + i}`);
  const got = new Map<string, string>();
  for (let round = 0; round < 3; round++) {
    for (const src of sources) {
      const r = await a(['-b', src]);
      if (round === 0) got.set(src, r.data);
      expect({ src, round, answer: r.data }).toEqual({ src, round, answer: got.get(src) });
    }
  }
  for (const [src, data] of got) expect(data).toBe(engineAnswer(src));
  expect(new Set(got.values()).size).toBeGreaterThan(1);
});
