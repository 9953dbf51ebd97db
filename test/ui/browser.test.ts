import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { ApiErrorBody } from '../../src/core/api';
import { GEO_REGIONS } from '../../src/core/data';
import { endpointColors, mix } from '../../ui/src/lib/colors';
import { countryRoutes, diffScenario, groupPreview } from '../../ui/src/lib/routing-map';
import { volumeIntensity } from '../../ui/src/lib/traffic';
import type { PreviewRow } from '../../ui/src/api/types';
import { healthServerPair } from '../support/loopback';
import { waitFor } from '../support/wait';
import { runTmkit, spawnServe, type ServeProcess } from '../support/process';
import { artifactsDir, launchChromium } from './support/browser';
import { startSseDouble } from './support/sse-double';

/**
 * The dashboard in a real browser (Debian's Chromium via playwright-core) against a real `tmkit serve`
 * with real HTTP health servers, real `tmkit apply` and real `dig`. Screenshots of every page go to
 * artifacts/ui/ (README links one).
 *
 * Issue 19's server side (static files at /ui/, `GET /v1/profiles/{name}/traffic`, `POST /v1/preview`,
 * `GET /v1/events`) is being built beside this. What the server offers is probed once at the start; the parts
 * that wait for a route say so in their titles and assert the page's notice for a missing route instead,
 * until the route is there. Nothing else is skipped.
 */
jest.setTimeout(240_000);

interface Has {
  ui: boolean;
  traffic: boolean;
  preview: boolean;
  events: boolean;
}

let dir: string;
let serve: ServeProcess;
let token: string;
let base: string;
let has: Has;
let browser: Browser;
let pair: Awaited<ReturnType<typeof healthServerPair>>;
const shots: string[] = [];
/** Every request and failed response of every page, to check the origin and the errors at the end. */
const requests: Array<{ url: string; auth: string | undefined }> = [];
const failures: Array<{ url: string; status: number }> = [];
const pageErrors: string[] = [];

const api = async (
  method: string,
  path: string,
  body?: unknown,
  withToken = true,
  // biome-ignore lint/suspicious/noExplicitAny: the parsed body of whatever route was called; each test reads the fields it asserts on
): Promise<{ status: number; json: any; type: string }> => {
  const res = await fetch(`${serve.api}${path}`, {
    method,
    headers: {
      ...(withToken ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const type = res.headers.get('content-type') ?? '';
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json, type };
};

const routeMissing = (r: { status: number; json: unknown }) =>
  r.status === 404 && (r.json as Partial<ApiErrorBody> | null | undefined)?.errors?.[0]?.code === 'ROUTE_NOT_FOUND';

async function probeServer(): Promise<Has> {
  const ui = await fetch(`${serve.api}/ui/`).then(
    (r) => r.status === 200 && (r.headers.get('content-type') ?? '').includes('text/html'),
    () => false,
  );
  const traffic = !routeMissing(await api('GET', '/v1/profiles/app/traffic'));
  const preview = !routeMissing(await api('POST', '/v1/preview', { profile: 'app' }));
  const ctrl = new AbortController();
  const events = await fetch(`${serve.api}/v1/events`, { headers: { authorization: `Bearer ${token}` }, signal: ctrl.signal }).then(
    (r) => r.status === 200 && (r.headers.get('content-type') ?? '').includes('text/event-stream'),
    () => false,
  );
  ctrl.abort();
  return { ui, traffic, preview, events };
}

/** `dig +subnet` (EDNS Client Subnet): the query counts as coming from that subnet. */
function digSubnet(name: string, subnet: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'dig',
      [`@${serve.dns.address}`, '-p', String(serve.dns.port), name, 'A', `+subnet=${subnet}`, '+short', '+time=2', '+tries=1'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', () =>
      resolve(
        out
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '' && !l.startsWith(';')),
      ),
    );
  });
}

function watch(page: Page): Page {
  page.on('request', (r) => requests.push({ url: r.url(), auth: r.headers().authorization }));
  page.on('response', (r) => {
    if (r.status() >= 400) failures.push({ url: r.url(), status: r.status() });
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text());
  });
  return page;
}

async function newPage(): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  return { ctx, page: watch(await ctx.newPage()) };
}

async function signIn(page: Page): Promise<void> {
  await page.goto(`${base}/ui/`);
  await page.fill('[data-testid=token]', token);
  await page.click('[data-testid=sign-in]');
  await page.waitForSelector('[data-testid=profiles]');
}

