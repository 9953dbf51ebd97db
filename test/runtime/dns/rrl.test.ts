/**
 * Response Rate Limiting (src/runtime/dns/rrl.ts): the credit accounting under a burst, slip ratios,
 * bucket keys (prefix, class, class key), exempt clients, log mode, recovery after the window, the
 * sustained/recovered events, option validation, and the fixed table under a spoofed flood. Time is
 * passed in; nothing here sleeps.
 */
import fc from 'fast-check';
import { classify, type RrlClass, type RrlDecision, type RrlOptions, ResponseRateLimiter } from '../../../src/runtime/dns/rrl';

const T0 = 1_700_000_000_000;

const limiter = (extra: Partial<RrlOptions> = {}): ResponseRateLimiter =>
  new ResponseRateLimiter({ rate: 20, slip: 2, mode: 'enforce', exempt: [], ...extra });

type Tally = Record<RrlDecision, number>;
const tally = (): Tally => ({ pass: 0, slip: 0, drop: 0 });

/** `n` responses to one client and key, spread evenly over `spanMs` from `start`; returns the tally and the last time. */
function burst(
  rrl: ResponseRateLimiter,
  ip: string,
  n: number,
  start = T0,
  spanMs = 1000,
  cls: RrlClass = 'positive',
  key = 'www.example.com',
) {
  const t = tally();
  let now = start;
  for (let i = 0; i < n; i++) {
    now = start + (i * spanMs) / n;
    t[rrl.decide(ip, cls, key, now)]++;
  }
  return { t, last: now };
}

describe('a burst from one client', () => {
  test('2000 identical responses in 1 s at rate 20, slip 2: ~20 answered, the rest half slipped, half dropped; another /24 answered in full', () => {
    const rrl = limiter();
    const flood = tally();
    const other = tally();
    for (let i = 0; i < 2000; i++) {
      const now = T0 + i * 0.5;
      flood[rrl.decide('198.51.100.7', 'positive', 'www.example.com', now)]++;
      // A client in another /24 asks 20 times in the same second, between the flood's packets.
      if (i % 100 === 50) other[rrl.decide('203.0.113.9', 'positive', 'www.example.com', now)]++;
    }
    // `rate` answers, plus the credit earned while they were answered: 20 × 0.5 ms × 20/s = 0.2 credit, so at most one more.
    expect(flood.pass).toBeGreaterThanOrEqual(20);
    expect(flood.pass).toBeLessThanOrEqual(21);
    const limited = 2000 - flood.pass;
    expect(flood.slip).toBe(Math.floor(limited / 2));
    expect(flood.drop).toBe(Math.ceil(limited / 2));
    expect(other).toEqual({ pass: 20, slip: 0, drop: 0 });

    const s = rrl.stats();
    expect(s.passed).toBe(flood.pass + 20);
    expect(s.slipped).toBe(flood.slip);
    expect(s.dropped).toBe(flood.drop);
    expect(s.wouldSlip + s.wouldDrop).toBe(0);
    expect(s.bucketsInUse).toBe(2);
  });

  test('the flooded bucket passes nothing while the flood lasts (the demand is counted, as NSD does)', () => {
    const rrl = limiter();
    const { t } = burst(rrl, '198.51.100.7', 10_000, T0, 10_000); // 1000/s for 10 s at rate 20
    expect(t.pass).toBeLessThanOrEqual(21);
  });

  test('a client just under the rate is never limited', () => {
    const rrl = limiter();
    const { t } = burst(rrl, '198.51.100.7', 190, T0, 10_000); // 19/s for 10 s
    expect(t).toEqual({ pass: 190, slip: 0, drop: 0 });
  });

  test('slip 0 drops every limited response; slip 1 truncates every one; slip 3 every third', () => {
    const none = burst(limiter({ slip: 0 }), '198.51.100.7', 100, T0, 0).t;
    expect(none).toEqual({ pass: 20, slip: 0, drop: 80 });
    const all = burst(limiter({ slip: 1 }), '198.51.100.7', 100, T0, 0).t;
    expect(all).toEqual({ pass: 20, slip: 80, drop: 0 });
    const third = burst(limiter({ slip: 3 }), '198.51.100.7', 110, T0, 0).t;
    expect(third).toEqual({ pass: 20, slip: 30, drop: 60 });
  });
});

