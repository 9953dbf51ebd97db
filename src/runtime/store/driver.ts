/**
 * The SQLite driver seam: one small synchronous interface over the two SQLite engines tmkit can use, so
 * that the store, its lock and backup/restore never depend on a native addon.
 *
 * - `node`: Node's built-in `node:sqlite` (`DatabaseSync`), where Node has it without a flag (22.13+, 23.4+,
 *   24). Real `fcntl` locks, WAL.
 * - `wasm`: `node-sqlite3-wasm` (SQLite compiled to WebAssembly, a file-system VFS written in JavaScript) on
 *   Node 20. Its xSync is `fs.fsyncSync`, so commits are durable; it has no shared memory (no WAL: the store
 *   uses a rollback journal there) and its lock is a `<db>.lock` *directory* made with mkdirSync and removed
 *   on unlock, for every lock level: readers and writers exclude each other per transaction, and a process
 *   killed inside a transaction leaves the directory behind (see `removeStaleVfsLock`). Its busy timeout does
 *   not wait (no xSleep), so this seam retries SQLITE_BUSY itself.
 *
 * `TMKIT_SQLITE_DRIVER=node|wasm` overrides the choice (tests run both). Errors of both engines come out as
 * `SqliteError` with a better-sqlite3-style `code` (`SQLITE_FULL`, `SQLITE_READONLY`, `SQLITE_CORRUPT`,
 * `SQLITE_NOTADB`, `SQLITE_IOERR`, `SQLITE_BUSY`, …), which is what `failures.ts` and the store classify.
 *
 * This module chooses and opens; beside it: the common interface (`driver-common.ts`), the errors
 * (`driver-errors.ts`), the `node` driver (`driver-node.ts`) and the `wasm` driver (`driver-wasm.ts`).
 */
import { existsSync } from 'node:fs';
import type { OpenOptions, SqlDatabase, SqliteDriverName } from './driver-common';
import { SqliteDriverError, SqliteError } from './driver-errors';
import { NodeDatabase, nodeSqliteAvailable } from './driver-node';
import { WasmDatabase } from './driver-wasm';

export type { OpenOptions, Row, SqlDatabase, SqliteDriverName, SqlStatement, SqlValue } from './driver-common';
export { normalizeSqliteError, SqliteDriverError, SqliteError } from './driver-errors';
export { nodeSqliteAvailable } from './driver-node';
export { removeStaleVfsLock, sleepSync } from './driver-wasm';

// ---------------------------------------------------------------------------------------------------------
// Driver choice

/**
 * The driver this process uses: `TMKIT_SQLITE_DRIVER` (`node` or `wasm`) if set, else `node` where Node has
 * `node:sqlite`, else `wasm`. Throws `SqliteDriverError` for an unknown value, or `node` on a Node without it.
 */
export function sqliteDriver(env: NodeJS.ProcessEnv = process.env): SqliteDriverName {
  const asked = env.TMKIT_SQLITE_DRIVER?.trim();
  if (asked === undefined || asked === '') return nodeSqliteAvailable() ? 'node' : 'wasm';
  if (asked === 'wasm') return 'wasm';
  if (asked === 'node') {
    if (!nodeSqliteAvailable()) {
      throw new SqliteDriverError(
        `TMKIT_SQLITE_DRIVER=node, but Node.js ${process.version} has no node:sqlite (it needs Node 22.13+ or 24); unset TMKIT_SQLITE_DRIVER or set it to wasm`,
      );
    }
    return 'node';
  }
  throw new SqliteDriverError(
    `TMKIT_SQLITE_DRIVER=${asked} is not a SQLite driver: use node (node:sqlite, Node 22.13+) or wasm (node-sqlite3-wasm), or unset it`,
  );
}

/** One line for banners and /metrics: `node:sqlite (SQLite 3.x)` or `node-sqlite3-wasm (SQLite 3.x)`. */
export function describeDriver(driver: SqliteDriverName = sqliteDriver()): string {
  let version = '';
  try {
    const db = openDatabase(':memory:', { driver });
    try {
      version = String(db.prepare<{ v: string }>('SELECT sqlite_version() AS v').get()?.v ?? '');
    } finally {
      db.close();
    }
  } catch {
    /* the name alone */
  }
  return `${driver === 'node' ? 'node:sqlite' : 'node-sqlite3-wasm'}${version ? ` (SQLite ${version})` : ''}`;
}

// ---------------------------------------------------------------------------------------------------------
// Opening

export function openDatabase(path: string, options: OpenOptions = {}): SqlDatabase {
  const driver = options.driver ?? sqliteDriver();
  const busy = options.busyTimeoutMs ?? 5000;
  if (path !== ':memory:' && (options.readonly || options.fileMustExist) && !existsSync(path)) {
    throw new SqliteError(`unable to open database file ${path}: it does not exist`, 'SQLITE_CANTOPEN', 14);
  }
  return driver === 'node' ? new NodeDatabase(path, options, busy) : new WasmDatabase(path, options, busy);
}

/** The journal mode a store database uses with this driver: WAL needs shared memory, which the wasm VFS lacks. */
export function storeJournalMode(driver: SqliteDriverName): 'wal' | 'delete' {
  return driver === 'node' ? 'wal' : 'delete';
}
