/**
 * The responder's cache of pre-encoded answers (responder.ts): what one entry holds, and the pure helpers
 * that pick a variant by probability, key the dynamic cache, patch headers and fit an answer to its query.
 *
 * Encoding (`encode.ts`): names are compressed (RFC 1035 §4.1.4). The question always sits at offset 12
 * and keeps its length when its case is patched, so pointers into it stay valid for every query; names
 * equal to a tail of the question read back in the query's case, as the question itself does.
 *
 * Cache: key = the question in wire form with the name lower-cased. An entry holds every outcome the zone
 * lookup returned, pre-encoded, with cumulative probabilities. When the
 * resolution depends on the client address (Geographic, Performance, Subnet, subnet override) the key is
 * marked dynamic: each query is resolved for its own client (cheap), and the encoded bytes are cached by
 * answer content (sections, endpoints) in a bounded LRU, never by client, so one client's answer cannot
 * reach another. Such a resolution is already the client's own: Performance's even split over clients is
 * decided inside the routing engine by a hash of the client (one outcome for that client); the RNG only
 * picks among outcomes that are random per query (Weighted or MultiValue below it). Both caches are
 * dropped on every snapshot change.
 *
 * Counting (for /metrics): every encoded answer holds references to its interned counters (profile, rcode,
 * qtype; and one per leaf endpoint answered), so a query costs a few increments, no allocation and no
 * callback; `counts()` copies them out at scrape time.
 *
 */
import type { Rng } from '../../core/ports';
import type { ExplanationStep } from '../../core/routing/types';
import type { ZoneAnswer, ZoneOutcome, ZoneQuestion, ZoneRecord } from '../../core/zone';
import type { ZoneSigner } from './dnssec/signer';
import type { AnswerTally, QueryTally } from './counts';
import { TYPE } from './dnssec/records';
import type { TrafficTally } from './traffic';
import type { ResponseRateLimiter, RrlClass, RrlLanes } from './rrl';
import type { Transport } from './responder-options';
import { HEADER_LENGTH, optLength, writeOpt, type Edns } from './wire';

/** Pre-encoded response for one outcome: header (QR, AA, rcode; RD 0; ARCOUNT without OPT) + question + records. */
export interface Encoded {
  body: Buffer;
  /** Same header with TC set, question only: sent when `body` does not fit the UDP payload size. */
  truncated: Buffer;
  /** Counted for every query answered with this (also when truncated). */
  tally: QueryTally;
  /** Leaf endpoints of this answer: counted when the records are sent (not for the TC variant). */
  answers: AnswerTally[];
  /** Traffic View, when the answer's profile is enrolled (trafficViewEnrollmentStatus Enabled). */
  traffic?: TrafficTally;
  /** The signer's generation it was encoded in (0 without a signer): stale once that moves on. */
  generation: number;
  /** Echo the CO flag in the OPT (a signed answer to a query with CO). */
  compactOk: boolean;
  /**
   * Routing's trail to this answer (decisions.ts reads it for sampled queries). A client-dependent answer's
   * encoding is shared by every client it fits: its trail is the lookup's, not this one.
   */
  steps: readonly ExplanationStep[];
  /** The answer's top-level profile ('' for none) and leaf endpoints (decision records). */
  profile: string;
  endpoints: readonly string[];
  /** RRL's class of this answer and its hash lanes, for the question `qkey` (admission.ts; set on first use). */
  rrl: RrlMemo | undefined;
}

export interface RrlMemo {
  qkey: string;
  limiter: ResponseRateLimiter;
  responseClass: RrlClass;
  classKey: string;
  lanes: RrlLanes;
}

export interface StaticEntry {
  dynamic: false;
  variants: Encoded[];
  cumulative: number[];
  generation: number;
}
export const DYNAMIC = { dynamic: true } as const;
export type Entry = StaticEntry | typeof DYNAMIC;

/** The record types in any outcome of a lookup (what a name has for one client). */
export function typesOf(res: ZoneAnswer): number[] {
  const out = new Set<number>();
  if (res.rcode !== 'NOERROR') return [];
  for (const o of res.outcomes) for (const r of o.answer) out.add(TYPE[r.type]);
  return [...out];
}

