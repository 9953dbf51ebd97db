/**
 * The day-2 CLI against a real runtime (issue 16): `status` (one line per profile, detail with a name,
 * `--watch`), the token lookup's message, `list`, `get --output arm` read back by `import`, `endpoint
 * disable|enable`, `destroy`. Every command runs as the real `tmkit` process.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import type { ProfileStatusReport } from '../../src/client';
import { healthServerPair } from '../support/loopback';
import { waitFor } from '../support/wait';
import { BIN, cleanEnv, runTmkit } from '../support/process';
import { loopbackProfile, startDay2Server, type Day2Server } from './day2-server';

jest.setTimeout(90_000);

let s: Day2Server;
let health: Awaited<ReturnType<typeof healthServerPair>>;
beforeEach(async () => {
  s = await startDay2Server('tmkit-day2-');
  health = await healthServerPair('127.0.0.41', '127.0.0.42');
});
afterEach(async () => {
  await s.close();
  for (const h of health) await h.close();
});

/** `tmkit ARGS` with the server and its state dir (so the token file is found), from `cwd` (default: the temp dir). */
const cli = (args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  runTmkit(args, { cwd: opts.cwd ?? s.dir, env: { TMKIT_SERVER: s.api, ...opts.env } });

async function deploy(stack: string, profiles: ReturnType<typeof loopbackProfile>[]): Promise<void> {
  for (const p of profiles) await s.client.putProfile(p, { stack });
  await s.engine.settle();
}

const port = (): number => health[0].port;
const online = (name: string) =>
  waitFor(async () => (await s.client.status(name)).endpoints.every((e) => e.endpointMonitorStatus === 'Online'), {
    what: `${name} Online`,
    timeoutMs: 30_000,
    intervalMs: 50,
  });

describe('token lookup (issue 16 item 7)', () => {
  test('from another directory: "token file not found at …; pass --token or --state-dir", and --state-dir or TMKIT_STATE_DIR finds it', async () => {
    const elsewhere = join(s.dir, 'elsewhere');
    mkdirSync(elsewhere);
    const r = await cli(['status'], { cwd: elsewhere });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `tmkit: token file not found at ${join(elsewhere, '.tmkit/token')}; pass --token or --state-dir (the --state-dir of \`tmkit serve\`), or set TMKIT_TOKEN\n`,
    );
    expect((await cli(['status', '--state-dir', s.stateDir], { cwd: elsewhere })).code).toBe(0);
    expect((await cli(['list'], { cwd: elsewhere, env: { TMKIT_STATE_DIR: s.stateDir } })).code).toBe(0);
    // From the directory that holds .tmkit, the default finds it.
    expect((await cli(['status'])).code).toBe(0);
    // Plan-like commands say the same (once their document is read: a missing file is reported first).
    const plan = await cli(['plan', join(__dirname, '../../examples/basic/tmkit.out.json')], { cwd: elsewhere });
    expect(plan.stderr).toContain('token file not found at');
    mkdirSync(join(elsewhere, '.tmkit'));
    writeFileSync(join(elsewhere, '.tmkit/token'), '\n');
    expect((await cli(['list'], { cwd: elsewhere })).stderr).toMatch(
      /^tmkit: token file .*elsewhere\/\.tmkit\/token is empty; pass --token or --state-dir/,
    );
  });
});

