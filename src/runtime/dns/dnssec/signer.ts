/**
 * Online signing: the zone's RRSIGs, made when an answer is first encoded and cached by RRset content and
 * validity window, and the DNSSEC records an answer gains (DNSKEY at the apex, the compact-denial NSEC of
 * negative answers). The DNS responder (../dns/responder.ts) calls `secure()` on a cache miss only; every
 * later query for the same question is a copy of the encoded answer, so a signature costs once per RRset
 * content per window, not per query.
 *
 * Validity windows: time is cut into windows of `refreshSeconds` (default 1 day). A signature made in the
 * window starting at W has inception W − `backdateSeconds` (default 1 h, for resolvers whose clock is
 * behind) and expiration W + `validitySeconds` (default 7 days). So every signature served has at least
 * validity − refresh (6 days) left, and all signatures of a window are the same bytes on every node with the
 * same keys (ECDSA signatures differ per signing, but validity and content do not). `leadSeconds` (default
 * 10 min) before a window ends, the signatures used in it are made again for the next window in the
 * background, in small batches between queries; when the window starts, `generation` moves on and the
 * responder re-encodes (does not re-sign) its cached answers with them.
 *
 * Denial of existence: compact denial (RFC 9824). A negative answer says the queried name exists with no
 * data of the asked type: one NSEC owned by the name, next name `\000.<name>` (covering no other name, so no
 * zone walk), signed like any RRset. NXDOMAIN becomes NOERROR with the NXNAME type in the bitmap, unless the
 * query set the Compact Answers OK flag (then NXDOMAIN). A NODATA bitmap lists the types the name has for
 * this client (an ANY lookup), never the asked type and never CNAME, plus RRSIG and NSEC (and DNSKEY at the
 * apex): the proof holds for exactly this answer, as the answer itself does (health and the client decide it).
 *
 * Under a random-name flood (signing-limits.ts): the cache is bounded in estimated bytes (`cacheBytes`,
 * least recently used out first: a hit moves its entry to the end of the Map), and new signatures for the
 * NSEC of names that do not exist are bounded per second (`signRate`, a token bucket). Over that budget
 * `secure()` throws `SigningBudgetExceeded` and signs nothing; everything else (the profiles' RRsets, SOA,
 * NS, DNSKEY, glue, NODATA proofs of names that exist: a bounded set) is signed whatever the budget, so the
 * names that exist are never starved.
 */
import { unpooled, type WireRecord } from '../encode';
import { activeKeys, loadKeySet, signData, type ActiveKeys, type KeySetDocument, type ZoneKey } from './keys';
import { TYPE, canonicalName, canonicalRrset, immediateSuccessor, labelCount, nsecRdata, rrsigPrefix, typeCode } from './records';
import { systemClock } from '../../clock';
import { Doorkeeper } from '../doorkeeper';
import {
  DENIAL_INDEX_BYTES,
  SIGNING_LIMIT_DEFAULTS,
  SigningBudgetExceeded,
  TokenBucket,
  entryBytes,
  recordsBytes,
  signingLimits,
  stringBytes,
  type SignerStats,
} from './signing-limits';

export {
  SIGNING_LIMIT_DEFAULTS,
  SigningBudgetExceeded,
  setSigningLimits,
  sumSignerStats,
  type SignerStats,
  type SigningLimits,
} from './signing-limits';

export interface SignerOptions {
  /** The zone apex (lower case, no trailing dot). */
  zone: string;
  /** Signature lifetime from the start of its window. Default 7 days. */
  validitySeconds?: number;
  /** Window length: signatures are made again this often. Default 1 day. */
  refreshSeconds?: number;
  /** Inception this long before the window start. Default 1 h. */
  backdateSeconds?: number;
  /** Start re-signing this long before a window ends. Default 10 min (must stay below the backdate). */
  leadSeconds?: number;
  /** Signatures kept (RRsets). Default 100,000. */
  cacheSize?: number;
  /** The signature cache's bound in estimated bytes. Default 32 MiB. */
  cacheBytes?: number;
  /** New signatures per second for the NSEC of names that do not exist; 0: unlimited. Default 2,000. */
  signRate?: number;
  /** TTL of the DNSKEY RRset. Default 300 (the zone's SOA/NS TTL). */
  dnskeyTtl?: number;
  /** The clock (ms since the epoch). Default the system clock (clock.ts). */
  now?: () => number;
}

