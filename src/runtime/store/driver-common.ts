/**
 * The SQLite driver seam's common interface (driver.ts): the statement and database every store module
 * uses, the open options, and the base both drivers share (transactions, `inTransaction`, pragmas).
 */
import { SqliteError } from './driver-errors';

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

/** What both drivers share: BEGIN … COMMIT with rollback on a throw, the transaction depth, pragmas. */
export abstract class BaseDatabase implements SqlDatabase {
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
