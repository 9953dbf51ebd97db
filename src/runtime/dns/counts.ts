/**
 * Per-answer DNS counters, kept inside the Responder without per-query allocation or callbacks: every label
 * tuple (profile, rcode, qtype) and (profile, endpoint) is interned once as a small mutable object, each
 * pre-encoded answer holds references to its tuples, and answering a query only increments them. Readers
 * (the /metrics collector at scrape time, the IPC from DNS worker processes) copy the counts out with
 * `counts()`.
 */

/** Counts of answered queries by label tuple, plain data (crosses the worker IPC as JSON). */
export interface DnsCounts {
  /** `[profile, rcode, qtype, count]`; profile `''` when the name matched no profile (apex, NXDOMAIN, REFUSED, errors). */
  queries: Array<[string, string, string, number]>;
  /** `[profile, endpoint, count]`; endpoint = the leaf endpoint's `profile/endpoint` path through nesting. */
  answers: Array<[string, string, number]>;
}

export interface QueryTally {
  readonly profile: string;
  readonly rcode: string;
  readonly qtype: string;
  n: number;
}

export interface AnswerTally {
  readonly profile: string;
  readonly endpoint: string;
  n: number;
}

const RCODE_NAMES: Record<number, string> = {
  0: 'NOERROR',
  1: 'FORMERR',
  2: 'SERVFAIL',
  3: 'NXDOMAIN',
  4: 'NOTIMP',
  5: 'REFUSED',
  16: 'BADVERS',
  23: 'BADCOOKIE',
};

export function rcodeName(rcode: number): string {
  return RCODE_NAMES[rcode] ?? `RCODE${rcode}`;
}

/**
 * The qtype label: a fixed set of common types, everything else `OTHER` — so clients sending random types
 * cannot create an unbounded number of series. `''` when the question could not be read (FORMERR, NOTIMP).
 */
const QTYPE_LABELS = new Map<number, string>([
  [1, 'A'],
  [2, 'NS'],
  [5, 'CNAME'],
  [6, 'SOA'],
  [12, 'PTR'],
  [15, 'MX'],
  [16, 'TXT'],
  [28, 'AAAA'],
  [33, 'SRV'],
  [35, 'NAPTR'],
  [43, 'DS'],
  [48, 'DNSKEY'],
  [64, 'SVCB'],
  [65, 'HTTPS'],
  [252, 'AXFR'],
  [251, 'IXFR'],
  [255, 'ANY'],
  [257, 'CAA'],
]);

export function qtypeLabel(qtype: number | undefined): string {
  if (qtype === undefined) return '';
  return QTYPE_LABELS.get(qtype) ?? 'OTHER';
}

/** The interned tallies of one Responder. Counts only grow (snapshot changes keep them). */
export class DnsTallies {
  private readonly queries = new Map<string, QueryTally>();
  private readonly answers = new Map<string, AnswerTally>();

  query(profile: string, rcode: string, qtype: string): QueryTally {
    const key = `${profile}\u0000${rcode}\u0000${qtype}`;
    let t = this.queries.get(key);
    if (t === undefined) this.queries.set(key, (t = { profile, rcode, qtype, n: 0 }));
    return t;
  }

  answer(profile: string, endpoint: string): AnswerTally {
    const key = `${profile}\u0000${endpoint}`;
    let t = this.answers.get(key);
    if (t === undefined) this.answers.set(key, (t = { profile, endpoint, n: 0 }));
    return t;
  }

  /** A copy of every non-zero count. */
  counts(): DnsCounts {
    const out: DnsCounts = { queries: [], answers: [] };
    for (const t of this.queries.values()) if (t.n > 0) out.queries.push([t.profile, t.rcode, t.qtype, t.n]);
    for (const t of this.answers.values()) if (t.n > 0) out.answers.push([t.profile, t.endpoint, t.n]);
    return out;
  }
}

/**
 * Sums the counts of several DNS worker processes (`serve --workers N`). Each worker reports its
 * cumulative counts; when a worker exits its last report is kept in a retired total, so the sum never goes
 * backwards when a worker is replaced (queries answered after its last report are lost with it).
 */
export class DnsCountsAggregate {
  private readonly live = new Map<number, DnsCounts>();
  private readonly retired = new Map<string, number>();

  get size(): number {
    return this.live.size;
  }

  set(worker: number, counts: DnsCounts): void {
    this.live.set(worker, counts);
  }

  retire(worker: number): void {
    const c = this.live.get(worker);
    if (!c) return;
    this.live.delete(worker);
    addInto(this.retired, c);
  }

  total(): DnsCounts {
    const sum = new Map(this.retired);
    for (const c of this.live.values()) addInto(sum, c);
    const out: DnsCounts = { queries: [], answers: [] };
    for (const [k, n] of sum) {
      const parts = k.split('\u0000');
      if (parts[0] === 'q') out.queries.push([parts[1]!, parts[2]!, parts[3]!, n]);
      else out.answers.push([parts[1]!, parts[2]!, n]);
    }
    return out;
  }
}

function addInto(into: Map<string, number>, c: DnsCounts): void {
  for (const [p, r, t, n] of c.queries) {
    const k = `q\u0000${p}\u0000${r}\u0000${t}`;
    into.set(k, (into.get(k) ?? 0) + n);
  }
  for (const [p, e, n] of c.answers) {
    const k = `a\u0000${p}\u0000${e}`;
    into.set(k, (into.get(k) ?? 0) + n);
  }
}
