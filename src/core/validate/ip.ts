/**
 * Pure IP address parsing and range arithmetic (IPv4 and IPv6), for validation and anyone else in core
 * (Subnet routing, ECS). Addresses are held as BigInt so both families share one code path.
 *
 * Accepted text forms:
 * - IPv4: dotted quad, decimal, 0–255 per octet, no leading zeros (`010.0.0.1` is rejected because
 *   some parsers read it as octal).
 * - IPv6: RFC 4291 §2.2 — eight groups of 1–4 hex digits, at most one `::`, an optional trailing
 *   dotted-quad IPv4 part; case-insensitive; no zone id (`%eth0`) and no brackets.
 */

export type IpFamily = 4 | 6;

export interface IpAddress {
  family: IpFamily;
  /** The address as an unsigned integer (32 or 128 bits). */
  value: bigint;
}

const OCTET = /^(?:0|[1-9][0-9]{0,2})$/;

/** The IPv4 address as a 32-bit unsigned number, or undefined when `s` is not a dotted quad. */
export function parseIPv4(s: string): number | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let out = 0;
  for (const p of parts) {
    if (!OCTET.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out = out * 256 + n;
  }
  return out;
}

const HEXGROUP = /^[0-9a-fA-F]{1,4}$/;

/** The IPv6 address as a 128-bit BigInt, or undefined when `s` is not an IPv6 literal. */
export function parseIPv6(s: string): bigint | undefined {
  if (s.length < 2 || s.length > 45) return undefined;
  const dbl = s.indexOf('::');
  if (dbl !== -1 && s.indexOf('::', dbl + 1) !== -1) return undefined;
  const groups: number[] = [];
  const parseSide = (side: string, allowV4Tail: boolean): number[] | undefined => {
    if (side === '') return [];
    const parts = side.split(':');
    const out: number[] = [];
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (allowV4Tail && i === parts.length - 1 && p.includes('.')) {
        const v4 = parseIPv4(p);
        if (v4 === undefined) return undefined;
        out.push(Math.floor(v4 / 65536), v4 % 65536);
      } else {
        if (!HEXGROUP.test(p)) return undefined;
        out.push(parseInt(p, 16));
      }
    }
    return out;
  };
  if (dbl === -1) {
    const all = parseSide(s, true);
    if (all === undefined || all.length !== 8) return undefined;
    groups.push(...all);
  } else {
    const head = parseSide(s.slice(0, dbl), false);
    const tail = parseSide(s.slice(dbl + 2), true);
    if (head === undefined || tail === undefined) return undefined;
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return undefined;
    groups.push(...head, ...new Array<number>(missing).fill(0), ...tail);
  }
  let v = 0n;
  for (const g of groups) v = (v << 16n) | BigInt(g);
  return v;
}

/** An IPv4 or IPv6 literal, or undefined. */
export function parseIp(s: string): IpAddress | undefined {
  if (s.includes(':')) {
    const v6 = parseIPv6(s);
    return v6 === undefined ? undefined : { family: 6, value: v6 };
  }
  const v4 = parseIPv4(s);
  return v4 === undefined ? undefined : { family: 4, value: BigInt(v4) };
}

export const bitsOf = (family: IpFamily): number => (family === 4 ? 32 : 128);

/** The highest address of the family (all bits set). */
export const maxAddress = (family: IpFamily): bigint => (1n << BigInt(bitsOf(family))) - 1n;

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

/** Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run compressed). */
export function formatIp(addr: IpAddress): string {
  if (addr.family === 4) {
    const v = addr.value;
    return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 255n)).join('.');
  }
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((addr.value >> BigInt(i * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

interface Block { family: IpFamily; first: bigint; last: bigint; why: string }

const block = (cidr: string, why: string): Block => {
  const [a, s] = cidr.split('/') as [string, string];
  const ip = parseIp(a)!;
  const scope = Number(s);
  return {
    family: ip.family,
    first: networkAddress(ip.value, ip.family, scope),
    last: broadcastAddress(ip.value, ip.family, scope),
    why,
  };
};

/**
 * Address blocks Azure refuses as endpoint targets (FAQ: RFC 1918, 6890, 5737, 3068, 2544, 5771), plus
 * the IPv6 equivalents (RFC 6890, 3849, 9637, 4193, 4291). Only IPv6 global unicast (2000::/3) passes.
 */
const NON_PUBLIC: readonly Block[] = [
  block('0.0.0.0/8', 'this network (RFC 6890)'),
  block('10.0.0.0/8', 'private (RFC 1918)'),
  block('100.64.0.0/10', 'shared address space (RFC 6598)'),
  block('127.0.0.0/8', 'loopback (RFC 6890)'),
  block('169.254.0.0/16', 'link-local (RFC 3927)'),
  block('172.16.0.0/12', 'private (RFC 1918)'),
  block('192.0.0.0/24', 'IETF protocol assignments (RFC 6890)'),
  block('192.0.2.0/24', 'documentation (RFC 5737)'),
  block('192.88.99.0/24', '6to4 relay anycast (RFC 3068)'),
  block('192.168.0.0/16', 'private (RFC 1918)'),
  block('198.18.0.0/15', 'benchmarking (RFC 2544)'),
  block('198.51.100.0/24', 'documentation (RFC 5737)'),
  block('203.0.113.0/24', 'documentation (RFC 5737)'),
  block('224.0.0.0/4', 'multicast (RFC 5771)'),
  block('240.0.0.0/4', 'reserved (RFC 6890)'),
  block('::/128', 'unspecified (RFC 4291)'),
  block('::1/128', 'loopback (RFC 4291)'),
  block('2001::/23', 'IETF protocol assignments (RFC 6890)'),
  block('2001:db8::/32', 'documentation (RFC 3849)'),
  block('3fff::/20', 'documentation (RFC 9637)'),
  block('fc00::/7', 'unique local (RFC 4193)'),
  block('fe80::/10', 'link-local (RFC 4291)'),
  block('ff00::/8', 'multicast (RFC 4291)'),
];
const GLOBAL_UNICAST_V6 = block('2000::/3', '');

/**
 * Why Azure would refuse this address as a public endpoint target (`private (RFC 1918)`), or undefined
 * for a public address.
 */
export function nonPublicReason(addr: IpAddress): string | undefined {
  for (const b of NON_PUBLIC) {
    if (b.family === addr.family && addr.value >= b.first && addr.value <= b.last) return b.why;
  }
  if (addr.family === 6 && (addr.value < GLOBAL_UNICAST_V6.first || addr.value > GLOBAL_UNICAST_V6.last)) {
    return 'not IPv6 global unicast (outside 2000::/3)';
  }
  return undefined;
}