async function shot(page: Page, name: string): Promise<void> {
  const path = join(artifactsDir(), `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  shots.push(path);
}

/** Polls the text of a selector until `ok` holds (Playwright's expect is not in playwright-core). */
async function waitText(page: Page, selector: string, ok: (t: string) => boolean, timeoutMs = 20_000): Promise<string> {
  return waitFor(
    async () => {
      const t = await page
        .locator(selector)
        .first()
        .textContent({ timeout: 1000 })
        .catch(() => null);
      return t !== null && ok(t) ? t : undefined;
    },
    { what: `${selector} to match`, timeoutMs: timeoutMs, intervalMs: 100 },
  );
}

/** The traffic report the double of `GET /v1/profiles/app/traffic` returns: 11 queries from DE, US and unknown. */
function trafficDouble() {
  const start = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000).toISOString();
  const at = (min: number) => new Date(Date.parse(start) + min * 60_000).toISOString();
  const report = {
    profile: 'app',
    bucketSeconds: 60,
    from: start,
    to: at(2),
    buckets: [
      {
        start,
        counts: [
          { country: 'DE', endpoint: 'web/backup', queries: 5 },
          { country: 'US', endpoint: 'app/us', queries: 3 },
        ],
      },
      {
        start: at(1),
        counts: [
          { country: 'DE', endpoint: 'web/backup', queries: 2 },
          { country: 'ZZ', endpoint: 'app/rest', queries: 1 },
        ],
      },
    ],
  };
  return { report, at };
}

const MONITOR = { interval: 10, timeout: 5, tolerated: 0 };
/** docs/health.md "Worst-case failover": interval × (tolerated + 1) + timeout. */
const DETECTION_S = MONITOR.interval * (MONITOR.tolerated + 1) + MONITOR.timeout;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-ui-'));
  token = randomBytes(24).toString('base64url');
  pair = await healthServerPair('127.0.0.5', '127.0.0.6');
  const doc = {
    apiVersion: 'tmkit/v1',
    stack: 'ui',
    profiles: [
      {
        name: 'web',
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: 'web', ttl: 5 },
        monitorConfig: {
          protocol: 'HTTP',
          port: pair[0].port,
          path: '/healthz',
          intervalInSeconds: MONITOR.interval,
          timeoutInSeconds: MONITOR.timeout,
          toleratedNumberOfFailures: MONITOR.tolerated,
        },
        endpoints: [
          { name: 'primary', type: 'externalEndpoints', target: '127.0.0.5' },
          { name: 'backup', type: 'externalEndpoints', target: '127.0.0.6' },
        ],
      },
      {
        name: 'app',
        trafficRoutingMethod: 'Geographic',
        dnsConfig: { relativeName: 'app', ttl: 5 },
        trafficViewEnrollmentStatus: 'Enabled',
        endpoints: [
          { name: 'eu', type: 'nestedEndpoints', targetResourceId: 'web', geoMapping: ['GEO-EU'], minChildEndpoints: 1 },
          { name: 'us', type: 'externalEndpoints', target: '192.0.2.10', geoMapping: ['GEO-NA'], alwaysServe: 'Enabled' },
          { name: 'rest', type: 'externalEndpoints', target: '192.0.2.20', geoMapping: ['WORLD'], alwaysServe: 'Enabled' },
        ],
      },
    ],
  };
  const file = join(dir, 'doc.json');
  writeFileSync(file, JSON.stringify(doc));
  serve = await spawnServe(join(dir, 'state'), ['--zone', 'tm.internal'], { TMKIT_TOKEN: token });
  const applied = await runTmkit(['apply', file, '--yes'], { env: { TMKIT_SERVER: serve.api, TMKIT_TOKEN: token } });
  if (applied.code !== 0) throw new Error(`tmkit apply failed:\n${applied.stdout}\n${applied.stderr}`);
  // tmkit serve serves the dashboard and every route it uses; a server missing one fails here.
  has = await probeServer();
  expect(has).toEqual({ ui: true, traffic: true, preview: true, events: true });
  base = serve.api;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  if (pair) {
    await pair[0].close();
    await pair[1].close();
  }
  if (shots.length > 0) console.log(`screenshots:\n${shots.join('\n')}`);
  rmSync(dir, { recursive: true, force: true });
});

test('nothing works without the token: a wrong one is refused with where to find it; the right one is kept for this tab only', async () => {
  const { ctx, page } = await newPage();
  const mine = requests.length;
  try {
    await page.goto(`${base}/ui/`);
    await page.waitForSelector('[data-testid=login]');
    expect(requests.slice(mine).filter((r) => r.url.includes('/v1/'))).toEqual([]);
    await shot(page, 'login');

    await page.fill('[data-testid=token]', 'not-the-token');
    await page.click('[data-testid=sign-in]');
    const err = await waitText(page, '[data-testid=login-error]', (t) => t.length > 0);
    expect(err).toContain('HTTP 401');
    expect(err).toContain('<state-dir>/token');
    // Where the token is, said once on the card (it was said three times: notice, hint and error).
    expect((await page.textContent('[data-testid=login]'))!.split('<state-dir>/token').length - 1).toBe(1);
    expect(await page.locator('[data-testid=login-message]').count()).toBe(0);
    expect(await page.evaluate("sessionStorage.getItem('tmkit.token')")).toBeNull();

    await page.fill('[data-testid=token]', token);
    await page.click('[data-testid=sign-in]');
    await page.waitForSelector('[data-testid=profile-row-web]');
    expect(await page.evaluate("sessionStorage.getItem('tmkit.token')")).toBe(token);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    // Every data call after sign-in carried the token.
    const calls = requests.slice(mine).filter((r) => new URL(r.url).pathname.startsWith('/v1/'));
    expect(calls.length).toBeGreaterThan(2);
    expect(calls.filter((r) => r.auth !== `Bearer ${token}`)).toEqual([{ url: `${base}/v1/profiles`, auth: 'Bearer not-the-token' }]); // the refused try
    // Live updates: the server's event stream (said in the header).
    await waitText(page, '[data-testid=live-mode]', (t) => t.includes('live'), 10_000);

    // A reload keeps the tab signed in; a new tab (its own sessionStorage) starts at the login page.
    await page.reload();
    await page.waitForSelector('[data-testid=profile-row-web]');
    const other = watch(await ctx.newPage());
    await other.goto(`${base}/ui/`);
    await other.waitForSelector('[data-testid=login]');
    await other.close();

    await page.click('[data-testid=sign-out]');
    await page.waitForSelector('[data-testid=login]');
    expect(await page.evaluate("sessionStorage.getItem('tmkit.token')")).toBeNull();
  } finally {
    await ctx.close();
  }
});

test('profiles page: name, FQDN, routing method, monitor status, all-degraded, stack and revision of every profile, as the API reports them', async () => {
  await waitFor(async () => (await api('GET', '/v1/profiles/web/status')).json.profileMonitorStatus === 'Online', {
    what: 'web Online',
    timeoutMs: 60_000,
    intervalMs: 200,
  });
  const { ctx, page } = await newPage();
  try {
    await signIn(page);
    const list = (await api('GET', '/v1/profiles')).json as {
      profiles: Array<{ name: string; stack: string; etag: string; profile: { trafficRoutingMethod: string } }>;
    };
    expect(list.profiles.map((p) => p.name).sort()).toEqual(['app', 'web']);
    for (const p of list.profiles) {
      const s = (await api('GET', `/v1/profiles/${p.name}/status`)).json;
      const row = `[data-testid=profile-row-${p.name}]`;
      await waitText(page, `${row} [data-testid=monitor-status]`, (t) => t === s.profileMonitorStatus);
      const cells = await page.locator(`${row} td`).allTextContents();
      expect(cells.slice(0, 7)).toEqual([
        p.name,
        s.fqdn,
        p.profile.trafficRoutingMethod,
        s.profileMonitorStatus,
        s.allDegradedFallback ? 'yes' : 'no',
        p.stack,
        /^"(\d+)-/.exec(p.etag)![1],
      ]);
    }
    await shot(page, 'profiles');
  } finally {
    await ctx.close();
  }
});

test(`profile page: stopping the primary's health server shows it Degraded within the detection bound (${DETECTION_S} s) and "resolve as" moves to the backup`, async () => {
  const [primary] = pair;
  const { ctx, page } = await newPage();
  try {
    await signIn(page);
    await page.goto(`${base}/ui/#/profiles/web`);
    await waitText(page, '[data-testid=endpoint-primary] [data-testid=endpoint-monitor-status]', (t) => t === 'Online', 60_000);
    await waitText(page, '[data-testid=endpoint-primary] [data-testid=last-probe]', (t) => t.startsWith('ok: status 200'));

    await page.fill('[data-testid=resolve-ip]', '127.0.0.1');
    await page.click('[data-testid=resolve-go]');
    await waitText(page, '[data-testid=resolve-records]', (t) => t.includes('web.tm.internal. 5 IN A 127.0.0.5'));
    expect(await page.textContent('[data-testid=resolve-endpoints]')).toBe('web/primary');

    // "Recent answers": a real query (ECS 81.2.69.0/24, sent from loopback) is in the node's decision log, and the
    // page finds it by its client prefix, with the rule and the trail.
    expect(await digSubnet('web.tm.internal', '81.2.69.0/24')).toEqual(['127.0.0.5']);
    await page.fill('[data-testid=answers-client]', '81.2.69.0/24');
    await page.click('[data-testid=answers-go]');
    await waitText(page, '[data-testid=answers] [data-testid=answer-endpoints]', (t) => t === 'web/primary', 15_000);
    const row = page.locator('[data-testid=answer-row]').first();
    expect(await row.textContent()).toContain('81.2.69.0 (ECS, from 127.0.0.1) udp');
    expect(await row.locator('[data-testid=answer-rule]').textContent()).toContain('priority 1: first available in priority order');
    await row.click();
    expect(await row.locator('ol.why').textContent()).toContain('Priority routing');

    // Steady state (docs/health.md "Worst-case failover"): a periodic probe has come after the immediate one.
    await waitFor(() => primary.hits() >= 2, { what: 'a second probe of the primary', timeoutMs: 30_000, intervalMs: 100 });
    const stopped = Date.now();
    await primary.close();
    await waitText(page, '[data-testid=profile-monitor-status]', (t) => t === 'Degraded', (DETECTION_S + 20) * 1000);
    const seen = (Date.now() - stopped) / 1000;
    console.log(
      `dashboard showed web Degraded ${seen.toFixed(1)} s after its primary's health server stopped (detection bound ${DETECTION_S} s)`,
    );
    // The bound, plus the page's refresh (2 s polling without the event stream) and rendering.
    expect(seen).toBeLessThanOrEqual(DETECTION_S + 4);

    // The resolve box asks again by itself when the status moves.
    await waitText(page, '[data-testid=resolve-records]', (t) => t.includes('web.tm.internal. 5 IN A 127.0.0.6'), 10_000);
    expect(await page.textContent('[data-testid=resolve-endpoints]')).toBe('web/backup');
    expect(await page.textContent('[data-testid=resolve-why]')).toContain('priority 1: Degraded');

    expect(await page.textContent('[data-testid=endpoint-primary] [data-testid=endpoint-monitor-status]')).toBe('Degraded');
    await waitText(page, '[data-testid=endpoint-primary] [data-testid=last-probe]', (t) => t.startsWith('failed: connection refused'));
    // The timeline has the primary's lane turn Degraded, and the transition is listed.
    expect(await page.locator('[data-testid=lane-primary] rect[data-status=Degraded]').count()).toBe(1);
    expect(await page.locator('[data-testid=lane-primary] rect[data-status=Online]').count()).toBe(1);
    const transitions = await page.textContent('[data-testid=transitions]');
    expect(transitions).toMatch(/primaryOnline → Degradedconnection refused/);
    await shot(page, 'profile-web');
  } finally {
    await ctx.close();
  }
});

