/**
 * The compressing encoder (RFC 1035 §4.1.4) on its own: every message is decoded again by dns-packet and
 * walked by hand, checking that every pointer points backwards, below 0x4000, at the start of a label of
 * an earlier name. Case: tails of the question are matched case-insensitively (the responder rewrites the
 * question in the query's case), everything else exactly.
 */
import * as dnsPacket from 'dns-packet';
import fc from 'fast-check';
import { parseIpBytes } from '../../../src/core/net/ip';
import { DnsEncodeError, encodeMessage, nameLabels, type WireMessage, type WireRecord } from '../../../src/runtime/dns/encode';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const dnsTypes = require('dns-packet/types') as { toString(type: number): string };

const QR_AA = 0x8400;

interface Walked {
  /** Every name in message order, read back (pointers followed), labels in the case on the wire. */
  names: string[];
  pointers: number;
}

/** Walks a message we encoded, asserting the pointer rules; throws (failing the test) on any violation. */
function walk(buf: Buffer): Walked {
  const labelStarts = new Set<number>();
  const names: string[] = [];
  let pointers = 0;
  const readName = (start: number): number => {
    const labels: string[] = [];
    let p = start;
    let end = -1;
    let jumps = 0;
    for (;;) {
      if (p >= buf.length) throw new Error(`name at ${start} runs past the end`);
      const l = buf[p]!;
      if (l === 0) {
        if (end < 0) end = p + 1;
        break;
      }
      if ((l & 0xc0) === 0xc0) {
        const t = buf.readUInt16BE(p) & 0x3fff;
        if (t >= start) throw new Error(`pointer at ${p} to ${t}: not before the name it is in (starts at ${start})`);
        if (!labelStarts.has(t)) throw new Error(`pointer at ${p} to ${t}: not the start of a label of an earlier name`);
        if (end < 0) {
          end = p + 2;
          pointers++;
        }
        if (++jumps > 127) throw new Error('pointer loop');
        p = t;
        continue;
      }
      if (l > 63) throw new Error(`label type 0x${l.toString(16)} at ${p}`);
      if (end < 0) labelStarts.add(p);
      labels.push(buf.toString('latin1', p + 1, p + 1 + l));
      p += 1 + l;
    }
    names.push(labels.join('.'));
    return end;
  };
  const qd = buf.readUInt16BE(4);
  const rr = buf.readUInt16BE(6) + buf.readUInt16BE(8) + buf.readUInt16BE(10);
  let off = 12;
  for (let i = 0; i < qd; i++) off = readName(off) + 4;
  for (let i = 0; i < rr; i++) {
    off = readName(off);
    const type = buf.readUInt16BE(off);
    const rdEnd = off + 10 + buf.readUInt16BE(off + 8);
    let p = off + 10;
    if (type === 2 || type === 5) p = readName(p);
    else if (type === 6) p = readName(readName(p)) + 20;
    else p = rdEnd;
    if (p !== rdEnd) throw new Error(`record ${i}: RDLENGTH says ${rdEnd - off - 10}, the data is ${p - off - 10}`);
    off = rdEnd;
  }
  if (off !== buf.length) throw new Error(`${buf.length - off} trailing octets`);
  return { names, pointers };
}

/** dns-packet's view of our message (records as plain objects). */
function decode(buf: Buffer): dnsPacket.DecodedPacket {
  return dnsPacket.decode(buf);
}

const soa = (name: string, ttl = 30): WireRecord => ({
  type: 'SOA',
  name,
  ttl,
  data: {
    mname: 'ns1.tm.internal',
    rname: 'hostmaster.tm.internal',
    serial: 2026010101,
    refresh: 3600,
    retry: 600,
    expire: 86400,
    minimum: 30,
  },
});

/** The same message through dns-packet (no compression): what the responder sent before. */
function dnsPacketEncoding(m: WireMessage): Buffer {
  const rec = (r: WireRecord): dnsPacket.Answer =>
    ({ type: r.type, name: r.name, ttl: r.ttl, class: 'IN', data: r.data }) as dnsPacket.Answer;
  return dnsPacket.encode({
    type: 'response',
    id: m.id ?? 0,
    flags: m.flags & 0x7fff,
    questions: m.question ? [{ name: m.question.name, type: dnsTypes.toString(m.question.type) as dnsPacket.RecordType, class: 'IN' }] : [],
    answers: (m.answers ?? []).map(rec),
    authorities: (m.authorities ?? []).map(rec),
    additionals: (m.additionals ?? []).map(rec),
  });
}

