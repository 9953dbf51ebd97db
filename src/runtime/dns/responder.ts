/**
 * The packet handler: one query in, one response (or nothing) out. Transport-free, synchronous and total
 * (never throws), so the UDP and TCP servers and the fuzz test all drive exactly this code.
 *
 * What is answered (the rcode, AA and the answer/authority/additional sections for every question: apex
 * SOA/NS, glue, negative SOA, REFUSED, profile answers) is decided by the pure zone lookup in core
 * (`core/zone/lookup.ts`); this module only parses, caches, samples with the RNG, encodes and counts. The
 * SOA serial is the one piece of zone state kept here: it moves on with every snapshot swap.
 *
 * Hot path (a cache hit): hand-parse header + question (+ OPT/ECS when present), look the lower-cased
 * question up in the cache, pick one of the pre-encoded outcomes with the RNG by probability, copy it and
 * patch the ID, the RD bit and the question-name bytes (to echo the query's case, "0x20"), then append the
 * OPT record when the query had one. No decode or encode per query.
 *
 * DNSSEC (`setSigner`, ../dnssec/signer.ts): with a signer, queries with the DO bit are cached apart (the
 * key gains a suffix, another for the CO flag) and their answers carry RRSIGs and the compact-denial NSEC;
 * the signer decides them once per cache miss. Every entry remembers the signer's `generation` and is
 * encoded again once it moves on (a new validity window, a key rollover step): still a copy per query.
 *
 * Beside it: the cache and how an answer is fitted to its query (`answer-cache.ts`, with how names are
 * encoded and cached), the cookie and rate-limit checks (`admission.ts`), minimal ANY (`minimal-any.ts`),
 * its options and stats (`responder-options.ts`), the error answers (`error-response.ts`).
 */
import type { Clock, Rng } from '../../core/ports';
import { systemClock } from '../clock';
import type { ExplanationStep, RoutingSnapshot } from '../../core/routing/types';
import {
  defineZone,
  lookup,
  negativeTtl,
  nextSerial,
  withSerial,
  type Zone,
  type ZoneAnswer,
  type ZoneOutcome,
  type ZoneQuestion,
} from '../../core/zone';
import {
  FLAG_AA,
  FLAG_QR,
  FLAG_TC,
  HEADER_LENGTH,
  MIN_UDP_PAYLOAD,
  QCLASS_ANY,
  QCLASS_IN,
  RCODE,
  EXTENDED_RCODE_BADVERS,
  ecsAddressText,
  keyNameLength,
  optLength,
  parseQuery,
  wireNameToText,
  type ClientSubnet,
  type ParsedQuery,
} from './wire';
import {
  DYNAMIC,
  patchAnswer,
  remember,
  type SignContext,
  keyNameLengthOf,
  pick,
  pickOutcome,
  sectionKey,
  typesOf,
  writeHeader,
  type Encoded,
  type Entry,
  type StaticEntry,
} from './answer-cache';
import { DnsEncodeError, encodeMessage, unpooled, type WireMessage, type WireRecord } from './encode';
import { COOKIE_REPLY_LENGTH, type CookieReply, cookieReply, RCODE_BADCOOKIE, rateLimit } from './admission';
import type { CookieJar } from './cookies';
import { MINIMAL_ANY_SUFFIX, QTYPE_ANY, keptType, oneRrset } from './minimal-any';
import type { ResponseRateLimiter } from './rrl';
import { SigningBudgetExceeded } from './dnssec/signing-limits';
import { Doorkeeper } from './doorkeeper';
import type { ZoneSigner } from './dnssec/signer';
import { DnsTallies, qtypeLabel, rcodeName, type DnsCounts } from './counts';
import { TrafficTallies, TrafficTally, type TrafficRow } from './traffic';
import { errorResponse } from './error-response';
import type { Explained } from './decisions';
import { zeroStats, type ResolveFn, type ResponderOptions, type ResponderStats, type Transport } from './responder-options';

export type { ResolveFn, ResponderOptions, ResponderStats, SoaConfig, Transport } from './responder-options';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const dnsTypes = require('dns-packet/types') as { toString(type: number): string };

