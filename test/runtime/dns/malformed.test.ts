/**
 * Hostile input: a corpus of malformed packets with the exact reaction expected, and a randomized mutation
 * fuzz run (>= 100,000 packets through Responder.handle, the function both the UDP and the TCP servers
 * call, plus a batch over UDP to a server in its own process). Afterwards the server must still answer a
 * real query correctly and its process must be alive.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import * as dgram from 'node:dgram';
import * as dnsPacket from 'dns-packet';
import { Responder } from '../../../src/runtime/dns';
import { seededRng } from '../../../src/testing/rng';
import { ZONE, buildQuery, dig, ecsOption, emptySnapshot, optRecord, rcodeOf, standardTable, tableResolver, udpExchange } from './support';

const FORMERR = 1;
const NOTIMP = 4;
type Expect = 'drop' | number;

const q = (id = 0xbeef): Buffer => buildQuery(id, `v4.${ZONE}`, 1);
const withCounts = (b: Buffer, an: number, ns: number, ar: number): Buffer => {
  const c = Buffer.from(b);
  c.writeUInt16BE(an, 6);
  c.writeUInt16BE(ns, 8);
  c.writeUInt16BE(ar, 10);
  return c;
};
const header = (qd: number): Buffer => {
  const h = Buffer.alloc(12);
  h.writeUInt16BE(0x0101, 0);
  h.writeUInt16BE(qd, 4);
  return h;
};
const withOpt = (opt: Buffer, arcount = 1): Buffer => buildQuery(0xbeef, `v4.${ZONE}`, 1, { additional: opt, arcount });

const corpus: Array<[string, Buffer, Expect]> = [
  ['empty datagram', Buffer.alloc(0), 'drop'],
  ['truncated header (11 octets)', q().subarray(0, 11), 'drop'],
  [
    'a response (QR set)',
    (() => {
      const b = q();
      b[2]! |= 0x80;
      return b;
    })(),
    'drop',
  ],
  ['header only, QDCOUNT 1', header(1), FORMERR],
  ['QDCOUNT 0', header(0), FORMERR],
  ['QDCOUNT 2', buildQuery(1, `v4.${ZONE}`, 1, { qdcount: 2 }), FORMERR],
  ['QDCOUNT 65535', buildQuery(1, `v4.${ZONE}`, 1, { qdcount: 65535 }), FORMERR],
  ['opcode UPDATE (5)', buildQuery(1, `v4.${ZONE}`, 1, { opcode: 5 }), NOTIMP],
  ['opcode NOTIFY (4)', buildQuery(1, `v4.${ZONE}`, 1, { opcode: 4 }), NOTIMP],
  ['label length overflows the packet', Buffer.concat([header(1), Buffer.from([40, 0x61, 0x62])]), FORMERR],
  [
    'label length 64 (reserved label type)',
    Buffer.concat([header(1), Buffer.from([64]), Buffer.alloc(64, 0x61), Buffer.from([0, 0, 1, 0, 1])]),
    FORMERR,
  ],
  ['label type 0x80', Buffer.concat([header(1), Buffer.from([0x80, 0x61, 0, 0, 1, 0, 1])]), FORMERR],
  [
    'question name longer than 255 octets',
    Buffer.concat([
      header(1),
      ...Array.from({ length: 5 }, () => Buffer.concat([Buffer.from([60]), Buffer.alloc(60, 0x61)])),
      Buffer.from([0, 0, 1, 0, 1]),
    ]),
    FORMERR,
  ],
  ['compression pointer to itself in the question', Buffer.concat([header(1), Buffer.from([0xc0, 0x0c, 0, 1, 0, 1])]), FORMERR],
  ['compression pointer into the header', Buffer.concat([header(1), Buffer.from([1, 0x61, 0xc0, 0x00, 0, 1, 0, 1])]), FORMERR],
  ['name without terminating root label', Buffer.concat([header(1), Buffer.from([2, 0x61, 0x62])]), FORMERR],
  ['question type/class truncated', q().subarray(0, q().length - 2), FORMERR],
  ['ANCOUNT 65535 with no records', withCounts(q(), 65535, 0, 0), FORMERR],
  ['NSCOUNT 65535 with no records', withCounts(q(), 0, 65535, 0), FORMERR],
  ['ARCOUNT 65535 with no records', withCounts(q(), 0, 0, 65535), FORMERR],
  [
    'additional record name pointer loop (never followed) with truncated record',
    Buffer.concat([withCounts(q(), 0, 0, 1), Buffer.from([0xc0, q().length, 0, 1])]),
    FORMERR,
  ],
  [
    'additional record whose name is a pointer loop, record complete: skipped, not followed, answered',
    Buffer.concat([withCounts(q(), 0, 0, 1), Buffer.from([0xc0, q().length, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0])]),
    0,
  ],
  ['trailing garbage after the question', Buffer.concat([q(), Buffer.from([1, 2, 3])]), FORMERR],
  [
    'OPT rdlength runs past the end',
    (() => {
      const o = optRecord();
      o.writeUInt16BE(40, 9);
      return withOpt(o);
    })(),
    FORMERR,
  ],
  ['OPT option length runs past the OPT data', withOpt(optRecord(1232, 0, Buffer.from([0, 10, 0, 20, 1, 2]))), FORMERR],
  ['OPT option header cut short', withOpt(optRecord(1232, 0, Buffer.from([0, 10, 0]))), FORMERR],
  ['OPT with a non-root owner', withOpt(Buffer.concat([Buffer.from([1, 0x61]), optRecord()])), FORMERR],
  ['two OPT records', withOpt(Buffer.concat([optRecord(), optRecord()]), 2), FORMERR],
  [
    'OPT in the answer section',
    (() => {
      const b = Buffer.concat([q(), optRecord()]);
      b.writeUInt16BE(1, 6);
      return b;
    })(),
    FORMERR,
  ],
  ['ECS shorter than 4 octets', withOpt(optRecord(1232, 0, Buffer.from([0, 8, 0, 2, 0, 1]))), FORMERR],
  ['ECS family 3', withOpt(optRecord(1232, 0, ecsOption(3, 8, 0, [10]))), FORMERR],
  ['ECS IPv4 source prefix 33', withOpt(optRecord(1232, 0, ecsOption(1, 33, 0, [10, 0, 0, 0, 0]))), FORMERR],
  [
    'ECS IPv6 source prefix 129',
    withOpt(
      optRecord(
        1232,
        0,
        ecsOption(
          2,
          129,
          0,
          Array.from({ length: 17 }, () => 0),
        ),
      ),
    ),
    FORMERR,
  ],
  ['ECS address longer than the prefix needs', withOpt(optRecord(1232, 0, ecsOption(1, 8, 0, [10, 0, 0, 0]))), FORMERR],
  ['ECS address shorter than the prefix needs', withOpt(optRecord(1232, 0, ecsOption(1, 24, 0, [10, 0]))), FORMERR],
  ['ECS bits set beyond the source prefix', withOpt(optRecord(1232, 0, ecsOption(1, 20, 0, [10, 1, 0xff]))), FORMERR],
  ['ECS scope non-zero in a query', withOpt(optRecord(1232, 0, ecsOption(1, 24, 24, [10, 1, 2]))), FORMERR],
  ['ECS twice', withOpt(optRecord(1232, 0, Buffer.concat([ecsOption(1, 8, 0, [10]), ecsOption(1, 8, 0, [10])]))), FORMERR],
];

function newResponder(): Responder {
  return new Responder({ zone: ZONE, snapshot: emptySnapshot(), resolve: tableResolver(standardTable()), rng: seededRng(11) });
}

/** Checks the invariants every response must hold; returns an error text or null. */
function checkResponse(query: Buffer, out: Buffer | null, transport: 'udp' | 'tcp'): string | null {
  if (out === null) return null;
  const msg = transport === 'tcp' ? out.subarray(2) : out;
  if (transport === 'tcp' && out.readUInt16BE(0) !== msg.length) return 'TCP length prefix wrong';
  if (query.length < 12) return 'answered a packet without a header';
  if (msg.readUInt16BE(0) !== query.readUInt16BE(0)) return 'ID not copied';
  if (!(msg[2]! & 0x80)) return 'QR not set';
  if (transport === 'udp' && msg.length > 1232) return `UDP response of ${msg.length} octets`;
  try {
    dnsPacket.decode(msg);
  } catch (e) {
    return `response does not decode: ${(e as Error).message}`;
  }
  return null;
}

