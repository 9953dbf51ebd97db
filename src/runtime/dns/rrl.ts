/**
 * Response Rate Limiting (RRL) for UDP answers, in the design of NSD (`rrl.c`) and Knot (`mod-rrl`), as
 * BCP 140 describes it: a response is accounted to a bucket keyed by (client prefix, response class, class
 * key); a bucket that answers more than `rate` responses a second is limited, and a limited response is
 * either dropped or, every `slip`-th time, "slipped": sent truncated (TC=1, no answer) so that a real
 * resolver retries over TCP, which a spoofed source cannot. The rooms around it decide nothing else: the
 * caller classifies the response ({@link classify}), asks {@link ResponseRateLimiter.decide}, and sends the
 * answer, a truncated answer, or nothing. TCP answers are never rate limited (the caller does not ask).
 *
 * **The table.** A fixed number of slots (`tableSize`, a power of two), preallocated as typed arrays at
 * construction: a spoofed flood from millions of addresses cannot grow it. The key is hashed (FNV-1a over
 * the masked prefix bytes, the class and the class key, seeded per process from `crypto.randomBytes` so an
 * attacker cannot aim collisions; a second, differently seeded lane gives a 32-bit fingerprint). On a
 * collision (the slot holds another fingerprint) the newcomer takes the slot over with a fresh account,
 * as NSD does, and `collisions` counts it. Two keys that also share the fingerprint (one chance in 2^32
 * among those that share a slot) share one account.
 *
 * **The accounting: a credit (token) bucket, as BIND and Knot describe it**, kept at millisecond precision.
 * Each bucket holds a balance of credits that earns `rate` credits a second, continuously, and never holds
 * more than `rate` (so a fresh or rested bucket answers a burst of `rate` at once). A response is answered
 * when the balance is above 0, and every response, answered or limited, debits one credit: as in NSD,
 * whose `rrl_update` counts every query of the bucket whether it was answered or not, the rate measured
 * is the demand, so a bucket flooded above `rate` stays limited for as long as the flood lasts rather
 * than leaking `rate` full answers a second to the victim. The balance never falls below
 * `-window × rate` (BIND's window): a bucket whose flood stops answers again after at most `window`
 * seconds (more than `window` seconds of quiet always suffices). Why not NSD's per-second counter with
 * its `rate = rate / 2 + counter` decay: it counts in whole seconds (a burst that straddles a second
 * boundary passes twice the limit, and a burst's first second passes up to twice the rate, since NSD
 * compares against 2 × qps), and its "window" is fixed by the halving; the credit bucket has no boundary,
 * one parameter for burst (`rate`) and one for memory (`window`), and two numbers a slot. In a burst of
 * N > rate responses within one second, `rate` are answered, plus the credit the bucket earns while the
 * first ones are answered (≈ rate × rate / N more, under 1 when N ≥ rate²): at rate 20 and 2000 in a
 * second, 20 or 21.
 *
 * **Slip.** Each bucket counts its limited responses; the k-th is slipped when `k % slip === 0`
 * (slip 2: every other one, slip 1: all of them, slip 0: none; NSD and Knot roll a random number, a
 * per-bucket count gives the same ratio and exact metrics). Taking a slot over restarts the count.
 *
 * **Log mode** does all the accounting and answers 'pass' always, counting what it would have done
 * (`wouldSlip`, `wouldDrop`): the way to choose a rate on real traffic before enforcing it.
 *
 * **Sustained limiting (for the runtime's webhook events).** A bucket's limited responses form one run
 * while no two of them are more than a second apart. When some bucket's run reaches `sustainedAfter`
 * seconds (default 5), the `onSustained` listeners are called, once, with that bucket's prefix, class
 * and key; then, once no response at all has been limited for `recoveredAfter` seconds (default 30),
 * the `onRecovered` listeners are called, once, and a later sustained run fires `onSustained` again.
 * Recovery is noticed by `decide` and by {@link ResponseRateLimiter.tick}, which the runtime calls from
 * a timer (after an attack there may be no traffic at all to call `decide`). Log mode fires them too
 * (the event says the mode). A listener that throws is ignored: `decide` never throws.
 *
 * **Client prefix.** The address is parsed with the project's IP parser (a `%zone` suffix ignored, an
 * IPv4-mapped IPv6 address, as a dual-stack socket reports an IPv4 client, counted as IPv4) and masked
 * to `ipv4Prefix` / `ipv6Prefix` bits. An address that does not parse (the socket never gives one) is
 * answered and counted as passed, outside any bucket. `exempt` CIDRs are parsed once; an exempt client
 * is never limited and never touches the table.
 *
 * Time is a parameter (`nowMs`, from the runtime's clock); nothing here reads a clock. `decide` allocates
 * nothing for an IPv4 client (for an IPv6 one, the parser's byte array of 16): the masks, the class codes
 * and a scratch buffer for the key are built in the constructor.
 */
