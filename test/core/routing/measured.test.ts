/**
 * Performance routing from measured latency (`performanceLatency.source` Measured, docs/routing.md
 * "Measured latency"): the client maps to its nearest probing location, endpoints rank by that location's
 * EWMA of probe round trips, within `toleranceMs` of the best they count as equal and the location's leader
 * stays (hysteresis), and a pair with fewer than `minSamples` samples ranks by the distance model.
 */
import fc from 'fast-check';
import {
  EMPTY_LATENCY_VIEW,
  ewma,
  measuredProfiles,
  nextLatencyView,
  stableLeader,
  type LatencyView,
  type MeasuredRtt,
} from '../../../src/core/health/latency';
import type { HealthView, ProbeVerdict } from '../../../src/core/health/types';
import type { Profile } from '../../../src/core/model/types';
import { buildSnapshot, resolve, updateSnapshot, type RoutingResolution } from '../../../src/core/routing';
import { validate } from '../../../src/core/validate';
import { ext, profile, query, snapshot } from '../../../src/testing/builders';
import { TableGeo } from '../../../src/testing/geo-table';

/** The distance model: every client is 10 ms from West Europe, 200 ms from Japan East. */
const geo = new TableGeo({ latency: { '*': { westeurope: 10, japaneast: 200 } } });

/** `slow` is in the region the distance model prefers; `fast` is far by the model. */
function web(extra: Partial<Profile['performanceLatency']> = {}): Profile {
  return profile(
    'web',
    'Performance',
    [ext('slow', '192.0.2.1', { endpointLocation: 'westeurope' }), ext('fast', '192.0.2.2', { endpointLocation: 'japaneast' })],
    { performanceLatency: { source: 'Measured', toleranceMs: 20, minSamples: 5, ...extra } },
  );
}

function view(rtt: Record<string, MeasuredRtt>, leader?: string, locations = [{ name: 'here' }]): LatencyView {
  return {
    locations,
    rtt: Object.fromEntries(Object.entries(rtt).map(([ep, m]) => [`web/${ep}`, { [locations[0]!.name]: m }])),
    leaders: leader === undefined ? {} : { web: { [locations[0]!.name]: leader } },
  };
}

function one(r: RoutingResolution): { endpoint: string; steps: string[] } {
  expect(r.outcomes).toHaveLength(1);
  const o = r.outcomes[0]!;
  // Without the method step every trail starts with.
  return {
    endpoint: o.endpoints[0]!,
    steps: (o.explanation ?? []).filter((s) => s.kind !== 'method').map((s) => `${s.kind}: ${s.detail}`),
  };
}

const answerFor = (p: Profile, latency?: LatencyView, health?: Record<string, ProbeVerdict>) =>
  one(resolve(snapshot([p], { geo, ...(latency ? { latency } : {}), ...(health ? { health } : {}) }), query('web')));

const ONLINE = { 'web/slow': 'Online', 'web/fast': 'Online' } as const;

