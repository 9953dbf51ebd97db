/**
 * For the tests that run tmkit as another user on port 53 (test/cli/serve-user.test.ts,
 * test/deploy/systemd.test.ts): a network namespace of their own (its own port 53, its own loopback), the
 * processes started in it, and what /proc says of them. They need root, `ip` (iproute2), `setpriv`
 * (util-linux) and `dig`: without them they fail, saying which is missing, never skip.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Throws, naming what is missing, unless this is root with every command given. */
export function requireRootWith(commands: string[]): void {
  if (process.getuid?.() !== 0)
    throw new Error('these tests bind port 53 and switch users: run them as root (CI does); they are never skipped');
  const missing = commands.filter((c) => {
    try {
      execFileSync('sh', ['-c', `command -v ${c}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0)
    throw new Error(`these tests need ${missing.join(', ')} on PATH (Debian: iproute2, util-linux, bind9-dnsutils, systemd)`);
}

/** A network namespace with its loopback up; `remove()` deletes it. */
export interface NetNs {
  name: string;
  /** argv prefix that runs a command inside it. */
  exec(argv: string[]): string[];
  remove(): void;
}

let made = 0;

export function netns(tag: string): NetNs {
  const name = `tmkit-${tag}-${process.pid}-${++made}`;
  execFileSync('ip', ['netns', 'add', name]);
  execFileSync('ip', ['netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up']);
  return {
    name,
    exec: (argv) => ['ip', 'netns', 'exec', name, ...argv],
    remove: () => {
      try {
        execFileSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
      } catch {
        // Already gone.
      }
    },
  };
}

/** A process started by argv (its pid is the last program's: `ip netns exec` and `setpriv` exec in place). */
export interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function start(argv: string[], o: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Started {
  const child = spawn(argv[0]!, argv.slice(1), { env: o.env ?? process.env, cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('close', (code, signal) => r({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs argv to its end. */
export async function run(
  argv: string[],
  o: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const s = start(argv, o);
  const { code } = await s.exited;
  return { code, stdout: s.stdout(), stderr: s.stderr() };
}

/** `dig @server -p port name type +short` inside the namespace: the answer lines. */
export async function digIn(ns: NetNs, server: string, port: number, name: string, type = 'A', extra: string[] = []): Promise<string[]> {
  const r = await run(ns.exec(['dig', `@${server}`, '-p', String(port), name, type, '+short', '+time=2', '+tries=2', ...extra]));
  return r.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith(';'));
}

/** /proc/PID/status as fields (`Uid` → `65534\t65534\t65534\t65534`). */
export function procStatus(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1).trim();
  }
  return out;
}

/** The real, effective, saved and filesystem ids of `Uid:`/`Gid:` as numbers. */
export function ids(field: string): number[] {
  return field.split(/\s+/).map(Number);
}

/** The pids whose parent is `pid` (DNS worker processes of a `tmkit serve`). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (procStatus(Number(d)).PPid === String(pid)) out.push(Number(d));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/** `getent passwd NAME` → uid and gid, or undefined. */
export function userIds(name: string): { uid: number; gid: number } | undefined {
  try {
    const f = execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).trim().split(':');
    return { uid: Number(f[2]), gid: Number(f[3]) };
  } catch {
    return undefined;
  }
}

/**
 * A Node binary that nobody may run: this one, unless a directory above it is closed to others (CI's Node 24
 * pass runs a binary cached under /root), then a copy in a temp dir open to all. Only the tests that start as
 * nobody need it; a root start drops to nobody after Node is running.
 */
export function nodeForOthers(tempDir: string): string {
  const closed = (dir: string): boolean => (statSync(dir).mode & 0o001) === 0;
  let dir = dirname(process.execPath);
  let open = (statSync(process.execPath).mode & 0o001) !== 0;
  while (open && dir !== dirname(dir)) {
    if (closed(dir)) open = false;
    dir = dirname(dir);
  }
  if (open) return process.execPath;
  const base = tempDir;
  chmodSync(base, 0o755);
  const copy = join(base, 'node');
  copyFileSync(process.execPath, copy);
  chmodSync(copy, 0o755);
  return copy;
}
