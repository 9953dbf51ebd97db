/**
 * Property tests for the shared address parser (it runs on every query's client address): against
 * node:net `isIP` and against a BigInt value computed independently from the generated groups.
 */
import { isIP } from 'node:net';
import fc from 'fast-check';
import {
  formatIp,
  formatIpExpanded,
  ipFamilyOf,
  parseIp,
  parseIpBytes,
  parseIPv4,
  parseIPv6,
  STRICT_SYNTAX,
} from '../../../src/core/net/ip';
import { ROUTING_IP_SYNTAX } from '../../../src/core/routing/ip';
import { GEO_IP_SYNTAX } from '../../../src/geo/ip';

/** The reference value: bytes read as one big-endian unsigned integer. */
const bigIntOf = (bytes: Uint8Array): bigint => bytes.reduce((v, b) => (v << 8n) | BigInt(b), 0n);

/** IPv6 text for 16 bytes in a random valid form: full, a compressed zero run, upper case, embedded IPv4. */
const ipv6Text = fc
  .record({
    bytes: fc.uint8Array({ minLength: 16, maxLength: 16 }),
    zeroRun: fc.option(fc.record({ at: fc.nat(7), len: fc.integer({ min: 1, max: 8 }) })),
    upper: fc.boolean(),
    dotted: fc.boolean(),
    padded: fc.boolean(),
  })
  .map(({ bytes, zeroRun, upper, dotted, padded }) => {
    const b = Uint8Array.from(bytes);
    let start = -1;
    let len = 0;
    if (zeroRun) {
      start = zeroRun.at;
      len = Math.min(zeroRun.len, 8 - start);
      for (let i = start * 2; i < (start + len) * 2; i++) b[i] = 0;
    }
    const words = Array.from({ length: 8 }, (_, i) => {
      const hex = ((b[2 * i]! << 8) | b[2 * i + 1]!).toString(16);
      return padded ? hex.padStart(4, '0') : hex;
    });
    let parts: string[] = words;
    let tail = '';
    if (dotted && (start < 0 || start + len <= 6)) {
      parts = words.slice(0, 6);
      tail = `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
    }
    let text: string;
    if (start >= 0 && start + len <= parts.length) {
      text = `${parts.slice(0, start).join(':')}::${parts.slice(start + len).join(':')}`;
      if (tail) text += text.endsWith(':') ? tail : `:${tail}`;
    } else {
      text = [...parts, ...(tail ? [tail] : [])].join(':');
    }
    return { bytes: b, text: upper ? text.toUpperCase() : text };
  });

const ipv4Bytes = fc.uint8Array({ minLength: 4, maxLength: 4 });
const ipv4Text = ipv4Bytes.map((b) => Array.from(b).join('.'));

test('every textual form of an IPv6 address parses to its value and bytes, in every syntax, and Node agrees it is IPv6', () => {
  fc.assert(
    fc.property(ipv6Text, ({ bytes, text }) => {
      expect(isIP(text)).toBe(6);
      const value = bigIntOf(bytes);
      expect(parseIPv6(text)).toBe(value);
      expect(parseIp(text)).toEqual({ family: 6, value });
      expect(parseIp(text, GEO_IP_SYNTAX)).toEqual({ family: 6, value });
      const geo = parseIpBytes(text, GEO_IP_SYNTAX);
      expect(geo?.family).toBe(6);
      expect(Array.from(geo!.bytes)).toEqual(Array.from(bytes));
      const routed = parseIp(text, ROUTING_IP_SYNTAX)!;
      // The routing syntax reads ::ffff:0:0/96 as the IPv4 client it is.
      if (value >> 32n === 0xffffn) expect(routed).toEqual({ family: 4, value: value & 0xffffffffn });
      else expect(routed).toEqual({ family: 6, value });
    }),
    { numRuns: 2000 },
  );
});

test('IPv4: the value is the octets read big-endian, and parse(format(bytes)) is the identity', () => {
  fc.assert(
    fc.property(ipv4Bytes, (bytes) => {
      const text = Array.from(bytes).join('.');
      expect(parseIPv4(text)).toBe(Number(bigIntOf(bytes)));
      for (const syntax of [STRICT_SYNTAX, ROUTING_IP_SYNTAX, GEO_IP_SYNTAX]) {
        const parsed = parseIp(text, syntax)!;
        expect(parsed).toEqual({ family: 4, value: bigIntOf(bytes) });
        expect(formatIp(parsed)).toBe(text);
        expect(formatIpExpanded(parsed)).toBe(text);
      }
      expect(Array.from(parseIpBytes(text, GEO_IP_SYNTAX)!.bytes)).toEqual(Array.from(bytes));
    }),
  );
});

const addressChars = fc.constantFrom(...'0123456789abcdefABCDEF:.'.split(''), ':', ':', '.', '0');

test('on arbitrary strings of address characters, the strict and geo syntaxes accept exactly what Node accepts', () => {
  fc.assert(
    fc.property(fc.string({ unit: addressChars, minLength: 1, maxLength: 45 }), (text) => {
      const node = isIP(text);
      expect([text, ipFamilyOf(text)]).toEqual([text, node]);
      const strict = parseIp(text);
      expect([text, strict === undefined ? 0 : strict.family]).toEqual([text, node]);
      const geo = parseIpBytes(text, GEO_IP_SYNTAX);
      expect([text, geo === undefined ? 0 : geo.family]).toEqual([text, node]);
    }),
    { numRuns: 5000 },
  );
});

test('the routing syntax accepts what Node accepts where no octet has a leading zero', () => {
  fc.assert(
    fc.property(fc.string({ unit: addressChars, minLength: 1, maxLength: 45 }), (text) => {
      if (/(^|[.:])0\d/.test(text)) return;
      expect([text, ipFamilyOf(text, ROUTING_IP_SYNTAX)]).toEqual([text, isIP(text)]);
    }),
    { numRuns: 5000 },
  );
});

test('the routing syntax reads zero-padded IPv4 octets as decimal; the strict syntax refuses them', () => {
  const padded = fc.array(fc.record({ octet: fc.integer({ min: 0, max: 255 }), zeros: fc.integer({ min: 0, max: 2 }) }), {
    minLength: 4,
    maxLength: 4,
  });
  fc.assert(
    fc.property(padded, fc.boolean(), (octets, mapped) => {
      const quad = octets.map(({ octet, zeros }) => String(octet).padStart(Math.min(3, String(octet).length + zeros), '0')).join('.');
      const text = mapped ? `::ffff:${quad}` : quad;
      const value = octets.reduce((v, { octet }) => v * 256 + octet, 0);
      expect(parseIp(text, ROUTING_IP_SYNTAX)).toEqual({ family: 4, value: BigInt(value) });
      const hasPadding = /(^|[.:])0\d/.test(text);
      expect([text, ipFamilyOf(text) !== 0]).toEqual([text, !hasPadding]);
    }),
  );
});

test('on one-character edits of valid addresses (near misses), the parser accepts exactly what Node accepts', () => {
  const valid = fc.oneof(
    ipv6Text.map((x) => x.text),
    ipv4Text,
  );
  const edit = fc.record({
    at: fc.nat(),
    op: fc.constantFrom('insert', 'delete', 'replace'),
    ch: fc.constantFrom(...'0123456789abcdefg:.'.split('')),
  });
  fc.assert(
    fc.property(valid, edit, (text, { at, op, ch }) => {
      const i = at % (text.length + 1);
      const mutated =
        op === 'insert'
          ? text.slice(0, i) + ch + text.slice(i)
          : op === 'delete'
            ? text.slice(0, i) + text.slice(i + 1)
            : text.slice(0, i) + ch + text.slice(i + 1);
      const ours = parseIpBytes(mutated, GEO_IP_SYNTAX);
      expect([mutated, ours === undefined ? 0 : ours.family]).toEqual([mutated, isIP(mutated)]);
      expect([mutated, ipFamilyOf(mutated)]).toEqual([mutated, isIP(mutated)]);
    }),
    { numRuns: 5000 },
  );
});
