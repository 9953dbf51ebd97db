import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, REPO, tmkit, type RunResult } from '../cli/run';

export { BIN, REPO };

export interface ServeProcess {
  child: ChildProcess;
  dns: { address: string; port: number };
  api: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once the process exited and its stdout/stderr are read to the end (`stdout()` is complete). */
  closed: Promise<void>;
}

/**
 * Clean environment for child processes: no TMKIT_* from the developer's shell, except TMKIT_SQLITE_DRIVER,
 * which is the test run's choice (the children must use the same SQLite driver as the tests that read
 * their files).
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TMKIT_') || k === 'TMKIT_SQLITE_DRIVER') env[k] = v;
  return { ...env, ...extra };
}

/**
 * Starts the real `tmkit serve` (dist/src/cli/bin.js, built by `npm test`'s pretest) on free ports
 * and resolves once it printed where it listens. `node`: the Node binary (default: the one running the tests).
 */
export function spawnServe(
  stateDir: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  cwd = REPO,
  node = process.execPath,
): Promise<ServeProcess> {
  const child = spawn(
    node,
    [BIN, 'serve', '--state-dir', stateDir, '--dns', '127.0.0.1:0', '--api', '127.0.0.1:0', '--log-level', 'warn', ...args],
    {
      cwd,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  const closed = new Promise<void>((r) => child.on('close', () => r()));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tmkit serve did not start in 90 s:\n${out}\n${err}`));
    }, 90_000);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const dns = /DNS {2}UDP\+TCP (\d+\.\d+\.\d+\.\d+):(\d+)/.exec(out);
      const api = /API {2}(http:\/\/\S+)/.exec(out);
      if (dns && api) {
        clearTimeout(t);
        resolve({
          child,
          dns: { address: dns[1]!, port: Number(dns[2]) },
          api: api[1]!,
          stdout: () => out,
          stderr: () => err,
          exited,
          closed,
        });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(t);
      reject(new Error(`tmkit serve exited (${code ?? signal}) before listening:\n${out}\n${err}`));
    });
  });
}

/** Runs a `tmkit` command to completion, without the caller's TMKIT_* variables. */
export function runTmkit(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<RunResult> {
  return tmkit(args, {
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    baseEnv: cleanEnv(opts.env),
  });
}

/** Runs the real `dig` and returns its `+short` output lines. */
export function dig(server: { address: string; port: number }, name: string, type = 'A'): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('dig', [`@${server.address}`, '-p', String(server.port), name, type, '+short', '+time=2', '+tries=1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', () =>
      resolve(
        out
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '' && !l.startsWith(';')),
      ),
    );
  });
}
