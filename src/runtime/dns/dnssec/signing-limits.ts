/**
 * What bounds online signing under a random-name flood (signer.ts): the signature cache's size in bytes and
 * a per-process budget of new signatures for names that do not exist. See docs/dnssec.md, "Under a
 * random-name flood".
 *
 * The limits are per DNS process. `tmkit serve` and `tmkit dns` set them once from `--dnssec-cache-size` and
 * `--dnssec-sign-rate` (`setSigningLimits`, before any DNS worker is forked); they travel in the process
 * environment, so every worker forked by node:cluster (which inherits it) signs under the same limits,
 * whichever code path made its signer. Also here: the signer's figures (`SignerStats`, summed over the DNS
 * workers by `sumSignerStats`).
 */
import type { WireRecord } from '../encode';

export interface SigningLimits {
  /** The signature cache's estimated size bound, in bytes (per DNS process). */
  cacheBytes: number;
  /** New signatures per second for names that do not exist (per DNS process); 0: unlimited. */
  signRate: number;
}

/** 32 MiB of cached signatures, 2,000 new denial signatures per second, per DNS process. */
export const SIGNING_LIMIT_DEFAULTS: Readonly<SigningLimits> = { cacheBytes: 32 * 1024 * 1024, signRate: 2000 };

const ENV_CACHE_BYTES = 'TMKIT_DNSSEC_CACHE_BYTES';
const ENV_SIGN_RATE = 'TMKIT_DNSSEC_SIGN_RATE';

/** Sets this process's signing limits, and those of the DNS workers it forks from now on. */
export function setSigningLimits(l: SigningLimits): void {
  process.env[ENV_CACHE_BYTES] = String(l.cacheBytes);
  process.env[ENV_SIGN_RATE] = String(l.signRate);
}

/** The limits set by `setSigningLimits` (here or in the process that forked this one), else the defaults. */
export function signingLimits(): SigningLimits {
  const read = (name: string, fallback: number): number => {
    const v = Number(process.env[name]);
    return process.env[name] !== undefined && Number.isFinite(v) && v >= 0 ? v : fallback;
  };
  return {
    cacheBytes: read(ENV_CACHE_BYTES, SIGNING_LIMIT_DEFAULTS.cacheBytes),
    signRate: read(ENV_SIGN_RATE, SIGNING_LIMIT_DEFAULTS.signRate),
  };
}

/**
 * Thrown by `ZoneSigner.secure()` when the answer needs a new signature for a name that does not exist and
 * this second's budget is spent. Nothing was signed or cached. The responder answers the query (UDP) with
 * the header and question only, TC set and `rcode` as the rcode, and does not cache that answer: the client
 * asks again over TCP, where the signer signs anyway (`SecureInput.overBudget: 'sign'`).
 */
export class SigningBudgetExceeded extends Error {
  readonly qname: string;
  /** The rcode of the unsigned answer (NXDOMAIN for a name that does not exist). */
  readonly rcode: 'NOERROR' | 'NXDOMAIN';
  constructor(qname: string, rcode: 'NOERROR' | 'NXDOMAIN') {
    // Thrown for most queries of a flood and always caught: no stack trace (capturing one was the largest
    // single cost of a query over the budget, about a sixth of its CPU).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(`dnssec: no signing budget left this second for ${qname}`);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = 'SigningBudgetExceeded';
    this.qname = qname;
    this.rcode = rcode;
  }
}

/** A token bucket of `rate` tokens per second holding at most one second's worth (0: always full). */
export class TokenBucket {
  private tokens: number;
  private at: number;
  constructor(
    readonly rate: number,
    private readonly now: () => number,
  ) {
    this.tokens = rate;
    this.at = now();
  }