interface CacheEntry {
  rrset: WireRecord[];
  window: number;
  sigs: WireRecord[];
  /** Signatures for the next window, made by the background refresh. */
  next?: WireRecord[];
  used: boolean;
  /** Estimated bytes (signing-limits.ts), counted in `ZoneSigner.bytes`. */
  bytes: number;
  /**
   * Set for the NSEC of a name that does not exist (signed under the budget, not refreshed ahead of a window):
   * its key in `ZoneSigner.denials` (its TTL and name).
   */
  denialName?: string;
}

/** The sections of an answer, after `secure()`. */
export interface SecuredAnswer {
  rcode: 'NOERROR' | 'NXDOMAIN';
  answer: WireRecord[];
  authority: WireRecord[];
  additional: WireRecord[];
}

export interface SecureInput {
  /** The question name, lower case, no trailing dot. */
  qname: string;
  qtype: number;
  rcode: 'NOERROR' | 'NXDOMAIN';
  answer: readonly WireRecord[];
  authority: readonly WireRecord[];
  additional: readonly WireRecord[];
  /** The query's DO bit: without it only the DNSKEY RRset is added (no signatures, no NSEC). */
  dnssecOk: boolean;
  /** The query's Compact Answers OK flag (RFC 9824 §4): NXDOMAIN keeps its rcode. */
  compactOk: boolean;
  /** The types the name has for this client (from an ANY lookup), for the NSEC of a NODATA answer. */
  typesAt: () => Iterable<number>;
  /** TTL of the NSEC (the negative TTL: min(SOA TTL, SOA MINIMUM), RFC 9824 §3). */
  negativeTtl: number;
  /**
   * When the answer needs a new signature for a name that does not exist and the budget is spent:
   * 'refuse' (default) throws `SigningBudgetExceeded`; 'sign' signs anyway (a TCP query, the retry of a TC
   * answer: its client has shown its address).
   */
  overBudget?: 'refuse' | 'sign';
}

const DAY = 86_400;
/** Signature validity, window length, inception backdate and how early a window's signatures are made. */
export const SIGNING_DEFAULTS = { validitySeconds: 7 * DAY, refreshSeconds: DAY, backdateSeconds: 3600, leadSeconds: 600 } as const;

export class ZoneSigner {
  readonly zone: string;
  /** Moves on whenever cached signed answers are stale: a new window, or other keys. */
  generation = 0;
  private readonly signerName: Buffer;
  private readonly validity: number;
  private readonly refresh: number;
  private readonly backdate: number;
  private readonly lead: number;
  private readonly cacheSize: number;
  private readonly cacheBytes: number;
  private readonly budget: TokenBucket;
  /** The cache's estimated size (the sum of its entries' `bytes`). */
  private bytes = 0;
  /**
   * The denial NSEC `secure()` charged for and is about to sign: its cache key, its name in `denials`, and
   * whether the doorkeeper admits it (rrsigs() caches it, as a denial entry, only then).
   */
  private pendingDenial: { key: string; name: string; admitted: boolean } | undefined;
  /**
   * The cached denial NSECs by TTL and name (`${ttl} ${qname}`: what an NXDOMAIN's NSEC is made of) to their
   * cache keys. Over the budget, a random name is refused with one Map lookup of a short key: no NSEC is built
   * and no canonical cache key computed for an answer that goes out without it.
   */
  private readonly denials = new Map<string, string>();
  /** The denials asked for lately: one is cached from its name's second query on (a refused one counts). */
  private readonly doorkeeper = new Doorkeeper();
  private readonly dnskeyTtl: number;
  private readonly now: () => number;
  private keys: ZoneKey[] = [];
  private active!: ActiveKeys;
  private dnskeys: WireRecord[] = [];
  private window: number;
  private cache = new Map<string, CacheEntry>();
  private timer: NodeJS.Timeout | undefined;
  private keyTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private counters = { signatures: 0, refreshed: 0, cacheHits: 0, evictions: 0, refused: 0, signedOverBudget: 0 };

