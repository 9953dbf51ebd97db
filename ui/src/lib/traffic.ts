import type { TrafficBucket, TrafficReport } from '../api/types';

/** Country code the traffic API uses when the client's country is unknown. */
export const UNKNOWN_COUNTRY = 'ZZ';

export interface CountryTraffic {
  country: string;
  total: number;
  /** Queries per answering endpoint (`''` = no answer). */
  byEndpoint: Map<string, number>;
  /** The endpoint that answered most of this country's queries (ties: the lexically first). */
  top: string;
}

export interface TrafficRow {
  country: string;
  endpoint: string;
  queries: number;
  /** Share of the country's queries (0–1). */
  share: number;
}

export interface TrafficSummary {
  total: number;
  countries: Map<string, CountryTraffic>;
  /** Queries per endpoint over every country. */
  endpoints: Map<string, number>;
  /** One row per (country, endpoint), most queries first (then country, endpoint). */
  rows: TrafficRow[];
  /** Queries per bucket, oldest first. */
  series: Array<{ start: string; total: number }>;
  /** The largest country total (for shading). */
  maxCountry: number;
}

/** Buckets ordered by start, oldest first; invalid or zero counts dropped. */
export function normalizeBuckets(buckets: readonly TrafficBucket[]): TrafficBucket[] {
  return [...buckets]
    .filter((b) => Number.isFinite(Date.parse(b.start)))
    .map((b) => ({ start: b.start, counts: b.counts.filter((c) => Number.isFinite(c.queries) && c.queries > 0) }))
    .sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
}

/**
 * A live `traffic` event's bucket folded into a report: a bucket with the same start replaces the old one
 * (the server sends the whole, updated bucket), a new one is added in order; buckets older than `sinceMs`
 * fall out of the window.
 */
export function mergeBucket(report: TrafficReport, bucket: TrafficBucket, sinceMs?: number): TrafficReport {
  const t = Date.parse(bucket.start);
  const kept = report.buckets.filter((b) => Date.parse(b.start) !== t);
  kept.push(bucket);
  const buckets = normalizeBuckets(kept).filter(
    (b) => sinceMs === undefined || Date.parse(b.start) + report.bucketSeconds * 1000 > sinceMs,
  );
  const end = new Date(Math.max(Date.parse(report.to) || 0, t + report.bucketSeconds * 1000)).toISOString();
  return { ...report, to: end, buckets };
}

function topOf(byEndpoint: Map<string, number>): string {
  let best = '';
  let bestN = -1;
  for (const [e, n] of byEndpoint)
    if (n > bestN || (n === bestN && e < best)) {
      best = e;
      bestN = n;
    }
  return best;
}

/** Adds up the buckets: per country, per endpoint, per (country, endpoint) and per bucket. */
export function summarizeTraffic(buckets: readonly TrafficBucket[]): TrafficSummary {
  const countries = new Map<string, CountryTraffic>();
  const endpoints = new Map<string, number>();
  const series: TrafficSummary['series'] = [];
  let total = 0;
  for (const b of normalizeBuckets(buckets)) {
    let bucketTotal = 0;
    for (const c of b.counts) {
      const country = c.country === '' ? UNKNOWN_COUNTRY : c.country.toUpperCase();
      let ct = countries.get(country);
      if (!ct) {
        ct = { country, total: 0, byEndpoint: new Map(), top: '' };
        countries.set(country, ct);
      }
      ct.total += c.queries;
      ct.byEndpoint.set(c.endpoint, (ct.byEndpoint.get(c.endpoint) ?? 0) + c.queries);
      endpoints.set(c.endpoint, (endpoints.get(c.endpoint) ?? 0) + c.queries);
      bucketTotal += c.queries;
    }
    series.push({ start: b.start, total: bucketTotal });
    total += bucketTotal;
  }
  const rows: TrafficRow[] = [];
  let maxCountry = 0;
  for (const ct of countries.values()) {
    ct.top = topOf(ct.byEndpoint);
    maxCountry = Math.max(maxCountry, ct.total);
    for (const [endpoint, queries] of ct.byEndpoint) rows.push({ country: ct.country, endpoint, queries, share: queries / ct.total });
  }
  rows.sort(
    (a, b) =>
      b.queries - a.queries ||
      (a.country < b.country ? -1 : a.country > b.country ? 1 : 0) ||
      (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0),
  );
  return { total, countries, endpoints, rows, series, maxCountry };
}

/**
 * How strongly a country is shaded for `n` of `max` queries: 0 for none, else between 0.3 and 1 on a log
 * scale (so one query is visible next to a million).
 */
export function volumeIntensity(n: number, max: number): number {
  if (n <= 0 || max <= 0) return 0;
  if (max === 1) return 1;
  return 0.3 + 0.7 * (Math.log1p(n) / Math.log1p(max));
}
