/**
 * The query side of the DNS wire format, parsed by hand: only what an authoritative answer needs (header,
 * the one question, the OPT record and its Client Subnet and COOKIE options). Every read is bounds-checked against the
 * packet length and every loop is bounded by it, so hostile input costs at most one pass over the packet.
 * Names in the answer/authority/additional sections of a query are skipped without following compression
 * pointers, so pointer loops cannot trap the parser; a pointer in the question name is rejected (a query's
 * first name has nothing before it to point at but the header).
 *
 * No module-level mutable state: the scratch buffer belongs to the caller (one per Responder).
 */
import { EDNS_OPTION_COOKIE, isMalformedCookieOption, parseCookieOption, type CookieOption } from './cookies';

export const HEADER_LENGTH = 12;
export const MAX_NAME_LENGTH = 255;

export const QTYPE = { A: 1, NS: 2, CNAME: 5, SOA: 6, AAAA: 28, OPT: 41, ANY: 255 } as const;
export const QCLASS_IN = 1;
export const QCLASS_ANY = 255;

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
/** Extended rcode 16 (RFC 6891): upper 8 bits (1) in the OPT TTL, lower 4 bits (0) in the header. */
export const EXTENDED_RCODE_BADVERS = 16;

export const FLAG_QR = 0x8000;
export const FLAG_AA = 0x0400;
export const FLAG_TC = 0x0200;
export const FLAG_RD = 0x0100;

export const EDNS_OPTION_ECS = 8;
export const ECS_FAMILY_IPV4 = 1;
export const ECS_FAMILY_IPV6 = 2;

/** Plain-DNS UDP limit (RFC 1035) and the smallest EDNS payload size a requester may advertise. */
export const MIN_UDP_PAYLOAD = 512;

/** EDNS Client Subnet as received (RFC 7871 §6). */
export interface ClientSubnet {
  family: 1 | 2;
  sourcePrefix: number;
  /**
   * The address bytes as sent: exactly ceil(sourcePrefix / 8) bytes. A view into the query buffer (no copy):
   * valid only while the query is being handled.
   */
  address: Buffer;
}

export interface Edns {
  /** Requester's UDP payload size as sent (may be < 512; the caller clamps). */
  udpPayloadSize: number;
  version: number;
  /** DNSSEC OK bit, copied into the response (RFC 3225 §3). */
  dnssecOk: boolean;
  /** Compact Answers OK (RFC 9824 §5.1: EDNS header flag bit 1): NXDOMAIN may keep its rcode in a compact denial. */
  compactOk: boolean;
  ecs?: ClientSubnet;
  /** The COOKIE option (RFC 7873 §4): the client cookie and, when the client has one, our server cookie (views into the query). */
  cookie?: CookieOption;
}

/** Outcome of parsing a query. `kind: 'ok'` carries everything the responder needs. */
export type ParsedQuery =
  | {
      kind: 'ok';
      id: number;
      flags: number;
      /** Offset of the question name (always 12) and the end of the question name. */
      qnameEnd: number;
      /** Length of the whole question (name + type + class). */
      questionLength: number;
      qtype: number;
      qclass: number;
      edns?: Edns;
      /**
       * The question (name + type + class) in wire form with the name lower-cased, as a latin1 string:
       * the cache key. Names compare case-insensitively (ASCII only, RFC 4343).
       */
      key: string;
    }
  /** Not a query we may answer at all (no readable header, or a response): send nothing. */
  | { kind: 'drop'; reason: string }
  /**
   * Answer with an error rcode. `questionLength` > 0 when the question was read and should be echoed;
   * `edns` when a valid OPT was read (so the error response carries OPT too).
   */
  | { kind: 'error'; id: number; flags: number; rcode: number; questionLength: number; edns?: Edns; reason: string };

/**
 * Parses a DNS query. `scratch` must be at least 260 bytes (255 name + 4 + slack); it receives the
 * lower-cased question and is only used during the call.
 */
