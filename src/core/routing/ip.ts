/**
 * IP address literals and ranges, pure (no node:net). Used for endpoint record kinds (A / AAAA / CNAME)
 * and Subnet routing / subnet override matching.
 */
import type { EndpointSubnet } from '../model/types';

export type IpFamily = 4 | 6;

export interface ParsedIp {
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

const V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function parseV4Value(s: string): bigint | undefined {
  const m = V4.exec(s);
  if (!m) return undefined;
  let v = 0;
  for (let i = 1; i <= 4; i++) {
    const o = Number(m[i]);
    if (o > 255) return undefined;
    v = v * 256 + o;
  }
  return BigInt(v);
}

function parseV6Value(input: string): bigint | undefined {
  let s = input;
  const pct = s.indexOf('%');
  if (pct >= 0) s = s.slice(0, pct);
  if (s.length < 2 || !/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  const groups: number[] = [];
  const parseGroups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const items = part.split(':');
    for (let i = 0; i < items.length; i++) {
      const it = items[i]!;
      if (i === items.length - 1 && it.includes('.')) {
        const v4 = parseV4Value(it);
        if (v4 === undefined) return undefined;
        const n = Number(v4);
        out.push(Math.floor(n / 65536), n % 65536);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(it)) return undefined;
      out.push(parseInt(it, 16));
    }
    return out;
  };
  const dbl = s.indexOf('::');
  if (dbl >= 0) {
    if (s.indexOf('::', dbl + 1) >= 0) return undefined;
    const head = parseGroups(s.slice(0, dbl));
    const tail = parseGroups(s.slice(dbl + 2));
    if (!head || !tail || head.length + tail.length > 7) return undefined;
    groups.push(...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail);
  } else {
    const all = parseGroups(s);
    if (!all || all.length !== 8) return undefined;
    groups.push(...all);
  }
  let v = 0n;
  for (const g of groups) v = (v << 16n) | BigInt(g);
  return v;
}

const MAPPED_PREFIX = 0xffffn << 32n;

/**
 * Parses an IPv4 or IPv6 literal. IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`) are returned as IPv4
 * so that they match IPv4 ranges, as the address really is an IPv4 client.
 */
export function parseIp(s: string): ParsedIp | undefined {
  const t = s.trim();
  const v4 = parseV4Value(t);
  if (v4 !== undefined) return { family: 4, value: v4 };
  if (!t.includes(':')) return undefined;
  const v6 = parseV6Value(t);
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { family: 4, value: v6 - MAPPED_PREFIX };
  return { family: 6, value: v6 };
}

export function isIPv4(s: string): boolean {
  return parseV4Value(s.trim()) !== undefined;
}

export function isIPv6(s: string): boolean {
  const t = s.trim();
  return t.includes(':') && parseV6Value(t) !== undefined;
}

const bits = (f: IpFamily): bigint => (f === 4 ? 32n : 128n);

/**
 * The range an endpoint subnet entry covers: CIDR (`first` + `scope`, the network is taken from `first`),
 * `first`–`last`, or the single address `first`. Undefined when malformed (validation reports it).
 */
export function subnetRange(sn: EndpointSubnet): IpRange | undefined {
  const first = parseIp(String(sn.first ?? ''));
  if (!first) return undefined;
  if (sn.last !== undefined && sn.last !== null && String(sn.last) !== '') {
    const last = parseIp(String(sn.last));
    if (!last || last.family !== first.family || last.value < first.value) return undefined;
    return { family: first.family, lo: first.value, hi: last.value };
  }
  if (sn.scope !== undefined && sn.scope !== null) {
    const width = bits(first.family);
    const scope = BigInt(Math.trunc(Number(sn.scope)));
    if (scope < 0n || scope > width) return undefined;
    const hostMask = (1n << (width - scope)) - 1n;
    const lo = first.value & ~hostMask;
    return { family: first.family, lo, hi: lo | hostMask };
  }
  return { family: first.family, lo: first.value, hi: first.value };
}

export function rangeContains(r: IpRange, ip: ParsedIp): boolean {
  return r.family === ip.family && ip.value >= r.lo && ip.value <= r.hi;
}
