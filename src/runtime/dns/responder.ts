/**
 * The packet handler: one query in, one response (or nothing) out. Transport-free, synchronous and total
 * (never throws), so the UDP and TCP servers and the fuzz test all drive exactly this code.
 *
 * Hot path (a cache hit): hand-parse header + question (+ OPT/ECS when present), look the lower-cased
 * question up in the cache, pick one of the pre-encoded outcomes with the RNG by probability, copy it and
 * patch the ID, the RD bit and the question-name bytes (to echo the query's case, "0x20"), then append the
 * OPT record when the query had one. No dns-packet decode or encode per query.
 *
 * Cache: key = the question in wire form with the name lower-cased. An entry holds every outcome the routing
 * engine could give (its `RoutingResolution`), pre-encoded, with cumulative probabilities. When the
 * resolution depends on the client address (Geographic, Performance, Subnet, subnet override) the key is
 * marked dynamic: each query is resolved for its own client (cheap), and the encoded bytes are cached by
 * answer content (records, endpoints) in a bounded LRU, never by client, so one client's answer cannot
 * reach another. Such a resolution is already the client's own: Performance's even split over clients is
 * decided inside the routing engine by a hash of the client (one outcome for that client); the RNG only
 * picks among outcomes that are random per query (Weighted or MultiValue below it). Both caches are
 * dropped on every snapshot change.
 *
 * Counting (for /metrics): every encoded answer holds references to its interned counters (profile, rcode,
 * qtype; and one per leaf endpoint answered), so a query costs a few increments, no allocation and no
 * callback; `counts()` copies them out at scrape time.
 */
import * as dnsPacket from 'dns-packet';
import type { Rng } from '../../core/ports';
import type { AnswerRecord, RoutingQuery, RoutingResolution, RoutingSnapshot } from '../../core/routing/types';
import {
  FLAG_AA, FLAG_QR, FLAG_TC, HEADER_LENGTH, MIN_UDP_PAYLOAD, QCLASS_ANY, QCLASS_IN, QTYPE, RCODE, EXTENDED_RCODE_BADVERS,
  ecsAddressText, keyNameLength, optLength, parseQuery, wireNameToText, writeOpt,
  type ClientSubnet, type Edns,
} from './wire';
import { DnsTallies, qtypeLabel, rcodeName, type AnswerTally, type DnsCounts, type QueryTally } from './counts';

export type ResolveFn = (snapshot: RoutingSnapshot, query: RoutingQuery) => RoutingResolution;

/** The zone's SOA record (RFC 1035 §3.3.13). Times in seconds. */
export interface SoaConfig {
  /** Primary name server. Default `ns1.<zone>`. */
  mname: string;
  /** Responsible mailbox in domain-name form (`hostmaster.tm.internal`). Default `hostmaster.<zone>`. */
  rname: string;
  /** Initial serial; default: the current Unix time in seconds. Bumped on every snapshot change. */
  serial?: number;
  /** Default 3600. */
  refresh: number;
  /** Default 600. */
  retry: number;
  /** Default 86400. */
  expire: number;
  /** SOA MINIMUM, used as the negative-caching TTL cap (RFC 2308). Default 30. */
  minimum: number;
  /** TTL of the SOA and NS records at the apex. Default 300. */
  ttl: number;
}

export interface ResponderOptions {
  /** The authoritative zone (`tm.internal`), any case, with or without trailing dot. */
  zone: string;
  soa?: Partial<SoaConfig>;
  /** Apex NS names. Default `[soa.mname]`. */
  nsNames?: string[];
  /**
   * Addresses of name servers inside the zone (`ns1.tm.internal` → `['192.0.2.53']`): answered
   * authoritatively at those names and added as glue to the apex NS answer.
   */
  nsAddresses?: Record<string, string[]>;
  snapshot: RoutingSnapshot;
  resolve: ResolveFn;
  rng: Rng;
  /** Largest UDP response we send and advertise in OPT (RFC 6891; DNS flag day 2020 value). Default 1232. */
  udpPayloadCap?: number;
  /** Max cached questions (static answers). Default 20000. */
  cacheSize?: number;
  /** Max cached per-outcome encodings for client-dependent names. Default 20000. */
  dynamicCacheSize?: number;
  /** Called when a query is dropped or answered with an error rcode (debug logging). */
  onError?: (reason: string, rcode: number | 'drop') => void;
}

