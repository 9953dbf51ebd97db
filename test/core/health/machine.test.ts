import { aggregate, initialProbeState, transition, type EndpointProbeState, type MachineEvent } from '../../../src/core/health/machine';
import type { ProbeVerdict } from '../../../src/core/health/types';

const ok = (at: number, reason = 'status 200'): MachineEvent => ({ type: 'probe', at, ok: true, reason });
const fail = (at: number, reason = 'status 503'): MachineEvent => ({ type: 'probe', at, ok: false, reason });
const st = (status: ProbeVerdict, consecutiveFailures: number, tolerated: number): EndpointProbeState => ({ status, consecutiveFailures, tolerated, since: 0 });

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
    expect(step.actions).toEqual(changed ? [{ type: 'transition', transition: {
      at: 1000, from: status, to: next, reason: okResult ? 'status 200' : 'status 503', consecutiveFailures: after,
    } }] : []);
    if (changed) expect(step.state.since).toBe(1000);
  });

  test('the input state is not mutated', () => {
    const s = st('Online', 1, 3);
    transition(s, fail(5));
    expect(s).toEqual(st('Online', 1, 3));
  });

  test.each([0, 1, 3, 9])('tolerated %i: Degraded exactly on failure number tolerated+1, Online on the first success after', (tolerated) => {
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
    expect(down.actions.map((a) => [a.transition.from, a.transition.to, a.transition.reason, a.transition.at, a.transition.consecutiveFailures]))
      .toEqual([['Online', 'Degraded', 'timeout', 999, tolerated + 1]]);
    const up = transition(transition(down.state, fail(1000)).state, ok(2000, 'status 200'));
    expect(up.actions.map((a) => [a.transition.from, a.transition.to, a.transition.reason])).toEqual([['Degraded', 'Online', 'status 200']]);
  });

  test('a success in the middle resets the count', () => {
    let s = transition(initialProbeState(2, 0), ok(1)).state;
    for (const e of [fail(2), fail(3), ok(4), fail(5), fail(6)]) s = transition(s, e).state;
    expect(s).toMatchObject({ status: 'Online', consecutiveFailures: 2 });
    expect(transition(s, fail(7)).state.status).toBe('Degraded');
  });

  test.each<[ProbeVerdict, boolean]>([['Online', true], ['Degraded', true], ['CheckingEndpoint', false]])(
    'reset from %s -> CheckingEndpoint, transition=%s', (status, changed) => {
      const step = transition(st(status, 2, 3), { type: 'reset', at: 50, tolerated: 0, reason: 'probe settings changed' });
      expect(step.state).toMatchObject({ status: 'CheckingEndpoint', consecutiveFailures: 0, tolerated: 0 });
      expect(step.actions.map((a) => a.transition)).toEqual(changed
        ? [{ at: 50, from: status, to: 'CheckingEndpoint', reason: 'probe settings changed', consecutiveFailures: 0 }] : []);
    });

  test('initial state', () => {
    expect(initialProbeState(3, 42)).toEqual({ status: 'CheckingEndpoint', consecutiveFailures: 0, tolerated: 3, since: 42 });
  });
});

describe('aggregate over probing locations', () => {
  const O = 'Online', D = 'Degraded', C = 'CheckingEndpoint';
  test.each<[string, Record<string, ProbeVerdict | undefined>, string[], ProbeVerdict]>([
    ['no live locations', { a: O }, [], C],
    ['one location online', { a: O }, ['a'], O],
    ['one location degraded', { a: D }, ['a'], D],
    ['one location checking', { a: C }, ['a'], C],
    ['one location, no verdict yet', {}, ['a'], C],
    ['2: online + degraded (not more than half)', { a: O, b: D }, ['a', 'b'], D],
    ['2: online + online', { a: O, b: O }, ['a', 'b'], O],
    ['2: online + missing', { a: O }, ['a', 'b'], C],
    ['2: degraded + checking (half degraded)', { a: D, b: C }, ['a', 'b'], D],
    ['3: 2 online, 1 degraded', { a: O, b: O, c: D }, ['a', 'b', 'c'], O],
    ['3: 1 online, 2 degraded', { a: O, b: D, c: D }, ['a', 'b', 'c'], D],
    ['3: 1 online, 1 degraded, 1 checking', { a: O, b: D, c: C }, ['a', 'b', 'c'], C],
    ['3: dead location ignored', { a: O, b: O, c: D, dead: D }, ['a', 'b', 'c'], O],
    ['verdict of a location that is not live is ignored', { a: O, gone: D }, ['a'], O],
    ['4: 2 online, 2 degraded', { a: O, b: O, c: D, d: D }, ['a', 'b', 'c', 'd'], D],
    ['4: 3 online, 1 degraded', { a: O, b: O, c: O, d: D }, ['a', 'b', 'c', 'd'], O],
    ['duplicate live names count once', { a: O, b: D }, ['a', 'a', 'b'], D],
  ])('%s', (_n, verdicts, live, expected) => {
    expect(aggregate(verdicts, live)).toBe(expected);
    expect(aggregate(new Map(Object.entries(verdicts)), live)).toBe(expected);
  });
});
