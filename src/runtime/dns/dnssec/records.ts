/**
 * DNSSEC record data in wire form (RFC 4034): DNSKEY, RRSIG, NSEC and DS RDATA, the key tag (appendix B),
 * the canonical form of an RRset that a signature covers (§6), and the NSEC type bitmap (§4.1.2). Pure:
 * no I/O, no clock, no module state; the digests and signatures themselves are in keys.ts (node:crypto).
 *
 * The records tmkit serves otherwise (A, AAAA, CNAME, NS, SOA: `WireRecord` in ../dns/encode.ts) are
 * turned into canonical wire form here: owner and RDATA names in ASCII lower case, uncompressed.
 */
import { parseIpBytes } from '../../../core/net/ip';
import { nameLabels, type WireRecord } from '../encode';

export const TYPE = { A: 1, NS: 2, CNAME: 5, SOA: 6, AAAA: 28, DS: 43, RRSIG: 46, NSEC: 47, DNSKEY: 48, NXNAME: 128 } as const;
export const CLASS_IN = 1;

/** DNSSEC algorithm numbers tmkit signs with (RFC 8624 §3.1: both MUST/RECOMMENDED for signing). */
export const ALGORITHM = { ECDSAP256SHA256: 13, ED25519: 15 } as const;
export type Algorithm = (typeof ALGORITHM)[keyof typeof ALGORITHM];
export const ALGORITHM_NAMES: Record<Algorithm, string> = { 13: 'ECDSAP256SHA256', 15: 'ED25519' };

/** DNSKEY flags: Zone Key (bit 7, 256) and Secure Entry Point (bit 15, 1): 257 for a KSK or CSK, 256 for a ZSK. */
export const FLAGS_ZSK = 256;
export const FLAGS_SEP = 257;
/** RFC 4509: digest type 2 is SHA-256. */
export const DIGEST_SHA256 = 2;

/** ASCII lower case of a latin1 label string (RFC 4343 §3: octets above 0x7f are not letters). */
function lower(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
  }
  return out;
}

/** A name in canonical wire form (RFC 4034 §6.2): labels in lower case, uncompressed, ending in the root. */
export function canonicalName(name: string): Buffer {
  const labels = nameLabels(name);
  let len = 1;
  for (const l of labels) len += 1 + l.length;
  const out = Buffer.alloc(len);
  let off = 0;
  for (const l of labels) {
    out[off++] = l.length;
    off += out.write(lower(l), off, 'latin1');
  }
  out[off] = 0;
  return out;
}

/**
 * The RRSIG Labels field of an owner name (RFC 4034 §3.1.3): its labels, counting neither the root nor a
 * leftmost `*` label. tmkit's zone has no wildcard records, but a query may ask for a name that starts with a
 * literal `*` (`*.tm.internal`): its compact-denial NSEC is owned by that name, and a signature that counts
 * the `*` is bogus to a validator (unbound: "signature labelcount out of range"). With the `*` not counted the
 * RRSIG is that of the wildcard name itself (§5.3.2 rebuilds the same `*.` owner), not of an expansion.
 */
export function labelCount(name: string): number {
  const labels = nameLabels(name);
  return labels[0] === '*' ? labels.length - 1 : labels.length;
}

/** The key tag of a DNSKEY RDATA (RFC 4034 appendix B; algorithm 1 is never used here). */
export function keyTag(dnskeyRdata: Uint8Array): number {
  let ac = 0;
  for (let i = 0; i < dnskeyRdata.length; i++) ac += i & 1 ? dnskeyRdata[i]! : dnskeyRdata[i]! << 8;
  ac += (ac >>> 16) & 0xffff;
  return ac & 0xffff;
}

export function dnskeyRdata(flags: number, algorithm: Algorithm, publicKey: Uint8Array): Buffer {
  const out = Buffer.alloc(4 + publicKey.length);
  out.writeUInt16BE(flags, 0);
  out[2] = 3; // protocol, always 3 (RFC 4034 §2.1.2)
  out[3] = algorithm;
  out.set(publicKey, 4);
  return out;
}

/** The RRSIG RDATA up to and including the signer's name: what is signed before the RRset (RFC 4034 §3.1.8.1). */
export interface RrsigFields {
  typeCovered: number;
  algorithm: Algorithm;
  labels: number;
  originalTtl: number;
  /** Seconds since the epoch (serial number arithmetic, RFC 4034 §3.1.5; tmkit's windows are far from 2106). */
  expiration: number;
  inception: number;
  keyTag: number;
  /** The zone apex in canonical wire form. */
  signer: Buffer;
}

export function rrsigPrefix(f: RrsigFields): Buffer {
  const out = Buffer.alloc(18 + f.signer.length);
  out.writeUInt16BE(f.typeCovered, 0);
  out[2] = f.algorithm;
  out[3] = f.labels;
  out.writeUInt32BE(f.originalTtl >>> 0, 4);
  out.writeUInt32BE(f.expiration >>> 0, 8);
  out.writeUInt32BE(f.inception >>> 0, 12);
  out.writeUInt16BE(f.keyTag, 16);
  f.signer.copy(out, 18);
  return out;
}

