/** Runs a command in the package tests (npm, node, tsc) with a clean environment, its output collected. */
import { spawn } from 'node:child_process';
import { cleanEnv } from '../support/process';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `cmd args` in `cwd`; killed (SIGKILL) after `timeoutMs`. `env` is added to a clean environment. */
export function run(cmd: string, args: string[], cwd: string, timeoutMs = 120_000, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: cleanEnv({ npm_config_update_notifier: 'false', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', (err) => {
      clearTimeout(t);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}