export function parseQuery(buf: Buffer, scratch: Buffer): ParsedQuery {
  const len = buf.length;
  if (len < HEADER_LENGTH) return { kind: 'drop', reason: 'shorter than a DNS header' };
  const id = (buf[0]! << 8) | buf[1]!;
  const flags = (buf[2]! << 8) | buf[3]!;
  if (flags & FLAG_QR) return { kind: 'drop', reason: 'QR bit set (a response, not a query)' };
  const opcode = (flags >> 11) & 0xf;
  const qdcount = (buf[4]! << 8) | buf[5]!;
  const ancount = (buf[6]! << 8) | buf[7]!;
  const nscount = (buf[8]! << 8) | buf[9]!;
  const arcount = (buf[10]! << 8) | buf[11]!;
  if (opcode !== 0) return { kind: 'error', id, flags, rcode: RCODE.NOTIMP, questionLength: 0, reason: `opcode ${opcode} not implemented` };
  if (qdcount !== 1) return { kind: 'error', id, flags, rcode: RCODE.FORMERR, questionLength: 0, reason: `QDCOUNT ${qdcount} (must be 1)` };

  // Question name: labels, lower-cased into scratch. No compression pointers.
  let off = HEADER_LENGTH;
  let w = 0;
  for (;;) {
    if (off >= len) return formerr(id, flags, 'question name runs past the end of the packet');
    const l = buf[off]!;
    if (l === 0) {
      scratch[w++] = 0;
      off++;
      break;
    }
    if (l > 63) return formerr(id, flags, l >= 0xc0 ? 'compression pointer in the question name' : `bad label type 0x${l.toString(16)}`);
    if (off + 1 + l > len) return formerr(id, flags, 'label runs past the end of the packet');
    if (w + 1 + l + 1 > MAX_NAME_LENGTH) return formerr(id, flags, 'question name longer than 255 octets');
    scratch[w++] = l;
    off++;
    const end = off + l;
    while (off < end) {
      const c = buf[off++]!;
      scratch[w++] = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
    }
  }
  const qnameEnd = off;
  if (off + 4 > len) return formerr(id, flags, 'question type/class runs past the end of the packet');
  const qtype = (buf[off]! << 8) | buf[off + 1]!;
  const qclass = (buf[off + 2]! << 8) | buf[off + 3]!;
  scratch[w++] = buf[off]!;
  scratch[w++] = buf[off + 1]!;
  scratch[w++] = buf[off + 2]!;
  scratch[w++] = buf[off + 3]!;
  off += 4;
  const questionLength = off - HEADER_LENGTH;

  let edns: Edns | undefined;
  if (ancount !== 0 || nscount !== 0 || arcount !== 0 || off !== len) {
    // Skip answer and authority records; find the OPT among the additional ones.
    const total = ancount + nscount + arcount;
    for (let i = 0; i < total; i++) {
      const nameStart = off;
      // Skip a name without following pointers (bounded by the packet length).
      for (;;) {
        if (off >= len) return formerr(id, flags, `record ${i + 1} name runs past the end of the packet`, questionLength, edns);
        const l = buf[off]!;
        if (l === 0) {
          off++;
          break;
        }
        if ((l & 0xc0) === 0xc0) {
          if (off + 2 > len) return formerr(id, flags, `record ${i + 1} compression pointer truncated`, questionLength, edns);
          off += 2;
          break;
        }
        if (l > 63) return formerr(id, flags, `record ${i + 1} bad label type`, questionLength, edns);
        off += 1 + l;
        if (off - nameStart > MAX_NAME_LENGTH)
          return formerr(id, flags, `record ${i + 1} name longer than 255 octets`, questionLength, edns);
      }
      if (off + 10 > len) return formerr(id, flags, `record ${i + 1} header runs past the end of the packet`, questionLength, edns);
      const type = (buf[off]! << 8) | buf[off + 1]!;
      const rdlen = (buf[off + 8]! << 8) | buf[off + 9]!;
      const rdStart = off + 10;
      const rdEnd = rdStart + rdlen;
      if (rdEnd > len) return formerr(id, flags, `record ${i + 1} data runs past the end of the packet`, questionLength, edns);
      if (type === QTYPE.OPT) {
        if (i < ancount + nscount) return formerr(id, flags, 'OPT record outside the additional section', questionLength, edns);
        if (edns) return formerr(id, flags, 'more than one OPT record', questionLength, edns);
        if (off - nameStart !== 1 || buf[nameStart] !== 0) return formerr(id, flags, 'OPT record owner is not the root', questionLength);
        const parsed = parseOpt(buf, off, rdStart, rdEnd);
        if (typeof parsed === 'string')
          return formerr(
            id,
            flags,
            parsed,
            questionLength,
            parsed.startsWith('ECS') || parsed.startsWith('COOKIE') ? parsedOptWithoutEcs(buf, off) : undefined,
          );
        edns = parsed;
      }
      off = rdEnd;
    }
    if (off !== len) return formerr(id, flags, `${len - off} trailing octets after the last record`, questionLength, edns);
  }

  const key = scratch.toString('latin1', 0, w);
  const q: ParsedQuery = { kind: 'ok', id, flags, qnameEnd, questionLength, qtype, qclass, key };
  if (edns) q.edns = edns;
  return q;
}

