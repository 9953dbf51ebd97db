/**
 * SQLite for tests, through the same driver seam as the store (src/runtime/store/driver.ts): the driver is
 * the one this process uses (`TMKIT_SQLITE_DRIVER`, else node:sqlite where Node has it, else wasm), and the
 * `tmkit` processes the tests spawn inherit the same choice through the environment.
 */
import { openDatabase, sqliteDriver, type OpenOptions, type SqlDatabase } from '../../src/runtime/store/driver';
import { StateDirLock } from '../../src/runtime/store/lock';

export const driver = sqliteDriver();
/** WAL (node:sqlite) or a rollback journal (wasm: no shared memory). */
export const wal = driver === 'node';

export function openDb(path: string, options: OpenOptions = {}): SqlDatabase {
  return openDatabase(path, options);
}

/**
 * Runs `fn` on a state dir's database the way tmkit itself does after a crash: holding the state dir's
 * lock first (which clears a wasm lock directory a killed process left), read-write (so a hot journal is
 * rolled back).
 */
export function withStateDirDb<T>(stateDir: string, fn: (db: SqlDatabase) => T): T {
  const lock = StateDirLock.acquire(stateDir);
  try {
    const db = openDatabase(`${stateDir}/tmkit.db`);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  } finally {
    lock.release();
  }
}
