import { parseIpBytes } from '../../src/core/net/ip';
import {
  formatIp,
  GEO_IP_SYNTAX,
  isNonGlobal,
  parsePrefix,
  PrefixMap,
  unwrapIpv4,
  type ParsedIp,
  type ParsedPrefix,
} from '../../src/geo/ip';

/** A client address as the geo layer parses it (src/geo/lookup.ts). */
const geoIp = (text: string): ParsedIp | undefined => parseIpBytes(text, GEO_IP_SYNTAX);

/** The geo adapter (bytes); the geo syntax's parsing cases are in test/core/net/ip.test.ts. */
describe('parseIpBytes in the geo syntax and formatIp (all eight groups, the form the database reader takes)', () => {
  test.each([
    ['8.8.8.8', 4, [8, 8, 8, 8], '8.8.8.8'],
    [' [2001:db8::1]%eth0 ', 6, [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], '2001:db8:0:0:0:0:0:1'],
    ['::ffff:192.0.2.1', 6, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1], '0:0:0:0:0:ffff:c000:201'],
  ])('%j', (text, family, bytes, formatted) => {
    const ip = geoIp(text)!;
    expect([ip.family, Array.from(ip.bytes)]).toEqual([family, bytes]);
    expect(formatIp(ip)).toBe(formatted);
  });

  test.each(['', 'bogus', '01.2.3.4', '1::2::3'])('%j is not an address', (text) => {
    expect(geoIp(text)).toBeUndefined();
  });
});

describe('parsePrefix (bytes; the length and address rules are tested in test/core/net/ip.test.ts)', () => {
  test.each([
    ['203.0.113.0/24', 4, 24],
    [' [2001:db8::]/32', 6, 32],
  ])('%s', (text, family, length) => {
    expect(parsePrefix(text)).toMatchObject({ family, length });
  });

  test('non-strict keeps the host bits', () => {
    const p = parsePrefix('10.1.2.3/8', false) as ParsedPrefix;
    expect([p.family, Array.from(p.bytes), p.length]).toEqual([4, [10, 1, 2, 3], 8]);
  });

  test.each([
    ['10.1.2.3/8', /host bits are set after \/8 \(did you mean 10\.0\.0\.0\/8\?\)/],
    ['2001:db8::1/32', /did you mean 2001:db8:0:0:0:0:0:0\/32\?/],
    ['nope/8', /not an IPv4 or IPv6 address/],
  ])('%s is rejected with a reason', (text, reason) => {
    const p = parsePrefix(text);
    expect('error' in p && p.error).toMatch(reason);
  });
});

describe('PrefixMap (longest prefix match)', () => {
  const map = new PrefixMap<string>();
  const add = (p: string): void => map.set(parsePrefix(p) as ParsedPrefix, p);
  ['0.0.0.0/0', '10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/23', '10.1.2.3/32', '2001:db8::/32', '2001:db8:8000::/33'].forEach(add);

  test.each([
    ['10.1.2.3', ['10.1.2.3/32', '10.1.2.0/23', '10.1.0.0/16', '10.0.0.0/8', '0.0.0.0/0']],
    ['10.1.3.255', ['10.1.2.0/23', '10.1.0.0/16', '10.0.0.0/8', '0.0.0.0/0']],
    ['10.1.4.0', ['10.1.0.0/16', '10.0.0.0/8', '0.0.0.0/0']],
    ['11.0.0.1', ['0.0.0.0/0']],
    ['2001:db8:8000::1', ['2001:db8:8000::/33', '2001:db8::/32']],
    ['2001:db8:7fff::1', ['2001:db8::/32']],
    ['2001:db9::1', []],
  ])('%s matches %j, longest first', (addr, expected) => {
    expect(map.matches(geoIp(addr)!)).toEqual(expected);
    expect(map.longest(geoIp(addr)!)).toBe(expected[0]);
  });

  test('an IPv4 default route does not match IPv6 addresses', () => {
    expect(map.longest(geoIp('::2')!)).toBeUndefined();
  });

  test('size counts prefixes of both families', () => {
    expect(map.size).toBe(7);
  });
});

describe('non-global addresses have no geography', () => {
  test.each([
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.1.1',
    '100.64.0.1',
    '0.1.2.3',
    '192.0.2.1',
    '198.51.100.1',
    '203.0.113.1',
    '198.18.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fd00::1',
    'fc00::1',
    'ff02::1',
    '2001:db8::1',
    '100::1',
  ])('%s', (addr) => {
    expect(isNonGlobal(unwrapIpv4(geoIp(addr)!))).toBe(true);
  });

  test.each(['8.8.8.8', '172.32.0.1', '100.128.0.1', '192.169.0.1', '2003::1', '2001:4860:4860::8888', '::ffff:8.8.8.8'])(
    '%s is global',
    (addr) => {
      expect(isNonGlobal(unwrapIpv4(geoIp(addr)!))).toBe(false);
    },
  );
});

describe('unwrapIpv4', () => {
  test.each([
    ['::ffff:8.8.8.8', '8.8.8.8'],
    ['::ffff:c0a8:101', '192.168.1.1'],
    ['64:ff9b::8.8.4.4', '8.8.4.4'],
    ['2001:4860::1', '2001:4860:0:0:0:0:0:1'],
    ['8.8.8.8', '8.8.8.8'],
  ])('%s → %s', (addr, expected) => {
    expect(formatIp(unwrapIpv4(geoIp(addr)!))).toBe(expected);
  });
});