describe('status', () => {
  test('without a profile: a header and one line per profile (name, FQDN, method, monitor status, endpoints up/total, stack) (issue 16 item 4)', async () => {
    await deploy('team-a', [loopbackProfile('web', port(), ['127.0.0.41', '127.0.0.42'])]);
    await deploy('team-b', [loopbackProfile('api', port(), ['127.0.0.41', '127.0.0.43'], { trafficRoutingMethod: 'Weighted' })]);
    await online('web');
    await waitFor(async () => (await s.client.status('api')).endpoints[1]!.endpointMonitorStatus === 'Degraded', {
      what: 'api: e2 Degraded',
      timeoutMs: 30_000,
      intervalMs: 50,
    });
    const r = await cli(['status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'PROFILE  FQDN             METHOD    STATUS    UP   STACK',
        'api      api.tm.internal  Weighted  Degraded  1/2  team-b',
        'web      web.tm.internal  Priority  Online    2/2  team-a',
        '',
      ].join('\n'),
    );
    const one = await cli(['status', 'api']);
    expect(one.stdout).toMatch(
      /^api {2}api\.tm\.internal {2}Degraded {2}stack team-b\n {2}e1 +Online +127\.0\.0\.41 +last probe ok \(status 200/,
    );
    expect(one.stdout).toMatch(/\n {2}e2 +Degraded +127\.0\.0\.43 +last probe FAILED \(connection refused/);
  });

  test('no profiles: one sentence saying how to deploy', async () => {
    const r = await cli(['status']);
    expect(r.stdout).toBe(`No profiles on ${s.api}. Deploy some with \`tmkit apply FILE --yes\`.\n`);
  });

  test('--watch without a terminal prints each changed view as plain lines under a time stamp; SIGTERM ends it with exit 0', async () => {
    await deploy('w', [loopbackProfile('web', port(), ['127.0.0.41', '127.0.0.42'])]);
    await online('web');
    const child = spawn(process.execPath, [BIN, 'status', '--watch', '--interval', '0.2'], {
      cwd: s.dir,
      env: cleanEnv({ TMKIT_SERVER: s.api }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await waitFor(() => out.includes('2/2'), { what: 'the first view', timeoutMs: 20_000 });
      await s.client.patchEndpoint('web', 'e2', { endpointStatus: 'Disabled' });
      await waitFor(() => out.includes('1/2'), { what: 'the changed view', timeoutMs: 20_000 });
      // Polling goes on, but an unchanged view is not printed again.
      await new Promise((r) => setTimeout(r, 700));
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(out).not.toContain('\u001b');
    const blocks = out.split(/^-- \d{4}-\d\d-\d\dT[\d:.]+Z\n/m).filter((b) => b !== '');
    expect(blocks).toEqual([
      'PROFILE  FQDN             METHOD    STATUS  UP   STACK\nweb      web.tm.internal  Priority  Online  2/2  w\n\n',
      'PROFILE  FQDN             METHOD    STATUS  UP   STACK\nweb      web.tm.internal  Priority  Online  1/2  w\n',
    ]);
  });

  test('--watch --format json prints one JSON line per changed view', async () => {
    await deploy('w', [loopbackProfile('web', port(), ['127.0.0.41', '127.0.0.42'])]);
    await online('web');
    const child = spawn(process.execPath, [BIN, 'status', 'web', '--watch', '--interval', '0.2', '--format', 'json'], {
      cwd: s.dir,
      env: cleanEnv({ TMKIT_SERVER: s.api }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await waitFor(() => out.includes('\n'), { what: 'the first line', timeoutMs: 20_000 });
      await s.client.patchEndpoint('web', 'e1', { endpointStatus: 'Disabled' });
      await waitFor(() => out.includes('"endpointMonitorStatus":"Disabled"'), { what: 'a line with e1 Disabled', timeoutMs: 20_000 });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const views = out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as ProfileStatusReport);
    expect(views[0]!.endpoints[0]!.endpointMonitorStatus).toBe('Online');
    expect(views[views.length - 1]!.endpoints[0]!.endpointMonitorStatus).toBe('Disabled');
  });

  test('--watch on a terminal redraws in place (cursor back over the previous view, then clear)', async () => {
    await deploy('w', [loopbackProfile('web', port(), ['127.0.0.41', '127.0.0.42'])]);
    // python3's pty runs the watch on a terminal for a while, then sends SIGINT (Ctrl-C).
    const script = [
      'import os, pty, select, signal, sys, time',
      'pid, fd = pty.fork()',
      'if pid == 0:',
      '    os.execv(sys.argv[1], sys.argv[1:])',
      'out, end, sent = b"", time.time() + 20, False',
      'while time.time() < end:',
      '    r, _, _ = select.select([fd], [], [], 0.2)',
      '    if r:',
      '        try: data = os.read(fd, 65536)',
      '        except OSError: break',
      '        if not data: break',
      '        out += data',
      '    if not sent and out.count(b"Ctrl-C to stop") >= 3:',
      '        os.kill(pid, signal.SIGINT); sent = True; end = time.time() + 5',
      '_, status = os.waitpid(pid, 0)',
      'sys.stdout.buffer.write(out)',
      'sys.exit(os.waitstatus_to_exitcode(status))',
    ].join('\n');
    const r = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(
        'python3',
        ['-c', script, process.execPath, BIN, 'status', '--watch', '--interval', '0.2', '--server', s.api, '--state-dir', s.stateDir],
        { env: cleanEnv(), stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(r.code).toBe(0);
    const frames = r.out.split('\u001b[J');
    expect(frames.length).toBeGreaterThanOrEqual(4);
    expect(frames[0]).toBe(''); // the first view: clear, draw
    // Every later view first moves the cursor back to the first line of the previous one (4 lines: header, web, blank, footer).
    for (const f of frames.slice(1, -1)) expect(f.endsWith('\u001b[4F')).toBe(true);
    expect(frames[1]).toMatch(/^PROFILE +FQDN .*\r?\nweb +web\.tm\.internal +Priority /);
  });
});

test('list: one line per profile with stack, method and ETag; --stack filters', async () => {
  await deploy('team-a', [loopbackProfile('web', port(), ['127.0.0.41'])]);
  await deploy('team-b', [loopbackProfile('api', port(), ['127.0.0.41', '127.0.0.42'], { trafficRoutingMethod: 'Weighted' })]);
  const etag = (await s.client.getProfile('web')).etag;
  const r = await cli(['list']);
  expect(r.code).toBe(0);
  const lines = r.stdout.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^PROFILE +STACK +METHOD +STATUS +RELATIVE NAME +TTL +ENDPOINTS +ETAG$/);
  expect(lines.slice(1).map((l) => l.split(/ {2,}/))).toEqual([
    ['api', 'team-b', 'Weighted', 'Enabled', 'api', '30', '2', (await s.client.getProfile('api')).etag],
    ['web', 'team-a', 'Priority', 'Enabled', 'web', '30', '1', etag],
  ]);
  const b = await cli(['list', '--stack', 'team-b', '--format', 'json']);
  expect(JSON.parse(b.stdout).profiles.map((p: { name: string }) => p.name)).toEqual(['api']);
});

test('get --output arm prints what Azure would, and import reads it back to the same profile: a plan shows no changes', async () => {
  const child = loopbackProfile('child', port(), ['127.0.0.41', '127.0.0.42'], { trafficRoutingMethod: 'Weighted' });
  const parent = {
    ...loopbackProfile('parent', port(), [], { trafficRoutingMethod: 'Performance' }),
    endpoints: [
      { name: 'near', type: 'externalEndpoints', target: '127.0.0.41', endpointLocation: 'westus' },
      { name: 'eu', type: 'nestedEndpoints', targetResourceId: 'child', endpointLocation: 'westeurope', minChildEndpoints: 2 },
    ],
  };
  await deploy('arm', [child, parent]);
  await online('child');
  const r = await cli(['get', 'parent', '--output', 'arm']);
  expect(r.code).toBe(0);
  const arm = JSON.parse(r.stdout);
  expect(arm).toMatchObject({
    id: '/providers/Microsoft.Network/trafficManagerProfiles/parent',
    name: 'parent',
    type: 'Microsoft.Network/trafficManagerProfiles',
    location: 'global',
    properties: { trafficRoutingMethod: 'Performance', dnsConfig: { relativeName: 'parent', fqdn: 'parent.tm.internal', ttl: 30 } },
  });
  expect(arm.properties.endpoints[1]).toMatchObject({
    type: 'Microsoft.Network/trafficManagerProfiles/nestedEndpoints',
    properties: {
      targetResourceId: '/providers/Microsoft.Network/trafficManagerProfiles/child',
      target: 'child.tm.internal',
      endpointMonitorStatus: 'Online',
      minChildEndpoints: 2,
    },
  });
  expect(arm.properties.monitorConfig.profileMonitorStatus).toEqual(expect.any(String));

  const json = await cli(['get', 'parent']);
  expect(JSON.parse(json.stdout)).toEqual((await s.client.getProfile('parent')).profile);

  // Azure's JSON for both, imported as one document of stack "arm": planning it against the server changes nothing.
  const both = [arm, JSON.parse((await cli(['get', 'child', '--output', 'arm'])).stdout)];
  writeFileSync(join(s.dir, 'arm.json'), JSON.stringify(both));
  const imp = await cli(['import', 'arm.json', '--stack', 'arm', '--out', 'doc.json']);
  expect(imp.code).toBe(0);
  const plan = await cli(['plan', 'doc.json', '--detailed-exitcode', '--no-preview']);
  expect(plan.stdout).toContain('No changes.');
  expect(plan.code).toBe(0);
  expect(
    JSON.parse(readFileSync(join(s.dir, 'doc.json'), 'utf8')).profiles.find((p: { name: string }) => p.name === 'parent').endpoints[1]
      .targetResourceId,
  ).toBe('child');

  const missing = await cli(['get', 'nope']);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toBe(`tmkit: profile nope does not exist on ${s.api} (\`tmkit list\` shows the deployed profiles)\n`);
});

test('endpoint disable|enable: maintenance through PATCH, refused for another stack with --stack; DNS follows', async () => {
  await deploy('web', [loopbackProfile('web', port(), ['127.0.0.41', '127.0.0.42'])]);
  await online('web');
  const wrong = await cli(['endpoint', 'disable', 'web', 'e1', '--stack', 'other']);
  expect(wrong.code).toBe(1);
  expect(wrong.stderr).toBe(
    "tmkit: profile 'web' is owned by stack 'web', not 'other'; nothing was changed (drop --stack or name the owning stack)\n",
  );
  expect((await s.client.getProfile('web')).profile.endpoints[0]!.endpointStatus).toBe('Enabled');

  const off = await cli(['endpoint', 'disable', 'web', 'e1', '--stack', 'web']);
  expect(off.code).toBe(0);
  expect(off.stdout).toMatch(/^Disabled endpoint e1 of profile web \(stack "web"\); ETag "\d+-[0-9a-f]+"\.\n$/);
  await s.engine.settle();
  const st: ProfileStatusReport = await s.client.status('web');
  expect(st.endpoints.map((e) => e.endpointMonitorStatus)).toEqual(['Disabled', 'Online']);
  const again = await cli(['endpoint', 'disable', 'web', 'e1']);
  expect(again.stdout).toBe('Nothing to do: endpoint e1 of profile web (stack "web") is already Disabled.\n');

  // The safety rule of override down: the last endpoint able to serve is kept unless forced.
  const refused = await cli(['endpoint', 'disable', 'web', 'e2']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toBe(
    'tmkit: refused: disabling web/e2 would leave profile web with no endpoint able to serve (left: e1 Disabled); pass --force (API: ?force=true) to do it anyway\n',
  );
  expect((await s.client.getProfile('web')).profile.endpoints.map((e) => e.endpointStatus)).toEqual(['Disabled', 'Enabled']);
  const last = await cli(['endpoint', 'disable', 'web', 'e2', '--force']);
  expect(last.code).toBe(0);
  expect(last.stderr).toBe(
    'tmkit: warning: profile web has no enabled endpoint now, so DNS answers NXDOMAIN for web.tm.internal; run `tmkit endpoint enable web <endpoint>` to bring one back\n',
  );
  const on = await cli(['endpoint', 'enable', 'web', 'e1']);
  expect(on.stdout).toMatch(/^Enabled endpoint e1 of profile web/);
  expect((await s.client.getProfile('web')).profile.endpoints.map((e) => e.endpointStatus)).toEqual(['Enabled', 'Disabled']);

  const nope = await cli(['endpoint', 'enable', 'web', 'e9']);
  expect(nope.code).toBe(1);
  expect(nope.stderr).toBe(
    `tmkit: profile web has no endpoint e9 on ${s.api}; did you mean e1? (it has e1, e2; \`tmkit get web\` shows them)\n`,
  );
});

describe('destroy', () => {
  const nestedPair = () => [
    loopbackProfile('kid', port(), ['127.0.0.41']),
    { ...loopbackProfile('top', port(), []), endpoints: [{ name: 'n', type: 'nestedEndpoints', targetResourceId: 'kid' }] },
  ];

  test('plans the stack away, needs --yes without a terminal, deletes parents first and never touches another stack', async () => {
    await deploy('mine', nestedPair());
    await deploy('theirs', [loopbackProfile('other', port(), ['127.0.0.42'])]);
    const refused = await cli(['destroy', '--stack', 'mine']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('Plan: 0 to add, 0 to change, 0 to replace, 2 to destroy.');
    expect(refused.stderr).toBe(
      'tmkit: destroy: not destroying without confirmation: no terminal to ask on, so pass --yes to destroy the 2 profiles above (nothing was destroyed)\n',
    );
    expect((await s.client.listProfiles()).profiles).toHaveLength(3);

    const r = await cli(['destroy', '--stack', 'mine', '--yes']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .split('\n')
        .filter((l) => l.startsWith('['))
        .map((l) => l.replace(/ {2}ETag.*/, '')),
    ).toEqual(['[1/2] DELETE top (delete) ... ok', '[2/2] DELETE kid (delete) ... ok']);
    expect(r.stdout).toContain(`Destroy complete: 2 destroyed (stack "mine" on ${s.api}).`);
    expect((await s.client.listProfiles()).profiles.map((p) => `${p.name}@${p.stack}`)).toEqual(['other@theirs']);

    const again = await cli(['destroy', '--stack', 'mine', '--yes']);
    expect(again.stdout).toBe(
      `Nothing to destroy. Stack "mine" has no profiles on ${s.api} (stacks there: "theirs"; pick one with --stack).\n`,
    );
  });

  test.each([
    ['no', 1, 2],
    ['yes', 0, 0],
  ])('on a terminal destroy asks first (answer %s)', async (answer, code, left) => {
    await deploy('mine', nestedPair());
    const script = [
      'import os, pty, select, sys',
      'answer, argv = sys.argv[1], sys.argv[2:]',
      'pid, fd = pty.fork()',
      'if pid == 0:',
      '    os.execv(argv[0], argv)',
      'out, sent = b"", False',
      'while True:',
      '    r, _, _ = select.select([fd], [], [], 60)',
      '    if not r: break',
      '    try: data = os.read(fd, 4096)',
      '    except OSError: break',
      '    if not data: break',
      '    out += data',
      '    if not sent and b"will be accepted" in out:',
      '        os.write(fd, (answer + "\\n").encode()); sent = True',
      '_, status = os.waitpid(pid, 0)',
      'sys.stdout.buffer.write(out)',
      'sys.exit(os.waitstatus_to_exitcode(status))',
    ].join('\n');
    const r = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(
        'python3',
        [
          '-c',
          script,
          answer as string,
          process.execPath,
          BIN,
          'destroy',
          '--stack',
          'mine',
          '--no-color',
          '--server',
          s.api,
          '--state-dir',
          s.stateDir,
        ],
        { env: cleanEnv(), stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
      });
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c, out }));
    });
    expect(r.out).toContain(`Destroy 2 profiles of stack "mine" on ${s.api}? There is no undo. Only 'yes' will be accepted:`);
    expect(r.code).toBe(code);
    if (answer === 'no') expect(r.out).toContain('tmkit: destroy cancelled; nothing was destroyed');
    expect((await s.client.listProfiles()).profiles).toHaveLength(left as number);
  });

  test('a profile another stack still nests cannot be destroyed: the plan error says who, nothing is deleted', async () => {
    await deploy('kids', [loopbackProfile('kid', port(), ['127.0.0.41'])]);
    await deploy('parents', [
      { ...loopbackProfile('top', port(), []), endpoints: [{ name: 'n', type: 'nestedEndpoints', targetResourceId: 'kid' }] },
    ]);
    const r = await cli(['destroy', '--stack', 'kids', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('PLAN_DELETE_REFERENCED');
    expect(r.stdout).toContain('top');
    expect(r.stderr).toContain('tmkit: destroy: the plan for stack "kids" has 1 error and cannot be applied; nothing was destroyed');
    expect((await s.client.listProfiles()).profiles).toHaveLength(2);
  });
});

test('composite checks: tmkit status prints a line per check; get --output arm says on stderr what Azure cannot hold', async () => {
  await deploy('checks', [
    loopbackProfile('ck', port(), ['127.0.0.41'], {
      monitorConfig: {
        protocol: 'HTTP',
        port: port(),
        path: '/healthz',
        intervalInSeconds: 10,
        timeoutInSeconds: 5,
        toleratedNumberOfFailures: 0,
        checks: [{ name: 'health' }, { name: 'extra', path: '/missing', monitoringOnly: true }],
      },
    }),
  ]);
  await online('ck');
  const st = await cli(['status', 'ck']);
  expect(st.code).toBe(0);
  expect(st.stdout).toMatch(/check health {7}ok \(status 200, [\d.]+ ms\)\n/);
  expect(st.stdout).toMatch(
    /check extra {8}FAILED \(status 404, [\d.]+ ms, \d+ consecutive failures?\) {2}\[monitoring only: never counts\]/,
  );
  expect(st.stdout).toContain('checks: health ok, extra FAILED (404, monitoring only), 1 of 1 >= quorum 1');
  const arm = await cli(['get', 'ck', '--output', 'arm']);
  expect(arm.code).toBe(0);
  expect(JSON.parse(arm.stdout).properties.monitorConfig).toMatchObject({ protocol: 'HTTP', path: '/healthz' });
  expect(arm.stderr).toBe(
    "tmkit: not in the ARM JSON: monitorConfig.checks (health, extra): Azure has one monitor per profile; the export keeps monitorConfig's own " +
      `HTTP:${port()}/healthz, which Azure would probe instead\n`,
  );
});
