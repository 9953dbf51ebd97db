/**
 * Whether DNS worker processes can each bind their own UDP and TCP socket on the shared port
 * (SO_REUSEPORT, so that the kernel spreads queries and connections over them), or must share one socket
 * through the cluster primary as before.
 *
 * Node has `reusePort` for `dgram.createSocket` and `net.Server.listen` from v22.12.0 / v23.1.0 (so every
 * v24); the kernel spreads datagrams over the sockets of a reuseport group on Linux 3.9+. Older Node
 * versions ignore the option without a word, so a version check alone is not trusted: the primary also
 * binds two sockets on one loopback port and sees the second succeed.
 */
import * as dgram from 'node:dgram';
import * as net from 'node:net';

export interface ReusePortSupport {
  /** True: every DNS worker binds its own sockets with SO_REUSEPORT. */
  supported: boolean;
  /** Why not, for the start-up banner (`Node 20.20.2 lacks reusePort`); undefined when supported. */
  reason?: string;
  /** What to do about it (`use Node ≥ 22.12 for per-worker sockets`), when there is something to do. */
  fix?: string;
  /** The Node version this was decided for (`20.20.2`). */
  node: string;
}

/** The first Node versions whose dgram and net take `reusePort`: 22.12 on the 22 line, 23.1, and every later major. */
export const REUSE_PORT_MIN = '22.12';

/**
 * Why this Node version and platform cannot bind per-worker sockets, or undefined when they can
 * (before the live probe). Pure: the version and platform are arguments.
 */
export function reusePortBlocker(
  version: string = process.versions.node,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const v = version.replace(/^v/, '');
  const [major = 0, minor = 0] = v.split('.').map((s) => Number.parseInt(s, 10));
  const ok = major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
  if (!ok) return `Node ${v} lacks reusePort`;
  if (platform !== 'linux') return `reusePort spreads load only on Linux here (this is ${platform})`;
  return undefined;
}

let cached: Promise<ReusePortSupport> | undefined;

/**
 * The decision for this process, probed once: `TMKIT_DNS_REUSEPORT=0` turns per-worker sockets off (the
 * shared socket of Node < 22.12 on any version), otherwise the version check and a live bind test decide.
 */
export function reusePortSupport(): Promise<ReusePortSupport> {
  cached ??= decide();
  return cached;
}

async function decide(): Promise<ReusePortSupport> {
  const node = process.versions.node;
  if (process.env.TMKIT_DNS_REUSEPORT === '0')
    return { supported: false, reason: 'TMKIT_DNS_REUSEPORT=0 turns per-worker sockets off', node };
  const blocker = reusePortBlocker(node, process.platform);
  if (blocker !== undefined)
    return {
      supported: false,
      reason: blocker,
      node,
      ...(blocker.startsWith('Node ') ? { fix: `use Node ≥ ${REUSE_PORT_MIN} for per-worker sockets` } : {}),
    };
  return probeReusePort(node);
}

/** The live bind test, repeated on another port while the chosen one turns out taken for TCP (`run`: tests). */
export async function probeReusePort(node: string, run: () => Promise<void> = probe): Promise<ReusePortSupport> {
  for (let attempt = 1; ; attempt++) {
    try {
      await run();
      return { supported: true, node };
    } catch (err) {
      // The port the kernel chose for UDP was taken for TCP by another process: says nothing about reusePort.
      if (err instanceof TcpTwinTaken && attempt < 20) continue;
      const cause = err instanceof TcpTwinTaken ? (err.cause as NodeJS.ErrnoException) : (err as NodeJS.ErrnoException);
      return { supported: false, reason: `the reusePort bind test failed (${cause.code ?? cause.message})`, node };
    }
  }
}

/** The probe's first TCP listener could not have the UDP socket's port (another process holds it for TCP). */
export class TcpTwinTaken extends Error {}

/**
 * Two UDP sockets and two TCP listeners on one loopback port, all with reusePort: throws unless all four bind.
 * Only the second of each proves reusePort; the first TCP listener failing means the port is someone else's
 * (TcpTwinTaken), and the caller tries another.
 */
async function probe(): Promise<void> {
  const open: Array<() => Promise<void>> = [];
  try {
    const first = await bindUdp(0);
    open.push(() => closeUdp(first));
    const port = first.address().port;
    const second = await bindUdp(port);
    open.push(() => closeUdp(second));
    for (let i = 0; i < 2; i++) {
      const srv = await listenTcp(port).catch((err: unknown) => {
        throw i === 0 ? new TcpTwinTaken(`TCP ${port} is taken`, { cause: err }) : err;
      });
      open.push(() => new Promise<void>((r) => srv.close(() => r())));
    }
  } finally {
    await Promise.all(open.map((close) => close()));
  }
}

function bindUdp(port: number): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket({ type: 'udp4', reusePort: true } as dgram.SocketOptions);
    s.once('error', (err) => {
      try {
        s.close();
      } catch {
        /* not bound */
      }
      reject(err);
    });
    s.bind({ address: '127.0.0.1', port, exclusive: true }, () => resolve(s));
  });
}

function closeUdp(s: dgram.Socket): Promise<void> {
  return new Promise((r) => {
    try {
      s.close(() => r());
    } catch {
      r();
    }
  });
}

function listenTcp(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen({ host: '127.0.0.1', port, exclusive: true, reusePort: true } as net.ListenOptions, () => resolve(srv));
  });
}

/**
 * What `--workers auto` means here: min(cores, 4) DNS workers when each can have its own socket, else 1
 * (DNS in the main process: workers sharing one socket add IPC and gain nothing).
 */
export function autoWorkers(support: ReusePortSupport, cores: number): number {
  return support.supported ? Math.max(1, Math.min(cores, 4)) : 1;
}

/** Why there are no per-worker sockets, and what to do about it: `Node 20.20.2 lacks reusePort; use Node ≥ 22.12 …`. */
function whyShared(support: ReusePortSupport): string {
  return `${support.reason ?? 'per-worker sockets are off'}${support.fix !== undefined ? `; ${support.fix}` : ''}`;
}

/** The banner line for workers that share one socket (`--workers N` where per-worker sockets cannot be had). */
export function sharedSocketNotice(support: ReusePortSupport): string {
  return `workers share one socket: ${whyShared(support)}`;
}

/** The banner line when `--workers auto` keeps DNS in the main process because there are no per-worker sockets. */
export function mainProcessNotice(support: ReusePortSupport): string {
  return `DNS in the main process (--workers auto): ${whyShared(support)}`;
}
