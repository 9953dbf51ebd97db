/**
 * SQLite for tests, through the same driver seam as the store (src/runtime/store/driver.ts): the driver is
 * the one this process uses (`TMKIT_SQLITE_DRIVER`, else node:sqlite where Node has it, else wasm), and the
 * `tmkit` processes the tests spawn inherit the same choice through the environment.
 */
import { openDatabase, sqliteDriver, type OpenOptions, type SqlDatabase } from '../../src/runtime/store/driver';

export const driver = sqliteDriver();
/** WAL (node:sqlite) or a rollback journal (wasm: no shared memory). */
export const wal = driver === 'node';

export function openDb(path: string, options: OpenOptions = {}): SqlDatabase {
  return openDatabase(path, options);
}
