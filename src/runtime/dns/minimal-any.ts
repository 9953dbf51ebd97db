/**
 * RFC 8482 (minimal responses to ANY): over UDP an ANY query gets one RRset, so it cannot be amplified; a
 * resolver that wants every record asks over TCP, where the whole set is answered.
 */
import type { ZoneAnswer } from '../../core/zone';
import { TYPE } from './dnssec/records';

export const QTYPE_ANY = 255;
/** Appended to the cache key of an ANY over UDP (a key is a wire name plus 4 octets; this cannot be one). */
export const MINIMAL_ANY_SUFFIX = '\u0000any';

/**
 * RFC 8482 §4.1: the answer to ANY over UDP carries one RRset (the first of the full answer: the SOA at the
 * apex, the records of a profile's name), no additional section, so an ANY query cannot be amplified; a
 * resolver that wants everything asks over TCP. A negative answer stays as it is.
 */
export function oneRrset(res: ZoneAnswer): ZoneAnswer {
  return {
    ...res,
    outcomes: res.outcomes.map((o) => {
      const first = o.answer[0];
      if (first === undefined) return o;
      return { ...o, answer: o.answer.filter((r) => r.type === first.type && r.name === first.name), additional: [] };
    }),
  };
}

/** The record type a minimal ANY kept (ANY itself when it kept nothing). */
export function keptType(res: ZoneAnswer): number {
  const t = res.outcomes[0]?.answer[0]?.type;
  return t === undefined ? QTYPE_ANY : (TYPE[t] ?? QTYPE_ANY);
}
