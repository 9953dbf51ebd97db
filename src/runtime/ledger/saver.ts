/**
 * Saving the ledger's records: the endpoints marked unsaved are written a second after the first mark, at most
 * SAVE_CHUNK per store call with a turn of the event loop between calls, one save at a time. A save costs
 * what changed and never holds the event loop for long (100,000 endpoints at start-up are 20 calls). The
 * meta goes with the last call, so the earlier whole-state blob is replaced only once every record it held
 * is written anew. A failed call puts its endpoints back; the next save (a second later) retries them.
 */
import type { Logger } from 'pino';
import type { Store } from '../../core/store';
import type { RuntimeClock } from '../clock';
import type { SavedEndpoint, SavedMonitorMeta } from './previous-run';

/** Monitor records per store call. */
const SAVE_CHUNK = 1_000;
/** How long after the first change a save starts (changes meanwhile go with it). */
const SAVE_DELAY_MS = 1_000;

export interface SaverOptions {
  store: Pick<Store, 'saveMonitorState'>;
  clock: RuntimeClock;
  logger: Logger;
  /** The record to save for one endpoint now; null when it is no longer probed. */
  record: (key: string) => SavedEndpoint | null;
}

export class RecordSaver {
  private readonly unsaved = new Set<string>();
  private timer: unknown;
  private saving: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly deps: SaverOptions) {}

  /** Endpoints whose saved record is out of date. */
  get pending(): number {
    return this.unsaved.size;
  }

  /** Marks one endpoint's record out of date and schedules a save. */
  mark(key: string): void {
    this.unsaved.add(key);
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.saving || this.closed || this.unsaved.size === 0) return;
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      this.saving = this.save().finally(() => {
        this.saving = undefined;
        this.schedule();
      });
    }, SAVE_DELAY_MS);
  }

  private async save(): Promise<void> {
    while (this.unsaved.size > 0) {
      const endpoints: Record<string, SavedEndpoint | null> = {};
      let n = 0;
      for (const key of this.unsaved) {
        this.unsaved.delete(key);
        endpoints[key] = this.deps.record(key);
        if (++n >= SAVE_CHUNK) break;
      }
      const last = this.unsaved.size === 0;
      const meta: SavedMonitorMeta = { format: 2, savedAt: this.deps.clock.now() };
      try {
        await this.deps.store.saveMonitorState({ endpoints, ...(last ? { meta } : {}) });
      } catch (err) {
        for (const key of Object.keys(endpoints)) this.unsaved.add(key);
        this.deps.logger.warn({ err }, 'could not save the monitor state; retrying in a second');
        return;
      }
      if (!last) await new Promise((r) => setImmediate(r));
    }
  }

  /** Stops the timer, waits for a running save and saves what is left (at shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) {
      this.deps.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    await this.saving;
    await this.save();
  }
}
