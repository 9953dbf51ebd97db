/**
 * DNS wire helpers for bench/public: queries built by hand (EDNS with DO, a COOKIE option) and responses read
 * only as far as the bench needs (TC, the extended rcode, the answer types, the COOKIE option), so the hot
 * loops do not decode whole messages.
 */

export const TYPE = { A: 1, NS: 2, SOA: 6, HINFO: 13, RRSIG: 46, NSEC: 47, DNSKEY: 48, ANY: 255 } as const;
export const TYPE_NAME: Record<number, string> = Object.fromEntries(Object.entries(TYPE).map(([k, v]) => [v, k]));
export const BADCOOKIE = 23;

export interface QueryOptions {
  id?: number;
  type: number;
  /** The DNSSEC OK bit (with EDNS). */
  dnssecOk?: boolean;
  /** EDNS UDP payload size (default 1232). */
  bufsize?: number;
  /** COOKIE option data: the 8-octet client cookie, maybe followed by the server cookie. */
  cookie?: Buffer;
}

export function encodeName(name: string): Buffer {
  const parts = name.replace(/\.$/, '').split('.').filter(Boolean);
  const bufs = parts.map((p) => Buffer.concat([Buffer.from([p.length]), Buffer.from(p, 'ascii')]));
  return Buffer.concat([...bufs, Buffer.from([0])]);
}

/** A query without RD (what an authoritative server gets from a resolver), always with an OPT record. */
export function buildQuery(name: string, o: QueryOptions): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE((o.id ?? 0) & 0xffff, 0);
  header.writeUInt16BE(1, 4); // QDCOUNT
  header.writeUInt16BE(1, 10); // ARCOUNT (the OPT)
  const question = Buffer.alloc(4);
  question.writeUInt16BE(o.type, 0);
  question.writeUInt16BE(1, 2); // IN
  const options = o.cookie ? Buffer.concat([Buffer.from([0, 10, 0, o.cookie.length]), o.cookie]) : Buffer.alloc(0);
  const opt = Buffer.alloc(11);
  opt.writeUInt16BE(41, 1); // root owner (opt[0] = 0), TYPE OPT
  opt.writeUInt16BE(o.bufsize ?? 1232, 3);
  opt.writeUInt16BE(o.dnssecOk ? 0x8000 : 0, 7); // TTL: extended rcode 0, version 0, flags (DO)
  opt.writeUInt16BE(options.length, 9);
  return Buffer.concat([header, encodeName(name), question, opt, options]);
}

/** With a TCP length prefix. */
export const framed = (m: Buffer): Buffer => Buffer.concat([Buffer.from([m.length >> 8, m.length & 0xff]), m]);

export interface Response {
  id: number;
  tc: boolean;
  /** Header rcode with the OPT's extended bits. */
  rcode: number;
  ancount: number;
  /** Answer section: each record's type, and for an RRSIG the type it covers. */
  answers: { type: number; covered?: number }[];
  /** The COOKIE option's data, when there is one. */
  cookie?: Buffer;
}

function skipName(b: Buffer, o: number): number {
  for (;;) {
    const len = b[o]!;
    if (len === 0) return o + 1;
    if ((len & 0xc0) === 0xc0) return o + 2;
    o += len + 1;
  }
}

/** Reads a response; throws on a malformed one. */
export function parseResponse(b: Buffer): Response {
  const r: Response = { id: b.readUInt16BE(0), tc: (b[2]! & 0x02) !== 0, rcode: b[3]! & 0x0f, ancount: b.readUInt16BE(6), answers: [] };
  const qd = b.readUInt16BE(4);
  const total = r.ancount + b.readUInt16BE(8) + b.readUInt16BE(10);
  let o = 12;
  for (let i = 0; i < qd; i++) o = skipName(b, o) + 4;
  for (let i = 0; i < total; i++) {
    o = skipName(b, o);
    const type = b.readUInt16BE(o);
    const rdlen = b.readUInt16BE(o + 8);
    const rdata = o + 10;
    if (i < r.ancount) r.answers.push(type === TYPE.RRSIG ? { type, covered: b.readUInt16BE(rdata) } : { type });
    if (type === 41) {
      r.rcode |= b[o + 4]! << 4;
      for (let p = rdata; p + 4 <= rdata + rdlen; ) {
        const code = b.readUInt16BE(p);
        const len = b.readUInt16BE(p + 2);
        if (code === 10) r.cookie = Buffer.from(b.subarray(p + 4, p + 4 + len));
        p += 4 + len;
      }
    }
    o = rdata + rdlen;
  }
  return r;
}

/** A full answer: not truncated, NOERROR, with records in the answer section. */
export const isFull = (r: Response): boolean => !r.tc && r.rcode === 0 && r.ancount > 0;
