import { closeSync, linkSync, mkdirSync, openSync, readFileSync, readSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError } from '../../core/store';
import { openDatabase, removeStaleVfsLock, sleepSync, sqliteDriver, SqliteError, type SqlDatabase, type SqliteDriverName } from './driver';

export const LOCK_FILE = 'tmkit.lock';
export const PID_FILE = 'tmkit.pid';
/** The store's database (sqlite.ts DB_FILE; not imported, so that sqlite.ts may use this module). */
const STORE_FILE = 'tmkit.db';

/** Who holds (or last held) a state dir, as its pid file says. */
export interface LockHolder {
  pid: number;
  /** The process's start time (`/proc/<pid>/stat` field 22, clock ticks since boot); '' where unknown. */
  start: string;
  driver: SqliteDriverName | 'unknown';
}

/**
 * One `tmkit serve` per state directory, whichever SQLite driver (driver.ts) each process runs on.
 *
 * - node:sqlite: `tmkit.lock` is a small SQLite database that the holder keeps write-locked for its whole
 *   life (SQLite takes POSIX `fcntl` locks on it, in EXCLUSIVE locking mode), so the kernel releases it when
 *   the process ends, however it ends (SIGKILL included). Its header (`PRAGMA user_version`, bytes 60–63)
 *   holds the last holder's pid, written in the transaction that takes the lock.
 * - wasm (Node 20): node-sqlite3-wasm has no fcntl locks, so the lock is `tmkit.pid`, created exclusively
 *   (written to a temporary file, then hard-linked into place: it is never seen half written) with the
 *   holder's pid, its start time from `/proc/<pid>/stat` and its driver. A `tmkit.pid` whose process is gone
 *   (`process.kill(pid, 0)` fails) or whose pid now belongs to a process that started at another time (pid
 *   reuse) is stale and is replaced, so a SIGKILLed holder blocks nobody. `tmkit.lock`'s header still records
 *   the previous holder's pid.
 *
 * node:sqlite holders also write `tmkit.pid` (after taking the fcntl lock), so that a Node 20 and a Node 24
 * `tmkit serve` on one state dir exclude each other too. Replacing a stale `tmkit.pid` is not atomic: two
 * processes that find the same stale file within the same few microseconds could both start (the same
 * limit as PostgreSQL's postmaster.pid); the fcntl lock closes that gap between two node:sqlite holders.
 *
 * DNS worker processes (`serve --workers N`) do not open the store, so they never take this lock.
 */
export class StateDirLock {
  private released = false;

  private constructor(
    private readonly db: SqlDatabase | undefined,
    /** The lock file (`tmkit.lock`). */
    readonly path: string,
    /** The pid file (`tmkit.pid`). */
    readonly pidPath: string,
    /** The pid of the previous holder, 0 for a state dir that was never locked (used for "was this dir in use before?"). */
    readonly previousPid: number,
    private readonly mine: string,
    /** The SQLite driver of this process. */
    readonly driver: SqliteDriverName,
  ) {}

  /**
   * Takes the lock of `stateDir` (created with mode 0700 if missing) for this process, or throws
   * `StoreError('STATE_DIR_LOCKED')` naming the holder's pid.
   */
  static acquire(stateDir: string, pid: number = process.pid, driver: SqliteDriverName = sqliteDriver()): StateDirLock {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const path = join(stateDir, LOCK_FILE);
    const pidPath = join(stateDir, PID_FILE);
    const locked = (holder: number | undefined): StoreError =>
      new StoreError(
        'STATE_DIR_LOCKED',
        `the state dir ${stateDir} is in use by another tmkit serve ` +
          `(${holder !== undefined ? `pid ${holder}` : 'pid unknown'}); stop it or pass another ` +
          `--state-dir`,
        { stateDir, ...(holder !== undefined ? { pid: holder } : {}) },
      );
    const cannot = (err: unknown, file: string): StoreError =>
      new StoreError(
        'STORE_CORRUPT',
        `cannot lock the state dir ${stateDir} (${file}: ${(err as Error).message}); check that the ` +
          `directory is writable, or delete ${file} when no tmkit serve uses it`,
        { stateDir },
      );

    let db: SqlDatabase | undefined;
    let previousPid = 0;
    if (driver === 'node') {
      try {
        db = openDatabase(path, { driver, busyTimeoutMs: 0 });
        // EXCLUSIVE: once taken, SQLite never releases the file lock until the connection closes.
        db.exec('PRAGMA locking_mode = EXCLUSIVE');
        db.exec('BEGIN IMMEDIATE');
        previousPid = Number(db.pragmaValue('user_version'));
        db.exec(`PRAGMA user_version = ${pid}`);
        db.exec('COMMIT');
      } catch (err) {
        try {
          db?.close();
        } catch {
          /* closing a half-opened lock database cannot make this worse */
        }
        const code = err instanceof SqliteError ? err.code : '';
        if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') throw locked(holderPid(stateDir));
        throw cannot(err, path);
      }
    }

    const mine = `${pid} ${processStart(pid)} ${driver}\n`;
    try {
      takePidFile(pidPath, mine, pid);
    } catch (err) {
      try {
        db?.close();
      } catch {
        /* as above */
      }
      if (err instanceof HeldError) throw locked(err.pid);
      throw cannot(err, pidPath);
    }

    // We hold the dir: no other tmkit uses it, so a VFS lock directory left by a killed wasm process (on
    // the lock's record or on the store) is stale.
    removeStaleVfsLock(path);
    removeStaleVfsLock(join(stateDir, STORE_FILE));
    if (driver === 'wasm') {
      // tmkit.lock is then only the record of the previous holder.
      try {
        const rec = openDatabase(path, { driver, busyTimeoutMs: 1000 });
        try {
          previousPid = Number(rec.pragmaValue('user_version'));
          rec.exec(`PRAGMA user_version = ${pid}`);
        } finally {
          rec.close();
        }
      } catch (err) {
        releasePidFile(pidPath, mine);
        throw cannot(err, path);
      }
    }
    return new StateDirLock(db, path, pidPath, previousPid, mine, driver);
  }

