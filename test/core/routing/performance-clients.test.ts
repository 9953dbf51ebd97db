/**
 * Performance routing is deterministic per client (behaviors.md §5: "same resolver ⇒ same endpoint"): the
 * endpoints of the closest tier split the clients evenly by a stable hash of the client (its address, or
 * its ECS subnet) and the profile name. Over many clients the split is even (binomial bounds); for one
 * client the answer is certain and stable; a query for a population (the preview) reports the split.
 */
import fc from 'fast-check';
import { answer, resolve, type RoutingQuery, type RoutingSnapshot } from '../../../src/core/routing';
import type { ProbeVerdict } from '../../../src/core/health/types';
import { ext, nested, profile, query, snapshot } from '../../../src/testing/builders';
import { TableGeo } from '../../../src/testing/geo-table';
import { seededRng } from '../../../src/testing/rng';

/** Every client: West Europe 10 ms, Japan East 200 ms (so West Europe's endpoints tie). */
const geo = new TableGeo({ latency: { '*': { westeurope: 10, japaneast: 200 } } });

function perf(n: number, opts: { name?: string; health?: Record<string, ProbeVerdict>; order?: number[] } = {}): RoutingSnapshot {
  const name = opts.name ?? 'p';
  const eps = Array.from({ length: n }, (_, i) => ext(`e${i}`, `192.0.2.${i + 1}`, { endpointLocation: 'westeurope' }));
  const ordered = opts.order ? opts.order.map((i) => eps[i]!) : eps;
  return snapshot([profile(name, 'Performance', [...ordered, ext('far', '192.0.2.200', { endpointLocation: 'japaneast' })])], {
    geo,
    ...(opts.health ? { health: opts.health } : {}),
  });
}

/** The one endpoint a client gets (the resolution must be certain). */
function endpointFor(s: RoutingSnapshot, q: RoutingQuery): string {
  const r = resolve(s, q);
  expect(r.outcomes).toHaveLength(1);
  expect(r.outcomes[0]!.probability).toBe(1);
  return r.outcomes[0]!.endpoints[0]!;
}

const rand = seededRng(2024);
const byte = (): number => Math.floor(rand() * 256);
const hex = (): string => Math.floor(rand() * 65536).toString(16);
const randomV4 = (): string => `${1 + Math.floor(rand() * 222)}.${byte()}.${byte()}.${byte()}`;
const randomV6 = (): string => `2001:${hex()}:${hex()}:${hex()}:${hex()}:${hex()}:${hex()}:${hex()}`;

