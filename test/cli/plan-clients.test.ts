/**
 * `tmkit plan --clients` (issue 40 item 7): plan's help documented `--geoip` "for the preview's --clients
 * addresses", an option only `preview` had. Plan's routing preview is the same engine as preview's, so it
 * takes `--clients` too: each address gets a `clients:` line per profile, before and after; not an IP, or
 * together with `--no-preview`, is a usage error.
 */
import { join } from 'node:path';
import { oneLine, REPO, tmkit } from './run';

const SAMPLE = join(REPO, 'examples/github-actions/sample');
const MAIN = join(SAMPLE, 'main.tmkit.out.json');
const PR = join(SAMPLE, 'pr.tmkit.out.json');

test('plan --clients shows where each address goes, as preview does', async () => {
  const r = await tmkit(['plan', PR, '--deployed', MAIN, '--clients', '192.0.2.1', '--clients', '81.2.69.142']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  // contoso-api is created: its clients' answers after the change.
  expect(r.stdout).toContain('      clients: japaneast (1 client: 192.0.2.1)\n');
  expect(r.stdout).toContain('      clients: westeurope (1 client: 81.2.69.142)\n');
  expect(r.stdout).toContain('Plan: 1 to add, 2 to change, 1 to replace, 1 to destroy.');
  const preview = await tmkit(['preview', PR, '--deployed', MAIN, '--clients', '192.0.2.1,81.2.69.142']);
  for (const line of r.stdout.split('\n').filter((l) => l.startsWith('      clients: '))) expect(preview.stdout).toContain(`${line}\n`);
  // JSON: the same clients in the plan's preview.
  const json = await tmkit(['plan', PR, '--deployed', MAIN, '--clients', '192.0.2.1', '--format', 'json']);
  expect(json.code).toBe(0);
  expect(JSON.stringify(JSON.parse(json.stdout).preview)).toContain('192.0.2.1');
});

test('plan --help: --clients is there, and --geoip is for its addresses', async () => {
  const r = await tmkit(['plan', '--help']);
  const help = r.stdout.replace(/\s+/g, ' '); // commander wraps the help at the terminal width
  expect(help).toContain('--clients <ip,...> routing preview: also show the answer for these client addresses (repeatable)');
  expect(help).toContain("--geoip <file.mmdb> MaxMind-format database for the preview's --clients addresses");
});

test.each([
  [['--clients', 'example.com'], 'tmkit: --clients: not an IP address: example.com'],
  [
    ['--clients', '192.0.2.1', '--no-preview'],
    'tmkit: --clients adds addresses to the routing preview, which --no-preview turns off: drop one of them',
  ],
])('plan %j is a usage error', async (args, line) => {
  const r = await tmkit(['plan', PR, '--deployed', MAIN, ...args]);
  expect(oneLine(r.stderr)).toBe(line);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
});
