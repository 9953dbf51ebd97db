/**
 * On the public internet, tmkit beside Knot 3.2 (issue 39's acceptance), in one run on loopback:
 *   tmkit  `tmkit dns` (as bench/dns runs it: bench/dns/tmkit.ts), DNSSEC on (online signing), `--rrl 20
 *          --rrl-slip 2`, cookies on (the default); every other setting at its default (1 process,
 *          --tcp-max-connections 1000, --dnssec-sign-rate 2000, --dnssec-cache-size 32)
 *   Knot   knotd 3.2 with a generated config: the same zone content signed by Knot (`dnssec-signing: on`,
 *          ECDSA P-256 CSK, NSEC), `mod-cookies` then `mod-rrl` (rate-limit 20, slip 2); every other setting at
 *          its default (udp-workers = CPUs, tcp-max-clients = half the fd limit, tcp-io-timeout 500 ms)
 * and per server:
 *   1. reflection: 2,000 identical `weighted A +DO` queries (EDNS 1232, no cookie) from one address
 *      (127.0.20.1) in 1 s, 20 every 10 ms; bytes received back / bytes sent, full answers, TC slips, dropped
 *   2. meanwhile a client in another /24 (127.0.21.1) asks the same 20 times (one every 50 ms)
 *   3. a client that returns the server cookie (127.0.22.1): one query to get it, then 1,000 in 1 s with it
 *   4. `tm.internal ANY +DO` over UDP (EDNS 4096, no cookie): response size / query size and the RRsets
 *   5. 1,100 TCP connections from 1,100 addresses (127.1.x.y) each sending one byte every 2 s of a message
 *      that never ends (reconnecting 1 s after the server closes one), and meanwhile a new TCP client
 *      (127.0.24.1) asks once a second: answered within 1 s?
 *   6. a random-name `+DO` flood (bench/public/flood.ts: a new name per query, spread over 1,024 /24s,
 *      --flood-rate q/s for --flood-seconds), the server's RSS (VmRSS, summed over its processes) before and
 *      at most during it, and meanwhile a resolver-like probe (127.0.25.1) at 50 q/s with a valid cookie
 *      (UDP; on TC it asks over TCP, on a 1 s timeout it asks once more): p50/p99 and lost.
 * Prints a Markdown table (test, tmkit, Knot, target, pass/fail); figures are for the ratio, the machine is
 * shared. Each load is bounded; the whole run takes about 3 minutes.
 *
 * Needs knotd (Debian: apt-get install knot) and enough file descriptors: the bench re-runs itself under
 * `ulimit -n 8192` (tmkit and knotd inherit it).
 *
 * Usage: npm run bench:public [-- --only reflection,cookie,any,tcp,flood] [--flood-seconds 30]
 *        [--flood-rate 20000] [--drip-seconds 20] [--port 15401] [--tmkit-workers 1]
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as dgram from 'node:dgram';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { loadavg, cpus, tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { BADCOOKIE, TYPE, TYPE_NAME, buildQuery, framed, isFull, parseResponse, type Response } from './wire';

const NOFILE = 8192;
if (process.env.TMKIT_BENCH_PUBLIC_NOFILE !== String(NOFILE)) {
  // Node cannot raise its own RLIMIT_NOFILE: run again under a shell that does (its children inherit it).
  const r = spawnSync(
    'bash',
    ['-c', `ulimit -n ${NOFILE} && exec "$@"`, 'bash', process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    {
      stdio: 'inherit',
      env: { ...process.env, TMKIT_BENCH_PUBLIC_NOFILE: String(NOFILE) },
    },
  );
  process.exit(r.status ?? 1);
}

const argv = process.argv.slice(2);
const arg = (name: string, def: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : def;
};
const ONLY = new Set(arg('only', 'reflection,cookie,any,tcp,flood').split(','));
const FLOOD_SECONDS = Number(arg('flood-seconds', '30'));
const FLOOD_RATE = Number(arg('flood-rate', '20000'));
const FLOOD_SOCKETS = 1024;
const DRIP_SECONDS = Number(arg('drip-seconds', '20'));
const DRIP_CONNECTIONS = 1100;
const BASE_PORT = Number(arg('port', '15401'));
const TMKIT_WORKERS = arg('tmkit-workers', '1');

const ZONE = 'tm.internal';
const NAME = `weighted.${ZONE}`;
const ROOT = resolvePath(__dirname, '../..');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const log = (s: string) => process.stderr.write(`bench:public: ${s}\n`);

// ------------------------------------------------------------------------------------------------
// The servers

interface Server {
  name: 'tmkit' | 'Knot';
  port: number;
  proc: ChildProcess;
  logFile: string;
}

const TMKIT_DOC = {
  apiVersion: 'tmkit/v1',
  profiles: [
    {
      name: 'weighted',
      trafficRoutingMethod: 'Weighted',
      dnsConfig: { relativeName: 'weighted', ttl: 30 },
      monitorConfig: { protocol: 'HTTP', port: 80, path: '/' },
      endpoints: [
        { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', weight: 1 },
        { name: 'b', type: 'externalEndpoints', target: '192.0.2.2', weight: 3 },
      ],
    },
    {
      name: 'failover',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'failover', ttl: 10 },
      monitorConfig: { protocol: 'HTTP', port: 80, path: '/' },
      endpoints: [
        { name: 'primary', type: 'externalEndpoints', target: '192.0.2.10', priority: 1 },
        { name: 'secondary', type: 'externalEndpoints', target: '192.0.2.11', priority: 2 },
      ],
    },
  ],
};

// What tmkit serves for that document (SOA and NS as `tmkit dns` makes them; one A per name: Knot has no
// weighted answers, and an answer of one A is what tmkit gives too).
const KNOT_ZONE = `$ORIGIN ${ZONE}.
@ 300 SOA ns1 hostmaster 1 3600 600 86400 30
@ 300 NS ns1
weighted 30 A 192.0.2.2
failover 10 A 192.0.2.10
`;

const knotConf = (dir: string, port: number): string => `server:
  rundir: ${dir}
  listen: 127.0.0.1@${port}
database:
  storage: ${dir}
log:
  - target: stderr
    any: notice
policy:
  - id: csk
    algorithm: ecdsap256sha256
    single-type-signing: on
    nsec3: off
mod-cookies:
  - id: cookies
mod-rrl:
  - id: rrl
    rate-limit: 20
    slip: 2
template:
  - id: default
    storage: ${dir}
zone:
  - domain: ${ZONE}
    file: ${ZONE}.zone
    dnssec-signing: on
    dnssec-policy: csk
    module: [mod-cookies/cookies, mod-rrl/rrl]
`;

async function startServer(name: Server['name'], tmp: string, port: number): Promise<Server> {
  const logFile = join(tmp, `${name}.log`);
  const out = openSync(logFile, 'w');
  let proc: ChildProcess;
  if (name === 'tmkit') {
    writeFileSync(join(tmp, 'doc.json'), JSON.stringify(TMKIT_DOC));
    proc = spawn(
      process.execPath,
      [
        // TMKIT_BENCH_CPU_PROF=DIR: a V8 CPU profile of the tmkit server, written there when it stops.
        ...(process.env.TMKIT_BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.TMKIT_BENCH_CPU_PROF] : []),
        // TMKIT_BENCH_NODE_FLAGS: more V8/Node flags for the tmkit server (e.g. --trace-gc; its log is tmkit.log).
        ...(process.env.TMKIT_BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f !== ''),
        '-r',
        '@swc-node/register',
        'bench/dns/tmkit.ts',
        'dns',
        '--document',
        join(tmp, 'doc.json'),
        '--zone',
        ZONE,
        '--listen',
        `127.0.0.1:${port}`,
        '--dnssec',
        '--rrl',
        '20',
        '--rrl-slip',
        '2',
        '--workers',
        TMKIT_WORKERS,
      ],
      { cwd: ROOT, stdio: ['ignore', out, out] },
    );
  } else {
    const dir = join(tmp, 'knot');
    mkdirSync(dir);
    writeFileSync(join(dir, `${ZONE}.zone`), KNOT_ZONE);
    writeFileSync(join(dir, 'knot.conf'), knotConf(dir, port));
    proc = spawn('knotd', ['-c', join(dir, 'knot.conf')], { stdio: ['ignore', out, out] });
  }
  const server: Server = { name, port, proc, logFile };
  // Ready: a signed answer (A + RRSIG) from 127.0.0.1 (a /24 no test uses).
  const sock = await udpSocket('127.0.0.1');
  try {
    for (let i = 0; i < 150; i++) {
      if (proc.exitCode !== null) break;
      const r = await udpAsk(sock, port, buildQuery(NAME, { id: i, type: TYPE.A, dnssecOk: true }), 200);
      if (r && isFull(r) && r.answers.some((a) => a.type === TYPE.RRSIG)) return server;
      await sleep(200);
    }
  } finally {
    sock.close();
  }
  throw new Error(`${name} did not answer on port ${port}: ${readFileSync(logFile, 'utf8')}`);
}

async function stopServer(s: Server): Promise<void> {
  if (s.proc.exitCode !== null) return;
  const exited = new Promise((r) => s.proc.once('exit', r));
  s.proc.kill('SIGTERM');
  await Promise.race([exited, sleep(5000)]);
  if (s.proc.exitCode === null) s.proc.kill('SIGKILL');
}

/** The server's processes: its pid and its children's (tmkit's cluster workers, if any). */
function pids(s: Server): number[] {
  const pid = s.proc.pid!;
  let children: number[] = [];
  try {
    children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((x) => Number(x.trim()))
      .filter((x) => x > 0);
  } catch {
    // no children: ps exits 1
  }
  return [pid, ...children];
}

