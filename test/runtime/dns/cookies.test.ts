/**
 * DNS Cookies (src/runtime/dns/cookies.ts): SipHash-2-4 against the reference vectors of the SipHash paper,
 * the Server Cookies of RFC 9018 Appendix A byte for byte, every outcome of CookieJar.check, the lengths of
 * the COOKIE option (RFC 7873 §5.2.2), a make/check property, and the secret's file.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  COOKIE_SECRET_FILE,
  CookieJar,
  CookieSecretError,
  isMalformedCookieOption,
  loadOrCreateCookieSecret,
  parseCookieOption,
  rotateCookieSecret,
  siphash24,
} from '../../../src/runtime/dns/cookies';

const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => i);

/** SipHash-2-4, key 00..0f, message 00..(n-1): the 64-bit result as little-endian bytes, n = 0..63. */
const SIPHASH_VECTORS = [
  '310e0edd47db6f72',
  'fd67dc93c539f874',
  '5a4fa9d909806c0d',
  '2d7efbd796666785',
  'b7877127e09427cf',
  '8da699cd64557618',
  'cee3fe586e46c9cb',
  '37d1018bf50002ab',
  '6224939a79f5f593',
  'b0e4a90bdf82009e',
  'f3b9dd94c5bb5d7a',
  'a7ad6b22462fb3f4',
  'fbe50e86bc8f1e75',
  '903d84c02756ea14',
  'eef27a8e90ca23f7',
  'e545be4961ca29a1',
  'db9bc2577fcc2a3f',
  '9447be2cf5e99a69',
  '9cd38d96f0b3c14b',
  'bd6179a71dc96dbb',
  '98eea21af25cd6be',
  'c7673b2eb0cbf2d0',
  '883ea3e395675393',
  'c8ce5ccd8c030ca8',
  '94af49f6c650adb8',
  'eab8858ade92e1bc',
  'f315bb5bb835d817',
  'adcf6b0763612e2f',
  'a5c91da7acaa4dde',
  '716595876650a2a6',
  '28ef495c53a387ad',
  '42c341d8fa92d832',
  'ce7cf2722f512771',
  'e37859f94623f3a7',
  '381205bb1ab0e012',
  'ae97a10fd434e015',
  'b4a31508beff4d31',
  '81396229f0907902',
  '4d0cf49ee5d4dcca',
  '5c73336a76d8bf9a',
  'd0a704536ba93e0e',
  '925958fcd6420cad',
  'a915c29bc8067318',
  '952b79f3bc0aa6d4',
  'f21df2e41d4535f9',
  '87577519048f53a9',
  '10a56cf5dfcd9adb',
  'eb75095ccd986cd0',
  '51a9cb9ecba312e6',
  '96afadfc2ce666c7',
  '72fe52975a4364ee',
  '5a1645b276d592a1',
  'b274cb8ebf87870a',
  '6f9bb4203de7b381',
  'eaecb2a30b22a87f',
  '9924a43cc1315724',
  'bd838d3aafbf8db7',
  '0b1a2a3265d51aea',
  '135079a3231ce660',
  '932b2846e4d70666',
  'e1915f5cb1eca46c',
  'f325965ca16d629f',
  '575ff28e60381be5',
  '724506eb4c328a95',
];

describe('siphash24', () => {
  test('the reference vectors: key 00..0f, messages 00, 00 01, … of length 0 to 63', () => {
    for (let n = 0; n < 64; n++) expect([n, toHex(siphash24(bytes(16), bytes(n)))]).toEqual([n, SIPHASH_VECTORS[n]]);
  });

  test('length 15 is the paper’s example a129ca6149be45e5, output little-endian', () => {
    expect([...siphash24(bytes(16), bytes(15))]).toEqual([0xe5, 0x45, 0xbe, 0x49, 0x61, 0xca, 0x29, 0xa1]);
  });

  test('matches a BigInt reference implementation on random keys and messages', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.uint8Array({ maxLength: 80 }), (key, msg) => {
        expect(toHex(siphash24(key, msg))).toBe(toHex(referenceSipHash(key, msg)));
      }),
      { numRuns: 300 },
    );
  });

  test('a key of another length is refused', () => {
    expect(() => siphash24(bytes(15), bytes(1))).toThrow(RangeError);
  });
});

