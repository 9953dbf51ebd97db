/**
 * Signals through npx (issue 28 item 7), with real processes: `npm exec -- node bin.js serve` builds the same
 * tree as `npx tmkit serve` (npm → sh -c → node, with npm_command set) without installing anything. npm
 * passes a SIGTERM to the shell only, which dies without passing it on; tmkit follows npm's process
 * (src/cli/util/parent.ts), so the node process stops as on a direct SIGTERM: serve drains, removes its
 * tmkit.pid and frees its ports; `status --watch` ends. Every process is stopped by its own pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv } from '../support/process';
import { BIN } from './run';
import { freePort } from '../support/ports';
import { waitFor } from '../support/wait';

jest.setTimeout(120_000);

let dir: string;
const started: number[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-npx-signals-'));
});
afterAll(() => {
  // Whatever a failed test left running, by pid.
  for (const pid of started)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  rmSync(dir, { recursive: true, force: true });
});

/** The pids of every process below `root` (from /proc), with their command lines. */
function descendants(root: number): Array<{ pid: number; cmd: string }> {
  const parent = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      parent.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* exited meanwhile */
    }
  }
  const out: Array<{ pid: number; cmd: string }> = [];
  const visit = (p: number): void => {
    for (const [pid, pp] of parent) {
      if (pp !== p) continue;
      let cmd = '';
      try {
        cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      } catch {
        /* gone */
      }
      out.push({ pid, cmd });
      visit(pid);
    }
  };
  visit(root);
  return out;
}

/** Running (a zombie waiting to be reaped counts as gone). */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
};

/** `npm exec -- node bin.js ARGS` in `dir`, its output collected; resolves once `ready` matches stdout+stderr. */
async function npmExec(args: string[], ready: RegExp): Promise<{ npm: ChildProcess; node: number; output: () => string }> {
  const npm = spawn('npm', ['exec', '--offline', '--', 'node', BIN, ...args], {
    cwd: dir,
    env: cleanEnv({ npm_config_update_notifier: 'false' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(npm.pid!);
  let output = '';
  npm.stdout!.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  npm.stderr!.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  await waitFor(() => ready.test(output), { what: `${args[0]} to start under npm exec:\n${output}`, timeoutMs: 60_000, intervalMs: 100 });
  const tree = descendants(npm.pid!);
  const node = tree.find((p) => p.cmd.includes(BIN) && p.cmd.startsWith('node '));
  if (!node) throw new Error(`no node process under npm exec: ${JSON.stringify(tree)}`);
  started.push(node.pid);
  expect(tree.some((p) => /^(\/bin\/)?sh /.test(p.cmd))).toBe(true); // npm → sh → node, as under npx
  return { npm, node: node.pid, output: () => output };
}

test('kill of the npm exec parent stops `serve`: it drains, removes tmkit.pid and frees its API port', async () => {
  const state = join(dir, 'state');
  const api = await freePort();
  const { npm, node, output } = await npmExec(
    ['serve', '--state-dir', state, '--dns', '127.0.0.1:0', '--api', `127.0.0.1:${api}`],
    /UI {3}http:/,
  );
  expect(existsSync(join(state, 'tmkit.pid'))).toBe(true);
  npm.kill('SIGTERM');
  await waitFor(() => !alive(node), { what: 'the serve node process to exit after its npm parent', timeoutMs: 15_000, intervalMs: 100 });
  expect(output()).toContain('tmkit serve: stopped');
  expect(existsSync(join(state, 'tmkit.pid'))).toBe(false);
  // The port is free again.
  const again = createServer();
  await new Promise<void>((resolve, reject) => {
    again.once('error', reject);
    again.listen(api, '127.0.0.1', resolve);
  });
  await new Promise((r) => again.close(r));
});

test('kill of the npm exec parent stops `status --watch`', async () => {
  const port = await freePort();
  const { npm, node } = await npmExec(
    ['status', '--watch', '--interval', '0.2', '--server', `http://127.0.0.1:${port}`, '--token', 'x'.repeat(16)],
    /retrying every/,
  );
  npm.kill('SIGTERM');
  await waitFor(() => !alive(node), {
    what: 'the status --watch node process to exit after its npm parent',
    timeoutMs: 15_000,
    intervalMs: 100,
  });
});
