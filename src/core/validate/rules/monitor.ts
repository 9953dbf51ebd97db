/** Health-probe settings: protocol, port, path, timing, custom headers, expected status codes. */
import type { Ctx } from '../context';
import type { Reporter } from '../diagnostics';
import { MONITOR_PROTOCOLS } from '../../model/types';
import { enumHint, isInt, isObj, show } from '../util';

export const MAX_HEADERS = 8;
export const MAX_STATUS_RANGES = 8;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What a header value may hold: visible ASCII, spaces and tabs (RFC 9110 field-value, without obs-text). */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
/**
 * Headers the prober's HTTP client (undici, src/runtime/monitor/probe.ts) refuses or operations itself:
 * hop-by-hop headers (RFC 9110 §7.6.1) and the message framing of a GET without a body.
 */
const FORBIDDEN = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'expect',
]);

/** Header rules shared by the profile's monitorConfig and each endpoint. */
export function checkHeaders(r: Reporter, headers: unknown, path: string, tcp: boolean): void {
  if (!Array.isArray(headers) || headers.length === 0) return;
  if (headers.length > MAX_HEADERS) {
    r.report(
      'CUSTOM_HEADERS_LIMIT',
      path,
      `${headers.length} custom headers exceed the limit of ${MAX_HEADERS}`,
      `keep at most ${MAX_HEADERS} headers`,
    );
  }
  if (tcp && headers.length > 0) {
    r.report(
      'CUSTOM_HEADERS_IGNORED',
      path,
      'custom headers are ignored because the monitor protocol is TCP (headers apply to HTTP and HTTPS probes only)',
      'remove them or probe with HTTP/HTTPS',
    );
  }
  const seen = new Set<string>();
  headers.forEach((h: unknown, i) => {
    if (!isObj(h)) return;
    const name = h.name;
    const value = h.value;
    if (typeof name === 'string') {
      if (!TOKEN.test(name)) {
        r.report(
          'CUSTOM_HEADER_NAME',
          `${path}[${i}].name`,
          `header name ${show(name)} is not an HTTP token (letters, digits and !#$%&'*+-.^_\`|~)`,
          'fix the header name',
        );
      } else if (FORBIDDEN.has(name.toLowerCase())) {
        r.report(
          'CUSTOM_HEADER_FORBIDDEN',
          `${path}[${i}].name`,
          `header "${name}" cannot be sent by the prober: it is a hop-by-hop or framing header that the HTTP client sets itself`,
          'remove it; the prober sends each probe on its own connection, closed after the response',
        );
      } else if (seen.has(name.toLowerCase())) {
        r.report(
          'CUSTOM_HEADER_DUPLICATE',
          `${path}[${i}].name`,
          `header "${name}" is listed more than once (header names are case-insensitive)`,
          'keep one entry per header name',
        );
      }
      seen.add(name.toLowerCase());
      if (name.toLowerCase() === 'host' && typeof value === 'string' && value.includes('*')) {
        r.report(
          'CUSTOM_HEADER_HOST_WILDCARD',
          `${path}[${i}].value`,
          `Host header value ${show(value)} contains "*"; wildcards are not supported in a custom Host header`,
          'give the exact host name, e.g. "www.contoso.com"',
        );
      }
    }
    if (typeof value === 'string' && !FIELD_VALUE.test(value)) {
      const bad = [...value].find((c) => !FIELD_VALUE.test(c))!;
      const what =
        bad === '\r'
          ? 'a carriage return (CR)'
          : bad === '\n'
            ? 'a line feed (LF)'
            : bad === '\0'
              ? 'a NUL'
              : bad.charCodeAt(0) < 0x80
                ? `the control character U+${bad.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`
                : `the non-ASCII character ${JSON.stringify(bad)}`;
      r.report(
        'CUSTOM_HEADER_VALUE',
        `${path}[${i}].value`,
        `header value ${show(value)} contains ${what}, which the prober can never send`,
        'use printable ASCII only (percent-encode or drop the rest)',
      );
    }
  });
}

