import fc from 'fast-check';
import { aggregate, initialProbeState, transition, type EndpointProbeState, type MachineEvent } from '../../../src/core/health/machine';
import type { ProbeVerdict } from '../../../src/core/health/types';

const ok = (at: number, reason = 'status 200'): MachineEvent => ({ type: 'probe', at, ok: true, reason });
const fail = (at: number, reason = 'status 503'): MachineEvent => ({ type: 'probe', at, ok: false, reason });
const st = (status: ProbeVerdict, consecutiveFailures: number, tolerated: number): EndpointProbeState => ({
  status,
  consecutiveFailures,
  tolerated,
  since: 0,
});

describe('transition table', () => {
  test.each<[ProbeVerdict, number, number, boolean, ProbeVerdict, number, boolean]>([
    // status, failures before, tolerated, result ok, next status, failures after, transition?
    ['CheckingEndpoint', 0, 3, true, 'Online', 0, true],
    ['CheckingEndpoint', 0, 0, false, 'Degraded', 1, true],
    ['CheckingEndpoint', 0, 3, false, 'CheckingEndpoint', 1, false],
    ['CheckingEndpoint', 3, 3, false, 'Degraded', 4, true],
    ['CheckingEndpoint', 2, 3, true, 'Online', 0, true],
    ['Online', 0, 3, true, 'Online', 0, false],
    ['Online', 2, 3, true, 'Online', 0, false],
    ['Online', 0, 0, false, 'Degraded', 1, true],
    ['Online', 0, 3, false, 'Online', 1, false],
    ['Online', 2, 3, false, 'Online', 3, false],
    ['Online', 3, 3, false, 'Degraded', 4, true],
    ['Online', 8, 9, false, 'Online', 9, false],
    ['Online', 9, 9, false, 'Degraded', 10, true],
    ['Degraded', 4, 3, false, 'Degraded', 5, false],
    ['Degraded', 4, 3, true, 'Online', 0, true],
    ['Degraded', 1, 0, true, 'Online', 0, true],
  ])('%s (f=%i, t=%i) + ok=%s -> %s (f=%i), transition=%s', (status, before, tolerated, okResult, next, after, changed) => {
    const step = transition(st(status, before, tolerated), okResult ? ok(1000) : fail(1000));
    expect(step.state.status).toBe(next);
    expect(step.state.consecutiveFailures).toBe(after);
    expect(step.actions).toEqual(
      changed
        ? [
            {
              type: 'transition',
              transition: {
                at: 1000,
                from: status,
                to: next,
                reason: okResult ? 'status 200' : 'status 503',
                consecutiveFailures: after,
              },
            },
          ]
        : [],
    );
    if (changed) expect(step.state.since).toBe(1000);
  });

  test('the input state is not mutated', () => {
    const s = st('Online', 1, 3);
    transition(s, fail(5));
    expect(s).toEqual(st('Online', 1, 3));
  });

  test.each([0, 1, 3, 9])(
    'tolerated %i: Degraded exactly on failure number tolerated+1, Online on the first success after',
    (tolerated) => {
      let s = initialProbeState(tolerated, 0);
      s = transition(s, ok(1)).state;
      const reasons = ['timeout', 'connection refused', 'TLS error', 'DNS: no address', 'status 503'];
      for (let i = 1; i <= tolerated; i++) {
        const step = transition(s, fail(i * 10, reasons[i % reasons.length]));
        expect(step.actions).toEqual([]);
        s = step.state;
        expect(s.status).toBe('Online');
      }
      const down = transition(s, fail(999, 'timeout'));
      expect(
        down.actions.map((a) => [
          a.transition.from,
          a.transition.to,
          a.transition.reason,
          a.transition.at,
          a.transition.consecutiveFailures,
        ]),
      ).toEqual([['Online', 'Degraded', 'timeout', 999, tolerated + 1]]);
      const up = transition(transition(down.state, fail(1000)).state, ok(2000, 'status 200'));
      expect(up.actions.map((a) => [a.transition.from, a.transition.to, a.transition.reason])).toEqual([
        ['Degraded', 'Online', 'status 200'],
      ]);
    },
  );

  test('a success in the middle resets the count', () => {
    let s = transition(initialProbeState(2, 0), ok(1)).state;
    for (const e of [fail(2), fail(3), ok(4), fail(5), fail(6)]) s = transition(s, e).state;
    expect(s).toMatchObject({ status: 'Online', consecutiveFailures: 2 });
    expect(transition(s, fail(7)).state.status).toBe('Degraded');
  });

  test.each<[ProbeVerdict, boolean]>([
    ['Online', true],
    ['Degraded', true],
    ['CheckingEndpoint', false],
  ])('reset from %s -> CheckingEndpoint, transition=%s', (status, changed) => {
    const step = transition(st(status, 2, 3), { type: 'reset', at: 50, tolerated: 0, reason: 'probe settings changed' });
    expect(step.state).toMatchObject({ status: 'CheckingEndpoint', consecutiveFailures: 0, tolerated: 0 });
    expect(step.actions.map((a) => a.transition)).toEqual(
      changed ? [{ at: 50, from: status, to: 'CheckingEndpoint', reason: 'probe settings changed', consecutiveFailures: 0 }] : [],
    );
  });

  test('initial state', () => {
    expect(initialProbeState(3, 42)).toEqual({ status: 'CheckingEndpoint', consecutiveFailures: 0, tolerated: 3, since: 42 });
  });
});

