/**
 * The failback rows of the probe state machine (core/health/machine.ts): successesToRecover, the hold-down
 * and Manual failback, on fake time (the machine takes the time from its events).
 */
import {
  AZURE_FAILBACK,
  aggregate,
  initialProbeState,
  transition,
  type EndpointProbeState,
  type FailbackSettings,
  type MachineEvent,
} from '../../../src/core/health/machine';
import type { ProbeVerdict } from '../../../src/core/health/types';

const ok = (at: number): MachineEvent => ({ type: 'probe', at, ok: true, reason: 'status 200' });
const fail = (at: number): MachineEvent => ({ type: 'probe', at, ok: false, reason: 'status 503' });
const fb = (over: Partial<FailbackSettings>): FailbackSettings => ({ ...AZURE_FAILBACK, ...over });

/** Runs events from a fresh Online state with tolerated 0; returns every status after each event and the transitions. */
function run(f: FailbackSettings, events: MachineEvent[]): { statuses: ProbeVerdict[]; transitions: string[]; state: EndpointProbeState } {
  let s = transition(initialProbeState(0, 0, f), ok(0)).state;
  const statuses: ProbeVerdict[] = [];
  const transitions: string[] = [];
  for (const e of events) {
    const step = transition(s, e);
    s = step.state;
    statuses.push(s.status);
    for (const a of step.actions) transitions.push(`${a.transition.from}→${a.transition.to}@${a.transition.at}`);
  }
  return { statuses, transitions, state: s };
}

test("defaults are Azure's: the first good probe after Degraded is Online, and the state carries no failback", () => {
  expect(initialProbeState(3, 0, AZURE_FAILBACK)).toEqual({ status: 'CheckingEndpoint', consecutiveFailures: 0, tolerated: 3, since: 0 });
  expect(run(AZURE_FAILBACK, [fail(10), ok(20)]).statuses).toEqual(['Degraded', 'Online']);
});

test('successesToRecover 3: Degraded until the third good probe in a row; a failure starts the count over', () => {
  const r = run(fb({ successesToRecover: 3 }), [fail(10), ok(20), ok(30), fail(40), ok(50), ok(60), ok(70)]);
  expect(r.statuses).toEqual(['Degraded', 'Degraded', 'Degraded', 'Degraded', 'Degraded', 'Degraded', 'Online']);
  expect(r.transitions).toEqual(['Online→Degraded@10', 'Degraded→Online@70']);
});

test('holdDownSeconds 60: good probes before 60 s after the failure do not bring it back; the first one after does', () => {
  const r = run(fb({ holdDownSeconds: 60 }), [fail(1_000), ok(11_000), ok(60_999), ok(61_000)]);
  expect(r.statuses).toEqual(['Degraded', 'Degraded', 'Degraded', 'Online']);
});

test('both: three good probes and 30 s since the failure', () => {
  const r = run(fb({ successesToRecover: 3, holdDownSeconds: 30 }), [fail(0), ok(10_000), ok(20_000), ok(30_000)]);
  expect(r.statuses).toEqual(['Degraded', 'Degraded', 'Degraded', 'Online']);
  const early = run(fb({ successesToRecover: 2, holdDownSeconds: 30 }), [fail(0), ok(10_000), ok(20_000), ok(25_000), ok(30_000)]);
  expect(early.statuses).toEqual(['Degraded', 'Degraded', 'Degraded', 'Degraded', 'Online']);
});

describe('Manual', () => {
  const manual = fb({ mode: 'Manual' });

  test('a recovered endpoint is AwaitingFailback until the operator fails it back', () => {
    const r = run(manual, [fail(10), ok(20), ok(30), { type: 'failback', at: 40, approvedAt: 40, reason: 'failback by cli' }, ok(50)]);
    expect(r.statuses).toEqual(['Degraded', 'AwaitingFailback', 'AwaitingFailback', 'Online', 'Online']);
    expect(r.transitions).toEqual(['Online→Degraded@10', 'Degraded→AwaitingFailback@20', 'AwaitingFailback→Online@40']);
  });

  test('failing again while AwaitingFailback goes back to Degraded (a new outage: an approval must come after it)', () => {
    const r = run(manual, [fail(10), ok(20), fail(30), { type: 'failback', at: 35, approvedAt: 25, reason: 'late' }, ok(40)]);
    expect(r.statuses).toEqual(['Degraded', 'AwaitingFailback', 'Degraded', 'Degraded', 'AwaitingFailback']);
  });

  test('an approval while still Degraded releases this outage: it comes back Online when it recovers', () => {
    const r = run(manual, [fail(10), { type: 'failback', at: 15, approvedAt: 15, reason: 'approved early' }, ok(20)]);
    expect(r.statuses).toEqual(['Degraded', 'Degraded', 'Online']);
    // ...but not the next outage.
    const next = transition(transition(r.state, fail(30)).state, ok(40));
    expect(next.state.status).toBe('AwaitingFailback');
  });

  test('an approval older than the outage is ignored (a record kept in the store, replayed after a restart)', () => {
    const r = run(manual, [fail(100), { type: 'failback', at: 110, approvedAt: 50, reason: 'old' }, ok(120)]);
    expect(r.statuses).toEqual(['Degraded', 'Degraded', 'AwaitingFailback']);
  });

  test('with tolerance, AwaitingFailback absorbs tolerated failures like Online', () => {
    let s = transition(initialProbeState(2, 0, manual), ok(0)).state;
    for (const e of [fail(1), fail(2), fail(3), ok(4)]) s = transition(s, e).state;
    expect(s.status).toBe('AwaitingFailback');
    for (const e of [fail(5), fail(6)]) s = transition(s, e).state;
    expect(s.status).toBe('AwaitingFailback');
    expect(transition(s, fail(7)).state.status).toBe('Degraded');
  });

  test('switching the profile to Automatic releases an endpoint that waits; other states keep going', () => {
    const r = run(manual, [fail(10), ok(20), { type: 'configure', at: 30, failback: AZURE_FAILBACK }]);
    expect(r.statuses).toEqual(['Degraded', 'AwaitingFailback', 'Online']);
    expect(r.state.failback).toBeUndefined();
    const d = run(AZURE_FAILBACK, [fail(10), { type: 'configure', at: 20, failback: manual }, ok(30)]);
    expect(d.statuses).toEqual(['Degraded', 'Degraded', 'AwaitingFailback']);
  });

  test('a reset keeps the failback settings', () => {
    const s = transition(run(manual, [fail(10)]).state, { type: 'reset', at: 20, tolerated: 0, reason: 'probe settings changed' }).state;
    expect(s).toMatchObject({ status: 'CheckingEndpoint', failback: manual });
    expect(s.failedAt).toBeUndefined();
  });
});

test.each<[Record<string, ProbeVerdict>, string[], ProbeVerdict]>([
  [{ a: 'AwaitingFailback', b: 'AwaitingFailback', c: 'Degraded' }, ['a', 'b', 'c'], 'AwaitingFailback'],
  [{ a: 'AwaitingFailback', b: 'Online' }, ['a', 'b'], 'Online'],
  [{ a: 'AwaitingFailback', b: 'Online', c: 'AwaitingFailback' }, ['a', 'b', 'c'], 'AwaitingFailback'],
  [{ a: 'AwaitingFailback' }, ['a', 'b'], 'CheckingEndpoint'],
  [{ a: 'Degraded', b: 'Degraded', c: 'AwaitingFailback' }, ['a', 'b', 'c'], 'Degraded'],
])('aggregate %p over %p → %s', (v, live, out) => expect(aggregate(v, live)).toBe(out));
