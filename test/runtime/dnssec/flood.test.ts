/**
 * Bounded signing under a random-name flood (issue 39 item 5, docs/dnssec.md "Under a random-name flood"):
 * the signature cache stays within its bound in bytes whatever names come (and the heap with it), and new
 * signatures for names that do not exist are bounded per second, while the names that exist are signed and
 * answered from the cache whatever the budget.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { Registry } from 'prom-client';
import { dnssecPolicyFrom } from '../../../src/cli/util/dns-options';
import type { WireRecord } from '../../../src/runtime/dns/encode';
import { loadKeySet, newKeySet, type ZoneKey } from '../../../src/runtime/dns/dnssec/keys';
import { attachDnssecMetrics } from '../../../src/runtime/dns/dnssec/metrics';
import type { DnssecService } from '../../../src/runtime/dns/dnssec/service';
import {
  SIGNING_LIMIT_DEFAULTS,
  SigningBudgetExceeded,
  ZoneSigner,
  signerFor,
  sumSignerStats,
  type SecureInput,
  type SignerOptions,
} from '../../../src/runtime/dns/dnssec/signer';

const ZONE = 'tm.internal';
const KEYS: ZoneKey[] = loadKeySet(newKeySet(ZONE, { algorithm: 13, split: false }, Date.UTC(2026, 0, 1)), 'test').keys;
/** Mid-window (windows start at 00:00 UTC): no window change during a test. */
const T0 = Date.UTC(2026, 5, 1, 12);

const SOA: WireRecord = {
  type: 'SOA',
  name: ZONE,
  ttl: 300,
  data: { mname: `ns1.${ZONE}`, rname: `hostmaster.${ZONE}`, serial: 7, refresh: 3600, retry: 600, expire: 86400, minimum: 30 },
};
const WEB: WireRecord[] = [
  { type: 'A', name: `web.${ZONE}`, ttl: 60, data: '192.0.2.1' },
  { type: 'A', name: `web.${ZONE}`, ttl: 60, data: '192.0.2.2' },
];

const signers: ZoneSigner[] = [];
afterAll(() => {
  for (const s of signers) s.close();
});

/** A signer on a clock the test moves (`clock.t`). */
function signer(o: Partial<SignerOptions> = {}): { s: ZoneSigner; clock: { t: number } } {
  const clock = { t: T0 };
  const s = new ZoneSigner(KEYS, { zone: ZONE, now: () => clock.t, ...o });
  signers.push(s);
  return { s, clock };
}

/** A DO query for `qname` that the zone answers NXDOMAIN (SOA in authority). */
function nxdomain(qname: string, o: Partial<SecureInput> = {}): SecureInput {
  return {
    qname,
    qtype: 1,
    rcode: 'NXDOMAIN',
    answer: [],
    authority: [SOA],
    additional: [],
    dnssecOk: true,
    compactOk: false,
    typesAt: () => [],
    negativeTtl: 30,
    ...o,
  };
}

/** The same query twice: a denial is cached from its name's second query on (doorkeeper.ts). */
function twice(s: ZoneSigner, i: SecureInput): void {
  s.secure(i);
  s.secure(i);
}

function positive(): SecureInput {
  return { ...nxdomain(`web.${ZONE}`), rcode: 'NOERROR', answer: WEB, authority: [] };
}

/** A NODATA answer at a name that exists (AAAA asked, A there). */
function nodata(): SecureInput {
  return { ...nxdomain(`web.${ZONE}`, { qtype: 28 }), rcode: 'NOERROR', typesAt: () => [1] };
}

const label = fc.stringMatching(/^[a-z0-9-]{1,63}$/);
const randomName = fc.array(label, { minLength: 1, maxLength: 3 }).map((ls) => `${ls.join('.')}.${ZONE}`);