export function writeHeader(b: Buffer, flags: number, qd: number, an: number, ns: number, ar: number): void {
  b[2] = flags >> 8;
  b[3] = flags & 0xff;
  b[4] = qd >> 8;
  b[5] = qd & 0xff;
  b[6] = an >> 8;
  b[7] = an & 0xff;
  b[8] = ns >> 8;
  b[9] = ns & 0xff;
  b[10] = ar >> 8;
  b[11] = ar & 0xff;
}

export function pick(entry: StaticEntry, rng: Rng): Encoded {
  const v = entry.variants;
  if (v.length === 1) return v[0]!;
  const total = entry.cumulative[entry.cumulative.length - 1]!;
  const r = rng() * total;
  const c = entry.cumulative;
  for (let i = 0; i < c.length; i++) if (r < c[i]!) return v[i]!;
  return v[v.length - 1]!;
}

export function pickOutcome(o: readonly ZoneOutcome[], rng: Rng): ZoneOutcome {
  if (o.length <= 1) return o[0]!;
  let total = 0;
  for (const x of o) total += x.probability;
  let r = rng() * total;
  for (const x of o) {
    if (r < x.probability) return x;
    r -= x.probability;
  }
  return o[o.length - 1]!;
}

/** The content of a section, for the dynamic cache key ('' when empty, the common case). */
export function sectionKey(rrs: readonly ZoneRecord[]): string {
  let k = '';
  for (let i = 0; i < rrs.length; i++) {
    const r = rrs[i]!;
    const d = r.data;
    k +=
      `${i ? '\u0001' : ''}${r.type} ${r.name} ${r.ttl} ` +
      `${typeof d === 'string' ? d : `${d.mname} ${d.rname} ${d.serial} ${d.refresh} ${d.retry} ${d.expire} ${d.minimum}`}`;
  }
  return k;
}

/** Length of the uncompressed name at offset 12 (the question name we wrote). */
export function keyNameLengthOf(b: Buffer): number {
  let p = HEADER_LENGTH;
  while (b[p] !== 0) p += 1 + b[p]!;
  return p + 1 - HEADER_LENGTH;
}

/** The pre-encoded answer `src` patched for this query: ID, RD, the question's case, the OPT (with our cookie). */
export function patchAnswer(
  msg: Buffer,
  qnameEnd: number,
  src: Buffer,
  edns: Edns | undefined,
  scope: number,
  compactOk: boolean,
  cookie: Uint8Array | undefined,
  transport: Transport,
  udpCap: number,
): Buffer {
  const optLen = edns ? optLength(edns.ecs, cookie) : 0;
  const pre = transport === 'tcp' ? 2 : 0;
  const total = src.length + optLen;
  const out = Buffer.allocUnsafe(pre + total);
  if (pre) {
    out[0] = total >> 8;
    out[1] = total & 0xff;
  }
  src.copy(out, pre);
  out[pre] = msg[0]!;
  out[pre + 1] = msg[1]!;
  out[pre + 2]! |= msg[2]! & 0x01; // RD
  msg.copy(out, pre + HEADER_LENGTH, HEADER_LENGTH, qnameEnd); // question name in the query's case
  if (edns) {
    out[pre + 11]!++; // ARCOUNT: we never have 255 additional records, so no carry into byte 10
    writeOpt(out, pre + src.length, udpCap, 0, edns.dnssecOk, edns.ecs, scope, compactOk, cookie);
  }
  return out;
}

/** Bounded insert: evicts the oldest entries (Map keeps insertion order) when full. */
export function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  if (map.size >= max) {
    const drop = Math.max(1, max >> 4);
    let i = 0;
    for (const k of map.keys()) {
      if (i++ >= drop) break;
      map.delete(k);
    }
  }
  map.set(key, value);
}

/** What a cache miss needs to sign: the signer, 1 (DO) or 2 (DO and CO) or 0 (neither), the question. */
export interface SignContext {
  signer: ZoneSigner;
  secure: number;
  q: ZoneQuestion;
  /** The types at the name for this client, when already looked up (client-dependent NODATA). */
  types?: number[];
  /** Sign as a query of this type (a minimal ANY: the type of the one RRset kept). */
  qtype?: number;
  /** The query came over TCP: a denial is signed even over the signing budget (the client proved its address). */
  tcp: boolean;
}
