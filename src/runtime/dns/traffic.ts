/**
 * Traffic View (issue 19): answered queries per profile × leaf endpoint × client country, in one-minute
 * buckets kept for 24 hours, for profiles with `trafficViewEnrollmentStatus: Enabled` (as in Azure, an
 * opt-in per profile).
 *
 * The hot path stays cheap (bench:dns): each pre-encoded answer of an enrolled profile holds a
 * `TrafficTally`, and answering a query increments its count and — for the first EXACT queries of an answer
 * in each drain period, then for one query in STRIDE with weight STRIDE — adds the client key (the ECS address
 * when the query carried one, else the source address) to a small map. Per-endpoint totals are exact; above
 * EXACT queries per answer per second the country split is a weighted sample (unbiased: every query has the
 * same chance, each sample stands for STRIDE queries). Countries are looked up only when the tallies are
 * drained (about once a second), once per distinct client key.
 */
import type { TrafficBucket, TrafficCount } from '../../core/api';
import type { GeoLookup } from '../../core/ports';

/** Queries per answer and drain period counted one by one before sampling starts. */
export const TRAFFIC_EXACT = 1024;
/** Above TRAFFIC_EXACT: one query in STRIDE recorded, with weight STRIDE (a power of two). */
export const TRAFFIC_STRIDE = 16;
/** Distinct client keys per answer and drain period; further new clients count as unknown (`ZZ`). */
const MAX_CLIENTS = 4096;
const UNKNOWN = '';

/** The traffic of one pre-encoded answer: one top-level profile and the leaf endpoints it answers. */
export class TrafficTally {
  n = 0;
  readonly clients = new Map<string, number>();
  private weighed = 0;
  private last = UNKNOWN;

  constructor(
    readonly profile: string,
    readonly endpoints: readonly string[],
  ) {}

  /** Whether the query numbered `n` (after increment) is recorded, and with what weight. */
  static weightOf(n: number): number {
    return n <= TRAFFIC_EXACT ? 1 : (n & (TRAFFIC_STRIDE - 1)) === 0 ? TRAFFIC_STRIDE : 0;
  }

  add(client: string, weight: number): void {
    const key = this.clients.size < MAX_CLIENTS || this.clients.has(client) ? client : UNKNOWN;
    this.clients.set(key, (this.clients.get(key) ?? 0) + weight);
    this.weighed += weight;
    this.last = key;
  }

  /** Moves the counts out: queries per client key, summing to exactly `n` (the unsampled tail goes to the last key). */
  take(): Map<string, number> {
    const out = new Map(this.clients);
    const rest = this.n - this.weighed;
    if (rest > 0) out.set(this.last, (out.get(this.last) ?? 0) + rest);
    this.n = 0;
    this.weighed = 0;
    this.clients.clear();
    return out;
  }
}

/** One drained cell: `[profile, endpoint ('' = no answer), country ('ZZ' unknown), queries]`. */
export type TrafficRow = [string, string, string, number];

/** The tallies of one Responder, interned by (profile, endpoints). */
export class TrafficTallies {
  private readonly tallies = new Map<string, TrafficTally>();

  tally(profile: string, endpoints: readonly string[]): TrafficTally {
    const key = `${profile}\u0000${endpoints.join('\u0001')}`;
    let t = this.tallies.get(key);
    if (t === undefined) this.tallies.set(key, (t = new TrafficTally(profile, endpoints)));
    return t;
  }

