/**
 * The CLI of issue 31 against a real runtime, each command as the real `tmkit` process: `tmkit endpoint
 * health … degraded --for 5m --reason …` (and `--clear`), what `tmkit status` shows of it, its usage errors,
 * and `tmkit webhooks` (list, the SSRF refusal of a loopback URL without --webhook-allow-private).
 */
import { healthServerPair } from '../support/loopback';
import { waitFor } from '../support/wait';
import { runTmkit } from '../support/process';
import { loopbackProfile, startDay2Server, type Day2Server } from './day2-server';

jest.setTimeout(60_000);

let s: Day2Server;
let health: Awaited<ReturnType<typeof healthServerPair>>;
beforeAll(async () => {
  s = await startDay2Server('tmkit-cli-health-');
  health = await healthServerPair('127.0.0.46', '127.0.0.47');
  await s.client.putProfile(loopbackProfile('web', health[0].port, ['127.0.0.46', '127.0.0.47']));
  await waitFor(async () => (await s.client.status('web')).endpoints.every((e) => e.endpointMonitorStatus === 'Online'), {
    what: 'Online',
    timeoutMs: 20_000,
    intervalMs: 50,
  });
});
afterAll(async () => {
  await s.close();
  for (const h of health) await h.close();
});

const cli = (args: string[]) => runTmkit(args, { cwd: s.dir, env: { TMKIT_SERVER: s.api } });

test('endpoint health degraded --for 5m: pushed, shown by status with its source, cleared with --clear', async () => {
  const r = await cli(['endpoint', 'health', 'web', 'e1', 'degraded', '--for', '5m', '--reason', 'deploy 7']);
  expect(r.stderr).toBe('');
  expect(r.stdout).toMatch(/^Pushed Degraded for web\/e1 for 5m \(until \d{4}-[^)]+\): deploy 7; DNS serves it now\.\n$/);
  expect(r.code).toBe(0);
  const detail = await cli(['status', 'web']);
  expect(detail.stdout).toMatch(
    / {2}e1 +Degraded .*— pushed Degraded until \S+: deploy 7\n {6}pushed Degraded until \S+: deploy 7 {2}\[sets the status\]\n/,
  );
  const table = await cli(['status']);
  expect(table.stdout).toMatch(/web +web\.tm\.internal +Priority +Degraded +1\/2 +default +1 endpoint pushed Degraded\n/);
  const json = JSON.parse((await cli(['status', 'web', '--format', 'json'])).stdout) as { endpoints: Array<{ verdictSource?: string }> };
  expect(json.endpoints[0]!.verdictSource).toBe('pushed');
  const cleared = await cli(['endpoint', 'health', 'web', 'e1', '--clear']);
  expect(cleared.stdout).toBe('Cleared the pushed health of web/e1; its probes alone decide again.\n');
  expect((await cli(['endpoint', 'health', 'web', 'e1', '--clear'])).stdout).toBe('Nothing to clear: web/e1 has no pushed health.\n');
  expect((await s.client.status('web')).endpoints[0]!.endpointMonitorStatus).toBe('Online');
});

test('endpoint health usage errors exit 2 and change nothing; an unknown endpoint exits 1', async () => {
  expect(await cli(['endpoint', 'health', 'web', 'e1', 'degraded'])).toMatchObject({
    code: 2,
    stderr: 'tmkit: --for (missing): how long it holds, from 1s to 1d, e.g. --for 5m\n',
  });
  expect(await cli(['endpoint', 'health', 'web', 'e1', 'degraded', '--for', '2d'])).toMatchObject({ code: 2 });
  expect(await cli(['endpoint', 'health', 'web', 'e1', 'sick', '--for', '1m'])).toMatchObject({
    code: 2,
    stderr: 'tmkit: status sick: online or degraded (or --clear)\n',
  });
  const missing = await cli(['endpoint', 'health', 'web', 'nope', 'degraded', '--for', '1m']);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toBe("tmkit: profile 'web' has no endpoint 'nope'; nothing was changed\n");
});

test('webhooks: none at first; a loopback URL is refused without --webhook-allow-private', async () => {
  expect(await cli(['webhooks'])).toMatchObject({
    code: 0,
    stdout: 'No webhooks. Add one with `tmkit webhooks add URL` or `tmkit serve --webhook URL`.\n',
  });
  const r = await cli(['webhooks', 'add', 'http://127.0.0.1:9/hook']);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/127\.0\.0\.1 is loopback.*--webhook-allow-private/);
});

test('serve --webhook: a bad URL or a loopback one without --webhook-allow-private is a usage error before anything starts', async () => {
  const bad = await cli(['serve', '--state-dir', `${s.dir}/unused`, '--webhook', 'ftp://hooks.example.com/x']);
  expect(bad).toMatchObject({
    code: 2,
    stderr: "tmkit: --webhook ftp://hooks.example.com/x: 'ftp://hooks.example.com/x': webhooks are http:// or https:// URLs\n",
  });
  const loop = await cli(['serve', '--state-dir', `${s.dir}/unused`, '--webhook', 'http://127.0.0.1:9/hook,/tmp/secret']);
  expect(loop.code).toBe(2);
  expect(loop.stderr).toMatch(/^tmkit: --webhook http:\/\/127\.0\.0\.1:9\/hook,\/tmp\/secret: 127\.0\.0\.1 is loopback/);
});
