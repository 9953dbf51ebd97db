/**
 * dnstap (`serve --dnstap unix:PATH|tcp:HOST:PORT`, docs/observability.md#dnstap): every sampled query goes out
 * as two Dnstap protobuf messages, AUTH_QUERY and AUTH_RESPONSE (dnstap.proto: the wire messages, addresses,
 * ports, protocol and times, the server's identity and version), over a bidirectional Frame Streams
 * connection (content type `protobuf:dnstap.Dnstap`: READY → ACCEPT → START, data frames, STOP → FINISH).
 * The AUTH_RESPONSE's `extra` field carries the routing decision as compact JSON (decisions.ts).
 *
 * The hot path only encodes and queues: `DnstapWriter.write` appends one frame to a bounded queue (a full
 * queue drops the frame and counts it) and the socket is written from there, so a slow or dead reader costs
 * the DNS server dropped frames, never an answer. The writer reconnects with backoff (100 ms doubling to 5 s)
 * and does the handshake again each time. One writer per DNS process (each worker its own connection).
 */
import * as net from 'node:net';
import { hostname } from 'node:os';
import { parseIpBytes } from '../../core/net/ip';

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
// Protobuf (proto2, the few field kinds dnstap.proto uses)

/** A growable byte buffer with the protobuf primitives. */
class Pb {
  buf: Buffer;
  len = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  varint(v: number): void {
    this.room(10);
    // Up to 2^53: numbers above 2^31 cannot use bit operators.
    while (v >= 0x80) {
      this.buf[this.len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.len++] = v;
  }
  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }
  uint(field: number, v: number): void {
    this.tag(field, 0);
    this.varint(v);
  }
  fixed32(field: number, v: number): void {
    this.tag(field, 5);
    this.room(4);
    this.buf.writeUInt32LE(v >>> 0, this.len);
    this.len += 4;
  }
  bytes(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  /** A string field, written in place (UTF-8). */
  text(field: number, t: string): void {
    const n = Buffer.byteLength(t, 'utf8');
    this.tag(field, 2);
    this.varint(n);
    this.room(n);
    this.buf.write(t, this.len, 'utf8');
    this.len += n;
  }
  /** Reserves a length-delimited field whose length is patched by `end` (at most 2^21 - 1 bytes). */
  begin(field: number): number {
    this.tag(field, 2);
    this.room(3);
    const at = this.len;
    this.len += 3;
    return at;
  }
  end(at: number): void {
    const n = this.len - at - 3;
    // A fixed 3-byte varint (padded with continuation bits) keeps the reserved room exact.
    this.buf[at] = (n & 0x7f) | 0x80;
    this.buf[at + 1] = ((n >>> 7) & 0x7f) | 0x80;
    this.buf[at + 2] = (n >>> 14) & 0x7f;
  }
}

/** What one sampled query was, for its two dnstap messages. */
export interface TappedQuery {
  /** Transport: UDP or TCP (dnstap SocketProtocol 1 / 2). */
  tcp: boolean;
  /** The client's address and port (after PROXY v2: the carried client). */
  clientAddress: string;
  clientPort: number;
  /** The address and port the query came in on. */
  serverAddress: string;
  serverPort: number;
  /** When the query arrived and when the answer left (ms since the epoch, fractional). */
  queryTime: number;
  responseTime: number;
  query: Uint8Array;
  /** The answer as sent (without the TCP length prefix); null when none was sent (dropped). */
  response: Uint8Array | null;
  /** The routing decision (compact JSON), in the AUTH_RESPONSE's `extra`. */
  extra?: string;
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

function time(pb: Pb, secField: number, ms: number): void {
  const sec = Math.floor(ms / 1000);
  pb.uint(secField, sec);
  pb.fixed32(secField + 1, Math.round((ms - sec * 1000) * 1e6) % 1e9);
}

/** One Dnstap message (type MESSAGE), AUTH_QUERY or AUTH_RESPONSE, appended to `pb` as a Frame Streams data frame. */
function appendFrame(
  pb: Pb,
  q: TappedQuery,
  response: boolean,
  client: Uint8Array | undefined,
  server: Uint8Array | undefined,
  identity: Uint8Array,
  version: Uint8Array,
): void {
  const start = pb.len;
  pb.room(4);
  pb.len += 4; // the frame length, written last
  pb.bytes(1, identity);
  pb.bytes(2, version);
  if (response && q.extra !== undefined) pb.text(3, q.extra);
  const m = pb.begin(14);
  pb.uint(1, response ? 2 : 1); // AUTH_RESPONSE : AUTH_QUERY
  pb.uint(2, (client ?? server)?.length === 16 ? 2 : 1); // INET6 : INET
  pb.uint(3, q.tcp ? 2 : 1); // TCP : UDP
  if (client) pb.bytes(4, client);
  if (server) pb.bytes(5, server);
  pb.uint(6, q.clientPort);
  pb.uint(7, q.serverPort);
  time(pb, 8, q.queryTime);
  if (!response) pb.bytes(10, q.query);
  else {
    time(pb, 12, q.responseTime);
    if (q.response) pb.bytes(14, q.response);
  }
  pb.end(m);
  pb.uint(15, 1); // Dnstap.Type MESSAGE
  pb.buf.writeUInt32BE(pb.len - start - 4, start);
}

/** One query's two data frames, AUTH_QUERY then AUTH_RESPONSE, in one buffer (one allocation, one write). */
export function dnstapFrames(q: TappedQuery, identity: Uint8Array, version: Uint8Array): Buffer {
  const pb = new Pb(320 + q.query.length * 2 + (q.response?.length ?? 0) + (q.extra?.length ?? 0) * 2);
  const client = addressBytes(q.clientAddress);
  const server = addressBytes(q.serverAddress);
  appendFrame(pb, q, false, client, server, identity, version);
  appendFrame(pb, q, true, client, server, identity, version);
  return pb.buf.subarray(0, pb.len);
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

/** One Frame Streams connection to a dnstap reader, kept up with backoff (see the file comment). */
export class DnstapWriter {
  readonly stats: DnstapStats = { sent: 0, dropped: 0, connects: 0 };
  readonly identity: Uint8Array;
  readonly version: Uint8Array;
  private readonly queue: Buffer[] = [];
  private head = 0;
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
    this.identity = Buffer.from(o.identity ?? hostname(), 'utf8');
    this.version = Buffer.from(o.version ?? 'tmkit', 'utf8');
    this.connect();
  }

  /** Queued frames not yet written (two per query). */
  get queued(): number {
    return (this.queue.length - this.head) * 2;
  }

  /** Whether the handshake with the reader is done. */
  get connected(): boolean {
    return this.open;
  }

  /** Queues one query's AUTH_QUERY and AUTH_RESPONSE (both, or neither when the queue is full). */
  write(q: TappedQuery): void {
    if (this.queued + 2 > this.cap) {
      this.stats.dropped += 2;
      return;
    }
    this.queue.push(dnstapFrames(q, this.identity, this.version));
    // Written once per event-loop turn, all frames in one writev: a write per frame would cost two system
    // calls per query.
    if (!this.scheduled && this.open && this.writable) {
      this.scheduled = true;
      setImmediate(this.flushSoon);
    }
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
    while (this.head < this.queue.length && this.writable) {
      const frame = this.queue[this.head]!;
      this.queue[this.head++] = EMPTY;
      this.stats.sent += 2;
      if (!sock.write(frame) || sock.writableLength > HIGH_WATER) this.writable = false;
    }
    sock.uncork();
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }
}

const EMPTY = Buffer.alloc(0);

function describe(t: DnstapTarget): string {
  return t.kind === 'unix' ? `unix:${t.path}` : `tcp:${t.host}:${t.port}`;
}