describe('malformed corpus', () => {
  test.each(corpus)('%s', async (_name, packet, expected) => {
    const r = newResponder();
    const out = r.handle(packet, '192.0.2.1', 'udp');
    if (expected === 'drop') {
      expect(out).toBeNull();
    } else {
      expect(out).not.toBeNull();
      expect(rcodeOf(out!)).toBe(expected);
      expect(checkResponse(packet, out, 'udp')).toBeNull();
      // The same over TCP framing.
      const t = r.handle(packet, '192.0.2.1', 'tcp');
      expect(rcodeOf(t!.subarray(2))).toBe(expected);
    }
  });

  test('an ECS FORMERR still carries an OPT (without the ECS option)', () => {
    const out = newResponder().handle(withOpt(optRecord(1232, 0, ecsOption(3, 8, 0, [10]))), '192.0.2.1', 'udp')!;
    const d = dnsPacket.decode(out);
    expect(d.additionals!.map((a) => a.type)).toEqual(['OPT']);
    expect((d.additionals![0] as dnsPacket.OptAnswer).options).toEqual([]);
  });
});

/** Mutates a packet with one to four random edits. */
function mutate(seed: Buffer, rnd: () => number): Buffer {
  let b = Buffer.from(seed);
  const edits = 1 + Math.floor(rnd() * 4);
  const int = (n: number): number => Math.floor(rnd() * n);
  for (let e = 0; e < edits; e++) {
    switch (int(9)) {
      case 0:
        if (b.length) b[int(b.length)]! ^= 1 << int(8);
        break; // bit flip
      case 1:
        if (b.length) b[int(b.length)] = int(256);
        break; // random byte
      case 2:
        b = b.subarray(0, int(b.length + 1));
        break; // truncate
      case 3:
        b = Buffer.concat([b, Buffer.from(Array.from({ length: 1 + int(16) }, () => int(256)))]);
        break; // extend
      case 4: {
        const i = int(b.length + 1);
        b = Buffer.concat([b.subarray(0, i), Buffer.from([int(256)]), b.subarray(i)]);
        break;
      } // insert
      case 5: {
        const i = int(b.length);
        b = Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
        break;
      } // delete
      case 6:
        if (b.length >= 12) b.writeUInt16BE([0, 1, 2, 255, 65535][int(5)]!, 4 + 2 * int(4));
        break; // counts
      case 7:
        if (b.length > 13) {
          const i = 12 + int(b.length - 13);
          b[i] = 0xc0;
          b[i + 1] = int(256);
        }
        break; // pointer
      case 8:
        if (b.length > 12) b[12 + int(b.length - 12)] = [0, 63, 64, 0x80, 0xff][int(5)]!;
        break; // label length
    }
  }
  return b;
}

