/**
 * The DNSSEC flags of `tmkit serve` and `tmkit dns` refuse bad values before anything starts (exit 2,
 * naming the flag), and `tmkit dns --dnssec --dnssec-key-file` makes the key file (mode 0600) and reuses it.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { BIN, REPO, cleanEnv, runTmkit } from '../../support/process';
import { tempDirs } from '../../support/tmp';

const tempDir = tempDirs('tmkit-dnssec-cli-');

test.each([
  [['serve', '--dnssec', '--dnssec-algorithm', '8'], /--dnssec-algorithm 8: 13 \(ECDSAP256SHA256\) or 15 \(ED25519\)/],
  [['serve', '--dnssec', '--dnssec-keys', 'zsk'], /--dnssec-keys zsk: csk \(one combined signing key\) or split \(a KSK and a ZSK\)/],
  [['serve', '--dnssec-algorithm', '15'], /--dnssec-algorithm and --dnssec-keys need --dnssec/],
  [['dns', '--document', 'examples/basic/tmkit.out.json', '--dnssec-key-file', 'k.json'], /--dnssec-key-file needs --dnssec/],
])('tmkit %j is refused with exit 2', async (args, message) => {
  const dir = tempDir();
  const r = await runTmkit([...args, ...(args[0] === 'serve' ? ['--state-dir', dir] : [])]);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(message) });
});

/** Starts `tmkit dns` until its banner, then stops it with SIGTERM; returns the banner. */
function dnsBanner(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'dns', '--document', 'examples/basic/tmkit.out.json', '--listen', '127.0.0.1:0', ...args], {
      cwd: REPO,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no banner: ${out}`));
    }, 30_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (/DS for the parent: .*\n/.test(out)) child.kill('SIGTERM');
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

test('tmkit dns --dnssec --dnssec-key-file: the file is made once (mode 0600) and signs again on the next start', async () => {
  const file = join(tempDir(), 'keys.json');
  const first = await dnsBanner(['--dnssec', '--dnssec-key-file', file]);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const ds = /DS for the parent: (tm\.internal\. IN DS \d+ 13 2 [0-9A-F]{64})/.exec(first)?.[1];
  expect(ds).toBeDefined();
  const again = await dnsBanner(['--dnssec', '--dnssec-key-file', file]);
  expect(again).toContain(ds);
  writeFileSync(file, 'nonsense');
  const bad = await runTmkit([
    'dns',
    '--document',
    'examples/basic/tmkit.out.json',
    '--listen',
    '127.0.0.1:0',
    '--dnssec',
    '--dnssec-key-file',
    file,
  ]);
  expect({ code: bad.code, stderr: bad.stderr }).toEqual({
    code: 1,
    stderr: expect.stringMatching(/keys\.json: the DNSSEC key file is not JSON/),
  });
});
