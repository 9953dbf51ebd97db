/** Runs the real `tmkit` command (dist/src/cli/bin.js, built by `npm test`'s pretest) as a process. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const REPO = join(__dirname, '../..');
export const BIN = join(REPO, 'dist/src/cli/bin.js');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when `timeoutMs` passed and the process was killed (SIGKILL). */
  timedOut?: boolean;
}

/**
 * `env` is added to `baseEnv` (default: this process's environment). `timeoutMs`: kill the process (SIGKILL)
 * when it runs longer, and resolve with `timedOut: true` (for commands that must exit on their own).
 */
export function tmkit(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; baseEnv?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? REPO,
      env: { ...(opts.baseEnv ?? process.env), ...opts.env },
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    let timedOut = false;
    const timer =
      opts.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, opts.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr, ...(timedOut ? { timedOut } : {}) });
    });
  });
}

/** The one line a failing command prints on stderr (`tmkit: ...`); fails the test when there is more or less. */
export function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^tmkit: /);
  return lines[0]!;
}