describe('bucket keys', () => {
  test('the same /24 shares one bucket; an IPv4-mapped address counts as its IPv4 address', () => {
    const rrl = limiter();
    burst(rrl, '198.51.100.7', 100, T0, 0);
    expect(rrl.decide('198.51.100.200', 'positive', 'www.example.com', T0)).not.toBe('pass');
    expect(rrl.decide('::ffff:198.51.100.9', 'positive', 'www.example.com', T0)).not.toBe('pass');
    expect(rrl.decide('198.51.101.7', 'positive', 'www.example.com', T0)).toBe('pass');
  });

  test('a different qname from the same prefix has its own positive bucket; the class is part of the key', () => {
    const rrl = limiter();
    burst(rrl, '198.51.100.7', 100, T0, 0, 'positive', 'www.example.com');
    expect(rrl.decide('198.51.100.7', 'positive', 'www.example.com', T0)).not.toBe('pass');
    expect(burst(rrl, '198.51.100.7', 20, T0, 0, 'positive', 'mail.example.com').t.pass).toBe(20);
    expect(burst(rrl, '198.51.100.7', 20, T0, 0, 'any', 'www.example.com').t.pass).toBe(20);
  });

  test('names are keyed case-insensitively and without a trailing dot (0x20 randomisation opens no bucket)', () => {
    const rrl = limiter();
    burst(rrl, '198.51.100.7', 100, T0, 0, 'positive', 'www.example.com');
    for (const name of ['WWW.Example.COM', 'www.example.com.', 'wWw.eXaMpLe.cOm.']) {
      expect(rrl.decide('198.51.100.7', 'positive', name, T0)).not.toBe('pass');
    }
  });

  test('NXDOMAIN for random names from one prefix share one bucket (keyed by the zone)', () => {
    const rrl = limiter();
    const t = tally();
    for (let i = 0; i < 200; i++) {
      const qname = `${Math.random().toString(36).slice(2)}.example.com`;
      const c = classify({ rcode: 3, answerCount: 0, qtype: 1, size: 120, qname, zone: 'example.com' });
      t[rrl.decide('198.51.100.7', c.class, c.key, T0 + i)]++;
    }
    expect(t.pass).toBeGreaterThanOrEqual(20);
    expect(t.pass).toBeLessThanOrEqual(24); // 20 + the credit earned over the 20 ms the first 20 took (0.4)... and rounding
    expect(rrl.stats().bucketsInUse).toBe(1);
  });

  test('IPv6 clients are grouped by /56 (and a %zone suffix is ignored)', () => {
    const rrl = limiter();
    burst(rrl, '2001:db8:abcd:1200::1', 100, T0, 0);
    expect(rrl.decide('2001:db8:abcd:12ff:ffff:ffff:ffff:ffff', 'positive', 'www.example.com', T0)).not.toBe('pass');
    expect(rrl.decide('2001:DB8:ABCD:1234::5%eth0', 'positive', 'www.example.com', T0)).not.toBe('pass');
    expect(rrl.decide('2001:db8:abcd:1300::1', 'positive', 'www.example.com', T0)).toBe('pass');
    expect(rrl.decide('2001:db8:abce:1200::1', 'positive', 'www.example.com', T0)).toBe('pass');
  });

  test('the prefix lengths are options: /32 per IPv4 host, /64 for IPv6', () => {
    const rrl = limiter({ ipv4Prefix: 32, ipv6Prefix: 64 });
    burst(rrl, '198.51.100.7', 100, T0, 0);
    burst(rrl, '2001:db8:0:1::1', 100, T0, 0);
    expect(rrl.decide('198.51.100.7', 'positive', 'www.example.com', T0)).not.toBe('pass');
    expect(rrl.decide('198.51.100.8', 'positive', 'www.example.com', T0)).toBe('pass');
    expect(rrl.decide('2001:db8:0:1:ffff::', 'positive', 'www.example.com', T0)).not.toBe('pass');
    expect(rrl.decide('2001:db8:0:2::1', 'positive', 'www.example.com', T0)).toBe('pass');
  });

  test('an address that does not parse is answered, outside any bucket', () => {
    const rrl = limiter();
    expect(burst(rrl, 'not-an-address', 100, T0, 0).t.pass).toBe(100);
    expect(rrl.stats().bucketsInUse).toBe(0);
  });
});