const TYPE_NAMES: Record<number, string> = { 1: 'A', 28: 'AAAA', 5: 'CNAME', 255: 'ANY', 2: 'NS', 6: 'SOA' };
const CLASS_NAMES: Record<number, string> = { [QCLASS_IN]: 'IN', 3: 'CH', 4: 'HS', 254: 'NONE', [QCLASS_ANY]: 'ANY' };
const RCODES = { NOERROR: RCODE.NOERROR, NXDOMAIN: RCODE.NXDOMAIN, REFUSED: RCODE.REFUSED } as const;

export class Responder {
  readonly zone: string;
  /** The zone's own data, with the serial served now (replaced, with the next serial, on every snapshot swap). */
  private zoneData: Zone;
  private snapshot: RoutingSnapshot;
  private readonly resolveFn: ResolveFn;
  private readonly rng: Rng;
  private readonly udpCap: number;
  private readonly cacheSize: number;
  private readonly dynamicCacheSize: number;
  /** The NXDOMAIN questions asked lately: one is cached from its second query on. */
  private readonly doorkeeper = new Doorkeeper();
  private readonly onError: ((reason: string, rcode: number | 'drop') => void) | undefined;
  private readonly encodeOptions: { compress: boolean };
  private signer: ZoneSigner | undefined;
  private cache = new Map<string, Entry>();
  /** Signed answers (DNSSEC): queries with DO, and with DO and CO; keyed like `cache`. */
  private signedCache = new Map<string, Entry>();
  private compactCache = new Map<string, Entry>();
  private dynamicCache = new Map<string, Encoded>();
  private readonly scratch = Buffer.alloc(512);
  private readonly tallies = new DnsTallies();
  private readonly traffic = new TrafficTallies();
  readonly stats: ResponderStats = zeroStats();
  private readonly clock: Clock;
  private cookies: CookieJar | undefined;
  /** The COOKIE option of the answer being made (copied into it before handle() returns). */
  private readonly cookieScratch: CookieReply = { bytes: new Uint8Array(COOKIE_REPLY_LENGTH), valid: false };
  /** Response rate limiting (UDP), one table per DNS process. */
  readonly rrl: ResponseRateLimiter | undefined;
  /**
   * Set by the server for a sampled query (dnstap, the decision log): `handle` then leaves what decided the
   * answer in `explained` (undefined for a query it dropped or could not route).
   */
  explain = false;
  explained: Explained | undefined;
  /** The store revision the snapshot reflects (decision records; the SOA serial is `serial`). */
  revision = 0;

  /** Throws a ZoneConfigError (code DNS_ZONE_INVALID) naming every problem with the zone options. */
  constructor(opts: ResponderOptions) {
    this.zoneData = defineZone({
      apex: opts.zone,
      // The serial is the runtime's state: it starts at the clock (core has none).
      soa: { ...opts.soa, serial: opts.soa?.serial ?? Math.floor((opts.clock ?? systemClock).now() / 1000) >>> 0 },
      ...(opts.nsNames !== undefined ? { nsNames: opts.nsNames } : {}),
      ...(opts.nsAddresses !== undefined ? { nsAddresses: opts.nsAddresses } : {}),
    });
    this.zone = this.zoneData.apex;
    this.snapshot = opts.snapshot;
    this.resolveFn = opts.resolve;
    this.rng = opts.rng;
    this.udpCap = Math.max(MIN_UDP_PAYLOAD, Math.min(65535, opts.udpPayloadCap ?? 1232));
    this.cacheSize = opts.cacheSize ?? 20000;
    this.dynamicCacheSize = opts.dynamicCacheSize ?? 20000;
    this.onError = opts.onError;
    this.encodeOptions = { compress: opts.compressNames ?? true };
    this.clock = opts.clock ?? systemClock;
    this.cookies = opts.cookies;
    this.rrl = opts.rrl;
  }

  /** The snapshot answers come from now. */
  get currentSnapshot(): RoutingSnapshot {
    return this.snapshot;
  }

  /** The SOA serial currently served. */
  get serial(): number {
    return this.zoneData.soa.serial;
  }

  /** Cached questions and cached per-outcome encodings (for tests and metrics). */
  get cached(): { questions: number; outcomes: number } {
    return { questions: this.cache.size + this.signedCache.size + this.compactCache.size, outcomes: this.dynamicCache.size };
  }

  /**
   * Answered queries by (profile, rcode, qtype) and leaf endpoints answered by (profile, endpoint) since
   * start (a copy; non-zero counts only). Truncated (TC) answers count as queries, not as endpoint answers
   * (the client's TCP retry carries the records and counts them).
   */
  counts(): DnsCounts {
    return this.tallies.counts();
  }

