/**
 * The one IP address module (pure): IPv4/IPv6 text parsing, IPv4-mapped addresses, prefixes and ranges,
 * RFC 5952 formatting, and the special-purpose address blocks. Validation, routing and the geo layer all
 * parse with this code; they differ only in how lenient the accepted text is (an {@link IpSyntax}).
 *
 * The grammar (every {@link IpSyntax} flag off):
 * - IPv4: dotted quad, decimal, 0–255 per octet, no leading zeros (`010.0.0.1` is rejected because
 *   some parsers read it as octal).
 * - IPv6: RFC 4291 §2.2 — eight groups of 1–4 hex digits, at most one `::` (standing for at least one
 *   zero group), an optional trailing dotted-quad IPv4 part; case-insensitive; no zone id (`%eth0`),
 *   no brackets, no surrounding white space.
 *
 * The parser scans character codes (no regular expressions, no intermediate arrays of strings): the
 * routing engine parses the client address of every Subnet-routed query with it.
 */

export type IpFamily = 4 | 6;

export interface IpAddress {
  family: IpFamily;
  /** The address as an unsigned integer (32 or 128 bits). */
  value: bigint;
}

/** An inclusive address range of one family. */
export interface IpRange {
  family: IpFamily;
  lo: bigint;
  hi: bigint;
}

/** What text a parser accepts beyond the strict grammar. Every flag defaults to off. */
export interface IpSyntax {
  /** Ignore leading and trailing white space. */
  readonly trim?: boolean;
  /** IPv6: ignore a `%zone` suffix (anything from the first `%`). */
  readonly zone?: boolean;
  /** IPv6: accept `[address]` (after the zone is removed). */
  readonly brackets?: boolean;
  /** IPv4 octets (also the dotted tail of an IPv6 address) may have leading zeros, read as decimal. */
  readonly leadingZeros?: boolean;
  /** Return an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, ::ffff:0:0/96) as its IPv4 address. */
  readonly unmap?: boolean;
}

/** The strict grammar: what a configuration may contain. */
export const STRICT_SYNTAX: IpSyntax = Object.freeze({});

// ---------------------------------------------------------------------------------------------------
// Scanning

/** Scratch output of {@link scan}: the IPv4 value, or the eight IPv6 groups. Pure: written and read synchronously. */
let scannedV4 = 0;
const scannedWords: number[] = [0, 0, 0, 0, 0, 0, 0, 0];

/** The IPv4 value of `s[from, to)`, or -1. */
function scanV4(s: string, from: number, to: number, leadingZeros: boolean): number {
  let out = 0;
  let i = from;
  for (let octet = 0; ; octet++) {
    const start = i;
    let n = 0;
    while (i < to) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      n = n * 10 + d;
      i++;
    }
    const len = i - start;
    if (len === 0 || len > 3 || n > 255) return -1;
    if (len > 1 && !leadingZeros && s.charCodeAt(start) === 48) return -1;
    out = out * 256 + n;
    if (octet === 3) return i === to ? out : -1;
    if (i >= to || s.charCodeAt(i) !== 46 /* . */) return -1;
    i++;
  }
}

/** The value of a hex digit's char code, or -1. */
function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  return l >= 97 && l <= 102 ? l - 87 : -1;
}

/** Scans `s[from, to)` as IPv6 into {@link scannedWords}. */
function scanV6(s: string, from: number, to: number, leadingZeros: boolean): boolean {
  const w = scannedWords;
  let count = 0;
  let gap = -1;
  let i = from;
  if (to - from < 2) return false;
  if (s.charCodeAt(i) === 58 /* : */) {
    if (s.charCodeAt(i + 1) !== 58) return false;
    gap = 0;
    i += 2;
    if (i === to) {
      w.fill(0);
      return true;
    }
  }
  for (;;) {
    const start = i;
    let g = 0;
    while (i < to && i - start < 5) {
      const d = hexDigit(s.charCodeAt(i));
      if (d < 0) break;
      g = g * 16 + d;
      i++;
    }
    if (i < to && s.charCodeAt(i) === 46 /* . */) {
      // The dotted IPv4 tail: the rest of the text, two groups.
      if (count > 6) return false;
      const v4 = scanV4(s, start, to, leadingZeros);
      if (v4 < 0) return false;
      w[count++] = Math.floor(v4 / 65536);
      w[count++] = v4 % 65536;
      break;
    }
    const len = i - start;
    if (len === 0 || len > 4 || count === 8) return false;
    w[count++] = g;
    if (i === to) break;
    if (s.charCodeAt(i) !== 58) return false;
    i++;
    if (i < to && s.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = count;
      i++;
      if (i === to) break;
    } else if (i === to) {
      return false;
    }
  }
  if (gap < 0) return count === 8;
  if (count > 7) return false;
  const move = count - gap;
  for (let k = 1; k <= move; k++) w[8 - k] = w[count - k]!;
  for (let k = gap; k < 8 - move; k++) w[k] = 0;
  return true;
}

