/**
 * How one probe's facts become pass/fail beyond the status code (tmkit extensions, docs/health.md): the
 * certificate check of HTTPS probes and the latency rule. Pure: the prober (src/runtime/monitor/probe.ts)
 * gathers the facts (the peer certificate, what TLS said of its chain, the clock, the wall time) and calls
 * these; the threshold of consecutive failures stays in machine.ts.
 */

const DAY_MS = 86_400_000;

/** What the prober saw of a server certificate. */
export interface CertificateFacts {
  /** ms since epoch of notBefore / notAfter (NaN when unreadable). */
  validFrom: number;
  validTo: number;
  /** The subject's common name, and the DNS/IP names of subjectAltName (lower-cased). */
  names: string[];
  /** OpenSSL's verdict on the chain (`DEPTH_ZERO_SELF_SIGNED_CERT`, …); undefined when it chains to a trusted CA. */
  chainError?: string;
  /** The certificate does not carry the probed host name (Node's `checkServerIdentity` said so). */
  hostMismatch: boolean;
}

/** Whole days between two times, at least 1 ("3 days ago"; "1 day" for anything under two days). */
function days(ms: number): string {
  const n = Math.max(1, Math.floor(Math.abs(ms) / DAY_MS));
  return `${n} day${n === 1 ? '' : 's'}`;
}

/** OpenSSL's chain errors, as short reasons. */
const CHAIN_REASONS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in the chain',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'untrusted issuer',
  UNABLE_TO_GET_ISSUER_CERT: 'untrusted issuer',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'untrusted issuer',
  CERT_UNTRUSTED: 'untrusted issuer',
  CERT_REVOKED: 'certificate revoked',
  CERT_SIGNATURE_FAILURE: 'bad certificate signature',
};

/*
 * A certificate check (certificateValidation Enabled), first matching row wins:
 *
 * | fact                                         | probe   | reason                                            |
 * |----------------------------------------------|---------|---------------------------------------------------|
 * | now > notAfter                               | failure | `certificate expired 3 days ago`                  |
 * | now < notBefore                              | failure | `certificate not valid until 2030-01-01`          |
 * | chain error (self-signed, unknown issuer, …) | failure | `self-signed`, `untrusted issuer`, …              |
 * | host name not in the certificate             | failure | `hostname mismatch: cert for a.example, probed b.example` |
 * | otherwise                                    | (the status code decides)                                   |
 *
 * Expiry comes first: it is the one an operator can act on at once whatever else is wrong. TLS errors that
 * are about dates (CERT_HAS_EXPIRED, CERT_NOT_YET_VALID) are decided by the dates above, with the clock the
 * runtime is given, and Node's own name check (ERR_TLS_CERT_ALTNAME_INVALID, when SNI was sent) by the host
 * name row.
 */
const DECIDED_ELSEWHERE = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID']);
export function certificateFailure(c: CertificateFacts, now: number, probedHost: string): string | undefined {
  if (c.validTo < now) return `certificate expired ${days(now - c.validTo)} ago`;
  if (c.validFrom > now) return `certificate not valid until ${new Date(c.validFrom).toISOString().slice(0, 10)}`;
  if (c.chainError !== undefined && !DECIDED_ELSEWHERE.has(c.chainError)) {
    return CHAIN_REASONS[c.chainError] ?? `untrusted certificate (${c.chainError})`;
  }
  if (c.hostMismatch)
    return `hostname mismatch: cert for ${c.names.length > 0 ? c.names.slice(0, 3).join(', ') : 'no name'}, probed ${probedHost}`;
  return undefined;
}

/*
 * The expiry warning (never a failure): warningDays 0 warns never.
 *
 * | time left until notAfter        | warning                                   |
 * |---------------------------------|-------------------------------------------|
 * | ≤ 0 (expired)                   | none: the probe failed already            |
 * | < warningDays                   | `certificate expires in 5 days (2026-…)`  |
 * | otherwise                       | none                                      |
 */
export function certificateWarning(validTo: number, now: number, warningDays: number): string | undefined {
  const left = validTo - now;
  if (!(left > 0) || warningDays <= 0 || left >= warningDays * DAY_MS) return undefined;
  const n = Math.floor(left / DAY_MS);
  const when = n === 0 ? 'in less than a day' : `in ${n} day${n === 1 ? '' : 's'}`;
  return `certificate expires ${when} (${new Date(validTo).toISOString()})`;
}

/*
 * The latency rule (degradedLatencyMs set): a probe that succeeded otherwise fails when the endpoint took
 * longer than the threshold; exactly the threshold still passes. Whole milliseconds in the reason.
 *
 * The endpoint's latency is the probe's wall time less `stalledMs`, the time tmkit's own event loop was blocked
 * during the probe (start-up, a large apply, a GC pause): then no socket callback could run, so an answer that
 * came in waited for tmkit, not for the endpoint. Which part of a stall hid the endpoint's own time cannot be
 * known, so the rule only says `slow` when the endpoint was slower than the threshold even if every stalled
 * millisecond was tmkit's, and `unknown` when only the stall made the probe look slow (the prober measures
 * again once its event loop is quiet: monitor/monitor.ts).
 *
 * | probe result | wall time − stalledMs | wall time     | outcome                          |
 * |--------------|-----------------------|---------------|----------------------------------|
 * | failure      | any                   | any           | unchanged (its own reason)       |
 * | success      | > threshold           | > threshold   | failure `slow: 812 ms > 500 ms`  |
 * | success      | ≤ threshold           | > threshold   | success, latency `unknown`       |
 * | success      | ≤ threshold           | ≤ threshold   | success                          |
 */
export function slowFailure(latencyMs: number, degradedLatencyMs: number | undefined): string | undefined {
  if (degradedLatencyMs === undefined || !(latencyMs > degradedLatencyMs)) return undefined;
  return `slow: ${Math.ceil(latencyMs)} ms > ${degradedLatencyMs} ms`;
}

/** The latency rule over a probe's wall time and the stall inside it (the table above). */
export function latencyJudgement(
  wallMs: number,
  stalledMs: number,
  degradedLatencyMs: number | undefined,
): { latencyMs: number; slow?: string; unknown?: true } {
  const latencyMs = Math.max(0, wallMs - Math.max(0, stalledMs));
  const slow = slowFailure(latencyMs, degradedLatencyMs);
  if (slow !== undefined) return { latencyMs, slow };
  return slowFailure(wallMs, degradedLatencyMs) !== undefined ? { latencyMs, unknown: true } : { latencyMs };
}