  /** Traffic View counts since the last drain (countries looked up now, with the snapshot's geo lookup). */
  drainTraffic(): TrafficRow[] {
    return this.traffic.drain(this.snapshot.geo);
  }

  /** DNS cookies from now on (a DNS worker gets its node's secrets from the primary); undefined: the option is ignored. */
  setCookies(jar: CookieJar | undefined): void {
    this.cookies = jar;
  }

  /**
   * Signs answers to queries with the DO bit from now on (undefined: stops). Every cached answer is dropped.
   * The signer must be for this zone.
   */
  setSigner(signer: ZoneSigner | undefined): void {
    if (signer !== undefined && signer.zone !== this.zone)
      throw new Error(`dns: the DNSSEC signer is for ${signer.zone}, not ${this.zone}`);
    this.signer = signer;
    this.cache = new Map();
    this.signedCache = new Map();
    this.compactCache = new Map();
    this.dynamicCache = new Map();
  }

  /** The signer answers are signed with (undefined: DNSSEC off). */
  get dnssec(): ZoneSigner | undefined {
    return this.signer;
  }

  /**
   * Swaps the routing state: drops every cached answer and bumps the SOA serial (RFC 1982 arithmetic), or sets
   * it to `serial` (cluster mode: the store revision, the same on every node at that revision).
   */
  setSnapshot(snapshot: RoutingSnapshot, serial?: number): void {
    this.snapshot = snapshot;
    this.zoneData = withSerial(this.zoneData, serial !== undefined ? serial >>> 0 : nextSerial(this.zoneData.soa.serial));
    this.cache = new Map();
    this.signedCache = new Map();
    this.compactCache = new Map();
    this.dynamicCache = new Map();
  }

  /**
   * Answers one DNS message. `clientAddress` is the transport source address. For TCP the result starts
   * with the 2-octet length prefix (RFC 1035 §4.2.2). Returns null when the message must be dropped.
   */
  handle(msg: Buffer, clientAddress: string, transport: Transport): Buffer | null {
    this.stats.queries++;
    if (this.explain) this.explained = undefined;
    let q: ParsedQuery;
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
      return errorResponse(msg, q.id, q.flags, q.rcode, q.questionLength, q.edns, transport, this.udpCap, this.tallies);
    }
    const edns = q.edns;
    if (edns && edns.version > 0) {
      this.stats.errors++;
      this.onError?.(`EDNS version ${edns.version} (only 0 is supported)`, EXTENDED_RCODE_BADVERS);
      return errorResponse(msg, q.id, q.flags, EXTENDED_RCODE_BADVERS, q.questionLength, edns, transport, this.udpCap, this.tallies);
    }

    let encoded: Encoded;
    let scope = 0;
    let steps: readonly ExplanationStep[];
    // DNSSEC: signed answers (DO) are cached apart; those for queries with CO too.
    const signer = this.signer;
    const generation = signer === undefined ? 0 : signer.generation;
    const secure = signer && edns?.dnssecOk ? (edns.compactOk ? 2 : 1) : 0;
    const cache = secure === 0 ? this.cache : secure === 1 ? this.signedCache : this.compactCache;
    // RFC 8482: ANY over UDP gets one RRset (cached apart, under the key with a suffix); over TCP the whole set.
    const minimalAny = q.qtype === QTYPE_ANY && transport === 'udp';
    const key = minimalAny ? q.key + MINIMAL_ANY_SUFFIX : q.key;
    const entry = cache.get(key);
    try {
      if (entry !== undefined && !entry.dynamic && entry.generation === generation) {
        this.stats.cacheHits++;
        encoded = pick(entry, this.rng);
        steps = encoded.steps;
      } else {
        const r = this.resolveMiss(
          cache,
          key,
          q.qtype,
          q.qclass,
          clientAddress,
          edns?.ecs,
          entry === DYNAMIC,
          secure,
          minimalAny,
          transport === 'tcp',
        );
        encoded = r.encoded;
        scope = r.scope;
        steps = r.steps;
      }
    } catch (err) {
      if (err instanceof SigningBudgetExceeded) {
        // Over this process's signing budget (a random-name flood): the question only, TC set, so a real
        // resolver asks again over TCP, where the answer is signed anyway. Not cached.
        this.stats.truncated++;
        this.stats.signRefused++;
        const rcode = err.rcode === 'NXDOMAIN' ? RCODE.NXDOMAIN : RCODE.NOERROR;
        return errorResponse(
          msg,
          q.id,
          q.flags,
          rcode,
          q.questionLength,
          edns,
          transport,
          this.udpCap,
          this.tallies,
          undefined,
          FLAG_AA | FLAG_TC,
        );
      }
      this.stats.errors++;
      this.onError?.(
        `${err instanceof DnsEncodeError ? 'encoding failed' : 'routing failed'}: ${(err as Error)?.message ?? String(err)}`,
        RCODE.SERVFAIL,
      );
      return errorResponse(msg, q.id, q.flags, RCODE.SERVFAIL, q.questionLength, edns, transport, this.udpCap, this.tallies);
    }

