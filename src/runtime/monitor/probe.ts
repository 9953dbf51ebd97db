/**
 * One health probe (reference/behaviors.md §8): HTTP/HTTPS GET with undici, or a TCP connect. Reports
 * raw pass/fail with a short reason; thresholds live in src/core/health/machine.ts.
 *
 * Every probe is independent (its own undici Client, destroyed afterwards: no keep-alive, no TLS session
 * reuse) and never outlives its timeout: one AbortSignal covers name resolution, connect, TLS and the
 * response headers; the body is never read (the connection is destroyed once the status is known).
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { checkServerIdentity, type PeerCertificate, type TLSSocket } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { Client, buildConnector } from 'undici';
import type { ErrorCode } from '../../core/codes';
import { TmkitError } from '../../core/diagnostics';
import { certificateFailure, certificateWarning, latencyJudgement } from '../../core/health/probe-rules';
import { statusExpected, type ProbeTarget } from '../../core/health/targets';
import { ProbeResolver, ResolveError } from './resolver';

export interface ProbeOutcome {
  ok: boolean;
  /** `status 200`, `connected`, `status 503`, `timeout`, `connection refused`, `connection reset`, `TLS error`, `DNS: no address`... */
  reason: string;
  statusCode?: number;
  /** The address probed (after resolving an FQDN). */
  address?: string;
  /**
   * The endpoint's latency: the whole probe's wall time (name resolution, connect, TLS, response headers) less
   * `stalledMs`.
   */
  latencyMs: number;
  /** Milliseconds of the probe during which tmkit's own event loop was blocked (loop-stalls.ts); absent: none. */
  stalledMs?: number;
  /**
   * Only a stall made it slower than `degradedLatencyMs`: whether the endpoint is slow is not known, and the
   * probe counts as a success unless measured again (core/health/probe-rules.ts `latencyJudgement`).
   */
  latencyUnknown?: true;
  /** HTTPS: the server certificate seen (whether or not it was validated). */
  certificate?: ProbeCertificate;
}

/** What an HTTPS probe saw of the server certificate (for the status API, the expiry metric and warnings). */
export interface ProbeCertificate {
  /** notAfter, ms since epoch. */
  validTo: number;
  /** Subject CN and subjectAltName entries. */
  names: string[];
  /** With certificateValidation Enabled: `certificate expires in 5 days (…)` inside the warning window. */
  warning?: string;
}

/** Resolves a host name to addresses (default: a shared ProbeResolver: /etc/hosts, then DNS via c-ares). */
export type LookupFn = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export interface ProbeOptions {
  /** Defaults to `target.timeoutInSeconds * 1000`. */
  timeoutMs?: number;
  /** Aborts the probe early (monitor shutdown); the outcome is then a failure `aborted`. */
  signal?: AbortSignal;
  lookup?: LookupFn;
  /** The time certificates are judged at (the runtime's clock; default the system's). */
  now?: () => number;
  /**
   * Milliseconds the event loop was blocked so far (LoopStalls.blockedMs): the part of the probe's wall time
   * that is tmkit's, not the endpoint's. Default: none is known.
   */
  blockedMs?: () => number;
}

/**
 * The User-Agent of HTTP/HTTPS probes unless the profile or endpoint `customHeaders` name one (any case):
 * Azure's own probe string, byte for byte, so WAF allow-lists and telemetry filters written for Azure Traffic
 * Manager keep matching when a team moves (docs/health.md, "User-Agent").
 */
export const DEFAULT_PROBE_USER_AGENT = 'Azure Traffic Manager Endpoint Monitor';

/** Largest response header block accepted (a bigger one is a failure, not a memory problem). */
const MAX_HEADER_BYTES = 16 * 1024;

/** For callers that pass no `lookup` (the Monitor passes its own, which it cancels on stop). */
let sharedResolver: ProbeResolver | undefined;
const defaultLookup: LookupFn = (hostname) => (sharedResolver ??= new ProbeResolver()).lookup(hostname);

class ProbeFailure extends TmkitError {
  constructor(
    readonly reason: string,
    code: ErrorCode,
  ) {
    super(code, reason);
  }
}

/**
 * Preallocated: every HTTP probe ends by destroying its socket and client with an error, and building a new
 * Error (its stack trace) each time costs more CPU than the rest of the probe's JavaScript.
 */
const DONE = new ProbeFailure('done', 'PROBE_DONE');

