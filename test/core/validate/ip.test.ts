import fc from 'fast-check';
import { broadcastAddress, formatIp, networkAddress, nonPublicReason, parseIp, parseIPv4, parseIPv6 } from '../../../src/core/validate/ip';

describe('parseIPv4', () => {
  test.each([
    ['0.0.0.0', 0], ['255.255.255.255', 0xffffffff], ['192.0.2.1', 0xc0000201], ['10.0.0.1', 0x0a000001],
  ])('%s', (s, v) => expect(parseIPv4(s)).toBe(v));
  test.each(['256.0.0.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.-4', '1.2.3.4 ', '', 'a.b.c.d', '1..2.3', '1.2.3.4/24'])('rejects %j', (s) => {
    expect(parseIPv4(s)).toBeUndefined();
  });
});

describe('parseIPv6', () => {
  test.each([
    ['::', 0n], ['::1', 1n], ['2001:db8::1', 0x20010db8000000000000000000000001n],
    ['2001:DB8:0:0:0:0:0:1', 0x20010db8000000000000000000000001n], ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', (1n << 128n) - 1n],
    ['::ffff:192.0.2.1', 0xffffc0000201n], ['1::', 1n << 112n], ['1:2:3:4:5:6:7::', 0x00010002000300040005000600070000n],
  ])('%s', (s, v) => expect(parseIPv6(s)).toBe(v));
  test.each(['', ':', ':::', '1:2:3:4:5:6:7:8:9', '1::2::3', '12345::', 'g::1', '1:2:3:4:5:6:7', '::1%eth0', '[::1]', '1:2:3:4:5:6:7:8::', '::192.0.2.256', ':1::', '1::2:'])('rejects %j', (s) => {
    expect(parseIPv6(s)).toBeUndefined();
  });
});

describe('formatIp (RFC 5952)', () => {
  test.each([
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:1:0:0:0:1', '2001:db8:0:1::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:1:1:1:1:0:1', '2001:db8:1:1:1:1:0:1'],
    ['::', '::'], ['0:0:0:0:0:0:0:1', '::1'], ['1:0:0:0:0:0:0:0', '1::'],
    ['192.0.2.1', '192.0.2.1'],
  ])('%s -> %s', (s, out) => expect(formatIp(parseIp(s)!)).toBe(out));

  test('round-trips every IPv6 value', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (v) => parseIPv6(formatIp({ family: 6, value: v })) === v));
  });
  test('round-trips every IPv4 value', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 0xffffffff }), (v) => parseIPv4(formatIp({ family: 4, value: BigInt(v) })) === v));
  });
});

test.each([
  ['10.1.2.3', 24, '10.1.2.0', '10.1.2.255'],
  ['10.1.2.3', 0, '0.0.0.0', '255.255.255.255'],
  ['10.1.2.3', 32, '10.1.2.3', '10.1.2.3'],
  ['2001:db8::1234', 112, '2001:db8::', '2001:db8::ffff'],
])('prefix %s/%i spans %s–%s', (a, scope, first, last) => {
  const ip = parseIp(a)!;
  expect(formatIp({ family: ip.family, value: networkAddress(ip.value, ip.family, scope) })).toBe(first);
  expect(formatIp({ family: ip.family, value: broadcastAddress(ip.value, ip.family, scope) })).toBe(last);
});

describe('nonPublicReason', () => {
  test.each([
    ['10.0.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.0.1', 'private'], ['127.0.0.1', 'loopback'],
    ['169.254.1.1', 'link-local'], ['192.0.2.5', 'documentation'], ['198.51.100.1', 'documentation'], ['203.0.113.9', 'documentation'],
    ['198.19.0.1', 'benchmarking'], ['224.0.0.1', 'multicast'], ['255.255.255.255', 'reserved'], ['192.88.99.1', '6to4'],
    ['100.64.0.1', 'shared'], ['0.1.2.3', 'this network'],
    ['::1', 'loopback'], ['::', 'unspecified'], ['fe80::1', 'link-local'], ['fd00::1', 'unique local'], ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'], ['ff02::1', 'multicast'], ['::ffff:8.8.8.8', 'global unicast'], ['2001::1', 'IETF'],
  ])('%s is not public (%s)', (a, why) => expect(nonPublicReason(parseIp(a)!)).toContain(why));
  test.each(['8.8.8.8', '20.50.2.1', '172.32.0.1', '192.169.0.1', '2a01:111::1', '2606:4700::1111', '2001:4860::8888'])('%s is public', (a) => {
    expect(nonPublicReason(parseIp(a)!)).toBeUndefined();
  });
});
