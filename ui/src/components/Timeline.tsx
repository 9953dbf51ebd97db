import type { StatusTransitionReport } from '../api/types';
import { statusColor } from '../lib/colors';
import { clock } from '../lib/format';
import { timelineLanes, timelineWindow } from '../lib/timeline';

const W = 900;
const LANE = 22;
const LEFT = 120;

/** Each endpoint's probe verdict over time, drawn from the status report's transitions. */
export function Timeline({
  endpoints,
  transitions,
  current,
  now,
}: {
  endpoints: string[];
  transitions: StatusTransitionReport[];
  current: Map<string, string>;
  now: number;
}) {
  const win = timelineWindow(transitions, now);
  const lanes = timelineLanes(endpoints, transitions, current, win);
  if (lanes.length === 0)
    return (
      <p class="muted" data-testid="timeline-empty">
        No endpoint of this profile is probed.
      </p>
    );
  const span = Math.max(1, win.end - win.start);
  const x = (t: number) => LEFT + ((t - win.start) / span) * (W - LEFT - 10);
  const h = lanes.length * LANE + 24;
  const ticks = Array.from({ length: 5 }, (_, i) => win.start + (span * i) / 4);
  return (
    <svg class="timeline" viewBox={`0 0 ${W} ${h}`} data-testid="timeline" role="img" aria-label="Health timeline">
      {lanes.map((lane, i) => (
        <g key={lane.endpoint} data-testid={`lane-${lane.endpoint}`} transform={`translate(0 ${i * LANE})`}>
          <text x={LEFT - 8} y={15} text-anchor="end" class="lane-label">
            {lane.endpoint}
          </text>
          {lane.segments.map((s, j) => {
            // Before the oldest transition kept, only the state is known, not since when: drawn faded.
            const lead = j === 0 && lane.changes.length > 0;
            return (
              <rect
                key={s.start}
                x={x(s.start)}
                y={4}
                width={Math.max(1, x(s.end) - x(s.start))}
                height={LANE - 8}
                fill={statusColor(s.status)}
                fill-opacity={lead ? 0.4 : 1}
                data-status={s.status}
              >
                <title>
                  {lead
                    ? `${lane.endpoint}: ${s.status} until ${clock(s.end)} UTC (the oldest transition kept)`
                    : `${lane.endpoint}: ${s.status} ${clock(s.start)}–${clock(s.end)} UTC`}
                </title>
              </rect>
            );
          })}
          {lane.changes.map((c) => (
            <line key={c.at} x1={x(c.at)} x2={x(c.at)} y1={2} y2={LANE - 2} class="tick-mark" />
          ))}
        </g>
      ))}
      {ticks.map((t, i) => (
        <text key={t} x={x(t)} y={h - 6} text-anchor={i === 0 ? 'start' : i === ticks.length - 1 ? 'end' : 'middle'} class="axis">
          {clock(t)}
          {i === ticks.length - 1 ? ' UTC' : ''}
        </text>
      ))}
    </svg>
  );
}
