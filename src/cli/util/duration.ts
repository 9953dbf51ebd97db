/** Durations on the command line: `90s`, `5m`, `2h`, `1d`, combinations (`1h30m`), or plain seconds (`300`). */
const UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Whole seconds of `text`; undefined when it is not a duration. */
export function parseDurationSeconds(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (/^\d+$/.test(t)) return Number(t);
  if (!/^(\d+[smhd])+$/.test(t)) return undefined;
  let total = 0;
  for (const m of t.matchAll(/(\d+)([smhd])/g)) total += Number(m[1]) * UNIT[m[2]!]!;
  return total;
}

/** `300` → `5m`, `5400` → `1h30m`. */
export function formatDuration(seconds: number): string {
  let rest = Math.round(seconds);
  if (rest === 0) return '0s';
  const out: string[] = [];
  for (const [u, n] of [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (rest >= n) { out.push(`${Math.floor(rest / n)}${u}`); rest %= n; }
  }
  return out.join('');
}