test('profile page of a nesting profile: the tree of children with their status; "resolve as" answers per client IP and says why', async () => {
  const { ctx, page } = await newPage();
  try {
    await signIn(page);
    await page.goto(`${base}/ui/#/profiles/app`);
    await page.waitForSelector('[data-testid=tree]');
    const web = (await api('GET', '/v1/profiles/web/status')).json;
    await waitText(page, '[data-testid=tree-profile-web] .badge', (t) => t === web.profileMonitorStatus);
    expect(await page.textContent('[data-testid=tree-endpoint-app-eu]')).toContain('nested → web');
    expect(await page.textContent('[data-testid=tree-endpoint-web-primary] .badge')).toBe(
      web.endpoints.find((e: { name: string }) => e.name === 'primary').endpointMonitorStatus,
    );

    for (const clientIp of ['85.214.1.1', '8.8.8.8']) {
      const want = (await api('POST', '/v1/resolve', { name: 'app.tm.internal', type: 'A', clientIp })).json;
      await page.fill('[data-testid=resolve-ip]', clientIp);
      await page.click('[data-testid=resolve-go]');
      await waitText(page, '[data-testid=resolve-result]', (t) => t.includes(`for ${clientIp}`));
      expect(await page.textContent('[data-testid=resolve-endpoints]')).toBe(want.endpoints.join(', '));
      expect(await page.textContent('[data-testid=resolve-records]')).toBe(
        want.records
          .map((r: { name: string; ttl: number; type: string; data: string }) => `${r.name}. ${r.ttl} IN ${r.type} ${r.data}`)
          .join('\n'),
      );
      const geo = want.explanation.find((s: { kind: string }) => s.kind === 'geo-match');
      expect(await page.textContent('[data-testid=resolve-why]')).toContain(geo.detail);
    }
    await shot(page, 'profile-app');
  } finally {
    await ctx.close();
  }
});

