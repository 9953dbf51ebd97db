/**
 * The response side of the DNS wire format: a whole message (header, the question, answer/authority/
 * additional records) encoded with name compression (RFC 1035 §4.1.4). Pure: no I/O, no module state.
 *
 * Compressed: the owner name of every record, and the names inside CNAME, NS and SOA RDATA (the RFC 1035
 * types, which RFC 3597 §4 allows to compress). A name is written as its leading labels followed by a
 * pointer to the longest tail already in the message, or in full. Pointers only point backwards, at
 * offsets below 0x4000 (the 14 bits a pointer has), and never into RDATA that is not a name.
 *
 * Case: the question sits at offset 12 and the responder rewrites its name bytes per query in the
 * query's case (0x20), so a tail of the question is matched case-insensitively (ASCII only, RFC 4343):
 * a name, or a tail of it, equal to a tail of the question is read back in the question's case. Every
 * other tail is matched exactly, so no other name changes case. `compress: false` writes every name in
 * full (the uncompressed size, for comparison).
 */
import { TmkitError } from '../../core/diagnostics';
import { parseIpBytes } from '../../core/net/ip';
import type { SoaData } from '../../core/zone';

export const MAX_LABEL_LENGTH = 63;
/** RFC 1035 §3.1: a name is at most 255 octets in wire form (length octets and the root label included). */
export const MAX_WIRE_NAME_LENGTH = 255;
/** A pointer's 14-bit offset: names starting at or after this cannot be pointed at. */
export const MAX_POINTER_OFFSET = 0x3fff;

const TYPE_CODE = { A: 1, NS: 2, CNAME: 5, SOA: 6, AAAA: 28, DS: 43, RRSIG: 46, NSEC: 47, DNSKEY: 48 } as const;
const CLASS_IN = 1;

/** A record of class IN, ARM-free DNS vocabulary (the zone's ZoneRecord has exactly this shape). */
export type WireRecord =
  | { type: 'A' | 'AAAA' | 'CNAME' | 'NS'; name: string; ttl: number; data: string }
  | { type: 'SOA'; name: string; ttl: number; data: SoaData }
  /**
   * DNSSEC records (RFC 4034), RDATA already in wire form: written as given, never compressed (the signer's
   * name in RRSIG and the next name in NSEC must not be, RFC 4034 §3.1.7 and §4.1.1).
   */
  | { type: 'DNSKEY' | 'RRSIG' | 'NSEC' | 'DS'; name: string; ttl: number; data: Uint8Array };

export interface WireMessage {
  /** Default 0 (the responder patches it per query). */
  id?: number;
  /** The 16 flag bits (QR, opcode, AA, TC, RD, RA, rcode). */
  flags: number;
  /** At most one question; its name in presentation form (`\.`, `\\`, `\DDD` escapes; trailing dot optional). */
  question?: { name: string; type: number; class: number };
  answers?: readonly WireRecord[];
  authorities?: readonly WireRecord[];
  additionals?: readonly WireRecord[];
}

export interface EncodeOptions {
  /** Default true. */
  compress?: boolean;
}

/** A name or RDATA that cannot be encoded; `path` names the field (`answers[0].data.mname`). */
export class DnsEncodeError extends TmkitError {
  constructor(
    code: 'DNS_ENCODE_NAME' | 'DNS_ENCODE_DATA',
    readonly path: string,
    message: string,
  ) {
    super(code, `dns: cannot encode ${path}: ${message}`);
  }
}

/**
 * Parses a presentation-form name into its labels (each a latin1 string of octets, escapes resolved).
 * `''` and `'.'` are the root (no labels). Throws DnsEncodeError DNS_ENCODE_NAME on an empty label, a label
 * over 63 octets, a name over 255 octets, a character above U+00FF, or a bad escape.
 */
export function nameLabels(name: string, path = 'name'): string[] {
  const labels: string[] = [];
  if (name === '' || name === '.') return labels;
  let label = '';
  let wire = 1; // the root label
  const bad = (why: string): never => {
    throw new DnsEncodeError('DNS_ENCODE_NAME', path, `the name ${JSON.stringify(name)} ${why}`);
  };
  const end = (last: boolean): void => {
    if (label.length === 0) {
      if (last) return;
      bad('has an empty label (two dots in a row, or a leading dot): write each label with 1-63 octets');
    }
    if (label.length > MAX_LABEL_LENGTH)
      bad(`has a label of ${label.length} octets (at most ${MAX_LABEL_LENGTH}, RFC 1035 §2.3.4): shorten it`);
    wire += 1 + label.length;
    if (wire > MAX_WIRE_NAME_LENGTH) bad(`is longer than ${MAX_WIRE_NAME_LENGTH} octets in wire form (RFC 1035 §2.3.4): shorten it`);
    labels.push(label);
    label = '';
  };
  for (let i = 0; i < name.length; i++) {
    let c = name.charCodeAt(i);
    if (c === 0x2e) {
      if (i === name.length - 1 && label.length > 0) break; // trailing dot
      end(false);
      continue;
    }
    if (c === 0x5c) {
      const d = name.slice(i + 1, i + 4);
      if (/^[0-9]{3}$/.test(d)) {
        c = Number(d);
        if (c > 255) bad(`has the escape \\${d} (a \\DDD escape is 000-255)`);
        i += 3;
      } else if (i + 1 < name.length) {
        c = name.charCodeAt(++i);
      } else {
        bad('ends in a lone backslash: escape it as \\\\');
      }
    }
    if (c > 0xff)
      bad(`has the character ${JSON.stringify(String.fromCharCode(c))} (labels are octets: write it as \\DDD escapes or in punycode)`);
    label += String.fromCharCode(c);
  }
  end(true);
  return labels;
}