import { randomBytes } from 'node:crypto';
import { FNV_PRIME, fmix32 } from '../../core/hash32';
import { formatIPv4, formatIPv6Groups, type IpSyntax, isIpv4Mapped, parseIPv4, parseIpBytes, parsePrefix } from '../../core/net/ip';
import {
  RRL_CLASSES,
  type RrlClass,
  type RrlDecision,
  type RrlOptions,
  type RrlRecoveredEvent,
  type RrlStats,
  type RrlSustainedEvent,
} from './rrl-classes';

export * from './rrl-classes';

/** The byte each class contributes to the key. */
const CLASS_CODE: Readonly<Record<string, number>> = Object.freeze(Object.fromEntries(RRL_CLASSES.map((c, i) => [c, i + 1])));
const ERROR_CODE = CLASS_CODE.error!;

const DEFAULTS = { slip: 2, ipv4Prefix: 24, ipv6Prefix: 56, tableSize: 65536, window: 1, sustainedAfter: 5, recoveredAfter: 30 };
const KNOWN_OPTIONS = new Set([
  'rate',
  'slip',
  'mode',
  'ipv4Prefix',
  'ipv6Prefix',
  'exempt',
  'tableSize',
  'window',
  'sustainedAfter',
  'recoveredAfter',
]);

/** Client addresses as sockets report them: `fe80::1%eth0`, IPv4-mapped IPv6 read as IPv4. */
const CLIENT_SYNTAX: IpSyntax = Object.freeze({ zone: true, unmap: true });

/** The numbers of a slot (8 × 8 bytes: one 64-byte cache line) and where each is. */
const STRIDE = 8;
const FP = 0;
const CREDIT = 1;
const STAMP = 2;
const COUNT = 3;
const RUN = 4;
const LAST = 5;

/** Limited responses more than this far apart start a new run. */
const RUN_GAP_MS = 1000;

/** The largest key bytes hashed: family, 16 prefix bytes, class. */
const KEY_PREFIX_BYTES = 18;

function integerOption(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`RRL option ${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(value) ?? String(value)})`);
  }
  return value;
}

/** Two FNV-1a hash states after a response class and its key ({@link ResponseRateLimiter.classLanes}). */
export interface RrlLanes {
  h1: number;
  h2: number;
}

export class ResponseRateLimiter {
  readonly rate: number;
  readonly slip: number;
  readonly mode: 'enforce' | 'log';
  readonly ipv4Prefix: number;
  readonly ipv6Prefix: number;
  readonly window: number;
  readonly tableSize: number;

  private readonly enforce: boolean;
  private readonly mask: number;
  private readonly floor: number;
  private readonly creditPerMs: number;
  private readonly sustainedAfterMs: number;
  private readonly recoveredAfterMs: number;
  private readonly seed1: number;
  private readonly seed2: number;
  private readonly v4Mask: number;
  /** Per byte of an IPv6 address, the mask of `ipv6Prefix`. */
  private readonly v6Mask: Uint8Array;

  /**
   * The table: {@link STRIDE} numbers a slot, side by side so that one response touches one cache line
   * (a spoofed flood hits slots at random): the key's fingerprint (0: an empty slot), the balance, the
   * time it was computed at, the count of limited responses, the start of the current run of limited
   * responses and the latest limited response.
   */
  private readonly table: Float64Array;

