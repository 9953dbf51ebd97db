/**
 * A closed pipe ends every command quietly (issue 40 item 6: `tmkit audit | head -1` printed an unhandled
 * EPIPE stack trace and exited 1): the real `tmkit` with its stdout a pipe whose reader is already gone,
 * for every command's help, for commands that talk to a real server, for a watch that runs until stopped,
 * and through a real shell pipeline into `head -1`.
 */
import { spawn } from 'node:child_process';
import { buildProgram } from '../../src/cli/main';
import { BIN, cleanEnv, spawnServe, type ServeProcess } from '../support/process';
import { tempDirs } from '../support/tmp';

const tmp = tempDirs('tmkit-epipe-');

/** Runs tmkit with stdout closed on our side before it writes: its exit code and stderr. */
function closedStdout(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 20_000): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.destroy();
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stderr });
    });
  });
}

/** Every command the CLI has, as argv prefixes (`['endpoint', 'disable']`), from the program itself. */
function leafCommands(): string[][] {
  const out: string[][] = [];
  const walk = (cmd: ReturnType<typeof buildProgram>, path: string[]): void => {
    if (cmd.commands.length === 0) out.push(path);
    for (const c of cmd.commands) walk(c as ReturnType<typeof buildProgram>, [...path, c.name()]);
  };
  walk(buildProgram(), []);
  return out;
}

test('every command and subcommand: --help into a closed pipe exits 0 with nothing on stderr', async () => {
  const commands = leafCommands();
  expect(commands.length).toBeGreaterThan(30);
  const results = [];
  // A few at a time: each is a Node process start.
  for (let i = 0; i < commands.length; i += 6) {
    results.push(
      ...(await Promise.all(
        commands.slice(i, i + 6).map(async (c) => ({ command: c.join(' '), ...(await closedStdout([...c, '--help'])) })),
      )),
    );
  }
  expect(results.filter((r) => r.code !== 0 || r.stderr !== '')).toEqual([]);
  expect(await closedStdout(['--version'])).toEqual({ code: 0, stderr: '' });
}, 240_000);

describe('against a real server', () => {
  let proc: ServeProcess;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const state = tmp();
    proc = await spawnServe(state);
    env = { TMKIT_SERVER: proc.api, TMKIT_STATE_DIR: state };
  }, 120_000);
  afterAll(async () => {
    proc.child.kill('SIGTERM');
    await proc.closed;
  });

  test('audit, list and status into a closed pipe exit 0 quietly; status --watch ends instead of running on', async () => {
    for (const args of [['audit'], ['list'], ['status'], ['status', '--watch']]) {
      expect({ args, ...(await closedStdout(args, env, 15_000)) }).toEqual({ args, code: 0, stderr: '' });
    }
  }, 90_000);

  test('in a shell pipeline whose reader is gone before tmkit writes (`tmkit audit | true`, with pipefail): exit 0, no stack trace', async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${BIN}" audit | true`], {
        env: cleanEnv(env),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
      });
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(r).toEqual({ code: 0, stderr: '' });
  }, 30_000);
});
