/**
 * The authoritative DNS server's sockets: UDP and TCP on every configured address (IPv4 and IPv6), both
 * feeding the one Responder. TCP follows RFC 7766: 2-octet length prefix, many queries per connection,
 * pipelined queries answered in order as they arrive, write backpressure (a client that stops reading stops
 * being read), and limits a slow client cannot hold (issue 39 item 4, as NSD and Knot do): a deadline for a
 * whole message that the next byte does not reset, the idle timeout between messages, and at the connection
 * cap the new connection takes the slot of the oldest idle one (see `TcpConn`).
 */
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import { parseIPv6 } from '../../core/net/ip';
import type { RoutingSnapshot } from '../../core/routing/types';
import type { TrafficRow } from './traffic';
import { Responder, type ResponderOptions, type ResponderStats } from './responder';
import type { DnsCounts } from './counts';
import { parseProxyV2, ProxySources, startsWithProxySignature } from './proxy-protocol';
import type { QueryTap } from './tap';

/** Wall-clock ms of the monotonic clock's zero (read once: the getter costs a few ns per sampled query). */
const TIME_ORIGIN = performance.timeOrigin;

export interface ListenAddress {
  /** IPv4 or IPv6 literal (`127.0.0.1`, `::1`, `0.0.0.0`, `::`). */
  address: string;
  /** 0 picks a free port (the same one for UDP and TCP). */
  port: number;
}

export interface TcpOptions {
  /**
   * Close a connection with no message under way for this long (RFC 7766 §6.2.3), counted from its last
   * answer sent (or from accept), never from a stray byte. Also how long an answer may stall unread. Default 10000.
   */
  idleTimeoutMs: number;
  /**
   * Once the first octet of a message (its length prefix) arrives, the whole message must be in within this
   * long; each further byte does not extend it. Past it the connection is closed. Default 2000.
   */
  messageTimeoutMs: number;
  /**
   * Concurrent TCP connections. At the cap a new connection closes the longest idle one (no message under
   * way, no answer being written), else the one whose message deadline is nearest, else one that has sent
   * nothing yet (oldest first); only when every connection is writing an answer is the new one closed. Default 1000.
   */
  maxConnections: number;
  /**
   * Concurrent TCP connections from one client (one IPv4 address, or one IPv6 /64); its further ones are
   * closed on accept while other clients are still served. Default 32.
   */
  maxConnectionsPerClient: number;
  /**
   * Queries answered on one connection per event-loop turn before the server yields to other connections
   * (the rest of the pipeline is answered on the next turn). Default 64.
   */
  maxPipelined: number;
}

export interface DnsServerOptions extends ResponderOptions {
  listen: ListenAddress[];
  tcp?: Partial<TcpOptions>;
  /**
   * Bind UDP and TCP with SO_REUSEPORT (and never through a cluster primary): other processes doing the
   * same may bind the same port, and the kernel spreads datagrams and connections over all of them. For
   * DNS worker processes on Node ≥ 22.12 (see reuse-port.ts); older Node ignores the option.
   */
  reusePort?: boolean;
  /**
   * PROXY protocol v2 (proxy-protocol.ts): addresses and CIDRs of the fronts (dnsdist) that must put a
   * header before every datagram and connection; from any other address a header is refused. Off when empty.
   */
  proxyProtocolFrom?: readonly string[];
  /** dnstap and the decision log (tap.ts): sampled queries are explained and recorded. */
  tap?: QueryTap;
}

export interface BoundAddress {
  address: string;
  port: number;
  family: 'IPv4' | 'IPv6';
}

interface Endpoint {
  udp: dgram.Socket;
  tcp: net.Server;
  bound: BoundAddress;
}

export class DnsServer {
  readonly responder: Responder;
  private readonly listen: ListenAddress[];
  private readonly tcpOpts: TcpOptions;
  private readonly reusePort: boolean;
  private readonly proxy: ProxySources | undefined;
  readonly tap: QueryTap | undefined;
  private endpoints: Endpoint[] = [];
  private readonly connections = new Set<TcpConn>();
  /**
   * The connections the cap may close, by state, each in the order it entered that state (a Set keeps
   * insertion order): the first is the longest idle, the nearest message deadline, the oldest silent one.
   */
  private readonly byState: Record<Exclude<TcpState, 'busy'>, Set<TcpConn>> = { idle: new Set(), pending: new Set(), fresh: new Set() };
  /** Open TCP connections per client key (see `clientKey`). */
  private readonly perClient = new Map<string, number>();
  private readonly tcpCounts = {
    refusedPerClient: 0,
    refusedFull: 0,
    evictedIdle: 0,
    evictedPending: 0,
    messageTimeouts: 0,
    idleTimeouts: 0,
  };