/** Straight from the SipHash paper with 64-bit BigInts: the independent oracle for the 32-bit version. */
function referenceSipHash(key: Uint8Array, msg: Uint8Array): Uint8Array {
  const M = (1n << 64n) - 1n;
  const rotl = (x: bigint, b: bigint): bigint => ((x << b) | (x >> (64n - b))) & M;
  const le = (b: Uint8Array, at: number, n: number): bigint => {
    let v = 0n;
    for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[at + i]!);
    return v;
  };
  const k0 = le(key, 0, 8);
  const k1 = le(key, 8, 8);
  const v = [k0 ^ 0x736f6d6570736575n, k1 ^ 0x646f72616e646f6dn, k0 ^ 0x6c7967656e657261n, k1 ^ 0x7465646279746573n];
  const round = (): void => {
    v[0] = (v[0]! + v[1]!) & M;
    v[1] = rotl(v[1]!, 13n) ^ v[0];
    v[0] = rotl(v[0], 32n);
    v[2] = (v[2]! + v[3]!) & M;
    v[3] = rotl(v[3]!, 16n) ^ v[2];
    v[0] = (v[0] + v[3]) & M;
    v[3] = rotl(v[3], 21n) ^ v[0];
    v[2] = (v[2] + v[1]) & M;
    v[1] = rotl(v[1], 17n) ^ v[2];
    v[2] = rotl(v[2], 32n);
  };
  const full = msg.length - (msg.length % 8);
  const words: bigint[] = [];
  for (let i = 0; i < full; i += 8) words.push(le(msg, i, 8));
  words.push(le(msg, full, msg.length - full) | (BigInt(msg.length & 0xff) << 56n));
  for (const m of words) {
    v[3]! ^= m;
    round();
    round();
    v[0]! ^= m;
  }
  v[2]! ^= 0xffn;
  for (let i = 0; i < 4; i++) round();
  const h = v[0]! ^ v[1]! ^ v[2]! ^ v[3]!;
  return Uint8Array.from({ length: 8 }, (_, i) => Number((h >> BigInt(8 * i)) & 0xffn));
}

describe('RFC 9018 Appendix A', () => {
  const SECRET = hex('e5e973e5a6b2a43f48e7dc849e37bfcf');

  test('A.1 learning a new Server Cookie', () => {
    const client = hex('2464c4abcf10c957');
    const jar = new CookieJar(SECRET);
    const server = jar.make(client, '198.51.100.100', 1559731985);
    expect(toHex(server)).toBe('010000005cf79f111f8130c3eee29480');
    expect(jar.check(client, server, '198.51.100.100', 1559731985)).toBe('valid');
  });

  test('A.2 the same client learning a renewed (fresh) Server Cookie', () => {
    const client = hex('2464c4abcf10c957');
    const jar = new CookieJar(SECRET);
    // 40 minutes later: still valid, but older than half an hour.
    expect(jar.check(client, hex('010000005cf79f111f8130c3eee29480'), '198.51.100.100', 1559734385)).toBe('renew');
    expect(toHex(jar.make(client, '198.51.100.100', 1559734385))).toBe('010000005cf7a871d4a564a1442aca77');
  });

  test('A.3 another client learning a renewed Server Cookie (Reserved bytes hashed as sent)', () => {
    const client = hex('fc93fc62807ddb86');
    const sent = hex('01abcdef5cf78f71a314227b6679ebf5');
    const jar = new CookieJar(SECRET);
    expect(jar.check(client, sent, '203.0.113.203', 1559727985)).toBe('valid');
    // At the time of the query the cookie is 6715 s old: past the hour, so a new one is made either way.
    expect(jar.check(client, sent, '203.0.113.203', 1559734700)).toBe('invalid');
    expect(toHex(jar.make(client, '203.0.113.203', 1559734700))).toBe('010000005cf7a9acf73a7810aca2381e');
  });

  test('A.4 an IPv6 query with a rolled-over secret', () => {
    const oldSecret = hex('dd3bdf9344b678b185a6f5cb60fca715');
    const newSecret = hex('445536bcd2513298075a5d379663c962');
    const ip = '2001:db8:220:1:59de:d0f4:8769:82b8';
    const client = hex('22681ab97d52c298');
    const sent = hex('010000005cf7c57926556bd0934c72f8');
    expect(toHex(new CookieJar(oldSecret).make(client, ip, 1559741817))).toBe(toHex(sent));
    expect(new CookieJar(newSecret).check(client, sent, ip, 1559741961)).toBe('invalid');
    const jar = new CookieJar(newSecret, oldSecret);
    expect(jar.check(client, sent, ip, 1559741961)).toBe('valid');
    expect(toHex(jar.make(client, ip, 1559741961))).toBe('010000005cf7c609a6bb79d16625507a');
  });
});