/** Probes one target once. Never throws: every failure is an outcome with a reason. */
export async function probe(target: ProbeTarget, opts: ProbeOptions = {}): Promise<ProbeOutcome> {
  const started = performance.now();
  const blocked = opts.blockedMs ?? noStalls;
  const blockedAtStart = blocked();
  const timing = (): Timing => ({ wallMs: performance.now() - started, stalledMs: blocked() - blockedAtStart });
  const timeoutMs = opts.timeoutMs ?? target.timeoutInSeconds * 1000;
  const ac = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ac.abort(new ProbeFailure('timeout', 'PROBE_TIMEOUT'));
  }, timeoutMs);
  const onOuterAbort = (): void => ac.abort(new ProbeFailure('aborted', 'PROBE_ABORTED'));
  if (opts.signal?.aborted) onOuterAbort();
  else opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let address: string | undefined;
  const seen: CertificateCheck = { target, now: opts.now ?? systemNow };
  try {
    address = await resolveAddress(target, ac.signal, opts.lookup ?? defaultLookup);
    if (target.protocol === 'TCP') {
      await tcpConnect(address, target.port, ac.signal);
      return judgeLatency({ ok: true, reason: 'connected', address }, timing(), target);
    }
    const statusCode = await httpGet(target, address, timeoutMs, ac.signal, seen);
    return judgeLatency(
      {
        ok: statusExpected(statusCode, target.expectedStatusCodeRanges),
        reason: `status ${statusCode}`,
        statusCode,
        address,
        ...(seen.certificate ? { certificate: seen.certificate } : {}),
      },
      timing(),
      target,
    );
  } catch (err) {
    const reason = timedOut ? 'timeout' : ac.signal.aborted && !timedOut && opts.signal?.aborted ? 'aborted' : classify(err, target);
    const t = timing();
    return {
      ok: false,
      reason,
      ...(address !== undefined ? { address } : {}),
      ...latencyFields(t.wallMs, t.stalledMs),
      ...(seen.certificate ? { certificate: seen.certificate } : {}),
    };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onOuterAbort);
  }
}

const systemNow = (): number => performance.timeOrigin + performance.now();

const noStalls = (): number => 0;

/** A probe's wall time and the part of it the event loop was blocked. */
interface Timing {
  wallMs: number;
  stalledMs: number;
}

function latencyFields(wallMs: number, stalledMs: number): Pick<ProbeOutcome, 'latencyMs' | 'stalledMs'> {
  const latencyMs = Math.max(0, wallMs - stalledMs);
  return stalledMs > 0 ? { latencyMs, stalledMs } : { latencyMs };
}

/**
 * A successful probe whose endpoint was slower than `degradedLatencyMs` is a failure; one that only a stall of
 * tmkit's own made slower is a success whose latency is unknown (core/health/probe-rules.ts).
 */
function judgeLatency(o: Omit<ProbeOutcome, 'latencyMs'>, t: Timing, target: ProbeTarget): ProbeOutcome {
  const base: ProbeOutcome = { ...o, ...latencyFields(t.wallMs, t.stalledMs) };
  if (!o.ok) return base;
  const j = latencyJudgement(t.wallMs, t.stalledMs, target.degradedLatencyMs);
  if (j.slow !== undefined) return { ...base, ok: false, reason: j.slow };
  return j.unknown ? { ...base, latencyUnknown: true } : base;
}

/** One HTTPS probe's certificate check: its settings, its clock, and what it saw (filled in by the connector). */
interface CertificateCheck {
  target: ProbeTarget;
  now: () => number;
  certificate?: ProbeCertificate;
}

/** Subject CN and subjectAltName names of a peer certificate, lower-cased, in order, without duplicates. */
function certificateNames(cert: PeerCertificate): string[] {
  const out: string[] = [];
  const cn = cert.subject?.CN;
  for (const n of Array.isArray(cn) ? cn : cn ? [cn] : []) out.push(String(n).toLowerCase());
  for (const part of (cert.subjectaltname ?? '').split(/,\s*/)) {
    const m = /^(?:DNS|IP Address):(.+)$/.exec(part.trim());
    if (m) out.push(m[1]!.toLowerCase());
  }
  return [...new Set(out)];
}

/**
 * Records the peer certificate of an HTTPS probe and, with certificateValidation Enabled, judges it: the
 * failure reason (core/health/probe-rules.ts), or undefined when the probe may go on.
 */