  // Exempt prefixes: IPv4 as (network, mask) pairs, IPv6 as 16 network bytes then 16 mask bytes each.
  private readonly exempt4: Uint32Array;
  private readonly exempt6: Uint8Array;
  private readonly exempt6Count: number;

  /** The key's prefix bytes, hashed before the class key, for the address `keyedIp` (`keyedOk`: it parsed). */
  private readonly scratch = new Uint8Array(KEY_PREFIX_BYTES);
  private scratchLength = 0;
  private keyedIp: string | undefined;
  private keyedOk = false;

  private passed = 0;
  private slipped = 0;
  private dropped = 0;
  private wouldSlip = 0;
  private wouldDrop = 0;

  /** What log mode would have limited so far (slipped or dropped): cheap to read per query. */
  get wouldLimit(): number {
    return this.wouldSlip + this.wouldDrop;
  }
  private exempted = 0;
  private collisions = 0;
  private latestNow = Number.NEGATIVE_INFINITY;
  private lastLimitedMs = Number.NEGATIVE_INFINITY;
  private isSustained = false;
  /** Limited responses counted before the current sustained period's run (the recovered event counts the rest). */
  private limitedBase = 0;
  private readonly sustainedListeners: Array<(e: RrlSustainedEvent) => void> = [];
  private readonly recoveredListeners: Array<(e: RrlRecoveredEvent) => void> = [];

  constructor(options: RrlOptions) {
    if (options === null || typeof options !== 'object') throw new TypeError('RRL options must be an object');
    for (const key of Object.keys(options)) {
      if (!KNOWN_OPTIONS.has(key)) throw new RangeError(`RRL option ${key} is not known (known: ${[...KNOWN_OPTIONS].join(', ')})`);
    }
    this.rate = integerOption('rate', options.rate, 1, 1_000_000);
    this.slip = integerOption('slip', options.slip ?? DEFAULTS.slip, 0, 100);
    if (options.mode !== 'enforce' && options.mode !== 'log') {
      throw new RangeError(`RRL option mode must be 'enforce' or 'log' (got ${JSON.stringify(options.mode) ?? String(options.mode)})`);
    }
    this.mode = options.mode;
    this.enforce = options.mode === 'enforce';
    this.ipv4Prefix = integerOption('ipv4Prefix', options.ipv4Prefix ?? DEFAULTS.ipv4Prefix, 0, 32);
    this.ipv6Prefix = integerOption('ipv6Prefix', options.ipv6Prefix ?? DEFAULTS.ipv6Prefix, 0, 128);
    this.tableSize = integerOption('tableSize', options.tableSize ?? DEFAULTS.tableSize, 16, 4_194_304);
    if ((this.tableSize & (this.tableSize - 1)) !== 0) {
      throw new RangeError(`RRL option tableSize must be a power of two (got ${this.tableSize})`);
    }
    this.window = integerOption('window', options.window ?? DEFAULTS.window, 1, 3600);
    this.sustainedAfterMs = integerOption('sustainedAfter', options.sustainedAfter ?? DEFAULTS.sustainedAfter, 1, 3600) * 1000;
    this.recoveredAfterMs = integerOption('recoveredAfter', options.recoveredAfter ?? DEFAULTS.recoveredAfter, 1, 86400) * 1000;

    this.mask = this.tableSize - 1;
    this.floor = -this.window * this.rate;
    this.creditPerMs = this.rate / 1000;
    this.v4Mask = this.ipv4Prefix === 0 ? 0 : (0xffffffff << (32 - this.ipv4Prefix)) >>> 0;
    this.v6Mask = new Uint8Array(16);
    for (let i = 0; i < 16; i++) this.v6Mask[i] = (0xff00 >> Math.max(0, Math.min(8, this.ipv6Prefix - 8 * i))) & 0xff;

    const seeds = randomBytes(8);
    this.seed1 = seeds.readUInt32LE(0);
    this.seed2 = seeds.readUInt32LE(4);

    this.table = new Float64Array(this.tableSize * STRIDE);

    const exempt = options.exempt ?? [];
    if (!Array.isArray(exempt)) throw new TypeError('RRL option exempt must be an array of CIDR strings');
    const v4: number[] = [];
    const v6: number[] = [];
    exempt.forEach((text: unknown, i) => {
      if (typeof text !== 'string') throw new TypeError(`RRL option exempt[${i}] must be a CIDR string (got ${typeof text})`);
      const parsed = parsePrefix(text.trim());
      if ('error' in parsed) throw new RangeError(`RRL option exempt[${i}] ${JSON.stringify(text)} is not a CIDR: ${parsed.error}`);
      if (parsed.family === 4 || (isIpv4Mapped(parsed) && parsed.length >= 96)) {
        // ::ffff:192.0.2.0/120 is 192.0.2.0/24: clients are unmapped before the match.
        const length = parsed.family === 4 ? parsed.length : parsed.length - 96;
        const net = Number(parsed.value & 0xffffffffn);
        const m = length === 0 ? 0 : (0xffffffff << (32 - length)) >>> 0;
        v4.push((net & m) >>> 0, m);
      } else {
        for (let b = 15; b >= 0; b--) v6.push(Number((parsed.value >> BigInt(8 * b)) & 0xffn));
        for (let b = 0; b < 16; b++) v6.push((0xff00 >> Math.max(0, Math.min(8, parsed.length - 8 * b))) & 0xff);
      }
    });
    this.exempt4 = Uint32Array.from(v4);
    this.exempt6 = Uint8Array.from(v6);
    this.exempt6Count = v6.length / 32;
  }