  constructor(keys: readonly ZoneKey[], o: SignerOptions) {
    this.zone = o.zone;
    this.signerName = canonicalName(o.zone);
    this.validity = o.validitySeconds ?? SIGNING_DEFAULTS.validitySeconds;
    this.refresh = o.refreshSeconds ?? SIGNING_DEFAULTS.refreshSeconds;
    this.backdate = o.backdateSeconds ?? SIGNING_DEFAULTS.backdateSeconds;
    this.lead = Math.min(o.leadSeconds ?? SIGNING_DEFAULTS.leadSeconds, Math.max(0, this.backdate - 1), this.refresh / 2);
    if (this.validity <= this.refresh)
      throw new Error(`dnssec: the signature validity (${this.validity} s) must be longer than the refresh interval (${this.refresh} s)`);
    this.cacheSize = o.cacheSize ?? 100_000;
    this.cacheBytes = o.cacheBytes ?? SIGNING_LIMIT_DEFAULTS.cacheBytes;
    this.dnskeyTtl = o.dnskeyTtl ?? 300;
    this.now = o.now ?? systemClock.now;
    this.budget = new TokenBucket(o.signRate ?? SIGNING_LIMIT_DEFAULTS.signRate, this.now);
    this.window = this.windowAt(this.now());
    this.setKeys(keys);
    this.schedule();
  }

  /** New keys (a rollover step, or another node's change): every signature is made again as needed. */
  setKeys(keys: readonly ZoneKey[]): void {
    this.keys = [...keys];
    this.apply();
  }

