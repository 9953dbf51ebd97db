import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sha256Hex } from '../../src/core/sha256';
test('sha256Hex equals node:crypto for any string (incl. astral and multi-byte characters)', () => {
  expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary', maxLength: 300 }),
      (s) => sha256Hex(s) === createHash('sha256').update(s, 'utf8').digest('hex'),
    ),
    { numRuns: 2000 },
  );
  const utf16 = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 50 });
  fc.assert(
    fc.property(utf16, (s) => sha256Hex(s) === createHash('sha256').update(s, 'utf8').digest('hex')),
    { numRuns: 2000 },
  );
});