test('profile page shows health pushed from outside with its reason and end, and clears it (issue 31)', async () => {
  const { ctx, page } = await newPage();
  try {
    await signIn(page);
    const pushed = await api('PUT', '/v1/profiles/web/endpoints/backup/health', {
      status: 'Degraded',
      ttlSeconds: 120,
      reason: 'game day',
    });
    expect(pushed.status).toBe(200);
    await page.goto(`${base}/ui/#/profiles/web`);
    await waitText(page, '[data-testid=endpoint-backup] [data-testid=health-inputs]', (t) =>
      /^pushed Degraded: game day \(ends in [12] min\)$/.test(t),
    );
    await waitText(page, '[data-testid=endpoint-backup] [data-testid=endpoint-reason]', (t) =>
      /^pushed Degraded until .*: game day$/.test(t),
    );
    await shot(page, 'profile-web-pushed');
    expect((await api('DELETE', '/v1/profiles/web/endpoints/backup/health')).json).toEqual({
      profile: 'web',
      endpoint: 'backup',
      cleared: true,
    });
    // The cell empties (waitText wants a non-empty text: the row's reason says it).
    await waitText(
      page,
      '[data-testid=endpoint-backup] [data-testid=endpoint-reason]',
      (t) => t === 'probe verdict Online' || t === 'probe verdict Degraded',
      10_000,
    );
    expect(await page.textContent('[data-testid=endpoint-backup] [data-testid=health-inputs]')).toBe('');
  } finally {
    await api('DELETE', '/v1/profiles/web/endpoints/backup/health');
    await ctx.close();
  }
});