describe('answers tmkit sends', () => {
  test("CNAME: the owner is a pointer to the question, read back in the question's case", () => {
    const m: WireMessage = {
      flags: QR_AA,
      question: { name: 'Www.Tm.Internal', type: 1, class: 1 },
      answers: [{ type: 'CNAME', name: 'www.tm.internal', ttl: 30, data: 'cdn.example.net' }],
    };
    const b = encodeMessage(m);
    const w = walk(b);
    expect(w.names).toEqual(['Www.Tm.Internal', 'Www.Tm.Internal', 'cdn.example.net']);
    const qEnd = 12 + 'Www.Tm.Internal'.length + 2 + 4;
    expect([...b.subarray(qEnd, qEnd + 2)]).toEqual([0xc0, 12]);
    const d = decode(b);
    expect(d.questions).toEqual([{ name: 'Www.Tm.Internal', type: 'A', class: 'IN' }]);
    expect(d.answers).toEqual([{ name: 'Www.Tm.Internal', type: 'CNAME', ttl: 30, class: 'IN', flush: false, data: 'cdn.example.net' }]);
    expect(b.length).toBe(dnsPacketEncoding(m).length - 15); // the owner: 17 octets → a 2-octet pointer
  });

  test('CNAME to a name in the zone (nested profile): the target shares the zone tail of the question', () => {
    const m: WireMessage = {
      flags: QR_AA,
      question: { name: 'app.tm.internal', type: 1, class: 1 },
      answers: [{ type: 'CNAME', name: 'app.tm.internal', ttl: 30, data: 'child.tm.internal' }],
    };
    const b = encodeMessage(m);
    expect(walk(b)).toEqual({ names: ['app.tm.internal', 'app.tm.internal', 'child.tm.internal'], pointers: 2 });
    expect((decode(b).answers![0] as { data: string }).data).toBe('child.tm.internal');
  });

  test('NODATA: SOA owner, mname and rname point into the question', () => {
    const m: WireMessage = { flags: QR_AA, question: { name: 'x.tm.internal', type: 28, class: 1 }, authorities: [soa('tm.internal')] };
    const b = encodeMessage(m);
    const w = walk(b);
    expect(w).toEqual({ names: ['x.tm.internal', 'tm.internal', 'ns1.tm.internal', 'hostmaster.tm.internal'], pointers: 3 });
    const owner = 12 + 15 + 4;
    expect([...b.subarray(owner, owner + 2)]).toEqual([0xc0, 14]); // "tm.internal" starts after "\x01x"
    const d = decode(b);
    expect(d.authorities![0]).toMatchObject({
      name: 'tm.internal',
      type: 'SOA',
      ttl: 30,
      data: {
        mname: 'ns1.tm.internal',
        rname: 'hostmaster.tm.internal',
        serial: 2026010101,
        refresh: 3600,
        retry: 600,
        expire: 86400,
        minimum: 30,
      },
    });
    expect(dnsPacketEncoding(m).length - b.length).toBe(11 + 11 + 11); // owner 13 → 2, mname 17 → 6, rname 24 → 13
  });

  test('apex NS with glue: the glue owner points at the NS name in the answer', () => {
    const m: WireMessage = {
      flags: QR_AA,
      question: { name: 'tm.internal', type: 2, class: 1 },
      answers: [
        { type: 'NS', name: 'tm.internal', ttl: 300, data: 'ns1.tm.internal' },
        { type: 'NS', name: 'tm.internal', ttl: 300, data: 'ns.example.net' },
      ],
      additionals: [
        { type: 'A', name: 'ns1.tm.internal', ttl: 300, data: '192.0.2.53' },
        { type: 'AAAA', name: 'ns1.tm.internal', ttl: 300, data: '2001:db8::53' },
      ],
    };
    const b = encodeMessage(m);
    const w = walk(b);
    expect(w.names).toEqual([
      'tm.internal',
      'tm.internal',
      'ns1.tm.internal',
      'tm.internal',
      'ns.example.net',
      'ns1.tm.internal',
      'ns1.tm.internal',
    ]);
    const firstNsData = 12 + 13 + 4 + 2 + 10;
    const glueOwner = b.length - 16 - 10 - 2 - 4 - 10 - 2;
    expect([...b.subarray(glueOwner, glueOwner + 2)]).toEqual([0xc0, firstNsData]);
    const d = decode(b);
    expect(d.answers!.map((a) => (a as { data: string }).data)).toEqual(['ns1.tm.internal', 'ns.example.net']);
    expect(d.additionals!.map((a) => [a.name, (a as { data: string }).data])).toEqual([
      ['ns1.tm.internal', '192.0.2.53'],
      ['ns1.tm.internal', '2001:db8::53'],
    ]);
  });

  test('8 AAAA: each owner is one pointer to the question', () => {
    const name = `${'m'.repeat(63)}.m.tm.internal`;
    const m: WireMessage = {
      flags: QR_AA,
      question: { name, type: 28, class: 1 },
      answers: Array.from({ length: 8 }, (_, i) => ({ type: 'AAAA' as const, name, ttl: 10, data: `2001:db8::${i + 1}` })),
    };
    const b = encodeMessage(m);
    expect(walk(b).pointers).toBe(8);
    expect(b.length).toBe(12 + 83 + 8 * (2 + 10 + 16));
    expect(dnsPacketEncoding(m).length).toBe(12 + 83 + 8 * (79 + 10 + 16));
  });
});

