/**
 * Helpers for the DNS server tests: a small table resolver (the routing engine's contract, hand-written
 * outcomes), a `dig` runner with an output parser, and raw UDP/TCP clients.
 */
import { execFile } from 'node:child_process';
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import type { AnswerRecord, RoutingQuery, RoutingResolution, RoutingSnapshot } from '../../../src/core/routing/types';
import type { ResolveFn } from '../../../src/runtime/dns';

export const ZONE = 'tm.internal';

export interface TableEntry {
  /** Weighted outcomes; one entry = a deterministic answer. */
  outcomes?: Array<{ probability: number; records: AnswerRecord[] }>;
  /** Client-dependent answer: records and scope for the routing address. */
  byClient?: (q: RoutingQuery) => { records: AnswerRecord[]; scope: number };
}

/** Filters records by query type as the engine does (A: A or CNAME, AAAA: AAAA or CNAME, ANY: all). */
function forType(records: AnswerRecord[], type: string): AnswerRecord[] {
  if (type === 'ANY') return records;
  return records.filter((r) => r.type === type || (r.type === 'CNAME' && (type === 'A' || type === 'AAAA')));
}

/** A ResolveFn over a table keyed by the relative name (lower case). Unknown names are NXDOMAIN. */
export function tableResolver(table: Record<string, TableEntry>, calls?: RoutingQuery[]): ResolveFn {
  return (_snapshot, q) => {
    calls?.push(q);
    const name = q.name.toLowerCase().replace(/\.$/, '');
    const rel = name.endsWith(`.${ZONE}`) ? name.slice(0, -ZONE.length - 1) : name;
    const e = table[rel];
    if (!e)
      return { rcode: 'NXDOMAIN', outcomes: [{ probability: 1, records: [], endpoints: [] }], clientDependent: false, explanation: [] };
    if (e.byClient) {
      const r = e.byClient(q);
      const res: RoutingResolution = {
        rcode: 'NOERROR',
        outcomes: [{ probability: 1, records: forType(r.records, q.type), endpoints: [] }],
        clientDependent: true,
        explanation: [],
      };
      if (q.ecsSourcePrefix !== undefined) res.ecsScopePrefix = r.scope;
      return res;
    }
    return {
      rcode: 'NOERROR',
      outcomes: (e.outcomes ?? []).map((o) => ({ probability: o.probability, records: forType(o.records, q.type), endpoints: [] })),
      clientDependent: false,
      explanation: [],
    };
  };
}

export function emptySnapshot(zone = ZONE): RoutingSnapshot {
  return {
    zone,
    profiles: new Map(),
    health: { verdict: () => 'Online' },
    resources: new Map(),
    geo: { locate: () => undefined, latencyMs: () => undefined },
  };
}

export const LONG_LABEL = 'multivalue-with-a-rather-long-label-to-make-the-answer-big-0123';

