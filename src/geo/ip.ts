/**
 * Addresses for the geo layer: the client address of a DNS query (the ECS address or the resolver's
 * source address) as bytes, the special-purpose ranges that have no geography, and a longest-prefix map
 * for measured-latency tables. Parsing, prefixes and the special-purpose blocks are the shared
 * ../core/net/ip (a client address is `parseIpBytes(text, GEO_IP_SYNTAX)`); this module keeps the byte
 * form that the prefix map keys on.
 */
import {
  formatIPv6Groups,
  parsePrefix as parseNetPrefix,
  SPECIAL_BLOCKS,
  type IpAddress,
  type IpFamily,
  type IpSyntax,
} from '../core/net/ip';

export interface ParsedIp {
  family: IpFamily;
  /** 4 or 16 bytes, network order. */
  bytes: Uint8Array;
}

/**
 * The geo syntax for ../core/net/ip's parsers (`parseIpBytes(text, GEO_IP_SYNTAX)` gives a {@link ParsedIp}):
 * RFC 4291 text forms with embedded dotted IPv4; surrounding white space, an IPv6 `%zone` suffix and
 * `[brackets]` are accepted; IPv4 octets with leading zeros are not (ambiguous: octal in some parsers);
 * IPv4-mapped addresses stay IPv6 (see unwrapIpv4).
 */
export const GEO_IP_SYNTAX: IpSyntax = Object.freeze({ trim: true, zone: true, brackets: true });

/** Dotted quad, or IPv6 with all eight groups written out (`0:0:0:0:0:0:0:1`, the form the database reader takes). */
export function formatIp(ip: ParsedIp): string {
  const b = ip.bytes;
  if (ip.family === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
  return formatIPv6Groups(groups, false);
}

function toBytes(addr: IpAddress): ParsedIp {
  const n = addr.family === 4 ? 4 : 16;
  const bytes = new Uint8Array(n);
  let v = addr.value;
  for (let i = n - 1; i >= 0; i--) {
    bytes[i] = Number(v & 255n);
    v >>= 8n;
  }
  return { family: addr.family, bytes };
}

function maskedKey(bytes: Uint8Array, len: number): string {
  let key = '';
  const full = len >> 3;
  for (let i = 0; i < full; i++) key += String.fromCharCode(bytes[i]!);
  const rest = len & 7;
  if (rest) key += String.fromCharCode(bytes[full]! & ((0xff << (8 - rest)) & 0xff));
  return key;
}

export interface ParsedPrefix extends ParsedIp {
  length: number;
}

/**
 * Parses `address/length` (or a bare address = a host prefix). `strict` rejects set host bits
 * (`10.1.2.3/8`), which in a hand-written table is almost always a typo.
 */
export function parsePrefix(text: string, strict = true): ParsedPrefix | { error: string } {
  const p = parseNetPrefix(text, { syntax: GEO_IP_SYNTAX, strict, format: (a) => formatIp(toBytes(a)) });
  return 'error' in p ? p : { ...toBytes(p), length: p.length };
}

/** Longest-prefix-match map from IPv4/IPv6 prefixes to values. */
export class PrefixMap<T> {
  private readonly byFamily = { 4: new Map<number, Map<string, T>>(), 6: new Map<number, Map<string, T>>() };
  private lengths: { 4: number[]; 6: number[] } = { 4: [], 6: [] };

  get size(): number {
    let n = 0;
    for (const fam of [this.byFamily[4], this.byFamily[6]]) for (const m of fam.values()) n += m.size;
    return n;
  }

  set(prefix: ParsedPrefix, value: T): void {
    const fam = this.byFamily[prefix.family];
    let m = fam.get(prefix.length);
    if (!m) {
      m = new Map();
      fam.set(prefix.length, m);
      this.lengths[prefix.family] = [...fam.keys()].sort((a, b) => b - a);
    }
    m.set(maskedKey(prefix.bytes, prefix.length), value);
  }

  /** Values of every prefix containing the address, longest prefix first. */
  matches(ip: ParsedIp): T[] {
    const out: T[] = [];
    const fam = this.byFamily[ip.family];
    for (const len of this.lengths[ip.family]) {
      const v = fam.get(len)!.get(maskedKey(ip.bytes, len));
      if (v !== undefined) out.push(v);
    }
    return out;
  }

  /** The value of the longest prefix containing the address. */
  longest(ip: ParsedIp): T | undefined {
    const fam = this.byFamily[ip.family];
    for (const len of this.lengths[ip.family]) {
      const v = fam.get(len)!.get(maskedKey(ip.bytes, len));
      if (v !== undefined) return v;
    }
    return undefined;
  }
}

/**
 * Ranges that are not globally reachable (the `nonGlobal` blocks of the shared special-purpose table) and
 * so have no geography: the country database maps some of these to countries (it is built from registry
 * data that includes them), so they are excluded before the lookup.
 */
export const NON_GLOBAL_PREFIXES: readonly string[] = SPECIAL_BLOCKS.filter((b) => b.nonGlobal).map((b) => b.prefix);

const nonGlobal = new PrefixMap<true>();
for (const p of NON_GLOBAL_PREFIXES) {
  const parsed = parsePrefix(p);
  if ('error' in parsed) throw new Error(`NON_GLOBAL_PREFIXES: ${p}: ${parsed.error}`);
  nonGlobal.set(parsed, true);
}

export function isNonGlobal(ip: ParsedIp): boolean {
  return nonGlobal.longest(ip) === true;
}

/**
 * The IPv4 address embedded in an IPv4-mapped (`::ffff:a.b.c.d`) or well-known NAT64 (`64:ff9b::a.b.c.d`)
 * IPv6 address, which is where such a client really is; otherwise the address itself.
 */
export function unwrapIpv4(ip: ParsedIp): ParsedIp {
  if (ip.family !== 6) return ip;
  const b = ip.bytes;
  const zero = (from: number, to: number): boolean => {
    for (let i = from; i < to; i++) if (b[i] !== 0) return false;
    return true;
  };
  const mapped = zero(0, 10) && b[10] === 0xff && b[11] === 0xff;
  const nat64 = b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12);
  return mapped || nat64 ? { family: 4, bytes: b.slice(12, 16) } : ip;
}