/** Scans `text`: 4 (value in {@link scannedV4}), 6 (groups in {@link scannedWords}) or 0 (not an address). */
function scan(text: string, syntax: IpSyntax): 0 | 4 | 6 {
  const s = syntax.trim ? text.trim() : text;
  let to = s.length;
  if (s.indexOf(':') < 0) {
    const v4 = scanV4(s, 0, to, syntax.leadingZeros === true);
    if (v4 < 0) return 0;
    scannedV4 = v4;
    return 4;
  }
  let from = 0;
  if (syntax.zone) {
    const pct = s.indexOf('%');
    if (pct >= 0) to = pct;
  }
  if (syntax.brackets && to - from >= 2 && s.charCodeAt(from) === 91 /* [ */ && s.charCodeAt(to - 1) === 93 /* ] */) {
    from++;
    to--;
  }
  return scanV6(s, from, to, syntax.leadingZeros === true) ? 6 : 0;
}

const isMappedWords = (w: readonly number[]): boolean =>
  w[0] === 0 && w[1] === 0 && w[2] === 0 && w[3] === 0 && w[4] === 0 && w[5] === 0xffff;

function wordsToBigInt(w: readonly number[]): bigint {
  // Four 32-bit halves: four BigInt conversions instead of eight.
  return (
    (BigInt(w[0]! * 65536 + w[1]!) << 96n) |
    (BigInt(w[2]! * 65536 + w[3]!) << 64n) |
    (BigInt(w[4]! * 65536 + w[5]!) << 32n) |
    BigInt(w[6]! * 65536 + w[7]!)
  );
}

// ---------------------------------------------------------------------------------------------------
// Parsing

/** The IPv4 address as a 32-bit unsigned number, or undefined when `s` is not a dotted quad. */
export function parseIPv4(s: string, syntax: IpSyntax = STRICT_SYNTAX): number | undefined {
  return scan(s, syntax) === 4 ? scannedV4 : undefined;
}

/** The IPv6 address as a 128-bit BigInt, or undefined when `s` is not an IPv6 literal. */
export function parseIPv6(s: string, syntax: IpSyntax = STRICT_SYNTAX): bigint | undefined {
  return scan(s, syntax) === 6 ? wordsToBigInt(scannedWords) : undefined;
}

/** An IPv4 or IPv6 address, or undefined. */
export function parseIp(s: string, syntax: IpSyntax = STRICT_SYNTAX): IpAddress | undefined {
  const family = scan(s, syntax);
  if (family === 4) return { family: 4, value: BigInt(scannedV4) };
  if (family === 0) return undefined;
  const w = scannedWords;
  if (syntax.unmap && isMappedWords(w)) return { family: 4, value: BigInt(w[6]! * 65536 + w[7]!) };
  return { family: 6, value: wordsToBigInt(w) };
}

/** The address as bytes in network order (4 or 16), or undefined; the form longest-prefix tables key on. */
export function parseIpBytes(s: string, syntax: IpSyntax = STRICT_SYNTAX): { family: IpFamily; bytes: Uint8Array } | undefined {
  const family = scan(s, syntax);
  if (family === 4) {
    const v = scannedV4;
    return { family: 4, bytes: Uint8Array.of(v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255) };
  }
  if (family === 0) return undefined;
  const w = scannedWords;
  if (syntax.unmap && isMappedWords(w)) return { family: 4, bytes: Uint8Array.of(w[6]! >> 8, w[6]! & 255, w[7]! >> 8, w[7]! & 255) };
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    bytes[2 * i] = w[i]! >> 8;
    bytes[2 * i + 1] = w[i]! & 255;
  }
  return { family: 6, bytes };
}

