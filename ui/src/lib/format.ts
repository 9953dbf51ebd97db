/** Display helpers. `now` is passed in so that the output is a function of its inputs. */

export function ago(iso: string | undefined, now: number): string {
  if (iso === undefined) return '—';
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  const s = Math.round((now - t) / 1000);
  if (s < 0) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** How long until a future time: `in 42 s`, `in 5 min`, `in 2 h`, `in 1 d` (`now` once it is past). */
export function until(iso: string, now: number): string {
  const s = Math.round((Date.parse(iso) - now) / 1000);
  if (!Number.isFinite(s)) return iso;
  if (s <= 0) return 'now';
  if (s < 60) return `in ${s} s`;
  if (s < 3600) return `in ${Math.floor(s / 60)} min`;
  if (s < 86400) return `in ${Math.floor(s / 3600)} h`;
  return `in ${Math.floor(s / 86400)} d`;
}

/** `HH:MM:SS` in UTC (the server's timestamps are UTC; so is the timeline's axis). */
export function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

export function percent(p: number): string {
  if (p >= 0.9995) return '100%';
  if (p < 0.0005) return '0%';
  return `${(p * 100).toFixed(p < 0.1 ? 1 : 0)}%`;
}

/** The modRevision in a tmkit ETag (`"<modRevision>-<16 hex>"`, docs/api.md "ETags and conditions"). */
export function etagRevision(etag: string): number | undefined {
  const m = /^(?:W\/)?"?(\d+)-[0-9a-f]+"?$/.exec(etag);
  return m ? Number(m[1]) : undefined;
}

/** Worst-case detection time (docs/health.md "Worst-case failover"): interval × (tolerated + 1) + timeout. */
export function detectionSeconds(m: { intervalInSeconds: number; toleratedNumberOfFailures: number; timeoutInSeconds: number }): number {
  return m.intervalInSeconds * (m.toleratedNumberOfFailures + 1) + m.timeoutInSeconds;
}
