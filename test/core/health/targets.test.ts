import fc from 'fast-check';
import { normalizeProfile } from '../../../src/core/model/normalize';
import type { EndpointInput, MonitorConfigInput, ProfileInput } from '../../../src/core/model/types';
import type { AzureResource } from '../../../src/core/ports';
import { mergeHeaders, probeDecision, probeTargets, statusExpected, targetKind, type ProbeTarget } from '../../../src/core/health/targets';

const APP_ID = '/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Web/sites/App';
const STOPPED_ID = '/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Web/sites/stopped';
const catalog = new Map<string, AzureResource>([
  [APP_ID.toLowerCase(), { target: 'app.azurewebsites.net', location: 'westus', state: 'running' }],
  [STOPPED_ID.toLowerCase(), { target: 'stopped.azurewebsites.net', location: 'westus', state: 'stopped' }],
]);

function profile(endpoints: EndpointInput[], monitorConfig?: MonitorConfigInput, extra: Partial<ProfileInput> = {}) {
  return normalizeProfile({
    name: 'p',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'p' },
    ...(monitorConfig ? { monitorConfig } : {}),
    endpoints,
    ...extra,
  });
}

const ext = (name: string, target: string, more: Partial<EndpointInput> = {}): EndpointInput => ({
  name,
  type: 'externalEndpoints',
  target,
  ...more,
});

describe('which endpoints are probed', () => {
  test.each<[string, Partial<ProfileInput>, EndpointInput, string | undefined]>([
    ['enabled external', {}, ext('e', 'a.example.net'), undefined],
    ['profile disabled', { profileStatus: 'Disabled' }, ext('e', 'a.example.net'), 'profile-disabled'],
    ['endpoint disabled', {}, ext('e', 'a.example.net', { endpointStatus: 'Disabled' }), 'endpoint-disabled'],
    ['always serve', {}, ext('e', 'a.example.net', { alwaysServe: 'Enabled' }), 'always-serve'],
    ['nested', {}, { name: 'e', type: 'nestedEndpoints', targetResourceId: 'child' }, 'nested'],
    [
      'azure running (catalog, id case-insensitive)',
      {},
      { name: 'e', type: 'azureEndpoints', targetResourceId: APP_ID.toUpperCase() },
      undefined,
    ],
    ['azure stopped', {}, { name: 'e', type: 'azureEndpoints', targetResourceId: STOPPED_ID }, 'resource-stopped'],
    [
      'azure stopped even with an inline target',
      {},
      { name: 'e', type: 'azureEndpoints', targetResourceId: STOPPED_ID, target: 'x.example' },
      'resource-stopped',
    ],
    [
      'azure unknown id with inline target',
      {},
      { name: 'e', type: 'azureEndpoints', targetResourceId: '/x/unknown', target: 'x.example' },
      undefined,
    ],
    ['azure unknown id, no target', {}, { name: 'e', type: 'azureEndpoints', targetResourceId: '/x/unknown' }, 'no-target'],
    ['external without target', {}, { name: 'e', type: 'externalEndpoints' }, 'no-target'],
  ])('%s', (_name, extra, endpoint, why) => {
    const p = profile([endpoint], undefined, extra);
    const d = probeDecision(p, p.endpoints[0]!, catalog);
    if (why === undefined) expect(d.probe).toBe(true);
    else expect(d).toEqual({ probe: false, why });
    expect(probeTargets([p], catalog).map((t) => t.key)).toEqual(why === undefined ? ['p/e'] : []);
  });

  test('azure target comes from the catalog unless given inline', () => {
    const p = profile([
      { name: 'cat', type: 'azureEndpoints', targetResourceId: APP_ID },
      { name: 'inline', type: 'azureEndpoints', targetResourceId: APP_ID, target: 'override.example.com' },
    ]);
    expect(probeTargets([p], catalog).map((t) => [t.key, t.target])).toEqual([
      ['p/cat', 'app.azurewebsites.net'],
      ['p/inline', 'override.example.com'],
    ]);
  });

  test('targets of several profiles, in document order, with stable keys', () => {
    const a = profile([ext('x', '10.0.0.1'), ext('y', '10.0.0.2')]);
    const b = normalizeProfile({
      name: 'q',
      trafficRoutingMethod: 'Weighted',
      dnsConfig: { relativeName: 'q' },
      endpoints: [ext('x', '10.0.0.3')],
    });
    expect(probeTargets([a, b], catalog).map((t) => t.key)).toEqual(['p/x', 'p/y', 'q/x']);
  });
});

