import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dig, REPO, runTmkit, spawnServe, type ServeProcess } from '../support/process';

/**
 * `tmkit serve --apply FILE` as a real process: the document is planned and applied at start (the README's
 * one-command quick start), DNS answers for it as soon as the listen banner is printed, a restart with the
 * same document changes nothing, and an invalid document stops the runtime with exit 1.
 */
const BASIC = join(REPO, 'examples/basic/tmkit.out.json');
let dir: string;
let proc: ServeProcess | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-serve-apply-'));
});
afterEach(async () => {
  if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
  proc = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function stop(p: ServeProcess): Promise<void> {
  p.child.kill('SIGTERM');
  expect(await p.exited).toEqual({ code: 0, signal: null });
}

test('examples/basic is deployed at start and answers on DNS; a restart with --apply again changes nothing', async () => {
  const state = join(dir, 'state');
  proc = await spawnServe(state, ['--apply', BASIC]);
  expect(proc.stdout()).toContain('[1/1] PUT web (create) ... ok');
  expect(proc.stdout()).toContain('Apply complete: 1 added, 0 changed, 0 replaced, 0 destroyed');
  expect(proc.stdout()).toContain('1 profile,');
  // examples/basic: Priority, primary 127.0.0.1 (priority 1). Whatever the probes decide, priority 1 answers
  // (Online, CheckingEndpoint, or all Degraded → answered as if Online).
  expect(await dig(proc.dns, 'web.tm.internal')).toEqual(['127.0.0.1']);
  await stop(proc);

  proc = await spawnServe(state, ['--apply', BASIC]);
  expect(proc.stdout()).toContain('No changes.');
  expect(proc.stdout()).not.toContain('[1/1]');
  expect(await dig(proc.dns, 'web.tm.internal')).toEqual(['127.0.0.1']);
  await stop(proc);
}, 180_000);

test('--apply deletes what left the document of its stack on restart', async () => {
  const state = join(dir, 'state');
  const doc = (names: string[]) =>
    JSON.stringify({
      apiVersion: 'tmkit/v1',
      stack: 'demo',
      profiles: names.map((name, i) => ({
        name,
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: name, ttl: 30 },
        monitorConfig: { protocol: 'HTTP', port: 80, path: '/' },
        endpoints: [{ name: 'only', type: 'externalEndpoints', target: `192.0.2.${i + 1}` }],
      })),
    });
  writeFileSync(join(dir, 'two.json'), doc(['one', 'two']));
  writeFileSync(join(dir, 'one.json'), doc(['one']));
  proc = await spawnServe(state, ['--apply', join(dir, 'two.json')]);
  expect(await dig(proc.dns, 'two.tm.internal')).toEqual(['192.0.2.2']);
  await stop(proc);
  proc = await spawnServe(state, ['--apply', join(dir, 'one.json')]);
  expect(proc.stdout()).toContain('[1/1] DELETE two (delete) ... ok');
  expect(await dig(proc.dns, 'two.tm.internal')).toEqual([]);
  expect(await dig(proc.dns, 'one.tm.internal')).toEqual(['192.0.2.1']);
  await stop(proc);
}, 180_000);

test.each([
  [
    'an invalid document',
    {
      apiVersion: 'tmkit/v1',
      profiles: [
        {
          name: 'x',
          trafficRoutingMethod: 'Weighted',
          dnsConfig: { relativeName: 'x' },
          monitorConfig: { protocol: 'HTTP', port: 80 },
          endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', weight: 5000 }],
        },
      ],
    },
    /WEIGHT_RANGE[\s\S]*serve --apply: .*not a valid document.*; nothing was started or created\n$/,
  ],
  ['a file that is not JSON', 'not json', /--apply document .* is not valid JSON/],
  ['a plan file that is not one', { kind: 'tmkit-plan', version: 99 }, /serve --apply: .*; nothing was started or created\n$/],
])(
  '%s: serve --apply exits 1 with the reason before it creates the state dir, the database or the token',
  async (_n, content, message) => {
    const file = join(dir, 'doc.json');
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    const state = join(dir, 'never-created');
    const r = await runTmkit([
      'serve',
      '--state-dir',
      state,
      '--dns',
      '127.0.0.1:0',
      '--api',
      '127.0.0.1:0',
      '--log-level',
      'warn',
      '--apply',
      file,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).not.toContain('DNS  UDP+TCP');
    expect(existsSync(state)).toBe(false);
  },
  120_000,
);