    // DNS cookies (RFC 7873, RFC 9018): the cookie this answer carries; a valid server cookie exempts the client from RRL.
    // The clock is read once for both guards (0: not read).
    let nowMs = 0;
    const cookie =
      this.cookies !== undefined && edns?.cookie !== undefined
        ? cookieReply(
            this.cookies,
            edns.cookie,
            clientAddress,
            Math.floor((nowMs = this.clock.now()) / 1000),
            this.stats,
            this.cookieScratch,
          )
        : undefined;
    // Response rate limiting (UDP only: a TCP client has shown it owns its address, as has one with a valid cookie).
    if (this.rrl !== undefined && transport === 'udp' && cookie?.valid !== true) {
      const decision = rateLimit(this.rrl, encoded, q.qtype, q.key, this.zone, clientAddress, nowMs || this.clock.now());
      if (decision === 'drop') {
        this.stats.rrlDropped++;
        return null;
      }
      if (decision === 'slip') {
        this.stats.rrlSlipped++;
        // A client that speaks cookies is told to come back with ours (BADCOOKIE, RFC 7873 §5.2.3, counted by
        // errorResponse under no profile); others get TC, counted as the answer's query.
        if (cookie !== undefined) {
          this.stats.badCookies++;
          return errorResponse(
            msg,
            q.id,
            q.flags,
            RCODE_BADCOOKIE,
            q.questionLength,
            edns,
            transport,
            this.udpCap,
            this.tallies,
            cookie.bytes,
          );
        }
        encoded.tally.n++;
        if (this.explain) this.explain_(q, encoded, steps, clientAddress, edns?.ecs, true);
        return patchAnswer(msg, q.qnameEnd, encoded.truncated, edns, scope, encoded.compactOk, undefined, transport, this.udpCap);
      }
      if (this.rrl.mode === 'log') this.stats.rrlWouldLimit = this.rrl.wouldLimit;
    }

