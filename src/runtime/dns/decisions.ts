/**
 * The routing decision behind one answer (docs/observability.md#decisions): what dnstap's `extra` carries and
 * what the decision log (`GET /v1/decisions`, `tmkit decisions`, `--decision-log`) keeps. Made from the same
 * explanation steps `tmkit resolve` prints (core/routing), for the real query: which profile and method,
 * which endpoints were answered, the rule that decided (the priority rank, geo chain, subnet range,
 * performance region or weight draw, in the step's words), whether the all-degraded fallback, an override or
 * a drill applied, and the snapshot it was answered from (store revision, SOA serial).
 *
 * Built only for sampled queries (`--dnstap-sample`, `--decision-sample`): the unsampled hot path pays one
 * counter decrement.
 */
import { parseIp, parsePrefix, prefixRange, rangeContains } from '../../core/net/ip';
import type { DecisionRecord } from '../../core/api';
import type { ExplanationStep, RoutingSnapshot } from '../../core/routing/types';

export type { DecisionRecord };

/** What the responder knows about the answer it just gave (set only when asked to explain). */
export interface Explained {
  rcode: string;
  qname: string;
  qtype: string;
  client: string;
  profile: string | undefined;
  endpoints: readonly string[];
  steps: readonly ExplanationStep[];
  truncated: boolean;
}

const DECIDING = new Set(['select', 'geo-match', 'subnet-match', 'subnet-override', 'fallback', 'pick', 'nodata', 'nxdomain']);
const DRILL = /\bdr-[0-9a-f]{8}\b/;

/** What a trail says, worked out once per trail: a cached answer's steps are one array for every query it serves. */
interface Analysis {
  rule: string | undefined;
  allDegraded: true | undefined;
  overrides: string[] | undefined;
  drill: string | undefined;
  /** `"steps":[…]` for dnstap's extra. */
  stepsJson: string;
}

// A trail is made under one snapshot and cached answers are dropped when it is swapped, so what the snapshot
// said of its endpoints' overrides holds for as long as the trail is served.
const analyses = new WeakMap<readonly ExplanationStep[], Analysis>();

function analyse(steps: readonly ExplanationStep[], snapshot: RoutingSnapshot): Analysis {
  let a = analyses.get(steps);
  if (a !== undefined) return a;
  let rule: string | undefined;
  let allDegraded: true | undefined;
  let drill: string | undefined;
  let overrides: string[] | undefined;
  for (const s of steps) {
    if (DECIDING.has(s.kind)) rule = s.detail;
    if (s.detail.includes('all-degraded fallback')) allDegraded = true;
    drill ??= DRILL.exec(s.detail)?.[0];
    if (s.endpoint !== undefined) {
      const o = snapshot.health.override?.(s.profile, s.endpoint);
      const line = o && `${s.profile}/${s.endpoint}: ${o.reason}`;
      if (line && !overrides?.includes(line)) (overrides ??= []).push(line);
    }
  }
  if (rule === undefined && steps.length > 0) rule = steps[steps.length - 1]!.detail;
  if (overrides) for (const o of overrides) drill ??= DRILL.exec(o)?.[0];
  a = { rule, allDegraded, overrides, drill, stepsJson: `"steps":${JSON.stringify(steps)}` };
  analyses.set(steps, a);
  return a;
}

