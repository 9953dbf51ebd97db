/**
 * The `wasm` SQLite driver (driver.ts): `node-sqlite3-wasm` (SQLite compiled to WebAssembly, a file-system
 * VFS written in JavaScript) on Node 20. Its xSync is `fs.fsyncSync`, so commits are durable; it has no
 * shared memory (no WAL) and its lock is a `<db>.lock` directory (see `removeStaleVfsLock`). Its busy
 * timeout does not wait (no xSleep), so this driver retries SQLITE_BUSY itself.
 */
import { rmdirSync, statfsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { systemClock } from '../clock';
import { BaseDatabase, type OpenOptions, type Row, type SqlStatement, type SqlValue } from './driver-common';
import { normalizeSqliteError, SqliteError, wrap } from './driver-errors';

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

let wasmModule: WasmModule | undefined;

function loadWasm(): WasmModule {
  if (!wasmModule) wasmModule = createRequire(__filename)('node-sqlite3-wasm') as WasmModule;
  return wasmModule;
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

/** A database opened with `node-sqlite3-wasm`. */
export class WasmDatabase extends BaseDatabase {
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
