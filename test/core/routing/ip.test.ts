import { isIPv4, isIPv6, parseIp, rangeContains, subnetRange } from '../../../src/core/routing/ip';

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
  ['64:ff9b::192.0.2.1', 6, 0x0064ff9b0000000000000000c0000201n],
])('parseIp(%s)', (s, family, value) => {
  expect(parseIp(s)).toEqual({ family, value });
});

test.each(['', '1.2.3', '256.1.1.1', '1.2.3.4.5', 'a.b.c.d', '1::2::3', '1:2:3:4:5:6:7:8:9', 'example.com', ':::', '12345::1'])(
  'parseIp rejects %p', (s) => { expect(parseIp(s)).toBeUndefined(); },
);

test('record-kind helpers', () => {
  expect([isIPv4('192.0.2.1'), isIPv4('2001:db8::1'), isIPv6('2001:db8::1'), isIPv6('app.example.net')]).toEqual([true, false, true, false]);
});

test.each([
  [{ first: '198.51.100.0', scope: 24 }, '198.51.100.255', true],
  [{ first: '198.51.100.0', scope: 24 }, '198.51.101.0', false],
  [{ first: '198.51.100.7', scope: 32 }, '198.51.100.7', true],
  [{ first: '0.0.0.0', scope: 0 }, '203.0.113.1', true],
  [{ first: '192.0.2.10', last: '192.0.2.20' }, '192.0.2.20', true],
  [{ first: '192.0.2.10', last: '192.0.2.20' }, '192.0.2.21', false],
  [{ first: '192.0.2.10' }, '192.0.2.10', true],
  [{ first: '2001:db8::', scope: 32 }, '2001:db8:ffff::1', true],
  [{ first: '2001:db8::', scope: 32 }, '192.0.2.1', false],
])('subnetRange(%j) contains %s: %s', (sn, ip, expected) => {
  expect(rangeContains(subnetRange(sn)!, parseIp(ip)!)).toBe(expected);
});

test.each([
  [{ first: 'nope' }],
  [{ first: '192.0.2.20', last: '192.0.2.10' }],
  [{ first: '192.0.2.0', last: '2001:db8::1' }],
  [{ first: '192.0.2.0', scope: 33 }],
])('subnetRange rejects malformed %j', (sn) => {
  expect(subnetRange(sn)).toBeUndefined();
});
