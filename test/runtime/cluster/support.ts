/**
 * Helpers for the cluster tests: real `tmkit serve --store etcd://…` nodes as processes (optionally inside a
 * network namespace), the real `dig` with its full output parsed, HTTP health servers on several loopback
 * addresses, and the management API over fetch.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BIN, REPO, cleanEnv } from '../../support/process';

export const TOKEN = 'cluster-test-token-0123456789abcdef';

export interface NodeProcess {
  name: string;
  child: ChildProcess;
  dns: { address: string; port: number };
  api: string;
  stateDir: string;
  out: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface NodeSpec {
  store: string;
  node: string;
  location?: string;
  stateDir: string;
  /** DNS/API listen host (default 127.0.0.1); port 0 unless given. */
  host?: string;
  leaseTtl?: number;
  /** Run inside this network namespace (`ip netns exec`). */
  netns?: string;
  extra?: string[];
  env?: NodeJS.ProcessEnv;
}

/** Starts a real `tmkit serve` node; resolves once it printed where it listens. */
export function startNode(s: NodeSpec): Promise<NodeProcess> {
  const host = s.host ?? '127.0.0.1';
  const args = [
    BIN,
    'serve',
    '--state-dir',
    s.stateDir,
    '--dns',
    `${host}:0`,
    '--api',
    `${host}:0`,
    '--log-level',
    'warn',
    '--store',
    s.store,
    '--node',
    s.node,
    '--location',
    s.location ?? s.node,
    '--lease-ttl',
    String(s.leaseTtl ?? 2),
    ...(s.extra ?? []),
  ];
  const cmd = s.netns ? 'ip' : process.execPath;
  const argv = s.netns ? ['netns', 'exec', s.netns, process.execPath, ...args] : args;
  const child = spawn(cmd, argv, { cwd: REPO, env: cleanEnv({ TMKIT_TOKEN: TOKEN, ...s.env }), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${s.node} did not start in 60 s:\n${out}`));
    }, 60_000);
    const onData = (): void => {
      const dns = /DNS {2}UDP\+TCP (\d+\.\d+\.\d+\.\d+):(\d+)/.exec(out);
      const api = /API {2}(http:\/\/\S+)/.exec(out);
      if (dns && api) {
        clearTimeout(t);
        child.stdout!.off('data', onData);
        resolve({
          name: s.node,
          child,
          dns: { address: dns[1]!, port: Number(dns[2]) },
          api: api[1]!,
          stateDir: s.stateDir,
          out: () => out,
          exited,
        });
      }
    };
    child.stdout!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(t);
      reject(new Error(`node ${s.node} exited (${code ?? signal}) before listening:\n${out}`));
    });
  });
}

/** SIGTERM (clean stop, lease revoked) or SIGKILL (a crash: the lease expires), and wait for the exit. */
export async function stopNode(n: NodeProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!n || n.child.exitCode !== null || n.child.signalCode !== null) return;
  n.child.kill(signal);
  await n.exited;
}

/** The management API with the shared token. */
export async function api(
  n: { api: string },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  timeoutMs = 15_000,
  // biome-ignore lint/suspicious/noExplicitAny: the parsed body of whatever route was called; each test reads the fields it asserts on
): Promise<{ status: number; body: any; headers: Headers; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${n.api}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* text */
  }
  return { status: res.status, body: parsed, headers: res.headers, ms: performance.now() - t0 };
}

export interface DigResult {
  status: string;
  answers: string[];
  authority: string[];
}

/** The real `dig`: its status and the answer/authority records (name, type, data; TTLs kept), sorted. */
export function digFull(server: { address: string; port: number }, name: string, type = 'A'): Promise<DigResult> {
  return new Promise((resolve, reject) => {
    execFile(
      'dig',
      [`@${server.address}`, '-p', String(server.port), name, type, '+time=2', '+tries=1', '+nocookie', '+norecurse'],
      { timeout: 10_000 },
      (err, stdout) => {
        if (err && !stdout) {
          reject(err);
          return;
        }
        const status = /status: ([A-Z]+)/.exec(stdout)?.[1];
        if (!status) {
          reject(new Error(`dig gave no answer: ${stdout}`));
          return;
        }
        const section = (title: string): string[] => {
          const m = new RegExp(`;; ${title} SECTION:\\n([\\s\\S]*?)(?:\\n\\n|$)`).exec(stdout);
          return m
            ? m[1]!
                .split('\n')
                .filter((l) => l.trim() !== '')
                .map((l) => l.split(/\s+/).join(' '))
                .sort()
            : [];
        };
        resolve({ status, answers: section('ANSWER'), authority: section('AUTHORITY') });
      },
    );
  });
}

/**
 * HTTP health servers answering `GET /healthz` with 200 on several loopback (or namespace) addresses that
 * share one port (a profile probes every endpoint on one port).
 */
export async function healthServers(hosts: string[]): Promise<{ port: number; hits: Map<string, number>; close: () => Promise<void> }> {
  const hits = new Map<string, number>(hosts.map((h) => [h, 0]));
  for (let attempt = 0; ; attempt++) {
    const made: Server[] = [];
    let port = 0;
    try {
      for (const host of hosts) {
        const srv = createServer((req, res) => {
          hits.set(host, (hits.get(host) ?? 0) + 1);
          res.writeHead(req.url === '/healthz' ? 200 : 404).end('ok');
          req.resume();
        });
        await new Promise<void>((resolve, reject) => {
          srv.once('error', reject);
          srv.listen(port, host, () => resolve());
        });
        made.push(srv);
        port = (srv.address() as AddressInfo).port;
      }
      return {
        port,
        hits,
        close: async () => {
          await Promise.all(
            made.map(
              (s) =>
                new Promise<void>((r) => {
                  s.closeAllConnections();
                  s.close(() => r());
                }),
            ),
          );
        },
      };
    } catch (err) {
      await Promise.all(made.map((s) => new Promise<void>((r) => s.close(() => r()))));
      if (attempt > 10) throw err;
    }
  }
}

/** `ip …` as root; rejects with its stderr. */
export function ip(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('ip', args, (err, stdout, stderr) =>
      err ? reject(new Error(`ip ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
    );
  });
}
