/**
 * The traffic-operation commands as real `tmkit` processes against a real runtime (docs/operations.md):
 * `override down|weight|list|clear` with the safety rule and --force, `status` showing them, `drill` with its
 * report against the bound, `endpoint failback`, and `shift` rolled back when an endpoint turns Degraded.
 */
import type { DrillReport } from '../../src/core/api';
import { waitFor } from '../support/wait';
import { dig, runTmkit } from '../support/process';
import { switchable } from '../runtime/operations/support';
import { startDay2Server, type Day2Server } from './day2-server';

jest.setTimeout(120_000);

let s: Day2Server;
let hs: Awaited<ReturnType<typeof switchable>>;
beforeEach(async () => {
  s = await startDay2Server('tmkit-ops-cli-');
  hs = await switchable(['127.0.0.51', '127.0.0.52', '127.0.0.53']);
});
afterEach(async () => {
  await s.close();
  await hs.close();
});

// USER: the operator --who defaults to (the OS user), so the names below are this test's, not the machine's.
const cli = (args: string[]) => runTmkit(args, { cwd: s.dir, env: { TMKIT_SERVER: s.api, USER: 'cli' } });
const dns = (): { address: string; port: number } => s.engine.dnsAddresses()[0]!;

async function web(method: 'Priority' | 'Weighted' = 'Priority', extra: Record<string, unknown> = {}): Promise<void> {
  await s.client.putProfile({
    name: 'web',
    trafficRoutingMethod: method,
    dnsConfig: { relativeName: 'web', ttl: 0 },
    monitorConfig: {
      protocol: 'HTTP',
      port: hs.port,
      path: '/healthz',
      intervalInSeconds: 10,
      timeoutInSeconds: 5,
      toleratedNumberOfFailures: 0,
    },
    endpoints: [
      { name: 'primary', type: 'externalEndpoints', target: '127.0.0.51' },
      { name: 'backup', type: 'externalEndpoints', target: '127.0.0.52' },
      { name: 'spare', type: 'externalEndpoints', target: '127.0.0.53' },
    ],
    ...extra,
  });
  await waitFor(async () => (await s.client.status('web')).endpoints.every((e) => e.endpointMonitorStatus === 'Online'), {
    what: 'Online',
    timeoutMs: 30_000,
    intervalMs: 50,
  });
}

test('override down / list / status / clear; --json prints the override with its id', async () => {
  await web();
  const down = await cli(['override', 'down', 'web', 'primary', '--for', '30m', '--reason', 'game day', '--json']);
  expect(down).toMatchObject({ code: 0, stderr: '' });
  const o = JSON.parse(down.stdout) as { id: string; kind: string; who: string };
  expect(o).toMatchObject({ kind: 'down', profile: 'web', endpoint: 'primary', who: 'cli', reason: 'game day' });
  expect(await dig(dns(), 'web.tm.internal')).toEqual(['127.0.0.52']);

  const list = await cli(['override', 'list']);
  expect(list.stdout).toMatch(new RegExp(`^${o.id}  down web/primary until \\S+ \\(in (29m\\d+s|30m)\\) by cli: game day\\n$`));
  const st = await cli(['status', 'web']);
  expect(st.stdout).toContain(`      override down until `);
  expect(st.stdout).toContain(`by cli: game day  (tmkit override clear ${o.id})`);
  expect((await cli(['status'])).stdout).toMatch(/web .* 1 override/);

  const clear = await cli(['override', 'clear', o.id]);
  expect(clear).toMatchObject({ code: 0, stdout: `Cleared override ${o.id} (down web/primary).\n` });
  expect(await dig(dns(), 'web.tm.internal')).toEqual(['127.0.0.51']);
  expect((await cli(['override', 'list'])).stdout).toBe('No overrides in force.\n');
  // The audit log: newest first, who, what, why.
  const audit = (await cli(['audit', '--limit', '2'])).stdout.split('\n').filter((l) => l !== '');
  expect(audit).toHaveLength(2);
  expect(audit[0]).toMatch(new RegExp(`^\\S+Z  cli        override.clear   web/primary ${o.id}$`));
  expect(audit[1]).toMatch(new RegExp(`^\\S+Z  cli        override.create  web/primary ${o.id}: game day$`));
  // Usage errors exit 2; a missing endpoint is the server's one line, exit 1.
  expect((await cli(['override', 'down', 'web', 'primary', '--for', 'soon'])).code).toBe(2);
  expect(await cli(['override', 'down', 'web', 'nope', '--for', '1m'])).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/^tmkit: profile 'web' has no endpoint 'nope'/),
  });
});

