/**
 * dnstap (`serve --dnstap unix:PATH|tcp:HOST:PORT`, docs/observability.md#dnstap): every sampled query goes out
 * as two Dnstap protobuf messages, AUTH_QUERY and AUTH_RESPONSE (dnstap.proto: the wire messages, addresses,
 * ports, protocol and times, the server's identity and version), over a bidirectional Frame Streams
 * connection (content type `protobuf:dnstap.Dnstap`: READY → ACCEPT → START, data frames, STOP → FINISH).
 * The AUTH_RESPONSE's `extra` field carries the routing decision as compact JSON (decisions.ts).
 *
 * The hot path only encodes and queues: `DnstapWriter.write` encodes a query's two frames straight into an
 * arena (no buffer per query; the decision JSON copied from bytes made once per answer), bounded by a frame
 * count (a full queue drops both frames and counts them), and the socket gets the new bytes in one write
 * every FLUSH_MS or FLUSH_BYTES, so a slow or dead reader costs the DNS server dropped frames, never an answer. The writer reconnects with backoff (100 ms doubling to 5 s)
 * and does the handshake again each time. One writer per DNS process (each worker its own connection).
 */
import * as net from 'node:net';
import { hostname } from 'node:os';
import { parseIpBytes } from '../../core/net/ip';
import type { RoutingSnapshot } from '../../core/routing/types';
import { decisionJsonRoom, decisionTail, type Explained, writeDecisionJson } from './decisions';

export const DNSTAP_CONTENT_TYPE = 'protobuf:dnstap.Dnstap';

/** Frame Streams control frame types. */
const FSTRM_ACCEPT = 0x01;
const FSTRM_START = 0x02;
const FSTRM_STOP = 0x03;
const FSTRM_READY = 0x04;
const FSTRM_FINISH = 0x05;
const FSTRM_FIELD_CONTENT_TYPE = 0x01;

/** Where the frames go: a unix socket path or a TCP host and port. */
export type DnstapTarget = { kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number };

/** `unix:/run/dnstap.sock` or `tcp:127.0.0.1:6000` (`tcp:[::1]:6000`); throws with the rule otherwise. */
export function parseDnstapTarget(text: string): DnstapTarget {
  if (text.startsWith('unix:') && text.length > 5) return { kind: 'unix', path: text.slice(5) };
  const m = /^tcp:(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (m) {
    const port = Number(m[3]);
    if (port >= 1 && port <= 65535) return { kind: 'tcp', host: (m[1] ?? m[2])!, port };
  }
  throw new Error(
    `--dnstap ${text}: give unix:PATH (a Frame Streams socket, e.g. dnstap -u PATH) or tcp:HOST:PORT (e.g. dnstap -l 127.0.0.1:6000)`,
  );
}

// ------------------------------------------------------------------------------------------------
// The data frames: two Dnstap protobuf messages per query, encoded straight into the writer's arena

/** What one sampled exchange was, for its two dnstap messages. */
export interface TappedQuery {
  /** Transport: UDP or TCP (dnstap SocketProtocol 1 / 2). */
  tcp: boolean;
  /** The client's address and port (after PROXY v2: the carried client). */
  client: string;
  clientPort: number;
  /** The address and port the query came in on. */
  server: string;
  serverPort: number;
  /** When the query arrived and when the answer left (ms since the epoch, fractional). */
  queryTime: number;
  responseTime: number;
  query: Uint8Array;
  /** The answer as sent (without the TCP length prefix); null when none was sent (dropped). */
  response: Uint8Array | null;
}

/** The routing decision behind the answer, written as compact JSON into the AUTH_RESPONSE's `extra`. */
export interface TappedDecision {
  explained: Explained;
  snapshot: RoutingSnapshot;
  revision: number;
  serial: number;
}

/** The address as dnstap wants it (4 or 16 octets); dotted quads parsed by hand (the hot case). */
function addressBytes(a: string): Uint8Array | undefined {
  const out = new Uint8Array(4);
  let part = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i);
    if (c === 0x2e && digits > 0 && part < 3) {
      out[part++] = value;
      value = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39 && digits < 3) {
      value = value * 10 + (c - 0x30);
      digits++;
    } else return parseIpBytes(a)?.bytes;
  }
  if (part !== 3 || digits === 0 || value > 255) return parseIpBytes(a)?.bytes;
  out[3] = value;
  return out;
}