  /** Everything counted since the last drain, by country (looked up now, once per distinct client). */
  drain(geo: GeoLookup): TrafficRow[] {
    const country = new Map<string, string>();
    const countryOf = (client: string): string => {
      let c = country.get(client);
      if (c === undefined) {
        c = client === UNKNOWN ? 'ZZ' : (geo.locate(client)?.country?.toUpperCase() ?? 'ZZ');
        country.set(client, c);
      }
      return c;
    };
    const cells = new Map<string, TrafficRow>();
    for (const t of this.tallies.values()) {
      if (t.n === 0) continue;
      for (const [client, queries] of t.take()) {
        const c = countryOf(client);
        for (const endpoint of t.endpoints.length > 0 ? t.endpoints : ['']) {
          const k = `${t.profile}\u0000${endpoint}\u0000${c}`;
          const cell = cells.get(k);
          if (cell) cell[3] += queries;
          else cells.set(k, [t.profile, endpoint, c, queries]);
        }
      }
    }
    return [...cells.values()];
  }
}

export const TRAFFIC_BUCKET_MS = 60_000;
const KEEP_MS = 24 * 60 * 60_000;
/** Cells per profile and bucket; beyond it, counts go to the endpoint's `ZZ` cell. */
const MAX_CELLS = 2000;

/**
 * The runtime's Traffic View store (the primary's, fed by its own responder or the DNS workers' drains):
 * one-minute buckets for 24 hours, bounded per profile and bucket.
 */
export class TrafficStore {
  /** bucket start (ms) → profile → `endpoint\0country` → queries. */
  private readonly buckets = new Map<number, Map<string, Map<string, number>>>();

  /** Adds drained rows at time `at`; returns the profiles whose current bucket changed. */
  add(at: number, rows: readonly TrafficRow[]): Set<string> {
    const start = Math.floor(at / TRAFFIC_BUCKET_MS) * TRAFFIC_BUCKET_MS;
    const touched = new Set<string>();
    if (rows.length === 0) return touched;
    let bucket = this.buckets.get(start);
    if (!bucket) {
      this.buckets.set(start, (bucket = new Map()));
      for (const k of this.buckets.keys()) if (k < start - KEEP_MS) this.buckets.delete(k);
    }
    for (const [profile, endpoint, country, queries] of rows) {
      let cells = bucket.get(profile);
      if (!cells) bucket.set(profile, (cells = new Map()));
      let key = `${endpoint}\u0000${country}`;
      if (!cells.has(key) && cells.size >= MAX_CELLS) key = `${endpoint}\u0000ZZ`;
      cells.set(key, (cells.get(key) ?? 0) + queries);
      touched.add(profile);
    }
    return touched;
  }

  /** The profile's buckets at or after `since` (ms), oldest first. */
  series(profile: string, since = 0): TrafficBucket[] {
    const out: TrafficBucket[] = [];
    for (const [start, bucket] of [...this.buckets].sort((a, b) => a[0] - b[0])) {
      if (start + TRAFFIC_BUCKET_MS <= since) continue;
      const b = this.bucket(profile, start, bucket);
      if (b) out.push(b);
    }
    return out;
  }

  /** The bucket containing `at` for a profile (undefined when it has no queries there). */
  current(profile: string, at: number): TrafficBucket | undefined {
    const start = Math.floor(at / TRAFFIC_BUCKET_MS) * TRAFFIC_BUCKET_MS;
    const bucket = this.buckets.get(start);
    return bucket ? this.bucket(profile, start, bucket) : undefined;
  }

  /** Forgets a profile (deleted: a recreated profile starts fresh). */
  forget(profile: string): void {
    for (const b of this.buckets.values()) b.delete(profile);
  }

  private bucket(profile: string, start: number, bucket: Map<string, Map<string, number>>): TrafficBucket | undefined {
    const cells = bucket.get(profile);
    if (!cells || cells.size === 0) return undefined;
    const counts: TrafficCount[] = [...cells]
      .map(([k, queries]) => {
        const i = k.indexOf('\u0000');
        return { country: k.slice(i + 1), endpoint: k.slice(0, i), queries };
      })
      .sort((a, b) => b.queries - a.queries || a.endpoint.localeCompare(b.endpoint) || a.country.localeCompare(b.country));
    return { start: new Date(start).toISOString(), counts };
  }
}
