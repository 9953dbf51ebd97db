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
 */
import { existsSync, rmdirSync, statfsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { systemClock } from '../clock';

export type SqliteDriverName = 'node' | 'wasm';
export type Row = Record<string, unknown>;
export type SqlValue = string | number | bigint | null | Uint8Array;

export interface SqlStatement<R = Row> {
  run(...params: SqlValue[]): { changes: number };
  get(...params: SqlValue[]): R | undefined;
  all(...params: SqlValue[]): R[];
}

export interface SqlDatabase {
  readonly driver: SqliteDriverName;
  readonly path: string;
  readonly isOpen: boolean;
  /** True between BEGIN and COMMIT/ROLLBACK issued through `transaction` or `exec`. */
  readonly inTransaction: boolean;
  exec(sql: string): void;
  prepare<R = Row>(sql: string): SqlStatement<R>;
  /** Runs `fn` inside BEGIN (DEFERRED or IMMEDIATE) … COMMIT; any throw rolls back and rethrows. */
  transaction<T>(fn: () => T, mode?: 'deferred' | 'immediate'): T;
  /** `PRAGMA <text>`: all rows. */
  pragma(text: string): Row[];
  /** `PRAGMA <text>`: the first column of the first row (`undefined` for none). */
  pragmaValue(text: string): unknown;
  close(): void;
}

export interface OpenOptions {
  readonly?: boolean;
  /** Refuse to create the file (read-write opens). Read-only opens always need an existing file. */
  fileMustExist?: boolean;
  /** How long a statement waits for another connection's lock (SQLITE_BUSY) before failing. Default 5000. */
  busyTimeoutMs?: number;
  /** Overrides the process-wide choice (`sqliteDriver()`). */
  driver?: SqliteDriverName;
}

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

// ---------------------------------------------------------------------------------------------------------
// Error normalisation

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

// ---------------------------------------------------------------------------------------------------------
// Driver choice

interface NodeSqliteModule {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean; open?: boolean; enableForeignKeyConstraints?: boolean }) => NodeDb;
}
interface NodeDb {
  exec(sql: string): void;
  prepare(sql: string): NodeStmt;
  close(): void;
}
interface NodeStmt {
  run(...params: SqlValue[]): { changes: number | bigint };
  get(...params: SqlValue[]): Row | undefined;
  all(...params: SqlValue[]): Row[];
}
interface WasmModule {
  Database: new (path: string, options?: { readOnly?: boolean; fileMustExist?: boolean }) => WasmDb;
}
interface WasmDb {
  readonly isOpen: boolean;
  readonly inTransaction: boolean;
  exec(sql: string): void;
  prepare(sql: string): WasmStmt;
  close(): void;
}
interface WasmStmt {
  run(values?: SqlValue[]): { changes: number };
  get(values?: SqlValue[]): Row | null;
  all(values?: SqlValue[]): Row[];
  finalize(): void;
  readonly isFinalized: boolean;
}

let nodeModule: NodeSqliteModule | null | undefined;
let wasmModule: WasmModule | undefined;

/**
 * `node:sqlite` if this Node has it unflagged, else null. Loaded with process.getBuiltinModule, which does
 * not go through a module loader's resolution (jest's does not know the `node:`-only builtin). Its
 * ExperimentalWarning (Node 22) is not shown: it would be the first thing `tmkit serve` prints.
 */
function loadNodeSqlite(): NodeSqliteModule | null {
  if (nodeModule !== undefined) return nodeModule;
  const get = (process as unknown as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const emit = process.emitWarning;
  try {
    process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
      const text = typeof warning === 'string' ? warning : warning.message;
      if (/SQLite/i.test(text)) return;
      (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
    }) as typeof process.emitWarning;
    const m = get?.call(process, 'node:sqlite') as NodeSqliteModule | undefined;
    nodeModule = m && typeof m.DatabaseSync === 'function' ? m : null;
  } catch {
    nodeModule = null;
  } finally {
    process.emitWarning = emit;
  }
  return nodeModule;
}

function loadWasm(): WasmModule {
  if (!wasmModule) wasmModule = createRequire(__filename)('node-sqlite3-wasm') as WasmModule;
  return wasmModule;
}

/** Whether this Node has `node:sqlite` without a flag. */
export function nodeSqliteAvailable(): boolean {
  return loadNodeSqlite() !== null;
}

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

function wrap<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw normalizeSqliteError(err);
  }
}