export type Transport = 'udp' | 'tcp';

/** Pre-encoded response for one outcome: header (QR, AA, rcode; RD 0; ARCOUNT without OPT) + question + records. */
interface Encoded {
  body: Buffer;
  /** Same header with TC set, question only: sent when `body` does not fit the UDP payload size. */
  truncated: Buffer;
  /** Counted for every query answered with this (also when truncated). */
  tally: QueryTally;
  /** Leaf endpoints of this answer: counted when the records are sent (not for the TC variant). */
  answers: AnswerTally[];
}

interface StaticEntry {
  dynamic: false;
  variants: Encoded[];
  cumulative: number[];
}
const DYNAMIC = { dynamic: true } as const;
type Entry = StaticEntry | typeof DYNAMIC;

export interface ResponderStats {
  queries: number;
  cacheHits: number;
  dropped: number;
  errors: number;
  truncated: number;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const dnsTypes = require('dns-packet/types') as { toString(type: number): string };

const TYPE_NAMES: Record<number, string> = { 1: 'A', 28: 'AAAA', 5: 'CNAME', 255: 'ANY', 2: 'NS', 6: 'SOA' };
const AXFR = 252;
const IXFR = 251;

export class Responder {
  readonly zone: string;
  private readonly soa: SoaConfig & { serial: number };
  private readonly nsNames: string[];
  private readonly nsAddresses = new Map<string, string[]>();
  private snapshot: RoutingSnapshot;
  private readonly resolveFn: ResolveFn;
  private readonly rng: Rng;
  private readonly udpCap: number;
  private readonly cacheSize: number;
  private readonly dynamicCacheSize: number;
  private readonly onError: ((reason: string, rcode: number | 'drop') => void) | undefined;
  private cache = new Map<string, Entry>();
  private dynamicCache = new Map<string, Encoded>();
  private readonly scratch = Buffer.alloc(512);
  private readonly tallies = new DnsTallies();
  readonly stats: ResponderStats = { queries: 0, cacheHits: 0, dropped: 0, errors: 0, truncated: 0 };

  constructor(opts: ResponderOptions) {
    this.zone = opts.zone.replace(/\.$/, '').toLowerCase();
    if (this.zone === '') throw Object.assign(new Error('dns: zone must not be empty (e.g. --zone tm.internal)'), { code: 'DNS_ZONE_EMPTY' });
    const s = opts.soa ?? {};
    this.soa = {
      mname: s.mname ?? `ns1.${this.zone}`,
      rname: s.rname ?? `hostmaster.${this.zone}`,
      serial: (s.serial ?? Math.floor(Date.now() / 1000)) >>> 0,
      refresh: s.refresh ?? 3600,
      retry: s.retry ?? 600,
      expire: s.expire ?? 86400,
      minimum: s.minimum ?? 30,
      ttl: s.ttl ?? 300,
    };
    this.nsNames = opts.nsNames && opts.nsNames.length > 0 ? [...opts.nsNames] : [this.soa.mname];
    for (const [name, addrs] of Object.entries(opts.nsAddresses ?? {})) {
      const n = name.replace(/\.$/, '').toLowerCase();
      if (n !== this.zone && n.endsWith(`.${this.zone}`) && addrs.length > 0) this.nsAddresses.set(n, [...addrs]);
    }
    this.snapshot = opts.snapshot;
    this.resolveFn = opts.resolve;
    this.rng = opts.rng;
    this.udpCap = Math.max(MIN_UDP_PAYLOAD, Math.min(65535, opts.udpPayloadCap ?? 1232));
    this.cacheSize = opts.cacheSize ?? 20000;
    this.dynamicCacheSize = opts.dynamicCacheSize ?? 20000;
    this.onError = opts.onError;
  }

  /** The SOA serial currently served. */
  get serial(): number {
    return this.soa.serial;
  }

