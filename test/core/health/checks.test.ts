/**
 * Composite health checks (docs/health.md "Composite checks"): the round's verdict (core/health/checks.ts)
 * and the state machine fed with rounds, against a plain model of the rule; quorum edges; monitoringOnly.
 */
import fc from 'fast-check';
import { compositeRound, type CheckResult } from '../../../src/core/health/checks';
import { initialProbeState, transition, type EndpointProbeState } from '../../../src/core/health/machine';
import type { ProbeVerdict } from '../../../src/core/health/types';

const res = (
  name: string,
  ok: boolean,
  role: 'must' | 'monitor' | 'count' = 'count',
  reason = ok ? 'status 200' : 'status 503',
): CheckResult => ({
  name,
  ok,
  reason,
  mustBeHealthy: role === 'must',
  monitoringOnly: role === 'monitor',
});

/** Feeds rounds to a fresh machine; returns the status after each. */
function run(
  rounds: CheckResult[][],
  tolerated: number,
  quorum: number,
): { statuses: ProbeVerdict[]; reasons: string[]; state: EndpointProbeState } {
  let state = initialProbeState(tolerated, 0);
  const statuses: ProbeVerdict[] = [];
  const reasons: string[] = [];
  rounds.forEach((results, i) => {
    const step = transition(state, { type: 'checks', at: (i + 1) * 10_000, results, quorum });
    state = step.state;
    statuses.push(state.status);
    for (const a of step.actions) reasons.push(a.transition.reason);
  });
  return { statuses, reasons, state };
}

describe('compositeRound', () => {
  test('the reason names every check, its failure and the quorum (the issue example)', () => {
    const r = compositeRound([res('api', true), res('login', false)], undefined, 0, 2);
    expect(r).toEqual({ kind: 'bad', failures: { api: 0, login: 1 }, reason: 'checks: api ok, login FAILED (503), 1 of 2 < quorum 2' });
  });

  test('roles are named; a non-HTTP reason is shown whole', () => {
    const r = compositeRound(
      [res('db', false, 'must', 'connection refused'), res('metrics', true, 'monitor'), res('api', true)],
      undefined,
      0,
      1,
    );
    expect(r.kind).toBe('bad');
    expect(r.reason).toBe(
      'checks: db FAILED (connection refused, must be healthy), metrics ok (monitoring only), api ok, 1 of 1 >= quorum 1',
    );
  });

  test.each([
    // [counting results, quorum, kind] with tolerance 0: quorum edges
    [[true, true, true], 3, 'good'],
    [[true, true, false], 3, 'bad'],
    [[true, true, false], 2, 'good'],
    [[true, false, false], 2, 'bad'],
    [[true, false, false], 1, 'good'],
    [[false, false, false], 1, 'bad'],
  ] as const)('counting %j with quorum %i is %s', (oks, quorum, kind) => {
    expect(
      compositeRound(
        oks.map((ok, i) => res(`c${i}`, ok)),
        undefined,
        0,
        quorum,
      ).kind,
    ).toBe(kind);
  });

  test('a check within its tolerance keeps the round soft; past it the round is bad', () => {
    const first = compositeRound([res('api', true), res('login', false)], undefined, 1, 2);
    expect(first.kind).toBe('soft');
    expect(compositeRound([res('api', true), res('login', false)], first.failures, 1, 2).kind).toBe('bad');
  });

  test('only mustBeHealthy checks (quorum 0): they alone decide', () => {
    expect(compositeRound([res('a', true, 'must'), res('m', false, 'monitor')], undefined, 0, 0).kind).toBe('good');
    expect(compositeRound([res('a', false, 'must'), res('m', true, 'monitor')], undefined, 0, 0).kind).toBe('bad');
  });
});