describe('names', () => {
  test('the root is one zero octet, never a pointer', () => {
    const m: WireMessage = {
      flags: QR_AA,
      question: { name: '.', type: 2, class: 1 },
      answers: [
        { type: 'NS', name: '', ttl: 1, data: 'a.root-servers.net' },
        { type: 'NS', name: '.', ttl: 1, data: '.' },
      ],
    };
    const b = encodeMessage(m);
    expect(walk(b)).toEqual({ names: ['', '', 'a.root-servers.net', '', ''], pointers: 0 });
    expect(b[12]).toBe(0);
    expect(b.length).toBe(dnsPacketEncoding(m).length);
    expect(decode(b).answers!.map((a) => [a.name, (a as { data: string }).data])).toEqual([
      ['.', 'a.root-servers.net'],
      ['.', '.'],
    ]);
  });

  test('labels: 63 octets is the limit; 255 octets per name; no empty labels', () => {
    const l63 = 'a'.repeat(63);
    expect(nameLabels(`${l63}.example`)).toEqual([l63, 'example']);
    expect(() => nameLabels(`${l63}a.example`, 'answers[0].name')).toThrow(/answers\[0\]\.name: .*label of 64 octets \(at most 63/);
    // 4 × 63-octet labels + 1 × 61 = 4·64 + 62 + 1 = 319 > 255; 3 × 63 + 1 × 61: 3·64 + 62 + 1 = 255.
    const max = [l63, l63, l63, 'b'.repeat(61)].join('.');
    expect(nameLabels(max)).toHaveLength(4);
    expect(() => nameLabels(`${max}b`)).toThrow(/longer than 255 octets/);
    expect(() => nameLabels('a..b')).toThrow(/empty label/);
    expect(() => nameLabels('.a')).toThrow(/empty label/);
    expect(nameLabels('a.b.')).toEqual(['a', 'b']);
    try {
      encodeMessage({ flags: 0, answers: [{ type: 'CNAME', name: 'ok.example', ttl: 1, data: `${l63}x.example` }] });
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(DnsEncodeError);
      expect((e as DnsEncodeError).code).toBe('DNS_ENCODE_NAME');
      expect((e as DnsEncodeError).path).toBe('answers[0].data');
    }
    // A 255-octet name encodes and decodes.
    const b = encodeMessage({
      flags: QR_AA,
      question: { name: max, type: 1, class: 1 },
      answers: [{ type: 'A', name: max, ttl: 1, data: '192.0.2.1' }],
    });
    expect(decode(b).answers![0]!.name).toBe(max);
  });

  test('escapes: \\. inside a label, \\\\, \\DDD', () => {
    expect(nameLabels('a\\.b.example')).toEqual(['a.b', 'example']);
    expect(nameLabels('a\\\\b.example')).toEqual(['a\\b', 'example']);
    expect(nameLabels('\\065\\000z.example')).toEqual(['A\u0000z', 'example']);
    expect(() => nameLabels('\\256.example')).toThrow(/\\DDD escape is 000-255/);
    expect(() => nameLabels('a\\')).toThrow(/lone backslash/);
    expect(() => nameLabels('caf\u00e9\u2603.example')).toThrow(/character "☃"/);
  });

  test('case: a tail of the question folds; every other name keeps its own case', () => {
    const m: WireMessage = {
      flags: QR_AA,
      question: { name: 'WWW.tm.internal', type: 1, class: 1 },
      answers: [
        { type: 'CNAME', name: 'www.TM.internal', ttl: 1, data: 'Cdn.Example.NET' },
        { type: 'CNAME', name: 'cdn.example.net', ttl: 1, data: 'CDN.example.net' },
        { type: 'A', name: 'Cdn.Example.NET', ttl: 1, data: '192.0.2.1' },
      ],
    };
    const b = encodeMessage(m);
    const w = walk(b);
    // The owner takes the question's case; "Cdn.Example.NET" is written once and pointed at by the exact
    // repeat only; "cdn.example.net" and "CDN.example.net" share only the exact tail "example.net".
    expect(w.names).toEqual([
      'WWW.tm.internal',
      'WWW.tm.internal',
      'Cdn.Example.NET',
      'cdn.example.net',
      'CDN.example.net',
      'Cdn.Example.NET',
    ]);
    expect(w.pointers).toBe(3);
  });

  test('names past offset 0x3fff are written in full or point back below it', () => {
    const answers: WireRecord[] = Array.from({ length: 800 }, (_, i) => ({
      type: 'CNAME',
      name: `n${i}.example.org`,
      ttl: 1,
      data: `t${i}.example.org`,
    }));
    answers.push({ type: 'A', name: 'n799.example.org', ttl: 1, data: '192.0.2.9' }); // n799 sits past 0x3fff
    const b = encodeMessage({ flags: QR_AA, answers });
    expect(b.length).toBeGreaterThan(0x4000);
    const w = walk(b); // every pointer below the name it is in, at a label start (so < 0x4000)
    expect(w.names.slice(-3)).toEqual(['n799.example.org', 't799.example.org', 'n799.example.org']);
    // The last owner cannot point at "n799.example.org" (past 0x3fff): "n799" in full, then "example.org" at 15.
    const owner = b.length - 4 - 10 - 7;
    expect([...b.subarray(owner, owner + 7)]).toEqual([4, ...Buffer.from('n799'), 0xc0, 15]);
    const d = decode(b);
    expect(d.answers).toHaveLength(801);
    expect(d.answers![800]!.name).toBe('n799.example.org');
  });
});

describe('records', () => {
  test('bad RDATA and TTLs name the field', () => {
    const cases: Array<[WireRecord, string, RegExp]> = [
      [{ type: 'A', name: 'a.example', ttl: 1, data: '2001:db8::1' }, 'answers[0].data', /not an IPv4 address/],
      [{ type: 'AAAA', name: 'a.example', ttl: 1, data: '192.0.2.1' }, 'answers[0].data', /not an IPv6 address/],
      [{ type: 'A', name: 'a.example', ttl: -1, data: '192.0.2.1' }, 'answers[0].ttl', /0 to 2147483647/],
      [
        { ...soa('a.example'), data: { ...(soa('a.example').data as object), serial: 2 ** 32 } } as WireRecord,
        'answers[0].data.serial',
        /0 to 4294967295/,
      ],
    ];
    for (const [r, path, re] of cases) {
      let err: unknown;
      try {
        encodeMessage({ flags: 0, answers: [r] });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(DnsEncodeError);
      expect((err as DnsEncodeError).code).toBe('DNS_ENCODE_DATA');
      expect((err as DnsEncodeError).path).toBe(path);
      expect((err as Error).message).toMatch(re);
    }
  });

  test('compress: false is byte for byte what dns-packet encodes', () => {
    const m: WireMessage = {
      id: 0x1234,
      flags: QR_AA | 3,
      question: { name: 'nope.tm.internal', type: 1, class: 1 },
      authorities: [soa('tm.internal')],
    };
    expect(encodeMessage(m, { compress: false }).equals(dnsPacketEncoding(m))).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------
// Property: decode(encode(x)) is x (names up to the question's case), pointers valid, never longer.

const label = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('tm', 'TM', 'Tm', 'internal', 'INTERNAL', 'www', 'WWW', 'ns1', 'example', 'net', 'a', 'b-1') },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-zA-Z0-9_-]{1,63}$/) },
);
const nameArb = fc
  .array(label, { maxLength: 5 })
  .map((ls) => ls.join('.'))
  .filter((n) => n.length <= 253);
const ipv4 = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }).map((b) => b.join('.'));
const ipv6 = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
  .map((w) => w.map((x) => x.toString(16)).join(':'));
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const ttl = fc.integer({ min: 0, max: 0x7fffffff });
const recordArb: fc.Arbitrary<WireRecord> = fc.oneof(
  fc.record({ type: fc.constant('A' as const), name: nameArb, ttl, data: ipv4 }),
  fc.record({ type: fc.constant('AAAA' as const), name: nameArb, ttl, data: ipv6 }),
  fc.record({ type: fc.constantFrom('CNAME' as const, 'NS' as const), name: nameArb, ttl, data: nameArb }),
  fc.record({
    type: fc.constant('SOA' as const),
    name: nameArb,
    ttl,
    data: fc.record({ mname: nameArb, rname: nameArb, serial: u32, refresh: u32, retry: u32, expire: u32, minimum: u32 }),
  }),
);
const section = fc.array(recordArb, { maxLength: 8 });
const messageArb: fc.Arbitrary<WireMessage> = fc
  .record({
    id: fc.integer({ min: 0, max: 0xffff }),
    flags: fc.integer({ min: 0, max: 0xffff }).map((f) => f | 0x8000),
    question: fc.option(fc.record({ name: nameArb, type: fc.constantFrom(1, 2, 5, 6, 28, 255), class: fc.constant(1) }), {
      nil: undefined,
    }),
    answers: section,
    authorities: section,
    additionals: section,
  })
  .map((m) =>
    m.question === undefined ? { id: m.id, flags: m.flags, answers: m.answers, authorities: m.authorities, additionals: m.additionals } : m,
  );

