/**
 * The shared IP module (src/core/net/ip.ts): the strict grammar validation uses, the routing and geo
 * syntaxes (the cases each of the three former parsers had), prefixes, formatting and special blocks.
 */
import fc from 'fast-check';
import {
  broadcastAddress,
  formatIp,
  formatIpExpanded,
  ipFamilyOf,
  isIpv4Mapped,
  mapIpv4,
  networkAddress,
  nonGlobalReason,
  nonPublicReason,
  parseIp,
  parseIpBytes,
  parseIPv4,
  parseIPv6,
  parsePrefix,
  prefixRange,
  rangeContains,
  SPECIAL_BLOCKS,
  unmapIpv4,
  type IpAddress,
} from '../../../src/core/net/ip';
import { ROUTING_IP_SYNTAX } from '../../../src/core/routing/ip';
import { GEO_IP_SYNTAX } from '../../../src/geo/ip';

const ip = (s: string): IpAddress => parseIp(s)!;

describe('strict grammar (validation)', () => {
  describe('parseIPv4', () => {
    test.each([
      ['0.0.0.0', 0],
      ['255.255.255.255', 0xffffffff],
      ['192.0.2.1', 0xc0000201],
      ['10.0.0.1', 0x0a000001],
    ])('%s', (s, v) => expect(parseIPv4(s)).toBe(v));
    test.each([
      '256.0.0.1',
      '1.2.3',
      '1.2.3.4.5',
      '01.2.3.4',
      '1.2.3.-4',
      '1.2.3.4 ',
      ' 1.2.3.4',
      '',
      'a.b.c.d',
      '1..2.3',
      '1.2.3.4/24',
      '1.2.3.',
      '.1.2.3',
      '1.2.3.0004',
      '1.2.3.1000',
      '::1',
    ])('rejects %j', (s) => {
      expect(parseIPv4(s)).toBeUndefined();
    });
  });

  describe('parseIPv6', () => {
    test.each([
      ['::', 0n],
      ['::1', 1n],
      ['2001:db8::1', 0x20010db8000000000000000000000001n],
      ['2001:DB8:0:0:0:0:0:1', 0x20010db8000000000000000000000001n],
      ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', (1n << 128n) - 1n],
      ['::ffff:192.0.2.1', 0xffffc0000201n],
      ['1::', 1n << 112n],
      ['1:2:3:4:5:6:7::', 0x00010002000300040005000600070000n],
      ['::2:3:4:5:6:7:8', 0x00000002000300040005000600070008n],
      ['1:2:3:4:5:6:1.2.3.4', 0x00010002000300040005000601020304n],
      ['0000:0000:0000:0000:0000:0000:0000:0001', 1n],
    ])('%s', (s, v) => expect(parseIPv6(s)).toBe(v));
    test.each([
      '',
      ':',
      ':::',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      '12345::',
      'g::1',
      '1:2:3:4:5:6:7',
      '::1%eth0',
      '[::1]',
      '1:2:3:4:5:6:7:8::',
      '::192.0.2.256',
      ':1::',
      '1::2:',
      '::1.2.3',
      '1:2:3:4:5:6:7:1.2.3.4',
      '::1:2:3:4:5:6:1.2.3.4',
      '1.2.3.4::',
      '::01.2.3.4',
      ' ::1',
      '1:::2',
      '::1:',
      '192.0.2.1',
    ])('rejects %j', (s) => {
      expect(parseIPv6(s)).toBeUndefined();
    });
  });

  test('parseIp: family from the text; an IPv4-mapped address stays IPv6', () => {
    expect([ip('192.0.2.1'), ip('::ffff:192.0.2.1'), parseIp('example.com')]).toEqual([
      { family: 4, value: 0xc0000201n },
      { family: 6, value: 0xffffc0000201n },
      undefined,
    ]);
  });
});

describe('routing syntax (trim, zone, leading zeros, IPv4-mapped as IPv4)', () => {
  test.each([
    ['192.0.2.1', 4, 0xc0000201n],
    ['0.0.0.0', 4, 0n],
    ['255.255.255.255', 4, 0xffffffffn],
    ['::', 6, 0n],
    ['::1', 6, 1n],
    ['2001:db8::1', 6, 0x20010db8000000000000000000000001n],
    ['2001:DB8:0:0:0:0:0:1', 6, 0x20010db8000000000000000000000001n],
    ['fe80::1%eth0', 6, 0xfe800000000000000000000000000001n],
    ['::ffff:192.0.2.1', 4, 0xc0000201n],
    ['::ffff:c000:201', 4, 0xc0000201n],
    ['64:ff9b::192.0.2.1', 6, 0x0064ff9b0000000000000000c0000201n],
    [' 192.0.2.1 ', 4, 0xc0000201n],
    ['010.000.002.001', 4, 0x0a000201n],
    ['::ffff:010.0.0.1', 4, 0x0a000001n],
  ])('parseIp(%j)', (s, family, value) => {
    expect(parseIp(s, ROUTING_IP_SYNTAX)).toEqual({ family, value });
  });

  test.each([
    '',
    '1.2.3',
    '256.1.1.1',
    '1.2.3.4.5',
    'a.b.c.d',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    'example.com',
    ':::',
    '12345::1',
    '1.2.3.0001',
    '[::1]',
  ])('rejects %j', (s) => {
    expect(parseIp(s, ROUTING_IP_SYNTAX)).toBeUndefined();
  });
});

