/**
 * The DNS compliance checks of ISC's EDNS compliance tester (genreport), with DNSSEC on: each is the `dig`
 * query genreport sends to an authoritative server for its zone's SOA (or DNSKEY), and the test passes when
 * the answer is what genreport counts as "ok". genreport itself is not packaged for Debian; these are its
 * queries with the real `dig` against a real tmkit DNS server (routing engine, signer) on loopback.
 */
import { buildSnapshot, resolve } from '../../../src/core/routing';
import { DnsServer } from '../../../src/runtime/dns';
import { loadKeySet, newKeySet } from '../../../src/runtime/dns/dnssec/keys';
import { ZoneSigner } from '../../../src/runtime/dns/dnssec/signer';
import { ext, profile } from '../../../src/testing/builders';
import { seededRng } from '../../../src/testing/rng';
import { dig, type DigResult } from '../dns/support';

const ZONE = 'tm.internal';
let server: DnsServer;
let signer: ZoneSigner;
let at: string[];

beforeAll(async () => {
  const snapshot = buildSnapshot({
    zone: ZONE,
    geo: { locate: () => undefined, latencyMs: () => undefined },
    health: { verdict: () => 'Online' },
    profiles: [profile('web', 'Priority', [ext('a', '192.0.2.1')])],
  });
  server = new DnsServer({
    zone: ZONE,
    snapshot,
    resolve,
    rng: seededRng(1),
    nsNames: ['ns1.tm.internal'],
    nsAddresses: { 'ns1.tm.internal': ['192.0.2.53'] },
    listen: [{ address: '127.0.0.1', port: 0 }],
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

const soa = (r: DigResult): boolean => r.answer.some((a) => a[3] === 'SOA');
const rrsigFor = (r: DigResult, type: string): boolean => r.answer.some((a) => a[3] === 'RRSIG' && a[4] === type);
/** The EDNS options dig shows in the OPT pseudosection (`; COOKIE:`, `; NSID:`, `; CLIENT-SUBNET:`, `; EXPIRE:`, `; OPT=100:`). */
const options = (r: DigResult): string[] => [...r.raw.matchAll(/^; (COOKIE|NSID|CLIENT-SUBNET|EXPIRE|OPT=\d+):/gm)].map((m) => m[1]!);

const checks: Array<[string, string[], (r: DigResult) => void]> = [
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
    'optlist: NSID, ECS /0, EXPIRE and a COOKIE: NOERROR, only ECS echoed',
    ['+edns=0', '+nsid', '+subnet=0.0.0.0/0', '+expire', '+cookie=0102030405060708', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(soa(r)).toBe(true);
      expect(options(r)).toEqual(['CLIENT-SUBNET']);
    },
  ],
  [
    'docookie: a client cookie alone is accepted (no server cookie: tmkit does not do cookies)',
    ['+edns=0', '+cookie', 'soa', ZONE],
    (r) => {
      expect(r.status).toBe('NOERROR');
      expect(soa(r)).toBe(true);
      expect(options(r)).toEqual([]);
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

test.each(checks)('%s', async (_what, args, check) => {
  const r = await dig([...at, ...args]);
  expect(r.warnings.filter((w) => !/recursion requested/.test(w))).toEqual([]);
  check(r);
});