/** ASCII-only lower case (RFC 4343 §3): octets above 0x7f are not letters. */
function foldCase(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) {
      let out = s.slice(0, i);
      for (let j = i; j < s.length; j++) {
        const d = s.charCodeAt(j);
        out += String.fromCharCode(d >= 0x41 && d <= 0x5a ? d | 0x20 : d);
      }
      return out;
    }
  }
  return s;
}

/** Wire length of a name given as labels. */
function wireLength(labels: readonly string[]): number {
  let n = 1;
  for (const l of labels) n += 1 + l.length;
  return n;
}

function recordsOf(msg: WireMessage): Array<[string, readonly WireRecord[]]> {
  return [
    ['answers', msg.answers ?? []],
    ['authorities', msg.authorities ?? []],
    ['additionals', msg.additionals ?? []],
  ];
}

/** A parsed name, with its tails as Map keys once compression asks for them (a name repeats a lot). */
interface ParsedName {
  labels: string[];
  wire: number;
  /** keys[i]: the tail from label i in wire form (length octets + labels); folded: the same, ASCII lower case. */
  keys?: string[];
  folded?: string[];
}

function tailKeys(p: ParsedName): { keys: string[]; folded: string[] } {
  if (p.keys === undefined || p.folded === undefined) {
    const l = p.labels;
    const keys = new Array<string>(l.length);
    const folded = new Array<string>(l.length);
    let k = '';
    for (let i = l.length - 1; i >= 0; i--) {
      k = String.fromCharCode(l[i]!.length) + l[i]! + k;
      keys[i] = k;
    }
    for (let i = 0; i < l.length; i++) folded[i] = foldCase(keys[i]!);
    p.keys = keys;
    p.folded = folded;
  }
  return { keys: p.keys, folded: p.folded };
}

class Writer {
  readonly buf: Buffer;
  off = 0;
  /** Tails written in the question (case-folded key) and elsewhere (exact key) → their offsets. */
  private readonly folded = new Map<string, number>();
  private readonly exact = new Map<string, number>();

  constructor(
    size: number,
    private readonly compress: boolean,
  ) {
    this.buf = Buffer.alloc(size);
  }

  u16(v: number): void {
    this.buf[this.off++] = (v >>> 8) & 0xff;
    this.buf[this.off++] = v & 0xff;
  }

  u32(v: number): void {
    this.buf.writeUInt32BE(v >>> 0, this.off);
    this.off += 4;
  }

  name(parsed: ParsedName, inQuestion: boolean): void {
    const labels = parsed.labels;
    const n = labels.length;
    if (!this.compress) {
      for (const l of labels) this.label(l);
      this.buf[this.off++] = 0;
      return;
    }
    const { keys, folded } = tailKeys(parsed);
    let i = 0;
    let target: number | undefined;
    for (; i < n; i++) {
      target = this.exact.get(keys[i]!) ?? this.folded.get(folded[i]!);
      if (target !== undefined) break;
    }
    for (let j = 0; j < i; j++) {
      if (this.off <= MAX_POINTER_OFFSET) {
        if (inQuestion) this.folded.set(folded[j]!, this.off);
        else if (!this.exact.has(keys[j]!)) this.exact.set(keys[j]!, this.off);
      }
      this.label(labels[j]!);
    }
    if (target !== undefined) this.u16(0xc000 | target);
    else this.buf[this.off++] = 0;
  }

  private label(l: string): void {
    this.buf[this.off++] = l.length;
    this.off += this.buf.write(l, this.off, 'latin1');
  }
}

function address(r: WireRecord, path: string): Uint8Array {
  const family = r.type === 'A' ? 4 : 6;
  const p = typeof r.data === 'string' ? parseIpBytes(r.data) : undefined;
  if (p === undefined || p.family !== family) {
    throw new DnsEncodeError(
      'DNS_ENCODE_DATA',
      `${path}.data`,
      `${JSON.stringify(r.data)} is not an IPv${family} address (an ${r.type} record holds one, e.g. ${family === 4 ? '192.0.2.1' : '2001:db8::1'})`,
    );
  }
  return p.bytes;
}

function checkUint(v: number, max: number, path: string, what: string): void {
  if (!Number.isInteger(v) || v < 0 || v > max)
    throw new DnsEncodeError('DNS_ENCODE_DATA', path, `${JSON.stringify(v)} is not a whole number from 0 to ${max} (${what})`);
}