  constructor(opts: DnsServerOptions) {
    this.responder = new Responder(opts);
    this.listen = opts.listen.length > 0 ? opts.listen : [{ address: '127.0.0.1', port: 5300 }];
    this.tcpOpts = {
      idleTimeoutMs: 10000,
      messageTimeoutMs: 2000,
      maxConnections: 1000,
      maxConnectionsPerClient: 32,
      maxPipelined: 64,
      ...opts.tcp,
    };
    this.reusePort = opts.reusePort === true;
    this.proxy = opts.proxyProtocolFrom?.length ? new ProxySources(opts.proxyProtocolFrom) : undefined;
    this.tap = opts.tap;
  }

  /**
   * Answers a sampled query with the responder explaining it, and hands the exchange to the tap (dnstap, the
   * decision log). `out` of TCP carries the length prefix, which dnstap does not.
   */
  private tapped(
    tap: QueryTap,
    query: Buffer,
    client: string,
    clientPort: number,
    server: string,
    serverPort: number,
    tcp: boolean,
  ): Buffer | null {
    const responder = this.responder;
    const queryTime = TIME_ORIGIN + performance.now();
    responder.explain = true;
    let out: Buffer | null;
    try {
      out = responder.handle(query, client, tcp ? 'tcp' : 'udp');
    } finally {
      responder.explain = false;
    }
    try {
      tap.record(
        {
          tcp,
          client,
          clientPort,
          server,
          serverPort,
          queryTime,
          responseTime: TIME_ORIGIN + performance.now(),
          query,
          response: out === null ? null : tcp ? out.subarray(2) : out,
        },
        responder.explained,
        responder.currentSnapshot,
        responder.revision,
        responder.serial,
      );
    } catch {
      // The tap never costs an answer.
    }
    return out;
  }

  get stats(): ResponderStats {
    return this.responder.stats;
  }

  /** Answered queries by (profile, rcode, qtype) and endpoint answers by (profile, endpoint) since start. */
  counts(): DnsCounts {
    return this.responder.counts();
  }

  /** Traffic View counts since the last drain (see dns/traffic.ts). */
  drainTraffic(): TrafficRow[] {
    return this.responder.drainTraffic();
  }

  /** Open TCP connections. */
  get tcpConnections(): number {
    return this.connections.size;
  }

  /** TCP connections closed on accept because their client already had `maxConnectionsPerClient` open. */
  get tcpRefusedPerClient(): number {
    return this.tcpCounts.refusedPerClient;
  }

  /** TCP connections closed on accept because `maxConnections` were open and every one was writing an answer. */
  get tcpRefusedFull(): number {
    return this.tcpCounts.refusedFull;
  }

  /** Connections closed at the cap for a new one while idle (no message under way, or none sent yet). */
  get tcpEvictedIdle(): number {
    return this.tcpCounts.evictedIdle;
  }

  /** Connections closed at the cap for a new one while a message was under way (the nearest deadline first). */
  get tcpEvictedPending(): number {
    return this.tcpCounts.evictedPending;
  }

  /** Connections closed because a message took longer than `messageTimeoutMs` to arrive. */
  get tcpMessageTimeouts(): number {
    return this.tcpCounts.messageTimeouts;
  }

  /** Connections closed by the idle timeout (nothing under way), or because an answer stayed unread that long. */
  get tcpIdleTimeouts(): number {
    return this.tcpCounts.idleTimeouts;
  }

  /**
   * New routing state: cached answers are dropped and the SOA serial moves on (or is set to `serial`);
   * `revision` (the store revision it reflects) goes into decision records.
   */
  setSnapshot(snapshot: RoutingSnapshot, serial?: number, revision?: number): void {
    this.responder.setSnapshot(snapshot, serial);
    if (revision !== undefined) this.responder.revision = revision;
  }

