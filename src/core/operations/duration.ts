/**
 * Durations as operators write them (`--for 30m`, `--every 2m`, `--hold 1h`): one or more `<number><unit>`
 * parts, units `ms`, `s`, `m`, `h`, `d` (`90s`, `1h30m`, `7d`), or a bare number of seconds.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;

/** Milliseconds, or undefined when `text` is not a duration. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? Math.round(text * 1000) : undefined;
  const t = String(text).trim().toLowerCase();
  if (/^\d+(?:\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  if (t === '') return undefined;
  PART.lastIndex = 0;
  let ms = 0;
  let at = 0;
  for (let m = PART.exec(t); m !== null; m = PART.exec(t)) {
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    at = PART.lastIndex;
  }
  return at === t.length ? Math.round(ms) : undefined;
}

/** `1h30m`, `45s`, `250ms`: the largest units first, at most two of them. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [u, s] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= s) {
      parts.push(`${Math.floor(rest / s)}${u}`);
      rest %= s;
    }
    if (parts.length === 2) break;
  }
  return parts.join('') || '0s';
}