  /**
   * The fate of one UDP response to `clientIp`: 'pass' (send it), 'slip' (send it truncated, TC=1, no
   * records) or 'drop' (send nothing). `responseClass` and `classKey` come from {@link classify}. In log
   * mode always 'pass'. Never throws.
   */
  decide(clientIp: string, responseClass: RrlClass, classKey: string, nowMs: number): RrlDecision {
    return this.decideWith(clientIp, responseClass, classKey, this.classLanes(responseClass, classKey), nowMs);
  }

  /**
   * The hash lanes of a response class and its key: the part of a bucket's key that is the answer's, not the
   * client's. A cached answer keeps them (admission.ts), so a query hashes only its client's prefix.
   */
  classLanes(responseClass: RrlClass, classKey: string): RrlLanes {
    // Two FNV-1a lanes over the class and the class key (ASCII case folded: names are case-insensitive, and a
    // resolver's 0x20 randomisation must not open new buckets; a trailing dot dropped), then (decideWith) the
    // client's prefix bytes.
    let h1 = this.seed1;
    let h2 = this.seed2;
    const cls = CLASS_CODE[responseClass] ?? ERROR_CODE;
    h1 = Math.imul(h1 ^ cls, FNV_PRIME);
    h2 = Math.imul(h2 ^ cls, FNV_PRIME);
    let end = classKey.length;
    if (end > 0 && classKey.charCodeAt(end - 1) === 46 /* . */) end--;
    for (let i = 0; i < end; i++) {
      let c = classKey.charCodeAt(i);
      if (c >= 65 && c <= 90) c += 32;
      h1 = Math.imul(h1 ^ c, FNV_PRIME);
      h2 = Math.imul(h2 ^ c, FNV_PRIME);
    }
    return { h1, h2 };
  }

