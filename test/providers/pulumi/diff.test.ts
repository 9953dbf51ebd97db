/** The generic input diff (providers/pulumi/src/diff.ts): paths, kinds, replacement, and its invariants. */
import fc from 'fast-check';
import { diffProperties, splitPath } from '../../../providers/pulumi/src/diff';
import { Secret, UNKNOWN, containsUnknowns, sameValue, type PropertyMap, type Value } from '../../../providers/pulumi/src/values';

test.each<[string, PropertyMap, PropertyMap, Record<string, string>]>([
  ['no change', { a: 1, o: { b: 'x' } }, { a: 1, o: { b: 'x' } }, {}],
  ['top-level update', { a: 1 }, { a: 2 }, { a: 'update' }],
  ['add and delete', { a: 1 }, { b: 1 }, { a: 'delete', b: 'add' }],
  ['null counts as absent', { a: null, b: 1 }, { b: 1 }, {}],
  ['nested field', { o: { host: 'h', port: 1 } }, { o: { host: 'h', port: 2 } }, { 'o.port': 'update' }],
  ['nested add/delete', { o: { a: 1 } }, { o: { b: 1 } }, { 'o.a': 'delete', 'o.b': 'add' }],
  ['array element', { t: ['a', 'b'] }, { t: ['a', 'c'] }, { 't[1]': 'update' }],
  ['array grows', { t: ['a'] }, { t: ['a', 'b'] }, { 't[1]': 'add' }],
  ['array shrinks', { t: ['a', 'b'] }, { t: ['a'] }, { 't[1]': 'delete' }],
  ['in arrays null is a value', { t: [null] }, { t: [] }, { 't[0]': 'delete' }],
  ['a null property inside an object is absent', { o: { a: null, b: 1 } }, { o: { b: 1 } }, {}],
  ['object becomes a string', { o: { a: 1 } }, { o: 'x' }, { o: 'update' }],
  ['odd keys are quoted', { m: { 'a.b': 1 } }, { m: { 'a.b': 2 } }, { 'm["a.b"]': 'update' }],
  ['secretness alone is no change', { s: 'p' }, { s: new Secret('p') }, {}],
  ['a secret that changes', { s: new Secret('p') }, { s: new Secret('q') }, { s: 'update' }],
  ['an unknown new value is an update at its path', { o: { a: 1 } }, { o: { a: UNKNOWN } }, { 'o.a': 'update' }],
  ['an unknown whole object', { o: { a: 1 } }, { o: UNKNOWN }, { o: 'update' }],
])('%s', (_name, olds, news, expected) => {
  const d = diffProperties(olds, news);
  expect(d.detailedDiff).toEqual(expected);
  expect(d.changes).toBe(Object.keys(expected).length > 0);
  expect(d.replaces).toEqual([]);
});

test('replaceOnChanges: at, under and above the listed path; replaces names top-level keys', () => {
  const opts = { replaceOnChanges: ['name', 'dns.relativeName'] };
  expect(diffProperties({ name: 'a', size: 1 }, { name: 'b', size: 2 }, opts)).toEqual({
    changes: true,
    replaces: ['name'],
    stables: [],
    detailedDiff: { name: 'update-replace', size: 'update' },
  });
  const nested = diffProperties({ dns: { relativeName: 'a', ttl: 30 } }, { dns: { relativeName: 'b', ttl: 60 } }, opts);
  expect(nested.detailedDiff).toEqual({ 'dns.relativeName': 'update-replace', 'dns.ttl': 'update' });
  expect(nested.replaces).toEqual(['dns']);
  // A change to a parent that holds a replace path replaces too (the whole object was swapped).
  expect(diffProperties({ dns: { relativeName: 'a' } }, { dns: UNKNOWN }, opts).detailedDiff).toEqual({ dns: 'update-replace' });
  expect(diffProperties({}, { name: 'n' }, opts).detailedDiff).toEqual({ name: 'add-replace' });
  expect(diffProperties({ name: 'n' }, {}, opts).detailedDiff).toEqual({ name: 'delete-replace' });
});

test('stables are the new top-level keys that did not change', () => {
  expect(diffProperties({ a: 1, b: 2, c: 3 }, { a: 1, b: 3, d: 4 }).stables).toEqual(['a']);
});

test('splitPath reads the paths the diff writes', () => {
  expect(splitPath('a.b[0]["c.d"]')).toEqual(['a', 'b', '0', 'c.d']);
  expect(splitPath('["x y"]')).toEqual(['x y']);
  expect(() => splitPath('a..b[')).toThrow(/not a property path/);
});

const plainValue: fc.Arbitrary<Value> = fc.letrec<{ v: Value }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom('a', 'b', ''),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('k', 'l', 'm.n'), tie('v'), { maxKeys: 3 }).map((d) => ({ ...d }) as Value),
  ),
})).v;
const map = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'name'), plainValue, { maxKeys: 4 }).map((d) => ({ ...d }) as PropertyMap);

test('property: a map diffed with itself has no changes; two maps differ exactly when the diff says so', () => {
  fc.assert(
    fc.property(map, map, (a, b) => {
      expect(diffProperties(a, a).changes).toBe(false);
      const d = diffProperties(a, b);
      // A null property and an absent one are the same thing to the diff (in arrays, null is a value).
      const norm = (v: Value): Value =>
        Array.isArray(v)
          ? v.map(norm)
          : v !== null && typeof v === 'object' && !(v instanceof Secret) && v !== UNKNOWN
            ? Object.fromEntries(
                Object.entries(v)
                  .filter(([, x]) => x !== null)
                  .map(([k, x]) => [k, norm(x)]),
              )
            : v;
      if (!containsUnknowns(a) && !containsUnknowns(b)) expect(d.changes).toBe(!sameValue(norm(a), norm(b)));
      for (const path of Object.keys(d.detailedDiff!)) expect(() => splitPath(path)).not.toThrow();
    }),
    { numRuns: 500 },
  );
});

test('property: with replaceOnChanges, replaces is exactly the top-level keys of the *-replace paths', () => {
  fc.assert(
    fc.property(map, map, (a, b) => {
      const d = diffProperties(a, b, { replaceOnChanges: ['name'] });
      const replaced = Object.entries(d.detailedDiff!)
        .filter(([, k]) => k.endsWith('-replace'))
        .map(([p]) => splitPath(p)[0]);
      expect(d.replaces).toEqual([...new Set(replaced)].sort());
      expect(d.replaces!.every((k) => k === 'name')).toBe(true);
    }),
    { numRuns: 300 },
  );
});
