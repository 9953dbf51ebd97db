/** provider() router defaults: computed attributes planned unknown on create (in nested blocks too), requiresReplace paths, value equality. */
import { planUnknownComputed, replacePaths, valueEquals } from '../../../providers/terraform/src/provider';
import { Dynamic, PreciseNumber, Unknown, UNKNOWN } from '../../../providers/terraform/src/cty';
import type { Block } from '../../../providers/terraform/src/schema';

const block: Block = {
  attributes: {
    id: { type: 'string', computed: true },
    name: { type: 'string', required: true, requiresReplace: true },
    port: { type: 'number', optional: true, computed: true },
  },
  blocks: {
    dns: {
      nesting: 'single',
      block: {
        attributes: { relative: { type: 'string', required: true, requiresReplace: true }, fqdn: { type: 'string', computed: true } },
      },
    },
    rule: { nesting: 'list', block: { attributes: { n: { type: 'string', required: true }, rid: { type: 'string', computed: true } } } },
  },
};

test('create: computed attributes the config leaves null are unknown, configured ones kept, in nested blocks too', () => {
  const config = {
    id: null,
    name: 'a',
    port: 8080,
    dns: { relative: 'r', fqdn: null },
    rule: [
      { n: 'x', rid: null },
      { n: 'y', rid: 'given' },
    ],
  };
  const planned = planUnknownComputed(block, config, config);
  expect(planned).toEqual({
    id: UNKNOWN,
    name: 'a',
    port: 8080,
    dns: { relative: 'r', fqdn: UNKNOWN },
    rule: [
      { n: 'x', rid: UNKNOWN },
      { n: 'y', rid: 'given' },
    ],
  });
  expect(planUnknownComputed(block, { ...config, port: null }, { ...config, port: null }).port).toBe(UNKNOWN);
});

test('update: requiresReplace attributes that change are reported with their paths, unchanged ones are not', () => {
  const prior = { id: '1', name: 'a', port: 1, dns: { relative: 'r', fqdn: 'f' }, rule: [] };
  expect(replacePaths(block, prior, { ...prior, port: 2 })).toEqual([]);
  expect(replacePaths(block, prior, { ...prior, name: 'b' })).toEqual([[{ attribute: 'name' }]]);
  expect(replacePaths(block, prior, { ...prior, dns: { relative: 's', fqdn: 'f' } })).toEqual([
    [{ attribute: 'dns' }, { attribute: 'relative' }],
  ]);
  expect(replacePaths(block, prior, { ...prior, name: UNKNOWN })).toEqual([[{ attribute: 'name' }]]);
});

test('valueEquals: deep, type-aware; unknown equals nothing', () => {
  expect(valueEquals({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toBe(true);
  expect(valueEquals({ a: 1 }, { a: 1, b: null })).toBe(false);
  expect(valueEquals(UNKNOWN, UNKNOWN)).toBe(false);
  expect(valueEquals(new Unknown({ null: false }), 'x')).toBe(false);
  expect(valueEquals(5n, 5n)).toBe(true);
  expect(valueEquals(5n, 5)).toBe(false);
  expect(valueEquals(new PreciseNumber('0.1'), new PreciseNumber('0.1'))).toBe(true);
  expect(valueEquals(new Dynamic('string', 'a'), new Dynamic('string', 'a'))).toBe(true);
  expect(valueEquals(new Dynamic('string', 'a'), new Dynamic(['list', 'string'], ['a']))).toBe(false);
});