describe('exempt clients', () => {
  test('an exempt CIDR is never limited and never takes a slot', () => {
    const rrl = limiter({ exempt: ['198.51.100.0/24', '2001:db8:ffff::/48', '::ffff:192.0.2.0/120', '203.0.113.77'] });
    for (const ip of ['198.51.100.7', '::ffff:198.51.100.8', '2001:db8:ffff:1::1', '192.0.2.1', '203.0.113.77']) {
      expect(burst(rrl, ip, 2000).t).toEqual({ pass: 2000, slip: 0, drop: 0 });
    }
    const s = rrl.stats();
    expect(s.exempted).toBe(10_000);
    expect(s.passed).toBe(10_000);
    expect(s.bucketsInUse).toBe(0);
    // Next to them, not exempt.
    expect(burst(rrl, '203.0.113.78', 100).t.pass).toBeLessThan(100);
    expect(burst(rrl, '2001:db8:fffe::1', 100).t.pass).toBeLessThan(100);
  });
});

describe('log mode', () => {
  test('answers everything and counts what it would have done', () => {
    const rrl = limiter({ mode: 'log' });
    const { t } = burst(rrl, '198.51.100.7', 2000);
    expect(t).toEqual({ pass: 2000, slip: 0, drop: 0 });
    const s = rrl.stats();
    expect(s.slipped + s.dropped).toBe(0);
    expect(s.passed).toBeGreaterThanOrEqual(20);
    expect(s.passed).toBeLessThanOrEqual(21);
    expect(s.wouldSlip).toBe(Math.floor((2000 - s.passed) / 2));
    expect(s.wouldDrop).toBe(Math.ceil((2000 - s.passed) / 2));
  });
});

describe('recovery', () => {
  test('after the window the bucket answers again; a second later, a full burst', () => {
    const a = limiter();
    const { last } = burst(a, '198.51.100.7', 2000);
    expect(a.decide('198.51.100.7', 'positive', 'www.example.com', last + 500)).not.toBe('pass');
    const b = limiter();
    burst(b, '198.51.100.7', 2000);
    expect(b.decide('198.51.100.7', 'positive', 'www.example.com', last + 1001)).toBe('pass');
    const c = limiter();
    burst(c, '198.51.100.7', 2000);
    // The balance climbs from -window × rate to 0 in `window` seconds, then to `rate` in one more.
    expect(burst(c, '198.51.100.7', 30, last + 2000, 0).t).toEqual({ pass: 20, slip: 5, drop: 5 });
  });

  test('a longer window keeps a flooded bucket limited longer', () => {
    const a = limiter({ window: 3 });
    const { last } = burst(a, '198.51.100.7', 2000);
    expect(a.decide('198.51.100.7', 'positive', 'www.example.com', last + 2500)).not.toBe('pass');
    const b = limiter({ window: 3 });
    burst(b, '198.51.100.7', 2000);
    expect(b.decide('198.51.100.7', 'positive', 'www.example.com', last + 3001)).toBe('pass');
  });

  test('a time that goes backwards earns no credit and throws nothing', () => {
    const rrl = limiter();
    burst(rrl, '198.51.100.7', 100, T0, 0);
    expect(rrl.decide('198.51.100.7', 'positive', 'www.example.com', T0 - 5000)).not.toBe('pass');
  });

  test('bucketsInUse counts the buckets not yet back to full', () => {
    const rrl = limiter();
    burst(rrl, '198.51.100.7', 100, T0, 0);
    burst(rrl, '203.0.113.1', 5, T0, 0);
    expect(rrl.stats().bucketsInUse).toBe(2);
    rrl.tick(T0 + 300); // the light one (5 credits short) is full again after 250 ms
    expect(rrl.stats().bucketsInUse).toBe(1);
    rrl.tick(T0 + 10_000);
    expect(rrl.stats().bucketsInUse).toBe(0);
  });
});

