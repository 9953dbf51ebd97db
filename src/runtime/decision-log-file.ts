/**
 * `serve --decision-log FILE` (docs/observability.md#the-decision-log): the node's decision records appended
 * to FILE as NDJSON, one record a line, once a second. At 64 MiB the file is rotated (FILE → FILE.1 → … →
 * FILE.3, the oldest dropped), as logrotate would, so the log on disk stays under 256 MiB. Writes are off the
 * DNS path: DNS only fills the in-memory ring; this reads what was added since the last second.
 */
import { createWriteStream, openSync, renameSync, statSync, type WriteStream } from 'node:fs';
import type { Logger } from 'pino';
import type { DnsTarget } from './dns';

export const DECISION_LOG_MAX_BYTES = 64 * 1024 * 1024;
export const DECISION_LOG_KEEP = 3;

export class DecisionLogFile {
  private stream: WriteStream;
  private size: number;
  private mark = 0;
  private readonly timer: NodeJS.Timeout;
  private lost = 0;
  /** Rotated streams still writing what they had. */
  private readonly ending = new Set<Promise<void>>();

  constructor(
    private readonly path: string,
    private readonly dns: Pick<DnsTarget, 'decisionsAfter'>,
    private readonly logger: Logger,
    private readonly maxBytes = DECISION_LOG_MAX_BYTES,
    intervalMs = 1_000,
  ) {
    this.size = sizeOf(path);
    this.stream = this.open();
    this.timer = setInterval(() => this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Appends what was added since the last call. */
  flush(): void {
    const { records, mark } = this.dns.decisionsAfter(this.mark);
    // More than the ring holds came in a second: the oldest of them are gone (said once a minute at most).
    if (mark - this.mark > records.length) this.lost += mark - this.mark - records.length;
    this.mark = mark;
    if (records.length === 0) return;
    let chunk = '';
    for (const r of records) chunk += `${JSON.stringify(r)}\n`;
    const bytes = Buffer.byteLength(chunk);
    if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
    this.size += bytes;
    this.stream.write(chunk);
    if (this.lost > 0) {
      this.logger.warn(
        { lost: this.lost, file: this.path },
        'decision log: more answers a second than the ring holds; the oldest were not written',
      );
      this.lost = 0;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.flush();
    await Promise.all([...this.ending, new Promise<void>((r) => this.stream.end(() => r()))]);
  }

  private open(): WriteStream {
    // Opened here and now (an open of a regular file does not wait), so a rotation that follows renames this
    // file: the stream's pending writes go to the file they were meant for, whatever its name is by then.
    const s = createWriteStream('', { fd: openSync(this.path, 'a', 0o640) });
    s.on('error', (err) =>
      this.logger.error({ err: err.message, file: this.path }, 'decision log: cannot write; check the path and its directory'),
    );
    return s;
  }

  private rotate(): void {
    const old = this.stream;
    const ended = new Promise<void>((r) => old.end(() => r())).finally(() => this.ending.delete(ended));
    this.ending.add(ended);
    for (let i = DECISION_LOG_KEEP - 1; i >= 1; i--) tryRename(`${this.path}.${i}`, `${this.path}.${i + 1}`);
    tryRename(this.path, `${this.path}.1`);
    this.size = 0;
    this.stream = this.open();
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function tryRename(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch {
    // nothing there yet
  }
}