describe('effective settings', () => {
  const only = (p: ReturnType<typeof profile>): ProbeTarget => {
    const ts = probeTargets([p], catalog);
    expect(ts).toHaveLength(1);
    return ts[0]!;
  };

  test('HTTP defaults: port 80, path /, only 200, Host = FQDN target', () => {
    const t = only(profile([ext('e', 'www.example.com.')]));
    expect(t).toMatchObject({
      key: 'p/e',
      profile: 'p',
      endpoint: 'e',
      target: 'www.example.com',
      targetKind: 'fqdn',
      protocol: 'HTTP',
      port: 80,
      path: '/',
      intervalInSeconds: 30,
      timeoutInSeconds: 10,
      toleratedNumberOfFailures: 3,
      headers: [{ name: 'Host', value: 'www.example.com' }],
      expectedStatusCodeRanges: [{ min: 200, max: 200 }],
    });
  });

  test.each<[string, string, ProbeTarget['targetKind'], string]>([
    ['IPv4', '192.0.2.10', 'ipv4', '192.0.2.10'],
    ['IPv6', '2001:db8::1', 'ipv6', '2001:db8::1'],
    ['bracketed IPv6', '[2001:db8::1]', 'ipv6', '2001:db8::1'],
    ['FQDN', 'a.example.org', 'fqdn', 'a.example.org'],
  ])('%s target kind', (_n, raw, kind, target) => {
    const t = only(profile([ext('e', raw)]));
    expect([t.targetKind, t.target]).toEqual([kind, target]);
    expect(t.headers.some((h) => h.name.toLowerCase() === 'host')).toBe(kind === 'fqdn');
  });

  test('endpoint headers override profile headers by case-insensitive name; a custom Host wins', () => {
    const p = profile(
      [
        ext('e', 'origin.example.com', {
          customHeaders: [
            { name: 'x-env', value: 'endpoint' },
            { name: 'X-Only-Endpoint', value: '1' },
          ],
        }),
      ],
      {
        protocol: 'HTTPS',
        customHeaders: [
          { name: 'host', value: 'contoso.com' },
          { name: 'X-Env', value: 'profile' },
        ],
      },
    );
    const t = only(p);
    expect(t.port).toBe(443);
    expect(t.headers).toEqual([
      { name: 'host', value: 'contoso.com' },
      { name: 'X-Env', value: 'endpoint' },
      { name: 'X-Only-Endpoint', value: '1' },
    ]);
  });

  test('endpoint Host header overrides the default', () => {
    const t = only(profile([ext('e', 'origin.example.com', { customHeaders: [{ name: 'HOST', value: 'vanity.example' }] })]));
    expect(t.headers).toEqual([{ name: 'HOST', value: 'vanity.example' }]);
  });

  test('custom ranges replace the default 200', () => {
    const t = only(
      profile([ext('e', '10.0.0.1')], {
        expectedStatusCodeRanges: [
          { min: 200, max: 299 },
          { min: 301, max: 301 },
        ],
      }),
    );
    expect(t.expectedStatusCodeRanges).toEqual([
      { min: 200, max: 299 },
      { min: 301, max: 301 },
    ]);
  });

  test('TCP: no path, headers or ranges', () => {
    const t = only(
      profile([ext('e', 'db.example.com')], {
        protocol: 'TCP',
        port: 5432,
        intervalInSeconds: 10,
        timeoutInSeconds: 5,
        toleratedNumberOfFailures: 0,
      }),
    );
    expect(t).toMatchObject({
      protocol: 'TCP',
      port: 5432,
      headers: [],
      expectedStatusCodeRanges: [],
      intervalInSeconds: 10,
      timeoutInSeconds: 5,
      toleratedNumberOfFailures: 0,
    });
    expect(t.path).toBeUndefined();
  });

  test('a path without a leading slash gets one', () => {
    expect(only(profile([ext('e', '10.0.0.1')], { path: 'health' })).path).toBe('/health');
  });
});