describe('the signature cache is bounded in bytes', () => {
  test('5,000 random names into a 256 KiB cache: never over the bound, the oldest evicted first', () => {
    const bound = 256 * 1024;
    const { s } = signer({ cacheBytes: bound, signRate: 0 });
    let max = 0;
    for (let i = 0; i < 5000; i++) {
      // Each asked twice: a denial is kept from its name's second query on (doorkeeper.ts).
      twice(s, nxdomain(`r${i}-${(i * 7919) % 10007}.${ZONE}`));
      max = Math.max(max, s.stats().cacheBytes);
    }
    const st = s.stats();
    expect(max).toBeLessThanOrEqual(bound);
    expect(st.cacheBytes).toBeGreaterThan(bound * 0.9);
    expect(st.cacheBytesLimit).toBe(bound);
    expect(st.evictions).toBeGreaterThan(4000);
    expect(st.cached).toBeLessThan(1000);
    // The newest names are still cached (a hit, no new signature); the first ones were evicted.
    const made = st.signatures;
    s.secure(nxdomain(`r4999-${(4999 * 7919) % 10007}.${ZONE}`));
    expect(s.stats().signatures).toBe(made);
    s.secure(nxdomain(`r0-0.${ZONE}`));
    expect(s.stats().signatures).toBe(made + 1);
    // The index of denials by name (how a name over the budget is refused without building its NSEC) holds
    // only cached entries: it leaves with them, so it cannot grow under a flood either. (Every entry is a
    // denial but the SOA's signatures.)
    expect((s as unknown as { denials: Map<string, string> }).denials.size).toBe(s.stats().cached - 1);
  });

  test('property: over the budget, a name is refused exactly when its denial is not cached (large cache, frozen clock)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 300 }),
        fc.array(fc.boolean(), { maxLength: 300 }),
        (budget, picks, tcp) => {
          const { s } = signer({ signRate: budget });
          // The reference: the names asked so far (the doorkeeper's), those whose signatures are kept (nothing
          // is evicted here, the clock does not move): a name's are kept when it is signed on a later query.
          const asked = new Set<string>();
          const signed = new Set<string>();
          let left = budget;
          let signatures = 0;
          for (const [k, p] of picks.entries()) {
            const name = `n${p}.${ZONE}`;
            const overTcp = tcp[k] === true;
            let refused = false;
            try {
              const a = s.secure(nxdomain(name, overTcp ? { overBudget: 'sign' } : {}));
              if (a.authority.length !== 4) return false; // SOA, its RRSIG, the NSEC, its RRSIG
            } catch (err) {
              if (!(err instanceof SigningBudgetExceeded) || err.qname !== name) throw err;
              refused = true;
            }
            const cached = signed.has(name);
            const expectRefused = !cached && left === 0 && !overTcp;
            if (!cached && !expectRefused) {
              if (left > 0) left--;
              if (asked.has(name)) signed.add(name);
              signatures++;
            }
            asked.add(name);
            if (refused !== expectRefused) return false;
          }
          // One signature for the SOA, one per name signed.
          const st = s.stats();
          s.close();
          return st.signatures === signatures + (signatures > 0 || picks.length > 0 ? 1 : 0);
        },
      ),
      { numRuns: 100, seed: 42 },
    );
  });

  test('property: whatever names come, in whatever order, the cache never passes its bound', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8 * 1024, max: 128 * 1024 }),
        fc.array(fc.oneof(randomName, fc.constantFrom(`web.${ZONE}`, `api.${ZONE}`)), { minLength: 1, maxLength: 200 }),
        (bound, names) => {
          const { s } = signer({ cacheBytes: bound, signRate: 0 });
          for (const n of names) {
            twice(s, n === `web.${ZONE}` ? positive() : nxdomain(n));
            const st = s.stats();
            if (st.cacheBytes > bound || st.cacheBytes < 0) return false;
          }
          s.close();
          return true;
        },
      ),
      { numRuns: 60, seed: 39 },
    );
  });

  test('memory stays flat: 40,000 more random names into a full 2 MiB cache grow the heap by less than 16 MiB (unbounded: ~68 MiB)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { s } = signer({ cacheBytes: 2 * 1024 * 1024, signRate: 0 });
    // Each name asked twice, so that it is cached (doorkeeper.ts) and the cache churns at its bound.
    const fill = (from: number, n: number): void => {
      for (let i = from; i < from + n; i++) twice(s, nxdomain(`flood-${i.toString(36)}-${(i * 2654435761) >>> 0}.${ZONE}`));
    };
    fill(0, 10_000);
    gc();
    const before = process.memoryUsage();
    fill(10_000, 40_000);
    gc();
    gc();
    const after = process.memoryUsage();
    // In a jest worker that ran other suites the heap moves by a few MiB on its own: the bound is far below
    // what 40,000 cached entries of ~1.7 KB would take, far above that noise.
    const grew = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    expect(grew).toBeLessThan(16 * 1024 * 1024);
    expect(s.stats().cacheBytes).toBeLessThanOrEqual(2 * 1024 * 1024);
  });

  test('the estimate is not below the real heap: 20,000 cached denial entries', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { s } = signer({ cacheBytes: 1024 * 1024 * 1024, signRate: 0 });
    gc();
    const before = process.memoryUsage();
    for (let i = 0; i < 20_000; i++) twice(s, nxdomain(`m-${i.toString(36)}-${(i * 40503) >>> 0}.${ZONE}`));
    gc();
    const after = process.memoryUsage();
    const real = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    const estimated = s.stats().cacheBytes;
    // Printed for docs/dnssec.md; the estimate may be a little high, not low.
    process.stdout.write(
      `flood.test: 20,000 denial entries: estimated ${(estimated / 20_000).toFixed(0)} B/entry, heap ${(real / 20_000).toFixed(0)} B/entry\n`,
    );
    expect(estimated).toBeGreaterThan(real * 0.9);
    expect(estimated).toBeLessThan(real * 1.5);
  });
});