/**
 * The family of an address literal as written (4 or 6; an IPv4-mapped address is 6 whatever `unmap`
 * says), or 0: node:net `isIP` for the given syntax, without building the value.
 */
export function ipFamilyOf(s: string, syntax: IpSyntax = STRICT_SYNTAX): 0 | IpFamily {
  return scan(s, syntax);
}

// ---------------------------------------------------------------------------------------------------
// IPv4 inside IPv6

const MAPPED_PREFIX = 0xffffn << 32n;
const NAT64_PREFIX = 0x0064ff9bn << 96n;
const LOW32 = 0xffffffffn;

/** True for an IPv4-mapped IPv6 address (::ffff:0:0/96). */
export const isIpv4Mapped = (addr: IpAddress): boolean => addr.family === 6 && addr.value >> 32n === 0xffffn;

/** The IPv4-mapped IPv6 address `::ffff:a.b.c.d` of an IPv4 address; other addresses unchanged. */
export const mapIpv4 = (addr: IpAddress): IpAddress => (addr.family === 4 ? { family: 6, value: MAPPED_PREFIX | addr.value } : addr);

/**
 * The IPv4 address embedded in an IPv4-mapped address (`::ffff:a.b.c.d`) and, with `nat64`, in a
 * well-known-prefix NAT64 address (`64:ff9b::a.b.c.d`, RFC 6052); otherwise the address itself.
 */
export function unmapIpv4(addr: IpAddress, nat64 = false): IpAddress {
  if (addr.family !== 6) return addr;
  const high = addr.value >> 32n;
  if (high === 0xffffn || (nat64 && high === NAT64_PREFIX >> 32n)) return { family: 4, value: addr.value & LOW32 };
  return addr;
}

/** How an IPv6 address carries an IPv4 address that a connection to it reaches (see {@link embeddedIpv4}). */
export type Ipv4Embedding = 'IPv4-mapped' | 'IPv4-compatible' | '6to4' | 'NAT64';

/**
 * The IPv4 address an IPv6 address stands for, and how: IPv4-mapped (`::ffff:a.b.c.d`, RFC 4291),
 * IPv4-compatible (`::a.b.c.d`, deprecated, not `::` or `::1`), 6to4 (`2002:AABB:CCDD::/48`, RFC 3056) and
 * the well-known NAT64 prefix (`64:ff9b::a.b.c.d`, RFC 6052). Undefined for any other address.
 */
export function embeddedIpv4(addr: IpAddress): { via: Ipv4Embedding; ipv4: IpAddress } | undefined {
  if (addr.family !== 6) return undefined;
  const high = addr.value >> 32n;
  const low = { family: 4 as const, value: addr.value & LOW32 };
  if (high === 0xffffn) return { via: 'IPv4-mapped', ipv4: low };
  if (high === NAT64_PREFIX >> 32n) return { via: 'NAT64', ipv4: low };
  if (high === 0n && low.value > 1n) return { via: 'IPv4-compatible', ipv4: low };
  if (addr.value >> 112n === 0x2002n) return { via: '6to4', ipv4: { family: 4, value: (addr.value >> 80n) & LOW32 } };
  return undefined;
}

// ---------------------------------------------------------------------------------------------------
// Prefixes and ranges

export const bitsOf = (family: IpFamily): number => (family === 4 ? 32 : 128);

/** The highest address of the family (all bits set). */
export const maxAddress = (family: IpFamily): bigint => (family === 4 ? LOW32 : (1n << 128n) - 1n);

/** The first address of the prefix `value/scope`. */
export function networkAddress(value: bigint, family: IpFamily, scope: number): bigint {
  const host = BigInt(bitsOf(family) - scope);
  return (value >> host) << host;
}

/** The last address of the prefix `value/scope`. */
export function broadcastAddress(value: bigint, family: IpFamily, scope: number): bigint {
  const host = BigInt(bitsOf(family) - scope);
  return networkAddress(value, family, scope) | ((1n << host) - 1n);
}

/** The range a prefix covers (host bits of `addr` ignored); `scope` must be 0–32 / 0–128. */
export function prefixRange(addr: IpAddress, scope: number): IpRange {
  return {
    family: addr.family,
    lo: networkAddress(addr.value, addr.family, scope),
    hi: broadcastAddress(addr.value, addr.family, scope),
  };
}