const seeds = [
  buildQuery(1, `v4.${ZONE}`, 1),
  buildQuery(2, `weighted.${ZONE}`, 28, { additional: optRecord(4096) }),
  buildQuery(3, `geo.${ZONE}`, 1, { additional: optRecord(1232, 0, ecsOption(1, 24, 0, [198, 51, 100])) }),
  buildQuery(4, `geo.${ZONE}`, 1, { additional: optRecord(1232, 0, ecsOption(2, 48, 0, [0x20, 1, 0x0d, 0xb8, 0, 1])) }),
  buildQuery(5, ZONE, 6),
  buildQuery(6, `nope.${ZONE}`, 255, { additional: optRecord(512, 0, Buffer.from([0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8])) }),
  buildQuery(7, 'example.com', 1),
];

describe('fuzz', () => {
  test('100,000 mutated packets through the packet handler: no throw, every response well-formed', () => {
    const seed = Number(process.env.DNS_FUZZ_SEED ?? Date.now() % 2 ** 31);
    const rnd = seededRng(seed);
    const r = newResponder();
    const failures: string[] = [];
    let answered = 0;
    for (let i = 0; i < 100_000; i++) {
      const pkt = mutate(seeds[i % seeds.length]!, rnd);
      const transport = i % 10 === 0 ? 'tcp' : 'udp';
      const out = r.handle(pkt, i % 2 ? '192.0.2.1' : '2001:db8::1', transport);
      if (out) answered++;
      const err = checkResponse(pkt, out, transport);
      if (err && failures.length < 5) failures.push(`${err}: ${pkt.toString('hex')} (DNS_FUZZ_SEED=${seed})`);
    }
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(10_000); // the mutations are not all trivially dropped
    // Still correct afterwards.
    const ok = dnsPacket.decode(r.handle(buildQuery(9, `v4.${ZONE}`, 1), '192.0.2.1', 'udp')!);
    expect(ok.answers).toEqual([expect.objectContaining({ type: 'A', name: `v4.${ZONE}`, data: '192.0.2.10', ttl: 60 })]);
  });

  describe('over UDP to a server in its own process', () => {
    let child: ChildProcess;
    let port: number;
    beforeAll(async () => {
      child = spawn(process.execPath, ['-r', '@swc-node/register', path.join(__dirname, 'fixtures/serve-table.ts')], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      port = await new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (c) => {
          out += c;
          const m = /"port":(\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
      });
    }, 60000);
    afterAll(() => {
      child.kill('SIGTERM');
    });

    test('the malformed corpus and 20,000 mutated packets; then dig still gets the right answer', async () => {
      // Corpus first, answers checked.
      for (const [name, packet, expected] of corpus) {
        const resp = await udpExchange('127.0.0.1', port, packet, expected === 'drop' ? 200 : 5000);
        if (expected === 'drop') expect([name, resp]).toEqual([name, null]);
        else expect([name, resp && rcodeOf(resp)]).toEqual([name, expected]);
      }
      // Then mutated packets in batches, waiting for the replies to drain between batches.
      const rnd = seededRng(Number(process.env.DNS_FUZZ_SEED ?? 12345));
      const sock = dgram.createSocket('udp4');
      let replies = 0;
      sock.on('message', () => {
        replies++;
      });
      await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
      for (let batch = 0; batch < 100; batch++) {
        for (let i = 0; i < 200; i++) sock.send(mutate(seeds[i % seeds.length]!, rnd), port, '127.0.0.1');
        await new Promise((r) => setTimeout(r, 5));
      }
      await new Promise((r) => setTimeout(r, 200));
      sock.close();
      expect(replies).toBeGreaterThan(1000);
      expect(child.exitCode).toBeNull();
      expect(child.signalCode).toBeNull();
      const d = await dig(['@127.0.0.1', '-p', String(port), 'V4.tm.internal', 'A']);
      expect(d.status).toBe('NOERROR');
      expect(d.question).toEqual([';V4.tm.internal. IN A']);
      // The owner name is a pointer to the question, so it reads back in the query's case too.
      expect(d.answer).toEqual([['V4.tm.internal.', '60', 'IN', 'A', '192.0.2.10']]);
    }, 60000);
  });
});