describe('geo syntax (trim, zone, brackets) as bytes', () => {
  test.each([
    ['8.8.8.8', 4, '8.8.8.8'],
    ['0.0.0.0', 4, '0.0.0.0'],
    ['255.255.255.255', 4, '255.255.255.255'],
    [' 10.0.0.1 ', 4, '10.0.0.1'],
    ['::', 6, '0:0:0:0:0:0:0:0'],
    ['::1', 6, '0:0:0:0:0:0:0:1'],
    ['2001:db8::', 6, '2001:db8:0:0:0:0:0:0'],
    ['2001:DB8:0:0:1::1', 6, '2001:db8:0:0:1:0:0:1'],
    ['1:2:3:4:5:6:7:8', 6, '1:2:3:4:5:6:7:8'],
    ['::ffff:192.0.2.1', 6, '0:0:0:0:0:ffff:c000:201'],
    ['fe80::1%eth0', 6, 'fe80:0:0:0:0:0:0:1'],
    ['[2001:db8::1]', 6, '2001:db8:0:0:0:0:0:1'],
    ['[fe80::1]%eth0', 6, 'fe80:0:0:0:0:0:0:1'],
  ])('%j → IPv%s %s', (text, family, expanded) => {
    const parsed = parseIp(text, GEO_IP_SYNTAX);
    expect(parsed?.family).toBe(family);
    expect(formatIpExpanded(parsed!)).toBe(expanded);
    const bytes = parseIpBytes(text, GEO_IP_SYNTAX)!;
    expect(bytes.family).toBe(family);
    expect(BigInt(`0x${Buffer.from(bytes.bytes).toString('hex')}`)).toBe(parsed!.value);
  });

  test.each([
    '',
    'bogus',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3.-1',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '12345::',
    'g::1',
    '1:2:3:4:5:6:7',
    '::1.2.3',
    'example.com',
    '[1.2.3.4]',
    '[::1',
    '::ffff:01.2.3.4',
  ])('%j is not an address', (text) => {
    expect(parseIp(text, GEO_IP_SYNTAX)).toBeUndefined();
    expect(parseIpBytes(text, GEO_IP_SYNTAX)).toBeUndefined();
  });
});

test.each([
  ['192.0.2.1', 4],
  ['::1', 6],
  ['::ffff:192.0.2.1', 6],
  ['example.com', 0],
  ['1.2.3', 0],
])('ipFamilyOf(%j) = %i', (s, family) => {
  expect(ipFamilyOf(s)).toBe(family);
  expect(ipFamilyOf(s, ROUTING_IP_SYNTAX)).toBe(family);
});

describe('formatIp (RFC 5952)', () => {
  test.each([
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:1:0:0:0:1', '2001:db8:0:1::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:1:1:1:1:0:1', '2001:db8:1:1:1:1:0:1'],
    ['::', '::'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['1:0:0:0:0:0:0:0', '1::'],
    ['192.0.2.1', '192.0.2.1'],
  ])('%s -> %s', (s, out) => expect(formatIp(ip(s))).toBe(out));

  test('round-trips every IPv6 value', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (v) => parseIPv6(formatIp({ family: 6, value: v })) === v));
  });
  test('round-trips every IPv4 value', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 0xffffffff }), (v) => parseIPv4(formatIp({ family: 4, value: BigInt(v) })) === v));
  });
  test('the expanded form round-trips too', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (v) => parseIPv6(formatIpExpanded({ family: 6, value: v })) === v),
    );
  });
});