  /** {@link decide} with the class's lanes from {@link classLanes} (of this limiter). */
  decideWith(clientIp: string, responseClass: RrlClass, classKey: string, lanes: RrlLanes, nowMs: number): RrlDecision {
    if (nowMs > this.latestNow) this.latestNow = nowMs;
    if (this.isSustained && nowMs - this.lastLimitedMs >= this.recoveredAfterMs) this.recover(nowMs);

    // The key's prefix bytes are a function of the address alone: a client asking again reuses them.
    if (clientIp !== this.keyedIp) {
      this.keyedOk = this.keyPrefix(clientIp);
      this.keyedIp = clientIp;
    }
    if (!this.keyedOk) {
      this.passed++;
      return 'pass';
    }
    if (this.scratchLength === 0) {
      this.passed++;
      this.exempted++;
      return 'pass';
    }

    // The class's lanes continued over the client's prefix bytes.
    let h1 = lanes.h1;
    let h2 = lanes.h2;
    const s = this.scratch;
    for (let i = 0; i < this.scratchLength; i++) {
      const b = s[i]!;
      h1 = Math.imul(h1 ^ b, FNV_PRIME);
      h2 = Math.imul(h2 ^ b, FNV_PRIME);
    }
    // murmur3's finaliser spreads FNV's weak low bits before they index the table.
    const slot = (fmix32(h1) & this.mask) * STRIDE;
    const t = this.table;
    const fp = fmix32(h2 ^ 0x9e3779b9) || 1;

    let credit: number;
    const held = t[slot + FP]!;
    if (held !== fp) {
      if (held !== 0) this.collisions++;
      t[slot + FP] = fp;
      t[slot + COUNT] = 0;
      t[slot + RUN] = Number.NEGATIVE_INFINITY;
      t[slot + LAST] = Number.NEGATIVE_INFINITY;
      t[slot + STAMP] = nowMs;
      credit = this.rate;
    } else {
      credit = t[slot + CREDIT]!;
      const elapsed = nowMs - t[slot + STAMP]!;
      if (elapsed > 0) {
        credit += elapsed * this.creditPerMs;
        if (credit > this.rate) credit = this.rate;
        t[slot + STAMP] = nowMs;
      }
    }

    if (credit > 0) {
      t[slot + CREDIT] = credit - 1;
      this.passed++;
      return 'pass';
    }
    credit -= 1;
    t[slot + CREDIT] = Math.max(credit, this.floor);

    // Limited.
    const k = t[slot + COUNT]! + 1;
    t[slot + COUNT] = k;
    if (nowMs - t[slot + LAST]! > RUN_GAP_MS) t[slot + RUN] = nowMs;
    t[slot + LAST] = nowMs;
    if (nowMs > this.lastLimitedMs) this.lastLimitedMs = nowMs;
    if (!this.isSustained && nowMs - t[slot + RUN]! >= this.sustainedAfterMs) this.sustain(slot, responseClass, classKey, nowMs);

    const slipped = this.slip !== 0 && k % this.slip === 0;
    if (this.enforce) {
      if (slipped) {
        this.slipped++;
        return 'slip';
      }
      this.dropped++;
      return 'drop';
    }
    if (slipped) this.wouldSlip++;
    else this.wouldDrop++;
    return 'pass';
  }

  /** Lets time pass without traffic: fires `onRecovered` when its time has come. Call it from a timer (every few seconds). */
  tick(nowMs: number): void {
    if (nowMs > this.latestNow) this.latestNow = nowMs;
    if (this.isSustained && nowMs - this.lastLimitedMs >= this.recoveredAfterMs) this.recover(nowMs);
  }

  /** Calls `listener` once each time some bucket has been limited for `sustainedAfter` seconds (see the module comment). Returns an unsubscribe function. */
  onSustained(listener: (event: RrlSustainedEvent) => void): () => void {
    this.sustainedListeners.push(listener);
    return () => {
      const i = this.sustainedListeners.indexOf(listener);
      if (i >= 0) this.sustainedListeners.splice(i, 1);
    };
  }

  /** Calls `listener` once after each sustained period, when nothing has been limited for `recoveredAfter` seconds. Returns an unsubscribe function. */
  onRecovered(listener: (event: RrlRecoveredEvent) => void): () => void {
    this.recoveredListeners.push(listener);
    return () => {
      const i = this.recoveredListeners.indexOf(listener);
      if (i >= 0) this.recoveredListeners.splice(i, 1);
    };
  }

