/**
 * Where `tmkit serve`'s logs go and in what form (`--log-format`, docs/runtime.md#logs).
 *
 * - `json`: pino's own lines on stderr, unchanged (log collectors, journald, `jq`).
 * - `text`: the same lines, after pino made them (its serializers ran: what pino leaves out stays out),
 *   turned into one human line each: `14:03:07.123 INFO  endpoint status changed  profile=web to=Degraded`.
 * - `auto` (the default): `text` when stderr is a terminal, else `json`.
 *
 * In text form the lines logged while serve starts are held and written after the listen banner, in the
 * order they were logged, so that the banner reaches the terminal as one block (`release()`).
 */
import pino, { type Logger } from 'pino';

export const LOG_FORMATS = ['auto', 'text', 'json'] as const;
export type LogFormatOption = (typeof LOG_FORMATS)[number];

/** `auto` decided: text on a terminal (`isTTY` of the stream the logs go to), else JSON. */
export function resolveLogFormat(option: LogFormatOption, isTTY: boolean | undefined): 'text' | 'json' {
  if (option === 'auto') return isTTY === true ? 'text' : 'json';
  return option;
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** pino's own keys, shown by the line's layout (time, level, message) or not at all (pid, hostname). */
const LAYOUT_KEYS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);

/**
 * Characters a terminal would act on rather than show: C0 and C1 controls, DEL, and the bidirectional
 * and line-separator format characters (a log field carries names and reasons that came from outside).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeUnsafe(s: string): string {
  return s.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A value as `key=value` shows it: bare when it is plain printable ASCII, else quoted and escaped. */
function showValue(v: unknown): string {
  if (typeof v === 'string') return /^[\x21-\x7e]+$/.test(v) && !/["=\\]/.test(v) ? v : escapeUnsafe(JSON.stringify(v));
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  return escapeUnsafe(JSON.stringify(v) ?? String(v));
}

function isErrorLike(v: unknown): v is { type?: unknown; message: string; stack?: unknown; [k: string]: unknown } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { message?: unknown }).message === 'string';
}

function twoDigits(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** The local time of day, `HH:MM:SS.mmm`. */
function timeOfDay(ms: number): string {
  const d = new Date(ms);
  return `${twoDigits(d.getHours())}:${twoDigits(d.getMinutes())}:${twoDigits(d.getSeconds())}.${twoDigits(d.getMilliseconds(), 3)}`;
}

/**
 * One pino JSON line as text: `HH:MM:SS.mmm LEVEL message  key=value ...` (no trailing newline). An error
 * (pino's `err`: type, message, stack) shows as `err="message"` with its other scalar properties as
 * `err.code=…`; at ERROR and FATAL its stack follows on indented lines. A line that is not a JSON object
 * comes back as it was, with its control characters escaped.
 */
export function formatLogLine(line: string): string {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    return escapeUnsafe(line);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return escapeUnsafe(line);
  const rec = o as Record<string, unknown>;
  const level = typeof rec.level === 'number' ? (LEVELS[rec.level] ?? `L${rec.level}`) : String(rec.level ?? '');
  const time = typeof rec.time === 'number' ? timeOfDay(rec.time) : '--:--:--.---';
  const msg = typeof rec.msg === 'string' ? escapeUnsafe(rec.msg) : '';
  const fields: string[] = [];
  const stacks: string[] = [];
  for (const [k, v] of Object.entries(rec)) {
    if (LAYOUT_KEYS.has(k) || v === undefined) continue;
    if (isErrorLike(v)) {
      const type = typeof v.type === 'string' && v.type !== 'Error' ? `${v.type}: ` : '';
      fields.push(`${k}=${showValue(type + v.message)}`);
      for (const [ek, ev] of Object.entries(v)) {
        if (ek === 'type' || ek === 'message' || ek === 'stack' || typeof ev === 'object') continue;
        fields.push(`${k}.${ek}=${showValue(ev)}`);
      }
      if (typeof v.stack === 'string' && typeof rec.level === 'number' && rec.level >= 50)
        stacks.push(
          ...v.stack
            .split('\n')
            .slice(1)
            .map((s) => `    ${escapeUnsafe(s.trim())}`),
        );
      continue;
    }
    fields.push(`${k}=${showValue(v)}`);
  }
  const head = `${time} ${level.padEnd(5)} ${msg}`;
  return [fields.length > 0 ? `${head}  ${fields.join(' ')}` : head, ...stacks].join('\n');
}

/** Where text lines are written: process.stderr, or a test's sink. */
export interface LineSink {
  write(s: string): unknown;
}

/**
 * pino's destination in text form: each JSON line pino writes comes out formatted on `out`. While held
 * (`hold()`), lines wait in memory, in order, until `release()`; a hold lasts at most `maxHoldMs`, so that a
 * start-up that hangs does not hide its logs.
 */
export class TextLogDestination {
  private partial = '';
  private held: string[] | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly out: LineSink) {}

  write(chunk: string): boolean {
    const text = this.partial + chunk;
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') continue;
      const formatted = `${formatLogLine(line)}\n`;
      if (this.held) this.held.push(formatted);
      else this.out.write(formatted);
    }
    return true;
  }

  hold(maxHoldMs: number): void {
    if (this.held) return;
    this.held = [];
    this.timer = setTimeout(() => this.release(), maxHoldMs);
    this.timer.unref();
  }

  /** Writes what was held, in order, and stops holding. */
  release(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const held = this.held;
    this.held = undefined;
    if (held && held.length > 0) this.out.write(held.join(''));
  }
}

export interface ServeLog {
  logger: Logger;
  format: 'text' | 'json';
  /** Text form: hold the lines logged from now on until `release()` (the banner). JSON form: nothing. */
  hold(): void;
  release(): void;
}

/** How long start-up may hold text logs before they are written anyway. */
const MAX_HOLD_MS = 30_000;

/** serve's logger: pino at `level`, on stderr, in the form `--log-format` asks for. */
export function serveLogger(level: string, option: LogFormatOption): ServeLog {
  const format = resolveLogFormat(option, process.stderr.isTTY);
  if (format === 'json') return { logger: pino({ level }, pino.destination(2)), format, hold: () => {}, release: () => {} };
  const dest = new TextLogDestination(process.stderr);
  return { logger: pino({ level }, dest), format, hold: () => dest.hold(MAX_HOLD_MS), release: () => dest.release() };
}
