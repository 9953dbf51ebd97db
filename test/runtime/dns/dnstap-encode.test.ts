/**
 * dnstap's encoder (issue 42): the frames are written straight into the writer's arena and the decision JSON
 * in `extra` from bytes made once per answer, so these check the fast path against the slow truths: the
 * decision JSON is byte for byte `JSON.stringify(decisionRecord(…))` for any names, clients and trails (quotes,
 * backslashes, control characters, non-ASCII), and both frames decode, field by field, to what went in. The
 * writer's batching is checked against a real Frame Streams reader on a unix socket: frames queued across
 * several arenas while no reader is there arrive complete and in order, and the queue's cap drops whole
 * queries and counts them.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeProfile } from '../../../src/core/model/normalize';
import { buildSnapshot } from '../../../src/core/routing';
import type { ExplanationStep } from '../../../src/core/routing/types';
import { dnstapFrames, DnstapWriter } from '../../../src/runtime/dns';
import { decisionRecord, decisionTail, type Explained, writeDecisionJson } from '../../../src/runtime/dns/decisions';
import { controlFrame, readControlFrame } from '../../../src/runtime/dns/dnstap';
import { varint } from '../../support/dnstap';

const snapshot = buildSnapshot({
  zone: 'tm.internal',
  geo: { locate: () => undefined, latencyMs: () => undefined },
  health: {
    verdict: () => 'Online',
    override: (profile: string, endpoint: string) =>
      endpoint === 'held' ? { down: true, reason: `override of ${profile} by "dr-0123abcd" \\ drill` } : undefined,
  },
  profiles: [
    normalizeProfile({
      name: 'web',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'web', ttl: 30 },
      endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }],
    }),
  ],
} as Parameters<typeof buildSnapshot>[0]);

/** Any text, weighted towards what JSON must escape. */
const text = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', '"', '\\', '\u0000', '\u001f', '\u007f', 'é', '😀', 'a.b\\.c', 'web'),
);
const step = fc.record(
  {
    profile: fc.oneof(text, fc.constant('web')),
    kind: fc.constantFrom('method', 'select', 'skip', 'geo-match', 'fallback', 'nested', 'nodata', 'nxdomain'),
    endpoint: fc.oneof(text, fc.constant('held')),
    detail: fc.oneof(text, fc.constant('all-degraded fallback: answering as if online'), fc.constant('drill dr-89abcdef')),
  },
  { requiredKeys: ['profile', 'kind', 'detail'] },
);
const explained: fc.Arbitrary<Explained> = fc.record({
  rcode: fc.constantFrom('NOERROR', 'NXDOMAIN', 'REFUSED'),
  qname: text,
  qtype: fc.constantFrom('A', 'AAAA', 'TXT', 'TYPE65280'),
  client: fc.oneof(fc.ipV4(), fc.ipV6(), text),
  profile: fc.oneof(fc.constant(undefined), fc.constant(''), fc.constant('web'), text),
  endpoints: fc.array(text, { maxLength: 3 }),
  steps: fc.array(step, { maxLength: 4 }) as fc.Arbitrary<ExplanationStep[]>,
  truncated: fc.boolean(),
});

function json(x: Explained, at: number, source: string, proto: 'udp' | 'tcp', revision: number, serial: number): string {
  const tail = decisionTail(x, proto, snapshot, revision, serial);
  const buf = Buffer.alloc(64 + 6 * (x.client.length + source.length) + tail.length);
  return buf.toString('utf8', 0, writeDecisionJson(buf, 0, x, at, source, tail));
}