describe('ranking', () => {
  test('the distance model sends the client to slow; with enough samples it gets fast, and the step says measured', () => {
    expect(answerFor(web(), undefined, ONLINE).endpoint).toBe('web/slow');
    const a = answerFor(web(), view({ slow: { ms: 160, samples: 5 }, fast: { ms: 10, samples: 5 } }, 'fast'), ONLINE);
    expect(a.endpoint).toBe('web/fast');
    expect(a.steps).toContain(
      'performance-source: measured: client mapped to here (the only probing location); 2 of 2 endpoints have at least 5 samples from it',
    );
    expect(a.steps.at(-1)).toBe('select: measured: 10 ms from here (EWMA of 5 probes); the lowest latency of the available endpoints');
  });

  test('fewer than minSamples: the distance model ranks, and the step says how many samples there are', () => {
    const a = answerFor(web(), view({ slow: { ms: 160, samples: 4 }, fast: { ms: 10, samples: 3 } }), ONLINE);
    expect(a.endpoint).toBe('web/slow');
    expect(a.steps[0]).toBe('performance-source: distance model: no endpoint has 5 samples from here yet (most: 4 of 5)');
  });

  test('a pair under minSamples ranks by the model beside a measured one', () => {
    // fast measured at 150 ms; slow unmeasured, 10 ms by the model: slow wins.
    const a = answerFor(web(), view({ slow: { ms: 0, samples: 1 }, fast: { ms: 150, samples: 9 } }), ONLINE);
    expect(a.endpoint).toBe('web/slow');
    expect(a.steps[0]).toContain('1 of 2 endpoints have at least 5 samples from it, the other one ranks by the distance model');
    expect(a.steps.at(-1)).toBe('select: distance model: 10 ms (1 of 5 samples from here); the lowest latency of the available endpoints');
  });

  test('within toleranceMs the leader stays, even when the other is a little faster', () => {
    const a = answerFor(web(), view({ slow: { ms: 25, samples: 9 }, fast: { ms: 10, samples: 9 } }, 'slow'), ONLINE);
    expect(a.endpoint).toBe('web/slow');
    expect(a.steps.at(-1)).toContain("within the 20 ms tolerance of the best (fast, 10 ms): kept as here's choice");
  });

  test('within toleranceMs and no leader among them: they split their clients evenly, and a population sees the split', () => {
    const latency = view({ slow: { ms: 25, samples: 9 }, fast: { ms: 10, samples: 9 } });
    const s = snapshot([web()], { geo, latency, health: ONLINE });
    const seen = new Set<string>();
    for (let i = 1; i < 60; i++) {
      const a = one(resolve(s, query('web', 'A', `198.51.100.${i}`)));
      seen.add(a.endpoint);
      expect(a.steps.at(-1)).toMatch(/2 endpoints within the 20 ms tolerance of the best \(10 ms\) count as equal, and the hash of client/);
    }
    expect([...seen].sort()).toEqual(['web/fast', 'web/slow']);
    const pop = resolve(s, { ...query('web'), population: true });
    expect(pop.outcomes.map((o) => [o.endpoints[0], o.probability]).sort()).toEqual([
      ['web/fast', 0.5],
      ['web/slow', 0.5],
    ]);
  });

  test('an unavailable endpoint is skipped with its measurement named', () => {
    const a = answerFor(web(), view({ slow: { ms: 160, samples: 9 }, fast: { ms: 10, samples: 9 } }, 'fast'), {
      'web/slow': 'Online',
      'web/fast': 'Degraded',
    });
    expect(a.endpoint).toBe('web/slow');
    expect(a.steps).toContain('skip: measured: 10 ms from here (EWMA of 9 probes); Degraded (probe verdict Degraded): not available');
  });

  test('source Model (or no property) never reads the measurements', () => {
    const measuredView = view({ slow: { ms: 160, samples: 9 }, fast: { ms: 10, samples: 9 } }, 'fast');
    expect(answerFor(web({ source: 'Model' }), measuredView, ONLINE).endpoint).toBe('web/slow');
    const plain = profile('web', 'Performance', web().endpoints);
    expect(answerFor(plain, measuredView, ONLINE).steps.some((s) => s.startsWith('performance-source'))).toBe(false);
  });

  test('a client maps to its nearest probing location by the distance model', () => {
    const geo2 = new TableGeo({ latency: { '10.0.0.0/8': { westeurope: 10, japaneast: 200 }, '*': { westeurope: 200, japaneast: 10 } } });
    const latency: LatencyView = {
      locations: [
        { name: 'ams', region: 'westeurope' },
        { name: 'tyo', region: 'japaneast' },
      ],
      rtt: {
        'web/slow': { ams: { ms: 5, samples: 9 }, tyo: { ms: 300, samples: 9 } },
        'web/fast': { ams: { ms: 300, samples: 9 }, tyo: { ms: 5, samples: 9 } },
      },
      leaders: {},
    };
    const s = snapshot([web()], { geo: geo2, latency, health: ONLINE });
    const near = one(resolve(s, query('web', 'A', '10.1.2.3')));
    expect(near.endpoint).toBe('web/slow');
    expect(near.steps[0]).toContain('client mapped to ams (nearest probing location by the distance model, 10 ms)');
    expect(one(resolve(s, query('web', 'A', '192.0.2.9'))).endpoint).toBe('web/fast');
  });
});