  /** Cached questions and cached per-outcome encodings (for tests and metrics). */
  get cached(): { questions: number; outcomes: number } {
    return { questions: this.cache.size, outcomes: this.dynamicCache.size };
  }

  /**
   * Answered queries by (profile, rcode, qtype) and leaf endpoints answered by (profile, endpoint) since
   * start (a copy; non-zero counts only). Truncated (TC) answers count as queries, not as endpoint answers
   * (the client's TCP retry carries the records and counts them).
   */
  counts(): DnsCounts {
    return this.tallies.counts();
  }

  /**
   * Swaps the routing state: drops every cached answer and bumps the SOA serial (RFC 1982 arithmetic), or sets
   * it to `serial` (cluster mode: the store revision, the same on every node at that revision).
   */
  setSnapshot(snapshot: RoutingSnapshot, serial?: number): void {
    this.snapshot = snapshot;
    this.soa.serial = serial !== undefined ? serial >>> 0 : (this.soa.serial + 1) >>> 0;
    this.cache = new Map();
    this.dynamicCache = new Map();
  }

  /**
   * Answers one DNS message. `clientAddress` is the transport source address. For TCP the result starts
   * with the 2-octet length prefix (RFC 1035 §4.2.2). Returns null when the message must be dropped.
   */
  handle(msg: Buffer, clientAddress: string, transport: Transport): Buffer | null {
    this.stats.queries++;
    let q;
    try {
      q = parseQuery(msg, this.scratch);
    } catch (err) {
      // parseQuery is bounds-checked; this is a last line of defence, never expected.
      this.stats.dropped++;
      this.onError?.(`parser failure: ${(err as Error).message}`, 'drop');
      return null;
    }
    if (q.kind === 'drop') {
      this.stats.dropped++;
      this.onError?.(q.reason, 'drop');
      return null;
    }
    if (q.kind === 'error') {
      this.stats.errors++;
      this.onError?.(q.reason, q.rcode);
      return this.errorResponse(msg, q.id, q.flags, q.rcode, q.questionLength, q.edns, transport);
    }
    const edns = q.edns;
    if (edns && edns.version > 0) {
      this.stats.errors++;
      this.onError?.(`EDNS version ${edns.version} (only 0 is supported)`, EXTENDED_RCODE_BADVERS);
      return this.errorResponse(msg, q.id, q.flags, EXTENDED_RCODE_BADVERS, q.questionLength, edns, transport);
    }

    let encoded: Encoded;
    let scope = 0;
    const entry = this.cache.get(q.key);
    try {
      if (entry !== undefined && !entry.dynamic) {
        this.stats.cacheHits++;
        encoded = pick(entry, this.rng);
      } else {
        const r = this.resolveMiss(q.key, q.qtype, q.qclass, clientAddress, edns?.ecs, entry === DYNAMIC);
        encoded = r.encoded;
        scope = r.scope;
      }
    } catch (err) {
      this.stats.errors++;
      this.onError?.(`routing failed: ${(err as Error)?.message ?? String(err)}`, RCODE.SERVFAIL);
      return this.errorResponse(msg, q.id, q.flags, RCODE.SERVFAIL, q.questionLength, edns, transport);
    }

    const limit = transport === 'tcp' ? 65535 : edns ? Math.min(Math.max(edns.udpPayloadSize, MIN_UDP_PAYLOAD), this.udpCap) : MIN_UDP_PAYLOAD;
    const optLen = edns ? optLength(edns.ecs) : 0;
    let src = encoded.body;
    if (src.length + optLen > limit) {
      src = encoded.truncated;
      this.stats.truncated++;
    } else {
      const a = encoded.answers;
      for (let i = 0; i < a.length; i++) a[i]!.n++;
    }
    encoded.tally.n++;
    const pre = transport === 'tcp' ? 2 : 0;
    const total = src.length + optLen;
    const out = Buffer.allocUnsafe(pre + total);
    if (pre) { out[0] = total >> 8; out[1] = total & 0xff; }
    src.copy(out, pre);
    out[pre] = msg[0]!;
    out[pre + 1] = msg[1]!;
    out[pre + 2]! |= msg[2]! & 0x01; // RD
    msg.copy(out, pre + HEADER_LENGTH, HEADER_LENGTH, q.qnameEnd); // question name in the query's case
    if (edns) {
      out[pre + 11]!++; // ARCOUNT: we never have 255 additional records, so no carry into byte 10
      writeOpt(out, pre + src.length, this.udpCap, 0, edns.dnssecOk, edns.ecs, scope);
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------------
  // Cache misses

  private resolveMiss(key: string, qtype: number, qclass: number, clientAddress: string, ecs: ClientSubnet | undefined, knownDynamic: boolean): { encoded: Encoded; scope: number } {
    const nameLen = keyNameLength(key);
    const question = Buffer.from(key, 'latin1');
    const qname = wireNameToText(key, nameLen);

    if (qclass !== QCLASS_IN && qclass !== QCLASS_ANY) return { encoded: this.encode(question, RCODE.REFUSED, [], []), scope: 0 };
    // REFUSED is not cached: a flood of names outside the zone must not push the zone's answers out.
    const inZone = qname === this.zone || qname.endsWith(`.${this.zone}`);
    if (!inZone || qtype === AXFR || qtype === IXFR) {
      return { encoded: this.encode(question, RCODE.REFUSED, [], []), scope: 0 };
    }
    if (qname === this.zone) return { encoded: this.cacheStatic(key, [this.apex(question, qtype)], [1]), scope: 0 };

    const nsAddrs = this.nsAddresses.get(qname);
    if (nsAddrs) return { encoded: this.cacheStatic(key, [this.nameServerAddresses(question, qname, qtype)], [1]), scope: 0 };

    const useEcs = ecs !== undefined && ecs.sourcePrefix > 0;
    const query: RoutingQuery = { name: qname, type: TYPE_NAMES[qtype] ?? dnsTypes.toString(qtype), clientAddress: useEcs ? ecsAddressText(ecs) : clientAddress };
    if (ecs) query.ecsSourcePrefix = ecs.sourcePrefix;
    const res = this.resolveFn(this.snapshot, query);

    if (!res.clientDependent && !knownDynamic) {
      const variants = this.encodeResolution(question, res);
      return { encoded: this.cacheStatic(key, variants.encoded, variants.probabilities), scope: 0 };
    }
    // Client-dependent: remember that, and cache the encoding of the one outcome we pick, by outcome.
    if (!knownDynamic) this.remember(this.cache, key, DYNAMIC, this.cacheSize);
    const scope = !ecs ? 0 : !res.clientDependent ? 0 : useEcs ? res.ecsScopePrefix ?? ecs.sourcePrefix : 0;
    const outcome = pickOutcome(res, this.rng);
    const records = outcome?.records ?? [];
    const endpoints = outcome?.endpoints ?? [];
    const okey = `${key}\u0000${res.rcode}\u0000${res.profile ?? ''}\u0000${endpoints.join('\u0001')}\u0000${records.map((r) => `${r.type} ${r.name} ${r.ttl} ${r.data}`).join('\u0001')}`;
    let enc = this.dynamicCache.get(okey);
    if (enc === undefined) {
      enc = this.encodeOutcome(question, res.rcode, records, res.profile, endpoints);
      this.remember(this.dynamicCache, okey, enc, this.dynamicCacheSize);
    }
    return { encoded: enc, scope };
  }

  private cacheStatic(key: string, variants: Encoded[], probabilities: number[]): Encoded {
    const cumulative: number[] = [];
    let sum = 0;
    for (const p of probabilities) cumulative.push((sum += p));
    const entry: StaticEntry = { dynamic: false, variants, cumulative };
    this.remember(this.cache, key, entry, this.cacheSize);
    return pick(entry, this.rng);
  }

  /** Bounded insert: evicts the oldest entries (Map keeps insertion order) when full. */
  private remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
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

  private encodeResolution(question: Buffer, res: RoutingResolution): { encoded: Encoded[]; probabilities: number[] } {
    if (res.outcomes.length === 0) return { encoded: [this.encodeOutcome(question, res.rcode, [], res.profile, [])], probabilities: [1] };
    return {
      encoded: res.outcomes.map((o) => this.encodeOutcome(question, res.rcode, o.records, res.profile, o.endpoints)),
      probabilities: res.outcomes.map((o) => o.probability),
    };
  }

  private encodeOutcome(question: Buffer, rcode: RoutingResolution['rcode'], records: AnswerRecord[], profile: string | undefined, endpoints: readonly string[]): Encoded {
    const p = profile ?? '';
    if (rcode === 'REFUSED') return this.encode(question, RCODE.REFUSED, [], [], [], p);
    if (rcode === 'NXDOMAIN') return this.encode(question, RCODE.NXDOMAIN, [], [this.negativeSoa()], [], p);
    if (records.length === 0) return this.encode(question, RCODE.NOERROR, [], [this.negativeSoa()], [], p);
    return this.encode(question, RCODE.NOERROR, records.map(toPacketAnswer), [], [], p, endpoints);
  }

  private apex(question: Buffer, qtype: number): Encoded {
    const answers: dnsPacket.Answer[] = [];
    if (qtype === QTYPE.SOA || qtype === QTYPE.ANY) answers.push(this.soaRecord(this.soa.ttl));
    if (qtype === QTYPE.NS || qtype === QTYPE.ANY) {
      for (const ns of this.nsNames) answers.push({ type: 'NS', name: this.zone, ttl: this.soa.ttl, class: 'IN', data: ns });
    }
    if (answers.length > 0) {
      const glue = qtype === QTYPE.NS || qtype === QTYPE.ANY ? this.nsNames.flatMap((ns) => this.addressRecords(ns.replace(/\.$/, '').toLowerCase(), QTYPE.ANY)) : [];
      return this.encode(question, RCODE.NOERROR, answers, [], glue);
    }
    return this.encode(question, RCODE.NOERROR, [], [this.negativeSoa()]);
  }

  /** A/AAAA records of an in-zone name server (empty when it has none of that type). */
  private addressRecords(name: string, qtype: number): dnsPacket.Answer[] {
    const out: dnsPacket.Answer[] = [];
    for (const a of this.nsAddresses.get(name) ?? []) {
      const v6 = a.includes(':');
      if (qtype === QTYPE.ANY || qtype === (v6 ? QTYPE.AAAA : QTYPE.A)) out.push({ type: v6 ? 'AAAA' : 'A', name, ttl: this.soa.ttl, class: 'IN', data: a });
    }
    return out;
  }

  private nameServerAddresses(question: Buffer, name: string, qtype: number): Encoded {
    const answers = this.addressRecords(name, qtype);
    return answers.length > 0 ? this.encode(question, RCODE.NOERROR, answers, []) : this.encode(question, RCODE.NOERROR, [], [this.negativeSoa()]);
  }

  private soaRecord(ttl: number): dnsPacket.Answer {
    const s = this.soa;
    return {
      type: 'SOA', name: this.zone, ttl, class: 'IN',
      data: { mname: s.mname, rname: s.rname, serial: s.serial, refresh: s.refresh, retry: s.retry, expire: s.expire, minimum: s.minimum },
    };
  }

  /** RFC 2308 §3: the SOA in a negative answer has TTL min(SOA TTL, SOA MINIMUM). */
  private negativeSoa(): dnsPacket.Answer {
    return this.soaRecord(Math.min(this.soa.ttl, this.soa.minimum));
  }

  /**
   * Encodes header + question (lower-case; patched per query) + records; also the TC variant. `profile`
   * and `endpoints` (leaf `profile/endpoint` paths) label the counters the answer increments.
   */
  private encode(question: Buffer, rcode: number, answers: dnsPacket.Answer[], authorities: dnsPacket.Answer[], additionals: dnsPacket.Answer[] = [], profile = '', endpoints: readonly string[] = []): Encoded {
    const records = answers.length + authorities.length + additionals.length > 0
      ? dnsPacket.encode({ type: 'response', id: 0, flags: 0, questions: [], answers, authorities, additionals }).subarray(HEADER_LENGTH)
      : Buffer.alloc(0);
    // Not authoritative for what we refuse (outside the zone, other classes, transfers): AA clear.
    const flags = FLAG_QR | (rcode === RCODE.REFUSED ? 0 : FLAG_AA) | (rcode & 0xf);
    const body = Buffer.alloc(HEADER_LENGTH + question.length + records.length);
    writeHeader(body, flags, 1, answers.length, authorities.length, additionals.length);
    question.copy(body, HEADER_LENGTH);
    records.copy(body, HEADER_LENGTH + question.length);
    const truncated = Buffer.alloc(HEADER_LENGTH + question.length);
    writeHeader(truncated, flags | FLAG_TC, 1, 0, 0, 0);
    question.copy(truncated, HEADER_LENGTH);
    const tally = this.tallies.query(profile, rcodeName(rcode), qtypeLabel(question.readUInt16BE(question.length - 4)));
    return { body, truncated, tally, answers: endpoints.map((e) => this.tallies.answer(profile, e)) };
  }

  /**
   * Error responses (FORMERR, NOTIMP, SERVFAIL, BADVERS; never cached): the query's ID, opcode and RD, the
   * question echoed when it could be read, and an OPT when the query had a valid one. AA clear (as BIND).
   */
  private errorResponse(msg: Buffer, id: number, qflags: number, rcode: number, questionLength: number, edns: Edns | undefined, transport: Transport): Buffer {
    const pre = transport === 'tcp' ? 2 : 0;
    const optLen = edns ? optLength(undefined) : 0;
    const total = HEADER_LENGTH + questionLength + optLen;
    const out = Buffer.alloc(pre + total);
    if (pre) { out[0] = total >> 8; out[1] = total & 0xff; }
    const flags = FLAG_QR | (qflags & 0x7800) /* opcode */ | (qflags & 0x0100) /* RD */ | (rcode & 0xf);
    writeHeader(out.subarray(pre), flags, questionLength > 0 ? 1 : 0, 0, 0, edns ? 1 : 0);
    out[pre] = id >> 8;
    out[pre + 1] = id & 0xff;
    if (questionLength > 0) msg.copy(out, pre + HEADER_LENGTH, HEADER_LENGTH, HEADER_LENGTH + questionLength);
    if (edns) writeOpt(out, pre + HEADER_LENGTH + questionLength, this.udpCap, rcode, edns.dnssecOk, undefined, 0);
    // Not on the hot path (error answers are never cached): a Map lookup per answer is fine here.
    this.tallies.query('', rcodeName(rcode), qtypeLabel(questionLength >= 5 ? msg.readUInt16BE(HEADER_LENGTH + questionLength - 4) : undefined)).n++;
    return out;
  }
}

function writeHeader(b: Buffer, flags: number, qd: number, an: number, ns: number, ar: number): void {
  b[2] = flags >> 8; b[3] = flags & 0xff;
  b[4] = qd >> 8; b[5] = qd & 0xff;
  b[6] = an >> 8; b[7] = an & 0xff;
  b[8] = ns >> 8; b[9] = ns & 0xff;
  b[10] = ar >> 8; b[11] = ar & 0xff;
}

function pick(entry: StaticEntry, rng: Rng): Encoded {
  const v = entry.variants;
  if (v.length === 1) return v[0]!;
  const total = entry.cumulative[entry.cumulative.length - 1]!;
  const r = rng() * total;
  const c = entry.cumulative;
  for (let i = 0; i < c.length; i++) if (r < c[i]!) return v[i]!;
  return v[v.length - 1]!;
}

function pickOutcome(res: RoutingResolution, rng: Rng): RoutingResolution['outcomes'][number] | undefined {
  const o = res.outcomes;
  if (o.length <= 1) return o[0];
  let total = 0;
  for (const x of o) total += x.probability;
  let r = rng() * total;
  for (const x of o) {
    if (r < x.probability) return x;
    r -= x.probability;
  }
  return o[o.length - 1];
}

function toPacketAnswer(r: AnswerRecord): dnsPacket.Answer {
  return { type: r.type, name: r.name, ttl: r.ttl, class: 'IN', data: r.data } as dnsPacket.Answer;
}
