/**
 * The prober's saved state in a local file, for a store whose shared part lives elsewhere (etcd: the
 * monitor state is per node). A save appends one line (the change) to `<file>.log` and fsyncs it, so it
 * costs what changed; when the log outgrows the base file, the whole state is rewritten to `<file>` (in
 * chunks, yielding between them, so the event loop is never held for the whole state) and the log starts
 * over. Records are whole values, so replaying a line twice (a crash between the rename and the truncation)
 * changes nothing; a torn last line (a crash mid-append) is ignored.
 *
 * `<file>`: JSON lines, `{"m":meta}` and `{"k":"profile/endpoint","v":record}`; a file holding one JSON
 * object of another shape is the earlier whole-state file and is returned as the meta.
 */
import { existsSync, readFileSync } from 'node:fs';
import { open as openFile, rename, stat } from 'node:fs/promises';
import { applyMonitorChange, type MonitorState, type MonitorStateChange } from '../../core/store';

/** The log is compacted into the base file once it is larger than this and than the base file. */
const COMPACT_BYTES = 4 << 20;
const CHUNK = 5_000;

export class MonitorStateFile {
  private state: MonitorState | undefined;
  private loaded = false;
  private queue: Promise<void> = Promise.resolve();
  private logBytes = 0;
  private baseBytes = 0;

  /** `file` undefined: kept in memory only. `compactBytes`: the log size that triggers a compaction (at least). */
  constructor(
    private readonly file: string | undefined,
    private readonly compactBytes = COMPACT_BYTES,
  ) {}

  private get log(): string {
    return `${this.file}.log`;
  }

  private read(): MonitorState | undefined {
    if (this.loaded) return this.state;
    this.loaded = true;
    if (this.file === undefined) return undefined;
    if (existsSync(this.file)) {
      const text = readFileSync(this.file, 'utf8');
      this.baseBytes = text.length;
      for (const line of text.split('\n')) {
        if (line === '') continue;
        let row: { k?: unknown; v?: unknown; m?: unknown } | undefined;
        try {
          row = JSON.parse(line) as typeof row;
        } catch {
          continue;
        }
        if (row === null || typeof row !== 'object') continue;
        this.state ??= { endpoints: {} };
        if (typeof row.k === 'string') this.state.endpoints[row.k] = row.v;
        else if ('m' in row) this.state.meta = row.m;
        else this.state.meta = row; // the earlier whole-state file
      }
    }
    if (existsSync(this.log)) {
      const text = readFileSync(this.log, 'utf8');
      this.logBytes = text.length;
      for (const line of text.split('\n')) {
        if (line === '') continue;
        try {
          this.state = applyMonitorChange(this.state, JSON.parse(line) as MonitorStateChange);
        } catch {
          /* a torn last line */
        }
      }
    }
    return this.state;
  }

  load(): MonitorState | undefined {
    const s = this.read();
    return s === undefined ? undefined : structuredClone(s);
  }

  async save(change: MonitorStateChange): Promise<void> {
    this.read();
    this.state = applyMonitorChange(this.state, structuredClone(change));
    if (this.file === undefined) return;
    const line = `${JSON.stringify(change)}\n`;
    // One file operation at a time, in call order: a line is appended after the compaction it may race with.
    const run = this.queue.then(async () => {
      const fh = await openFile(this.log, 'a', 0o600);
      try {
        await fh.writeFile(line);
        await fh.sync();
      } finally {
        await fh.close();
      }
      this.logBytes += Buffer.byteLength(line);
      if (this.logBytes > Math.max(this.compactBytes, this.baseBytes)) await this.compact();
    });
    this.queue = run.catch(() => undefined);
    await run;
  }

  /** Writes the whole state to `<file>` (via a temporary file and a rename), then empties the log. */
  private async compact(): Promise<void> {
    const file = this.file!;
    const tmp = `${file}.tmp`;
    const fh = await openFile(tmp, 'w', 0o600);
    try {
      const state = this.state ?? { endpoints: {} };
      if (state.meta !== undefined) await fh.write(`${JSON.stringify({ m: state.meta })}\n`);
      const keys = Object.keys(state.endpoints);
      for (let i = 0; i < keys.length; i += CHUNK) {
        let text = '';
        for (const k of keys.slice(i, i + CHUNK)) {
          const v = state.endpoints[k];
          if (v !== undefined) text += `${JSON.stringify({ k, v })}\n`;
        }
        await fh.write(text);
        await new Promise((r) => setImmediate(r));
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
    const log = await openFile(this.log, 'w', 0o600);
    try {
      await log.sync();
    } finally {
      await log.close();
    }
    this.baseBytes = (await stat(file)).size;
    this.logBytes = 0;
  }
}