abstract class BaseDatabase implements SqlDatabase {
  abstract readonly driver: SqliteDriverName;
  protected depth = 0;
  constructor(readonly path: string) {}
  abstract get isOpen(): boolean;
  abstract exec(sql: string): void;
  abstract prepare<R = Row>(sql: string): SqlStatement<R>;
  abstract close(): void;

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  /** Keeps `inTransaction` right for BEGIN/COMMIT/ROLLBACK issued as plain SQL. */
  protected track(sql: string): void {
    const s = sql.trim().toUpperCase();
    if (s.startsWith('BEGIN')) this.depth = 1;
    else if (s.startsWith('COMMIT') || s.startsWith('END') || (s.startsWith('ROLLBACK') && !s.includes(' TO '))) this.depth = 0;
  }

  transaction<T>(fn: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
    if (this.depth > 0) throw new SqliteError('cannot start a transaction within a transaction', 'SQLITE_ERROR', 1);
    this.exec(mode === 'immediate' ? 'BEGIN IMMEDIATE' : 'BEGIN');
    let result: T;
    try {
      result = fn();
      this.exec('COMMIT');
    } catch (err) {
      if (this.depth > 0) {
        try {
          this.exec('ROLLBACK');
        } catch {
          /* SQLite may have rolled back already (SQLITE_FULL at commit) */
        }
        this.depth = 0;
      }
      throw err;
    }
    return result;
  }

  pragma(text: string): Row[] {
    return this.prepare(`PRAGMA ${text}`).all();
  }

  pragmaValue(text: string): unknown {
    const row = this.prepare(`PRAGMA ${text}`).get();
    return row ? Object.values(row)[0] : undefined;
  }
}

class NodeDatabase extends BaseDatabase {
  readonly driver = 'node' as const;
  private readonly db: NodeDb;
  private opened = true;

  constructor(path: string, options: OpenOptions, busyTimeoutMs: number) {
    super(path);
    const m = loadNodeSqlite();
    if (!m)
      throw new SqliteDriverError(
        `node:sqlite is not available in Node.js ${process.version} (it needs Node 22.13+ or 24); use the wasm driver`,
      );
    this.db = wrap(() => new m.DatabaseSync(path, { readOnly: options.readonly === true }));
    try {
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    } catch (err) {
      this.db.close();
      throw normalizeSqliteError(err);
    }
  }

  get isOpen(): boolean {
    return this.opened;
  }

  exec(sql: string): void {
    wrap(() => this.db.exec(sql));
    this.track(sql);
  }

  prepare<R = Row>(sql: string): SqlStatement<R> {
    const s = wrap(() => this.db.prepare(sql));
    return {
      run: (...p) => wrap(() => ({ changes: Number(s.run(...p).changes) })),
      get: (...p) => wrap(() => s.get(...p) as R | undefined),
      all: (...p) => wrap(() => s.all(...p) as R[]),
    };
  }

  close(): void {
    if (!this.opened) return;
    this.opened = false;
    this.depth = 0;
    wrap(() => this.db.close());
  }
}

/** Below this much free space, an I/O error of a write is the disk being full (the wasm driver cannot say). */
const FULL_BELOW_BYTES = 64 * 1024;

/**
 * node-sqlite3-wasm's VFS turns every failed write into SQLITE_IOERR_WRITE ("disk I/O error"), ENOSPC
 * included, where the native SQLite of node:sqlite says SQLITE_FULL. So a wasm I/O error while the database's
 * file system has (next to) no free space left is SQLITE_FULL, and the API answers 507 STORAGE_FULL on Node 20
 * as on Node 24 (failures.ts). Free space is what this process may use: root may also fill the reserved blocks.
 */
function diskFullOrAsIs(err: unknown, path: string): unknown {
  if (!(err instanceof SqliteError) || !err.code.startsWith('SQLITE_IOERR') || path === ':memory:') return err;
  let free: number;
  try {
    const st = statfsSync(dirname(path));
    free = (process.getuid?.() === 0 ? st.bfree : st.bavail) * st.bsize;
  } catch {
    return err;
  }
  return free < FULL_BELOW_BYTES
    ? new SqliteError(`database or disk is full (the file system of ${dirname(path)} has no space left: ${err.message})`, 'SQLITE_FULL')
    : err;
}

