import type { ProfileInput } from '../../../src/core/model/types';
import {
  buildReport,
  diff,
  failoverTimes,
  lintProfiles,
  planExitCode,
  planToJson,
  renderMarkdown,
  renderText,
} from '../../../src/core/plan';
import { doc } from './fixtures';

const ext = (name: string, extra: object = {}) => ({ name, type: 'externalEndpoints', target: `${name}.example.net`, ...extra });
const prof = (
  name: string,
  monitor: object,
  ttl: number,
  endpoints: ProfileInput['endpoints'],
  method: ProfileInput['trafficRoutingMethod'] = 'Priority',
): ProfileInput => ({ name, trafficRoutingMethod: method, dnsConfig: { relativeName: name, ttl }, monitorConfig: monitor, endpoints });

describe('worst-case failover time = interval × (tolerated + 1) + timeout + TTL', () => {
  test.each([
    // interval, tolerated, timeout, ttl, expected
    [30, 3, 10, 30, 160], // Azure defaults with a 30 s TTL (behaviors.md §8 worked timeline)
    [10, 0, 5, 0, 15], // the FAQ's fastest setting
    [10, 9, 9, 300, 409],
    [30, 0, 5, 60, 95],
  ])(
    'interval %i, tolerated %i, timeout %i, TTL %i → %i s',
    (intervalInSeconds, toleratedNumberOfFailures, timeoutInSeconds, ttl, expected) => {
      const d = doc('s', [prof('p', { intervalInSeconds, toleratedNumberOfFailures, timeoutInSeconds }, ttl, [ext('a'), ext('b')])]);
      const f = failoverTimes(new Map(d.profiles.map((p) => [p.name, p]))).get('p')!;
      expect(f.seconds).toBe(expected);
      expect(f.formula).toBe(
        `${intervalInSeconds} × (${toleratedNumberOfFailures} + 1) + ${timeoutInSeconds} + TTL ${ttl} = ${expected} s`,
      );
    },
  );

  test("through nesting: the slowest probing anywhere in the tree, plus the top profile's TTL", () => {
    const d = doc('s', [
      prof('top', { intervalInSeconds: 10, toleratedNumberOfFailures: 0, timeoutInSeconds: 5 }, 20, [
        { name: 'n1', type: 'nestedEndpoints', targetResourceId: 'mid' },
        ext('x'),
      ]),
      prof('mid', { intervalInSeconds: 10, toleratedNumberOfFailures: 1, timeoutInSeconds: 5 }, 5, [
        {
          name: 'n2',
          type: 'nestedEndpoints',
          targetResourceId: '/subscriptions/s/resourceGroups/r/providers/Microsoft.Network/trafficManagerProfiles/leaf',
        },
      ]),
      prof('leaf', { intervalInSeconds: 30, toleratedNumberOfFailures: 2, timeoutInSeconds: 10 }, 1, [ext('l1'), ext('l2')]),
    ]);
    const all = failoverTimes(new Map(d.profiles.map((p) => [p.name, p])));
    expect(all.get('top')).toMatchObject({ seconds: 30 * 3 + 10 + 20, via: ['top', 'mid', 'leaf'], detectionSeconds: 100 });
    expect(all.get('top')!.formula).toBe('30 × (2 + 1) + 10 (probe settings of leaf) + TTL 20 = 120 s');
    expect(all.get('mid')).toMatchObject({ seconds: 105, via: ['mid', 'leaf'] });
  });

  test('nothing probed (Always Serve everywhere): null, with a note', () => {
    const d = doc('s', [prof('p', {}, 30, [ext('a', { alwaysServe: 'Enabled' })])]);
    const f = failoverTimes(new Map(d.profiles.map((p) => [p.name, p]))).get('p')!;
    expect(f.seconds).toBeNull();
    expect(f.notes.join(' ')).toMatch(/traffic never moves/);
  });

  test('--max-failover-seconds: exceeding profiles make plan exit 1; otherwise 0, or 2 with --detailed-exitcode', () => {
    const d = doc('s', [
      prof('p', { intervalInSeconds: 30, toleratedNumberOfFailures: 3, timeoutInSeconds: 10 }, 30, [ext('a'), ext('b')]),
    ]);
    const plan = diff(d, []);
    expect(planExitCode(buildReport(plan, [], { maxFailoverSeconds: 159 }), false)).toBe(1);
    expect(planExitCode(buildReport(plan, [], { maxFailoverSeconds: 160 }), false)).toBe(0);
    expect(planExitCode(buildReport(plan, [], { maxFailoverSeconds: 160 }), true)).toBe(2);
    expect(buildReport(plan, [], { maxFailoverSeconds: 159 }).failover).toEqual([
      expect.objectContaining({ profile: 'p', exceeds: true, before: null }),
    ]);
  });
});