describe('new signatures for names that do not exist are bounded per second', () => {
  test('2,000 new names in one second with a budget of 500: 500 signed, 1,500 refused; the rest of the zone still signed', () => {
    const { s, clock } = signer({ signRate: 500 });
    // The names that exist, signed once before the flood.
    s.secure(positive());
    const signed: string[] = [];
    let refused = 0;
    for (let i = 0; i < 2000; i++) {
      clock.t = T0 + Math.floor(i / 2); // 2,000 queries within 1 s (1,000 ms)
      const qname = `x${i}.${ZONE}`;
      try {
        const a = s.secure(nxdomain(qname));
        expect(a.authority.map((r) => r.type)).toEqual(['SOA', 'RRSIG', 'NSEC', 'RRSIG']);
        signed.push(qname);
      } catch (err) {
        expect(err).toBeInstanceOf(SigningBudgetExceeded);
        expect(err).toMatchObject({ qname, rcode: 'NXDOMAIN' });
        refused++;
      }
    }
    // A full bucket (500) and what it gained back over the second (under 500 more): at least 500, under 1,000.
    expect(signed.length).toBeGreaterThanOrEqual(500);
    expect(signed.length).toBeLessThan(1000);
    expect(refused).toBe(2000 - signed.length);
    expect(s.stats().refused).toBe(refused);

    // The budget is spent: existing names are answered (from the cache, and signed anew when not cached).
    const hits = s.stats().cacheHits;
    const made = s.stats().signatures;
    expect(s.secure(positive()).answer.map((r) => r.type)).toEqual(['A', 'A', 'RRSIG']);
    expect(s.stats().cacheHits).toBe(hits + 1);
    expect(s.secure(nodata()).authority.map((r) => r.type)).toEqual(['SOA', 'RRSIG', 'NSEC', 'RRSIG']);
    expect(s.secure({ ...positive(), qname: ZONE, qtype: 48, answer: [] }).answer[0]!.type).toBe('DNSKEY');
    expect(s.stats().signatures).toBe(made + 2); // the NODATA NSEC and the DNSKEY RRSIG
    // A name signed once was not kept (a random name is not asked again): asked again over the spent budget
    // it is refused; its TCP retry is signed and kept (asked before), so the next UDP query is a cache hit.
    const again = signed[0]!;
    expect(() => s.secure(nxdomain(again))).toThrow(SigningBudgetExceeded);
    expect(s.secure(nxdomain(again, { overBudget: 'sign' })).authority).toHaveLength(4);
    const kept = s.stats().cacheHits;
    expect(s.secure(nxdomain(again)).authority).toHaveLength(4);
    expect(s.stats().cacheHits).toBe(kept + 2); // the NSEC's signatures and the SOA's
    expect(s.stats().refused).toBe(refused + 1);
  });

  test('frozen clock: exactly the budget; a TCP retry signs anyway; the next second brings a new budget', () => {
    const { s, clock } = signer({ signRate: 100 });
    let ok = 0;
    for (let i = 0; i < 300; i++) {
      try {
        s.secure(nxdomain(`y${i}.${ZONE}`));
        ok++;
      } catch {
        // counted below
      }
    }
    expect(ok).toBe(100);
    expect(s.stats().refused).toBe(200);
    // Without DO nothing is signed, so nothing is refused.
    expect(s.secure(nxdomain(`y299.${ZONE}`, { dnssecOk: false })).rcode).toBe('NXDOMAIN');
    // Over TCP (overBudget: 'sign') the answer is signed over budget.
    expect(s.secure(nxdomain(`y299.${ZONE}`, { overBudget: 'sign' })).authority).toHaveLength(4);
    expect(s.stats().signedOverBudget).toBe(1);
    // ... and then cached: the same query over UDP is answered.
    expect(s.secure(nxdomain(`y299.${ZONE}`)).authority).toHaveLength(4);
    clock.t += 100; // a tenth of a second: 10 more
    let more = 0;
    for (let i = 300; i < 400; i++) {
      try {
        s.secure(nxdomain(`y${i}.${ZONE}`));
        more++;
      } catch {
        // refused
      }
    }
    expect(more).toBe(10);
    clock.t += 5000; // at most one second's worth is saved up
    more = 0;
    for (let i = 400; i < 700; i++) {
      try {
        s.secure(nxdomain(`y${i}.${ZONE}`));
        more++;
      } catch {
        // refused
      }
    }
    expect(more).toBe(100);
  });

  test('--dnssec-sign-rate 0: unlimited', () => {
    const { s } = signer({ signRate: 0 });
    for (let i = 0; i < 3000; i++) s.secure(nxdomain(`z${i}.${ZONE}`));
    expect(s.stats().refused).toBe(0);
  });
});