test('Traffic View counts the queries sent with dig +subnet, per country and endpoint, from the real server', async () => {
  const { ctx, page } = await newPage();
  try {
    await signIn(page);
    const sent = [
      { subnet: '85.214.1.0/24', ip: '85.214.1.1', country: 'DE', n: 6 },
      { subnet: '8.8.8.0/24', ip: '8.8.8.8', country: 'US', n: 4 },
    ];
    for (const s of sent) {
      for (let i = 0; i < s.n; i++) expect((await digSubnet('app.tm.internal', s.subnet)).length).toBe(1);
    }
    await page.goto(`${base}/ui/#/profiles/app/traffic`);
    for (const s of sent) {
      const endpoint = (await api('POST', '/v1/resolve', { name: 'app.tm.internal', clientIp: s.ip })).json.endpoints[0];
      await waitFor(
        async () => {
          const rows = await page
            .locator(`[data-testid=traffic-row-${s.country}]`)
            .evaluateAll((els) =>
              els.map((e) => ({ endpoint: e.getAttribute('data-endpoint'), queries: Number(e.getAttribute('data-queries')) })),
            );
          return rows.length === 1 && rows[0]!.endpoint === endpoint && rows[0]!.queries === s.n;
        },
        { what: `Traffic View row ${s.country}`, timeoutMs: 30_000, intervalMs: 250 },
      );
      expect(await page.getAttribute(`[data-testid=traffic-map] path[data-country=${s.country}]`, 'data-fill')).not.toBe('');
    }
    expect(await page.getAttribute('[data-testid=traffic-map] path[data-country=FR]', 'data-fill')).toBe('');
    await shot(page, 'traffic-view');
  } finally {
    await ctx.close();
  }
});

