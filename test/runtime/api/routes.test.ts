/**
 * Routes are written once, as path patterns (`route` in src/runtime/api/http.ts): the matcher and the name
 * come from the one string. The names are the `route` label of the API's metrics and the request log, which
 * dashboards and alerts key on: this file pins each of them to the paths it labels.
 */
import { route } from '../../../src/runtime/api/http';
import { call, startApi, type Harness } from './harness';

const none = { GET: async () => ({ status: 200, body: null }) };

describe('route(pattern)', () => {
  test('each {param} is one whole segment, in order; the pattern is the name', () => {
    const r = route('/v1/profiles/{name}/endpoints/{endpoint}', none);
    expect(r.name).toBe('/v1/profiles/{name}/endpoints/{endpoint}');
    expect(r.pattern.exec('/v1/profiles/web/endpoints/a%2Fb')?.slice(1)).toEqual(['web', 'a%2Fb']);
    for (const miss of [
      '/v1/profiles/web/endpoints',
      '/v1/profiles/web/endpoints/a/b',
      '/v1/profiles//endpoints/a',
      '/v1/profiles/web/endpoints/a/',
      'x/v1/profiles/web/endpoints/a',
    ]) {
      expect({ miss, hit: r.pattern.test(miss) }).toEqual({ miss, hit: false });
    }
  });

  test('literal segments match only themselves (no regular-expression characters leak)', () => {
    const r = route('/v1/a.b', none);
    expect(r.pattern.test('/v1/a.b')).toBe(true);
    expect(r.pattern.test('/v1/aXb')).toBe(false);
  });

  test('a final /* takes the rest of the path; alsoAt adds exact paths; the name drops the *', () => {
    const r = route('/ui/*', none, ['/', '/ui']);
    expect(r.name).toBe('/ui/');
    for (const [path, hit] of [
      ['/', true],
      ['/ui', true],
      ['/ui/', true],
      ['/ui/assets/app.js', true],
      ['/uix', false],
      ['/ui.js', false],
      ['//', false],
      ['/v1/ui/', false],
    ] as const) {
      expect({ path, hit: r.pattern.test(path) }).toEqual({ path, hit });
    }
    expect(r.pattern.exec('/ui/a')!.slice(1)).toEqual([]);
  });

  test.each(['v1/profiles', '/v1/{name}x', '/v1/{}', '/v1/*/x', '/v1/x*', '/v1//x', '/v1/{na-me}'])(
    '%s is refused when the route is made',
    (bad) => {
      expect(() => route(bad, none)).toThrow(/route pattern/);
    },
  );
});

describe('the route label of every API path (metrics and the request log)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startApi();
  });
  afterAll(async () => {
    await h.close();
  });

  /** [path, the route label it is counted and logged under]: the labels as they were when routes were regexes. */
  const LABELS: Array<[string, string]> = [
    ['/', '/ui/'],
    ['/ui', '/ui/'],
    ['/ui/', '/ui/'],
    ['/ui/assets/app.js', '/ui/'],
    ['/healthz', '/healthz'],
    ['/metrics', '/metrics'],
    ['/v1/profiles', '/v1/profiles'],
    ['/v1/profiles/web', '/v1/profiles/{name}'],
    ['/v1/profiles/web/status', '/v1/profiles/{name}/status'],
    ['/v1/profiles/web/traffic', '/v1/profiles/{name}/traffic'],
    ['/v1/profiles/web/endpoints/a', '/v1/profiles/{name}/endpoints/{endpoint}'],
    ['/v1/profiles/web/endpoints/a/health', '/v1/profiles/{name}/endpoints/{endpoint}/health'],
    ['/v1/profiles/web/endpoints/a/failback', '/v1/profiles/{name}/endpoints/{endpoint}/failback'],
    ['/v1/resolve', '/v1/resolve'],
    ['/v1/preview', '/v1/preview'],
    ['/v1/events', '/v1/events'],
    ['/v1/resources', '/v1/resources'],
    ['/v1/dnssec', '/v1/dnssec'],
    ['/v1/dnssec/rollover', '/v1/dnssec/rollover'],
    ['/v1/overrides', '/v1/overrides'],
    ['/v1/overrides/o-1', '/v1/overrides/{id}'],
    ['/v1/audit', '/v1/audit'],
    ['/v1/drills', '/v1/drills'],
    ['/v1/nodes', '/v1/nodes'],
    ['/v1/shifts', '/v1/shifts'],
    ['/v1/shifts/sh-1', '/v1/shifts/{id}'],
    ['/v1/shifts/sh-1/cancel', '/v1/shifts/{id}/cancel'],
    ['/v1/webhooks', '/v1/webhooks'],
    ['/v1/webhooks/w-1', '/v1/webhooks/{id}'],
    ['/v1/nope', 'unknown'],
    ['/uix', 'unknown'],
    ['/v1/profiles/web/endpoints', 'unknown'],
  ];

  test.each(LABELS)('GET %s is labelled %s', async (path, label) => {
    const before = h.logs.length;
    await call(h.base, 'GET', path);
    const logged = h.logs
      .slice(before)
      .map((l) => JSON.parse(l) as { msg: string; route?: string })
      .filter((l) => l.msg === 'api request');
    expect(logged.map((l) => l.route)).toEqual([label]);
  });

  test('the metrics count exactly these labels', async () => {
    for (const [path] of LABELS) await call(h.base, 'GET', path);
    const m = await call(h.base, 'GET', '/metrics');
    const labels = new Set([...m.text.matchAll(/^tmkit_api_requests_total\{route="([^"]*)"/gm)].map((x) => x[1]));
    expect([...labels].sort()).toEqual([...new Set(LABELS.map(([, l]) => l))].sort());
  });
});