describe('the EWMA and the stable leader', () => {
  test('ewma: the first sample as it is, then 30% of each step', () => {
    const a = ewma(undefined, 100);
    expect(a).toEqual({ ms: 100, samples: 1 });
    expect(ewma(a, 0)).toEqual({ ms: 70, samples: 2 });
  });

  const ms = fc.integer({ min: 0, max: 2000 });
  const tol = fc.integer({ min: 0, max: 200 });

  test('property: the leader is never worse than the best by more than toleranceMs, and without a previous one it is the best', () => {
    fc.assert(
      fc.property(fc.array(ms, { minLength: 1, maxLength: 6 }), fc.option(fc.nat(5)), tol, (values, prev, t) => {
        const cands = values.map((v, i) => ({ name: `e${i}`, ms: v }));
        const min = Math.min(...values);
        const leader = stableLeader(prev === null ? undefined : `e${prev}`, cands, t);
        const chosen = cands.find((c) => c.name === leader)!;
        expect(chosen.ms).toBeLessThanOrEqual(min + t);
        if (prev === null) expect(chosen.ms).toBe(min);
      }),
    );
  });

  test('property: no flapping — while two endpoints stay within toleranceMs of each other, the leader never changes', () => {
    fc.assert(
      fc.property(tol, fc.array(fc.tuple(ms, fc.double({ min: -1, max: 1, noNaN: true })), { minLength: 1, maxLength: 40 }), (t, steps) => {
        let leader: string | undefined;
        const seen = new Set<string>();
        for (const [a, f] of steps) {
          const b = Math.max(0, a + f * t);
          leader = stableLeader(
            leader,
            [
              { name: 'a', ms: a },
              { name: 'b', ms: b },
            ],
            t,
          );
          seen.add(leader!);
        }
        expect(seen.size).toBe(1);
      }),
    );
  });

  test('property: it moves to an endpoint better by more than toleranceMs', () => {
    fc.assert(
      fc.property(tol, ms, fc.integer({ min: 1, max: 500 }), (t, b, extra) => {
        expect(
          stableLeader(
            'a',
            [
              { name: 'a', ms: b + t + extra },
              { name: 'b', ms: b },
            ],
            t,
          ),
        ).toBe('b');
      }),
    );
  });
});

describe('publishing (nextLatencyView)', () => {
  const profiles = measuredProfiles([web()]);
  const here = [{ name: 'here' }];
  const samples = (slow: MeasuredRtt, fast: MeasuredRtt) =>
    new Map([
      ['web/slow', new Map([['here', slow]])],
      ['web/fast', new Map([['here', fast]])],
    ]);

  test('only Measured Performance profiles are kept; the same view comes back while nothing moved enough', () => {
    expect([...measuredProfiles([web(), web({ source: 'Model' })]).keys()]).toEqual(['web']);
    const v1 = nextLatencyView(EMPTY_LATENCY_VIEW, here, samples({ ms: 160, samples: 5 }, { ms: 10, samples: 5 }), profiles);
    expect(v1.leaders).toEqual({ web: { here: 'fast' } });
    // 9 ms of drift (under half the 20 ms tolerance) and more samples: no new view.
    expect(nextLatencyView(v1, here, samples({ ms: 151, samples: 9 }, { ms: 19, samples: 9 }), profiles)).toBe(v1);
    const v2 = nextLatencyView(v1, here, samples({ ms: 149, samples: 10 }, { ms: 10, samples: 10 }), profiles);
    expect(v2).not.toBe(v1);
    expect(v2.rtt['web/slow']!.here!.ms).toBe(149);
  });

  test('reaching minSamples publishes', () => {
    const v1 = nextLatencyView(EMPTY_LATENCY_VIEW, here, samples({ ms: 160, samples: 4 }, { ms: 10, samples: 4 }), profiles);
    expect(v1.leaders).toEqual({});
    const v2 = nextLatencyView(v1, here, samples({ ms: 160, samples: 5 }, { ms: 10, samples: 5 }), profiles);
    expect(v2).not.toBe(v1);
    expect(v2.leaders).toEqual({ web: { here: 'fast' } });
  });

  test('property: whatever the measurements do, a published value is within toleranceMs/2 of the measurement, and the answer is within toleranceMs of the best published', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 400 })), { minLength: 1, maxLength: 30 }),
        (seq) => {
          let v = EMPTY_LATENCY_VIEW;
          let n = 0;
          for (const [a, b] of seq) {
            n++;
            const now = samples({ ms: a, samples: n }, { ms: b, samples: n });
            v = nextLatencyView(v, here, now, profiles);
            const pub = (e: string) => v.rtt[`web/${e}`]?.here;
            if (n >= 5) {
              expect(Math.abs(pub('slow')!.ms - a)).toBeLessThanOrEqual(10);
              expect(Math.abs(pub('fast')!.ms - b)).toBeLessThanOrEqual(10);
              const got = answerFor(web(), v, ONLINE).endpoint.slice(4);
              expect(pub(got)!.ms).toBeLessThanOrEqual(Math.min(pub('slow')!.ms, pub('fast')!.ms) + 20);
            }
          }
        },
      ),
    );
  });

  test('property: under minSamples everywhere, Measured answers exactly what the distance model answers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 4 }),
        fc.ipV4(),
        (a, b, n, client) => {
          const latency = view({ slow: { ms: a, samples: n }, fast: { ms: b, samples: Math.max(0, 4 - n) } });
          const measured = resolve(snapshot([web()], { geo, latency, health: ONLINE }), query('web', 'A', client));
          const model = resolve(
            snapshot([profile('web', 'Performance', web().endpoints)], { geo, health: ONLINE }),
            query('web', 'A', client),
          );
          expect(measured.outcomes.map((o) => [o.endpoints, o.probability])).toEqual(
            model.outcomes.map((o) => [o.endpoints, o.probability]),
          );
        },
      ),
    );
  });
});