const fold = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const labelsOf = (n: string): string[] => (n === '' || n === '.' ? [] : n.split('.'));
/** What a name reads back as: its longest tail equal (ignoring case) to a tail of the question is in the question's case. */
function expectedName(name: string, question: string | undefined): string {
  const n = labelsOf(name);
  const q = question === undefined ? [] : labelsOf(question);
  let k = 0;
  while (k < n.length && k < q.length && fold(n[n.length - 1 - k]!) === fold(q[q.length - 1 - k]!)) k++;
  const out = [...n.slice(0, n.length - k), ...q.slice(q.length - k)].join('.');
  return out === '' ? '.' : out;
}

test('property: dns-packet decodes every encoding to the input; pointers valid; length ≤ uncompressed', () => {
  fc.assert(
    fc.property(messageArb, (m) => {
      const b = encodeMessage(m);
      const plain = encodeMessage(m, { compress: false });
      expect(b.length).toBeLessThanOrEqual(plain.length);
      expect(plain.equals(dnsPacketEncoding(m))).toBe(true);
      walk(b);
      const d = decode(b);
      const qn = m.question?.name;
      expect(d.id).toBe(m.id);
      expect(d.flags).toBe(m.flags & 0x7fff);
      expect(d.questions).toEqual(
        m.question ? [{ name: qn === '' ? '.' : qn, type: dnsTypes.toString(m.question.type), class: 'IN' }] : [],
      );
      const check = (got: dnsPacket.Answer[] | undefined, want: readonly WireRecord[] | undefined): void => {
        expect(got).toHaveLength(want?.length ?? 0);
        (want ?? []).forEach((r, i) => {
          const g = got![i] as dnsPacket.Answer & { data: unknown; ttl: number; class: string };
          expect([g.type, g.name, g.ttl, g.class]).toEqual([r.type, expectedName(r.name, qn), r.ttl, 'IN']);
          if (r.type === 'A' || r.type === 'AAAA') expect(parseIpBytes(g.data as string)!.bytes).toEqual(parseIpBytes(r.data)!.bytes);
          else if (r.type === 'SOA')
            expect(g.data).toEqual({ ...r.data, mname: expectedName(r.data.mname, qn), rname: expectedName(r.data.rname, qn) });
          else if (typeof r.data === 'string') expect(g.data).toBe(expectedName(r.data, qn));
          else throw new Error(`the property only generates A, AAAA, CNAME, NS and SOA, not ${r.type}`);
        });
      };
      check(d.answers, m.answers);
      check(d.authorities, m.authorities);
      check(d.additionals, m.additionals);
    }),
    { numRuns: 1000 },
  );
});
