import type { ProfileStatusReport } from '../../ui/src/api/types';
import { endpointColors, mix, NO_ANSWER_COLOR } from '../../ui/src/lib/colors';
import { ago, detectionSeconds, etagRevision, percent } from '../../ui/src/lib/format';
import { parseRoute } from '../../ui/src/lib/routes';
import { buildTree } from '../../ui/src/lib/tree';

describe('routes', () => {
  test.each([
    ['', { page: 'profiles' }],
    ['#/', { page: 'profiles' }],
    ['#/profiles/web', { page: 'profile', name: 'web' }],
    ['#/profiles/a%20b/traffic', { page: 'traffic', name: 'a b' }],
    ['#/profiles/%E0%A4%A', { page: 'not-found', hash: '#/profiles/%E0%A4%A' }],
    ['#/nope', { page: 'not-found', hash: '#/nope' }],
  ])('%s', (hash, want) => expect(parseRoute(hash)).toEqual(want));
});

describe('format', () => {
  test('the ETag revision (docs/api.md: "<modRevision>-<16 hex>")', () => {
    expect(etagRevision('"12-0123456789abcdef"')).toBe(12);
    expect(etagRevision('W/"3-ab"')).toBe(3);
    expect(etagRevision('opaque')).toBeUndefined();
  });
  test('worst-case detection is the formula of docs/health.md: Azure defaults 130 s (+ TTL 30 = 160 s failover), fastest 15 s', () => {
    expect(detectionSeconds({ intervalInSeconds: 30, toleratedNumberOfFailures: 3, timeoutInSeconds: 10 })).toBe(130);
    expect(detectionSeconds({ intervalInSeconds: 10, toleratedNumberOfFailures: 0, timeoutInSeconds: 5 })).toBe(15);
  });
  test('ago and percent', () => {
    const now = Date.parse('2026-01-01T01:00:00Z');
    expect(ago('2026-01-01T00:59:50Z', now)).toBe('10 s ago');
    expect(ago('2026-01-01T00:55:00Z', now)).toBe('5 min ago');
    expect(ago(undefined, now)).toBe('—');
    expect([percent(1), percent(0.5), percent(0.05), percent(0)]).toEqual(['100%', '50%', '5.0%', '0%']);
  });
});

describe('colors', () => {
  test('one colour per endpoint, the same for the same set whatever the order; no answer is grey', () => {
    const a = endpointColors(['b/y', 'a/x', '', 'a/x']);
    const b = endpointColors(['a/x', 'b/y']);
    expect(a.get('a/x')).toBe(b.get('a/x'));
    expect(a.get('b/y')).toBe(b.get('b/y'));
    expect(a.get('a/x')).not.toBe(a.get('b/y'));
    expect(a.get('')).toBe(NO_ANSWER_COLOR);
  });
  test('mix goes from the empty colour to the colour', () => {
    expect(mix('#000000', 0, '#ffffff')).toBe('#ffffff');
    expect(mix('#000000', 1, '#ffffff')).toBe('#000000');
    expect(mix('#000000', 0.5, '#ffffff')).toBe('#808080');
    expect(() => mix('red', 1)).toThrow('not a #rrggbb colour: red');
  });
});

describe('buildTree (nesting)', () => {
  const status = (name: string, endpoints: Array<{ name: string; nested?: string }>): ProfileStatusReport => ({
    name,
    stack: 's',
    etag: '"1-a"',
    revision: 1,
    fqdn: `${name}.tm.internal`,
    profileStatus: 'Enabled',
    profileMonitorStatus: 'Online',
    allDegradedFallback: false,
    transitions: [],
    endpoints: endpoints.map((e) => ({
      name: e.name,
      type: e.nested ? 'nestedEndpoints' : 'externalEndpoints',
      endpointStatus: 'Enabled',
      endpointMonitorStatus: 'Online',
      reason: '',
      probed: !e.nested,
      ...(e.nested ? { targetResourceId: e.nested } : { target: '192.0.2.1' }),
    })),
  });

  test('children under their nested endpoints, matched by name in any case and by ARM id', () => {
    const tree = buildTree(
      'top',
      new Map<string, ProfileStatusReport | string>([
        [
          'top',
          status('top', [
            { name: 'eu', nested: 'EU-Child' },
            { name: 'us', nested: '/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/us-child' },
            { name: 'plain' },
          ]),
        ],
        ['eu-child', status('eu-child', [{ name: 'a' }])],
        ['us-child', 'HTTP 404: no profile us-child'],
      ]),
    );
    expect(tree.endpoints.map((e) => [e.name, e.child?.profile, e.child?.missing])).toEqual([
      ['eu', 'eu-child', undefined],
      ['us', 'us-child', 'HTTP 404: no profile us-child'],
      ['plain', undefined, undefined],
    ]);
    expect(tree.endpoints[0]!.child!.endpoints.map((e) => e.name)).toEqual(['a']);
  });

  test('a profile that is its own ancestor is marked, not followed; depth is bounded', () => {
    const loop = buildTree(
      'a',
      new Map([
        ['a', status('a', [{ name: 'to-b', nested: 'b' }])],
        ['b', status('b', [{ name: 'back', nested: 'a' }])],
      ]),
    );
    expect(loop.endpoints[0]!.child!.endpoints[0]).toMatchObject({ name: 'back', cycle: true });
    expect(loop.endpoints[0]!.child!.endpoints[0]!.child).toBeUndefined();
    const chain = new Map(Array.from({ length: 15 }, (_, i) => [`p${i}`, status(`p${i}`, [{ name: 'n', nested: `p${i + 1}` }])] as const));
    let depth = 0;
    for (let n: ReturnType<typeof buildTree> | undefined = buildTree('p0', chain, 10); n; n = n.endpoints[0]?.child) depth++;
    expect(depth).toBe(10);
  });
});
