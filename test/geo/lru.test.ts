import { Lru } from '../../src/geo/lru';

test('keeps what was used since the last rotation, drops what was not, and stays bounded', () => {
  const lru = new Lru<number, string>(3);
  for (const k of [1, 2, 3]) lru.set(k, `v${k}`);
  expect(lru.get(1)).toBe('v1'); // young hit
  lru.set(4, 'v4'); // rotation: {1,2,3} become old, 4 young
  expect(lru.get(2)).toBe('v2'); // old hit: moved to young
  lru.set(5, 'v5');
  lru.set(6, 'v6'); // young {4,2,5} full → rotation: old {4,2,5}, young {6}; 1 and 3 dropped
  expect(lru.get(1)).toBeUndefined();
  expect(lru.get(3)).toBeUndefined();
  expect([2, 4, 5, 6].map((k) => lru.get(k))).toEqual(['v2', 'v4', 'v5', 'v6']);
  expect(lru.size).toBeLessThanOrEqual(6);
});

test('never holds more than 2 × max entries however many are inserted', () => {
  const lru = new Lru<number, number>(100);
  for (let i = 0; i < 10_000; i++) {
    lru.set(i, i);
    expect(lru.size).toBeLessThanOrEqual(200);
  }
  expect(lru.get(9_999)).toBe(9_999);
  expect(lru.get(0)).toBeUndefined();
});

test('set() on an existing key replaces the value without duplicating it', () => {
  const lru = new Lru<string, number>(2);
  lru.set('a', 1);
  lru.set('b', 2);
  lru.set('c', 3); // rotation: old {a,b}
  lru.set('a', 10); // from old to young
  expect(lru.get('a')).toBe(10);
  expect(lru.size).toBe(3);
  lru.set('a', 11);
  expect(lru.get('a')).toBe(11);
  expect(lru.size).toBe(3);
  lru.clear();
  expect(lru.size).toBe(0);
});

test.each([0, -1, 1.5, NaN])('size %s is rejected', (n) => {
  expect(() => new Lru(n)).toThrow(RangeError);
});