test('the decision JSON written into a frame is JSON.stringify of the decision record, byte for byte, for any answer', () => {
  fc.assert(
    fc.property(
      explained,
      fc.integer({ min: 0, max: 4_102_444_800_000 }),
      fc.oneof(fc.ipV4(), fc.ipV6(), text),
      fc.constantFrom<'udp' | 'tcp'>('udp', 'tcp'),
      fc.nat(),
      fc.nat({ max: 0xffffffff }),
      (x, at, source, proto, revision, serial) => {
        const want = JSON.stringify(decisionRecord(x, at, source, proto, snapshot, revision, serial));
        expect(json(x, at, source, proto, revision, serial)).toBe(want);
        // The answer's bytes are made once and reused: a second query of the same answer gets the same JSON.
        expect(json(x, at, source, proto, revision, serial)).toBe(want);
      },
    ),
    { numRuns: 2_000 },
  );
});

test('a cached answer whose revision, serial or truncation changes gets the new values, not the bytes made before', () => {
  const x: Explained = {
    rcode: 'NOERROR',
    qname: 'web.tm.internal',
    qtype: 'A',
    client: '192.0.2.7',
    profile: 'web',
    endpoints: ['web/a'],
    steps: [{ profile: 'web', kind: 'select', endpoint: 'a', detail: 'priority 1' }],
    truncated: false,
  };
  const first = JSON.parse(json(x, 0, '192.0.2.7', 'udp', 5, 100)) as Record<string, unknown>;
  expect(first).toMatchObject({ revision: 5, serial: 100, proto: 'udp', method: 'Priority', rule: 'priority 1' });
  expect(first.truncated).toBeUndefined();
  expect(JSON.parse(json(x, 0, '192.0.2.7', 'udp', 6, 100))).toMatchObject({ revision: 6, serial: 100 });
  expect(JSON.parse(json(x, 0, '192.0.2.7', 'tcp', 6, 101))).toMatchObject({ revision: 6, serial: 101, proto: 'tcp' });
  expect(JSON.parse(json({ ...x, truncated: true }, 0, '192.0.2.7', 'udp', 6, 101))).toMatchObject({ truncated: true });
  expect(JSON.parse(json({ ...x, qname: 'WEB.tm.internal' }, 0, '192.0.2.7', 'udp', 6, 101))).toMatchObject({ qname: 'WEB.tm.internal' });
});

// ------------------------------------------------------------------------------------------------
// A protobuf reader for the check (every field, repeated or not, as a list of numbers or byte strings)

type Fields = Map<number, Array<number | Buffer>>;