describe('fingerprint', () => {
  const base: MonitorConfigInput = {
    protocol: 'HTTP',
    port: 8080,
    path: '/h',
    intervalInSeconds: 30,
    timeoutInSeconds: 10,
    toleratedNumberOfFailures: 3,
  };
  const fp = (m: MonitorConfigInput, e: Partial<EndpointInput> = {}, target = 'a.example.com') =>
    probeTargets([profile([ext('e', target, e)], m)], catalog)[0]!.fingerprint;

  test('same settings, same fingerprint (weight, priority and the like do not matter)', () => {
    expect(fp(base)).toBe(fp({ ...base }));
    expect(fp(base, { weight: 5, priority: 1 })).toBe(fp(base));
  });

  test.each<[string, MonitorConfigInput, Partial<EndpointInput>, string]>([
    ['port', { ...base, port: 8081 }, {}, 'a.example.com'],
    ['path', { ...base, path: '/other' }, {}, 'a.example.com'],
    ['protocol', { ...base, protocol: 'HTTPS' }, {}, 'a.example.com'],
    ['interval', { ...base, intervalInSeconds: 10, timeoutInSeconds: 5 }, {}, 'a.example.com'],
    ['timeout', { ...base, timeoutInSeconds: 9 }, {}, 'a.example.com'],
    ['tolerated', { ...base, toleratedNumberOfFailures: 0 }, {}, 'a.example.com'],
    ['profile header', { ...base, customHeaders: [{ name: 'x', value: '1' }] }, {}, 'a.example.com'],
    ['endpoint header', base, { customHeaders: [{ name: 'x', value: '2' }] }, 'a.example.com'],
    ['ranges', { ...base, expectedStatusCodeRanges: [{ min: 200, max: 204 }] }, {}, 'a.example.com'],
    ['target', base, {}, 'b.example.com'],
  ])('a change of %s changes it', (_n, m, e, target) => {
    expect(fp(m, e, target)).not.toBe(fp(base));
  });
});

test.each<[string, string]>([
  ['1.2.3.4', 'ipv4'],
  ['255.255.255.255', 'ipv4'],
  ['256.1.1.1', 'fqdn'],
  ['::1', 'ipv6'],
  ['fe80::1:2', 'ipv6'],
  ['localhost', 'fqdn'],
  ['a.b', 'fqdn'],
  ['1.2.3', 'fqdn'],
])('targetKind(%s) = %s', (t, kind) => expect(targetKind(t)).toBe(kind));

test.each<[number, Array<{ min: number; max: number }>, boolean]>([
  [200, [], true],
  [201, [], false],
  [301, [], false],
  [204, [{ min: 200, max: 299 }], true],
  [299, [{ min: 200, max: 299 }], true],
  [300, [{ min: 200, max: 299 }], false],
  [
    302,
    [
      { min: 200, max: 200 },
      { min: 302, max: 302 },
    ],
    true,
  ],
  // the ranges add to 200, they do not replace it (behaviors.md §8: "200 or inside expectedStatusCodeRanges")
  [200, [{ min: 500, max: 503 }], true],
  [200, [{ min: 300, max: 399 }], true],
  [301, [{ min: 300, max: 399 }], true],
  [201, [{ min: 300, max: 399 }], false],
  [503, [{ min: 300, max: 399 }], false],
])('statusExpected(%i, %j) = %s', (code, ranges, ok) => expect(statusExpected(code, ranges)).toBe(ok));

test('property: statusExpected(s, ranges) ⇔ s = 200 or s inside some range', () => {
  const range = fc
    .tuple(fc.integer({ min: 100, max: 999 }), fc.integer({ min: 100, max: 999 }))
    .map(([a, b]) => ({ min: Math.min(a, b), max: Math.max(a, b) }));
  fc.assert(
    fc.property(fc.integer({ min: 100, max: 999 }), fc.array(range, { maxLength: 8 }), (s, ranges) => {
      const inside = ranges.some((r) => r.min <= s && s <= r.max);
      expect(statusExpected(s, ranges)).toBe(s === 200 || inside);
      expect(statusExpected(200, ranges)).toBe(true);
    }),
    { numRuns: 2000 },
  );
});

test('mergeHeaders keeps the first spelling and the last value', () => {
  expect(
    mergeHeaders(
      [
        { name: 'A', value: '1' },
        { name: 'b', value: '2' },
      ],
      [
        { name: 'a', value: '3' },
        { name: ' ', value: 'x' },
      ],
    ),
  ).toEqual([
    { name: 'A', value: '3' },
    { name: 'b', value: '2' },
  ]);
});