/** Waits synchronously (the drivers are synchronous; so was better-sqlite3's busy handler). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

class WasmDatabase extends BaseDatabase {
  readonly driver = 'wasm' as const;
  private readonly db: WasmDb;
  /** Statements are WebAssembly memory: finalized on close, or they leak. */
  private readonly statements = new Set<WasmStmt>();

  constructor(
    path: string,
    options: OpenOptions,
    private readonly busyTimeoutMs: number,
  ) {
    super(path);
    const m = loadWasm();
    this.db = wrap(
      () =>
        new m.Database(path, {
          readOnly: options.readonly === true,
          fileMustExist: options.fileMustExist === true,
        }),
    );
  }

  get isOpen(): boolean {
    return this.db.isOpen;
  }

  /**
   * The wasm VFS has no xSleep, so SQLite's busy handler gives up at once: a statement that met another
   * connection's lock while this one held none (not in a transaction, or the BEGIN itself) did nothing, and
   * is retried here until the busy timeout.
   */
  private retry<T>(fn: () => T): T {
    const deadline = systemClock.now() + this.busyTimeoutMs;
    for (let wait = 1; ; wait = Math.min(wait * 2, 25)) {
      const idle = !this.db.inTransaction;
      try {
        return fn();
      } catch (err) {
        const e = diskFullOrAsIs(normalizeSqliteError(err), this.path);
        if (!(e instanceof SqliteError) || e.code !== 'SQLITE_BUSY' || !idle || systemClock.now() >= deadline) throw e;
        sleepSync(wait);
      }
    }
  }

  exec(sql: string): void {
    this.retry(() => this.db.exec(sql));
    this.track(sql);
    // SQLite ends a transaction itself on some errors (SQLITE_FULL): trust the engine's own view.
    if (!this.db.inTransaction) this.depth = 0;
  }

  prepare<R = Row>(sql: string): SqlStatement<R> {
    const s = this.retry(() => this.db.prepare(sql));
    this.statements.add(s);
    const vals = (p: SqlValue[]): SqlValue[] | undefined => (p.length === 0 ? undefined : p);
    // node-sqlite3-wasm's get() stops its row generator after the first row without resetting the
    // statement, which keeps the statement active, so its read transaction and the VFS lock directory stay
    // (other processes get SQLITE_BUSY; VACUUM says "SQL statements in progress"). And after a failed step,
    // its next bind fails on sqlite3_reset's replay of that error. So every call ends with a reset.
    const reset = (): void => {
      try {
        (s as unknown as { _reset(): boolean })._reset();
      } catch {
        /* finalized */
      }
    };
    const call = <T>(fn: () => T): T =>
      this.retry(() => {
        try {
          return fn();
        } finally {
          reset();
        }
      });
    return {
      run: (...p) => call(() => ({ changes: s.run(vals(p)).changes })),
      get: (...p) => call(() => (s.get(vals(p)) ?? undefined) as R | undefined),
      all: (...p) => call(() => s.all(vals(p)) as R[]),
    };
  }

  /** One-off statements (pragmas) are finalized at once instead of waiting for close. */
  override pragma(text: string): Row[] {
    return this.retry(() => (this.db as unknown as { all(sql: string): Row[] }).all(`PRAGMA ${text}`));
  }

  override pragmaValue(text: string): unknown {
    const row = this.retry(() => (this.db as unknown as { get(sql: string): Row | null }).get(`PRAGMA ${text}`));
    return row ? Object.values(row)[0] : undefined;
  }

  override transaction<T>(fn: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
    try {
      return super.transaction(fn, mode);
    } finally {
      if (!this.db.inTransaction) this.depth = 0;
    }
  }

  close(): void {
    if (!this.db.isOpen) return;
    for (const s of this.statements)
      if (!s.isFinalized) {
        try {
          s.finalize();
        } catch {
          /* closing anyway */
        }
      }
    this.statements.clear();
    this.depth = 0;
    wrap(() => this.db.close());
  }
}

/**
 * node-sqlite3-wasm's lock of `file` is the directory `<file>.lock`: a process killed while it held it (inside
 * a transaction) leaves it, and every later wasm open gets SQLITE_BUSY. Call only while no other process can
 * use `file` (tmkit holds the state dir's lock); whatever this process's driver, so that a Node 24 serve
 * after a Node 20 crash leaves the dir clean for Node 20 again. Returns whether a stale lock was removed.
 */
export function removeStaleVfsLock(file: string): boolean {
  const dir = `${file}.lock`;
  try {
    if (!statSync(dir).isDirectory()) return false;
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/** The journal mode a store database uses with this driver: WAL needs shared memory, which the wasm VFS lacks. */
export function storeJournalMode(driver: SqliteDriverName): 'wal' | 'delete' {
  return driver === 'node' ? 'wal' : 'delete';
}