function inspectCertificate(sock: TLSSocket, cert: PeerCertificate, check: CertificateCheck): string | undefined {
  const validTo = Date.parse(cert.valid_to);
  const names = certificateNames(cert);
  const now = check.now();
  const rule = check.target.certificate;
  const warning = rule && Number.isFinite(validTo) ? certificateWarning(validTo, now, rule.warningDays) : undefined;
  check.certificate = { validTo, names, ...(warning !== undefined ? { warning } : {}) };
  if (!rule) return undefined;
  // Node sets authorizationError to OpenSSL's code (`DEPTH_ZERO_SELF_SIGNED_CERT`) when the chain is not trusted.
  const chainError = sock.authorized ? undefined : String(sock.authorizationError ?? 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  return certificateFailure(
    {
      validFrom: Date.parse(cert.valid_from),
      validTo,
      names,
      ...(chainError !== undefined ? { chainError } : {}),
      hostMismatch: checkServerIdentity(rule.host, cert) !== undefined,
    },
    now,
    rule.host,
  );
}

/** The address to connect to: the literal itself, or the first address the resolver returns (its order). */
async function resolveAddress(target: ProbeTarget, signal: AbortSignal, lookup: LookupFn): Promise<string> {
  if (target.targetKind !== 'fqdn') return target.target;
  const addrs = await untilAborted(lookup(target.target), signal);
  const first = addrs.find((a) => isIP(a.address) !== 0);
  if (!first) throw new ProbeFailure('DNS: no address', 'PROBE_NO_ADDRESS');
  return first.address;
}

/** Rejects with the signal's reason as soon as it aborts (the underlying work is left to finish or fail). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Success when the connection is established; the connection is then **reset** (RST), as Azure's
 * monitoring page says the probe agent does (its FAQ says FIN; behaviors.md §10). A reset also leaves no
 * TIME_WAIT entry on the prober, which closes first: at 1,000 probes/s a FIN close would keep about
 * 60,000 of them. A connection that failed or is still connecting is simply destroyed.
 */
function tcpConnect(address: string, port: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const sock: Socket = netConnect({ host: address, port });
    const done = (err?: unknown): void => {
      signal.removeEventListener('abort', onAbort);
      sock.removeAllListeners('connect');
      sock.on('error', () => {});
      if (err) {
        sock.destroy();
        reject(err);
        return;
      }
      sock.resetAndDestroy();
      resolve();
    };
    const onAbort = (): void => done(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    sock.once('connect', () => done());
    sock.once('error', (e) => done(e));
  });
}

/**
 * Base connectors by timeout (and CA bundle): the handshake never fails on the certificate (no TLS session
 * cache, no TCP keep-alive). OpenSSL still judges the chain against the system CAs, or the profile's
 * `caCertificates` when it has them, and a probe with certificateValidation Enabled reads that verdict.
 */
const connectors = new Map<string, buildConnector.connector>();
/** Distinct (timeout, CA bundle) connectors kept at most; past it the cache starts over. */
const MAX_CONNECTORS = 64;

function baseConnector(timeoutMs: number, ca?: string): buildConnector.connector {
  const key = ca === undefined ? String(timeoutMs) : `${timeoutMs}\n${ca}`;
  let c = connectors.get(key);
  if (!c) {
    if (connectors.size >= MAX_CONNECTORS) connectors.clear();
    c = buildConnector({
      rejectUnauthorized: false,
      maxCachedSessions: 0,
      timeout: timeoutMs,
      keepAlive: false,
      ...(ca !== undefined ? { ca } : {}),
    });
    connectors.set(key, c);
  }
  return c;
}

/**
 * A connector for one probe: requires a server certificate on HTTPS (and with certificateValidation Enabled
 * a valid one, else the probe fails with the reason), and remembers the socket it opens so the probe can
 * destroy it on timeout even in the middle of a TLS handshake (undici only learns about the socket once the
 * handshake completes).
 */
function probeConnector(timeoutMs: number, sockets: Set<Socket>, check: CertificateCheck): buildConnector.connector {
  const base = baseConnector(timeoutMs, check.target.certificate?.ca);
  return (options, callback) => {
    // the undici typings say void; the implementation returns the socket it created
    const socket = (base as unknown as (o: typeof options, cb: typeof callback) => Socket | undefined)(options, (err, sock) => {
      if (err || !sock) {
        callback(err ?? new Error('connect failed'), null);
        return;
      }
      if (options.protocol === 'https:') {
        const cert = (sock as TLSSocket).getPeerCertificate?.();
        if (!cert || Object.keys(cert).length === 0) {
          sock.destroy();
          callback(new ProbeFailure('TLS error: no certificate', 'PROBE_NO_CERTIFICATE'), null);
          return;
        }
        const failure = inspectCertificate(sock as TLSSocket, cert, check);
        if (failure !== undefined) {
          sock.destroy();
          callback(new ProbeFailure(failure, 'PROBE_CERTIFICATE'), null);
          return;
        }
      }
      callback(null, sock);
    });
    if (socket) sockets.add(socket);
  };
}