describe('CookieJar.check', () => {
  const secret = hex('000102030405060708090a0b0c0d0e0f');
  const client = hex('0123456789abcdef');
  const T = 1_700_000_000;
  const jar = new CookieJar(secret);
  const cookie = jar.make(client, '192.0.2.53', T);

  test('valid up to half an hour, renew after, until one hour; invalid past the hour', () => {
    expect(jar.check(client, cookie, '192.0.2.53', T)).toBe('valid');
    expect(jar.check(client, cookie, '192.0.2.53', T + 1800)).toBe('valid');
    expect(jar.check(client, cookie, '192.0.2.53', T + 1801)).toBe('renew');
    expect(jar.check(client, cookie, '192.0.2.53', T + 3600)).toBe('renew');
    expect(jar.check(client, cookie, '192.0.2.53', T + 3601)).toBe('invalid');
  });

  test('up to 5 minutes in the future is valid (another server’s clock), beyond is invalid', () => {
    expect(jar.check(client, cookie, '192.0.2.53', T - 300)).toBe('valid');
    expect(jar.check(client, cookie, '192.0.2.53', T - 301)).toBe('invalid');
  });

  test('time is serial number arithmetic: a cookie stamped before 2^32 wraps is valid just after', () => {
    const stamped = jar.make(client, '192.0.2.53', 2 ** 32 - 10);
    expect(toHex(stamped.subarray(4, 8))).toBe('fffffff6');
    expect(jar.check(client, stamped, '192.0.2.53', 2 ** 32 + 20)).toBe('valid');
    expect(jar.check(client, stamped, '192.0.2.53', 2 ** 32 + 2000)).toBe('renew');
  });

  test('fractional seconds are truncated', () => {
    expect(toHex(jar.make(client, '192.0.2.53', T + 0.9))).toBe(toHex(cookie));
  });

  test('a hash that is not ours, another client cookie, another address: invalid', () => {
    const forged = Uint8Array.from(cookie);
    forged[15]! ^= 1;
    expect(jar.check(client, forged, '192.0.2.53', T)).toBe('invalid');
    expect(jar.check(hex('0123456789abcdee'), cookie, '192.0.2.53', T)).toBe('invalid');
    expect(jar.check(client, cookie, '192.0.2.54', T)).toBe('invalid');
    expect(new CookieJar(hex('ff0102030405060708090a0b0c0d0e0f')).check(client, cookie, '192.0.2.53', T)).toBe('invalid');
  });

  test('wrong version, wrong lengths, an address that does not parse: invalid', () => {
    const v2 = Uint8Array.from(cookie);
    v2[0] = 2;
    expect(jar.check(client, v2, '192.0.2.53', T)).toBe('invalid');
    expect(jar.check(client, cookie.subarray(0, 8), '192.0.2.53', T)).toBe('invalid');
    expect(jar.check(client, new Uint8Array([...cookie, 0]), '192.0.2.53', T)).toBe('invalid');
    expect(jar.check(client.subarray(0, 7), cookie, '192.0.2.53', T)).toBe('invalid');
    expect(jar.check(client, cookie, 'not-an-address', T)).toBe('invalid');
  });

  test('rotation: the previous secret’s cookies still verify, new ones use the current secret', () => {
    const rotating = new CookieJar(secret);
    expect(rotating.hasPrevious).toBe(false);
    const before = rotating.make(client, '192.0.2.53', T);
    rotating.rotate(hex('f0e0d0c0b0a090807060504030201000'));
    expect(rotating.hasPrevious).toBe(true);
    expect(rotating.check(client, before, '192.0.2.53', T + 60)).toBe('valid');
    const after = rotating.make(client, '192.0.2.53', T + 60);
    expect(toHex(after)).not.toBe(toHex(jar.make(client, '192.0.2.53', T + 60)));
    expect(toHex(after)).toBe(toHex(new CookieJar(hex('f0e0d0c0b0a090807060504030201000')).make(client, '192.0.2.53', T + 60)));
    // A second rotation forgets the first secret.
    rotating.rotate(hex('00000000000000000000000000000001'));
    expect(rotating.check(client, before, '192.0.2.53', T + 60)).toBe('invalid');
    expect(rotating.check(client, after, '192.0.2.53', T + 60)).toBe('valid');
  });

  test('IPv4, IPv4-mapped IPv6 and IPv6: the mapped form is the IPv4 address, real IPv6 is another client', () => {
    const v4 = jar.make(client, '1.2.3.4', T);
    expect(toHex(jar.make(client, '::ffff:1.2.3.4', T))).toBe(toHex(v4));
    expect(toHex(jar.make(client, '::FFFF:102:304', T))).toBe(toHex(v4));
    expect(jar.check(client, v4, '::ffff:1.2.3.4', T)).toBe('valid');
    expect(jar.check(client, v4, '::1.2.3.4', T)).toBe('invalid');
    expect(jar.check(client, v4, '2001:db8::1', T)).toBe('invalid');
    const v6 = jar.make(client, '2001:db8::1', T);
    expect(jar.check(client, v6, '2001:0db8:0:0:0:0:0:1', T)).toBe('valid');
    expect(jar.check(client, v6, 'fe80::1', T)).toBe('invalid');
    // A zone suffix (link-local clients) does not change the address.
    expect(toHex(jar.make(client, 'fe80::1%eth0', T))).toBe(toHex(jar.make(client, 'fe80::1', T)));
  });

  test('make refuses a client cookie that is not 8 bytes and an address that does not parse', () => {
    expect(() => jar.make(client.subarray(0, 7), '192.0.2.53', T)).toThrow(RangeError);
    expect(() => jar.make(client, '192.0.2.256', T)).toThrow(RangeError);
  });

  test('property: make then check within 30 minutes is valid; flipping any byte makes it invalid', () => {
    const ip = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.ipV4().map((a) => `::ffff:${a}`),
    );
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.uint8Array({ minLength: 8, maxLength: 8 }),
        ip,
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: -300, max: 1800 }),
        fc.integer({ min: 0, max: 15 }),
        fc.integer({ min: 1, max: 255 }),
        (key, clientCookie, addr, now, elapsed, at, mask) => {
          const j = new CookieJar(key);
          const made = j.make(clientCookie, addr, now);
          expect(made.length).toBe(16);
          expect(j.check(clientCookie, made, addr, now + elapsed)).toBe('valid');
          const flipped = Uint8Array.from(made);
          flipped[at]! ^= mask;
          expect(j.check(clientCookie, flipped, addr, now + elapsed)).toBe('invalid');
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('parseCookieOption', () => {
  test('8 bytes: a Client Cookie alone', () => {
    const parsed = parseCookieOption(bytes(8));
    expect(isMalformedCookieOption(parsed)).toBe(false);
    expect(parsed).toEqual({ client: bytes(8) });
  });

  test('16 to 40 bytes: a Client Cookie and a Server Cookie of 8 to 32 bytes', () => {
    for (const n of [16, 24, 40]) {
      const parsed = parseCookieOption(bytes(n));
      if (isMalformedCookieOption(parsed)) throw new Error(parsed.formerr);
      expect(parsed.client).toEqual(bytes(8));
      expect(parsed.server).toEqual(bytes(n).subarray(8));
    }
  });

  test('under 8, 9 to 15, over 40: malformed (FORMERR)', () => {
    for (const n of [0, 1, 7, 9, 12, 15, 41, 64]) {
      const parsed = parseCookieOption(bytes(n));
      expect([n, isMalformedCookieOption(parsed)]).toEqual([n, true]);
      expect((parsed as { formerr: string }).formerr).toMatch(new RegExp(`^COOKIE option of ${n} bytes`));
    }
  });
});

describe('the secret file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tmkit-cookie-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const NOW = Date.UTC(2024, 0, 2, 3, 4, 5);

  test('created with mode 0600 and 16 random bytes, then reloaded identically', () => {
    const made = loadOrCreateCookieSecret(dir, NOW);
    const path = join(dir, COOKIE_SECRET_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(made.current.length).toBe(16);
    expect(made.previous).toBeUndefined();
    expect(made.createdAt).toBe('2024-01-02T03:04:05.000Z');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ current: toHex(made.current), createdAt: '2024-01-02T03:04:05.000Z' });
    const again = loadOrCreateCookieSecret(dir, NOW + 1000);
    expect(again).toEqual(made);
    const other = mkdtempSync(join(tmpdir(), 'tmkit-cookie-other-'));
    try {
      expect(toHex(loadOrCreateCookieSecret(other, NOW).current)).not.toBe(toHex(made.current));
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('rotation keeps the previous secret; a jar over the file accepts cookies of both', () => {
    const first = loadOrCreateCookieSecret(dir, NOW);
    const client = hex('0123456789abcdef');
    const old = CookieJar.fromSecrets(first).make(client, '2001:db8::53', 1000);
    const rotated = rotateCookieSecret(dir, NOW + 60_000);
    expect(toHex(rotated.previous!)).toBe(toHex(first.current));
    expect(toHex(rotated.current)).not.toBe(toHex(first.current));
    expect(rotated.createdAt).toBe('2024-01-02T03:05:05.000Z');
    expect(statSync(join(dir, COOKIE_SECRET_FILE)).mode & 0o777).toBe(0o600);
    const reloaded = loadOrCreateCookieSecret(dir, NOW + 120_000);
    expect(reloaded).toEqual(rotated);
    const jar = CookieJar.fromSecrets(reloaded);
    expect(jar.check(client, old, '2001:db8::53', 1000)).toBe('valid');
    expect(toHex(jar.make(client, '2001:db8::53', 1000))).not.toBe(toHex(old));
    // A second rotation drops the first secret.
    const twice = rotateCookieSecret(dir, NOW + 180_000);
    expect(toHex(twice.previous!)).toBe(toHex(rotated.current));
    expect(CookieJar.fromSecrets(twice).check(client, old, '2001:db8::53', 1000)).toBe('invalid');
  });

  test('rotating with no file creates one with no previous secret', () => {
    const rotated = rotateCookieSecret(dir, NOW);
    expect(rotated.previous).toBeUndefined();
    expect(loadOrCreateCookieSecret(dir, NOW)).toEqual(rotated);
  });

  test('a file readable by others is made owner-only; a damaged file is an error, not a new secret', () => {
    const path = join(dir, COOKIE_SECRET_FILE);
    const made = loadOrCreateCookieSecret(dir, NOW);
    chmodSync(path, 0o644);
    expect(loadOrCreateCookieSecret(dir, NOW)).toEqual(made);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, '{"current": "abc"}');
    expect(() => loadOrCreateCookieSecret(dir, NOW)).toThrow(CookieSecretError);
    writeFileSync(path, 'not json');
    expect(() => loadOrCreateCookieSecret(dir, NOW)).toThrow(/not JSON/);
    expect(readFileSync(path, 'utf8')).toBe('not json');
  });
});

test("the memo of clients' last cookies changes no answer: made and checked as a jar with no memo would (model-based)", () => {
  const secret = (n: number): Uint8Array => Uint8Array.from({ length: 16 }, (_, i) => (n * 31 + i * 7) & 0xff);
  const op = fc.oneof(
    fc.record({
      kind: fc.constant('make' as const),
      ip: fc.integer({ min: 0, max: 3 }),
      client: fc.integer({ min: 0, max: 2 }),
      dt: fc.integer({ min: 0, max: 3 }),
    }),
    fc.record({
      kind: fc.constant('check' as const),
      ip: fc.integer({ min: 0, max: 3 }),
      client: fc.integer({ min: 0, max: 2 }),
      dt: fc.integer({ min: 0, max: 2000 }),
      // Which cookie is sent: one made earlier for any client (index into the made list), tampered or not.
      pick: fc.nat(),
      flip: fc.integer({ min: -1, max: 15 }),
    }),
    fc.record({ kind: fc.constant('rotate' as const) }),
  );
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
      const ips = ['192.0.2.1', '192.0.2.2', '2001:db8::1', '::ffff:192.0.2.1'];
      const clients = [bytes(8), hex('0123456789abcdef'), hex('ffffffffffffffff')];
      let n = 1;
      let current = secret(n);
      let previous: Uint8Array | undefined;
      const jar = new CookieJar(current);
      const fresh = (): CookieJar => new CookieJar(current, previous);
      const made: Uint8Array[] = [];
      let now = 1_800_000_000;
      for (const o of ops) {
        if (o.kind === 'rotate') {
          previous = current;
          current = secret(++n);
          jar.rotate(current);
          continue;
        }
        now += o.dt;
        const ip = ips[o.ip]!;
        const client = clients[o.client]!;
        if (o.kind === 'make') {
          const a = jar.make(client, ip, now);
          if (toHex(a) !== toHex(fresh().make(client, ip, now))) return false;
          made.push(a);
        } else {
          if (made.length === 0) continue;
          const cookie = Uint8Array.from(made[o.pick % made.length]!);
          if (o.flip >= 0) cookie[o.flip] = cookie[o.flip]! ^ 0x01;
          if (jar.check(client, cookie, ip, now) !== fresh().check(client, cookie, ip, now)) return false;
        }
      }
      return true;
    }),
    { numRuns: 300, seed: 7873 },
  );
});
