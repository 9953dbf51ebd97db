/** Property tests for the address parser that runs on every query's client address. */
import { isIP } from 'node:net';
import fc from 'fast-check';
import { formatIp, parseIp } from '../../src/geo/ip';

/** IPv6 text for 16 bytes in a random valid form: full, a compressed zero run, upper case, embedded IPv4. */
const ipv6Text = fc
  .record({
    bytes: fc.uint8Array({ minLength: 16, maxLength: 16 }),
    zeroRun: fc.option(fc.record({ at: fc.nat(7), len: fc.integer({ min: 1, max: 8 }) })),
    upper: fc.boolean(),
    dotted: fc.boolean(),
  })
  .map(({ bytes, zeroRun, upper, dotted }) => {
    const b = Uint8Array.from(bytes);
    let start = -1;
    let len = 0;
    if (zeroRun) {
      start = zeroRun.at;
      len = Math.min(zeroRun.len, 8 - start);
      for (let i = start * 2; i < (start + len) * 2; i++) b[i] = 0;
    }
    const words = Array.from({ length: 8 }, (_, i) => ((b[2 * i]! << 8) | b[2 * i + 1]!).toString(16));
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

test('every textual form of an IPv6 address parses back to its bytes, and Node agrees it is IPv6', () => {
  fc.assert(
    fc.property(ipv6Text, ({ bytes, text }) => {
      expect(isIP(text)).toBe(6);
      const ip = parseIp(text);
      expect(ip?.family).toBe(6);
      expect(Array.from(ip!.bytes)).toEqual(Array.from(bytes));
    }),
    { numRuns: 2000 },
  );
});

test('IPv4: parse(format(bytes)) is the identity', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 4, maxLength: 4 }), (bytes) => {
      const text = Array.from(bytes).join('.');
      const ip = parseIp(text)!;
      expect(ip.family).toBe(4);
      expect(formatIp(ip)).toBe(text);
    }),
  );
});

test('on arbitrary strings of address characters, the parser accepts exactly what Node accepts', () => {
  const chars = fc.constantFrom(...'0123456789abcdefABCDEF:.'.split(''), ':', ':', '.', '0');
  fc.assert(
    fc.property(fc.string({ unit: chars, minLength: 1, maxLength: 45 }), (text) => {
      const ours = parseIp(text);
      expect(ours === undefined ? 0 : ours.family).toBe(isIP(text));
    }),
    { numRuns: 5000 },
  );
});

test('on one-character edits of valid addresses (near misses), the parser accepts exactly what Node accepts', () => {
  const ipv4Text = fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => Array.from(b).join('.'));
  const valid = fc.oneof(ipv6Text.map((x) => x.text), ipv4Text);
  const edit = fc.record({
    at: fc.nat(),
    op: fc.constantFrom('insert', 'delete', 'replace'),
    ch: fc.constantFrom(...'0123456789abcdefg:.'.split('')),
  });
  fc.assert(
    fc.property(valid, edit, (text, { at, op, ch }) => {
      const i = at % (text.length + 1);
      const mutated =
        op === 'insert' ? text.slice(0, i) + ch + text.slice(i)
        : op === 'delete' ? text.slice(0, i) + text.slice(i + 1)
        : text.slice(0, i) + ch + text.slice(i + 1);
      const ours = parseIp(mutated);
      expect([mutated, ours === undefined ? 0 : ours.family]).toEqual([mutated, isIP(mutated)]);
    }),
    { numRuns: 5000 },
  );
});
