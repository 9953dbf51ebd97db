/**
 * The SQLite driver seam's errors (driver.ts): both engines' errors as one `SqliteError` with a
 * better-sqlite3-style `code`, which is what `failures.ts` and the store classify, and `SqliteDriverError`
 * for a driver that cannot be used.
 */

/** A SQLite error from either driver, with a better-sqlite3-style `code` string. */
export class SqliteError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly errcode?: number,
  ) {
    super(message);
    this.name = 'SqliteError';
  }
}

/** An unusable driver choice (`TMKIT_SQLITE_DRIVER`): what was asked, and what to do. */
export class SqliteDriverError extends Error {
  readonly code: 'SQLITE_DRIVER_UNAVAILABLE' = 'SQLITE_DRIVER_UNAVAILABLE';
  constructor(message: string) {
    super(message);
    this.name = 'SqliteDriverError';
  }
}

const PRIMARY: Record<number, string> = {
  1: 'SQLITE_ERROR',
  2: 'SQLITE_INTERNAL',
  3: 'SQLITE_PERM',
  4: 'SQLITE_ABORT',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  8: 'SQLITE_READONLY',
  9: 'SQLITE_INTERRUPT',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  12: 'SQLITE_NOTFOUND',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  15: 'SQLITE_PROTOCOL',
  16: 'SQLITE_EMPTY',
  17: 'SQLITE_SCHEMA',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
  21: 'SQLITE_MISUSE',
  22: 'SQLITE_NOLFS',
  23: 'SQLITE_AUTH',
  24: 'SQLITE_FORMAT',
  25: 'SQLITE_RANGE',
  26: 'SQLITE_NOTADB',
};
/** The extended codes whose names tmkit's messages show (the rest fall back to the primary name). */
const EXTENDED: Record<number, string> = {
  264: 'SQLITE_READONLY_RECOVERY',
  520: 'SQLITE_READONLY_CANTLOCK',
  776: 'SQLITE_READONLY_ROLLBACK',
  1032: 'SQLITE_READONLY_DBMOVED',
  1288: 'SQLITE_READONLY_CANTINIT',
  1544: 'SQLITE_READONLY_DIRECTORY',
  267: 'SQLITE_CORRUPT_VTAB',
  523: 'SQLITE_CORRUPT_SEQUENCE',
  779: 'SQLITE_CORRUPT_INDEX',
  266: 'SQLITE_IOERR_READ',
  522: 'SQLITE_IOERR_SHORT_READ',
  778: 'SQLITE_IOERR_WRITE',
  1034: 'SQLITE_IOERR_FSYNC',
  1546: 'SQLITE_IOERR_TRUNCATE',
  1802: 'SQLITE_IOERR_FSTAT',
  2058: 'SQLITE_IOERR_UNLOCK',
  2570: 'SQLITE_IOERR_DELETE',
  3082: 'SQLITE_IOERR_NOMEM',
  3850: 'SQLITE_IOERR_LOCK',
  4106: 'SQLITE_IOERR_CLOSE',
  517: 'SQLITE_BUSY_SNAPSHOT',
  261: 'SQLITE_BUSY_RECOVERY',
};
/**
 * node-sqlite3-wasm throws `SQLite3Error` with `sqlite3_errmsg()` only, no code: these are SQLite's own
 * result-code strings (sqlite3ErrStr), matched at the start of the message.
 */
const BY_MESSAGE: Array<[string, string]> = [
  ['database or disk is full', 'SQLITE_FULL'],
  ['attempt to write a readonly database', 'SQLITE_READONLY'],
  ['database disk image is malformed', 'SQLITE_CORRUPT'],
  ['file is not a database', 'SQLITE_NOTADB'],
  ['disk I/O error', 'SQLITE_IOERR'],
  ['database is locked', 'SQLITE_BUSY'],
  ['database table is locked', 'SQLITE_LOCKED'],
  ['unable to open database file', 'SQLITE_CANTOPEN'],
  ['Could not open the database', 'SQLITE_CANTOPEN'],
  ['out of memory', 'SQLITE_NOMEM'],
  ['string or blob too big', 'SQLITE_TOOBIG'],
  ['query aborted', 'SQLITE_ABORT'],
  ['interrupted', 'SQLITE_INTERRUPT'],
  ['access permission denied', 'SQLITE_PERM'],
  ['locking protocol', 'SQLITE_PROTOCOL'],
];

function codeOfNumber(errcode: number): string {
  return EXTENDED[errcode] ?? PRIMARY[errcode & 0xff] ?? 'SQLITE_ERROR';
}

function codeOfMessage(message: string): string {
  if (/constraint failed/i.test(message)) return 'SQLITE_CONSTRAINT';
  for (const [prefix, code] of BY_MESSAGE) if (message.startsWith(prefix)) return code;
  return 'SQLITE_ERROR';
}

/** Either driver's error as a `SqliteError` (anything else, such as a TypeError from our own code, as it is). */
export function normalizeSqliteError(err: unknown): unknown {
  // Duck-typed, not `instanceof Error`: node:sqlite's errors come from Node's own realm, which is not the
  // realm of code running in a vm context (jest's test environment).
  if (err instanceof SqliteError || typeof err !== 'object' || err === null || typeof (err as Error).message !== 'string') return err;
  const e = err as Error & { code?: unknown; errcode?: unknown; errstr?: unknown };
  if (e.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') {
    return new SqliteError(e.message, codeOfNumber(e.errcode), e.errcode);
  }
  if (e.name === 'SQLite3Error') return new SqliteError(e.message, codeOfMessage(e.message));
  return err;
}

/** Runs `fn`, turning either driver's error into a `SqliteError`. */
export function wrap<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw normalizeSqliteError(err);
  }
}
