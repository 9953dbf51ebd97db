import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { StateDirLock } from './lock';
import { DB_FILE, SCHEMA_VERSION } from './sqlite';
import { StoreError } from '../../core/store';

export interface BackupResult {
  /** The database that was copied. */
  source: string;
  /** The backup file written. */
  file: string;
  bytes: number;
  profiles: number;
  /** Store revision captured by the backup. */
  revision: number;
}

/**
 * Copies the store of `stateDir` to `file` with SQLite's online backup API, while `tmkit serve` may be
 * running and writing. The source is opened read-only (it never takes the state dir's lock, which the
 * server holds), and the whole database is copied in one backup step, that is inside one read
 * transaction: the copy is the store exactly as of one committed revision, never a mix of two. The copy
 * goes to a temporary file next to `file`, passes `PRAGMA quick_check`, and is then renamed into place.
 */
export async function backupStore(stateDir: string, file: string, options: { overwrite?: boolean } = {}): Promise<BackupResult> {
  const source = join(stateDir, DB_FILE);
  if (!existsSync(source)) {
    throw new StoreError('NOT_FOUND', `there is no store at ${source}; pass --state-dir DIR (the directory tmkit serve uses)`, { path: source });
  }
  if (existsSync(file) && !options.overwrite) {
    throw new StoreError('PRECONDITION_FAILED', `${file} already exists; pass --force to overwrite it, or choose another file`, { path: file });
  }
  if (!existsSync(dirname(file))) {
    throw new StoreError('NOT_FOUND', `the directory of ${file} does not exist; create it first`, { path: file });
  }
  const tmp = join(dirname(file), `.${basename(file)}.tmp-${process.pid}`);
  let src: Database.Database | undefined;
  try {
    src = new Database(source, { readonly: true, fileMustExist: true });
    src.pragma('busy_timeout = 5000');
    const version = src.pragma('user_version', { simple: true }) as number;
    if (version === 0 || version > SCHEMA_VERSION) {
      throw new StoreError('STORE_VERSION', `${source} is not a tmkit store this version understands (schema version ${version}, expected 1–${SCHEMA_VERSION})`, { path: source });
    }
    rmSync(tmp, { force: true });
    // The first transfer step reports the page count; the second copies every page at once.
    await src.backup(tmp, { progress: () => 0x7fffffff });
  } catch (err) {
    rmSync(tmp, { force: true });
    if (err instanceof StoreError) throw err;
    throw new StoreError('STORE_CORRUPT', `cannot back up ${source}: ${(err as Error).message}`, { path: source });
  } finally {
    src?.close();
  }
  let copy: Database.Database | undefined;
  try {
    copy = new Database(tmp, { fileMustExist: true });
    const check = (copy.pragma('quick_check(5)') as Array<{ quick_check: string }>).map((r) => r.quick_check);
    if (check.length !== 1 || check[0] !== 'ok') {
      throw new StoreError('STORE_CORRUPT', `the backup of ${source} failed its integrity check (${check.join('; ')}); the source is probably damaged: run PRAGMA integrity_check on it`, { path: source });
    }
    const revision = Number((copy.prepare(`SELECT value FROM meta WHERE key = 'revision'`).get() as { value: string }).value);
    const profiles = (copy.prepare('SELECT count(*) AS n FROM profiles').get() as { n: number }).n;
    // A self-contained file: no -wal beside it to forget when it is copied somewhere.
    copy.pragma('journal_mode = DELETE');
    copy.close();
    copy = undefined;
    renameSync(tmp, file);
    return { source, file, bytes: statSync(file).size, profiles, revision };
  } catch (err) {
    copy?.close();
    rmSync(tmp, { force: true });
    for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${tmp}${suffix}`, { force: true });
    throw err;
  }
}

export interface RestoreResult {
  file: string;
  target: string;
  profiles: number;
  revision: number;
  /** Where the database that was replaced went (with its -wal/-shm), if there was one. */
  previous?: string;
}

/**
 * Puts a backup in place as `<stateDir>/tmkit.db`. Refused while a `tmkit serve` uses the state dir (it
 * takes the state dir's lock for the duration). The backup must pass `PRAGMA quick_check`. The replaced
 * database moves aside with its -wal and -shm files (`tmkit.db.before-restore`, …): a -wal left next to the
 * restored file would be replayed onto it and damage it, which is why restoring by hand must delete them.
 */
export function restoreStore(stateDir: string, file: string): RestoreResult {
  if (!existsSync(file)) throw new StoreError('NOT_FOUND', `${file} does not exist; pass the file \`tmkit backup\` wrote`, { path: file });
  const lock = StateDirLock.acquire(stateDir);
  const target = join(stateDir, DB_FILE);
  const tmp = join(stateDir, `.${DB_FILE}.restore-${process.pid}`);
  try {
    let profiles = 0;
    let revision = 0;
    let db: Database.Database | undefined;
    try {
      db = new Database(file, { readonly: true, fileMustExist: true });
      const check = (db.pragma('quick_check(5)') as Array<{ quick_check: string }>).map((r) => r.quick_check);
      if (check.length !== 1 || check[0] !== 'ok') throw new StoreError('STORE_CORRUPT', `${file} failed its integrity check (${check.join('; ')}); use another backup`, { path: file });
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version === 0 || version > SCHEMA_VERSION) throw new StoreError('STORE_VERSION', `${file} is not a tmkit store this version understands (schema version ${version}, expected 1–${SCHEMA_VERSION})`, { path: file });
      revision = Number((db.prepare(`SELECT value FROM meta WHERE key = 'revision'`).get() as { value: string }).value);
      profiles = (db.prepare('SELECT count(*) AS n FROM profiles').get() as { n: number }).n;
      rmSync(tmp, { force: true });
      // A consistent copy of the backup (it may itself be in WAL mode with its own -wal).
      db.exec(`VACUUM INTO '${tmp.replace(/'/g, "''")}'`);
    } catch (err) {
      rmSync(tmp, { force: true });
      if (err instanceof StoreError) throw err;
      throw new StoreError('STORE_CORRUPT', `${file} cannot be restored: ${(err as Error).message}`, { path: file });
    } finally {
      db?.close();
    }
    let previous: string | undefined;
    if (existsSync(target)) {
      previous = `${target}.before-restore`;
      for (const suffix of ['', '-wal', '-shm']) {
        rmSync(`${previous}${suffix}`, { force: true });
        if (existsSync(`${target}${suffix}`)) renameSync(`${target}${suffix}`, `${previous}${suffix}`);
      }
    } else {
      for (const suffix of ['-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
    }
    renameSync(tmp, target);
    return { file, target, profiles, revision, ...(previous !== undefined ? { previous } : {}) };
  } finally {
    rmSync(tmp, { force: true });
    lock.release();
  }
}