/** VmRSS in MB, summed over the server's processes. */
function rssMb(s: Server): number {
  let kb = 0;
  for (const p of pids(s)) {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
    kb += m ? Number(m[1]) : 0;
  }
  return kb / 1024;
}

/** CPU seconds (user + system) of the server's processes. */
function cpuSeconds(s: Server): number {
  let ticks = 0;
  for (const p of pids(s)) {
    const f = readFileSync(`/proc/${p}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    ticks += Number(rest[11]) + Number(rest[12]); // fields 14 and 15
  }
  return ticks / 100;
}

// ------------------------------------------------------------------------------------------------
// Clients

async function udpSocket(from: string): Promise<dgram.Socket> {
  const s = dgram.createSocket('udp4');
  s.on('error', () => undefined);
  await new Promise<void>((r) => s.bind({ address: from, port: 0 }, () => r()));
  return s;
}

const waiting = new WeakMap<dgram.Socket, Map<number, (r: Response) => void>>();

/** One query on `sock`: the response with the same ID, or undefined after `timeoutMs`. */
function udpAsk(sock: dgram.Socket, port: number, q: Buffer, timeoutMs: number): Promise<Response | undefined> {
  let ids = waiting.get(sock);
  if (!ids) {
    const m = new Map<number, (r: Response) => void>();
    ids = m;
    waiting.set(sock, m);
    sock.on('message', (b: Buffer) => {
      const cb = m.get(b.readUInt16BE(0));
      if (cb) cb(parseResponse(b));
    });
  }
  const id = q.readUInt16BE(0);
  const pending = ids;
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      pending.delete(id);
      resolve(undefined);
    }, timeoutMs);
    pending.set(id, (r) => {
      clearTimeout(t);
      pending.delete(id);
      resolve(r);
    });
    sock.send(q, port, '127.0.0.1');
  });
}

/** Datagrams the kernel dropped on the server's UDP sockets (receive buffer full): /proc/net/udp's last column. */
function udpDrops(port: number): number {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let drops = 0;
  for (const line of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[1]?.endsWith(hex)) drops += Number(f[f.length - 1]);
  }
  return drops;
}

/** One query over a new TCP connection from `from`: the response, or why not, and the milliseconds it took. */
function tcpAsk(
  port: number,
  from: string,
  q: Buffer,
  timeoutMs: number,
): Promise<{ r?: Response; error?: string; ms: number; connectMs?: number }> {
  const t0 = performance.now();
  let connectMs: number | undefined;
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    let settled = false;
    const s = net.connect({ host: '127.0.0.1', port, localAddress: from });
    const finish = (x: { r?: Response; error?: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(t);
      s.destroy();
      resolve({ ...x, ms: performance.now() - t0, ...(connectMs !== undefined ? { connectMs } : {}) });
    };
    const t = setTimeout(() => finish({ error: 'timeout' }), timeoutMs);
    s.on('connect', () => {
      connectMs = performance.now() - t0;
      s.write(framed(q));
    });
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) finish({ r: parseResponse(buf.subarray(2, 2 + buf.readUInt16BE(0))) });
    });
    s.on('error', (e: NodeJS.ErrnoException) => finish({ error: e.code ?? e.message }));
    s.on('close', () => finish({ error: 'closed' }));
  });
}

/** A client cookie, and the server cookie the server gives for it (asked from `sock`). */
async function getCookie(server: Server, sock: dgram.Socket): Promise<Buffer> {
  const client = randomBytes(8);
  for (let i = 0; i < 3; i++) {
    const r = await udpAsk(sock, server.port, buildQuery(NAME, { id: 60000 + i, type: TYPE.A, dnssecOk: true, cookie: client }), 1000);
    if (r?.cookie && r.cookie.length > 8) return r.cookie;
  }
  throw new Error(`${server.name}: no server cookie`);
}

// ------------------------------------------------------------------------------------------------
// 1 + 2: reflection, and another /24 meanwhile

interface Reflection {
  sent: number;
  bytesOut: number;
  bytesIn: number;
  full: number;
  tc: number;
  other: number;
  dropped: number;
  neighbourSent: number;
  neighbourFull: number;
}

async function reflection(server: Server): Promise<Reflection> {
  const count = 2000;
  const q = buildQuery(NAME, { type: TYPE.A, dnssecOk: true });
  const flood = await udpSocket('127.0.20.1');
  const neighbour = await udpSocket('127.0.21.1');
  const got = { bytesIn: 0, full: 0, tc: 0, other: 0 };
  flood.on('message', (m) => {
    got.bytesIn += m.length;
    const r = parseResponse(m);
    if (r.tc) got.tc++;
    else if (isFull(r)) got.full++;
    else got.other++;
  });
  const neighbourDone = (async () => {
    let full = 0;
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      const r = await udpAsk(neighbour, server.port, buildQuery(NAME, { id: 30000 + i, type: TYPE.A, dnssecOk: true }), 1000);
      if (r && isFull(r)) full++;
      await sleep(Math.max(0, 50 - (performance.now() - t)));
    }
    return full;
  })();
  let bytesOut = 0;
  const t0 = performance.now();
  for (let sent = 0, b = 0; sent < count; b++) {
    for (let i = 0; i < count / 100 && sent < count; i++, sent++) {
      const m = Buffer.from(q);
      m.writeUInt16BE(sent, 0);
      bytesOut += m.length;
      flood.send(m, server.port, '127.0.0.1');
    }
    await sleep(Math.max(0, t0 + (b + 1) * 10 - performance.now()));
  }
  const neighbourFull = await neighbourDone;
  await sleep(1000);
  flood.close();
  neighbour.close();
  return { sent: count, bytesOut, ...got, dropped: count - got.full - got.tc - got.other, neighbourSent: 20, neighbourFull };
}

// ------------------------------------------------------------------------------------------------
// 3: a client returning the server cookie, 1,000 q/s

interface CookieRun {
  sent: number;
  full: number;
  tc: number;
  badcookie: number;
  other: number;
  lost: number;
}

async function cookieClient(server: Server): Promise<CookieRun> {
  const sock = await udpSocket('127.0.22.1');
  let cookie = await getCookie(server, sock);
  const got = { full: 0, tc: 0, badcookie: 0, other: 0 };
  sock.on('message', (m) => {
    const r = parseResponse(m);
    if (r.id >= 60000) return; // getCookie's
    if (r.cookie && r.cookie.length > 8) cookie = r.cookie; // a renewed server cookie is used from then on
    if (r.tc) got.tc++;
    else if (r.rcode === BADCOOKIE) got.badcookie++;
    else if (isFull(r)) got.full++;
    else got.other++;
  });
  const count = 1000;
  const t0 = performance.now();
  for (let sent = 0, b = 0; sent < count; b++) {
    for (let i = 0; i < count / 100 && sent < count; i++, sent++) {
      sock.send(buildQuery(NAME, { id: sent, type: TYPE.A, dnssecOk: true, cookie }), server.port, '127.0.0.1');
    }
    await sleep(Math.max(0, t0 + (b + 1) * 10 - performance.now()));
  }
  await sleep(1000);
  sock.close();
  return { sent: count, ...got, lost: count - got.full - got.tc - got.badcookie - got.other };
}

// ------------------------------------------------------------------------------------------------
// 4: ANY at the apex over UDP

interface AnyRun {
  queryBytes: number;
  responseBytes: number;
  rrsets: string[];
  tc: boolean;
}

async function anyQuery(server: Server): Promise<AnyRun> {
  const sock = await udpSocket('127.0.23.1');
  const q = buildQuery(ZONE, { id: 4242, type: TYPE.ANY, dnssecOk: true, bufsize: 4096 });
  let bytes = 0;
  sock.on('message', (m) => {
    bytes = m.length;
  });
  const r = await udpAsk(sock, server.port, q, 2000);
  sock.close();
  if (!r) throw new Error(`${server.name}: no answer to ANY`);
  const sets = new Set<string>();
  for (const a of r.answers) sets.add(TYPE_NAME[a.type === TYPE.RRSIG ? a.covered! : a.type] ?? String(a.type));
  return { queryBytes: q.length, responseBytes: bytes, rrsets: [...sets], tc: r.tc };
}

// ------------------------------------------------------------------------------------------------
// 5: slow-drip TCP connections, and a new client meanwhile

interface TcpRun {
  /** Milliseconds to the TCP connection's establishment, per probe that connected. */
  connectMs: number[];
  probes: number;
  within1s: number;
  probeMs: number[];
  probeErrors: Record<string, number>;
  connected: number;
  closedByServer: number;
  connectErrors: number;
  openAtProbes: number[];
}

async function tcpDrip(server: Server): Promise<TcpRun> {
  let stopping = false;
  const open = new Set<net.Socket>();
  let connected = 0;
  let closedByServer = 0;
  let connectErrors = 0;
  const timers = new Set<NodeJS.Timeout>();
  const drip = (from: string): void => {
    if (stopping) return;
    const s = net.connect({ host: '127.0.0.1', port: server.port, localAddress: from });
    let timer: NodeJS.Timeout | undefined;
    s.on('error', () => undefined);
    s.on('connect', () => {
      connected++;
      open.add(s);
      s.write(Buffer.from([0xff])); // a length prefix of 65,280+ octets: the message never ends
      timer = setInterval(() => s.write(Buffer.from([0])), 2000);
    });
    s.on('close', () => {
      if (timer) clearInterval(timer);
      if (open.delete(s)) {
        if (!stopping) closedByServer++;
      } else if (!stopping) connectErrors++;
      if (!stopping) {
        const t = setTimeout(() => {
          timers.delete(t);
          drip(from);
        }, 1000);
        timers.add(t);
      }
    });
  };
  // 1,100 addresses 127.1.0.1 … 127.1.4.100, 50 connections every 25 ms.
  for (let i = 0; i < DRIP_CONNECTIONS; i++) {
    drip(`127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`);
    if (i % 50 === 49) await sleep(25);
  }
  await sleep(3000);
  const q = buildQuery(NAME, { id: 777, type: TYPE.A, dnssecOk: true });
  const run: TcpRun = {
    connectMs: [],
    probes: 0,
    within1s: 0,
    probeMs: [],
    probeErrors: {},
    connected: 0,
    closedByServer: 0,
    connectErrors: 0,
    openAtProbes: [],
  };
  for (let i = 0; i < DRIP_SECONDS; i++) {
    const t = performance.now();
    run.openAtProbes.push(open.size);
    const p = await tcpAsk(server.port, '127.0.24.1', q, 3000);
    run.probes++;
    if (p.connectMs !== undefined) run.connectMs.push(p.connectMs);
    if (p.r && isFull(p.r)) {
      run.probeMs.push(p.ms);
      if (p.ms <= 1000) run.within1s++;
    } else {
      const why = p.error ?? (p.r ? `rcode ${p.r.rcode}` : 'no answer');
      run.probeErrors[why] = (run.probeErrors[why] ?? 0) + 1;
    }
    await sleep(Math.max(0, 1000 - (performance.now() - t)));
  }
  stopping = true;
  for (const t of timers) clearTimeout(t);
  for (const s of open) s.destroy();
  open.clear();
  await sleep(1500);
  return { ...run, connected, closedByServer, connectErrors };
}

// ------------------------------------------------------------------------------------------------
// 6: random-name flood, memory and a resolver-like probe

interface FloodRun {
  flood: { sent: number; elapsed: number; responses: number; noerror: number; nxdomain: number; tc: number; other: number };
  /** Datagrams dropped by the kernel on the server's sockets during the flood (its receive buffer was full). */
  kernelDrops: number;
  rssBefore: number;
  rssMax: number;
  rssAfter: number;
  cpuShare: number;
  probes: number;
  lost: number;
  udpTimeouts: number;
  viaTcp: number;
  badcookie: number;
  ms: number[];
}

async function randomFlood(server: Server): Promise<FloodRun> {
  const sock = await udpSocket('127.0.25.1');
  let cookie = await getCookie(server, sock);
  await sleep(500);
  const rssBefore = rssMb(server);
  const cpu0 = cpuSeconds(server);
  const drops0 = udpDrops(server.port);
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      '-r',
      '@swc-node/register',
      'bench/public/flood.ts',
      String(server.port),
      String(FLOOD_SECONDS),
      String(FLOOD_RATE),
      String(FLOOD_SOCKETS),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  const childDone = new Promise<void>((r) => child.once('exit', () => r()));
  let running = true;
  void childDone.then(() => {
    running = false;
  });
  let rssMax = rssBefore;
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, rssMb(server));
  }, 500);
  // The probe starts with the flood's first packets (the child takes about a second to start).
  await sleep(1500);
  const run = { probes: 0, lost: 0, udpTimeouts: 0, viaTcp: 0, badcookie: 0, ms: [] as number[] };
  let id = 0;
  const pending: Promise<void>[] = [];
  const resolverQuery = async (): Promise<void> => {
    const t = performance.now();
    let answer: Response | undefined;
    for (let attempt = 0; attempt < 3 && !answer; attempt++) {
      id = (id + 1) % 50000;
      const r = await udpAsk(sock, server.port, buildQuery(NAME, { id, type: TYPE.A, dnssecOk: true, cookie }), 1000);
      if (!r) {
        run.udpTimeouts++;
        if (attempt >= 1) break; // one retry after a timeout, as a resolver would, then lost
        continue;
      }
      if (r.cookie && r.cookie.length > 8) cookie = r.cookie;
      if (r.rcode === BADCOOKIE) {
        run.badcookie++;
        continue;
      }
      if (r.tc) {
        run.viaTcp++;
        answer = (await tcpAsk(server.port, '127.0.25.1', buildQuery(NAME, { id, type: TYPE.A, dnssecOk: true }), 2000)).r;
        break;
      }
      answer = r;
    }
    run.probes++;
    if (answer && isFull(answer)) run.ms.push(performance.now() - t);
    else run.lost++;
  };
  const tStart = performance.now();
  for (let i = 0; running; i++) {
    pending.push(resolverQuery());
    await sleep(Math.max(0, tStart + (i + 1) * 20 - performance.now()));
  }
  await Promise.all(pending);
  const cpuShare = (cpuSeconds(server) - cpu0) / ((performance.now() - t0) / 1000);
  clearInterval(sampler);
  const kernelDrops = udpDrops(server.port) - drops0;
  await sleep(1000);
  const rssAfter = rssMb(server);
  rssMax = Math.max(rssMax, rssAfter);
  sock.close();
  return { flood: JSON.parse(out.trim()), kernelDrops, rssBefore, rssMax, rssAfter, cpuShare, ...run };
}

// ------------------------------------------------------------------------------------------------
// The table

const x = (n: number, d = 2) => `${n.toFixed(d)}×`;
const ms = (n: number) => (Number.isNaN(n) ? '-' : `${n.toFixed(1)} ms`);

async function main(): Promise<void> {
  for (const tool of ['knotd']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
      log(`'${tool}' not found (Debian: apt-get install knot)`);
      process.exit(1);
    }
  }
  const knotVersion = spawnSync('knotd', ['-V'], { encoding: 'utf8' }).stdout.trim();
  const started = new Date();
  log(
    `${knotVersion}; node ${process.version}; ${cpus().length} CPUs; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; fd limit ${NOFILE}`,
  );
  const tmp = mkdtempSync(join(tmpdir(), 'tmkit-bench-public.'));
  const servers: Server[] = [];
  const cleanup = async () => {
    for (const s of servers) await stopServer(s);
    // TMKIT_BENCH_KEEP=1: the servers' logs and configuration stay (their directory is printed).
    if (process.env.TMKIT_BENCH_KEEP === '1') log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  };
  process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
  const results: Record<string, Record<string, unknown>> = { tmkit: {}, Knot: {} };
  try {
    servers.push(await startServer('tmkit', tmp, BASE_PORT));
    servers.push(await startServer('Knot', tmp, BASE_PORT + 1));
    for (const s of servers) log(`${s.name} ready on 127.0.0.1:${s.port} (pid ${s.proc.pid}, RSS ${rssMb(s).toFixed(1)} MB)`);
    const each = async <T>(key: string, f: (s: Server) => Promise<T>) => {
      if (!ONLY.has(key)) return;
      for (const s of servers) {
        const t = performance.now();
        const r = await f(s);
        results[s.name]![key] = r;
        log(
          `${key} ${s.name} (${((performance.now() - t) / 1000).toFixed(1)} s): ${JSON.stringify(r, (k, v) => (k === 'probeMs' || k === 'ms' ? undefined : v))}`,
        );
      }
    };
    await each('any', anyQuery);
    await each('reflection', reflection);
    await each('cookie', cookieClient);
    await each('tcp', tcpDrip);
    await each('flood', randomFlood);
  } finally {
    await cleanup();
  }
  const seconds = (Date.now() - started.getTime()) / 1000;

  // Rows: test, tmkit, Knot, target, pass (tmkit)
  const rows: string[][] = [];
  const t = results.tmkit!;
  const k = results.Knot!;
  if (ONLY.has('reflection')) {
    const a = t.reflection as Reflection;
    const b = k.reflection as Reflection;
    const ratio = (r: Reflection) => r.bytesIn / r.bytesOut;
    const cell = (r: Reflection) =>
      `**${x(ratio(r))}** (${r.bytesIn.toLocaleString('en')} B for ${r.bytesOut.toLocaleString('en')} B): ${r.full} full, ${r.tc} TC, ${r.dropped} dropped${r.other ? `, ${r.other} other` : ''}`;
    rows.push([
      '2,000 identical `+DO` queries from one address in 1 s: bytes reflected / received',
      cell(a),
      cell(b),
      '< 1×, ≤ Knot + 50 %',
      ratio(a) < 1 && ratio(a) <= ratio(b) * 1.5 ? 'pass' : 'FAIL',
    ]);
    rows.push([
      'meanwhile a client in another /24: answered in full',
      `${a.neighbourFull}/${a.neighbourSent}`,
      `${b.neighbourFull}/${b.neighbourSent}`,
      'all',
      a.neighbourFull === a.neighbourSent ? 'pass' : 'FAIL',
    ]);
  }
  if (ONLY.has('cookie')) {
    const a = t.cookie as CookieRun;
    const b = k.cookie as CookieRun;
    const cell = (r: CookieRun) => `**${r.full}/${r.sent}** full (${r.tc} TC, ${r.badcookie} BADCOOKIE, ${r.other} other, ${r.lost} lost)`;
    rows.push([
      'a client returning the server cookie, 1,000 q/s for 1 s: full answers',
      cell(a),
      cell(b),
      'all',
      a.full === a.sent ? 'pass' : 'FAIL',
    ]);
  }
  if (ONLY.has('any')) {
    const a = t.any as AnyRun;
    const b = k.any as AnyRun;
    const cell = (r: AnyRun) =>
      `**${x(r.responseBytes / r.queryBytes, 1)}** (${r.responseBytes} B for ${r.queryBytes} B), ${r.rrsets.length} RRset (${r.rrsets.join(', ') || '-'}${r.tc ? ', TC' : ''})`;
    rows.push([
      'apex `ANY +DO` over UDP, EDNS 4096: response / query, RRsets',
      cell(a),
      cell(b),
      '< 10×, 1 RRset',
      a.responseBytes / a.queryBytes < 10 && a.rrsets.length === 1 ? 'pass' : 'FAIL',
    ]);
  }
  if (ONLY.has('tcp')) {
    const a = t.tcp as TcpRun;
    const b = k.tcp as TcpRun;
    const cell = (r: TcpRun) => {
      const errs = Object.entries(r.probeErrors).map(([e, n]) => `${n} ${e}`);
      return `**${r.within1s}/${r.probes}** (p50 ${ms(pct(r.probeMs, 50))}, max ${ms(Math.max(...r.probeMs))}; connect p50 ${ms(pct(r.connectMs, 50))}${errs.length ? `; ${errs.join(', ')}` : ''}); drippers connected at probes ${Math.min(...r.openAtProbes)}–${Math.max(...r.openAtProbes)}, ${r.closedByServer.toLocaleString('en')} closed by the server`;
    };
    rows.push([
      `new TCP client answered within 1 s while ${DRIP_CONNECTIONS.toLocaleString('en')} connections from ${DRIP_CONNECTIONS.toLocaleString('en')} addresses drip 1 byte / 2 s (${DRIP_SECONDS} probes, 1/s)`,
      cell(a),
      cell(b),
      '≥ 90 %',
      a.within1s >= 0.9 * a.probes ? 'pass' : 'FAIL',
    ]);
  }
  if (ONLY.has('flood')) {
    const a = t.flood as FloodRun;
    const b = k.flood as FloodRun;
    const n = (v: number) => v.toLocaleString('en');
    const sent = (r: FloodRun) =>
      `${n(Math.round(r.flood.sent / r.flood.elapsed))} q/s sent; answered ${n(r.flood.noerror + r.flood.nxdomain)} (${n(Math.round((r.flood.noerror + r.flood.nxdomain) / r.flood.elapsed))}/s), ${n(r.flood.tc)} TC, ${n(r.flood.sent - r.flood.responses)} not answered (${n(r.kernelDrops)} dropped by the kernel: receive buffer full); server ${Math.round(r.cpuShare * 100)} % of a CPU`;
    rows.push([
      `${FLOOD_SECONDS} s random-name \`+DO\` flood from ${n(FLOOD_SOCKETS)} /24s`,
      sent(a),
      sent(b),
      `${n(FLOOD_RATE)} q/s offered`,
      '',
    ]);
    const grow = (r: FloodRun) => r.rssMax - r.rssBefore;
    const mem = (r: FloodRun) =>
      `**+${grow(r).toFixed(1)} MB** (${r.rssBefore.toFixed(1)} → max ${r.rssMax.toFixed(1)}, ${r.rssAfter.toFixed(1)} MB after)`;
    rows.push([
      '… the server’s RSS growth (VmRSS, max during the flood − before)',
      mem(a),
      mem(b),
      '< 100 MB',
      grow(a) < 100 ? 'pass' : 'FAIL',
    ]);
    const probe = (r: FloodRun) =>
      `p99 **${ms(pct(r.ms, 99))}** (p50 ${ms(pct(r.ms, 50))}, max ${ms(Math.max(...r.ms))}), **${r.lost}/${r.probes} lost**; ${r.udpTimeouts} UDP timeouts, ${r.viaTcp} via TCP after TC, ${r.badcookie} BADCOOKIE`;
    rows.push([
      '… meanwhile normal queries (50 q/s, valid cookie, TCP on TC, one retry on a 1 s timeout)',
      probe(a),
      probe(b),
      'p99 < 50 ms, none lost',
      pct(a.ms, 99) < 50 && a.lost === 0 ? 'pass' : 'FAIL',
    ]);
  }
  const table = [
    '| test | tmkit | Knot 3.2 | target (tmkit) | tmkit |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
  process.stdout.write(
    `\nOn the public internet: tmkit beside Knot 3.2 (${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus().length} CPUs, ${knotVersion}, node ${process.version}; ${seconds.toFixed(0)} s)\n\n${table}\n`,
  );
}

void main().catch((e) => {
  log(String(e?.stack ?? e));
  process.exit(1); // a failed test may leave clients (the drippers reconnect) that would keep the loop alive
});