/** The standard test table. */
export function standardTable(): Record<string, TableEntry> {
  const fq = (rel: string): string => `${rel}.${ZONE}`;
  const multi = `${LONG_LABEL}.m`;
  return {
    v4: { outcomes: [{ probability: 1, records: [{ type: 'A', name: fq('v4'), ttl: 60, data: '192.0.2.10' }] }] },
    v6: { outcomes: [{ probability: 1, records: [{ type: 'AAAA', name: fq('v6'), ttl: 45, data: '2001:db8::1' }] }] },
    weighted: {
      outcomes: [
        { probability: 0.25, records: [{ type: 'CNAME', name: fq('weighted'), ttl: 30, data: 'a.example.net' }] },
        { probability: 0.75, records: [{ type: 'CNAME', name: fq('weighted'), ttl: 30, data: 'b.example.net' }] },
      ],
    },
    [multi]: {
      outcomes: [
        {
          probability: 1,
          records: Array.from({ length: 8 }, (_, i) => ({ type: 'AAAA' as const, name: fq(multi), ttl: 10, data: `2001:db8::${i + 1}` })),
        },
      ],
    },
    // 24 AAAA: over 512 octets even with compressed names (12 + 85 + 24 × 28 = 769), within 1232.
    [`${LONG_LABEL}.big`]: {
      outcomes: [
        {
          probability: 1,
          records: Array.from({ length: 24 }, (_, i) => ({
            type: 'AAAA' as const,
            name: fq(`${LONG_LABEL}.big`),
            ttl: 10,
            data: `2001:db8::b:${i + 1}`,
          })),
        },
      ],
    },
    geo: {
      byClient: (q) =>
        q.clientAddress.startsWith('198.51.100.')
          ? { records: [{ type: 'A', name: fq('geo'), ttl: 20, data: '198.51.100.1' }], scope: 24 }
          : { records: [{ type: 'A', name: fq('geo'), ttl: 20, data: '203.0.113.1' }], scope: 16 },
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// dig

export interface DigResult {
  status: string;
  id: number;
  flags: string[];
  counts: { query: number; answer: number; authority: number; additional: number };
  question: string[];
  answer: string[][];
  authority: string[][];
  additional: string[][];
  edns?: { version: number; udp: number; flags: string };
  clientSubnet?: string;
  /** `;; MSG SIZE  rcvd: N`: the response's size in octets (without the TCP length prefix). */
  size?: number;
  /** dig's `;; WARNING` / `;; Warning` lines (a malformed message, a parse problem, recursion not available). */
  warnings: string[];
  raw: string;
}

export function dig(args: string[], timeoutMs = 20000): Promise<DigResult> {
  return new Promise((resolve, reject) => {
    execFile('dig', ['+tries=1', '+timeout=5', ...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err && !stdout) return reject(new Error(`dig ${args.join(' ')} failed: ${err.message} ${stderr}`));
      try {
        resolve(parseDig(stdout));
      } catch (e) {
        reject(new Error(`cannot parse dig output (${(e as Error).message}):\n${stdout}`));
      }
    });
  });
}

export function parseDig(out: string): DigResult {
  const header = /->>HEADER<<- opcode: (\S+), status: (\S+), id: (\d+)/.exec(out);
  if (!header) throw new Error('no header line');
  const flagsLine = /;; flags:([^;]*); QUERY: (\d+), ANSWER: (\d+), AUTHORITY: (\d+), ADDITIONAL: (\d+)/.exec(out);
  if (!flagsLine) throw new Error('no flags line');
  const section = (title: string): string[][] => {
    const lines = out.split('\n');
    const i = lines.findIndex((l) => l.startsWith(`;; ${title} SECTION:`));
    if (i < 0) return [];
    const rows: string[][] = [];
    for (let j = i + 1; j < lines.length && lines[j]!.trim() !== ''; j++) rows.push(lines[j]!.trim().split(/\s+/));
    return rows;
  };
  const ednsLine = /; EDNS: version: (\d+), flags:([^;]*); udp: (\d+)/.exec(out);
  const subnet = /; CLIENT-SUBNET: (\S+)/.exec(out);
  const size = /;; MSG SIZE\s+rcvd: (\d+)/.exec(out);
  const qs = section('QUESTION').map((r) => r.join(' '));
  const res: DigResult = {
    status: header[2]!.replace(/,$/, ''),
    id: Number(header[3]),
    flags: flagsLine[1]!.trim().split(/\s+/).filter(Boolean),
    counts: {
      query: Number(flagsLine[2]),
      answer: Number(flagsLine[3]),
      authority: Number(flagsLine[4]),
      additional: Number(flagsLine[5]),
    },
    question: qs,
    answer: section('ANSWER'),
    authority: section('AUTHORITY'),
    additional: section('ADDITIONAL'),
    warnings: out.split('\n').filter((l) => /^;; (WARNING|Warning)/.test(l)),
    raw: out,
  };
  if (ednsLine) res.edns = { version: Number(ednsLine[1]), flags: ednsLine[2]!.trim(), udp: Number(ednsLine[3]) };
  if (subnet) res.clientSubnet = subnet[1]!;
  if (size) res.size = Number(size[1]);
  return res;
}

// ---------------------------------------------------------------------------------------------------
// Raw clients

/** Sends one UDP datagram and resolves with the first reply, or null after `timeoutMs`. */
export function udpExchange(host: string, port: number, msg: Buffer, timeoutMs = 3000): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const sock = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
    const timer = setTimeout(() => {
      sock.close();
      resolve(null);
    }, timeoutMs);
    sock.on('message', (m) => {
      clearTimeout(timer);
      sock.close();
      resolve(m);
    });
    sock.on('error', () => undefined);
    sock.send(msg, port, host);
  });
}

/** Builds a plain query (no EDNS unless `opt` bytes given). */
export function buildQuery(
  id: number,
  name: string,
  qtype: number,
  opts: { rd?: boolean; opcode?: number; qdcount?: number; additional?: Buffer; arcount?: number } = {},
): Buffer {
  const labels = name.split('.').filter(Boolean);
  const q = Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])),
    Buffer.from([0, qtype >> 8, qtype & 0xff, 0, 1]),
  ]);
  const h = Buffer.alloc(12);
  h.writeUInt16BE(id, 0);
  h.writeUInt16BE(((opts.opcode ?? 0) << 11) | (opts.rd === false ? 0 : 0x0100), 2);
  h.writeUInt16BE(opts.qdcount ?? 1, 4);
  h.writeUInt16BE(opts.arcount ?? (opts.additional ? 1 : 0), 10);
  return Buffer.concat([h, q, opts.additional ?? Buffer.alloc(0)]);
}

/** An OPT record with the given payload size, version and raw option bytes. */
export function optRecord(payload = 1232, version = 0, options: Buffer = Buffer.alloc(0)): Buffer {
  const b = Buffer.alloc(11);
  b[0] = 0;
  b.writeUInt16BE(41, 1);
  b.writeUInt16BE(payload, 3);
  b[6] = version;
  b.writeUInt16BE(options.length, 9);
  return Buffer.concat([b, options]);
}

export function ecsOption(family: number, source: number, scope: number, address: number[]): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt16BE(8, 0);
  b.writeUInt16BE(4 + address.length, 2);
  b.writeUInt16BE(family, 4);
  b[6] = source;
  b[7] = scope;
  return Buffer.concat([b, Buffer.from(address)]);
}

export function rcodeOf(resp: Buffer): number {
  return resp[3]! & 0x0f;
}

/** Opens a TCP connection, writes `data` in one go and collects `count` length-prefixed messages. */
export function tcpCollect(host: string, port: number, data: Buffer, count: number, timeoutMs = 10000): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const msgs: Buffer[] = [];
    let buf = Buffer.alloc(0);
    const sock = net.connect({ host, port }, () => sock.write(data));
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`tcp: got ${msgs.length}/${count} answers`));
    }, timeoutMs);
    sock.on('data', (c) => {
      buf = Buffer.concat([buf, c]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const l = buf.readUInt16BE(0);
        msgs.push(buf.subarray(2, 2 + l));
        buf = buf.subarray(2 + l);
      }
      if (msgs.length >= count) {
        clearTimeout(timer);
        sock.end();
        resolve(msgs);
      }
    });
    sock.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

export function framed(msg: Buffer): Buffer {
  const l = Buffer.alloc(2);
  l.writeUInt16BE(msg.length, 0);
  return Buffer.concat([l, msg]);
}