describe('the state machine with composite checks', () => {
  test('a failing mustBeHealthy check makes the endpoint Degraded after tolerated+1 rounds while the others pass', () => {
    const round = (dbOk: boolean) => [res('db', dbOk, 'must'), res('api', true), res('web', true)];
    const { statuses, reasons } = run([round(true), round(false), round(false), round(false), round(true)], 2, 2);
    expect(statuses).toEqual(['Online', 'Online', 'Online', 'Degraded', 'Online']);
    expect(reasons[1]).toBe('checks: db FAILED (503, must be healthy), api ok, web ok, 2 of 2 >= quorum 2');
  });

  test('a failing monitoringOnly check changes nothing', () => {
    const { statuses, reasons, state } = run(
      Array.from({ length: 6 }, () => [res('api', true), res('metrics', false, 'monitor', 'timeout')]),
      0,
      1,
    );
    expect(statuses).toEqual(Array(6).fill('Online'));
    expect(reasons).toHaveLength(1);
    expect(state.checkFailures).toEqual({ api: 0, metrics: 6 });
  });

  test('each check keeps its own failure counter: alternating failures of two checks never trip a tolerance of 1', () => {
    const rounds = Array.from({ length: 8 }, (_, i) => [res('a', i % 2 === 0), res('b', i % 2 === 1)]);
    // quorum 1: one of the two passes every round, and neither fails twice in a row.
    expect(run(rounds, 1, 1).statuses).toEqual(Array(8).fill('Online'));
    // quorum 2: a round with one failure is soft (within tolerance), never bad, never good after the first.
    expect(run(rounds, 1, 2).statuses).toEqual(Array(8).fill('CheckingEndpoint'));
  });

  test("reset forgets the checks' counters", () => {
    let state = run([[res('a', false)], [res('a', false)]], 3, 1).state;
    expect(state.checkFailures).toEqual({ a: 2 });
    state = transition(state, { type: 'reset', at: 1, tolerated: 3, reason: 'probe settings changed' }).state;
    expect(state.checkFailures).toBeUndefined();
  });
});

/**
 * The rule as the docs state it, computed from scratch over the whole history (no state machine): each check's
 * consecutive failures, then Online/Degraded as Azure's machine would with the composite's good/bad/soft rounds.
 */
function model(rounds: CheckResult[][], t: number, q: number): ProbeVerdict[] {
  const out: ProbeVerdict[] = [];
  let status: ProbeVerdict = 'CheckingEndpoint';
  rounds.forEach((results, i) => {
    const failures = (name: string): number => {
      let n = 0;
      for (let j = i; j >= 0 && !rounds[j]!.find((c) => c.name === name)!.ok; j--) n++;
      return n;
    };
    const decide = results.filter((c) => !c.monitoringOnly);
    const mustOkNow = decide.filter((c) => c.mustBeHealthy).every((c) => c.ok);
    const counting = decide.filter((c) => !c.mustBeHealthy);
    const good = mustOkNow && counting.filter((c) => c.ok).length >= q;
    const bad = decide.some((c) => c.mustBeHealthy && failures(c.name) > t) || counting.filter((c) => failures(c.name) <= t).length < q;
    if (good) status = 'Online';
    else if (bad) status = 'Degraded';
    out.push(status);
  });
  return out;
}

describe('property: the machine follows the composite rule', () => {
  const role = fc.constantFrom<'must' | 'monitor' | 'count'>('must', 'monitor', 'count');
  const config = fc
    .array(role, { minLength: 1, maxLength: 5 })
    .filter((roles) => roles.some((r) => r !== 'monitor'))
    .chain((roles) => {
      const counting = roles.filter((r) => r === 'count').length;
      return fc.record({
        roles: fc.constant(roles),
        quorum: counting === 0 ? fc.constant(0) : fc.integer({ min: 1, max: counting }),
        tolerated: fc.integer({ min: 0, max: 3 }),
        rounds: fc.array(fc.array(fc.boolean(), { minLength: roles.length, maxLength: roles.length }), { minLength: 1, maxLength: 25 }),
      });
    });
  const build = (roles: readonly ('must' | 'monitor' | 'count')[], oks: boolean[][]): CheckResult[][] =>
    oks.map((round) => round.map((ok, i) => res(`c${i}`, ok, roles[i])));

  test('every verdict equals the model computed from the whole history', () => {
    fc.assert(
      fc.property(config, ({ roles, quorum, tolerated, rounds }) => {
        const rs = build(roles, rounds);
        expect(run(rs, tolerated, quorum).statuses).toEqual(model(rs, tolerated, quorum));
      }),
      { numRuns: 500 },
    );
  });

  test('monitoringOnly results never change a verdict', () => {
    fc.assert(
      fc.property(
        config,
        fc.array(fc.boolean(), { minLength: 25 * 5, maxLength: 25 * 5 }),
        ({ roles, quorum, tolerated, rounds }, noise) => {
          const flipped = rounds.map((round, j) => round.map((ok, i) => (roles[i] === 'monitor' ? noise[j * 5 + i]! : ok)));
          expect(run(build(roles, flipped), tolerated, quorum).statuses).toEqual(run(build(roles, rounds), tolerated, quorum).statuses);
        },
      ),
      { numRuns: 300 },
    );
  });
});