test('--dnssec-cache-size and --dnssec-sign-rate reach the signers made for the DNS processes (signerFor)', () => {
  const saved = { ...process.env };
  try {
    const flags = { dnssec: true, dnssecAlgorithm: '13', dnssecKeys: 'csk' };
    dnssecPolicyFrom({ ...flags, dnssecCacheSize: '3', dnssecSignRate: '7' });
    const s = signerFor(ZONE, newKeySet(ZONE, { algorithm: 13, split: false }, Date.now()), undefined);
    signers.push(s);
    expect(s.stats().cacheBytesLimit).toBe(3 * 1024 * 1024);
    let ok = 0;
    for (let i = 0; i < 20; i++) {
      try {
        s.secure(nxdomain(`f${i}.${ZONE}`));
        ok++;
      } catch {
        // refused
      }
    }
    expect(ok).toBeGreaterThanOrEqual(7);
    expect(ok).toBeLessThan(10);
    dnssecPolicyFrom(flags);
    const d = signerFor(ZONE, newKeySet(ZONE, { algorithm: 13, split: false }, Date.now()), undefined);
    signers.push(d);
    expect(d.stats().cacheBytesLimit).toBe(SIGNING_LIMIT_DEFAULTS.cacheBytes);
    expect(() => dnssecPolicyFrom({ ...flags, dnssecCacheSize: '0' })).toThrow(/--dnssec-cache-size 0/);
    expect(() => dnssecPolicyFrom({ ...flags, dnssecSignRate: '-1' })).toThrow(/--dnssec-sign-rate -1/);
    expect(() => dnssecPolicyFrom({ ...flags, dnssec: false, dnssecSignRate: '10' })).toThrow(/--dnssec-sign-rate needs --dnssec/);
  } finally {
    process.env = saved;
  }
});

test('/metrics: cache bytes, its bound, evictions and refusals, summed over the DNS processes', async () => {
  const { s } = signer({ cacheBytes: 8 * 1024, signRate: 20 });
  // Ten names asked twice (20 signatures, each name kept on its second query: more than 8 KiB), then 30 new ones over the budget.
  for (let i = 0; i < 10; i++) twice(s, nxdomain(`m${i}.${ZONE}`));
  for (let i = 10; i < 40; i++) {
    try {
      s.secure(nxdomain(`m${i}.${ZONE}`));
    } catch {
      // refused
    }
  }
  const one = s.stats();
  expect(one.refused).toBe(30);
  expect(one.evictions).toBeGreaterThan(0);
  const stats = sumSignerStats([one, one])!;
  const registry = new Registry();
  attachDnssecMetrics(registry, () => ({ service: { keys: [] } as unknown as DnssecService, stats }));
  const text = await registry.metrics();
  expect(text).toContain(`tmkit_dnssec_signature_cache_bytes ${one.cacheBytes * 2}`);
  expect(text).toContain(`tmkit_dnssec_signature_cache_limit_bytes ${16 * 1024}`);
  expect(text).toContain('tmkit_dnssec_sign_refused_total 60');
  expect(text).toContain(`tmkit_dnssec_signature_cache_evictions_total ${one.evictions * 2}`);
});