  /** Stops the timers (the cache stays usable). */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.keyTimer) clearTimeout(this.keyTimer);
  }

  stats(): SignerStats {
    return {
      ...this.counters,
      cached: this.cache.size,
      cacheBytes: this.bytes,
      cacheBytesLimit: this.cacheBytes,
      nextRefresh: this.nextRefresh(),
      zoneKeyTag: this.active.zoneSigner.keyTag,
      keyKeyTags: this.active.keySigners.map((k) => k.keyTag),
      publishedKeyTags: this.active.published.map((k) => k.keyTag),
    };
  }

  /** When the signatures in use are next made again: the coming window's, or (once those are made) the one after. */
  private nextRefresh(): number {
    const ahead = ((this.window + 1) * this.refresh - this.lead) * 1000;
    return this.now() < ahead ? ahead : ahead + this.refresh * 1000;
  }

  /** The DNSKEY RRset served now. */
  dnskeyRecords(): readonly WireRecord[] {
    return this.dnskeys;
  }

  /** The RRSIG records of one RRset (same owner, type and TTL), from the cache or signed now. */
  rrsigs(rrset: WireRecord[]): WireRecord[] {
    // A window that began before its timer fired (a busy event loop) begins now.
    if (this.windowAt(this.now()) > this.window) this.advance();
    const key = cacheKey(rrset);
    let e = this.cache.get(key);
    if (e !== undefined && e.window === this.window) {
      this.counters.cacheHits++;
      e.used = true;
      // Least recently used out first: a hit moves the entry to the end of the Map's order.
      this.cache.delete(key);
      this.cache.set(key, e);
      return e.sigs;
    }
    const sigs = this.sign(rrset, this.window);
    if (e !== undefined) this.drop(key, e);
    // The denial NSEC secure() charged for: kept with its entry in the index of denials by name, which counts;
    // and only for a name asked before (doorkeeper.ts): a random name's signatures are used once and not kept.
    const denial = this.pendingDenial?.key === key ? this.pendingDenial : undefined;
    if (denial !== undefined && !denial.admitted) return sigs;
    const denialName = denial?.name;
    const bytes = entryBytes(key, rrset, sigs) + (denialName !== undefined ? DENIAL_INDEX_BYTES + stringBytes(denialName) : 0);
    // Room first (oldest out); an entry larger than the whole bound is used and not kept.
    if (bytes <= this.cacheBytes) {
      this.makeRoom(bytes);
      // The RRset as the cache keeps it: its data in memory of its own (the caller's may be slices of shared slabs).
      e = { rrset: rrset.map(ownData), window: this.window, sigs, used: true, bytes };
      if (denialName !== undefined) {
        e.denialName = denialName;
        this.denials.set(denialName, key);
      }
      this.cache.set(key, e);
      this.bytes += bytes;
    }
    return sigs;
  }

  /** The answer's sections with the DNSSEC records the query gets (see the module comment). */
  secure(i: SecureInput): SecuredAnswer {
    let rcode = i.rcode;
    let answer = i.answer;
    let authority = i.authority;
    const apex = i.qname === this.zone;
    if (apex && i.qtype === TYPE.DNSKEY) {
      answer = this.dnskeys;
      authority = [];
    } else if (apex && i.qtype === 255) answer = [...answer, ...this.dnskeys];
    if (!i.dnssecOk) return { rcode, answer: [...answer], authority: [...authority], additional: [...i.additional] };
    if (answer.length === 0) {
      // The NSEC of a name that does not exist is new for every random name: the one signature under the budget.
      const charged = i.rcode === 'NXDOMAIN' ? this.charge(i) : undefined;
      const nsec = this.nsec(i, apex);
      if (charged !== undefined) this.pendingDenial = { key: cacheKey([nsec]), ...charged };
      if (i.qtype === TYPE.NSEC) {
        // The NSEC itself is the answer to an NSEC query: as a NODATA proof its own bitmap would deny it.
        answer = [nsec];
        authority = [];
        rcode = 'NOERROR';
      } else {
        authority = [...authority, nsec];
        if (rcode === 'NXDOMAIN' && !i.compactOk) rcode = 'NOERROR';
      }
    }
    try {
      return {
        rcode,
        answer: this.signSection(answer),
        authority: this.signSection(authority),
        additional: this.signSection(i.additional),
      };
    } finally {
      this.pendingDenial = undefined;
    }
  }

  // ------------------------------------------------------------------------------------------------

  /**
   * Takes one token of the budget when the denial NSEC of `i.qname` needs a new signature (not cached for this
   * window): its name in `denials` and whether the doorkeeper admits it to the cache. Undefined when it is
   * cached. Throws SigningBudgetExceeded when there is no token (see SecureInput.overBudget).
   */
  private charge(i: SecureInput): { name: string; admitted: boolean } | undefined {
    if (this.windowAt(this.now()) > this.window) this.advance();
    const name = `${i.negativeTtl} ${i.qname}`;
    // Asked before (refused or not): this time its signatures are kept. Marked either way.
    const admitted = this.doorkeeper.seen(name);
    const key = this.denials.get(name);
    if (key !== undefined && this.cache.get(key)?.window === this.window) return undefined;
    if (!this.budget.take()) {
      if (i.overBudget !== 'sign') {
        this.counters.refused++;
        throw new SigningBudgetExceeded(i.qname, i.rcode);
      }
      this.counters.signedOverBudget++;
    }
    return { name, admitted };
  }

  private nsec(i: SecureInput, apex: boolean): WireRecord {
    const types = new Set<number>([TYPE.RRSIG, TYPE.NSEC]);
    if (i.rcode === 'NXDOMAIN') {
      types.add(TYPE.NXNAME);
    } else {
      for (const t of i.typesAt()) types.add(t);
      if (apex) types.add(TYPE.DNSKEY);
      // The proof is for this answer: the asked type is absent, and a CNAME would have been the answer.
      if (i.qtype !== TYPE.NSEC) types.delete(i.qtype);
      types.delete(TYPE.CNAME);
    }
    return { type: 'NSEC', name: i.qname, ttl: i.negativeTtl, data: nsecRdata(immediateSuccessor(canonicalName(i.qname)), types) };
  }

  /** Each RRset of a section followed by its RRSIGs (records of one RRset kept together, first-seen order). */
  private signSection(records: readonly WireRecord[]): WireRecord[] {
    if (records.length === 0) return [];
    const sets = new Map<string, WireRecord[]>();
    for (const r of records) {
      const k = `${r.name.toLowerCase()}\u0000${r.type}`;
      const s = sets.get(k);
      if (s) s.push(r);
      else sets.set(k, [r]);
    }
    const out: WireRecord[] = [];
    for (let rrset of sets.values()) {
      // RFC 2181 §5.2: one TTL per RRset (the lowest), the one the signature covers.
      const ttl = Math.min(...rrset.map((r) => r.ttl));
      if (rrset.some((r) => r.ttl !== ttl)) rrset = rrset.map((r) => ({ ...r, ttl }) as WireRecord);
      out.push(...rrset, ...this.rrsigs(rrset));
    }
    return out;
  }

  private sign(rrset: WireRecord[], window: number): WireRecord[] {
    const first = rrset[0]!;
    const type = typeCode(first);
    const signers = type === TYPE.DNSKEY ? this.active.keySigners : [this.active.zoneSigner];
    const data = canonicalRrset(rrset);
    const start = window * this.refresh;
    return signers.map((key) => {
      const prefix = rrsigPrefix({
        typeCovered: type,
        algorithm: key.algorithm,
        labels: labelCount(first.name),
        originalTtl: first.ttl,
        expiration: start + this.validity,
        inception: start - this.backdate,
        keyTag: key.keyTag,
        signer: this.signerName,
      });
      this.counters.signatures++;
      return {
        type: 'RRSIG',
        name: first.name,
        ttl: first.ttl,
        // Kept in the cache: memory of its own, not a slice of a shared slab (encode.ts unpooled).
        data: unpooled(Buffer.concat([prefix, signData(key, Buffer.concat([prefix, data]))])),
      };
    });
  }

  private windowAt(ms: number): number {
    return Math.floor(ms / 1000 / this.refresh);
  }

  /** Recomputes which keys serve now, and arms a timer for the next key event. */
  private apply(): void {
    const t = this.now();
    this.active = activeKeys(this.keys, t);
    const owner = this.zone;
    this.dnskeys = this.active.published.map((k) => ({ type: 'DNSKEY', name: owner, ttl: this.dnskeyTtl, data: k.dnskey }));
    this.cache.clear();
    this.denials.clear();
    this.bytes = 0;
    this.generation++;
    if (this.keyTimer) clearTimeout(this.keyTimer);
    this.keyTimer = undefined;
    if (Number.isFinite(this.active.nextChange) && !this.closed) {
      this.keyTimer = setTimeout(() => this.apply(), Math.min(Math.max(0, this.active.nextChange - t) + 5, 0x7fffffff));
      this.keyTimer.unref();
    }
  }

  /** The next step of the window cycle: re-sign ahead (at end − lead), then start the new window (at end). */
  private schedule(): void {
    if (this.closed) return;
    const end = (this.window + 1) * this.refresh * 1000;
    const ahead = end - this.lead * 1000;
    const t = this.now();
    const at = t < ahead ? ahead : end;
    this.timer = setTimeout(
      () => {
        if (this.now() < end) this.refreshAhead(this.window + 1, () => this.schedule());
        else {
          this.advance();
          this.schedule();
        }
      },
      Math.min(Math.max(0, at - t), 0x7fffffff),
    );
    this.timer.unref();
  }

  /** Signs the RRsets used in this window for `next`, 64 at a time between other work. */
  private refreshAhead(next: number, done: () => void): void {
    // Denial NSECs are not: a random name is not asked again, and one that is is signed again under the budget.
    const todo = [...this.cache].filter(([, e]) => e.used && e.denialName === undefined);
    const step = (from: number): void => {
      if (this.closed) return;
      for (let i = from; i < Math.min(from + 64, todo.length); i++) {
        const [key, e] = todo[i]!;
        // Evicted since (or replaced): nothing to sign.
        if (this.cache.get(key) !== e) continue;
        if (e.window === next - 1 && e.next === undefined) {
          e.next = this.sign(e.rrset, next);
          this.counters.refreshed += e.next.length;
          // Out and in again with its new size (the most recently used: it was used in this window).
          this.drop(key, e);
          e.bytes += recordsBytes(e.next);
          this.makeRoom(e.bytes);
          this.cache.set(key, e);
          this.bytes += e.bytes;
        }
      }
      if (from + 64 < todo.length) setImmediate(() => step(from + 64));
      else done();
    };
    step(0);
  }

  /** A new window: signatures made ahead take over, RRsets unused in the last window leave the cache. */
  private advance(): void {
    const w = this.windowAt(this.now());
    if (w === this.window) return;
    for (const [k, e] of this.cache) {
      if (e.next !== undefined && w === e.window + 1) {
        e.window = w;
        e.sigs = e.next;
        delete e.next;
        e.used = false;
        this.bytes -= e.bytes;
        e.bytes = entryBytes(k, e.rrset, e.sigs);
        this.bytes += e.bytes;
      } else if (!e.used || e.window !== w) {
        this.drop(k, e);
      }
    }
    this.window = w;
    this.generation++;
  }

  private drop(key: string, e: CacheEntry): void {
    this.cache.delete(key);
    this.bytes -= e.bytes;
    if (e.denialName !== undefined && this.denials.get(e.denialName) === key) this.denials.delete(e.denialName);
  }

  /** Evicts the least recently used entries until one more of `bytes` fits both bounds. */
  private makeRoom(bytes: number): void {
    if (this.cache.size < this.cacheSize && this.bytes + bytes <= this.cacheBytes) return;
    // A sixteenth of the count bound at a time (as before), and at least what the bytes bound needs.
    let count = this.cache.size >= this.cacheSize ? Math.max(1, this.cacheSize >> 4) : 0;
    for (const [k, e] of this.cache) {
      if (count <= 0 && this.bytes + bytes <= this.cacheBytes) break;
      this.drop(k, e);
      this.counters.evictions++;
      count--;
    }
  }
}

/** A signer for `doc` (the key set of `zone`), or `signer` given the new keys (this process and every DNS worker). */
export function signerFor(zone: string, doc: KeySetDocument, signer: ZoneSigner | undefined): ZoneSigner {
  const { keys } = loadKeySet(doc, 'the DNSSEC key set');
  if (signer === undefined) return new ZoneSigner(keys, { zone, ...signingLimits() });
  signer.setKeys(keys);
  return signer;
}

/** `r` with binary data in memory of its own (text and SOA data are strings and numbers already). */
function ownData(r: WireRecord): WireRecord {
  return r.data instanceof Uint8Array ? ({ ...r, data: unpooled(r.data) } as WireRecord) : r;
}

/** The signature cache's key of an RRset: its type and canonical content (owner, TTL, sorted RDATA). */
function cacheKey(rrset: readonly WireRecord[]): string {
  return `${rrset[0]!.type}\u0000${canonicalRrset(rrset as WireRecord[]).toString('latin1')}`;
}
