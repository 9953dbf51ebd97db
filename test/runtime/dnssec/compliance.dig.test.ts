/**
 * The DNS compliance checks of ISC's EDNS compliance tester (genreport), with DNSSEC on: each is the `dig`
 * query genreport sends to an authoritative server for its zone's SOA (or DNSKEY), and the test passes when
 * the answer is what genreport counts as "ok". genreport itself is not packaged for Debian; these are its
 * queries with the real `dig` against a real tmkit DNS server (routing engine, signer) on loopback.
 *
 * The same checks run twice: with DNS cookies and response rate limiting off, and with both on as `tmkit serve`
 * runs on the internet (issue 39: "genreport stays all ok with cookies and RRL on") — a CookieJar, and a
 * ResponseRateLimiter whose rate these few queries never reach. With cookies on, the `cookie`/`optlist` checks
 * expect what genreport wants from a server that does cookies: the COOKIE option echoed with the client's
 * cookie and a server cookie of 8 to 32 octets; and `dig +cookie` returning that cookie sees it `(good)`.
 */
import { randomBytes } from 'node:crypto';
import { buildSnapshot, resolve } from '../../../src/core/routing';
import { CookieJar, DnsServer, ResponseRateLimiter } from '../../../src/runtime/dns';
import { loadKeySet, newKeySet } from '../../../src/runtime/dns/dnssec/keys';
import { ZoneSigner } from '../../../src/runtime/dns/dnssec/signer';
import { ext, profile } from '../../../src/testing/builders';
import { seededRng } from '../../../src/testing/rng';
import { dig, type DigResult } from '../dns/support';

const ZONE = 'tm.internal';

interface Mode {
  /** A CookieJar (RFC 7873/9018 server cookies) and a ResponseRateLimiter at a rate these checks never reach. */
  admission: boolean;
}

/** A DnsServer with DNSSEC on loopback (and cookies and RRL when `mode.admission`); the dig arguments to reach it. */
function startServer(mode: Mode): { at: () => string[]; rrl: () => ResponseRateLimiter | undefined } {
  let server: DnsServer;
  let rrl: ResponseRateLimiter | undefined;
  let signer: ZoneSigner;
  let at: string[] = [];
  beforeAll(async () => {
    const snapshot = buildSnapshot({
      zone: ZONE,
      geo: { locate: () => undefined, latencyMs: () => undefined },
      health: { verdict: () => 'Online' },
      profiles: [profile('web', 'Priority', [ext('a', '192.0.2.1')])],
    });
    rrl = mode.admission ? new ResponseRateLimiter({ rate: 1000, slip: 2, mode: 'enforce' }) : undefined;
    server = new DnsServer({
      zone: ZONE,
      snapshot,
      resolve,
      rng: seededRng(1),
      nsNames: ['ns1.tm.internal'],
      nsAddresses: { 'ns1.tm.internal': ['192.0.2.53'] },
      listen: [{ address: '127.0.0.1', port: 0 }],
      ...(rrl ? { cookies: new CookieJar(randomBytes(16)), rrl } : {}),
    });
    signer = new ZoneSigner(loadKeySet(newKeySet(ZONE, { algorithm: 13, split: false }, Date.now()), 'test').keys, { zone: ZONE });
    server.responder.setSigner(signer);
    await server.start();
    at = ['@127.0.0.1', '-p', String(server.address().port), '+norec', '+noednsneg'];
  });
  afterAll(async () => {
    signer.close();
    await server.close();
  });
  return { at: () => at, rrl: () => rrl };
}

const soa = (r: DigResult): boolean => r.answer.some((a) => a[3] === 'SOA');
const rrsigFor = (r: DigResult, type: string): boolean => r.answer.some((a) => a[3] === 'RRSIG' && a[4] === type);
/** The EDNS options dig shows in the OPT pseudosection (`; COOKIE:`, `; NSID:`, `; CLIENT-SUBNET:`, `; EXPIRE:`, `; OPT=100:`). */
const options = (r: DigResult): string[] =>
  [...r.raw.matchAll(/^; (COOKIE|NSID|CLIENT-SUBNET|EXPIRE|OPT=\d+):/gm)].map((m) => m[1]!).sort();
/** The COOKIE dig shows (client cookie then server cookie, hex) and its verdict on the client part: `good` or `bad`. */
function cookieOf(r: DigResult): { hex: string; verdict: string | undefined } | undefined {
  const m = /^; COOKIE: ([0-9a-f]+)(?: \((\w+)\))?/m.exec(r.raw);
  return m ? { hex: m[1]!, verdict: m[2] } : undefined;
}
/** What genreport's cookie check wants from a server that does cookies: the client cookie sent back and a server cookie of 8 to 32 octets. */
function expectServerCookie(r: DigResult, clientCookie?: string): void {
  const c = cookieOf(r);
  expect(c).toBeDefined();
  expect(c!.hex.length / 2).toBeGreaterThanOrEqual(16);
  expect(c!.hex.length / 2).toBeLessThanOrEqual(40);
  if (clientCookie !== undefined) expect(c!.hex.slice(0, 16)).toBe(clientCookie);
  expect(c!.verdict).toBe('good');
}

