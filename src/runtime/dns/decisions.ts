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

/** `JSON.stringify(r)`, with the trail's JSON made once per trail (dnstap's extra, per sampled query). */
export function decisionJson(r: DecisionRecord, snapshot: RoutingSnapshot): string {
  const a = analyse(r.steps, snapshot);
  let s = `{"t":"${r.t}","client":${q(r.client)},"source":${q(r.source)},"proto":"${r.proto}","qname":${q(r.qname)},"qtype":${q(r.qtype)},"rcode":"${r.rcode}"`;
  if (r.profile !== undefined) s += `,"profile":${q(r.profile)}`;
  if (r.method !== undefined) s += `,"method":"${r.method}"`;
  s += `,"endpoints":${q(r.endpoints)}`;
  if (r.rule !== undefined) s += `,"rule":${q(r.rule)}`;
  if (r.allDegraded) s += ',"allDegraded":true';
  if (r.overrides !== undefined) s += `,"overrides":${q(r.overrides)}`;
  if (r.drill !== undefined) s += `,"drill":"${r.drill}"`;
  if (r.truncated) s += ',"truncated":true';
  return `${s},"revision":${r.revision},"serial":${r.serial},${a.stepsJson}}`;
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