describe('aggregate over probing locations', () => {
  const O = 'Online',
    D = 'Degraded',
    C = 'CheckingEndpoint';
  test.each<[string, Record<string, ProbeVerdict | undefined>, string[], ProbeVerdict]>([
    ['no live locations', { a: O }, [], C],
    ['one location online', { a: O }, ['a'], O],
    ['one location degraded', { a: D }, ['a'], D],
    ['one location checking', { a: C }, ['a'], C],
    ['one location, no verdict yet', {}, ['a'], C],
    ['2: online + degraded, a 1-to-1 tie counts as up', { a: O, b: D }, ['a', 'b'], O],
    ['2: online + online', { a: O, b: O }, ['a', 'b'], O],
    ['2: online + missing (the other can at most tie)', { a: O }, ['a', 'b'], O],
    ['2: degraded + missing (the other could tie)', { a: D }, ['a', 'b'], C],
    ['2: degraded + degraded', { a: D, b: D }, ['a', 'b'], D],
    ['2: degraded + checking (half degraded is not more than half)', { a: D, b: C }, ['a', 'b'], C],
    ['3: 2 online, 1 degraded', { a: O, b: O, c: D }, ['a', 'b', 'c'], O],
    ['3: 1 online, 2 degraded', { a: O, b: D, c: D }, ['a', 'b', 'c'], D],
    ['3: 1 online, 1 degraded, 1 checking', { a: O, b: D, c: C }, ['a', 'b', 'c'], C],
    ['3: dead location ignored', { a: O, b: O, c: D, dead: D }, ['a', 'b', 'c'], O],
    ['verdict of a location that is not live is ignored', { a: O, gone: D }, ['a'], O],
    ['4: 2 online, 2 degraded (tie counts as up)', { a: O, b: O, c: D, d: D }, ['a', 'b', 'c', 'd'], O],
    ['4: 1 online, 3 degraded', { a: O, b: D, c: D, d: D }, ['a', 'b', 'c', 'd'], D],
    ['4: 1 online, 2 degraded, 1 checking', { a: O, b: D, c: D, d: C }, ['a', 'b', 'c', 'd'], C],
    ['4: 3 online, 1 degraded', { a: O, b: O, c: O, d: D }, ['a', 'b', 'c', 'd'], O],
    ['duplicate live names count once', { a: D, b: O }, ['a', 'a', 'b'], O],
  ])('%s', (_n, verdicts, live, expected) => {
    expect(aggregate(verdicts, live)).toBe(expected);
    expect(aggregate(new Map(Object.entries(verdicts)), live)).toBe(expected);
  });

  test('property: Degraded iff strictly more than half of the live locations say Degraded; Online iff up cannot lose', () => {
    const verdict = fc.constantFrom<ProbeVerdict | undefined>('Online', 'Degraded', 'CheckingEndpoint', undefined);
    fc.assert(
      fc.property(fc.array(verdict, { minLength: 1, maxLength: 9 }), (vs) => {
        const live = vs.map((_, i) => `loc${i}`);
        const byLoc = Object.fromEntries(vs.map((v, i) => [`loc${i}`, v]));
        const n = vs.length;
        const degraded = vs.filter((v) => v === 'Degraded').length;
        const online = vs.filter((v) => v === 'Online').length;
        const got = aggregate(byLoc, live);
        expect(got === 'Degraded').toBe(degraded * 2 > n);
        // Online exactly when no assignment of the undecided locations could give Degraded a strict majority
        expect(got === 'Online').toBe(degraded * 2 <= n && (n - online) * 2 <= n);
        // the order of the locations does not matter
        expect(aggregate(byLoc, [...live].reverse())).toBe(got);
      }),
      { numRuns: 3000 },
    );
  });
});