describe('sustained limiting events', () => {
  test('onSustained fires once after 5 s of limiting, onRecovered once after 30 s without', () => {
    const rrl = limiter();
    const sustained: unknown[] = [];
    const recovered: unknown[] = [];
    rrl.onSustained((e) => sustained.push(e));
    rrl.onRecovered((e) => recovered.push(e));
    rrl.onSustained(() => {
      throw new Error('a broken listener');
    });

    burst(rrl, '198.51.100.7', 400, T0, 4000); // 100/s for 4 s: limited, not yet sustained
    expect(sustained).toEqual([]);
    const { last } = burst(rrl, '198.51.100.7', 600, T0 + 4000, 6000); // 6 s more
    expect(sustained).toHaveLength(1);
    expect(sustained[0]).toMatchObject({ mode: 'enforce', prefix: '198.51.100.0/24', class: 'positive', key: 'www.example.com' });
    const e = sustained[0] as { sinceMs: number; nowMs: number; limited: number };
    expect(e.nowMs - e.sinceMs).toBeGreaterThanOrEqual(5000);
    // The bucket's limited answers up to the moment it became sustained: about 5 s of a 100/s flood over the rate.
    expect(e.limited).toBeGreaterThan(300);
    expect(e.limited).toBeLessThanOrEqual(rrl.stats().slipped + rrl.stats().dropped);
    expect(rrl.stats().sustained).toBe(true);
    expect(rrl.stats().lastLimitedMs).toBe(last);

    rrl.tick(last + 29_999);
    expect(recovered).toEqual([]);
    rrl.tick(last + 30_000);
    rrl.tick(last + 40_000);
    // The period's count: every limited answer from the start of the run that made it sustained (here all of them).
    const s = rrl.stats();
    expect(recovered).toEqual([{ mode: 'enforce', lastLimitedMs: last, nowMs: last + 30_000, limited: s.slipped + s.dropped }]);
    expect(rrl.stats().sustained).toBe(false);

    // A new attack fires again.
    burst(rrl, '2001:db8:1:2ff::3', 700, last + 60_000, 7000);
    expect(sustained).toHaveLength(2);
    expect(sustained[1]).toMatchObject({ prefix: '2001:db8:1:200::/56' });
  });

  test('gaps longer than a second break a run: no event', () => {
    const rrl = limiter({ window: 1 });
    const events: unknown[] = [];
    rrl.onSustained((e) => events.push(e));
    // Bursts of 100 every 1.5 s for 15 s: each bucket run lasts < 1 s.
    for (let k = 0; k < 10; k++) burst(rrl, '198.51.100.7', 100, T0 + k * 1500, 100);
    expect(events).toEqual([]);
  });

  test('unsubscribing stops a listener', () => {
    const rrl = limiter();
    const events: unknown[] = [];
    const off = rrl.onSustained((e) => events.push(e));
    off();
    burst(rrl, '198.51.100.7', 1000, T0, 10_000);
    expect(events).toEqual([]);
    expect(rrl.stats().sustained).toBe(true);
  });
});

describe('options', () => {
  test.each<[Partial<RrlOptions> & Record<string, unknown>, RegExp]>([
    [{ rate: 0 }, /RRL option rate must be an integer from 1 to 1000000 \(got 0\)/],
    [{ rate: 2.5 }, /option rate must be an integer/],
    [{ slip: -1 }, /option slip must be an integer from 0 to 100/],
    [{ mode: 'on' as 'log' }, /option mode must be 'enforce' or 'log' \(got "on"\)/],
    [{ ipv4Prefix: 33 }, /option ipv4Prefix must be an integer from 0 to 32/],
    [{ ipv6Prefix: 129 }, /option ipv6Prefix must be an integer from 0 to 128/],
    [{ tableSize: 1000 }, /option tableSize must be a power of two \(got 1000\)/],
    [{ tableSize: 8 }, /option tableSize must be an integer from 16 to 4194304/],
    [{ window: 0 }, /option window must be an integer from 1 to 3600/],
    [{ exempt: ['10.0.0.0/33'] }, /option exempt\[0\] "10.0.0.0\/33" is not a CIDR: prefix length "33"/],
    [{ exempt: ['192.0.2.0/24', '10.1.2.3/8'] }, /option exempt\[1\] "10.1.2.3\/8" is not a CIDR: host bits are set/],
    [{ exempt: ['nope'] }, /option exempt\[0\] "nope" is not a CIDR/],
    [{ ipv4prefix: 24 }, /RRL option ipv4prefix is not known/],
  ])('%j is refused', (extra, message) => {
    expect(() => limiter(extra)).toThrow(message);
  });

  test('the defaults: slip 2, /24, /56, 65536 slots, window 1', () => {
    const rrl = new ResponseRateLimiter({ rate: 5, mode: 'enforce' });
    expect([rrl.slip, rrl.ipv4Prefix, rrl.ipv6Prefix, rrl.tableSize, rrl.window]).toEqual([2, 24, 56, 65536, 1]);
  });
});

