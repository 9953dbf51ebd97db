/**
 * The SQLite store's writer. Writes run in groups: every write asked for in one turn of the event loop goes
 * into one transaction and one fsync (group commit), each judged in order against the view the ones before
 * it left, each in its own savepoint (a refused one leaves nothing). Each promise resolves only once the
 * group is committed; a commit that fails rejects them all, and nothing of them was written.
 */
import { StoreError, type StoreChange } from '../../core/store/types';
import type { SqlDatabase } from './driver';

/** What the store does at each step of a group. */
export interface GroupCommitHooks {
  /** A write failed and was rolled back to its savepoint (the others of its group go on). */
  rolledBack(): void;
  /** The group's transaction failed: nothing of it is stored. */
  failed(): void;
  /** The group is committed (before any of its writes' changes are emitted). */
  committed(): void;
  /** A committed write's change, in commit order, just before its promise resolves. */
  emit(change: StoreChange): void;
}

export class GroupCommit {
  /** Writes waiting for this turn's group commit (see write()). */
  private queue: Array<{
    job: () => { result: unknown; change?: StoreChange };
    resolve: (v: unknown) => void;
    reject: (e: unknown) => void;
  }> = [];

  constructor(
    private readonly db: SqlDatabase,
    private readonly path: string,
    private readonly hooks: GroupCommitHooks,
  ) {}

  /** Queues `job` for this turn's group; it runs inside the group's transaction, in its own savepoint. */
  write<T>(job: () => { result: T; change?: StoreChange }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!this.db.isOpen) {
        reject(new StoreError('STORE_UNAVAILABLE', `the store at ${this.path} is closed`));
        return;
      }
      this.queue.push({ job, resolve: resolve as (v: unknown) => void, reject });
      if (this.queue.length === 1)
        setImmediate(() => {
          if (this.db.isOpen) this.flush();
        });
    });
  }

  /** Commits the writes queued so far, now (also what close() does first). */
  flush(): void {
    const batch = this.queue.splice(0);
    if (batch.length === 0) return;
    const outcomes: Array<{ ok: true; result: unknown; change?: StoreChange } | { ok: false; error: unknown }> = [];
    try {
      this.db.transaction(() => {
        for (const w of batch) {
          this.db.exec('SAVEPOINT tmkit_write');
          try {
            const out = w.job();
            this.db.exec('RELEASE tmkit_write');
            outcomes.push({ ok: true, ...out });
          } catch (error) {
            try {
              this.db.exec('ROLLBACK TO tmkit_write');
              this.db.exec('RELEASE tmkit_write');
            } catch {
              throw error; // SQLite ended the whole transaction (a full disk, an I/O error): the group fails with the cause
            }
            this.hooks.rolledBack();
            outcomes.push({ ok: false, error });
          }
        }
      }, 'immediate');
    } catch (error) {
      this.hooks.failed();
      for (const w of batch) w.reject(error);
      return;
    }
    this.hooks.committed();
    batch.forEach((w, i) => {
      const o = outcomes[i]!;
      if (!o.ok) {
        w.reject(o.error);
        return;
      }
      if (o.change) this.hooks.emit(o.change);
      w.resolve(o.result);
    });
  }
}