function decode(b: Buffer): Fields {
  const out: Fields = new Map();
  let at = 0;
  while (at < b.length) {
    const [tag, next] = varint(b, at);
    at = next;
    const field = Math.floor(tag / 8);
    let value: number | Buffer;
    switch (tag & 7) {
      case 0:
        [value, at] = varint(b, at);
        break;
      case 5:
        value = b.readUInt32LE(at);
        at += 4;
        break;
      case 2: {
        const [len, start] = varint(b, at);
        value = b.subarray(start, start + len);
        at = start + len;
        if (at > b.length) throw new Error('a field overruns its message');
        break;
      }
      default:
        throw new Error(`wire type ${tag & 7}`);
    }
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

const one = (f: Fields, n: number): number | Buffer | undefined => {
  const v = f.get(n);
  if (v !== undefined && v.length !== 1) throw new Error(`field ${n} appears ${v.length} times`);
  return v?.[0];
};

/** The data frames of a Frame Streams byte stream (data frames only, each a length and its bytes). */
function splitFrames(b: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < b.length) {
    const len = b.readUInt32BE(at);
    if (len === 0) throw new Error('a control frame among data frames');
    out.push(b.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  if (at !== b.length) throw new Error('a frame overruns the buffer');
  return out;
}

test('both frames of a query decode to what went in: identity, version, type, family, protocol, addresses, ports, times, messages, the decision', () => {
  const bytes = fc.uint8Array({ minLength: 0, maxLength: 600 }).map((a) => Buffer.from(a));
  fc.assert(
    fc.property(
      fc.record({
        tcp: fc.boolean(),
        v6: fc.boolean(),
        c4: fc.ipV4(),
        c6: fc.ipV6(),
        clientPort: fc.integer({ min: 0, max: 65535 }),
        serverPort: fc.integer({ min: 0, max: 65535 }),
        queryTime: fc.integer({ min: 0, max: 4_102_444_800_000 }),
        spent: fc.double({ min: 0, max: 50, noNaN: true }),
        query: bytes,
        response: fc.option(bytes, { nil: null }),
      }),
      fc.option(explained, { nil: undefined }),
      fc.string({ minLength: 1, maxLength: 40 }),
      (r, x, identity) => {
        const client = r.v6 ? r.c6 : r.c4;
        const server = r.v6 ? '::1' : '127.0.0.1';
        const q = {
          tcp: r.tcp,
          client,
          clientPort: r.clientPort,
          server,
          serverPort: r.serverPort,
          queryTime: r.queryTime + 0.123456,
          responseTime: r.queryTime + 0.123456 + r.spent,
          query: r.query,
          response: r.response,
        };
        const d = x === undefined ? undefined : { explained: x, snapshot, revision: 3, serial: 9 };
        const frames = splitFrames(dnstapFrames(q, Buffer.from(identity), Buffer.from('tmkit test'), d));
        expect(frames).toHaveLength(2);
        frames.forEach((frame, i) => {
          const response = i === 1;
          const top = decode(frame);
          expect((one(top, 1) as Buffer).toString()).toBe(identity);
          expect((one(top, 2) as Buffer).toString()).toBe('tmkit test');
          expect(one(top, 15)).toBe(1); // Dnstap.Type MESSAGE
          const extra = one(top, 3) as Buffer | undefined;
          if (response && x !== undefined)
            expect(extra?.toString('utf8')).toBe(
              JSON.stringify(decisionRecord(x, q.responseTime, client, r.tcp ? 'tcp' : 'udp', snapshot, 3, 9)),
            );
          else expect(extra).toBeUndefined();
          const m = decode(one(top, 14) as Buffer);
          expect(one(m, 1)).toBe(response ? 2 : 1); // AUTH_RESPONSE : AUTH_QUERY
          expect(one(m, 2)).toBe(r.v6 ? 2 : 1); // INET6 : INET
          expect(one(m, 3)).toBe(r.tcp ? 2 : 1); // TCP : UDP
          expect([...(one(m, 4) as Buffer)]).toEqual([...(net.isIPv4(client) ? client.split('.').map(Number) : v6Bytes(client))]);
          expect([...(one(m, 5) as Buffer)]).toEqual(r.v6 ? v6Bytes('::1') : [127, 0, 0, 1]);
          expect(one(m, 6)).toBe(r.clientPort);
          expect(one(m, 7)).toBe(r.serverPort);
          expect(one(m, 8)).toBe(Math.floor(q.queryTime / 1000));
          expect(Math.abs((one(m, 9) as number) - (q.queryTime % 1000) * 1e6)).toBeLessThanOrEqual(1);
          if (!response) {
            expect(Buffer.compare(one(m, 10) as Buffer, r.query)).toBe(0);
            expect(m.has(12) || m.has(14)).toBe(false);
          } else {
            expect(m.has(10)).toBe(false);
            expect(one(m, 12)).toBe(Math.floor(q.responseTime / 1000));
            expect(
              Math.abs((one(m, 13) as number) - (q.responseTime - Math.floor(q.responseTime / 1000) * 1000) * 1e6),
            ).toBeLessThanOrEqual(1);
            if (r.response === null) expect(m.has(14)).toBe(false);
            else expect(Buffer.compare(one(m, 14) as Buffer, r.response)).toBe(0);
          }
        });
      },
    ),
    { numRuns: 500 },
  );
});

/** An IPv6 address's 16 octets (the URL parser writes it in hex groups, embedded IPv4 included). */
function v6Bytes(a: string): number[] {
  const hex = new URL(`http://[${a}]/`).hostname.slice(1, -1);
  const [head, tail] = hex.split('::') as [string, string | undefined];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = groups(tail);
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return all.flatMap((g) => {
    const v = Number.parseInt(g, 16);
    return [v >> 8, v & 0xff];
  });
}

// ------------------------------------------------------------------------------------------------
// The writer against a real Frame Streams reader

interface Reader {
  path: string;
  /** Data frames received, in order. */
  frames: Buffer[];
  close(): Promise<void>;
}

/** A bidirectional Frame Streams reader: READY → ACCEPT, then START and data frames until STOP → FINISH. */
async function reader(path: string): Promise<Reader> {
  const frames: Buffer[] = [];
  const server = net.createServer((sock) => {
    let buf = Buffer.alloc(0);
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        if (buf.length < 4) return;
        const len = buf.readUInt32BE(0);
        if (len !== 0) {
          if (buf.length < 4 + len) return;
          frames.push(Buffer.from(buf.subarray(4, 4 + len)));
          buf = buf.subarray(4 + len);
          continue;
        }
        const f = readControlFrame(buf);
        if (f === undefined) return;
        buf = buf.subarray(f.length);
        if (f.type === 0x04) sock.write(controlFrame(0x01, 'protobuf:dnstap.Dnstap')); // READY → ACCEPT
        if (f.type === 0x03) sock.end(controlFrame(0x05)); // STOP → FINISH
      }
    });
    sock.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, frames, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('DnstapWriter', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tmkit-dnstap-enc-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const query = (i: number) => ({
    tcp: false,
    client: `198.51.100.${i % 250}`,
    clientPort: 1024 + i,
    server: '127.0.0.1',
    serverPort: 53,
    queryTime: 1.7e12 + i,
    responseTime: 1.7e12 + i + 0.5,
    query: Buffer.alloc(40, i & 0xff),
    response: Buffer.alloc(700, i & 0xff),
  });

  async function until(check: () => boolean, ms = 5_000): Promise<void> {
    const end = Date.now() + ms;
    while (!check()) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  test('frames queued over several arenas while the reader is away arrive complete and in order once it is there', async () => {
    const path = join(dir, 'tap.sock');
    const w = new DnstapWriter({ target: { kind: 'unix', path }, queueFrames: 4_000, identity: 'n1', version: 'v' });
    // 1,000 queries of about 1.6 KB of frames each: three 512 KiB arenas' worth, none connected yet.
    for (let i = 0; i < 1_000; i++) w.write(query(i));
    expect(w.queued).toBe(2_000);
    const r = await reader(path);
    try {
      await until(() => r.frames.length === 2_000);
      expect(w.stats).toMatchObject({ sent: 2_000, dropped: 0, connects: 1 });
      r.frames.forEach((f, n) => {
        const m = decode(one(decode(f), 14) as Buffer);
        expect(one(m, 6)).toBe(1024 + (n >> 1));
        expect(one(m, 1)).toBe(n & 1 ? 2 : 1);
      });
      // And once connected, a write goes out within the flush delay.
      w.write(query(5_000));
      await until(() => r.frames.length === 2_002);
    } finally {
      await w.close();
      await r.close();
    }
  });

  test('a full queue drops whole queries (both frames) and counts them', async () => {
    const path = join(dir, 'tap.sock');
    const w = new DnstapWriter({ target: { kind: 'unix', path }, queueFrames: 101, identity: 'n1', version: 'v' });
    for (let i = 0; i < 80; i++) w.write(query(i));
    expect(w.queued).toBe(100);
    expect(w.stats.dropped).toBe(60);
    const r = await reader(path);
    try {
      await until(() => r.frames.length === 100);
      expect(w.stats).toMatchObject({ sent: 100, dropped: 60 });
    } finally {
      await w.close();
      await r.close();
    }
  });
});
