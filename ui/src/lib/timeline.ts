/**
 * The health timeline: each endpoint's probe verdict over a time window, rebuilt from the status report's
 * transitions (which come newest first, at most the last 50 per endpoint).
 */
export interface TransitionLike {
  at: string;
  endpoint: string;
  from: string;
  to: string;
}

export interface Segment {
  /** ms since the epoch. */
  start: number;
  end: number;
  status: string;
}

export interface Lane {
  endpoint: string;
  segments: Segment[];
  /** Transitions inside the window, oldest first (the marks on the lane). */
  changes: Array<{ at: number; from: string; to: string }>;
}

/**
 * The window shown, ending now. With transitions it starts a little before the oldest one (a tenth of the
 * span, at least 30 s), so the history fills the width, and spans at least `minSpanMs`; with none it is the
 * last `emptySpanMs`.
 */
export function timelineWindow(
  transitions: readonly TransitionLike[],
  now: number,
  minSpanMs = 60_000,
  emptySpanMs = 10 * 60_000,
): { start: number; end: number } {
  let earliest = Infinity;
  let latest = -Infinity;
  for (const t of transitions) {
    const at = Date.parse(t.at);
    if (Number.isFinite(at) && at < earliest) earliest = at;
    if (Number.isFinite(at) && at > latest) latest = at;
  }
  if (earliest === Infinity) return { start: now - emptySpanMs, end: now };
  // The page's clock ticks once a second while a transition can arrive (over the event stream) at once: the
  // window always reaches a second past the newest transition, so it is drawn the moment it is known.
  const end = Math.max(now, latest + 1000);
  const pad = Math.max(30_000, (end - earliest) / 10);
  return { start: Math.min(earliest - pad, end - minSpanMs), end };
}

/**
 * One lane per endpoint (in the order given, then any endpoint seen only in transitions). Within the window,
 * a lane's segments are contiguous and cover [start, end] exactly: before the first transition the endpoint
 * was in that transition's `from` state; with no transition at all it has been in `current` (its status now)
 * all along, or `unknown` if that is not given either.
 */
export function timelineLanes(
  endpoints: readonly string[],
  transitions: readonly TransitionLike[],
  current: ReadonlyMap<string, string>,
  window: { start: number; end: number },
): Lane[] {
  const names = [...endpoints];
  for (const t of transitions) if (!names.includes(t.endpoint)) names.push(t.endpoint);
  const { start, end } = window;
  return names.map((endpoint) => {
    const own = transitions
      .filter((t) => t.endpoint === endpoint && Number.isFinite(Date.parse(t.at)))
      .map((t) => ({ at: Date.parse(t.at), from: t.from, to: t.to }))
      .sort((a, b) => a.at - b.at);
    const before = own.filter((t) => t.at <= start);
    const inside = own.filter((t) => t.at > start && t.at < end);
    // The state at the window's start: the last transition at or before it, else the state the first
    // later one (inside the window, or at/after its end) started from.
    let state = before.length > 0 ? before[before.length - 1]!.to : own.length > 0 ? own[0]!.from : (current.get(endpoint) ?? 'unknown');
    const segments: Segment[] = [];
    let from = start;
    for (const t of inside) {
      if (t.at > from) segments.push({ start: from, end: t.at, status: state });
      state = t.to;
      from = t.at;
    }
    if (end > from || segments.length === 0) segments.push({ start: from, end: Math.max(end, from), status: state });
    // Adjacent segments in the same state (a transition to the state it already had) are merged.
    const merged: Segment[] = [];
    for (const s of segments) {
      const last = merged[merged.length - 1];
      if (last && last.status === s.status && last.end === s.start) last.end = s.end;
      else merged.push({ ...s });
    }
    return { endpoint, segments: merged, changes: inside };
  });
}