    const limit =
      transport === 'tcp' ? 65535 : edns ? Math.min(Math.max(edns.udpPayloadSize, MIN_UDP_PAYLOAD), this.udpCap) : MIN_UDP_PAYLOAD;
    const optLen = edns ? optLength(edns.ecs, cookie?.bytes) : 0;
    let src = encoded.body;
    if (src.length + optLen > limit) {
      src = encoded.truncated;
      this.stats.truncated++;
    } else {
      const a = encoded.answers;
      for (let i = 0; i < a.length; i++) a[i]!.n++;
      const tt = encoded.traffic;
      if (tt !== undefined) {
        const w = TrafficTally.weightOf(++tt.n);
        if (w > 0) tt.add(edns?.ecs !== undefined && edns.ecs.sourcePrefix > 0 ? ecsAddressText(edns.ecs) : clientAddress, w);
      }
    }
    encoded.tally.n++;
    if (this.explain) this.explain_(q, encoded, steps, clientAddress, edns?.ecs, src === encoded.truncated);
    return patchAnswer(msg, q.qnameEnd, src, edns, scope, encoded.compactOk, cookie?.bytes, transport, this.udpCap);
  }

  /** Names asked for, in presentation form, by question key (sampled queries repeat names; emptied when full). */
  private readonly names = new Map<string, string>();

  private nameText(key: string): string {
    let t = this.names.get(key);
    if (t === undefined) {
      if (this.names.size >= 4096) this.names.clear();
      t = wireNameToText(key, keyNameLength(key));
      this.names.set(key, t);
    }
    return t;
  }

  /** What decided this answer, for the server's tap (only for sampled queries). */
  private explain_(
    q: Extract<ParsedQuery, { kind: 'ok' }>,
    encoded: Encoded,
    steps: readonly ExplanationStep[],
    clientAddress: string,
    ecs: ClientSubnet | undefined,
    truncated: boolean,
  ): void {
    const body = encoded.body;
    this.explained = {
      rcode: rcodeName(body[3]! & 0xf),
      qname: this.nameText(q.key),
      qtype: TYPE_NAMES[q.qtype] ?? dnsTypes.toString(q.qtype),
      client: ecs !== undefined && ecs.sourcePrefix > 0 ? ecsAddressText(ecs) : clientAddress,
      profile: encoded.profile,
      endpoints: encoded.endpoints,
      steps,
      truncated,
    };
  }

  // ------------------------------------------------------------------------------------------------
  // Cache misses

  private resolveMiss(
    cache: Map<string, Entry>,
    key: string,
    qtype: number,
    qclass: number,
    clientAddress: string,
    ecs: ClientSubnet | undefined,
    knownDynamic: boolean,
    secure: number,
    minimalAny: boolean,
    tcp: boolean,
  ): { encoded: Encoded; scope: number; steps: readonly ExplanationStep[] } {
    const useEcs = ecs !== undefined && ecs.sourcePrefix > 0;
    const nameKey = minimalAny ? key.slice(0, -MINIMAL_ANY_SUFFIX.length) : key;
    const q: ZoneQuestion = {
      name: wireNameToText(nameKey, keyNameLength(nameKey)),
      type: TYPE_NAMES[qtype] ?? dnsTypes.toString(qtype),
      class: CLASS_NAMES[qclass] ?? `CLASS${qclass}`,
      clientAddress: useEcs ? ecsAddressText(ecs) : clientAddress,
      // always present (undefined without ECS): one object shape for the lookup and routing to read
      ecsSourcePrefix: ecs?.sourcePrefix,
    };
    const looked = lookup(this.zoneData, this.snapshot, q, this.resolveFn);
    const res = minimalAny ? oneRrset(looked) : looked;
    const question = { name: q.name, type: qtype, class: qclass };
    const sign: SignContext | undefined = this.signer === undefined ? undefined : { signer: this.signer, secure, q, tcp };
    // Signed as a query for the one type kept (no DNSKEY added to an apex ANY, one RRSIG).
    if (sign !== undefined && minimalAny) sign.qtype = keptType(res);

    // REFUSED is not cached: a flood of names outside the zone must not push the zone's answers out.
    if (res.rcode === 'REFUSED') {
      const encoded = this.encodeOutcome(question, res, res.outcomes[0]!, undefined);
      return { encoded, scope: 0, steps: encoded.steps };
    }
    if (!res.clientDependent && !knownDynamic) {
      const o = res.outcomes;
      const encoded = this.cacheStatic(
        cache,
        key,
        o.map((x) => this.encodeOutcome(question, res, x, sign)),
        o.map((x) => x.probability),
        // A name that does not exist is cached from its second query on (doorkeeper.ts): a random-name flood
        // must not push the real names' answers out.
        res.rcode !== 'NXDOMAIN' || this.doorkeeper.seen(key),
      );
      return { encoded, scope: 0, steps: encoded.steps };
    }
    // Client-dependent: remember that, and cache the encoding of the one outcome we pick, by content.
    if (!knownDynamic) remember(cache, key, DYNAMIC, this.cacheSize);
    const scope = !ecs ? 0 : !res.clientDependent ? 0 : useEcs ? (res.ecsScopePrefix ?? ecs.sourcePrefix) : 0;
    const outcome = pickOutcome(res.outcomes, this.rng);
    // A signed negative answer's NSEC lists the types the name has for this client: part of its content.
    if (sign !== undefined && secure !== 0 && outcome.answer.length === 0 && res.rcode === 'NOERROR')
      sign.types = typesOf(lookup(this.zoneData, this.snapshot, { ...q, type: 'ANY' }, this.resolveFn));
    const okey =
      `${secure}\u0000${sign?.types?.join(',') ?? ''}\u0000${key}\u0000${res.rcode}\u0000${res.aa ? 1 : 0}\u0000` +
      `${res.profile ?? ''}\u0000${outcome.endpoints.join('\u0001')}\u0000` +
      `${sectionKey(outcome.answer)}\u0000${sectionKey(outcome.authority)}\u0000${sectionKey(outcome.additional)}`;
    let enc = this.dynamicCache.get(okey);
    if (enc === undefined || enc.generation !== (this.signer?.generation ?? 0)) {
      enc = this.encodeOutcome(question, res, outcome, sign);
      remember(this.dynamicCache, okey, enc, this.dynamicCacheSize);
    }
    return { encoded: enc, scope, steps: outcome.explanation };
  }

  private cacheStatic(cache: Map<string, Entry>, key: string, variants: Encoded[], probabilities: number[], keep: boolean): Encoded {
    const cumulative: number[] = [];
    let sum = 0;
    for (const p of probabilities) cumulative.push((sum += p));
    const entry: StaticEntry = { dynamic: false, variants, cumulative, generation: this.signer?.generation ?? 0 };
    if (keep) remember(cache, key, entry, this.cacheSize);
    return pick(entry, this.rng);
  }

  /**
   * One outcome of a lookup, encoded; the answer's profile and the outcome's endpoints label its counters.
   * With DNSSEC on, the signer adds its records first (DNSKEY at the apex always; with DO the RRSIGs and
   * the NSEC of a negative answer).
   */
  private encodeOutcome(
    question: NonNullable<WireMessage['question']>,
    res: ZoneAnswer,
    o: ZoneOutcome,
    sign: SignContext | undefined,
  ): Encoded {
    if (sign === undefined || res.rcode === 'REFUSED')
      return this.encode(
        question,
        RCODES[res.rcode],
        res.aa,
        o.answer,
        o.authority,
        o.additional,
        res.profile ?? '',
        o.endpoints,
        o.explanation,
      );
    const { signer, secure, q } = sign;
    const s = signer.secure({
      qname: q.name.toLowerCase(),
      qtype: sign.qtype ?? question.type,
      rcode: res.rcode,
      answer: o.answer,
      authority: o.authority,
      additional: o.additional,
      dnssecOk: secure !== 0,
      compactOk: secure === 2,
      overBudget: sign.tcp ? 'sign' : 'refuse',
      negativeTtl: negativeTtl(this.zoneData),
      typesAt: () => sign.types ?? typesOf(lookup(this.zoneData, this.snapshot, { ...q, type: 'ANY' }, this.resolveFn)),
    });
    const enc = this.encode(
      question,
      RCODES[s.rcode],
      res.aa,
      s.answer,
      s.authority,
      s.additional,
      res.profile ?? '',
      o.endpoints,
      o.explanation,
    );
    enc.generation = signer.generation;
    enc.compactOk = secure === 2;
    return enc;
  }

  /**
   * Encodes header + question (lower-case; patched per query) + records, names compressed; also the TC
   * variant (the same header and question, no records). `profile` and `endpoints` (leaf
   * `profile/endpoint` paths) label the counters the answer increments.
   */
  private encode(
    question: NonNullable<WireMessage['question']>,
    rcode: number,
    aa: boolean,
    answers: readonly WireRecord[],
    authorities: readonly WireRecord[],
    additionals: readonly WireRecord[],
    profile: string,
    endpoints: readonly string[],
    steps: readonly ExplanationStep[],
  ): Encoded {
    const flags = FLAG_QR | (aa ? FLAG_AA : 0) | (rcode & 0xf);
    const body = encodeMessage({ flags, question, answers, authorities, additionals }, this.encodeOptions);
    // The question is written first and in full: header + question is the TC answer.
    const questionEnd = HEADER_LENGTH + keyNameLengthOf(body) + 4;
    const truncated = unpooled(body.subarray(0, questionEnd));
    writeHeader(truncated, flags | FLAG_TC, 1, 0, 0, 0);
    const qtype = body.readUInt16BE(questionEnd - 4);
    const tally = this.tallies.query(profile, rcodeName(rcode), qtypeLabel(qtype));
    const out: Encoded = {
      body,
      truncated,
      tally,
      answers: endpoints.length === 0 ? [] : endpoints.map((e) => this.tallies.answer(profile, e)),
      generation: 0,
      compactOk: false,
      profile,
      endpoints,
      steps,
      rrl: undefined,
    };
    if (profile !== '' && this.snapshot.profiles.get(profile)?.trafficViewEnrollmentStatus === 'Enabled')
      out.traffic = this.traffic.tally(profile, endpoints);
    return out;
  }
}