  async start(): Promise<void> {
    try {
      for (const l of this.listen) this.endpoints.push(await this.bindPair(l));
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /** Every address the server listens on (UDP and TCP share the port). */
  addresses(): BoundAddress[] {
    return this.endpoints.map((e) => ({ ...e.bound }));
  }

  /** The first listening address. */
  address(): BoundAddress {
    const e = this.endpoints[0];
    if (!e) throw Object.assign(new Error('dns: server is not listening (call start() first)'), { code: 'DNS_NOT_LISTENING' });
    return { ...e.bound };
  }

  async close(): Promise<void> {
    const eps = this.endpoints;
    this.endpoints = [];
    for (const c of [...this.connections]) c.close();
    this.connections.clear();
    for (const set of Object.values(this.byState)) set.clear();
    this.perClient.clear();
    await Promise.all(
      eps.map((e) =>
        Promise.all([
          new Promise<void>((r) => {
            try {
              e.udp.close(() => r());
            } catch {
              r();
            }
          }),
          new Promise<void>((r) => e.tcp.close(() => r())),
        ]),
      ),
    );
  }

  // ------------------------------------------------------------------------------------------------

  private async bindPair(l: ListenAddress): Promise<Endpoint> {
    const v6 = net.isIPv6(l.address);
    if (!v6 && !net.isIPv4(l.address)) {
      throw Object.assign(new Error(`dns: listen address "${l.address}" is not an IP literal (use e.g. 127.0.0.1 or ::1)`), {
        code: 'DNS_LISTEN_ADDRESS',
      });
    }
    // With port 0 the UDP port is chosen first; TCP must get the same one, so retry if it is taken.
    for (let attempt = 0; ; attempt++) {
      const udp = await this.bindUdp(l.address, l.port, v6);
      const port = udp.address().port;
      try {
        const tcp = await this.listenTcp(l.address, port, v6);
        return { udp, tcp, bound: { address: l.address, port, family: v6 ? 'IPv6' : 'IPv4' } };
      } catch (err) {
        await new Promise<void>((r) => udp.close(() => r()));
        if (l.port !== 0 || attempt >= 20 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      }
    }
  }

  private bindUdp(address: string, port: number, v6: boolean): Promise<dgram.Socket> {
    return new Promise((resolve, reject) => {
      // reusePort: this process's own socket (exclusive: not the cluster primary's shared handle).
      const sock = dgram.createSocket({
        type: v6 ? 'udp6' : 'udp4',
        ipv6Only: v6,
        ...(this.reusePort ? { reusePort: true } : {}),
      } as dgram.SocketOptions);
      const onError = (err: Error): void => reject(err);
      sock.once('error', onError);
      sock.bind({ address, port, exclusive: this.reusePort }, () => {
        sock.off('error', onError);
        // A send error (e.g. ICMP unreachable surfacing) must never take the server down.
        sock.on('error', () => undefined);
        const responder = this.responder;
        const proxy = this.proxy;
        const boundPort = sock.address().port;
        sock.on('message', (msg, rinfo) => {
          let query = msg;
          let client = rinfo.address;
          let clientPort = rinfo.port;
          if (proxy !== undefined) {
            // The answer still goes back to the front; the carried address is the client for everything else.
            const carried = this.unwrapProxy(msg, rinfo.address);
            if (carried === null) return;
            query = msg.subarray(carried.length);
            client = carried.client;
            clientPort = carried.port ?? clientPort;
          }
          const tap = this.tap;
          const out = tap?.due()
            ? this.tapped(tap, query, client, clientPort, address, boundPort, false)
            : responder.handle(query, client, 'udp');
          if (out !== null) sock.send(out, rinfo.port, rinfo.address);
        });
        resolve(sock);
      });
    });
  }

  /**
   * Where a datagram (or a connection's first octets) from `from` really comes from: the carried client and
   * the header's length, `from` itself (length 0) for a client that is not a front, or null to drop it (a
   * front without a valid header, a header from a non-front: counted either way). Only with `proxy` set.
   */
  private unwrapProxy(buf: Buffer, from: string): { length: number; client: string; port?: number } | null {
    const stats = this.responder.stats;
    if (!this.proxy!.has(from)) {
      if (buf.length >= 12 && startsWithProxySignature(buf)) {
        stats.proxyRefused++;
        return null;
      }
      return { length: 0, client: from };
    }
    const h = parseProxyV2(buf);
    if (h.kind === 'proxy' || h.kind === 'local') {
      stats.proxyAccepted++;
      return h.kind === 'proxy' ? { length: h.length, client: h.source, port: h.sourcePort } : { length: h.length, client: from };
    }
    stats.proxyMissing++;
    return null;
  }

  private listenTcp(address: string, port: number, v6: boolean): Promise<net.Server> {
    return new Promise((resolve, reject) => {
      const server = net.createServer({ noDelay: true }, (sock) => this.onConnection(sock));
      // No server.maxConnections: at the cap onConnection closes an idle connection for the new one.
      const onError = (err: Error): void => reject(err);
      server.once('error', onError);
      server.listen(
        {
          host: address,
          port,
          ipv6Only: v6,
          exclusive: this.reusePort,
          ...(this.reusePort ? { reusePort: true } : {}),
        } as net.ListenOptions,
        () => {
          server.off('error', onError);
          server.on('error', () => undefined);
          resolve(server);
        },
      );
    });
  }

  private onConnection(sock: net.Socket): void {
    sock.on('error', () => undefined);
    let client = sock.remoteAddress ?? '';
    let clientPort = sock.remotePort ?? 0;
    // From a front (--proxy-protocol-from) the client is only known once its PROXY header is in: the
    // per-client limit is applied then, to the carried address (the front itself is never limited by it).
    const fromFront = this.proxy?.has(client) === true;
    // From anyone else, with PROXY on, a stream that opens with a PROXY header is refused.
    let sniff = this.proxy !== undefined && !fromFront;
    // One client cannot take every connection slot (and with them TCP DNS for everyone else).
    const key = fromFront ? undefined : clientKey(client);
    if (key !== undefined && !this.admitClient(key)) {
      sock.destroy();
      return;
    }
    // At the cap the new connection takes a slot nobody is using (see evictOne); refused only if none is.
    if (this.connections.size >= this.tcpOpts.maxConnections && !this.evictOne()) {
      this.tcpCounts.refusedFull++;
      if (key !== undefined) this.releaseClient(key);
      sock.destroy();
      return;
    }
    const conn = new TcpConn(sock, key);
    this.connections.add(conn);
    const opts = this.tcpOpts;
    const responder = this.responder;
    const maxPipelined = Math.max(1, opts.maxPipelined);
    let pending: Buffer | null = null;
    /** Answering has yielded (maxPipelined) or waits for 'drain': the rest of the pipeline is answered later. */
    let scheduled = false;
    let answeredAny = false;

    const expire = (state: TcpState): void => {
      if (state === 'pending') this.tcpCounts.messageTimeouts++;
      else this.tcpCounts.idleTimeouts++;
      sock.destroy();
    };
    /** Into `next` (and its eviction set); the one timer is re-armed on a change of state (or `rearm`), never per byte. */
    const enter = (next: TcpState, rearm: boolean): void => {
      if (sock.destroyed || (next === conn.state && !rearm)) return;
      if (conn.state !== 'busy') this.byState[conn.state].delete(conn);
      conn.state = next;
      if (next !== 'busy') this.byState[next].add(conn);
      clearTimeout(conn.timer);
      conn.timer = setTimeout(expire, next === 'pending' ? opts.messageTimeoutMs : opts.idleTimeoutMs, next);
      conn.timer.unref();
    };
    /** The state the connection is in now (after bytes came in, an answer was queued, or one was written). */
    const settle = (rearm = false): void =>
      enter(scheduled || sock.writableLength > 0 ? 'busy' : pending !== null ? 'pending' : answeredAny ? 'idle' : 'fresh', rearm);

    sock.on('close', () => this.forget(conn));
    enter('fresh', true);

    /** The front's PROXY header, before the first message: false to stop (the connection is closed). */
    const readProxyHeader = (): boolean => {
      if (pending === null) return true;
      const h = parseProxyV2(pending);
      if (h.kind === 'incomplete') return true;
      const stats = responder.stats;
      if (h.kind === 'invalid') {
        stats.proxyMissing++;
        sock.destroy();
        return false;
      }
      stats.proxyAccepted++;
      if (h.kind === 'proxy') {
        client = h.source;
        clientPort = h.sourcePort;
      }
      const carried = clientKey(client);
      if (!this.admitClient(carried)) {
        sock.destroy();
        return false;
      }
      conn.key = carried;
      pending = pending.length === h.length ? null : pending.subarray(h.length);
      return true;
    };

    const answerPipeline = (): void => {
      scheduled = false;
      if (conn.key === undefined && !readProxyHeader()) return;
      if (conn.key === undefined) {
        settle();
        return;
      }
      let answered = 0;
      while (pending !== null && pending.length >= 2 && !sock.destroyed) {
        if (sock.writableNeedDrain) {
          // The client is not reading its answers: stop reading its queries until it does.
          sock.pause();
          scheduled = true;
          sock.once('drain', () => {
            sock.resume();
            // It reads again: the stall timer starts over (once per drained buffer, not per byte).
            enter('busy', true);
            answerPipeline();
          });
          break;
        }
        if (answered >= maxPipelined) {
          scheduled = true;
          setImmediate(answerPipeline);
          break;
        }
        const len = (pending[0]! << 8) | pending[1]!;
        if (pending.length < 2 + len) break;
        const msg = pending.subarray(2, 2 + len);
        pending = pending.length === 2 + len ? null : pending.subarray(2 + len);
        const tap = this.tap;
        const out = tap?.due()
          ? this.tapped(tap, msg, client, clientPort, sock.localAddress ?? '', sock.localPort ?? 0, true)
          : responder.handle(msg, client, 'tcp');
        if (out === null) {
          // No readable header: the stream cannot be trusted any more.
          sock.destroy();
          return;
        }
        answeredAny = true;
        // Written (or handed to the kernel): idle again once nothing is left to write.
        sock.write(out, () => settle());
        answered++;
      }
      // A message answered: the next one (already begun or not) gets a deadline of its own.
      settle(answered > 0);
    };

    sock.on('data', (chunk: Buffer) => {
      pending = pending === null ? chunk : Buffer.concat([pending, chunk]);
      if (sniff && (pending.length >= 12 || !startsWithProxySignature(pending))) {
        sniff = false;
        if (pending.length >= 12 && startsWithProxySignature(pending)) {
          responder.stats.proxyRefused++;
          sock.destroy();
          return;
        }
      }
      if (!scheduled) answerPipeline();
    });
  }

  /**
   * Frees a slot for a new connection at the cap, as NSD and Knot do rather than refusing it: the longest
   * idle connection, else the one whose message deadline is nearest, else the oldest that has sent nothing
   * (a new connection is that, and its query is likely on its way). Never one writing an answer.
   */
  private evictOne(): boolean {
    for (const state of ['idle', 'pending', 'fresh'] as const) {
      const victim = this.byState[state].values().next().value;
      if (victim === undefined) continue;
      if (state === 'pending') this.tcpCounts.evictedPending++;
      else this.tcpCounts.evictedIdle++;
      this.forget(victim);
      victim.close();
      return true;
    }
    return false;
  }

  /** The connection no longer counts (closed, or about to be): idempotent. */
  private forget(conn: TcpConn): void {
    clearTimeout(conn.timer);
    if (!this.connections.delete(conn)) return;
    if (conn.state !== 'busy') this.byState[conn.state].delete(conn);
    if (conn.key !== undefined) this.releaseClient(conn.key);
  }

  /** One more connection for the client `key`, or false (counted) when it has `maxConnectionsPerClient` open. */
  private admitClient(key: string): boolean {
    const open = this.perClient.get(key) ?? 0;
    if (open >= this.tcpOpts.maxConnectionsPerClient) {
      this.tcpCounts.refusedPerClient++;
      return false;
    }
    this.perClient.set(key, open + 1);
    return true;
  }

  private releaseClient(key: string): void {
    const n = (this.perClient.get(key) ?? 1) - 1;
    if (n > 0) this.perClient.set(key, n);
    else this.perClient.delete(key);
  }
}

/**
 * A TCP connection's state decides its one timer and whether the cap may close it for a new connection:
 * - `fresh`: accepted, no byte yet: the idle timeout (RFC 7766's initial one); closed for a new one last;
 * - `pending`: part of a message is in: the message deadline, set when its first byte came (or when the
 *   connection stopped being busy) and moved by no later byte; closed for a new one, the nearest deadline first;
 * - `busy`: a query being answered or an answer being written: a stall timer of the idle timeout, started
 *   over when the client drains a full buffer; never closed for a new one;
 * - `idle`: everything answered and written: the idle timeout from that moment; closed for a new one first.
 */
type TcpState = 'fresh' | 'pending' | 'busy' | 'idle';

class TcpConn {
  state: TcpState = 'busy';
  timer: NodeJS.Timeout | undefined;
  constructor(
    readonly sock: net.Socket,
    /** The client's key for the per-client limit; undefined from a front until its PROXY header is in. */
    public key: string | undefined,
  ) {}

  close(): void {
    clearTimeout(this.timer);
    this.sock.destroy();
  }
}

/**
 * Whose connection this is, for the per-client limit: the IPv4 address (also when it arrives IPv4-mapped),
 * or the IPv6 /64 (one site's subnet: a client with an IPv6 network has the whole /64 to choose from).
 */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!net.isIPv6(address)) return address;
  const v = parseIPv6(address);
  return v === undefined ? address : `${(v >> 64n).toString(16)}::/64`;
}