describe('prefixes and ranges', () => {
  test.each([
    ['10.1.2.3', 24, '10.1.2.0', '10.1.2.255'],
    ['10.1.2.3', 0, '0.0.0.0', '255.255.255.255'],
    ['10.1.2.3', 32, '10.1.2.3', '10.1.2.3'],
    ['2001:db8::1234', 112, '2001:db8::', '2001:db8::ffff'],
  ])('prefix %s/%i spans %s–%s', (a, scope, first, last) => {
    const addr = ip(a);
    expect(formatIp({ family: addr.family, value: networkAddress(addr.value, addr.family, scope) })).toBe(first);
    expect(formatIp({ family: addr.family, value: broadcastAddress(addr.value, addr.family, scope) })).toBe(last);
    const r = prefixRange(addr, scope);
    expect([formatIp({ family: r.family, value: r.lo }), formatIp({ family: r.family, value: r.hi })]).toEqual([first, last]);
    expect(rangeContains(r, addr)).toBe(true);
  });

  test('a range contains only addresses of its family', () => {
    expect(rangeContains(prefixRange(ip('0.0.0.0'), 0), ip('::1'))).toBe(false);
  });

  describe('parsePrefix', () => {
    test.each([
      ['203.0.113.0/24', 4, 24],
      ['0.0.0.0/0', 4, 0],
      ['198.51.100.7', 4, 32],
      ['2001:db8::/32', 6, 32],
      ['2001:db8::1', 6, 128],
    ])('%s', (text, family, length) => {
      expect(parsePrefix(text)).toMatchObject({ family, length });
    });

    test.each([
      ['10.1.2.3/8', /host bits are set after \/8 \(did you mean 10\.0\.0\.0\/8\?\)/],
      ['2001:db8::1/32', /did you mean 2001:db8::\/32\?/],
      ['10.0.0.0/33', /from 0 to 32/],
      ['2001:db8::/129', /from 0 to 128/],
      ['10.0.0.0/x', /integer/],
      ['nope/8', /not an IPv4 or IPv6 address/],
    ])('%s is rejected with a reason', (text, reason) => {
      const p = parsePrefix(text);
      expect('error' in p && p.error).toMatch(reason);
    });

    test("non-strict keeps host bits; the message format is the caller's", () => {
      expect(parsePrefix('10.1.2.3/8', { strict: false })).toEqual({ family: 4, value: 0x0a010203n, length: 8 });
      const p = parsePrefix('2001:db8::1/32', { format: formatIpExpanded });
      expect('error' in p && p.error).toMatch(/did you mean 2001:db8:0:0:0:0:0:0\/32\?/);
    });
  });
});

describe('IPv4 inside IPv6', () => {
  test.each([
    ['::ffff:8.8.8.8', '8.8.8.8', '8.8.8.8'],
    ['::ffff:c0a8:101', '192.168.1.1', '192.168.1.1'],
    ['64:ff9b::8.8.4.4', '64:ff9b::808:404', '8.8.4.4'],
    ['2001:4860::1', '2001:4860::1', '2001:4860::1'],
    ['8.8.8.8', '8.8.8.8', '8.8.8.8'],
  ])('%s → %s (mapped only) / %s (and NAT64)', (a, mappedOnly, withNat64) => {
    expect(formatIp(unmapIpv4(ip(a)))).toBe(mappedOnly);
    expect(formatIp(unmapIpv4(ip(a), true))).toBe(withNat64);
  });

  test('mapIpv4 is the inverse of unmapIpv4 for IPv4 addresses', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (v) => {
        const a: IpAddress = { family: 4, value: BigInt(v) };
        expect(isIpv4Mapped(mapIpv4(a))).toBe(true);
        expect(unmapIpv4(mapIpv4(a))).toEqual(a);
      }),
    );
  });
});

describe('nonPublicReason (endpoint targets)', () => {
  test.each([
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['169.254.1.1', 'link-local'],
    ['192.0.2.5', 'documentation'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.19.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.88.99.1', '6to4'],
    ['100.64.0.1', 'shared'],
    ['0.1.2.3', 'this network'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00::1', 'unique local'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['ff02::1', 'multicast'],
    ['::ffff:8.8.8.8', 'global unicast'],
    ['2001::1', 'IETF'],
  ])('%s is not public (%s)', (a, why) => expect(nonPublicReason(ip(a))).toContain(why));
  test.each(['8.8.8.8', '20.50.2.1', '172.32.0.1', '192.169.0.1', '2a01:111::1', '2606:4700::1111', '2001:4860::8888'])(
    '%s is public',
    (a) => {
      expect(nonPublicReason(ip(a))).toBeUndefined();
    },
  );
});

describe('nonGlobalReason (no geography)', () => {
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
    '::ffff:10.0.0.1',
    '64:ff9b::10.0.0.1',
    '2001:2::1',
    'fec0::1',
    '5f00::1',
  ])('%s', (a) => {
    expect(nonGlobalReason(unmapIpv4(ip(a), true))).toBeDefined();
  });

  test.each(['8.8.8.8', '172.32.0.1', '100.128.0.1', '192.169.0.1', '2003::1', '2001:4860:4860::8888', '::ffff:8.8.8.8', '2001:3::1'])(
    '%s is global',
    (a) => {
      expect(nonGlobalReason(unmapIpv4(ip(a), true))).toBeUndefined();
    },
  );

  test('every special block is a well-formed prefix, and the IPv4 blocks are both non-public and non-global', () => {
    for (const b of SPECIAL_BLOCKS) {
      expect(parsePrefix(b.prefix)).not.toHaveProperty('error');
      if (!b.prefix.includes(':')) expect([b.prefix, b.nonPublic, b.nonGlobal]).toEqual([b.prefix, true, true]);
    }
  });
});
