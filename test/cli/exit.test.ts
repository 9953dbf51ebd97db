/**
 * The executable's end (src/cli/main.ts exitWhenDone): a finished command exits with its code at once when
 * nothing is left open, and within the grace period when a stray handle would keep it alive, saying so.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const MAIN = join(__dirname, '../../src/cli/main');

function runScript(body: string): Promise<{ code: number | null; stderr: string; ms: number }> {
  const t0 = Date.now();
  const script = `const { exitWhenDone } = require(${JSON.stringify(MAIN)});\n${body}`;
  const child = spawn(process.execPath, ['-r', '@swc-node/register', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  return new Promise((r) => child.once('exit', (code) => r({ code, stderr, ms: Date.now() - t0 })));
}

test('nothing left open: the code, no message', async () => {
  const r = await runScript('exitWhenDone(3);');
  expect(r.code).toBe(3);
  expect(r.stderr).toBe('');
}, 30_000);

test('a handle left open (a listening socket): exits with the code after the grace period, and says why', async () => {
  const r = await runScript("require('node:net').createServer().listen(0, '127.0.0.1', () => exitWhenDone(4));");
  expect(r.code).toBe(4);
  expect(r.stderr).toBe('tmkit: still running 5 s after the command ended (a handle was left open); exiting with 4\n');
  expect(r.ms).toBeGreaterThanOrEqual(5_000);
}, 30_000);