  /** Takes one token; false when there is none (nothing taken). */
  take(): boolean {
    if (this.rate <= 0) return true;
    this.fill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Takes one token when there is one (signing that goes ahead over budget still spends what is left). */
  spend(): void {
    if (this.rate <= 0) return;
    this.fill();
    if (this.tokens >= 1) this.tokens -= 1;
  }

  private fill(): void {
    const t = this.now();
    if (t > this.at) {
      this.tokens = Math.min(this.rate, this.tokens + ((t - this.at) / 1000) * this.rate);
      this.at = t;
    }
  }
}

/*
 * Estimated heap bytes (V8, 64-bit), calibrated with --expose-gc on 20,000 cached compact-denial entries
 * (test/runtime/dnssec/flood.test.ts: about 1,700 bytes each, heap and array buffers). Most of an entry is
 * its two small Buffers (the NSEC's RDATA, the RRSIG's): each is a slice of Node's 8 KiB allocation pool,
 * and keeps alive with it the pool space of the short-lived buffers made while signing it, so a Buffer
 * counts for much more than its bytes.
 */
/** A cache entry: its Map slot (with the table's slack), the entry object and its two arrays. */
const ENTRY_BYTES = 400;
/** A record object with four properties. */
const RECORD_BYTES = 64;
/**
 * A Buffer apart from its bytes: the cache keeps its buffers in memory of their own (encode.ts `unpooled`),
 * so this is the Buffer object, its ArrayBuffer and the backing store's header, not a shared slab's 8 KiB.
 */
const BUFFER_BYTES = 130;
/** A denial entry's slot in the signer's index of denials by name (signer.ts `denials`; its name string apart). */
export const DENIAL_INDEX_BYTES = 48;
/** A string's header (one byte per character after it: names and keys are Latin-1). */
const STRING_BYTES = 24;

/** Bytes of a string in the heap. */
export function stringBytes(s: string): number {
  return STRING_BYTES + s.length;
}

/** Bytes of the records of an RRset (or of its RRSIGs). */
export function recordsBytes(records: readonly WireRecord[]): number {
  let n = 0;
  for (const r of records) {
    n += RECORD_BYTES + stringBytes(r.name);
    const d = r.data;
    if (typeof d === 'string') n += stringBytes(d);
    else if (d instanceof Uint8Array) n += BUFFER_BYTES + d.byteLength;
    else n += 200; // SOA data: two names and five numbers
  }
  return n;
}

/** Bytes of a whole cache entry: its key, RRset and signatures (for this window and the next one). */
export function entryBytes(key: string, rrset: readonly WireRecord[], sigs: readonly WireRecord[]): number {
  return ENTRY_BYTES + stringBytes(key) + recordsBytes(rrset) + recordsBytes(sigs);
}

export interface SignerStats {
  /** Signatures made since start (cache misses and background refreshes). */
  signatures: number;
  /** Of those, made ahead of a window by the background refresh. */
  refreshed: number;
  /** RRsets whose signatures came from the cache. */
  cacheHits: number;
  /** RRsets in the signature cache now. */
  cached: number;
  /** The signature cache's estimated size now, in bytes, and its bound. */
  cacheBytes: number;
  cacheBytesLimit: number;
  /** Entries evicted to keep the cache within its bounds (not those dropped at the end of a window). */
  evictions: number;
  /** Answers `secure()` refused (SigningBudgetExceeded): a new denial signature over this second's budget. */
  refused: number;
  /** Denial signatures made over budget because the query asked for it (`overBudget: 'sign'`: TCP). */
  signedOverBudget: number;
  /** When the current window's signatures are next refreshed (ms since the epoch). */
  nextRefresh: number;
  /** The key tag that signs the zone's data, and those that sign the DNSKEY RRset. */
  zoneKeyTag: number;
  keyKeyTags: number[];
  /** The key tags in the DNSKEY RRset. */
  publishedKeyTags: number[];
}

/** Figures of several signers (the DNS workers') as one: counts added, the earliest refresh, the keys of the first. */
export function sumSignerStats(all: SignerStats[]): SignerStats | undefined {
  if (all.length === 0) return undefined;
  const out: SignerStats = {
    ...all[0]!,
    signatures: 0,
    refreshed: 0,
    cacheHits: 0,
    cached: 0,
    cacheBytes: 0,
    cacheBytesLimit: 0,
    evictions: 0,
    refused: 0,
    signedOverBudget: 0,
  };
  for (const s of all) {
    out.signatures += s.signatures;
    out.refreshed += s.refreshed;
    out.cacheHits += s.cacheHits;
    out.cached += s.cached;
    out.cacheBytes += s.cacheBytes;
    out.cacheBytesLimit += s.cacheBytesLimit;
    out.evictions += s.evictions;
    out.refused += s.refused;
    out.signedOverBudget += s.signedOverBudget;
    out.nextRefresh = Math.min(out.nextRefresh, s.nextRefresh);
  }
  return out;
}