describe('validation', () => {
  const doc = (p: Record<string, unknown>) => ({
    apiVersion: 'tmkit/v1',
    profiles: [
      {
        name: 'web',
        trafficRoutingMethod: 'Performance',
        dnsConfig: { relativeName: 'web' },
        endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', endpointLocation: 'westeurope' }],
        ...p,
      },
    ],
  });
  const problems = (p: Record<string, unknown>) =>
    validate(doc(p))
      .filter((d) => d.severity === 'error')
      .map((d) => `${d.code} ${d.path}`);

  test('good settings pass; each bad one names its path and rule', () => {
    expect(problems({ performanceLatency: { source: 'Measured', toleranceMs: 20, minSamples: 5 } })).toEqual([]);
    expect(problems({ performanceLatency: { source: 'Measurd' } })).toEqual([
      'PERF_LATENCY_SOURCE profiles[web].performanceLatency.source',
    ]);
    expect(problems({ performanceLatency: { toleranceMs: 1001 } })).toEqual([
      'PERF_LATENCY_TOLERANCE_RANGE profiles[web].performanceLatency.toleranceMs',
    ]);
    expect(problems({ performanceLatency: { minSamples: 0 } })).toEqual([
      'PERF_LATENCY_MIN_SAMPLES_RANGE profiles[web].performanceLatency.minSamples',
    ]);
    expect(problems({ trafficRoutingMethod: 'Priority', performanceLatency: { source: 'Measured' } })).toEqual([
      'PERF_LATENCY_METHOD profiles[web].performanceLatency',
    ]);
  });
});

describe('the snapshot carries the view', () => {
  test('updateSnapshot takes a new view, keeps the previous one when given none, and answers by it', () => {
    const fastView = view({ slow: { ms: 160, samples: 9 }, fast: { ms: 10, samples: 9 } }, 'fast');
    const slowView = view({ slow: { ms: 10, samples: 9 }, fast: { ms: 160, samples: 9 } }, 'slow');
    const health: HealthView = { verdict: () => 'Online' };
    const s0 = buildSnapshot({ zone: 'tm.test', profiles: [web()], health, geo, latency: fastView });
    expect(one(resolve(s0, query('web'))).endpoint).toBe('web/fast');
    const s1 = updateSnapshot(s0, { health, latency: slowView });
    expect(s1.latency).toBe(slowView);
    expect(one(resolve(s1, query('web'))).endpoint).toBe('web/slow');
    const s2 = updateSnapshot(s1, { health, verdicts: ['web'] });
    expect(s2.latency).toBe(slowView);
    expect(one(resolve(s2, query('web'))).endpoint).toBe('web/slow');
  });
});
