/**
 * `--server` and `TMKIT_SERVER` (issue 28 item 2): tmkit does not guess a scheme, not even for loopback. A
 * value without `http://`/`https://`, with another scheme or with a port outside 1-65535 is a usage error:
 * one line naming where it came from and, for `host:port`, the URL to write; exit 2, nothing sent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { oneLine, tmkit } from './run';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-server-url-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const noServerEnv = { TMKIT_SERVER: '', TMKIT_TOKEN: '', TMKIT_STATE_DIR: '' };

describe('--server and TMKIT_SERVER: a URL with a scheme and a port 1-65535, else one line and exit 2', () => {
  const commands = [['status'], ['list'], ['plan', 'doc.json'], ['apply', 'doc.json', '--yes'], ['destroy', '--yes']];
  beforeAll(() => writeFileSync(join(dir, 'doc.json'), JSON.stringify({ apiVersion: 'tmkit/v1', profiles: [] })));

  test.each(commands)('%s --server 127.0.0.1:5380 says which URL to write, and sends nothing', async (...args) => {
    const r = await tmkit([...args, '--server', '127.0.0.1:5380', '--token', 'x'.repeat(16)], { cwd: dir, env: noServerEnv });
    expect(oneLine(r.stderr)).toBe('tmkit: --server 127.0.0.1:5380: not a URL; write http://127.0.0.1:5380');
    expect(r.code).toBe(2);
  });

  test.each([
    ['localhost:5380', 'tmkit: --server localhost:5380: not a URL; write http://localhost:5380'],
    ['[::1]:5380', 'tmkit: --server [::1]:5380: not a URL; write http://[::1]:5380'],
    ['http://127.0.0.1:99999', 'tmkit: --server http://127.0.0.1:99999: port 99999 is not a number from 1 to 65535'],
    ['http://127.0.0.1:0', 'tmkit: --server http://127.0.0.1:0: port 0 is not a number from 1 to 65535'],
    ['ftp://127.0.0.1:21', 'tmkit: --server ftp://127.0.0.1:21: the scheme must be http:// or https://, not ftp://'],
  ])('--server %s', async (server, line) => {
    const r = await tmkit(['status', '--server', server], { cwd: dir, env: noServerEnv });
    expect(oneLine(r.stderr)).toBe(line);
    expect(r.code).toBe(2);
  });

  test('TMKIT_SERVER is named as such', async () => {
    const r = await tmkit(['list'], { cwd: dir, env: { ...noServerEnv, TMKIT_SERVER: '127.0.0.1:5380' } });
    expect(oneLine(r.stderr)).toBe('tmkit: TMKIT_SERVER=127.0.0.1:5380: not a URL; write http://127.0.0.1:5380');
    expect(r.code).toBe(2);
  });
});
