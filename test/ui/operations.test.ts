/**
 * The dashboard's traffic operations in a real browser (Debian's Chromium via playwright-core) against a real
 * `tmkit serve`: the profile page lists the overrides in force with a button that clears them (DNS follows,
 * asked with the real `dig`), shows the drills kept with their figures, and fails an AwaitingFailback endpoint
 * back. A screenshot of the page goes to artifacts/ui/profile-operations.png.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { TmkitClient } from '../../src/client';
import { waitFor } from '../support/wait';
import { dig, runTmkit, spawnServe, type ServeProcess } from '../support/process';
import { switchable } from '../runtime/operations/support';
import { artifactsDir, launchChromium } from './support/browser';

jest.setTimeout(240_000);

let dir: string;
let serve: ServeProcess;
let token: string;
let client: TmkitClient;
let browser: Browser;
let hs: Awaited<ReturnType<typeof switchable>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-ui-ops-'));
  hs = await switchable(['127.0.0.81', '127.0.0.82']);
  serve = await spawnServe(join(dir, 'state'));
  token = readFileSync(join(dir, 'state', 'token'), 'utf8').trim();
  client = new TmkitClient({ server: serve.api, token, env: {} });
  await client.putProfile({
    name: 'web',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'web', ttl: 0 },
    failback: { mode: 'Manual' },
    monitorConfig: {
      protocol: 'HTTP',
      port: hs.port,
      path: '/healthz',
      intervalInSeconds: 10,
      timeoutInSeconds: 5,
      toleratedNumberOfFailures: 0,
    },
    endpoints: [
      { name: 'primary', type: 'externalEndpoints', target: '127.0.0.81' },
      { name: 'backup', type: 'externalEndpoints', target: '127.0.0.82' },
    ],
  });
  await waitFor(async () => (await client.status('web')).endpoints.every((e) => e.endpointMonitorStatus === 'Online'), {
    what: 'Online',
    timeoutMs: 60_000,
    intervalMs: 100,
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await client?.close();
  serve?.child.kill('SIGTERM');
  await serve?.closed;
  await hs?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function page(): Promise<Page> {
  const p = await (await browser.newContext()).newPage();
  await p.goto(`${serve.api}/ui/`);
  await p.fill('[data-testid=token]', token);
  await p.click('[data-testid=sign-in]');
  await p.waitForSelector('[data-testid=profiles]');
  await p.goto(`${serve.api}/ui/#/profiles/web`);
  await p.waitForSelector('[data-testid=operations]');
  return p;
}

test('overrides in force with a Clear button, the drills kept, and Fail back for an AwaitingFailback endpoint', async () => {
  const p = await page();
  await p.waitForSelector('[data-testid=no-overrides]');
  // Made elsewhere: the page shows it through the live events.
  const o = (await client.createOverride({ kind: 'down', profile: 'web', endpoint: 'primary', for: '30m', who: 'cli', reason: 'game day' }))
    .override;
  const row = await p.waitForSelector(`[data-testid=override-${o.id}]`);
  expect(await row.textContent()).toMatch(/primarydown \(out of DNS\).*\((29|30) min left\)cligame dayClear/);
  expect(await dig(serve.dns, 'web.tm.internal')).toEqual(['127.0.0.82']);
  const drill = await runTmkit(['drill', 'web', 'backup', '--for', '1s', '--json'], {
    env: { TMKIT_SERVER: serve.api, TMKIT_TOKEN: token },
  });
  // The safety rule refuses it: primary is out, so backup is all that serves.
  expect(drill.code).toBe(1);
  await p.click('[data-testid=clear-override]');
  await p.waitForSelector('[data-testid=no-overrides]');
  expect(await dig(serve.dns, 'web.tm.internal')).toEqual(['127.0.0.81']);
  expect((await client.audit()).entries[0]).toMatchObject({ action: 'override.clear', who: 'dashboard' });

  const ok = await runTmkit(['drill', 'web', 'primary', '--for', '1s', '--json'], { env: { TMKIT_SERVER: serve.api, TMKIT_TOKEN: token } });
  expect(ok.code).toBe(0);
  const id = (JSON.parse(ok.stdout) as { id: string }).id;
  // Shown running when it started, passed when it finished (both arrive as live events).
  await p.waitForSelector(`[data-testid=drill-${id}] [data-testid=drill-status]:has-text("passed")`);

  hs.down.add('127.0.0.81');
  await waitFor(async () => (await client.status('web')).endpoints[0]!.endpointMonitorStatus === 'Degraded', {
    what: 'Degraded',
    timeoutMs: 60_000,
    intervalMs: 100,
  });
  hs.down.delete('127.0.0.81');
  await p.waitForSelector('[data-testid=endpoint-primary] [data-status=AwaitingFailback]', { timeout: 60_000 });
  await p.screenshot({ path: join(artifactsDir(), 'profile-operations.png'), fullPage: true });
  await p.click('[data-testid=endpoint-primary] [data-testid=failback]');
  await p.waitForSelector('[data-testid=endpoint-primary] [data-status=Online]');
  expect(await dig(serve.dns, 'web.tm.internal')).toEqual(['127.0.0.81']);
  expect((await client.audit()).entries[0]).toMatchObject({ action: 'failback', who: 'dashboard' });
});
