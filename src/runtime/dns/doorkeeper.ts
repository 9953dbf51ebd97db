/**
 * Which names were seen lately, for caches that admit a name that does not exist only on its second sight
 * (TinyLFU's "doorkeeper"). Under a random-name flood every name is new and never asked again: cached, each
 * would push a real name's answer out and leave the cache's old generation as garbage when evicted. So the
 * responder caches an NXDOMAIN answer, and the signer a denial NSEC's signatures, only for a name seen before;
 * a name asked twice (a typo a resolver keeps asking for) is cached from its second query on.
 *
 * One bit per hashed name (FNV-1a, core/hash32.ts) in a fixed array, cleared once it has taken `capacity`
 * names: fixed memory, nothing allocated per name. A false positive admits a name on its first sight, as every
 * name was before.
 */
import { FNV_OFFSET, fnvString } from '../../core/hash32';

export class Doorkeeper {
  private readonly words: Uint32Array;
  private readonly mask: number;
  private added = 0;

  /** `bits`: log2 of the array's size in bits (default 2^20, 128 KiB); cleared after `capacity` names (default an eighth of the bits). */
  constructor(
    bits = 20,
    private readonly capacity = 1 << (bits - 3),
  ) {
    this.words = new Uint32Array(1 << (bits - 5));
    this.mask = (1 << bits) - 1;
  }

  /** Whether `name` was seen since the array was last cleared; it is marked seen either way. */
  seen(name: string): boolean {
    const bit = fnvString(FNV_OFFSET, name) & this.mask;
    const w = bit >>> 5;
    const m = 1 << (bit & 31);
    if ((this.words[w]! & m) !== 0) return true;
    if (++this.added > this.capacity) {
      this.words.fill(0);
      this.added = 1;
    }
    this.words[w]! |= m;
    return false;
  }
}