test("routing map shows who gets which endpoint now and under a failure scenario, from the real server's POST /v1/preview", async () => {
  const { ctx, page } = await newPage();
  try {
    await signIn(page);
    await page.goto(`${base}/ui/#/profiles/app/traffic`);
    await page.waitForSelector('[data-testid=routing-map]');
    // The map must show exactly the server's preview: each country coloured as the endpoint its own row,
    // else its region group's row, gives it (computed here with the page's own functions).
    const preview = async (down: string[]) =>
      (await api('POST', '/v1/preview', { profile: 'app', ...(down.length > 0 ? { down } : {}) })).json as { rows: PreviewRow[] };
    const now = await preview([]);
    const scenario = await preview(['eu']);
    const colors = endpointColors([...now.rows, ...scenario.rows].map((r) => r.endpoint));
    const expected = (rows: PreviewRow[], code: string) => {
      const r = countryRoutes(groupPreview(rows)).get(code);
      return r ? mix(colors.get(r.endpoint)!, 0.4 + 0.6 * r.probability) : '';
    };
    const fill = (code: string) => page.getAttribute(`[data-testid=routing-map] path[data-country=${code}]`, 'data-fill');
    for (const code of ['DE', 'US', 'BR'])
      await waitFor(async () => (await fill(code)) === expected(now.rows, code), {
        what: `${code} as the preview says now`,
        timeoutMs: 10_000,
        intervalMs: 100,
      });
    await page.check('[data-testid=down-eu]');
    for (const code of ['DE', 'US', 'BR'])
      await waitFor(async () => (await fill(code)) === expected(scenario.rows, code), {
        what: `${code} as the preview says with eu down`,
        timeoutMs: 10_000,
        intervalMs: 100,
      });
    const changed = diffScenario(groupPreview(now.rows), groupPreview(scenario.rows)).filter((d) => d.changed).length;
    await waitText(page, '[data-testid=scenario-changed]', (t) => t.startsWith(`${changed} of `));
    await shot(page, 'routing-map');
  } finally {
    await ctx.close();
  }
});