describe('the fixed table', () => {
  test('a small table counts collisions (slots taken over)', () => {
    const rrl = limiter({ tableSize: 16 });
    for (let i = 0; i < 256; i++) rrl.decide(`10.${i}.0.1`, 'positive', 'www.example.com', T0);
    const s = rrl.stats();
    expect(s.collisions).toBeGreaterThan(0);
    expect(s.bucketsInUse).toBeLessThanOrEqual(16);
  });

  test('property: under a flood of spoofed sources the table never grows and decide() never throws', () => {
    const size = 256;
    const rrl = limiter({ tableSize: size, rate: 3, slip: 3 });
    const arrays = Object.values(rrl as unknown as Record<string, unknown>).filter(ArrayBuffer.isView) as unknown as ArrayLike<number>[];
    const lengths = arrays.map((a) => a.length);
    const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
    const v6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((g) => g.map((x) => x.toString(16)).join(':'));
    const mapped = v4.map((a) => `::ffff:${a}`);
    const ip = fc.oneof(v4, v6, mapped, fc.string({ maxLength: 45 }));
    const cls = fc.constantFrom<RrlClass>(
      'positive',
      'nxdomain',
      'nodata',
      'error',
      'any',
      'large',
      'referral',
      'wildcard',
      'bogus' as RrlClass,
    );
    let now = T0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(ip, cls, fc.string({ maxLength: 80 }), fc.integer({ min: -50, max: 2000 })), { minLength: 1, maxLength: 400 }),
        (flood) => {
          for (const [addr, c, key, dt] of flood) {
            now += dt;
            expect(['pass', 'slip', 'drop']).toContain(rrl.decide(addr, c, key, now));
          }
          expect(arrays.map((a) => a.length)).toEqual(lengths);
          expect(rrl.stats().bucketsInUse).toBeLessThanOrEqual(size);
        },
      ),
      { numRuns: 200 },
    );
    expect(Math.max(...lengths)).toBeGreaterThanOrEqual(size); // the table is among them
    const s = rrl.stats();
    expect(s.passed + s.slipped + s.dropped).toBeGreaterThan(0);
  });
});

describe('classify', () => {
  const base = { rcode: 0, answerCount: 1, qtype: 1, size: 100, qname: 'www.example.com', zone: 'example.com' };
  test.each<[string, Partial<typeof base>, { class: RrlClass; key: string }]>([
    ['an answer', {}, { class: 'positive', key: 'www.example.com' }],
    ['NXDOMAIN: keyed by the zone', { rcode: 3, answerCount: 0 }, { class: 'nxdomain', key: 'example.com' }],
    ['NXDOMAIN for ANY stays NXDOMAIN', { rcode: 3, answerCount: 0, qtype: 255 }, { class: 'nxdomain', key: 'example.com' }],
    ['a large NXDOMAIN stays NXDOMAIN', { rcode: 3, answerCount: 0, size: 1500 }, { class: 'nxdomain', key: 'example.com' }],
    ['NOERROR without answers: NODATA keyed by the zone', { answerCount: 0, qtype: 28 }, { class: 'nodata', key: 'example.com' }],
    ['SERVFAIL', { rcode: 2, answerCount: 0 }, { class: 'error', key: '' }],
    ['REFUSED', { rcode: 5, answerCount: 0, zone: '' }, { class: 'error', key: '' }],
    ['FORMERR', { rcode: 1 }, { class: 'error', key: '' }],
    ['ANY', { qtype: 255 }, { class: 'any', key: 'www.example.com' }],
    ['ANY without answers', { qtype: 255, answerCount: 0 }, { class: 'any', key: 'www.example.com' }],
    ['DNSKEY', { qtype: 48, qname: 'example.com', size: 600 }, { class: 'large', key: 'example.com' }],
    ['over 1232 bytes', { size: 1233 }, { class: 'large', key: 'www.example.com' }],
    ['exactly 1232 bytes', { size: 1232 }, { class: 'positive', key: 'www.example.com' }],
  ])('%s', (_name, over, expected) => {
    expect(classify({ ...base, ...over })).toEqual(expected);
  });
});