/** Addresses parsed once: the server's is always the same, clients repeat (a small map, emptied when full). */
class Addresses {
  private readonly known = new Map<string, Uint8Array | null>();
  get(a: string): Uint8Array | undefined {
    let b = this.known.get(a);
    if (b === undefined) {
      if (this.known.size >= 4096) this.known.clear();
      b = addressBytes(a) ?? null;
      this.known.set(a, b);
    }
    return b ?? undefined;
  }
}

/** The Dnstap `identity` (1) and `version` (2) fields, encoded once. */
export function dnstapHead(identity: Uint8Array, version: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(identity.length + version.length + 20);
  let at = bytesField(out, 0, 1, identity);
  at = bytesField(out, at, 2, version);
  return out.subarray(0, at);
}

/** A varint; below 2^31 (ports, lengths, times until 2038) with bit operators, a small function V8 inlines. */
function varint(buf: Buffer, at: number, v: number): number {
  if (v > 0x7fffffff) return bigVarint(buf, at, v);
  while (v >= 0x80) {
    buf[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[at] = v;
  return at + 1;
}

/** Up to 2^53: numbers above 2^31 cannot use bit operators. */
function bigVarint(buf: Buffer, at: number, v: number): number {
  while (v >= 0x80) {
    buf[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buf[at] = v;
  return at + 1;
}

function uintField(buf: Buffer, at: number, field: number, v: number): number {
  buf[at++] = field << 3;
  return varint(buf, at, v);
}

function bytesField(buf: Buffer, at: number, field: number, b: Uint8Array): number {
  buf[at++] = (field << 3) | 2;
  at = varint(buf, at, b.length);
  if (b.length <= 4) for (let i = 0; i < b.length; i++) buf[at + i] = b[i]!;
  else buf.set(b, at);
  return at + b.length;
}

/** A time as its `_sec` (uint64) and `_nsec` (fixed32) fields. */
function timeFields(buf: Buffer, at: number, secField: number, ms: number): number {
  const sec = Math.floor(ms / 1000);
  at = uintField(buf, at, secField, sec);
  buf[at++] = ((secField + 1) << 3) | 5;
  const ns = Math.round((ms - sec * 1000) * 1e6) % 1e9;
  buf[at] = ns & 0xff;
  buf[at + 1] = (ns >>> 8) & 0xff;
  buf[at + 2] = (ns >>> 16) & 0xff;
  buf[at + 3] = ns >>> 24;
  return at + 4;
}

/** A length-delimited field whose length is patched by `endField` (a 3-byte varint: at most 2^21 - 1 bytes). */
function beginField(buf: Buffer, at: number, field: number): number {
  buf[at] = (field << 3) | 2;
  return at;
}

function endField(buf: Buffer, start: number, at: number): void {
  const n = at - start - 4;
  // A fixed 3-byte varint (padded with continuation bits) keeps the reserved room exact.
  buf[start + 1] = (n & 0x7f) | 0x80;
  buf[start + 2] = ((n >>> 7) & 0x7f) | 0x80;
  buf[start + 3] = (n >>> 14) & 0x7f;
}

/** The most bytes `encodeFrames` takes for this exchange. */
export function framesRoom(q: TappedQuery, head: Uint8Array, x: Explained | undefined, tail: Buffer | undefined): number {
  const extra = x === undefined || tail === undefined ? 0 : 8 + decisionJsonRoom(x, q.client, tail);
  return 2 * (head.length + 120) + q.query.length + (q.response?.length ?? 0) + extra;
}

/** One Dnstap message (type MESSAGE), AUTH_QUERY or AUTH_RESPONSE, written at `at` as a Frame Streams data frame. */
function encodeFrame(
  buf: Buffer,
  at: number,
  q: TappedQuery,
  response: boolean,
  client: Uint8Array | undefined,
  server: Uint8Array | undefined,
  head: Uint8Array,
  x: Explained | undefined,
  tail: Buffer | undefined,
): number {
  const start = at;
  at += 4; // the frame length, written last
  buf.set(head, at);
  at += head.length;
  if (response && x !== undefined && tail !== undefined) {
    const extra = beginField(buf, at, 3);
    at = writeDecisionJson(buf, extra + 4, x, q.responseTime, q.client, tail);
    endField(buf, extra, at);
  }
  const m = beginField(buf, at, 14);
  at = m + 4;
  buf[at] = 1 << 3; // type: AUTH_RESPONSE : AUTH_QUERY
  buf[at + 1] = response ? 2 : 1;
  buf[at + 2] = 2 << 3; // socket_family: INET6 : INET
  buf[at + 3] = (client ?? server)?.length === 16 ? 2 : 1;
  buf[at + 4] = 3 << 3; // socket_protocol: TCP : UDP
  buf[at + 5] = q.tcp ? 2 : 1;
  at += 6;
  if (client) at = bytesField(buf, at, 4, client);
  if (server) at = bytesField(buf, at, 5, server);
  at = uintField(buf, at, 6, q.clientPort);
  at = uintField(buf, at, 7, q.serverPort);
  at = timeFields(buf, at, 8, q.queryTime);
  if (!response) at = bytesField(buf, at, 10, q.query);
  else {
    at = timeFields(buf, at, 12, q.responseTime);
    if (q.response) at = bytesField(buf, at, 14, q.response);
  }
  endField(buf, m, at);
  at = uintField(buf, at, 15, 1); // Dnstap.Type MESSAGE
  const n = at - start - 4;
  buf[start] = n >>> 24;
  buf[start + 1] = (n >>> 16) & 0xff;
  buf[start + 2] = (n >>> 8) & 0xff;
  buf[start + 3] = n & 0xff;
  return at;
}

/**
 * One query's two data frames, AUTH_QUERY then AUTH_RESPONSE (the decision JSON in the response's `extra`),
 * written at `at` (with `framesRoom` bytes free); returns the end offset.
 */
export function encodeFrames(
  buf: Buffer,
  at: number,
  q: TappedQuery,
  head: Uint8Array,
  x: Explained | undefined,
  tail: Buffer | undefined,
  addresses?: { get(a: string): Uint8Array | undefined },
): number {
  const client = addresses ? addresses.get(q.client) : addressBytes(q.client);
  const server = addresses ? addresses.get(q.server) : addressBytes(q.server);
  at = encodeFrame(buf, at, q, false, client, server, head, x, tail);
  return encodeFrame(buf, at, q, true, client, server, head, x, tail);
}

/** One query's two data frames in a buffer of their own (tests and the in-process bench). */
export function dnstapFrames(q: TappedQuery, identity: Uint8Array, version: Uint8Array, d?: TappedDecision): Buffer {
  const head = dnstapHead(identity, version);
  const tail = d && decisionTail(d.explained, q.tcp ? 'tcp' : 'udp', d.snapshot, d.revision, d.serial);
  const buf = Buffer.allocUnsafe(framesRoom(q, head, d?.explained, tail));
  return buf.subarray(0, encodeFrames(buf, 0, q, head, d?.explained, tail));
}

/** A control frame: escape (0), length, type, and the content type field (none for FINISH/STOP). */
export function controlFrame(type: number, contentType?: string): Buffer {
  const ct = contentType === undefined ? undefined : Buffer.from(contentType, 'ascii');
  const body = 4 + (ct ? 8 + ct.length : 0);
  const out = Buffer.alloc(8 + body);
  out.writeUInt32BE(0, 0);
  out.writeUInt32BE(body, 4);
  out.writeUInt32BE(type, 8);
  if (ct) {
    out.writeUInt32BE(FSTRM_FIELD_CONTENT_TYPE, 12);
    out.writeUInt32BE(ct.length, 16);
    ct.copy(out, 20);
  }
  return out;
}

/** Reads one control frame from `buf` at its start: its type and content types, and the bytes it took; undefined: incomplete. */
export function readControlFrame(buf: Buffer): { type: number; contentTypes: string[]; length: number } | undefined {
  if (buf.length < 8) return undefined;
  if (buf.readUInt32BE(0) !== 0) throw new Error('a data frame where a control frame was expected');
  const body = buf.readUInt32BE(4);
  if (body < 4 || body > 512) throw new Error(`control frame of ${body} bytes`);
  if (buf.length < 8 + body) return undefined;
  const type = buf.readUInt32BE(8);
  const contentTypes: string[] = [];
  let at = 12;
  while (at + 8 <= 8 + body) {
    const field = buf.readUInt32BE(at);
    const n = buf.readUInt32BE(at + 4);
    if (at + 8 + n > 8 + body) throw new Error('control frame field overruns the frame');
    if (field === FSTRM_FIELD_CONTENT_TYPE) contentTypes.push(buf.toString('ascii', at + 8, at + 8 + n));
    at += 8 + n;
  }
  return { type, contentTypes, length: 8 + body };
}

// ------------------------------------------------------------------------------------------------
// The writer

export interface DnstapWriterOptions {
  target: DnstapTarget;
  /** Frames held while the reader is slow or away; beyond it new ones are dropped (counted). Default 10 000. */
  queueFrames?: number;
  /** Dnstap `identity` (default: the host name) and `version` (default `tmkit`). */
  identity?: string;
  version?: string;
  /** Connection problems, once per state change (not per retry). */
  onProblem?: (message: string) => void;
}

export interface DnstapStats {
  /** Frames written to the socket. */
  sent: number;
  /** Frames dropped: the queue was full (reader slow or away). */
  dropped: number;
  /** Handshakes completed (1 + reconnects). */
  connects: number;
}

const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 5_000;
/** Bytes handed to a socket before the writer waits for 'drain'. */
const HIGH_WATER = 256 * 1024;

/** Bytes of a fresh arena (about 600 queries' frames). */
const ARENA = 512 * 1024;
/** Frames wait at most this long to be written, or until this many bytes are waiting. */
const FLUSH_MS = 20;
const FLUSH_BYTES = 128 * 1024;

/** One Frame Streams connection to a dnstap reader, kept up with backoff (see the file comment). */
export class DnstapWriter {
  readonly stats: DnstapStats = { sent: 0, dropped: 0, connects: 0 };
  /** The identity and version fields every frame starts with. */
  readonly head: Buffer;
  private readonly addresses = new Addresses();
  /**
   * Frames are encoded into an arena, one after the other, and the bytes written since the last write go to
   * the socket as one buffer every FLUSH_MS, or at once when FLUSH_BYTES are waiting. Bytes handed over are never written again (a full arena
   * is replaced, not reused), so the socket may hold them for as long as it needs.
   */
  private arena: Buffer = Buffer.allocUnsafeSlow(ARENA);
  private at = 0;
  /** Where the bytes not yet handed to the socket start in the arena, and how many frames they hold. */
  private from = 0;
  private arenaFrames = 0;
  /** Earlier arenas' bytes not yet handed over (the reader was slow or away). */
  private readonly held: Array<{ bytes: Buffer; frames: number }> = [];
  private heldFrames = 0;
  private readonly cap: number;
  private sock: net.Socket | undefined;
  /** The handshake is done: data frames may go. */
  private open = false;
  private writable = true;
  private backoff = BACKOFF_MIN_MS;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private scheduled = false;
  private problem = '';

  constructor(private readonly o: DnstapWriterOptions) {
    this.cap = Math.max(1, o.queueFrames ?? 10_000);
    this.head = dnstapHead(Buffer.from(o.identity ?? hostname(), 'utf8'), Buffer.from(o.version ?? 'tmkit', 'utf8'));
    this.connect();
  }

  /** Queued frames not yet written (two per query). */
  get queued(): number {
    return this.heldFrames + this.arenaFrames;
  }

  /** Whether the handshake with the reader is done. */
  get connected(): boolean {
    return this.open;
  }

  /**
   * Queues one query's AUTH_QUERY and AUTH_RESPONSE (both, or neither when the queue is full), the decision
   * (the explained answer under `snapshot` at `revision` and `serial`) in the response's `extra`.
   */
  write(q: TappedQuery, explained?: Explained, snapshot?: RoutingSnapshot, revision = 0, serial = 0): void {
    if (this.queued + 2 > this.cap) {
      this.stats.dropped += 2;
      return;
    }
    const tail =
      explained !== undefined && snapshot !== undefined
        ? decisionTail(explained, q.tcp ? 'tcp' : 'udp', snapshot, revision, serial)
        : undefined;
    const room = framesRoom(q, this.head, explained, tail);
    if (this.arena.length - this.at < room) this.replaceArena(room);
    this.at = encodeFrames(this.arena, this.at, q, this.head, explained, tail, this.addresses);
    this.arenaFrames += 2;
    // Written in batches, the frames of up to FLUSH_MS (or FLUSH_BYTES) in one write: a write per query would
    // cost a system call per query.
    if (this.open && this.writable) {
      if (this.at - this.from >= FLUSH_BYTES) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setTimeout(this.flushSoon, FLUSH_MS).unref();
      }
    }
  }

  private replaceArena(room: number): void {
    if (this.at > this.from) {
      this.held.push({ bytes: this.arena.subarray(this.from, this.at), frames: this.arenaFrames });
      this.heldFrames += this.arenaFrames;
    }
    this.arena = Buffer.allocUnsafeSlow(Math.max(ARENA, room));
    this.at = 0;
    this.from = 0;
    this.arenaFrames = 0;
  }

  private readonly flushSoon = (): void => {
    this.scheduled = false;
    this.flush();
  };

  /** Sends STOP (waiting up to `timeoutMs` for FINISH and the queue to drain) and closes. */
  async close(timeoutMs = 1_000): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const sock = this.sock;
    if (!sock) return;
    if (this.open) {
      this.flush();
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, timeoutMs);
        sock.once('close', () => {
          clearTimeout(t);
          resolve();
        });
        sock.write(controlFrame(FSTRM_STOP));
        // FINISH (or the reader closing) ends it; the data handler below sees FINISH.
        sock.on('data', (d: Buffer) => {
          const f = (() => {
            try {
              return readControlFrame(d);
            } catch {
              return undefined;
            }
          })();
          if (f?.type === FSTRM_FINISH) sock.end();
        });
      });
    }
    sock.destroy();
  }

  private say(message: string): void {
    if (message === this.problem) return;
    this.problem = message;
    if (message !== '') this.o.onProblem?.(message);
  }

  private connect(): void {
    if (this.closed) return;
    const t = this.o.target;
    const sock = t.kind === 'unix' ? net.createConnection({ path: t.path }) : net.createConnection({ host: t.host, port: t.port });
    this.sock = sock;
    this.open = false;
    this.writable = true;
    let pending: Buffer = Buffer.alloc(0);
    let accepted = false;
    sock.setNoDelay?.(true);
    sock.on('connect', () => sock.write(controlFrame(FSTRM_READY, DNSTAP_CONTENT_TYPE)));
    sock.on('data', (d: Buffer) => {
      if (accepted) return; // a reader sends nothing after ACCEPT but FINISH (handled by close)
      pending = pending.length === 0 ? d : Buffer.concat([pending, d]);
      try {
        const f = readControlFrame(pending);
        if (f === undefined) return;
        if (f.type !== FSTRM_ACCEPT) throw new Error(`expected ACCEPT, got control frame type ${f.type}`);
        if (f.contentTypes.length > 0 && !f.contentTypes.includes(DNSTAP_CONTENT_TYPE))
          throw new Error(`the reader accepts ${f.contentTypes.join(', ')}, not ${DNSTAP_CONTENT_TYPE}`);
        accepted = true;
        sock.write(controlFrame(FSTRM_START, DNSTAP_CONTENT_TYPE));
        this.open = true;
        this.backoff = BACKOFF_MIN_MS;
        this.stats.connects++;
        this.say('');
        this.flush();
      } catch (err) {
        this.say(`dnstap: ${describe(t)}: handshake failed: ${(err as Error).message}`);
        sock.destroy();
      }
    });
    sock.on('drain', () => {
      this.writable = true;
      this.flush();
    });
    sock.on('error', (err: NodeJS.ErrnoException) => {
      this.say(`dnstap: ${describe(t)}: ${err.code ?? err.message}; frames are queued (then dropped) and the connection is retried`);
    });
    sock.on('close', () => {
      this.open = false;
      if (this.sock === sock) this.sock = undefined;
      if (this.closed) return;
      if (accepted) this.say(`dnstap: ${describe(t)}: the reader closed the connection; retrying`);
      this.timer = setTimeout(() => this.connect(), this.backoff);
      this.timer.unref();
      this.backoff = Math.min(BACKOFF_MAX_MS, this.backoff * 2);
    });
  }

  private flush(): void {
    const sock = this.sock;
    if (!sock || !this.open) return;
    sock.cork();
    while (this.held.length > 0 && this.writable) {
      const h = this.held.shift()!;
      this.heldFrames -= h.frames;
      this.send(sock, h.bytes, h.frames);
    }
    if (this.writable && this.at > this.from) {
      const bytes = this.arena.subarray(this.from, this.at);
      const frames = this.arenaFrames;
      this.from = this.at;
      this.arenaFrames = 0;
      this.send(sock, bytes, frames);
    }
    sock.uncork();
  }

  private send(sock: net.Socket, bytes: Buffer, frames: number): void {
    this.stats.sent += frames;
    if (!sock.write(bytes) || sock.writableLength > HIGH_WATER) this.writable = false;
  }
}

function describe(t: DnstapTarget): string {
  return t.kind === 'unix' ? `unix:${t.path}` : `tcp:${t.host}:${t.port}`;
}
