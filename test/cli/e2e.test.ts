import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { healthServerPair } from '../support/loopback';
import { waitFor } from '../support/wait';
import { dig, runTmkit, spawnServe, type ServeProcess } from '../support/process';

/**
 * The user's path, all real processes: `tmkit serve`, `tmkit apply`, `dig`, a real HTTP health endpoint
 * on 127.0.0.x. Stopping the primary's health server moves the answer to the backup within one probe
 * interval (10 s, toleratedNumberOfFailures 0).
 */
jest.setTimeout(120_000);

let dir: string;
let serve: ServeProcess | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-e2e-'));
});
afterAll(async () => {
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGKILL');
    await serve.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

test('serve, apply, dig; stop the primary health server; dig answers the backup; SIGTERM exits 0', async () => {
  const [primary, backup] = await healthServerPair('127.0.0.5', '127.0.0.6');
  try {
    const doc = {
      apiVersion: 'tmkit/v1',
      stack: 'e2e',
      profiles: [
        {
          name: 'web',
          trafficRoutingMethod: 'Priority',
          dnsConfig: { relativeName: 'web', ttl: 5 },
          monitorConfig: {
            protocol: 'HTTP',
            port: primary.port,
            path: '/healthz',
            intervalInSeconds: 10,
            timeoutInSeconds: 5,
            toleratedNumberOfFailures: 0,
          },
          endpoints: [
            { name: 'primary', type: 'externalEndpoints', target: '127.0.0.5' },
            { name: 'backup', type: 'externalEndpoints', target: '127.0.0.6' },
          ],
        },
      ],
    };
    const file = join(dir, 'tmkit.out.json');
    writeFileSync(file, JSON.stringify(doc));
    // State in <dir>/.tmkit: the CLI run from <dir> finds the token there without TMKIT_TOKEN.
    serve = await spawnServe(join(dir, '.tmkit'), ['--zone', 'tm.internal'], {}, dir);
    expect(serve.stdout()).toContain('token in .tmkit/token (mode 0600, generated now)');
    expect(statSync(join(dir, '.tmkit/token')).mode & 0o777).toBe(0o600);
    const env = { TMKIT_SERVER: serve.api };

    expect(await dig(serve.dns, 'web.tm.internal')).toEqual([]);
    const applied = await runTmkit(['apply', file, '--yes'], { cwd: dir, env });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('[1/1] PUT web (create) ... ok');
    expect(await dig(serve.dns, 'web.tm.internal')).toEqual(['127.0.0.5']);

    await waitFor(
      async () => {
        const s = await runTmkit(['status', 'web', '--format', 'json'], { cwd: dir, env });
        return s.code === 0 && JSON.parse(s.stdout).profileMonitorStatus === 'Online';
      },
      { what: 'web Online', timeoutMs: 60_000, intervalMs: 200 },
    );

    await primary.close();
    const answer = await waitFor(
      async () => {
        const a = await dig(serve!.dns, 'web.tm.internal');
        return a[0] === '127.0.0.6' ? a : undefined;
      },
      { what: 'dig to answer the backup', timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(answer).toEqual(['127.0.0.6']);

    const status = await runTmkit(['status', 'web'], { cwd: dir, env });
    expect(status.stdout).toMatch(/primary\s+Degraded/);
    expect(status.stdout).toMatch(/primary: Online → Degraded/);
    const resolved = await runTmkit(['resolve', 'web.tm.internal'], { cwd: dir, env });
    expect(resolved.stdout).toContain('web.tm.internal. 5 IN A 127.0.0.6');

    // Re-applying the same document changes nothing.
    const again = await runTmkit(['apply', file, '--yes'], { cwd: dir, env });
    expect(again.stdout).toContain('No changes.');

    serve.child.kill('SIGTERM');
    expect(await serve.exited).toEqual({ code: 0, signal: null });
    expect(serve.stdout()).toContain('tmkit serve: stopped');
  } finally {
    await primary.close();
    await backup.close();
  }
});

test('a client without the token gets 401 and a message that says where the token is', async () => {
  const s = await spawnServe(join(dir, 'other'));
  try {
    const r = await runTmkit(['status', '--server', s.api, '--token', 'wrong'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('HTTP 401');
    expect(r.stderr).toContain('<state-dir>/token');
  } finally {
    s.child.kill('SIGTERM');
    await s.exited;
  }
});

test('--workers 2: DNS workers answer every committed change; SIGTERM stops them all', async () => {
  const stateDir = join(dir, 'workers');
  const s = await spawnServe(stateDir, ['--workers', '2']);
  try {
    // A socket each where Node has reusePort (>= 22.12), one shared socket before (test/runtime/dns/reuse-port.test.ts).
    expect(s.stdout()).toMatch(/\(2 worker processes(, a socket each)?\)/);
    const env = { TMKIT_SERVER: s.api, TMKIT_TOKEN: readFileSync(join(stateDir, 'token'), 'utf8').trim() };
    for (const ip of ['192.0.2.31', '192.0.2.32']) {
      const file = join(dir, `w-${ip}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: 'tmkit/v1',
          profiles: [
            {
              name: 'w',
              trafficRoutingMethod: 'Priority',
              dnsConfig: { relativeName: 'w', ttl: 5 },
              endpoints: [{ name: 'a', type: 'externalEndpoints', target: ip, alwaysServe: 'Enabled' }],
            },
          ],
        }),
      );
      const r = await runTmkit(['apply', file, '--yes'], { env });
      expect(r.code).toBe(0);
      // Every worker must have the change: several queries in a row all answer the new address.
      await waitFor(
        async () => {
          const answers = await Promise.all(Array.from({ length: 8 }, () => dig(s.dns, 'w.tm.internal')));
          return answers.every((a) => a[0] === ip);
        },
        { what: `all workers to answer ${ip}`, timeoutMs: 30_000, intervalMs: 50 },
      );
    }
  } finally {
    s.child.kill('SIGTERM');
    expect(await s.exited).toEqual({ code: 0, signal: null });
  }
  // The workers are gone with the primary: the port answers no more.
  expect(await dig(s.dns, 'w.tm.internal')).toEqual([]);
});
