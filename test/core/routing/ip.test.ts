/** The routing adapter; the routing syntax's parsing cases are in test/core/net/ip.test.ts. */
import { parseIp } from '../../../src/core/net/ip';
import { isIPv4, isIPv6, rangeContains, ROUTING_IP_SYNTAX, subnetRange } from '../../../src/core/routing/ip';

test('record-kind helpers', () => {
  expect([isIPv4('192.0.2.1'), isIPv4('2001:db8::1'), isIPv6('2001:db8::1'), isIPv6('app.example.net')]).toEqual([
    true,
    false,
    true,
    false,
  ]);
  // An IPv4-mapped target is written as IPv6, so it is an AAAA record, though parseIp reads it as IPv4.
  expect([isIPv4('::ffff:192.0.2.1'), isIPv6('::ffff:192.0.2.1'), parseIp('::ffff:192.0.2.1', ROUTING_IP_SYNTAX)?.family]).toEqual([
    false,
    true,
    4,
  ]);
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
  [{ first: '198.51.100.77', scope: 24 }, '198.51.100.1', true],
  [{ first: '::ffff:198.51.100.0', scope: 24 }, '198.51.100.9', true],
])('subnetRange(%j) contains %s: %s', (sn, ip, expected) => {
  expect(rangeContains(subnetRange(sn)!, parseIp(ip, ROUTING_IP_SYNTAX)!)).toBe(expected);
});

test.each([
  [{ first: 'nope' }],
  [{ first: '192.0.2.20', last: '192.0.2.10' }],
  [{ first: '192.0.2.0', last: '2001:db8::1' }],
  [{ first: '192.0.2.0', scope: 33 }],
])('subnetRange rejects malformed %j', (sn) => {
  expect(subnetRange(sn)).toBeUndefined();
});
