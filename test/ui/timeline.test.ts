import fc from 'fast-check';
import { timelineLanes, timelineWindow, type TransitionLike } from '../../ui/src/lib/timeline';

const T0 = Date.parse('2026-06-01T12:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

describe('timelineWindow', () => {
  test('no transitions: the last 10 minutes', () => {
    expect(timelineWindow([], T0)).toEqual({ start: T0 - 600_000, end: T0 });
  });
  test('reaches a second past a transition newer than the page clock (it arrived over the event stream before the clock ticked)', () => {
    expect(timelineWindow([{ at: at(0.4), endpoint: 'a', from: 'Online', to: 'Degraded' }], T0)).toEqual({
      start: T0 + 1400 - 60_000,
      end: T0 + 1400,
    });
  });
  test('starts a tenth of the span (at least 30 s) before the oldest transition, and spans at least a minute', () => {
    expect(timelineWindow([{ at: at(-1000), endpoint: 'a', from: 'x', to: 'y' }], T0)).toEqual({ start: T0 - 1_100_000, end: T0 });
    expect(timelineWindow([{ at: at(-100), endpoint: 'a', from: 'x', to: 'y' }], T0)).toEqual({ start: T0 - 130_000, end: T0 });
    expect(timelineWindow([{ at: at(-5), endpoint: 'a', from: 'x', to: 'y' }], T0)).toEqual({ start: T0 - 60_000, end: T0 });
  });
});

describe('timelineLanes', () => {
  test('a failover: Checking → Online → Degraded, newest first as the status report lists them', () => {
    const transitions = [
      { at: at(-10), endpoint: 'primary', from: 'Online', to: 'Degraded' },
      { at: at(-60), endpoint: 'primary', from: 'CheckingEndpoint', to: 'Online' },
      { at: at(-60), endpoint: 'backup', from: 'CheckingEndpoint', to: 'Online' },
    ];
    const lanes = timelineLanes(['primary', 'backup', 'idle'], transitions, new Map([['idle', 'Unmonitored']]), {
      start: T0 - 120_000,
      end: T0,
    });
    expect(lanes.map((l) => [l.endpoint, l.segments.map((s) => [s.status, (s.end - s.start) / 1000])])).toEqual([
      [
        'primary',
        [
          ['CheckingEndpoint', 60],
          ['Online', 50],
          ['Degraded', 10],
        ],
      ],
      [
        'backup',
        [
          ['CheckingEndpoint', 60],
          ['Online', 60],
        ],
      ],
      ['idle', [['Unmonitored', 120]]],
    ]);
    expect(lanes[0]!.changes.map((c) => c.to)).toEqual(['Online', 'Degraded']);
  });

  test('transitions before the window give the state at its start; endpoints only seen in transitions get a lane', () => {
    const lanes = timelineLanes([], [{ at: at(-500), endpoint: 'old', from: 'Online', to: 'Degraded' }], new Map(), {
      start: T0 - 60_000,
      end: T0,
    });
    expect(lanes).toEqual([{ endpoint: 'old', segments: [{ start: T0 - 60_000, end: T0, status: 'Degraded' }], changes: [] }]);
  });

  test('a transition at the very end of the window: the lane shows the state it left, not the one it entered', () => {
    const lanes = timelineLanes(['a'], [{ at: at(0), endpoint: 'a', from: 'Online', to: 'Degraded' }], new Map(), {
      start: T0 - 1000,
      end: T0,
    });
    expect(lanes[0]!.segments).toEqual([{ start: T0 - 1000, end: T0, status: 'Online' }]);
  });

  const status = fc.constantFrom('Online', 'Degraded', 'CheckingEndpoint');
  const transition = fc.record({ s: fc.integer({ min: -1000, max: 0 }), endpoint: fc.constantFrom('a', 'b'), from: status, to: status });

  test('property: each lane covers the window exactly, without gaps, and at every time shows the state the latest transition before it set', () => {
    fc.assert(
      fc.property(fc.array(transition, { maxLength: 12 }), fc.integer({ min: 0, max: 1000 }), (ts, back) => {
        const transitions: TransitionLike[] = ts.map((t) => ({ at: at(t.s), endpoint: t.endpoint, from: t.from, to: t.to }));
        const win = { start: T0 - back * 1000, end: T0 };
        for (const lane of timelineLanes(['a', 'b'], transitions, new Map(), win)) {
          expect(lane.segments[0]!.start).toBe(win.start);
          expect(lane.segments[lane.segments.length - 1]!.end).toBe(win.end);
          for (let i = 1; i < lane.segments.length; i++) {
            expect(lane.segments[i]!.start).toBe(lane.segments[i - 1]!.end);
            expect(lane.segments[i]!.status).not.toBe(lane.segments[i - 1]!.status);
          }
          const own = transitions
            .filter((t) => t.endpoint === lane.endpoint)
            .map((t) => ({ ...t, ms: Date.parse(t.at) }))
            .sort((x, y) => x.ms - y.ms);
          for (const seg of lane.segments) {
            if (seg.end === seg.start) continue;
            const mid = (seg.start + seg.end) / 2;
            const last = own.filter((t) => t.ms <= mid).pop();
            // Same instant: the report's order is all there is; take the state the lane chose among them.
            if (last && own.filter((t) => t.ms === last.ms).length === 1) expect(seg.status).toBe(last.to);
            if (!last && own.length > 0) expect(seg.status).toBe(own[0]!.from);
          }
        }
      }),
    );
  });
});