export function checkMonitor(ctx: Ctx): void {
  const { r } = ctx;
  for (const p of ctx.profiles) {
    const m = p.profile.monitorConfig;
    const base = `${p.path}.monitorConfig`;
    const protocol = m.protocol as unknown;
    if (typeof protocol === 'string' && !(MONITOR_PROTOCOLS as readonly string[]).includes(protocol)) {
      r.report(
        'MONITOR_PROTOCOL',
        `${base}.protocol`,
        `protocol ${show(protocol)} is not one of HTTP, HTTPS, TCP`,
        enumHint(protocol, MONITOR_PROTOCOLS),
      );
    }
    const tcp = protocol === 'TCP';
    const port = m.port as unknown;
    if (typeof port === 'number' && !(isInt(port) && port >= 1 && port <= 65535)) {
      r.report(
        'MONITOR_PORT_RANGE',
        `${base}.port`,
        `port ${show(port)} is out of range: an integer 1–65535`,
        'use e.g. 443 for HTTPS, 80 for HTTP',
      );
    }
    const path = m.path as unknown;
    if (tcp && path !== undefined) {
      r.report(
        'MONITOR_PATH_TCP',
        `${base}.path`,
        'path is not allowed with the TCP protocol (TCP probes only open a connection)',
        'remove path, or probe with HTTP/HTTPS',
      );
    } else if ((protocol === 'HTTP' || protocol === 'HTTPS') && typeof path === 'string') {
      if (path === '') {
        r.report(
          'MONITOR_PATH_REQUIRED',
          `${base}.path`,
          `path is required for ${protocol} probes and must not be empty`,
          'use "/" for the root or e.g. "/health"',
        );
      } else if (!path.startsWith('/') || /\s/.test(path)) {
        r.report(
          'MONITOR_PATH_INVALID',
          `${base}.path`,
          `path ${show(path)} must be a relative path starting with "/" and without whitespace`,
          `e.g. "/${path.trim().replace(/^\/*/, '').replace(/\s/g, '%20')}"`,
        );
      }
    }
    const interval = m.intervalInSeconds as unknown;
    if (typeof interval === 'number' && interval !== 10 && interval !== 30) {
      r.report(
        'MONITOR_INTERVAL',
        `${base}.intervalInSeconds`,
        `intervalInSeconds ${show(interval)} is not allowed: 10 (fast probing) or 30`,
        'use 30, or 10 for fast probing',
      );
    }
    const timeout = m.timeoutInSeconds as unknown;
    const maxTimeout = interval === 10 ? 9 : 10;
    if (typeof timeout === 'number' && !(isInt(timeout) && timeout >= 5 && timeout <= maxTimeout)) {
      r.report(
        'MONITOR_TIMEOUT_RANGE',
        `${base}.timeoutInSeconds`,
        `timeoutInSeconds ${show(timeout)} is out of range: 5–10 with a 30 s interval, 5–9 with ` +
          `a 10 s interval${interval === 10 || interval === 30 ? ` (interval is ${interval})` : ''}`,
        `use 5–${maxTimeout}`,
      );
    }
    const tol = m.toleratedNumberOfFailures as unknown;
    if (typeof tol === 'number' && !(isInt(tol) && tol >= 0 && tol <= 9)) {
      r.report(
        'MONITOR_TOLERATED_FAILURES_RANGE',
        `${base}.toleratedNumberOfFailures`,
        `toleratedNumberOfFailures ${show(tol)} is out of range: an integer 0–9`,
        'use e.g. 3',
      );
    }
    checkHeaders(r, m.customHeaders, `${base}.customHeaders`, tcp);
    const ranges = m.expectedStatusCodeRanges as unknown;
    if (Array.isArray(ranges)) {
      if (ranges.length > MAX_STATUS_RANGES) {
        r.report(
          'STATUS_CODE_RANGES_LIMIT',
          `${base}.expectedStatusCodeRanges`,
          `${ranges.length} expected status code ranges exceed the limit of ${MAX_STATUS_RANGES}`,
          'merge adjacent ranges',
        );
      }
      if (tcp && ranges.length > 0) {
        r.report(
          'STATUS_CODE_RANGES_IGNORED',
          `${base}.expectedStatusCodeRanges`,
          'expectedStatusCodeRanges are ignored because the monitor protocol is TCP',
          'remove them or probe with HTTP/HTTPS',
        );
      }
      ranges.forEach((x: unknown, i) => {
        if (!isObj(x) || typeof x.min !== 'number' || typeof x.max !== 'number') return;
        const min = x.min;
        const max = x.max;
        if (!(isInt(min) && isInt(max) && min >= 100 && max <= 999 && min <= max)) {
          r.report(
            'STATUS_CODE_RANGE',
            `${base}.expectedStatusCodeRanges[${i}]`,
            `status code range ${min}–${max} is invalid: integers with min ≤ max, both within 100–999`,
            'e.g. {"min": 200, "max": 299}',
          );
        }
      });
    }
    for (const e of p.endpoints) checkHeaders(r, e.ep.customHeaders, `${e.path}.customHeaders`, tcp);
  }
}