let lastAt = Number.NaN;
let lastIso = '';
/** ISO 8601 of `at` (ms), once per millisecond. */
function iso(at: number): string {
  const ms = Math.floor(at);
  if (ms !== lastAt) {
    lastAt = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** The record for one explained answer (every key present; JSON leaves out the undefined ones). */
export function decisionRecord(
  x: Explained,
  at: number,
  source: string,
  proto: 'udp' | 'tcp',
  snapshot: RoutingSnapshot,
  revision: number,
  serial: number,
): DecisionRecord {
  const a = analyse(x.steps, snapshot);
  const profile = x.profile !== undefined && x.profile !== '' ? x.profile : undefined;
  // Built in one order (the order `tmkit decisions --json` and dnstap's extra show).
  return {
    t: iso(at),
    client: x.client,
    source,
    proto,
    qname: x.qname,
    qtype: x.qtype,
    rcode: x.rcode,
    profile,
    method: profile !== undefined ? snapshot.profiles.get(profile)?.trafficRoutingMethod : undefined,
    endpoints: x.endpoints as string[],
    rule: a.rule,
    allDegraded: a.allDegraded,
    overrides: a.overrides,
    drill: a.drill,
    truncated: x.truncated ? true : undefined,
    revision,
    serial,
    steps: x.steps as ExplanationStep[],
  };
}

const q = JSON.stringify;

/**
 * What follows `source` in an answer's decision JSON (proto, qname, qtype, rcode, profile to steps, and the
 * closing brace), as UTF-8 bytes: the same for every query a cached answer serves, so made once per trail,
 * question, snapshot, revision and serial (a variant per transport and for a truncated answer).
 */
interface Tail {
  snapshot: RoutingSnapshot;
  revision: number;
  serial: number;
  qname: string;
  qtype: string;
  rcode: string;
  profile: string | undefined;
  endpoints: readonly string[];
  /** By (tcp ? 2 : 0) + (truncated ? 1 : 0). */
  bytes: (Buffer | undefined)[];
}
const tails = new WeakMap<readonly ExplanationStep[], Tail>();

/** The bytes of `x`'s decision JSON after `source` (see Tail), for `writeDecisionJson`. */
export function decisionTail(x: Explained, proto: 'udp' | 'tcp', snapshot: RoutingSnapshot, revision: number, serial: number): Buffer {
  let t = tails.get(x.steps);
  if (
    t === undefined ||
    t.snapshot !== snapshot ||
    t.revision !== revision ||
    t.serial !== serial ||
    t.qname !== x.qname ||
    t.qtype !== x.qtype ||
    t.rcode !== x.rcode ||
    t.profile !== x.profile ||
    t.endpoints !== x.endpoints
  ) {
    t = {
      snapshot,
      revision,
      serial,
      qname: x.qname,
      qtype: x.qtype,
      rcode: x.rcode,
      profile: x.profile,
      endpoints: x.endpoints,
      bytes: [],
    };
    tails.set(x.steps, t);
  }
  const i = (proto === 'tcp' ? 2 : 0) + (x.truncated ? 1 : 0);
  return (t.bytes[i] ??= tailBytes(x, proto, snapshot, revision, serial));
}

function tailBytes(x: Explained, proto: 'udp' | 'tcp', snapshot: RoutingSnapshot, revision: number, serial: number): Buffer {
  const a = analyse(x.steps, snapshot);
  const profile = x.profile !== undefined && x.profile !== '' ? x.profile : undefined;
  const method = profile !== undefined ? snapshot.profiles.get(profile)?.trafficRoutingMethod : undefined;
  let s = `,"proto":"${proto}","qname":${q(x.qname)},"qtype":${q(x.qtype)},"rcode":${q(x.rcode)}`;
  if (profile !== undefined) s += `,"profile":${q(profile)}`;
  if (method !== undefined) s += `,"method":${q(method)}`;
  s += `,"endpoints":${q(x.endpoints)}`;
  if (a.rule !== undefined) s += `,"rule":${q(a.rule)}`;
  if (a.allDegraded) s += ',"allDegraded":true';
  if (a.overrides !== undefined) s += `,"overrides":${q(a.overrides)}`;
  if (a.drill !== undefined) s += `,"drill":${q(a.drill)}`;
  if (x.truncated) s += ',"truncated":true';
  return Buffer.from(`${s},"revision":${revision},"serial":${serial},${a.stepsJson}}`, 'utf8');
}

let headAt = Number.NaN;
let head: Buffer = Buffer.alloc(0);
/** `{"t":"ISO","client":` for the millisecond of `at`. */
function headOf(at: number): Buffer {
  const ms = Math.floor(at);
  if (ms !== headAt) {
    headAt = ms;
    head = Buffer.from(`{"t":"${iso(ms)}","client":`, 'latin1');
  }
  return head;
}
const SOURCE = Buffer.from(',"source":', 'latin1');

/**
 * Writes `JSON.stringify(decisionRecord(x, at, source, proto, snapshot, revision, serial))` as UTF-8 into
 * `buf` at `off` (dnstap's extra, per sampled query, without making the record), given `tail =
 * decisionTail(x, proto, snapshot, revision, serial)`, and returns the end offset. `buf` must have
 * `decisionJsonRoom(x, source, tail)` bytes free at `off`. Only the time and the two addresses are written per
 * query; the rest is copied from bytes made once per answer.
 */
export function writeDecisionJson(buf: Buffer, off: number, x: Explained, at: number, source: string, tail: Buffer): number {
  const h = headOf(at);
  buf.set(h, off);
  off = jsonString(buf, off + h.length, x.client);
  buf.set(SOURCE, off);
  off = jsonString(buf, off + SOURCE.length, source);
  buf.set(tail, off);
  return off + tail.length;
}

/** The most bytes `writeDecisionJson` takes for this answer (a JSON escape is at most 6 bytes a UTF-16 unit). */
export function decisionJsonRoom(x: Explained, source: string, tail: Buffer): number {
  return 64 + 6 * (x.client.length + source.length) + tail.length;
}

/** Writes `JSON.stringify(s)`: by hand when it is printable ASCII without quotes or backslashes, else through UTF-8. */
function jsonString(buf: Buffer, off: number, s: string): number {
  const start = off;
  buf[off++] = 0x22;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return start + buf.write(q(s), start, 'utf8');
    buf[off++] = c;
  }
  buf[off++] = 0x22;
  return off;
}

export interface DecisionQuery {
  profile?: string;
  /** An address (exact) or a prefix `a.b.c.0/24` the routed client must be in. */
  client?: string;
  /** Only records answered at or after this time (ms since the epoch). */
  since?: number;
  /** The newest this many (default 100). */
  limit?: number;
}

/** A bounded ring of decision records, newest last; the oldest goes when it is full. */
export class DecisionRing {
  private readonly items: (DecisionRecord | undefined)[];
  private next = 0;
  private count = 0;
  /** Records ever added (what a follower compares against). */
  added = 0;

  constructor(readonly capacity = 10_000) {
    this.items = new Array(Math.max(1, capacity));
  }

  add(r: DecisionRecord): void {
    this.items[this.next] = r;
    this.next = (this.next + 1) % this.items.length;
    if (this.count < this.items.length) this.count++;
    this.added++;
  }

  get size(): number {
    return this.count;
  }

  /** The records added after the `added` count `mark`, oldest first (at most the ring's capacity: older ones are gone). */
  after(mark: number): DecisionRecord[] {
    const n = Math.min(this.added - mark, this.count);
    const out: DecisionRecord[] = new Array(Math.max(0, n));
    for (let i = 0; i < n; i++) out[i] = this.items[(this.next - n + i + this.items.length) % this.items.length]!;
    return out;
  }

  /** The records matching `q`, oldest first, at most `limit` (the newest ones). */
  query(q: DecisionQuery, matchClient?: (client: string) => boolean): DecisionRecord[] {
    const limit = Math.max(1, Math.min(q.limit ?? 100, this.items.length));
    const profile = q.profile?.toLowerCase();
    const out: DecisionRecord[] = [];
    for (let i = 0; i < this.count && out.length < limit; i++) {
      const r = this.items[(this.next - 1 - i + this.items.length) % this.items.length]!;
      if (q.since !== undefined && Date.parse(r.t) < q.since) continue;
      if (profile !== undefined && r.profile?.toLowerCase() !== profile) continue;
      if (matchClient !== undefined && !matchClient(r.client)) continue;
      out.push(r);
    }
    return out.reverse();
  }
}

/**
 * A test for `client` of a decision query: an address (exact, any spelling) or a prefix (`81.2.69.0/24`,
 * host bits allowed); throws naming the rule for anything else.
 */
export function clientMatcher(text: string): (client: string) => boolean {
  const p = parsePrefix(text, { strict: false });
  if ('error' in p) throw new Error(`client ${JSON.stringify(text)}: ${p.error}; give an address or a prefix like 81.2.69.0/24`);
  const range = prefixRange(p, p.length);
  return (client: string) => {
    const ip = parseIp(client);
    return ip !== undefined && rangeContains(range, ip);
  };
}