export function rangeContains(r: IpRange, ip: IpAddress): boolean {
  return r.family === ip.family && ip.value >= r.lo && ip.value <= r.hi;
}

/** An address with a prefix length: `198.51.100.0/24`. */
export interface IpPrefix extends IpAddress {
  length: number;
}

export interface ParsePrefixOptions {
  /** Address syntax (default strict). */
  syntax?: IpSyntax;
  /** Reject set host bits (`10.1.2.3/8`), which in a hand-written table is almost always a typo. Default true. */
  strict?: boolean;
  /** How an address is written in error messages (default {@link formatIp}). */
  format?: (addr: IpAddress) => string;
}

/** Parses `address/length`, or a bare address (a host prefix). */
export function parsePrefix(text: string, options: ParsePrefixOptions = {}): IpPrefix | { error: string } {
  const slash = text.indexOf('/');
  const addrText = slash >= 0 ? text.slice(0, slash) : text;
  const ip = parseIp(addrText, options.syntax);
  if (!ip) return { error: `"${addrText}" is not an IPv4 or IPv6 address` };
  const max = bitsOf(ip.family);
  let length = max;
  if (slash >= 0) {
    const lenText = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(lenText) || Number(lenText) > max) {
      return { error: `prefix length "${lenText}" must be an integer from 0 to ${max}` };
    }
    length = Number(lenText);
  }
  if (options.strict !== false) {
    const net = networkAddress(ip.value, ip.family, length);
    if (net !== ip.value) {
      const show = options.format ?? formatIp;
      return { error: `host bits are set after /${length} (did you mean ${show({ family: ip.family, value: net })}/${length}?)` };
    }
  }
  return { ...ip, length };
}

// ---------------------------------------------------------------------------------------------------
// Formatting