/**
 * Encodes a message. Names are compressed unless `compress: false`. Throws DnsEncodeError (code
 * DNS_ENCODE_NAME or DNS_ENCODE_DATA, naming the field) for a name or RDATA that has no wire form.
 */
export function encodeMessage(msg: WireMessage, opts: EncodeOptions = {}): Buffer {
  const sections = recordsOf(msg);
  // Parse every name first (each distinct string once): the uncompressed size bounds the buffer, and
  // errors come before any writing.
  const cache = new Map<string, ParsedName>();
  const parse = (name: string, path: string): ParsedName => {
    let p = cache.get(name);
    if (p === undefined) {
      const labels = nameLabels(name, path);
      p = { labels, wire: wireLength(labels) };
      cache.set(name, p);
    }
    return p;
  };
  const q = msg.question;
  const qName = q ? parse(q.name, 'question.name') : undefined;
  let size = 12 + (qName ? qName.wire + 4 : 0);
  const parsed: Array<Array<{ r: WireRecord; owner: ParsedName; names: ParsedName[]; ip?: Uint8Array; raw?: Uint8Array }>> = [];
  for (const [section, records] of sections) {
    if (records.length > 0xffff)
      throw new DnsEncodeError('DNS_ENCODE_DATA', section, `${records.length} records (a section holds at most 65535)`);
    const out: (typeof parsed)[number] = [];
    records.forEach((r, i) => {
      const path = `${section}[${i}]`;
      checkUint(r.ttl, 0x7fffffff, `${path}.ttl`, 'RFC 2181 §8');
      const owner = parse(r.name, `${path}.name`);
      size += owner.wire + 10;
      const e: (typeof out)[number] = { r, owner, names: [] };
      switch (r.type) {
        case 'A':
        case 'AAAA':
          e.ip = address(r, path);
          size += e.ip.length;
          break;
        case 'CNAME':
        case 'NS':
          e.names.push(parse(r.data, `${path}.data`));
          break;
        case 'SOA': {
          const d = r.data;
          e.names.push(parse(d.mname, `${path}.data.mname`), parse(d.rname, `${path}.data.rname`));
          for (const f of ['serial', 'refresh', 'retry', 'expire', 'minimum'] as const)
            checkUint(d[f], 0xffffffff, `${path}.data.${f}`, 'RFC 1035 §3.3.13');
          size += 20;
          break;
        }
        case 'DNSKEY':
        case 'RRSIG':
        case 'NSEC':
        case 'DS':
          if (!(r.data instanceof Uint8Array) || r.data.length > 0xffff)
            throw new DnsEncodeError('DNS_ENCODE_DATA', `${path}.data`, `the ${r.type} RDATA must be wire-form octets (at most 65535)`);
          e.raw = r.data;
          size += r.data.length;
          break;
        default:
          throw new DnsEncodeError(
            'DNS_ENCODE_DATA',
            `${path}.type`,
            `type ${JSON.stringify((r as { type: unknown }).type)} is not one tmkit serves (A, AAAA, CNAME, NS, SOA, DNSKEY, RRSIG, NSEC, DS)`,
          );
      }
      for (const n of e.names) size += n.wire;
      out.push(e);
    });
    parsed.push(out);
  }

  const w = new Writer(size, opts.compress !== false);
  w.u16(msg.id ?? 0);
  w.u16(msg.flags);
  w.u16(q ? 1 : 0);
  for (const s of parsed) w.u16(s.length);
  if (q && qName) {
    w.name(qName, true);
    w.u16(q.type);
    w.u16(q.class);
  }
  for (const s of parsed) {
    for (const { r, owner, names, ip, raw } of s) {
      w.name(owner, false);
      w.u16(TYPE_CODE[r.type]);
      w.u16(CLASS_IN);
      w.u32(r.ttl);
      const lenAt = w.off;
      w.off += 2;
      if (ip) {
        w.buf.set(ip, w.off);
        w.off += ip.length;
      } else if (raw) {
        w.buf.set(raw, w.off);
        w.off += raw.length;
      } else {
        for (const n of names) w.name(n, false);
        if (r.type === 'SOA') {
          const d = r.data;
          w.u32(d.serial);
          w.u32(d.refresh);
          w.u32(d.retry);
          w.u32(d.expire);
          w.u32(d.minimum);
        }
      }
      w.buf.writeUInt16BE(w.off - lenAt - 2, lenAt);
    }
  }
  return w.off === size ? w.buf : unpooled(w.buf.subarray(0, w.off));
}

/**
 * A copy of `src` in memory of its own. Node hands out small Buffers (Buffer.from, concat, allocUnsafe) as
 * slices of shared 8 KiB slabs, and a slice keeps its whole slab alive: a cache of a few hundred octets per
 * entry that lives while the slabs around it churn (a random-name flood) would hold 8 KiB per entry instead.
 * Whatever a DNS cache keeps goes through this.
 */
export function unpooled(src: Uint8Array): Buffer {
  const out = Buffer.allocUnsafeSlow(src.length);
  out.set(src);
  return out;
}
