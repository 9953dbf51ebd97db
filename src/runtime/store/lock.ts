import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError } from '../../core/store';

export const LOCK_FILE = 'tmkit.lock';

/**
 * One `tmkit serve` per state directory. The lock is an OS lock, not a pid file: `tmkit.lock` is a small
 * SQLite database that the holder keeps write-locked for its whole life (SQLite takes POSIX `fcntl` locks on
 * it), so the kernel releases it when the process ends, however it ends (SIGKILL included) — nothing can go
 * stale.
 *
 * The holder's pid is in the file's header (`PRAGMA user_version`, bytes 60–63, big-endian). It is written
 * in the same `EXCLUSIVE`-locking-mode transaction that takes the lock, and SQLite keeps that lock after the
 * commit, so there is no moment at which the lock is held and the pid is not yet on disk. A refused process
 * cannot read the file through SQLite (it is locked), so it reads those four header bytes directly.
 *
 * DNS worker processes (`serve --workers N`) do not open the store, so they never take this lock.
 */
export class StateDirLock {
  private constructor(
    private readonly db: Database.Database,
    /** The lock file. */
    readonly path: string,
    /** The pid of the previous holder, 0 for a state dir that was never locked (used for "was this dir in use before?"). */
    readonly previousPid: number,
  ) {}

  /**
   * Takes the lock of `stateDir` (created with mode 0700 if missing) for this process, or throws
   * `StoreError('STATE_DIR_LOCKED')` naming the holder's pid.
   */
  static acquire(stateDir: string, pid: number = process.pid): StateDirLock {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const path = join(stateDir, LOCK_FILE);
    let db: Database.Database | undefined;
    try {
      db = new Database(path);
      db.pragma('busy_timeout = 0');
      // EXCLUSIVE: once taken, SQLite never releases the file lock until the connection closes.
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN IMMEDIATE');
      const previousPid = db.pragma('user_version', { simple: true }) as number;
      db.pragma(`user_version = ${pid}`);
      db.exec('COMMIT');
      return new StateDirLock(db, path, previousPid);
    } catch (err) {
      try { db?.close(); } catch { /* closing a half-opened lock database cannot make this worse */ }
      const code = (err as { code?: string }).code ?? '';
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
        const holder = holderPid(path);
        throw new StoreError('STATE_DIR_LOCKED',
          `the state dir ${stateDir} is in use by another tmkit serve (${holder !== undefined ? `pid ${holder}` : 'pid unknown'}); stop it or pass another --state-dir`,
          { stateDir, ...(holder !== undefined ? { pid: holder } : {}) });
      }
      throw new StoreError('STORE_CORRUPT',
        `cannot lock the state dir ${stateDir} (${path}: ${(err as Error).message}); check that the directory is writable, or delete ${path} when no tmkit serve uses it`,
        { stateDir });
    }
  }

  /** Releases the lock (closing the connection drops the OS lock). Idempotent. */
  release(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * The holder's pid. A holder that is just starting keeps the lock for a few milliseconds before its pid is
 * committed, and the header still names the previous (gone) holder then: so a pid that is not alive is
 * read again for up to half a second.
 */
function holderPid(path: string): number | undefined {
  let pid = readHolderPid(path);
  for (let i = 0; i < 10 && pid !== undefined && !alive(pid); i++) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    pid = readHolderPid(path);
  }
  return pid;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in the lock file's header (`user_version`), read without SQLite (which would be refused). */
function readHolderPid(path: string): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const b = Buffer.alloc(4);
    if (readSync(fd, b, 0, 4, 60) !== 4) return undefined;
    const pid = b.readUInt32BE(0);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
