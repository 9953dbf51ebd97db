/**
 * Malformed and hostile packets never crash a signing server: 30,000 mutated queries (DO and CO set, random
 * names and types) through the packet handler with a signer, then the server still answers and signs.
 */
import fc from 'fast-check';
import { buildSnapshot, resolve } from '../../../src/core/routing';
import { Responder } from '../../../src/runtime/dns';
import { loadKeySet, newKeySet } from '../../../src/runtime/dns/dnssec/keys';
import { ZoneSigner } from '../../../src/runtime/dns/dnssec/signer';
import { ext, profile } from '../../../src/testing/builders';
import { seededRng } from '../../../src/testing/rng';
import { buildQuery, optRecord } from '../dns/support';

test('30,000 mutated DO/CO queries: every one answered or dropped, none throws; the server still signs', () => {
  const snapshot = buildSnapshot({
    zone: 'tm.internal',
    geo: { locate: () => undefined, latencyMs: () => undefined },
    health: { verdict: () => 'Online' },
    profiles: [profile('web', 'Weighted', [ext('a', '192.0.2.1'), ext('b', 'b.example.net')])],
  });
  const responder = new Responder({ zone: 'tm.internal', snapshot, resolve, rng: seededRng(9), cacheSize: 64, dynamicCacheSize: 64 });
  const signer = new ZoneSigner(loadKeySet(newKeySet('tm.internal', { algorithm: 13, split: false }, Date.now()), 'test').keys, {
    zone: 'tm.internal',
    cacheSize: 64,
  });
  responder.setSigner(signer);
  const doOpt = (flags: number): Buffer => {
    const o = optRecord(1232);
    o.writeUInt16BE(flags, 7);
    return o;
  };
  const seeds = [
    buildQuery(1, 'web.tm.internal', 1, { additional: doOpt(0x8000) }),
    buildQuery(2, 'nope.tm.internal', 255, { additional: doOpt(0xc000) }),
    buildQuery(3, 'tm.internal', 48, { additional: doOpt(0x8000) }),
    buildQuery(4, 'x.web.tm.internal', 47, { additional: doOpt(0xffff) }),
  ];
  let answered = 0;
  fc.assert(
    fc.property(
      fc.nat(seeds.length - 1),
      fc.array(fc.tuple(fc.nat(200), fc.nat(255)), { maxLength: 6 }),
      fc.nat(40),
      fc.boolean(),
      (which, edits, cut, tcp) => {
        const q = Buffer.from(seeds[which]!);
        for (const [at, v] of edits) if (at < q.length) q[at] = v;
        const msg = cut > 0 && cut < q.length ? q.subarray(0, q.length - cut) : q;
        const out = responder.handle(msg, '198.51.100.7', tcp ? 'tcp' : 'udp');
        if (out !== null) answered++;
      },
    ),
    { numRuns: 30_000, seed: 32 },
  );
  expect(answered).toBeGreaterThan(20_000);
  const out = responder.handle(seeds[0]!, '127.0.0.1', 'udp')!;
  expect(out.readUInt16BE(6)).toBe(2); // A + RRSIG
  signer.close();
});