  /** Cumulative counters (for /metrics: diff them between scrapes); `bucketsInUse` scans the table (cheap at a scrape, not per query). */
  stats(): RrlStats {
    let inUse = 0;
    const now = this.latestNow;
    const t = this.table;
    for (let i = 0; i < t.length; i += STRIDE) {
      if (t[i + FP] === 0) continue;
      const elapsed = now - t[i + STAMP]!;
      if (t[i + CREDIT]! + (elapsed > 0 ? elapsed * this.creditPerMs : 0) < this.rate) inUse++;
    }
    return {
      passed: this.passed,
      slipped: this.slipped,
      dropped: this.dropped,
      wouldSlip: this.wouldSlip,
      wouldDrop: this.wouldDrop,
      exempted: this.exempted,
      bucketsInUse: inUse,
      collisions: this.collisions,
      tableSize: this.tableSize,
      sustained: this.isSustained,
      lastLimitedMs: this.lastLimitedMs === Number.NEGATIVE_INFINITY ? undefined : this.lastLimitedMs,
    };
  }

  /**
   * Writes the masked client prefix into the scratch buffer (family byte, then the address bytes);
   * length 0 for an exempt client; false when the address does not parse.
   */
  private keyPrefix(clientIp: string): boolean {
    const s = this.scratch;
    if (clientIp.indexOf(':') < 0) {
      const v = parseIPv4(clientIp);
      if (v === undefined) return false;
      return this.keyV4(v);
    }
    const parsed = parseIpBytes(clientIp, CLIENT_SYNTAX);
    if (parsed === undefined) return false;
    const b = parsed.bytes;
    if (parsed.family === 4) return this.keyV4(((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0);
    const ex = this.exempt6;
    for (let e = 0; e < this.exempt6Count; e++) {
      const at = e * 32;
      let hit = true;
      for (let i = 0; i < 16; i++) {
        if ((b[i]! & ex[at + 16 + i]!) !== ex[at + i]) {
          hit = false;
          break;
        }
      }
      if (hit) {
        this.scratchLength = 0;
        return true;
      }
    }
    s[0] = 6;
    const m = this.v6Mask;
    for (let i = 0; i < 16; i++) s[1 + i] = b[i]! & m[i]!;
    this.scratchLength = 17;
    return true;
  }

  private keyV4(v: number): boolean {
    const ex = this.exempt4;
    for (let e = 0; e < ex.length; e += 2) {
      if ((v & ex[e + 1]!) >>> 0 === ex[e]) {
        this.scratchLength = 0;
        return true;
      }
    }
    const p = (v & this.v4Mask) >>> 0;
    const s = this.scratch;
    s[0] = 4;
    s[1] = p >>> 24;
    s[2] = (p >>> 16) & 255;
    s[3] = (p >>> 8) & 255;
    s[4] = p & 255;
    this.scratchLength = 5;
    return true;
  }

  /** The scratch key's prefix as text (only when an event fires). */
  private prefixText(): string {
    const s = this.scratch;
    if (s[0] === 4) return `${formatIPv4(((s[1]! << 24) | (s[2]! << 16) | (s[3]! << 8) | s[4]!) >>> 0)}/${this.ipv4Prefix}`;
    const groups: number[] = [];
    for (let i = 0; i < 8; i++) groups.push((s[1 + 2 * i]! << 8) | s[2 + 2 * i]!);
    return `${formatIPv6Groups(groups)}/${this.ipv6Prefix}`;
  }

  private limitedTotal(): number {
    return this.slipped + this.dropped + this.wouldSlip + this.wouldDrop;
  }

  private sustain(slot: number, responseClass: RrlClass, key: string, nowMs: number): void {
    this.isSustained = true;
    const limited = this.table[slot + COUNT]!;
    // The response being decided is counted by the caller after this: it belongs to the period.
    this.limitedBase = this.limitedTotal() - limited + 1;
    const event: RrlSustainedEvent = {
      mode: this.mode,
      prefix: this.prefixText(),
      class: responseClass,
      key,
      sinceMs: this.table[slot + RUN]!,
      nowMs,
      limited,
    };
    for (const listener of [...this.sustainedListeners]) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own: the answer path goes on.
      }
    }
  }

  private recover(nowMs: number): void {
    this.isSustained = false;
    const event: RrlRecoveredEvent = {
      mode: this.mode,
      lastLimitedMs: this.lastLimitedMs,
      nowMs,
      limited: this.limitedTotal() - this.limitedBase,
    };
    for (const listener of [...this.recoveredListeners]) {
      try {
        listener(event);
      } catch {
        // As above.
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Classification
