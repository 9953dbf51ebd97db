/**
 * `tmkit serve --log-format` (issue 40 item 2): pino's JSON lines as one text line each, through a real pino
 * logger writing into the text destination. What pino leaves out stays out; what comes from outside (names,
 * reasons) cannot drive the terminal.
 */
import pino from 'pino';
import { formatLogLine, resolveLogFormat, TextLogDestination } from '../../src/cli/util/log-output';

function sink(): { lines: string[]; write: (s: string) => void } {
  const lines: string[] = [];
  return { lines, write: (s: string) => lines.push(s) };
}

/** The local time of day of `ms`, as the text form writes it. */
function hhmmss(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

test('auto is text on a terminal and JSON otherwise; text and json are what they say', () => {
  expect(resolveLogFormat('auto', true)).toBe('text');
  expect(resolveLogFormat('auto', false)).toBe('json');
  expect(resolveLogFormat('auto', undefined)).toBe('json');
  expect(resolveLogFormat('json', true)).toBe('json');
  expect(resolveLogFormat('text', false)).toBe('text');
});

test('a line: time of day, level, message, then the fields as key=value; pid, hostname and time are not fields', () => {
  const out = sink();
  const logger = pino({ level: 'debug' }, new TextLogDestination(out)).child({ component: 'api' });
  logger.info(
    { profile: 'web', endpoint: 'primary', from: 'Online', to: 'Degraded', reason: 'connection refused' },
    'endpoint status changed',
  );
  logger.debug({ method: 'GET', route: '/v1/profiles/{name}', status: 200, ms: 3 }, 'api request');
  logger.warn({ refused: 5, ok: false, gone: null }, 'api requests refused');
  expect(out.lines).toHaveLength(3);
  const [first, second, third] = out.lines as [string, string, string];
  expect(first).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}endpoint status changed {2}/);
  expect(first.slice(13)).toBe(
    'INFO  endpoint status changed  component=api profile=web endpoint=primary from=Online to=Degraded reason="connection refused"\n',
  );
  expect(second.slice(13)).toBe('DEBUG api request  component=api method=GET route=/v1/profiles/{name} status=200 ms=3\n');
  expect(third.slice(13)).toBe('WARN  api requests refused  component=api refused=5 ok=false gone=null\n');
  expect(out.lines.join('')).not.toMatch(/pid|hostname|"level"|\{"/);
});

test('the time is the record time, in local time', () => {
  const t = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
  expect(formatLogLine(JSON.stringify({ level: 30, time: t, msg: 'x' }))).toBe(`${hhmmss(t)} INFO  x`);
});

test('values that are not plain words are quoted; escape sequences and bidi controls cannot reach the terminal', () => {
  const line = formatLogLine(
    JSON.stringify({
      level: 40,
      time: 0,
      profile: 'evil\u001b[2J\u001b]0;title\u0007',
      endpoint: 'a\u009b31mb',
      reason: 'left\u202eright',
      empty: '',
      eq: 'a=b',
      obj: { a: 1, b: ['x y'] },
      msg: 'message\nwith\u001b[31m newline',
    }),
  );
  expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  expect(line.slice(13)).toBe(
    'WARN  message\\u000awith\\u001b[31m newline  profile="evil\\u001b[2J\\u001b]0;title\\u0007" endpoint="a\\u009b31mb" ' +
      'reason="left\\u202eright" empty="" eq="a=b" obj={"a":1,"b":["x y"]}',
  );
});

test('an error shows its message and code; its stack follows at error level only, each line indented', () => {
  const out = sink();
  const logger = pino({ level: 'info' }, new TextLogDestination(out));
  const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2379'), { code: 'ECONNREFUSED' });
  logger.warn({ err }, 'etcd unreachable');
  logger.error({ err: new TypeError('boom') }, 'api request failed');
  expect(out.lines[0]!.slice(13)).toBe('WARN  etcd unreachable  err="connect ECONNREFUSED 127.0.0.1:2379" err.code=ECONNREFUSED\n');
  const lines = out.lines[1]!.split('\n');
  expect(lines[0]!.slice(13)).toBe('ERROR api request failed  err="TypeError: boom"');
  expect(lines[1]).toMatch(/^ {4}at /);
  expect(lines.slice(1, -1).every((l) => l.startsWith('    at '))).toBe(true);
});

test('pino redaction still applies: the text is made from what pino wrote', () => {
  const out = sink();
  const logger = pino({ level: 'info', redact: ['headers.authorization'] }, new TextLogDestination(out));
  logger.info({ headers: { authorization: 'Bearer s3cret-token-value' } }, 'request');
  expect(out.lines.join('')).not.toContain('s3cret');
  expect(out.lines[0]!.slice(13)).toBe('INFO  request  headers={"authorization":"[Redacted]"}\n');
});

test('held lines wait, in order, until release; then lines pass straight through', () => {
  const out = sink();
  const dest = new TextLogDestination(out);
  const logger = pino({ level: 'info' }, dest);
  dest.hold(60_000);
  logger.info('one');
  logger.info('two');
  expect(out.lines).toEqual([]);
  dest.release();
  expect(
    out.lines
      .join('')
      .split('\n')
      .map((l) => l.slice(13)),
  ).toEqual(['INFO  one', 'INFO  two', '']);
  logger.info('three');
  expect(out.lines[out.lines.length - 1]!.slice(13)).toBe('INFO  three\n');
});

test('a hold ends by itself after its bound, so a start-up that hangs does not hide its logs', async () => {
  const out = sink();
  const dest = new TextLogDestination(out);
  dest.hold(50);
  dest.write(`${JSON.stringify({ level: 40, time: 0, msg: 'etcd unreachable' })}\n`);
  expect(out.lines).toEqual([]);
  await new Promise((r) => setTimeout(r, 200));
  expect(out.lines.join('').slice(13)).toBe('WARN  etcd unreachable\n');
});

test('a line split across writes is formatted once whole; a line that is not JSON comes through escaped', () => {
  const out = sink();
  const dest = new TextLogDestination(out);
  const json = JSON.stringify({ level: 30, time: 0, msg: 'whole', k: 'v' });
  dest.write(json.slice(0, 10));
  expect(out.lines).toEqual([]);
  dest.write(`${json.slice(10)}\nnot json \u001b[2J\n`);
  expect(out.lines.map((l) => l.replace(/^\d\d:\d\d:\d\d\.\d{3} /, ''))).toEqual(['INFO  whole  k=v\n', 'not json \\u001b[2J\n']);
});
