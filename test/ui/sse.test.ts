import fc from 'fast-check';
import { decodeLiveEvent } from '../../ui/src/lib/events';
import { SseParser, type SseMessage } from '../../ui/src/lib/sse';

const parseAll = (text: string): SseMessage[] => new SseParser().push(text);

describe('SseParser (WHATWG server-sent events)', () => {
  test.each<[string, string, Array<Partial<SseMessage>>]>([
    ['one event', 'event: transition\ndata: {"a":1}\n\n', [{ event: 'transition', data: '{"a":1}' }]],
    ['no event field is "message"', 'data: x\n\n', [{ event: 'message', data: 'x' }]],
    ['data lines are joined with LF', 'data: a\ndata: b\n\n', [{ data: 'a\nb' }]],
    ['only one leading space is dropped', 'data:  two\ndata:none\n\n', [{ data: ' two\nnone' }]],
    ['comments (keep-alives) are ignored', ': ping\n\n: ping\ndata: x\n\n', [{ data: 'x' }]],
    ['a block without data dispatches nothing', 'event: revision\n\ndata: y\n\n', [{ event: 'message', data: 'y' }]],
    ['an empty data field still dispatches', 'data\n\n', [{ data: '' }]],
    ['CRLF and CR end lines too', 'data: a\r\n\r\ndata: b\r\rdata: c\n\n', [{ data: 'a' }, { data: 'b' }, { data: 'c' }]],
    ['a leading BOM is ignored', '\ufeffdata: x\n\n', [{ data: 'x' }]],
    [
      'the id is sticky',
      'id: 7\ndata: a\n\ndata: b\n\n',
      [
        { id: '7', data: 'a' },
        { id: '7', data: 'b' },
      ],
    ],
    ['an unfinished block is not dispatched', 'data: a\n\ndata: b\n', [{ data: 'a' }]],
    ['unknown fields are ignored', 'foo: bar\ndata: z\n\n', [{ data: 'z' }]],
  ])('%s', (_, text, want) => {
    const got = parseAll(text);
    expect(got).toHaveLength(want.length);
    want.forEach((w, i) => {
      expect(got[i]).toMatchObject(w);
    });
  });

  test('retry: sets the reconnection time at once, with or without a message; a non-number is ignored', () => {
    const p = new SseParser();
    expect(p.retry).toBeUndefined();
    expect(p.push('retry: 1500\n')).toEqual([]);
    expect(p.retry).toBe(1500);
    p.push('retry: soon\n\n');
    expect(p.retry).toBe(1500);
    p.push('retry: 200\ndata: x\n\n');
    expect(p.retry).toBe(200);
  });

  test('property: however the stream is cut into chunks, the same messages come out', () => {
    const field = fc.stringMatching(/^[a-z{}":, 0-9]{0,12}$/);
    const message = fc.record({
      event: fc.option(fc.constantFrom('transition', 'revision', 'traffic'), { nil: undefined }),
      data: fc.array(field, { minLength: 1, maxLength: 3 }),
      comment: fc.boolean(),
    });
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    fc.assert(
      fc.property(fc.array(fc.tuple(message, eol), { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 }), (msgs, cuts) => {
        const text = msgs
          .map(
            ([m, e]) =>
              `${m.comment ? `: keep-alive${e}` : ''}${m.event ? `event: ${m.event}${e}` : ''}${m.data.map((d) => `data: ${d}${e}`).join('')}${e}`,
          )
          .join('');
        const whole = parseAll(text);
        expect(whole.map((m) => m.data)).toEqual(msgs.map(([m]) => m.data.join('\n')));
        expect(whole.map((m) => m.event)).toEqual(msgs.map(([m]) => m.event ?? 'message'));
        const points = [...new Set(cuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1))))].sort((a, b) => a - b);
        const p = new SseParser();
        const chunked: SseMessage[] = [];
        let at = 0;
        for (const c of [...points, text.length]) {
          chunked.push(...p.push(text.slice(at, c)));
          at = c;
        }
        expect(chunked).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });
});

describe('decodeLiveEvent', () => {
  const m = (event: string, data: string): SseMessage => ({ event, data, id: '' });
  test('known events with well-formed bodies', () => {
    expect(decodeLiveEvent(m('revision', '{"revision":12}'))).toEqual({ type: 'revision', data: { revision: 12 } });
    const t = {
      at: '2026-01-01T00:00:00Z',
      profile: 'web',
      endpoint: 'primary',
      from: 'Online',
      to: 'Degraded',
      reason: 'timeout',
      location: 'vm',
    };
    expect(decodeLiveEvent(m('transition', JSON.stringify(t)))).toEqual({ type: 'transition', data: t });
    const b = { profile: 'web', bucket: { start: '2026-01-01T00:00:00Z', counts: [] } };
    expect(decodeLiveEvent(m('traffic', JSON.stringify(b)))).toEqual({ type: 'traffic', data: b });
  });
  test.each([
    ['unknown event', 'hello', '{}'],
    ['not JSON', 'revision', '{'],
    ['not an object', 'revision', '[1]'],
    ['revision without a number', 'revision', '{"revision":"1"}'],
    ['transition without to', 'transition', '{"profile":"a","endpoint":"b"}'],
    ['traffic without a bucket', 'traffic', '{"profile":"a"}'],
  ])('%s is ignored', (_, event, data) => {
    expect(decodeLiveEvent(m(event, data))).toBeUndefined();
  });
});