describe('lints (warnings, never errors)', () => {
  const lint = (profiles: ProfileInput[]) => {
    const d = doc('s', profiles);
    const m = new Map(d.profiles.map((p) => [p.name, p]));
    return lintProfiles(d.profiles, (n) => m.get(n)).map((w) => [w.code, w.path]);
  };

  test.each<[string, ProfileInput[], string[][]]>([
    [
      'TTL longer than failure detection',
      [prof('p', { intervalInSeconds: 10, toleratedNumberOfFailures: 0, timeoutInSeconds: 5 }, 16, [ext('a')])],
      [['LINT_TTL_EXCEEDS_DETECTION', 'profiles[p].dnsConfig.ttl']],
    ],
    [
      'TTL equal to detection is fine',
      [prof('p', { intervalInSeconds: 10, toleratedNumberOfFailures: 0, timeoutInSeconds: 5 }, 15, [ext('a')])],
      [],
    ],
    [
      'Geographic without WORLD',
      [prof('g', {}, 30, [ext('a', { geoMapping: ['GEO-EU'] })], 'Geographic')],
      [['LINT_GEOGRAPHIC_WITHOUT_WORLD', 'profiles[g].endpoints']],
    ],
    [
      'Geographic whose WORLD endpoint is disabled',
      [
        prof(
          'g',
          {},
          30,
          [ext('a', { geoMapping: ['GEO-EU'] }), ext('w', { geoMapping: ['WORLD'], endpointStatus: 'Disabled' })],
          'Geographic',
        ),
      ],
      [['LINT_GEOGRAPHIC_WITHOUT_WORLD', 'profiles[g].endpoints']],
    ],
    ['Geographic with WORLD', [prof('g', {}, 30, [ext('a', { geoMapping: ['WORLD'] })], 'Geographic')], []],
    [
      'Subnet without fallback',
      [prof('s', {}, 30, [ext('a', { subnets: [{ first: '10.0.0.0', scope: 8 }] })], 'Subnet')],
      [['LINT_SUBNET_WITHOUT_FALLBACK', 'profiles[s].endpoints']],
    ],
    ['Subnet with fallback', [prof('s', {}, 30, [ext('a', { subnets: [{ first: '10.0.0.0', scope: 8 }] }), ext('f')], 'Subnet')], []],
    [
      "MinChildEndpoints above the child's endpoint count",
      [
        prof('p', {}, 30, [{ name: 'n', type: 'nestedEndpoints', targetResourceId: 'c', minChildEndpoints: 3, minChildEndpointsIPv6: 1 }]),
        prof(
          'c',
          {},
          30,
          [
            { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' },
            { name: 'b', type: 'externalEndpoints', target: '192.0.2.2' },
          ],
          'MultiValue',
        ),
      ],
      [
        ['LINT_MIN_CHILD_ENDPOINTS_UNREACHABLE', 'profiles[p].endpoints[n].minChildEndpoints'],
        ['LINT_MIN_CHILD_ENDPOINTS_UNREACHABLE', 'profiles[p].endpoints[n].minChildEndpointsIPv6'],
      ],
    ],
    [
      'MinChildEndpoints equal to the count',
      [
        prof('p', {}, 30, [{ name: 'n', type: 'nestedEndpoints', targetResourceId: 'c', minChildEndpoints: 2 }]),
        prof('c', {}, 30, [ext('a'), ext('b')]),
      ],
      [],
    ],
  ])('%s', (_name, profiles, expected) => {
    expect(lint(profiles)).toEqual(expected);
  });
});

test('the report keeps only warnings about profiles the plan writes (and the document as a whole)', () => {
  const a = prof('a', {}, 30, [ext('x'), ext('y')]);
  const ab = prof('a.b', {}, 30, [ext('x'), ext('y')]);
  const deployed = doc('s', [a, ab]).profiles.map((profile) => ({ profile, etag: '"1"', stack: 's' }));
  const desired = doc('s', [{ ...a, dnsConfig: { relativeName: 'a', ttl: 20 } }, ab]);
  const w = (path: string) => ({ severity: 'warning' as const, code: 'W', path, message: path });
  const report = buildReport(diff(desired, deployed), deployed, {
    warnings: [w('profiles[a].endpoints[x]'), w('profiles[a.b].endpoints[x]'), w('stack'), w('profiles[a]')],
  });
  expect(report.warnings.map((x) => x.path)).toEqual(['profiles[a].endpoints[x]', 'stack', 'profiles[a]']);
});

describe('profiles ranked by measured latency', () => {
  const perf = (name: string, extra: Partial<ProfileInput> = {}): ProfileInput => ({
    ...prof(name, {}, 30, [ext('a', { endpointLocation: 'westeurope' }), ext('b', { endpointLocation: 'japaneast' })], 'Performance'),
    ...extra,
  });

  test('the plan names the affected profiles whose performanceLatency source is Measured, in every format', () => {
    const d = doc('s', [
      perf('m', { performanceLatency: { source: 'Measured' } }),
      perf('plain'),
      perf('model', { performanceLatency: { source: 'Model' } }),
    ]);
    const report = buildReport(diff(d, []), []);
    expect(report.measuredLatency).toEqual(['m']);
    const sentence = 'Ranked by measured latency (performanceLatency source Measured): m.';
    expect(renderText(report, { color: false })).toContain(sentence);
    expect(renderMarkdown(report)).toContain(sentence);
    expect((planToJson(report) as { measuredLatency?: string[] }).measuredLatency).toEqual(['m']);
  });

  test('no Measured profile: no sentence, and the JSON has no key', () => {
    const report = buildReport(diff(doc('s', [perf('plain')]), []), []);
    expect(report.measuredLatency).toBeUndefined();
    expect(renderText(report, { color: false })).not.toContain('measured latency');
    expect(planToJson(report)).not.toHaveProperty('measuredLatency');
  });
});