/** GET protocol://address:port/path with the target's headers (and the default User-Agent); resolves to the status code. */
async function httpGet(
  target: ProbeTarget,
  address: string,
  timeoutMs: number,
  signal: AbortSignal,
  check: CertificateCheck,
): Promise<number> {
  const scheme = target.protocol === 'HTTPS' ? 'https' : 'http';
  const host = isIP(address) === 6 ? `[${address}]` : address;
  const sockets = new Set<Socket>();
  const client = new Client(`${scheme}://${host}:${target.port}`, {
    connect: probeConnector(timeoutMs, sockets, check),
    pipelining: 1,
    headersTimeout: timeoutMs + 1000,
    bodyTimeout: timeoutMs + 1000,
    maxHeaderSize: MAX_HEADER_BYTES,
  });
  try {
    const headers: Record<string, string> = {};
    let userAgent = false;
    for (const h of target.headers) {
      headers[h.name] = h.value;
      if (h.name.toLowerCase() === 'user-agent') userAgent = true;
    }
    if (!userAgent) headers['user-agent'] = DEFAULT_PROBE_USER_AGENT;
    // Raw dispatch (no response stream is ever created): the status arrives in onResponseStart and the
    // connection is destroyed right after, so the body is never read. The signal is not handed to undici: on
    // abort we stop waiting at once and destroy the client and its sockets in `finally`.
    const pending = new Promise<number>((resolve, reject) => {
      let status: number | undefined;
      client.dispatch(
        { method: 'GET', path: target.path ?? '/', headers },
        {
          onRequestStart() {}, // (its presence selects undici's v7 controller-style handler API)
          onResponseStart(controller, statusCode) {
            status = statusCode;
            // stop the parser here (before any body, before "message complete"); `finally` below destroys
            // the socket: the body is never read
            controller.pause();
            resolve(statusCode);
          },
          onResponseData() {},
          onResponseEnd() {
            if (status === undefined) reject(new ProbeFailure('invalid response', 'PROBE_NO_STATUS'));
          },
          onResponseError(_controller, err) {
            if (status === undefined) reject(err);
          },
        },
      );
    });
    return await untilAborted(pending, signal);
  } finally {
    // destroying with a preallocated error spares undici from building its own 'closed'/'aborted' errors
    for (const s of sockets) {
      s.on('error', () => {});
      s.destroy(DONE);
    }
    client.destroy(DONE).catch(() => {});
  }
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ENODATA', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNABORTED']);

/** A short, stable reason for a failed probe. */
export function classify(err: unknown, target: Pick<ProbeTarget, 'protocol'>): string {
  if (err instanceof ProbeFailure) return err.reason;
  if (err instanceof ResolveError) return resolveReason(err.code);
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } } | undefined;
  const code = e?.code ?? '';
  const causeCode = e?.cause?.code ?? '';
  const message = `${e?.message ?? ''} ${e?.cause?.message ?? ''}`;
  const tlsish = (c: string): boolean => c.startsWith('ERR_SSL') || c.startsWith('ERR_TLS') || c === 'EPROTO';
  if (code === 'ECONNREFUSED' || causeCode === 'ECONNREFUSED') return 'connection refused';
  if (DNS_CODES.has(code) || DNS_CODES.has(causeCode)) return 'DNS: no address';
  if (tlsish(code) || tlsish(causeCode) || /\bSSL\b|\bTLS\b/.test(message)) return 'TLS error';
  if (RESET_CODES.has(code) || RESET_CODES.has(causeCode)) {
    return target.protocol === 'HTTPS' && /secure TLS connection/i.test(message) ? 'TLS error' : 'connection reset';
  }
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL') return 'unreachable';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'ETIMEDOUT') return 'timeout';
  if (code === 'UND_ERR_HEADERS_OVERFLOW') return 'invalid response: headers too large';
  if (code.startsWith('HPE_') || e?.name === 'HTTPParserError') return 'invalid response';
  if (code === 'UND_ERR_INVALID_ARG') return `invalid request: ${e?.message ?? code}`;
  return `error: ${code || e?.message || String(err)}`;
}

/**
 * The probe reason for a failed name resolution: `DNS: no address` (NXDOMAIN, or no A/AAAA records),
 * `DNS: no answer` (the DNS servers are silent or unreachable), `DNS: server failure` (SERVFAIL, REFUSED,
 * a malformed reply, …).
 */
export function resolveReason(code: string): string {
  if (code === 'ENOTFOUND' || code === 'ENODATA' || code === 'ENONAME' || code === 'EBADNAME') return 'DNS: no address';
  if (code === 'ETIMEOUT' || code === 'ECONNREFUSED' || code === 'ECANCELLED') return 'DNS: no answer';
  return 'DNS: server failure';
}
