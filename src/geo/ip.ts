/**
 * Address parsing and longest-prefix matching for the geo layer: the client address of a DNS query (the
 * ECS address or the resolver's source address) as bytes, the special-purpose ranges that have no
 * geography, and a prefix map for measured-latency tables.
 */

export interface ParsedIp {
  family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  bytes: Uint8Array;
}

const V4_PART = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

function parseV4Into(s: string, out: Uint8Array, at: number): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!V4_PART.test(p)) return false;
    out[at + i] = Number(p);
  }
  return true;
}

/**
 * Parses a textual IPv4 or IPv6 address (RFC 4291 text forms, embedded dotted IPv4, an optional `%zone`
 * suffix). Returns undefined for anything else. Leading zeros in IPv4 octets are rejected (ambiguous:
 * octal in some parsers).
 */
export function parseIp(text: string): ParsedIp | undefined {
  let s = text.trim();
  if (s.includes(':')) {
    const pct = s.indexOf('%');
    if (pct >= 0) s = s.slice(0, pct);
    if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
    const bytes = new Uint8Array(16);
    const dbl = s.indexOf('::');
    if (dbl !== s.lastIndexOf('::')) return undefined;
    const head = dbl >= 0 ? s.slice(0, dbl) : s;
    const tail = dbl >= 0 ? s.slice(dbl + 2) : '';
    const headParts = head === '' ? [] : head.split(':');
    const tailParts = tail === '' ? [] : tail.split(':');
    const groups: number[] = [];
    const all = dbl >= 0 ? [...headParts, '::', ...tailParts] : headParts;
    let v4: Uint8Array | undefined;
    for (let i = 0; i < all.length; i++) {
      const g = all[i]!;
      if (g === '::') { groups.push(-1); continue; }
      if (i === all.length - 1 && g.includes('.')) {
        v4 = new Uint8Array(4);
        if (!parseV4Into(g, v4, 0)) return undefined;
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      groups.push(parseInt(g, 16));
    }
    const explicit = groups.filter((g) => g >= 0).length + (v4 ? 2 : 0);
    if (dbl >= 0 ? explicit > 7 : explicit !== 8) return undefined;
    const words: number[] = [];
    for (const g of groups) {
      if (g < 0) for (let k = 0; k < 8 - explicit; k++) words.push(0);
      else words.push(g);
    }
    for (let i = 0; i < words.length; i++) {
      bytes[2 * i] = words[i]! >> 8;
      bytes[2 * i + 1] = words[i]! & 0xff;
    }
    if (v4) bytes.set(v4, 12);
    return { family: 6, bytes };
  }
  const bytes = new Uint8Array(4);
  return parseV4Into(s, bytes, 0) ? { family: 4, bytes } : undefined;
}

export function formatIp(ip: ParsedIp): string {
  if (ip.family === 4) return Array.from(ip.bytes).join('.');
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((ip.bytes[i]! << 8) | ip.bytes[i + 1]!).toString(16));
  return words.join(':');
}

/** True when the first `len` bits of `a` and `b` are equal. */
function prefixEquals(a: Uint8Array, b: Uint8Array, len: number): boolean {
  const full = len >> 3;
  for (let i = 0; i < full; i++) if (a[i] !== b[i]) return false;
  const rest = len & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((a[full]! ^ b[full]!) & mask) === 0;
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
  const slash = text.indexOf('/');
  const addr = slash >= 0 ? text.slice(0, slash) : text;
  const ip = parseIp(addr);
  if (!ip) return { error: `"${addr}" is not an IPv4 or IPv6 address` };
  const max = ip.family === 4 ? 32 : 128;
  let length = max;
  if (slash >= 0) {
    const lenText = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(lenText) || Number(lenText) > max) {
      return { error: `prefix length "${lenText}" must be an integer from 0 to ${max}` };
    }
    length = Number(lenText);
  }
  if (strict) {
    const masked = new Uint8Array(ip.bytes.length);
    const key = maskedKey(ip.bytes, length);
    for (let i = 0; i < key.length; i++) masked[i] = key.charCodeAt(i);
    if (!prefixEquals(masked, ip.bytes, max)) {
      return { error: `host bits are set after /${length} (did you mean ${formatIp({ family: ip.family, bytes: masked })}/${length}?)` };
    }
  }
  return { ...ip, length };
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
 * Ranges that are not globally reachable (IANA IPv4/IPv6 Special-Purpose Address Registries, RFC 6890 and
 * successors) and so have no geography: private, loopback, link-local, shared (CGN), documentation,
 * benchmarking, multicast, reserved. The country database maps some of these to countries (it is built from
 * registry data that includes them), so they are excluded before the lookup.
 */
export const NON_GLOBAL_PREFIXES: readonly string[] = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12',
  '192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24',
  '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
  '::/128', '::1/128', '::/96', '64:ff9b:1::/48', '100::/64', '2001:2::/48', '2001:10::/28', '2001:20::/28',
  '2001:db8::/32', '3fff::/20', '5f00::/16', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8',
];

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