test('Traffic View and routing map draw the data the API returns: shading, colours per endpoint, table, hierarchy fallback, scenario diff (fixed route answers, for exact rendering; the real routes are checked by the tests above)', async () => {
  const { ctx, page } = await newPage();
  try {
    const { report } = trafficDouble();
    const rowsNow = [
      { client: 'GEO-EU', label: 'Europe', endpoint: 'web/backup', probability: 1 },
      { client: 'GEO-NA', label: 'North America', endpoint: 'app/us', probability: 1 },
      { client: 'WORLD', label: 'World', endpoint: 'app/rest', probability: 1 },
    ];
    // Test double for the two routes only; every other call goes to the real server.
    await page.route('**/v1/profiles/app/traffic*', (r) =>
      r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(report) }),
    );
    await page.route('**/v1/preview', (r) => {
      const body = r.request().postDataJSON() as { down?: string[] };
      const rows = body.down?.includes('eu') ? rowsNow.map((x) => (x.client === 'GEO-EU' ? { ...x, endpoint: 'app/rest' } : x)) : rowsNow;
      return r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ profile: 'app', rows }) });
    });
    await signIn(page);
    await page.goto(`${base}/ui/#/profiles/app/traffic`);
    await waitText(page, '[data-testid=traffic-total]', (t) => t.startsWith('11 queries from 3 locations'));
    const table = await page
      .locator('[data-testid=traffic-table] tbody tr')
      .evaluateAll((els) => els.map((e) => [...e.querySelectorAll('td')].map((td) => td.textContent)));
    expect(table).toEqual([
      ['Germany DE', ' web/backup', '7', '100%'],
      ['United States US', ' app/us', '3', '100%'],
      ['Unknown location ZZ', ' app/rest', '1', '100%'],
    ]);
    const colors = endpointColors(['web/backup', 'app/us', 'app/rest']);
    const fill = (code: string, map = 'traffic-map') => page.getAttribute(`[data-testid=${map}] path[data-country=${code}]`, 'data-fill');
    expect(await fill('DE')).toBe(mix(colors.get('web/backup')!, 1));
    expect(await fill('US')).toBe(mix(colors.get('app/us')!, volumeIntensity(3, 7)));
    expect(await fill('FR')).toBe('');
    expect(await page.locator('[data-testid=traffic-bars] rect').count()).toBe(2);

    // Routing map: countries take their group's row (FR via GEO-EU, BR via WORLD).
    await waitFor(async () => (await fill('FR', 'routing-map')) === mix(colors.get('web/backup')!, 1), {
      what: 'routing map',
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    expect(await fill('CA', 'routing-map')).toBe(mix(colors.get('app/us')!, 1));
    expect(await fill('BR', 'routing-map')).toBe(mix(colors.get('app/rest')!, 1));
    await page.check('[data-testid=down-eu]');
    await waitFor(async () => (await fill('FR', 'routing-map')) === mix(colors.get('app/rest')!, 1), {
      what: 'FR to move to rest with eu down',
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    expect(await page.textContent('[data-testid=scenario-changed]')).toBe('1 of 3 client classes change with eu down.');
    expect(await page.locator('[data-testid=routing-table] tbody tr').evaluateAll((els) => els.map((e) => e.textContent))).toEqual([
      'Europe GEO-EUweb/backupapp/rest',
    ]);
    await shot(page, 'traffic-view-double');
  } finally {
    await ctx.close();
  }
});

test('the routing table says "60 of N client classes", shows all on request and filters by region (a preview double with a row per country)', async () => {
  const { ctx, page } = await newPage();
  try {
    const countries = [...GEO_REGIONS.values()].filter((g) => g.depth === 2);
    const europe = countries.filter((g) => g.parent === 'GEO-EU').length;
    await page.route('**/v1/preview', (r) =>
      r.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          profile: 'app',
          rows: countries.map((g) => ({ client: g.code, label: g.name, endpoint: 'app/rest', probability: 1 })),
        }),
      }),
    );
    await signIn(page);
    await page.goto(`${base}/ui/#/profiles/app/traffic`);
    const rows = () => page.locator('[data-testid=routing-table] tbody tr').count();
    await waitText(page, '[data-testid=routing-table-count]', (t) => t === `60 of ${countries.length} client classes`);
    expect(await rows()).toBe(60);
    await page.click('[data-testid=routing-table-more]');
    await waitText(page, '[data-testid=routing-table-count]', (t) => t === `${countries.length} client classes`);
    expect(await rows()).toBe(countries.length);
    await page.selectOption('[data-testid=routing-region]', 'GEO-EU');
    await waitText(page, '[data-testid=routing-table-count]', (t) => t === `${europe} client classes in Europe`);
    expect(await rows()).toBe(europe);
    expect(await page.locator('[data-testid=route-row-DE]').count()).toBe(1);
    expect(await page.locator('[data-testid=route-row-US]').count()).toBe(0);
    await shot(page, 'routing-table-region');
  } finally {
    await ctx.close();
  }
});

