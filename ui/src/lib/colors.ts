/** Colours: one per endpoint (stable for a set of endpoints), one per monitor status. */

/** Okabe–Ito and Tableau-like hues: distinguishable, also for most colour-blind readers. */
const PALETTE = [
  '#0072b2',
  '#e69f00',
  '#009e73',
  '#cc79a7',
  '#56b4e9',
  '#d55e00',
  '#7f3c8d',
  '#3969ac',
  '#80ba5a',
  '#e68310',
  '#008695',
  '#cf1c90',
];

/** Colour for "no answer" (NODATA / NXDOMAIN): a neutral grey. */
export const NO_ANSWER_COLOR = '#8c8c8c';
/** Countries with no traffic or no row. */
export const EMPTY_COLOR = '#e8ebef';

/**
 * A colour per endpoint path, assigned in sorted order so that the same set of endpoints always gets the
 * same colours (the traffic map and the routing map agree). `''` (no answer) is grey.
 */
export function endpointColors(endpoints: Iterable<string>): Map<string, string> {
  const names = [...new Set(endpoints)].filter((e) => e !== '').sort();
  const out = new Map<string, string>();
  names.forEach((e, i) => {
    out.set(e, PALETTE[i % PALETTE.length]!);
  });
  out.set('', NO_ANSWER_COLOR);
  return out;
}

const hex = (c: string): [number, number, number] => {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(c);
  if (!m) throw new Error(`not a #rrggbb colour: ${c}`);
  return [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)];
};

/** `color` mixed with `base` (the empty-country colour): t = 0 → base, t = 1 → color. */
export function mix(color: string, t: number, base = EMPTY_COLOR): string {
  const a = hex(base);
  const b = hex(color);
  const k = Math.min(1, Math.max(0, t));
  return `#${a
    .map((x, i) =>
      Math.round(x + (b[i]! - x) * k)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

const STATUS: Record<string, string> = {
  Online: '#1a7f37',
  Degraded: '#cf222e',
  CheckingEndpoint: '#bf8700',
  CheckingEndpoints: '#bf8700',
  Disabled: '#6e7781',
  Inactive: '#6e7781',
  Stopped: '#57606a',
  Unmonitored: '#0969da',
  AwaitingFailback: '#9a6700',
};

export function statusColor(status: string): string {
  return STATUS[status] ?? '#6e7781';
}