  /** Releases the lock (closing the connection drops the OS lock; our pid file is removed). Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    releasePidFile(this.pidPath, this.mine);
    if (this.db?.isOpen) this.db.close();
  }
}

class HeldError extends Error {
  constructor(readonly pid: number) {
    super(`held by pid ${pid}`);
  }
}

/** Exclusive creation of the pid file, replacing a stale one (its holder gone, or its pid reused). */
function takePidFile(pidPath: string, content: string, pid: number): void {
  const tmp = `${pidPath}.${pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 10; attempt++) {
      try {
        linkSync(tmp, pidPath); // atomic, and fails if the file exists
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = readHolder(pidPath);
      if (holder === undefined) {
        // Unreadable or empty (a pid file from an older tmkit, or written by hand): a creator always links
        // a complete file, so this is no live holder's.
        rmSync(pidPath, { force: true });
        continue;
      }
      if (isAlive(holder)) throw new HeldError(holder.pid);
      rmSync(pidPath, { force: true });
    }
    throw new Error(`could not create ${pidPath} after 10 attempts (other processes keep replacing it)`);
  } finally {
    rmSync(tmp, { force: true });
  }
}

function releasePidFile(pidPath: string, mine: string): void {
  try {
    if (readFileSync(pidPath, 'utf8') === mine) unlinkSync(pidPath);
  } catch {
    /* gone already */
  }
}

/** The process's start time in clock ticks since boot (`/proc/<pid>/stat` field 22), '' where unknown. */
export function processStart(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? '';
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Alive, and the same process that wrote the file (not a later one that got its pid). */
export function isAlive(holder: LockHolder): boolean {
  if (!alive(holder.pid)) return false;
  if (holder.start === '') return true;
  const now = processStart(holder.pid);
  return now === '' || now === holder.start;
}

/** The pid file's holder, or undefined when there is none or it cannot be read. */
export function readHolder(pidPath: string): LockHolder | undefined {
  let text: string;
  try {
    text = readFileSync(pidPath, 'utf8');
  } catch {
    return undefined;
  }
  const [p, start, driver] = text.trim().split(/\s+/);
  const pid = Number(p);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { pid, start: start ?? '', driver: driver === 'node' || driver === 'wasm' ? driver : 'unknown' };
}

/** The live holder of `stateDir`'s lock by its pid file (any driver), or undefined. */
export function liveHolder(stateDir: string): LockHolder | undefined {
  const h = readHolder(join(stateDir, PID_FILE));
  return h && isAlive(h) ? h : undefined;
}

/**
 * The holder's pid, for the refusal message. The pid file names it; failing that, the lock database's header.
 * A node:sqlite holder that is just starting keeps the fcntl lock for a few milliseconds before its pid file
 * exists and while the header still names the previous (gone) holder: so a pid that is not alive is read
 * again for up to half a second.
 */
function holderPid(stateDir: string): number | undefined {
  const read = (): number | undefined => readHolder(join(stateDir, PID_FILE))?.pid ?? readHeaderPid(join(stateDir, LOCK_FILE));
  let pid = read();
  for (let i = 0; i < 10 && (pid === undefined || !alive(pid)); i++) {
    sleepSync(50);
    pid = read();
  }
  return pid;
}

/** The pid in the lock file's header (`user_version`), read without SQLite (which would be refused). */
function readHeaderPid(path: string): number | undefined {
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