const checks = (mode: Mode): Array<[string, string[], (r: DigResult) => void]> => [
  [
    'plain (no EDNS): NOERROR, aa, the SOA, no OPT',
    ['+noedns', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.flags).toContain('aa');
      expect(soa(r)).toBe(true);
      expect(r.edns).toBeUndefined();
    },
  ],
  [
    'edns: NOERROR, OPT version 0',
    ['+edns=0', '+nocookie', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(soa(r)).toBe(true);
      expect(r.edns?.version).toBe(0);
    },
  ],
  [
    'edns1: BADVERS, OPT version 0, no answer',
    ['+edns=1', '+nocookie', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('BADVERS');
      expect(r.edns?.version).toBe(0);
      expect(r.answer).toEqual([]);
    },
  ],
  [
    'edns@512: DNSKEY with DO at 512 octets: whole or TC, never over 512',
    ['+edns=0', '+dnssec', '+bufsize=512', '+ignore', '+notcp', 'dnskey', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.size!).toBeLessThanOrEqual(512);
      if (!r.flags.includes('tc')) expect(rrsigFor(r, 'DNSKEY')).toBe(true);
    },
  ],
  [
    'ednsopt: an unknown option is ignored, not echoed',
    ['+edns=0', '+nocookie', '+ednsopt=100', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(soa(r)).toBe(true);
      expect(options(r)).toEqual([]);
    },
  ],
  [
    'edns1opt: BADVERS, the unknown option not echoed',
    ['+edns=1', '+nocookie', '+ednsopt=100', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('BADVERS');
      expect(options(r)).toEqual([]);
    },
  ],
  [
    'do: the DO bit is echoed, the SOA is signed',
    ['+edns=0', '+nocookie', '+dnssec', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.edns?.flags).toBe('do');
      expect(rrsigFor(r, 'SOA')).toBe(true);
    },
  ],
  [
    'ednsflags: an unknown EDNS flag (0x80) is not echoed',
    ['+edns=0', '+nocookie', '+ednsflags=0x80', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.edns?.flags).toBe('');
      expect(r.raw).not.toMatch(/MBZ/);
    },
  ],
  [
    mode.admission
      ? 'optlist: NSID, ECS /0, EXPIRE and a COOKIE: NOERROR, ECS and the COOKIE (with a server cookie) echoed'
      : 'optlist: NSID, ECS /0, EXPIRE and a COOKIE: NOERROR, only ECS echoed',
    ['+edns=0', '+nsid', '+subnet=0.0.0.0/0', '+expire', '+cookie=0102030405060708', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(soa(r)).toBe(true);
      expect(options(r)).toEqual(mode.admission ? ['CLIENT-SUBNET', 'COOKIE'] : ['CLIENT-SUBNET']);
      if (mode.admission) expectServerCookie(r, '0102030405060708');
    },
  ],
  [
    mode.admission
      ? 'docookie: a client cookie alone gets the full answer and a server cookie'
      : 'docookie: a client cookie alone is accepted (cookies off: no server cookie)',
    ['+edns=0', '+cookie', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(soa(r)).toBe(true);
      if (mode.admission) expectServerCookie(r);
      else expect(options(r)).toEqual([]);
    },
  ],
  [
    'zflag: the header Z bit is cleared in the answer',
    ['+edns=0', '+nocookie', '+zflag', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.raw).not.toMatch(/; MBZ: 0x/);
    },
  ],
  [
    'edns512tcp: DNSKEY with DO at 512 octets over TCP: whole and signed',
    ['+edns=0', '+dnssec', '+bufsize=512', '+tcp', 'dnskey', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.flags).not.toContain('tc');
      expect(rrsigFor(r, 'DNSKEY')).toBe(true);
    },
  ],
  [
    'ednstcp: EDNS over TCP',
    ['+edns=0', '+nocookie', '+tcp', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(soa(r)).toBe(true);
      expect(r.edns?.version).toBe(0);
    },
  ],
  [
    'dnssec: the DNSKEY RRset with DO, signed, aa',
    ['+edns=0', '+nocookie', '+dnssec', 'dnskey', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.flags).toContain('aa');
      expect(r.answer.some((a) => a[3] === 'DNSKEY')).toBe(true);
      expect(rrsigFor(r, 'DNSKEY')).toBe(true);
    },
  ],
  [
    'dnssec, negative: a missing name with DO proves its absence with a signed NSEC',
    ['+edns=0', '+nocookie', '+dnssec', 'a', `nope.${ZONE}`],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(r.authority.map((a) => a[3])).toEqual(['SOA', 'RRSIG', 'NSEC', 'RRSIG']);
    },
  ],
];

describe.each([
  ['cookies and RRL off', { admission: false }],
  ['cookies and RRL on (rate not reached)', { admission: true }],
] as Array<[string, Mode]>)('%s', (_name, mode) => {
  const server = startServer(mode);

  test.each(checks(mode))('%s', async (_what, args, check) => {
    const r = await dig([...server.at(), ...args]);
    expect(r.warnings.filter((w) => !/recursion requested/.test(w))).toEqual([]);
    check(r);
  });

  if (mode.admission) {
    test('dig +cookie: returning the server cookie, the next answer is whole and dig says (good)', async () => {
      const first = await dig([...server.at(), '+edns=0', '+cookie', 'soa', ZONE]);
      expectServerCookie(first);
      const cookie = cookieOf(first)!.hex;
      for (const transport of ['+notcp', '+tcp']) {
        const again = await dig([...server.at(), '+edns=0', `+cookie=${cookie}`, transport, '+dnssec', 'soa', ZONE]);
        expect(again.status).toBe('NOERROR');
        expect(again.flags).not.toContain('tc');
        expect(rrsigFor(again, 'SOA')).toBe(true);
        expectServerCookie(again, cookie.slice(0, 16));
        expect(again.raw).toMatch(/^; COOKIE: [0-9a-f]{48} \(good\)$/m);
      }
    });

    test('the rate limiter saw the UDP answers and limited none of them', () => {
      const stats = server.rrl()!.stats();
      expect(stats.passed).toBeGreaterThan(0);
      expect({ slipped: stats.slipped, dropped: stats.dropped }).toEqual({ slipped: 0, dropped: 0 });
    });
  }
});
