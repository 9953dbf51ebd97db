/** Spawns a plugin the way the engine does and times spawn → the first stdout line (its port). */
import { spawn } from 'node:child_process';

export interface Spawned {
  ms: number;
  port: number;
  firstLine: string;
  stdout: string;
  stderr: string;
}

/** Resolves with the time to the first stdout line; the process is killed (by its pid) right after. */
export function spawnToPort(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; keep?: false } = {},
): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let done = false;
    const timer = setTimeout(() => finish(new Error(`no port line within 30 s from ${cmd}\nstdout: ${stdout}\nstderr: ${stderr}`)), 30_000);
    const finish = (err?: Error, ms?: number): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      child.once('close', () => {
        if (err) return reject(err);
        const firstLine = stdout.split('\n')[0]!;
        resolve({ ms: ms!, port: Number(firstLine), firstLine, stdout, stderr });
      });
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (stdout.includes('\n')) finish(undefined, Number(process.hrtime.bigint() - t0) / 1e6);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', (e) => finish(e));
    child.on('exit', (code) => {
      if (!stdout.includes('\n')) finish(new Error(`${cmd} exited (${code}) before printing its port\nstderr: ${stderr}`));
    });
  });
}