test('the safety rule: refused with one line naming the profile, the endpoints left and --force (exit 1); --force takes it out', async () => {
  await web();
  hs.down.add('127.0.0.52');
  hs.down.add('127.0.0.53');
  await waitFor(async () => (await s.client.status('web')).endpoints.filter((e) => e.endpointMonitorStatus === 'Degraded').length === 2, {
    what: 'others Degraded',
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  const r = await cli(['override', 'down', 'web', 'primary', '--for', '10m']);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(
    'tmkit: refused: taking web/primary down would leave profile web with no endpoint able to serve (left: backup Degraded, spare Degraded); pass --force (API: "force": true) to take it out anyway\n',
  );
  expect(await dig(dns(), 'web.tm.internal')).toEqual(['127.0.0.51']);
  const forced = await cli(['override', 'down', 'web', 'primary', '--for', '10m', '--force']);
  expect(forced.code).toBe(0);
  expect(forced.stdout).toMatch(/^Override ov-[0-9a-f]+: web\/primary is out of DNS until /);
  expect(await dig(dns(), 'web.tm.internal')).toEqual(['127.0.0.52']);
});

test('drill: the report (JSON) has switch and revert within the bound, and every answer during the hold named another endpoint; drill list keeps it', async () => {
  await web();
  const r = await cli(['drill', 'web', 'primary', '--for', '2s', '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const report = JSON.parse(r.stdout) as DrillReport;
  expect(report).toMatchObject({
    profile: 'web',
    endpoint: 'primary',
    status: 'passed',
    passed: true,
    boundSeconds: 15,
    bound: '10 × (0 + 1) + 5 + TTL 0 = 15 s',
    ttl: 0,
  });
  expect(report.switchSeconds).toBeLessThan(report.boundSeconds!);
  expect(report.revertSeconds).toBeLessThan(report.boundSeconds!);
  expect(report.nodes).toEqual([expect.objectContaining({ answeredDuringHold: true, heldAnswers: ['127.0.0.52'] })]);
  expect(await dig(dns(), 'web.tm.internal')).toEqual(['127.0.0.51']);
  expect((await s.client.listOverrides()).overrides).toEqual([]);
  const list = await cli(['drill', 'list']);
  expect(list.stdout).toMatch(
    new RegExp(`^${report.id}  \\S+  PASSED   web/primary  switch \\d\\.\\d{3} s  revert \\d\\.\\d{3} s  bound 15 s  by cli\\n$`),
  );
  // The text report, and a drill the safety rule refuses.
  const text = await cli(['drill', 'web', 'primary', '--for', '1s']);
  expect(text.stdout).toMatch(
    /^Drill dr-[0-9a-f]+: web\/primary out of DNS by a down override for 1s \(1 node\)\n {2}switch {2}\d\.\d{3} s/,
  );
  // One statement of the bound (what it is, how it is made) and one pass mark: measured + TTL ≤ bound.
  expect(text.stdout).toContain(
    '\n  bound   15 s = 10 × (0 + 1) + 5 + TTL 0: interval × (tolerated failures + 1) + timeout + TTL, the worst-case failover tmkit plan prints\n',
  );
  expect(text.stdout).toMatch(/\n {2}pass {4}switch \+ TTL 0 s = \d\.\d{3} s ≤ 15 s; revert \+ TTL 0 s = \d\.\d{3} s ≤ 15 s\n/);
  expect(text.stdout).toContain(
    '\n  scope   an override acts at once: this measured how fast DNS obeys it, not probe detection (--mode detection)\n',
  );
  expect(text.stdout.endsWith('Drill passed.\n')).toBe(true);
  hs.down.add('127.0.0.52');
  hs.down.add('127.0.0.53');
  await waitFor(async () => (await s.client.status('web')).endpoints.filter((e) => e.endpointMonitorStatus === 'Degraded').length === 2, {
    what: 'others Degraded',
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  const refused = await cli(['drill', 'web', 'primary', '--for', '1s']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^tmkit: refused: taking web\/primary down would leave profile web/);
  const audit = (await s.client.audit()).entries.map((e) => e.action);
  expect(audit).toContain('drill');
});

test('drill: Ctrl-C ends the hold early and still reverts', async () => {
  await web();
  const { spawn } = await import('node:child_process');
  const { BIN, cleanEnv } = await import('../support/process');
  const child = spawn(process.execPath, [BIN, 'drill', 'web', 'primary', '--for', '5m', '--json'], {
    cwd: s.dir,
    env: cleanEnv({ TMKIT_SERVER: s.api }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  await waitFor(async () => (await s.client.listOverrides()).overrides.length === 1, {
    what: 'the override',
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  await waitFor(async () => (await dig(dns(), 'web.tm.internal'))[0] === '127.0.0.52', { what: 'the switch' });
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const report = JSON.parse(out) as DrillReport;
  expect(code).toBe(1);
  expect(report.status).toBe('aborted');
  expect(report.revertSeconds).toBeDefined();
  expect((await s.client.listOverrides()).overrides).toEqual([]);
  expect(await dig(dns(), 'web.tm.internal')).toEqual(['127.0.0.51']);
});

test('endpoint failback (Manual)', async () => {
  await web('Priority', { failback: { mode: 'Manual' } });
  hs.down.add('127.0.0.51');
  await waitFor(async () => (await s.client.status('web')).endpoints[0]!.endpointMonitorStatus === 'Degraded', {
    what: 'Degraded',
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  hs.down.delete('127.0.0.51');
  await waitFor(async () => (await s.client.status('web')).endpoints[0]!.endpointMonitorStatus === 'AwaitingFailback', {
    what: 'AwaitingFailback',
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  expect((await cli(['status'])).stdout).toMatch(/web .* 1 awaiting failback/);
  expect(await dig(dns(), 'web.tm.internal')).toEqual(['127.0.0.52']);
  const r = await cli(['endpoint', 'failback', 'web', 'primary', '--reason', 'looked fine']);
  expect(r).toMatchObject({ code: 0, stdout: 'Failed back endpoint primary of profile web: it is Online and answered again.\n' });
  expect(await dig(dns(), 'web.tm.internal')).toEqual(['127.0.0.51']);
  const again = await cli(['endpoint', 'failback', 'web', 'primary']);
  expect(again.code).toBe(1);
  expect(again.stderr).toMatch(/^tmkit: endpoint web\/primary is Online, not AwaitingFailback/);
});

test('shift: steps through the weights; an endpoint turning Degraded rolls every step back and exits 1 with what it saw', async () => {
  await web('Weighted');
  const shares = async (): Promise<Record<string, number>> =>
    Object.fromEntries((await s.client.resolve({ name: 'web.tm.internal' })).outcomes.map((o) => [o.endpoints.join(), o.probability]));
  const run = runTmkit(['shift', 'web', 'backup', '--weights', '2,4,8', '--every', '3s', '--abort-on-degraded'], {
    cwd: s.dir,
    env: { TMKIT_SERVER: s.api },
  });
  await waitFor(async () => (await s.client.listOverrides()).overrides.some((o) => o.weight === 4), {
    what: 'step 2',
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  expect((await shares())['web/backup']).toBeCloseTo(4 / 6);
  hs.down.add('127.0.0.53');
  const r = await run;
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/^Step 1\/3: web\/backup weight 2 \(override ov-\w+\), next in 3s\.\nStep 2\/3: web\/backup weight 4 /);
  expect(r.stderr).toMatch(
    /^tmkit: shift of web\/backup rolled back: during step 2\/3 \(weight 4\) spare Degraded \(probe verdict Degraded\); its weight is 1 again \(the configured one\)\n$/,
  );
  expect((await s.client.listOverrides()).overrides).toEqual([]);
  expect(await shares()).toEqual({ 'web/primary': 0.5, 'web/backup': 0.5 });

  // Without trouble it ends on the last weight, held, and says how to make it permanent.
  hs.down.delete('127.0.0.53');
  await waitFor(async () => (await s.client.status('web')).endpoints.every((e) => e.endpointMonitorStatus === 'Online'), {
    what: 'Online',
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  const ok = await runTmkit(['shift', 'web', 'backup', '--weights', '3,5', '--every', '1s', '--hold', '10m'], {
    cwd: s.dir,
    env: { TMKIT_SERVER: s.api },
  });
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain('Shift complete: web/backup has weight 5 (configured 1) until ');
  expect(ok.stdout).toContain(
    'To make it permanent: in the document set "weight": 5 on endpoint "backup" of profile "web"; in HCL, weight = 5',
  );
  const held = (await s.client.listOverrides()).overrides;
  expect(held).toEqual([expect.objectContaining({ kind: 'weight', weight: 5 })]);
  expect(Date.parse(held[0]!.expiresAt) - Date.parse(held[0]!.createdAt)).toBe(600_000);
});