function formerr(id: number, flags: number, reason: string, questionLength = 0, edns?: Edns): ParsedQuery {
  const e: ParsedQuery = { kind: 'error', id, flags, rcode: RCODE.FORMERR, questionLength, reason };
  if (edns) e.edns = edns;
  return e;
}

/** The fixed part of an OPT (for answering FORMERR to a bad ECS option with an OPT of our own). */
function parsedOptWithoutEcs(buf: Buffer, off: number): Edns {
  return {
    udpPayloadSize: (buf[off + 2]! << 8) | buf[off + 3]!,
    version: buf[off + 5]!,
    dnssecOk: (buf[off + 6]! & 0x80) !== 0,
    compactOk: (buf[off + 6]! & 0x40) !== 0,
  };
}

/** Parses the OPT pseudo-record whose type field is at `off`. Returns an error string when malformed. */
function parseOpt(buf: Buffer, off: number, rdStart: number, rdEnd: number): Edns | string {
  const edns: Edns = parsedOptWithoutEcs(buf, off);
  let p = rdStart;
  while (p < rdEnd) {
    if (p + 4 > rdEnd) return 'OPT option header runs past the OPT data';
    const code = (buf[p]! << 8) | buf[p + 1]!;
    const olen = (buf[p + 2]! << 8) | buf[p + 3]!;
    const dStart = p + 4;
    const dEnd = dStart + olen;
    if (dEnd > rdEnd) return 'OPT option data runs past the OPT data';
    if (code === EDNS_OPTION_COOKIE) {
      if (edns.cookie) return 'COOKIE option present twice';
      const c = parseCookieOption(buf.subarray(dStart, dEnd));
      if (isMalformedCookieOption(c)) return `COOKIE ${c.formerr}`;
      edns.cookie = c;
    } else if (code === EDNS_OPTION_ECS) {
      if (edns.ecs) return 'ECS option present twice';
      const ecs = parseEcs(buf, dStart, dEnd);
      if (typeof ecs === 'string') return ecs;
      edns.ecs = ecs;
    }
    // Unknown options are ignored (RFC 6891 §6.1.2).
    p = dEnd;
  }
  return edns;
}

/** RFC 7871 §6: FAMILY, SOURCE PREFIX-LENGTH, SCOPE PREFIX-LENGTH (0 in queries), ADDRESS (truncated). */
function parseEcs(buf: Buffer, start: number, end: number): ClientSubnet | string {
  if (end - start < 4) return 'ECS option shorter than 4 octets';
  const family = (buf[start]! << 8) | buf[start + 1]!;
  const source = buf[start + 2]!;
  const scope = buf[start + 3]!;
  if (family !== ECS_FAMILY_IPV4 && family !== ECS_FAMILY_IPV6) return `ECS family ${family} unsupported (1 = IPv4, 2 = IPv6)`;
  const maxBits = family === ECS_FAMILY_IPV4 ? 32 : 128;
  if (source > maxBits) return `ECS source prefix ${source} exceeds ${maxBits}`;
  if (scope !== 0) return `ECS scope prefix ${scope} in a query (must be 0)`;
  const addrLen = end - start - 4;
  if (addrLen !== (source + 7) >> 3) return `ECS address is ${addrLen} octets; source prefix ${source} needs ${(source + 7) >> 3}`;
  const address = buf.subarray(start + 4, end);
  if (source & 7 && addrLen > 0) {
    const mask = 0xff >> (source & 7);
    if (address[addrLen - 1]! & mask) return 'ECS address has bits set beyond the source prefix';
  }
  return { family, sourcePrefix: source, address };
}

