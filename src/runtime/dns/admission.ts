/**
 * What admits a query before it is answered: the cookie the answer carries (cookies.ts) and the rate
 * limiter's word on a UDP answer (rrl.ts). The responder consults both between finding an answer and
 * sending it (docs/ARCHITECTURE.md, the DNS wing); target.ts `admission()` gives each DNS process its own.
 */
import { CLIENT_COOKIE_LENGTH, SERVER_COOKIE_LENGTH, type CookieJar, type CookieOption } from './cookies';
import type { ResponderStats } from './responder-options';
import type { Encoded } from './answer-cache';
import { classify, type ResponseRateLimiter, type RrlDecision } from './rrl';

/** The COOKIE option's bytes in an answer: the client cookie and our 16-byte server cookie. */
export const COOKIE_REPLY_LENGTH = CLIENT_COOKIE_LENGTH + SERVER_COOKIE_LENGTH;

/** BADCOOKIE (RFC 7873 §8): extended rcode 23, its upper bits in the OPT. */
export const RCODE_BADCOOKIE = 23;

/** The COOKIE option's bytes for an answer, and whether the query's server cookie checked out. */
export interface CookieReply {
  readonly bytes: Uint8Array;
  valid: boolean;
}

/**
 * The COOKIE option for the answer: the client cookie and a server cookie. A server cookie that checks out
 * is echoed as it came; an old one (over 30 minutes), a wrong one or none gets a fresh one (RFC 9018 §4.3).
 * Written into `reply` (the responder passes its scratch: the answer is encoded from it before the next query).
 */
export function cookieReply(
  jar: CookieJar,
  c: CookieOption,
  clientAddress: string,
  now: number,
  stats: Pick<ResponderStats, 'cookiesValid' | 'cookiesIssued'>,
  reply: CookieReply = { bytes: new Uint8Array(COOKIE_REPLY_LENGTH), valid: false },
): CookieReply | undefined {
  try {
    const verdict = c.server === undefined ? 'invalid' : jar.check(c.client, c.server, clientAddress, now);
    if (verdict !== 'invalid') stats.cookiesValid++;
    const bytes = reply.bytes;
    bytes.set(c.client, 0);
    if (verdict === 'valid' && c.server !== undefined && c.server.length === SERVER_COOKIE_LENGTH)
      bytes.set(c.server, CLIENT_COOKIE_LENGTH);
    else {
      jar.makeInto(bytes, CLIENT_COOKIE_LENGTH, c.client, clientAddress, now);
      stats.cookiesIssued++;
    }
    reply.valid = verdict !== 'invalid';
    return reply;
  } catch {
    return undefined; // an address the cookie cannot be bound to (not from a socket): answered without one
  }
}

/**
 * The rate limiter's word on one UDP answer (`encoded.body`: the pre-encoded answer, whose header gives the rcode and
 * the answer count): classed as NSD does (positive by name, NXDOMAIN and NODATA by zone, errors, ANY, large).
 */
export function rateLimit(
  rrl: ResponseRateLimiter,
  encoded: Encoded,
  qtype: number,
  qkey: string,
  zone: string,
  clientAddress: string,
  nowMs: number,
): RrlDecision {
  // The answer's class, its key and their hash lanes are the cached answer's: worked out once, on its first query.
  let m = encoded.rrl;
  if (m === undefined || m.qkey !== qkey || m.limiter !== rrl) {
    const body = encoded.body;
    const c = classify({ rcode: body[3]! & 0x0f, answerCount: (body[6]! << 8) | body[7]!, qtype, size: body.length, qname: qkey, zone });
    m = { qkey, limiter: rrl, responseClass: c.class, classKey: c.key, lanes: rrl.classLanes(c.class, c.key) };
    encoded.rrl = m;
  }
  return rrl.decideWith(clientAddress, m.responseClass, m.classKey, m.lanes, nowMs);
}
