/**
 * The checks before the SQLite store opens its file: a damaged database (`store-corrupt`), a lost one in a
 * state dir that was used before (`store-empty`), and whether the file is in WAL mode.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError } from '../../core/store/types';
import { openDatabase, type SqlDatabase } from './driver';
import { DB_FILE } from './sqlite-schema';

/** What to do about a damaged database, in every message that reports one. */
const RESTORE_HINT =
  'restore it from a backup (stop tmkit serve, copy the backup over this file and delete its ' +
  '-wal, -shm and -journal files; docs/runtime.md "Backup and restore")';

/** A database SQLite cannot read (not a database, malformed): refused with the file named. */
export function damaged(path: string, err: unknown): Error {
  const code = (err as { code?: string }).code ?? '';
  if (code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT_') || code === 'SQLITE_NOTADB') {
    return new StoreError('STORE_CORRUPT', `${path} is damaged (${(err as Error).message}); ${RESTORE_HINT}`, { path });
  }
  return err as Error;
}

/** `PRAGMA quick_check` (b-tree structure, every page): anything but `ok` refuses the database. */
export function checkIntegrity(db: SqlDatabase, path: string): void {
  let problems: string[];
  try {
    problems = db
      .pragma('quick_check(20)')
      .map((r) => String(Object.values(r)[0]))
      .filter((m) => m !== 'ok');
  } catch (err) {
    // Damage bad enough stops the check itself (SQLITE_CORRUPT): the same finding, in the check's words.
    const code = (err as { code?: string }).code ?? '';
    if (!code.startsWith('SQLITE_CORRUPT')) throw err;
    problems = [(err as Error).message];
  }
  if (problems.length === 0) return;
  const lines = problems
    .join('\n')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('***'));
  const shown = lines.slice(0, 3).join('; ') + (lines.length > 3 ? `; … (${lines.length - 3} more)` : '');
  throw new StoreError('STORE_CORRUPT', `${path} failed SQLite's integrity check (PRAGMA quick_check: ${shown}); ${RESTORE_HINT}`, {
    path,
    problems: lines,
  });
}

/**
 * A state dir that was used before (API token file, WAL file, or what the caller knows) whose `tmkit.db`
 * is empty, uninitialised or gone while its WAL is still there: the configuration was lost (truncated,
 * replaced, or deleted underneath), and opening it would quietly start an empty store. A brand-new state
 * dir (no database file) initialises as usual; so does one whose database was deleted together with its WAL.
 */
export function refuseLostDatabase(stateDir: string, path: string, usedBefore: readonly string[]): void {
  const size = (f: string): number | undefined => {
    try {
      return statSync(f).size;
    } catch {
      return undefined;
    }
  };
  const dbSize = size(path);
  const walSize = size(`${path}-wal`);
  const evidence = [
    ...(existsSync(join(stateDir, 'token')) ? ['an API token file'] : []),
    ...(walSize !== undefined && walSize > 0 ? [`a write-ahead log (${DB_FILE}-wal, ${walSize} bytes)`] : []),
    ...usedBefore,
  ];
  let what: string | undefined;
  if (dbSize === undefined) {
    if (walSize !== undefined && walSize > 0) what = `${path} is missing but its write-ahead log ${path}-wal is still there`;
  } else if (dbSize === 0) {
    what = `${path} is empty (0 bytes)`;
  } else if (uninitialised(path)) {
    what = `${path} holds no tmkit schema (an empty SQLite database)`;
  }
  if (what === undefined || evidence.length === 0) return;
  throw new StoreError(
    'STORE_EMPTY',
    `${what}, but ${stateDir} was used before (it has ${evidence.join(', ')}): the database was ` +
      `probably truncated or replaced, and starting would serve an empty configuration. ` +
      `${RESTORE_HINT[0]!.toUpperCase()}${RESTORE_HINT.slice(1)}, or pass --force-empty to start with ` +
      `an empty store`,
    { path },
  );
}

/** A SQLite file without tables and with user_version 0 (as a fresh `sqlite3 tmkit.db .quit` leaves it). */
function uninitialised(path: string): boolean {
  let db: SqlDatabase | undefined;
  try {
    if (walHeader(path)) return false; // a WAL database has a schema by construction (tmkit set WAL after migrating)
    db = openDatabase(path, { readonly: true });
    const version = Number(db.pragmaValue('user_version'));
    const tables = Number(db.prepare<{ n: number }>(`SELECT count(*) AS n FROM sqlite_master`).get()!.n);
    return version === 0 && tables === 0;
  } catch {
    return false; // unreadable: the integrity check at open reports it with its own message
  } finally {
    db?.close();
  }
}

/**
 * Whether the file's header says WAL (bytes 18 and 19, the read and write format versions, are 2): read
 * directly, because the wasm driver cannot open such a file in normal locking mode to ask.
 */
export function walHeader(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const b = Buffer.alloc(2);
    return readSync(fd, b, 0, 2, 18) === 2 && b[0] === 2 && b[1] === 2;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
