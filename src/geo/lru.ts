/**
 * A bounded cache with least-recently-used eviction in two generations (the hashlru / quick-lru scheme):
 * new entries go to the young map; when it holds `max` entries it becomes the old map and the previous old
 * map is dropped; a hit in the old map moves the entry to the young one. A hit in the young map is a plain
 * Map.get (no delete + re-insert on every hit, which is what makes a strict LRU over Map slow when it is
 * large). Holds at most 2 × max entries; anything used since the last rotation survives the next one.
 */
export class Lru<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`LRU size must be a positive integer, got ${max}`);
  }

  /** Entries held (young + old; an entry is in one of them only). */
  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: K): V | undefined {
    const v = this.young.get(key);
    if (v !== undefined) return v;
    const o = this.old.get(key);
    if (o !== undefined) {
      this.old.delete(key);
      this.insert(key, o);
    }
    return o;
  }

  set(key: K, value: V): this {
    if (this.young.has(key)) this.young.set(key, value);
    else {
      this.old.delete(key);
      this.insert(key, value);
    }
    return this;
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }

  private insert(key: K, value: V): void {
    if (this.young.size >= this.max) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }
}