/** The ECS address zero-padded to a full address, as text (`192.0.2.0`, `2001:db8:0:0:0:0:0:0`). */
export function ecsAddressText(ecs: ClientSubnet): string {
  const { family, address: a } = ecs;
  if (family === ECS_FAMILY_IPV4) return `${a[0] ?? 0}.${a[1] ?? 0}.${a[2] ?? 0}.${a[3] ?? 0}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((a[i] ?? 0) << 8) | (a[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}

/**
 * Converts a lower-cased wire-form name (labels with length octets, ending in the root label) to the dotted
 * presentation form without the trailing dot. Dots and backslashes inside labels are escaped (`\.`), so
 * such a name can never equal a configured name.
 */
export function wireNameToText(wire: string, nameLength: number): string {
  const labels: string[] = [];
  let i = 0;
  while (i < nameLength) {
    const l = wire.charCodeAt(i);
    if (l === 0) break;
    const label = wire.slice(i + 1, i + 1 + l);
    labels.push(/[.\\]/.test(label) ? label.replace(/[.\\]/g, (c) => `\\${c}`) : label);
    i += 1 + l;
  }
  return labels.join('.');
}

/** Number of octets of the name at the start of a wire-form key (up to and including the root label). */
export function keyNameLength(key: string): number {
  return key.length - 4;
}

/** Encodes an ECS option (code 8) for a response: the query's family, source prefix and address, our scope. */
export function ecsOptionLength(ecs: ClientSubnet): number {
  return 4 + 4 + ecs.address.length;
}

/**
 * Writes an OPT pseudo-record at `off`: root owner, our payload size, extended rcode upper bits,
 * version 0, the DO bit copied, the CO flag when `compactOk` (a signing server echoes it, RFC 9824 §5.2),
 * and the ECS echo when the query had one. Returns the new offset.
 */
export function writeOpt(
  out: Buffer,
  off: number,
  payloadSize: number,
  extendedRcode: number,
  dnssecOk: boolean,
  ecs: ClientSubnet | undefined,
  scope: number,
  compactOk = false,
  cookie?: Uint8Array,
): number {
  out[off++] = 0; // root
  out[off++] = 0;
  out[off++] = QTYPE.OPT;
  out[off++] = (payloadSize >> 8) & 0xff;
  out[off++] = payloadSize & 0xff;
  out[off++] = (extendedRcode >> 4) & 0xff;
  out[off++] = 0; // version 0
  out[off++] = (dnssecOk ? 0x80 : 0) | (compactOk ? 0x40 : 0);
  out[off++] = 0;
  const rdlen = (ecs ? ecsOptionLength(ecs) : 0) + (cookie ? 4 + cookie.length : 0);
  out[off++] = (rdlen >> 8) & 0xff;
  out[off++] = rdlen & 0xff;
  if (ecs) {
    out[off++] = 0;
    out[off++] = EDNS_OPTION_ECS;
    const olen = ecsOptionLength(ecs) - 4;
    out[off++] = (olen >> 8) & 0xff;
    out[off++] = olen & 0xff;
    out[off++] = 0;
    out[off++] = ecs.family;
    out[off++] = ecs.sourcePrefix;
    out[off++] = Math.min(scope, ecs.family === ECS_FAMILY_IPV4 ? 32 : 128);
    ecs.address.copy(out, off);
    off += ecs.address.length;
  }
  if (cookie) {
    out[off++] = 0;
    out[off++] = EDNS_OPTION_COOKIE;
    out[off++] = 0;
    out[off++] = cookie.length;
    out.set(cookie, off);
    off += cookie.length;
  }
  return off;
}

/** Size of the OPT record `writeOpt` writes. */
export function optLength(ecs: ClientSubnet | undefined, cookie?: Uint8Array): number {
  return 11 + (ecs ? ecsOptionLength(ecs) : 0) + (cookie ? 4 + cookie.length : 0);
}