describe('even split over clients', () => {
  const N = 10_000;
  const populations: Array<[string, () => { address: string; ecs?: number }]> = [
    ['random IPv4 addresses', () => ({ address: randomV4() })],
    ['random IPv6 addresses', () => ({ address: randomV6() })],
    [
      'consecutive addresses (one resolver farm)',
      (() => {
        let i = 0;
        return () => {
          const k = i++;
          return { address: `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}` };
        };
      })(),
    ],
    ['ECS /24 subnets', () => ({ address: `${1 + Math.floor(rand() * 222)}.${byte()}.${byte()}.0`, ecs: 24 })],
  ];
  const cases = populations.flatMap(([label, gen], i) => (i === 0 ? [2, 3, 5] : [3]).map((n) => [label, n, gen] as const));
  test.each(cases)('%s, %i endpoints in the tier: each gets N/n within 4 binomial sigmas', (_label, n, gen) => {
    const s = perf(n);
    const counts = new Map<string, number>();
    for (let i = 0; i < N; i++) {
      const c = gen();
      const e = endpointFor(s, query('p', 'A', c.address, c.ecs));
      counts.set(e, (counts.get(e) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(Array.from({ length: n }, (_, i) => `p/e${i}`));
    const sigma = Math.sqrt(N * (1 / n) * (1 - 1 / n));
    for (const c of counts.values()) expect(Math.abs(c - N / n)).toBeLessThan(4 * sigma);
  });

  test('the population view (the preview) reports the split exactly: 1/n each, and only the tier', () => {
    for (const n of [2, 3, 7]) {
      const r = resolve(perf(n), { ...query('p', 'A', '203.0.113.9'), population: true });
      expect(r.outcomes.map((o) => [o.endpoints[0], o.probability])).toEqual(Array.from({ length: n }, (_, i) => [`p/e${i}`, 1 / n]));
    }
  });

  test('two profiles split the same clients independently (the profile name is part of the hash)', () => {
    const a = perf(2, { name: 'a' });
    const b = perf(2, { name: 'b' });
    let same = 0;
    const M = 4000;
    for (let i = 0; i < M; i++) {
      const ip = randomV4();
      if (endpointFor(a, query('a', 'A', ip)).slice(2) === endpointFor(b, query('b', 'A', ip)).slice(2)) same++;
    }
    // independent halves agree for half of the clients
    expect(Math.abs(same - M / 2)).toBeLessThan(4 * Math.sqrt(M / 4));
  });
});

describe('stable per client', () => {
  const ipv4 = fc.tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));

  test('property: the same client with the same healthy set gets the same endpoint, in fresh snapshots and in any declaration order', () => {
    fc.assert(
      fc.property(
        ipv4,
        fc.integer({ min: 2, max: 6 }),
        fc.infiniteStream(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })),
        (ip, n, us) => {
          const first = endpointFor(perf(n), query('p', 'A', ip));
          expect(endpointFor(perf(n), query('p', 'A', ip))).toBe(first);
          const order = Array.from({ length: n }, (_, i) => i).reverse();
          expect(endpointFor(perf(n, { order }), query('p', 'A', ip))).toBe(first);
          // answer() does not draw on the RNG for it: any RNG gives the same endpoint
          const it = us[Symbol.iterator]();
          expect(answer(perf(n), query('p', 'A', ip), () => it.next().value as number).endpoints).toEqual([first]);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('property: an ECS /24 is one client: every host address of it, sent with source prefix 24, gets one answer', () => {
    const s = perf(3);
    fc.assert(
      fc.property(ipv4, fc.array(fc.nat(255), { minLength: 1, maxLength: 8 }), (ip, hosts) => {
        const net = ip.split('.').slice(0, 3).join('.');
        const want = endpointFor(s, query('p', 'A', `${net}.0`, 24));
        for (const h of hosts) expect(endpointFor(s, query('p', 'A', `${net}.${h}`, 24))).toBe(want);
      }),
      { numRuns: 300 },
    );
  });

  test('an ECS /24 answers independently of the host addresses inside it without ECS; ECS /0 means the address itself', () => {
    const s = perf(3);
    const net = '198.51.100';
    const hostAnswers = new Set(Array.from({ length: 64 }, (_, h) => endpointFor(s, query('p', 'A', `${net}.${h}`))));
    expect(hostAnswers.size).toBe(3); // without ECS every host is its own client
    for (let h = 0; h < 64; h++)
      expect(endpointFor(s, query('p', 'A', `${net}.${h}`, 0))).toBe(endpointFor(s, query('p', 'A', `${net}.${h}`)));
  });

  test('IPv4-mapped IPv6 text is the same client as the IPv4 address', () => {
    const s = perf(5);
    for (let i = 0; i < 200; i++) {
      const ip = randomV4();
      expect(endpointFor(s, query('p', 'A', `::ffff:${ip}`))).toBe(endpointFor(s, query('p', 'A', ip)));
    }
  });

  test("property: when another endpoint of the tier goes down, a client keeps its endpoint (only the failed endpoint's clients move)", () => {
    fc.assert(
      fc.property(ipv4, fc.integer({ min: 3, max: 6 }), fc.nat(5), (ip, n, k) => {
        const mine = endpointFor(perf(n), query('p', 'A', ip));
        const down = `p/e${k % n}`;
        const after = endpointFor(perf(n, { health: { [down]: 'Degraded' } }), query('p', 'A', ip));
        if (down !== mine) expect(after).toBe(mine);
        else expect(after).not.toBe(mine);
      }),
      { numRuns: 500 },
    );
  });
});

describe('through nesting', () => {
  const s = snapshot(
    [
      profile('top', 'Performance', [
        nested('weu-a', 'pool', { endpointLocation: 'westeurope' }),
        ext('weu-b', '192.0.2.2', { endpointLocation: 'westeurope' }),
      ]),
      profile('pool', 'Weighted', [ext('x', '192.0.2.10', { weight: 3 }), ext('y', '192.0.2.11', { weight: 1 })]),
    ],
    { geo },
  );

  test('for one client the Performance choice is certain and a Weighted child below it keeps its per-query split', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const ip = randomV4();
      const r = resolve(s, query('top', 'A', ip));
      const d = Object.fromEntries(r.outcomes.map((o) => [o.endpoints[0]!, o.probability]));
      if ('top/weu-b' in d) expect(d).toEqual({ 'top/weu-b': 1 });
      else expect(d).toEqual({ 'pool/x': 0.75, 'pool/y': 0.25 });
      seen.add(Object.keys(d).sort().join('+'));
    }
    expect([...seen].sort()).toEqual(['pool/x+pool/y', 'top/weu-b']);
  });

  test('for the population the probabilities multiply exactly', () => {
    const r = resolve(s, { ...query('top', 'A', '203.0.113.1'), population: true });
    expect(Object.fromEntries(r.outcomes.map((o) => [o.endpoints[0]!, o.probability]))).toEqual({
      'pool/x': 0.375,
      'pool/y': 0.125,
      'top/weu-b': 0.5,
    });
  });
});