test('live updates over /v1/events: with the stream up the pages stop polling, a transition reloads the profile, a traffic event adds its bucket, a dropped stream reconnects (a stream double pushes exact event sequences; the real stream is checked by the tests above)', async () => {
  const sse = await startSseDouble(token);
  const { ctx, page } = await newPage();
  try {
    const { report, at } = trafficDouble();
    await page.route('**/v1/events', (r) => r.continue({ url: `${sse.url}/v1/events` }));
    await page.route('**/v1/profiles/app/traffic*', (r) =>
      r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(report) }),
    );
    let statusCalls = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/v1/profiles/web/status') statusCalls++;
    });
    await signIn(page);
    await waitText(page, '[data-testid=live-mode]', (t) => t.includes('live'), 10_000);
    expect(sse.clients()).toBe(1);

    // With the stream up the profile page does not poll (it would every 2 s without it) ...
    await page.goto(`${base}/ui/#/profiles/web`);
    await page.waitForSelector('[data-testid=profile-monitor-status]');
    await page.waitForTimeout(500);
    const settled = statusCalls;
    await page.waitForTimeout(3000);
    expect(statusCalls).toBe(settled);
    // ... a transition of a profile it does not show changes nothing, one of its own reloads it once.
    sse.push('transition', {
      at: new Date().toISOString(),
      profile: 'elsewhere',
      endpoint: 'x',
      from: 'Online',
      to: 'Degraded',
      reason: 'test event',
      location: 'double',
    });
    await page.waitForTimeout(1000);
    expect(statusCalls).toBe(settled);
    sse.push('transition', {
      at: new Date().toISOString(),
      profile: 'web',
      endpoint: 'primary',
      from: 'Degraded',
      to: 'Online',
      reason: 'test event',
      location: 'double',
    });
    await waitFor(() => statusCalls === settled + 1, { what: 'one reload after the transition event', timeoutMs: 5000, intervalMs: 50 });
    await page.waitForTimeout(500);
    expect(statusCalls).toBe(settled + 1);

    // A traffic event's bucket joins the report without a reload; another profile's is ignored.
    await page.goto(`${base}/ui/#/profiles/app/traffic`);
    await waitText(page, '[data-testid=traffic-total]', (t) => t.startsWith('11 queries from 3 locations'));
    sse.push('traffic', { profile: 'web', bucket: { start: at(2), counts: [{ country: 'BR', endpoint: 'web/backup', queries: 9 }] } });
    sse.push('traffic', { profile: 'app', bucket: { start: at(2), counts: [{ country: 'FR', endpoint: 'web/backup', queries: 4 }] } });
    await waitText(page, '[data-testid=traffic-total]', (t) => t.startsWith('15 queries from 4 locations'), 5000);
    expect(await page.getAttribute('[data-testid=traffic-row-FR]', 'data-queries')).toBe('4');
    expect(await page.locator('[data-testid=traffic-row-BR]').count()).toBe(0);
    expect(await page.getAttribute('[data-testid=traffic-map] path[data-country=FR]', 'data-fill')).not.toBe('');
    // The same bucket again (the server sends updated buckets whole) replaces it.
    sse.push('traffic', { profile: 'app', bucket: { start: at(2), counts: [{ country: 'FR', endpoint: 'web/backup', queries: 6 }] } });
    await waitText(page, '[data-testid=traffic-total]', (t) => t.startsWith('17 queries from 4 locations'), 5000);

    // The stream ends: the page polls meanwhile and reconnects after the retry the stream gave (200 ms).
    const before = sse.connections();
    sse.drop();
    await waitFor(() => sse.connections() === before + 1 && sse.clients() === 1, {
      what: 'a reconnect',
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    await waitText(page, '[data-testid=live-mode]', (t) => t.includes('live'), 5000);
  } finally {
    await ctx.close();
    await sse.close();
  }
});

test('profile page shows each composite check of the last round, its result and role (docs/health.md "Composite checks")', async () => {
  const put = await api('PUT', '/v1/profiles/chk', {
    name: 'chk',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'chk', ttl: 5 },
    monitorConfig: {
      protocol: 'HTTP',
      port: pair[1].port,
      path: '/healthz',
      intervalInSeconds: MONITOR.interval,
      timeoutInSeconds: MONITOR.timeout,
      toleratedNumberOfFailures: 0,
      checks: [{ name: 'health' }, { name: 'extra', path: '/missing', monitoringOnly: true }],
    },
    endpoints: [{ name: 'a', type: 'externalEndpoints', target: '127.0.0.6' }],
  });
  expect(put.status).toBeLessThan(300);
  const { ctx, page } = await newPage();
  try {
    await signIn(page);
    await page.goto(`${base}/ui/#/profiles/chk`);
    await waitText(page, '[data-testid=endpoint-a] [data-testid=endpoint-monitor-status]', (t) => t === 'Online', 60_000);
    const probe = await waitText(page, '[data-testid=endpoint-a] [data-testid=last-probe]', (t) => t.includes('extra:'));
    expect(probe).toContain('ok: checks: health ok, extra FAILED (404, monitoring only), 1 of 1 >= quorum 1');
    const rows = await page.locator('[data-testid=endpoint-a] [data-testid=check]').allTextContents();
    expect(rows).toEqual([
      expect.stringMatching(/^health: ok \(status 200\)$/),
      expect.stringMatching(/^extra: failed \(status 404(, \d+× in a row)?\) monitoring only$/),
    ]);
    await shot(page, 'profile-checks');
  } finally {
    await ctx.close();
    await api('DELETE', '/v1/profiles/chk');
  }
});

test('the pages asked nothing of any other origin, threw nothing, and every failed request was an expected one', () => {
  const origin = new URL(base).origin;
  expect(requests.filter((r) => !r.url.startsWith(`${origin}/`) && !r.url.startsWith('data:')).map((r) => r.url)).toEqual([]);
  expect(pageErrors).toEqual([]);
  const unexpected = failures.filter((f) => !(f.status === 401 && f.url === `${origin}/v1/profiles`));
  expect(unexpected).toEqual([]);
});