/** The type bitmap of an NSEC record (RFC 4034 §4.1.2): windows of up to 32 octets, types in any order. */
export function typeBitmap(types: Iterable<number>): Buffer {
  const windows = new Map<number, number[]>();
  for (const t of types) {
    const w = t >> 8;
    const bits = windows.get(w) ?? [];
    bits.push(t & 0xff);
    windows.set(w, bits);
  }
  const parts: Buffer[] = [];
  for (const w of [...windows.keys()].sort((a, b) => a - b)) {
    const bits = windows.get(w)!;
    const len = (Math.max(...bits) >> 3) + 1;
    const b = Buffer.alloc(2 + len);
    b[0] = w;
    b[1] = len;
    for (const t of bits) b[2 + (t >> 3)]! |= 0x80 >> (t & 7);
    parts.push(b);
  }
  return Buffer.concat(parts);
}

/** NSEC RDATA: the next owner name (uncompressed, lower case) and the type bitmap. */
export function nsecRdata(next: Buffer, types: Iterable<number>): Buffer {
  return Buffer.concat([next, typeBitmap(types)]);
}

/**
 * The next name of a compact-denial NSEC (RFC 9824 §3.1): `\000.<owner>`, the immediate successor of the
 * owner in canonical order (RFC 4034 §6.1), so the record covers no name but its own. An owner of 254 or 255
 * octets has no room for another label: then the last octet below 0xff of its first label goes up by one and
 * the 0xff octets after it go (RFC 4471 §3.1.2). No name lies between: it would need a longer first label.
 */
export function immediateSuccessor(ownerWire: Buffer): Buffer {
  if (ownerWire.length + 2 <= 255) return Buffer.concat([Buffer.from([1, 0]), ownerWire]);
  const len = ownerWire[0]!;
  let i = len;
  while (i >= 1 && ownerWire[i] === 0xff) i--;
  if (i < 1) return ownerWire; // a first label of only 0xff octets: no successor of the same shape (never a tmkit name)
  const label = Buffer.from(ownerWire.subarray(1, i + 1));
  label[i - 1]!++;
  return Buffer.concat([Buffer.from([label.length]), label, ownerWire.subarray(1 + len)]);
}

/** DS RDATA (RFC 4034 §5.1) for a DNSKEY, given the SHA-256 digest of owner | DNSKEY RDATA (RFC 4509). */
export function dsRdata(tag: number, algorithm: Algorithm, digest: Uint8Array): Buffer {
  const out = Buffer.alloc(4 + digest.length);
  out.writeUInt16BE(tag, 0);
  out[2] = algorithm;
  out[3] = DIGEST_SHA256;
  out.set(digest, 4);
  return out;
}

/** The wire type code of a record tmkit serves. */
export function typeCode(r: WireRecord): number {
  return TYPE[r.type];
}

/**
 * The RDATA of a record in canonical form (RFC 4034 §6.2, as narrowed by RFC 6840 §5.1): names inside NS,
 * CNAME and SOA in lower case and uncompressed; DNSSEC records' RDATA as given.
 */
export function canonicalRdata(r: WireRecord): Buffer {
  switch (r.type) {
    case 'A':
    case 'AAAA': {
      const p = parseIpBytes(r.data);
      if (p === undefined) throw new Error(`dnssec: ${JSON.stringify(r.data)} is not an address (${r.type} ${r.name})`);
      return Buffer.from(p.bytes);
    }
    case 'CNAME':
    case 'NS':
      return canonicalName(r.data);
    case 'SOA': {
      const d = r.data;
      const tail = Buffer.alloc(20);
      tail.writeUInt32BE(d.serial >>> 0, 0);
      tail.writeUInt32BE(d.refresh >>> 0, 4);
      tail.writeUInt32BE(d.retry >>> 0, 8);
      tail.writeUInt32BE(d.expire >>> 0, 12);
      tail.writeUInt32BE(d.minimum >>> 0, 16);
      return Buffer.concat([canonicalName(d.mname), canonicalName(d.rname), tail]);
    }
    default:
      return Buffer.from(r.data);
  }
}

/**
 * The RRset part of the signed data (RFC 4034 §3.1.8.1): every RR as owner | type | class | original TTL |
 * RDLENGTH | RDATA in canonical form, sorted by RDATA as unsigned octet strings, duplicates removed.
 * All records must share owner (ignoring case), type and TTL.
 */
export function canonicalRrset(rrset: readonly WireRecord[]): Buffer {
  const first = rrset[0]!;
  const owner = canonicalName(first.name);
  const type = typeCode(first);
  const rdatas = rrset
    .map(canonicalRdata)
    .sort(Buffer.compare)
    .filter((d, i, a) => i === 0 || !d.equals(a[i - 1]!));
  const parts: Buffer[] = [];
  for (const rd of rdatas) {
    const head = Buffer.alloc(10);
    head.writeUInt16BE(type, 0);
    head.writeUInt16BE(CLASS_IN, 2);
    head.writeUInt32BE(first.ttl >>> 0, 4);
    head.writeUInt16BE(rd.length, 8);
    parts.push(owner, head, rd);
  }
  return Buffer.concat(parts);
}
