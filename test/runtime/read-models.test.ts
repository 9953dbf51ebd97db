import fc from 'fast-check';
import { newestFirst } from '../../src/runtime/read-models';

// The status report lists transitions newest first. Two of them can share a millisecond (an endpoint enabled
// again and its first probe of a closed port failing at once); CI on Node 24 showed them in the wrong order.
test('transitions in the same millisecond keep their order, the later one first', () => {
  const at = 1_700_000_000_000;
  const oldestFirst = [
    { at: at - 5000, what: 'CheckingEndpoint→Degraded' },
    { at: at - 10, what: 'Degraded→Disabled' },
    { at, what: 'Disabled→CheckingEndpoint' },
    { at, what: 'CheckingEndpoint→Degraded' },
  ];
  expect(newestFirst(oldestFirst).map((t) => t.what)).toEqual([
    'CheckingEndpoint→Degraded',
    'Disabled→CheckingEndpoint',
    'Degraded→Disabled',
    'CheckingEndpoint→Degraded',
  ]);
});

test('newest first is the exact reverse of any oldest-first list', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 30 }), (steps) => {
      let at = 0;
      const oldestFirst = steps.map((d, i) => ({ at: (at += d), i }));
      expect(newestFirst(oldestFirst)).toEqual([...oldestFirst].reverse());
    }),
  );
});
