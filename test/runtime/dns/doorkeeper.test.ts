import fc from 'fast-check';
import { Doorkeeper } from '../../../src/runtime/dns/doorkeeper';

test('a name is new on its first sight and seen after, until the array is cleared at its capacity', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 100 }), (names) => {
      const d = new Doorkeeper(16, 1000);
      // No false negative: every name marked is seen, in any order, while under the capacity.
      let firstSights = 0;
      for (const n of names) if (!d.seen(n)) firstSights++;
      for (const n of [...names].reverse()) if (!d.seen(n)) return false;
      // Distinct names can share a bit (a false positive admits early), rarely at this load (100 in 65,536).
      return firstSights >= names.length - 2;
    }),
    { seed: 7 },
  );
});

test('fixed memory: cleared after `capacity` new names, so a flood of new names keeps it from filling up', () => {
  const d = new Doorkeeper(16, 1000);
  expect(d.seen('typo.tm.internal')).toBe(false);
  for (let i = 0; i < 998; i++) d.seen(`flood-${i}.tm.internal`);
  expect(d.seen('typo.tm.internal')).toBe(true);
  // 1,000 names added: the next new one clears the array, and the typo is new again.
  d.seen('flood-998.tm.internal');
  d.seen('flood-999.tm.internal');
  expect(d.seen('typo.tm.internal')).toBe(false);
  // Under a flood of 100,000 new names, almost all are new (false positives bounded by the clearing).
  let seen = 0;
  for (let i = 0; i < 100_000; i++) if (d.seen(`r${i}x${(i * 2654435761) >>> 0}`)) seen++;
  expect(seen / 100_000).toBeLessThan(0.02);
});
