/**
 * An incremental parser for the text/event-stream format (WHATWG HTML §9.2 "Server-sent events"), for a
 * stream read with fetch(): EventSource cannot send the `Authorization` header the API needs. Pure: feed it
 * decoded text in chunks of any size; it returns the messages completed by each chunk.
 */
export interface SseMessage {
  /** `message` when the stream gave no `event:` field. */
  event: string;
  data: string;
  /** The last event ID seen so far (sticky, as the spec says). */
  id: string;
}

export class SseParser {
  private buf = '';
  private event = '';
  private data: string[] = [];
  private hasData = false;
  private lastId = '';
  /** The reconnection time the stream asked for (`retry:`, ms), whether or not a message followed. */
  retry: number | undefined;
  /** The previous chunk ended in CR: a LF at the start of the next one belongs to that line end. */
  private pendingCr = false;
  private first = true;

  push(chunk: string): SseMessage[] {
    let text = chunk;
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // one leading BOM is ignored
    }
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buf += text;
    const out: SseMessage[] = [];
    let start = 0;
    for (let i = 0; i < this.buf.length; i++) {
      const c = this.buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.buf.slice(start, i);
      if (c === 13) {
        if (i + 1 < this.buf.length) {
          if (this.buf.charCodeAt(i + 1) === 10) i++;
        } else this.pendingCr = true;
      }
      start = i + 1;
      const msg = this.line(line);
      if (msg) out.push(msg);
    }
    this.buf = this.buf.slice(start);
    return out;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined; // comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.event = value;
        break;
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    const msg: SseMessage | undefined = this.hasData
      ? { event: this.event === '' ? 'message' : this.event, data: this.data.join('\n'), id: this.lastId }
      : undefined;
    this.event = '';
    this.data = [];
    this.hasData = false;
    return msg;
  }
}