/** Dotted quad of a 32-bit value. */
export const formatIPv4 = (v: number): string => `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;

/**
 * Eight 16-bit groups as IPv6 text: with `compress`, RFC 5952 (lower case, the longest run of two or
 * more zero groups, the first of equals, as `::`); without, all eight groups (`0:0:0:0:0:0:0:1`).
 */
export function formatIPv6Groups(groups: ArrayLike<number>, compress = true): string {
  const hex: string[] = [];
  for (let i = 0; i < 8; i++) hex.push(groups[i]!.toString(16));
  if (!compress) return hex.join(':');
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

function groupsOf(value: bigint): number[] {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  return groups;
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run compressed). */
export function formatIp(addr: IpAddress): string {
  return addr.family === 4 ? formatIPv4(Number(addr.value)) : formatIPv6Groups(groupsOf(addr.value));
}

/** Dotted quad, or IPv6 with all eight groups written out (`0:0:0:0:0:0:0:1`). */
export function formatIpExpanded(addr: IpAddress): string {
  return addr.family === 4 ? formatIPv4(Number(addr.value)) : formatIPv6Groups(groupsOf(addr.value), false);
}

// ---------------------------------------------------------------------------------------------------
// Special-purpose addresses

export interface SpecialBlock {
  /** CIDR prefix. */
  readonly prefix: string;
  /** What the block is, with its RFC: `private (RFC 1918)`. */
  readonly why: string;
  /** Azure refuses an address in it as an external endpoint target (see {@link nonPublicReason}). */
  readonly nonPublic: boolean;
  /** Not globally reachable (IANA special-purpose registries), so it has no geography. */
  readonly nonGlobal: boolean;
}

const both = (prefix: string, why: string): SpecialBlock => ({ prefix, why, nonPublic: true, nonGlobal: true });
const onlyNonGlobal = (prefix: string, why: string): SpecialBlock => ({ prefix, why, nonPublic: false, nonGlobal: true });
const onlyNonPublic = (prefix: string, why: string): SpecialBlock => ({ prefix, why, nonPublic: true, nonGlobal: false });

/**
 * The special-purpose address blocks (IANA IPv4/IPv6 Special-Purpose Address Registries, RFC 6890 and
 * successors). `nonPublic`: the blocks Azure refuses as endpoint targets (FAQ: RFC 1918, 6890, 5737, 3068,
 * 2544, 5771) plus the IPv6 equivalents (RFC 6890, 3849, 9637, 4193, 4291); outside IPv6 global unicast
 * (2000::/3) is refused as well. `nonGlobal`: private, loopback, link-local, shared (CGN), documentation,
 * benchmarking, multicast, reserved — the ranges with no geography (the country database maps some of
 * them to countries, as it is built from registry data that includes them).
 */
export const SPECIAL_BLOCKS: readonly SpecialBlock[] = Object.freeze([
  both('0.0.0.0/8', 'this network (RFC 6890)'),
  both('10.0.0.0/8', 'private (RFC 1918)'),
  both('100.64.0.0/10', 'shared address space (RFC 6598)'),
  both('127.0.0.0/8', 'loopback (RFC 6890)'),
  both('169.254.0.0/16', 'link-local (RFC 3927)'),
  both('172.16.0.0/12', 'private (RFC 1918)'),
  both('192.0.0.0/24', 'IETF protocol assignments (RFC 6890)'),
  both('192.0.2.0/24', 'documentation (RFC 5737)'),
  both('192.88.99.0/24', '6to4 relay anycast (RFC 3068)'),
  both('192.168.0.0/16', 'private (RFC 1918)'),
  both('198.18.0.0/15', 'benchmarking (RFC 2544)'),
  both('198.51.100.0/24', 'documentation (RFC 5737)'),
  both('203.0.113.0/24', 'documentation (RFC 5737)'),
  both('224.0.0.0/4', 'multicast (RFC 5771)'),
  both('240.0.0.0/4', 'reserved (RFC 6890)'),
  both('::/128', 'unspecified (RFC 4291)'),
  both('::1/128', 'loopback (RFC 4291)'),
  onlyNonGlobal('::/96', 'IPv4-compatible, deprecated (RFC 4291)'),
  onlyNonGlobal('64:ff9b:1::/48', 'local-use IPv4/IPv6 translation (RFC 8215)'),
  onlyNonGlobal('100::/64', 'discard-only (RFC 6666)'),
  onlyNonPublic('2001::/23', 'IETF protocol assignments (RFC 6890)'),
  onlyNonGlobal('2001:2::/48', 'benchmarking (RFC 5180)'),
  onlyNonGlobal('2001:10::/28', 'ORCHID, deprecated (RFC 4843)'),
  onlyNonGlobal('2001:20::/28', 'ORCHIDv2 (RFC 7343)'),
  both('2001:db8::/32', 'documentation (RFC 3849)'),
  both('3fff::/20', 'documentation (RFC 9637)'),
  onlyNonGlobal('5f00::/16', 'segment routing SIDs (RFC 9602)'),
  both('fc00::/7', 'unique local (RFC 4193)'),
  both('fe80::/10', 'link-local (RFC 4291)'),
  onlyNonGlobal('fec0::/10', 'site-local, deprecated (RFC 3879)'),
  both('ff00::/8', 'multicast (RFC 4291)'),
]);

interface BlockRange extends IpRange {
  why: string;
}

function blockRanges(which: 'nonPublic' | 'nonGlobal'): readonly BlockRange[] {
  return SPECIAL_BLOCKS.filter((b) => b[which]).map((b) => {
    const p = parsePrefix(b.prefix);
    if ('error' in p) throw new Error(`SPECIAL_BLOCKS: ${b.prefix}: ${p.error}`);
    return { ...prefixRange(p, p.length), why: b.why };
  });
}

const NON_PUBLIC = blockRanges('nonPublic');
const NON_GLOBAL = blockRanges('nonGlobal');
const GLOBAL_UNICAST_V6 = prefixRange({ family: 6, value: 0x2n << 124n }, 3);

/**
 * Why Azure would refuse this address as a public endpoint target (`private (RFC 1918)`), or undefined
 * for a public address. Only IPv6 global unicast (2000::/3) passes; an IPv4-mapped address is IPv6 here.
 */
export function nonPublicReason(addr: IpAddress): string | undefined {
  for (const b of NON_PUBLIC) if (rangeContains(b, addr)) return b.why;
  if (addr.family === 6 && !rangeContains(GLOBAL_UNICAST_V6, addr)) return 'not IPv6 global unicast (outside 2000::/3)';
  return undefined;
}

/** Why the address is not globally reachable (a `nonGlobal` special block), or undefined. */
export function nonGlobalReason(addr: IpAddress): string | undefined {
  for (const b of NON_GLOBAL) if (rangeContains(b, addr)) return b.why;
  return undefined;
}
