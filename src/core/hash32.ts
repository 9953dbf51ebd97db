/**
 * The small, fast, non-cryptographic 32-bit hashes that the routing engine (client choice), the DNS rate
 * limiter (its table) and the monitor's scheduler (probe phases) share: FNV-1a and murmur3's finalizer.
 * Pure and allocation-free: they run per query.
 */

/** FNV-1a's 32-bit offset basis. */
export const FNV_OFFSET = 0x811c9dc5;
/** FNV-1a's 32-bit prime. */
export const FNV_PRIME = 0x01000193;

/** FNV-1a over the UTF-16 code units of `s`, from the state `h`. */
export function fnvString(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h;
}

/** murmur3's 32-bit finalizer: every input bit affects every output bit (an unsigned result). */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
