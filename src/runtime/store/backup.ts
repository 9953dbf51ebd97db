import { chmodSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { nodeSqliteAvailable, openDatabase, sqliteDriver, SqliteError, type SqlDatabase } from './driver';
import { liveHolder, StateDirLock } from './lock';
import { DB_FILE, SCHEMA_VERSION, walHeader } from './sqlite';
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
  /** The state dir's DNSSEC keys (`serve --dnssec`) went into the backup too (which is then mode 0600). */
  dnssecKeys: boolean;
  /** The state dir's DNS cookie secret went into the backup too (which is then mode 0600). */
  cookieSecret: boolean;
}

/** The state dir's DNSSEC key file (runtime/dns/dnssec/key-store.ts) and the backup table that carries it. */
const DNSSEC_KEY_FILE = 'dnssec-keys.json';
const DNSSEC_TABLE = 'tmkit_backup_dnssec_keys';
/**
 * The state dir's DNS cookie secret (runtime/dns/cookies.ts COOKIE_SECRET_FILE; a cluster node's private copy of
 * the etcd key) and its backup table: a restored node accepts the cookies its clients hold.
 */
const COOKIE_SECRET_FILE = 'dns-cookie-secret.json';
const COOKIE_TABLE = 'tmkit_backup_cookie_secret';

/** The state dir's private files a backup carries, each in a table of its own (one row, the file's text). */
const CARRIED = [
  { file: DNSSEC_KEY_FILE, table: DNSSEC_TABLE },
  { file: COOKIE_SECRET_FILE, table: COOKIE_TABLE },
] as const;

/**
 * Copies the store of `stateDir` to `file` with `VACUUM INTO`, while `tmkit serve` may be running and
 * writing. The source is opened read-only, and the copy is one statement, that is one read transaction:
 * the copy is the store exactly as of one committed revision, never a mix of two. The copy goes to a
 * temporary file next to `file`, passes `PRAGMA quick_check`, and is then renamed into place. A locked
 * source (the wasm driver's writer, SQLITE_BUSY) is retried for 10 s, then refused with `STORE_BUSY`.
 */
export async function backupStore(
  stateDir: string,
  file: string,
  options: { overwrite?: boolean; busyTimeoutMs?: number } = {},
): Promise<BackupResult> {
  const busyMs = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS;
  const source = join(stateDir, DB_FILE);
  if (!existsSync(source)) {
    throw new StoreError('NOT_FOUND', `there is no store at ${source}; pass --state-dir DIR (the directory tmkit serve uses)`, {
      path: source,
    });
  }
  if (existsSync(file) && !options.overwrite) {
    throw new StoreError('PRECONDITION_FAILED', `${file} already exists; pass --force to overwrite it, or choose another file`, {
      path: file,
    });
  }
  if (!existsSync(dirname(file))) {
    throw new StoreError('NOT_FOUND', `the directory of ${file} does not exist; create it first`, { path: file });
  }
  const tmp = join(dirname(file), `.${basename(file)}.tmp-${process.pid}`);
  // Reads must take the same kind of lock as the server writing the file: with no serve running we hold the
  // state dir ourselves (so a stale wasm lock directory can go, and a WAL file can be read by the wasm
  // driver); with one running we read through its driver.
  let lock: StateDirLock | undefined;
  let holder = liveHolder(stateDir);
  if (!holder) {
    try {
      lock = StateDirLock.acquire(stateDir);
    } catch (err) {
      // A serve that started just now; or a state dir this user may read but not write (the lock needs
      // write access): then read without the lock, as before.
      if (err instanceof StoreError && err.code === 'STATE_DIR_LOCKED') holder = liveHolder(stateDir);
    }
  }
  const driver = holder && holder.driver !== 'unknown' ? holder.driver : sqliteDriver();
  if (driver === 'node' && !nodeSqliteAvailable()) {
    throw new StoreError(
      'STORE_DRIVER',
      `tmkit serve (pid ${holder!.pid}) runs its store on node:sqlite, which Node.js ` +
        `${process.version} lacks: run tmkit backup with the same Node.js as the server (22.13+)`,
      { path: source },
    );
  }
  let src: SqlDatabase | undefined;
  try {
    const wal = driver === 'wasm' && walHeader(source);
    if (wal && !lock) {
      throw new StoreError(
        'STORE_DRIVER',
        `${source} is in WAL mode (node:sqlite), which the wasm SQLite driver of Node.js ` +
          `${process.version} cannot read while another tmkit uses it: ` +
          `run tmkit backup with Node.js 22.13+`,
        { path: source },
      );
    }
    // Holding the dir (no serve; acquiring it removed a stale wasm lock directory), open read-write when we
    // can: a hot journal left by a killed wasm server is then rolled back, as serve would; a read-only
    // connection cannot, and would fail.
    if (lock || wal) {
      try {
        src = openDatabase(source, { driver, fileMustExist: true, busyTimeoutMs: busyMs });
      } catch {
        src = undefined;
      }
      if (src && !wal) {
        try {
          src.pragmaValue('user_version');
        } catch {
          src.close();
          src = undefined;
        }
      }
    }
    src ??= openDatabase(source, { driver, readonly: true, busyTimeoutMs: busyMs });
    if (wal) src.exec('PRAGMA locking_mode = EXCLUSIVE');
    const version = Number(src.pragmaValue('user_version'));
    if (version === 0 || version > SCHEMA_VERSION) {
      throw new StoreError(
        'STORE_VERSION',
        `${source} is not a tmkit store this version understands (schema version ${version}, expected 1–${SCHEMA_VERSION})`,
        { path: source },
      );
    }
    rmSync(tmp, { force: true });
    // One statement, one read transaction: the copy is the store as of one committed revision.
    src.exec(`VACUUM INTO ${sqlString(tmp)}`);
  } catch (err) {
    rmSync(tmp, { force: true });
    if (err instanceof StoreError) throw err;
    if (err instanceof SqliteError && err.code === 'SQLITE_BUSY') {
      throw new StoreError(
        'STORE_BUSY',
        `cannot back up ${source}: it stayed locked for ${busyMs / 1000} s ` +
          `(SQLITE_BUSY${holder ? `; tmkit serve pid ${holder.pid} is writing` : ''}); retry the backup` +
          `${driver === 'wasm' ? `, and if it keeps failing with no tmkit running, remove the directory ${source}.lock (left by a killed process)` : ''}`,
        { path: source },
      );
    }
    throw new StoreError('STORE_CORRUPT', `cannot back up ${source}: ${(err as Error).message}`, { path: source });
  } finally {
    src?.close();
    lock?.release();
  }
  let copy: SqlDatabase | undefined;
  try {
    copy = openDatabase(tmp, { driver, fileMustExist: true });
    if (driver === 'wasm' && walHeader(tmp)) copy.exec('PRAGMA locking_mode = EXCLUSIVE');
    const check = copy.pragma('quick_check(5)').map((r) => String(Object.values(r)[0]));
    if (check.length !== 1 || check[0] !== 'ok') {
      throw new StoreError(
        'STORE_CORRUPT',
        `the backup of ${source} failed its integrity check (${check.join('; ')}); the source is probably damaged: run PRAGMA integrity_check on it`,
        { path: source },
      );
    }
    const revision = Number(copy.prepare<{ value: string }>(`SELECT value FROM meta WHERE key = 'revision'`).get()!.value);
    const profiles = Number(copy.prepare<{ n: number }>('SELECT count(*) AS n FROM profiles').get()!.n);
    // The DNSSEC keys and the DNS cookie secret ride along, each in a table of its own: a restored node signs
    // with the same keys, so the parent's DS stays right, and accepts the cookies its clients hold. They are
    // private: so is the backup then.
    const carried = new Set<string>();
    for (const { file: name, table } of CARRIED) {
      const path = join(stateDir, name);
      if (!existsSync(path)) continue;
      copy.exec(`CREATE TABLE ${table} (doc TEXT NOT NULL)`);
      copy.prepare(`INSERT INTO ${table} (doc) VALUES (?)`).run(readFileSync(path, 'utf8'));
      carried.add(name);
    }
    const dnssecKeys = carried.has(DNSSEC_KEY_FILE);
    const cookieSecret = carried.has(COOKIE_SECRET_FILE);
    // A self-contained file: no -wal beside it to forget when it is copied somewhere.
    copy.pragma('journal_mode = DELETE');
    copy.close();
    copy = undefined;
    if (carried.size > 0) chmodSync(tmp, 0o600);
    renameSync(tmp, file);
    return { source, file, bytes: statSync(file).size, profiles, revision, dnssecKeys, cookieSecret };
  } catch (err) {
    copy?.close();
    rmSync(tmp, { force: true });
    for (const suffix of ['-wal', '-shm', '-journal', '.lock']) rmSync(`${tmp}${suffix}`, { recursive: true, force: true });
    throw err;
  }
}

/** How long backup waits for a writer's lock (the wasm driver's lock excludes readers too) before giving up. */
const BUSY_TIMEOUT_MS = 10_000;

function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

export interface RestoreResult {
  file: string;
  target: string;
  profiles: number;
  revision: number;
  /** Where the database that was replaced went (with its -wal/-shm), if there was one. */
  previous?: string;
  /** The backup carried DNSSEC keys, now in `<stateDir>/dnssec-keys.json` (mode 0600). */
  dnssecKeys: boolean;
  /** The backup carried the DNS cookie secret, now in `<stateDir>/dns-cookie-secret.json` (mode 0600). */
  cookieSecret: boolean;
}

/**
 * Puts a backup in place as `<stateDir>/tmkit.db`. Refused while a `tmkit serve` uses the state dir (it
 * takes the state dir's lock for the duration). The backup must pass `PRAGMA quick_check`. The replaced
 * database moves aside with its -wal, -shm and -journal files (`tmkit.db.before-restore`, …): a -wal or hot
 * -journal left next to the restored file would be replayed onto it and damage it, which is why restoring
 * by hand must delete them.
 */
export function restoreStore(stateDir: string, file: string): RestoreResult {
  if (!existsSync(file)) throw new StoreError('NOT_FOUND', `${file} does not exist; pass the file \`tmkit backup\` wrote`, { path: file });
  const lock = StateDirLock.acquire(stateDir);
  const target = join(stateDir, DB_FILE);
  const tmp = join(stateDir, `.${DB_FILE}.restore-${process.pid}`);
  try {
    let profiles = 0;
    let revision = 0;
    const docs = new Map<string, string>();
    let db: SqlDatabase | undefined;
    try {
      if (lock.driver === 'wasm' && walHeader(file)) {
        throw new StoreError(
          'STORE_DRIVER',
          `${file} is in WAL mode (not a file tmkit backup wrote), which the wasm SQLite driver of ` +
            `Node.js ${process.version} cannot read: restore it with Node.js 22.13+, or make it a ` +
            `rollback-journal file first (sqlite3 ${file} 'PRAGMA journal_mode=DELETE')`,
          { path: file },
        );
      }
      db = openDatabase(file, { driver: lock.driver, readonly: true, busyTimeoutMs: BUSY_TIMEOUT_MS });
      const check = db.pragma('quick_check(5)').map((r) => String(Object.values(r)[0]));
      if (check.length !== 1 || check[0] !== 'ok')
        throw new StoreError('STORE_CORRUPT', `${file} failed its integrity check (${check.join('; ')}); use another backup`, {
          path: file,
        });
      const version = Number(db.pragmaValue('user_version'));
      if (version === 0 || version > SCHEMA_VERSION)
        throw new StoreError(
          'STORE_VERSION',
          `${file} is not a tmkit store this version understands (schema version ${version}, expected 1–${SCHEMA_VERSION})`,
          { path: file },
        );
      revision = Number(db.prepare<{ value: string }>(`SELECT value FROM meta WHERE key = 'revision'`).get()!.value);
      profiles = Number(db.prepare<{ n: number }>('SELECT count(*) AS n FROM profiles').get()!.n);
      rmSync(tmp, { force: true });
      for (const { file: name, table } of CARRIED) {
        const has =
          db.prepare<{ n: number }>(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = '${table}'`).get()!.n > 0;
        const doc = has ? db.prepare<{ doc: string }>(`SELECT doc FROM ${table}`).get()?.doc : undefined;
        if (doc !== undefined) docs.set(name, doc);
      }
      // A consistent copy of the backup (it may itself be in WAL mode with its own -wal).
      db.exec(`VACUUM INTO ${sqlString(tmp)}`);
    } catch (err) {
      rmSync(tmp, { force: true });
      if (err instanceof StoreError) throw err;
      if (err instanceof SqliteError && err.code === 'SQLITE_BUSY') {
        throw new StoreError(
          'STORE_BUSY',
          `${file} stayed locked for ${BUSY_TIMEOUT_MS / 1000} s (SQLITE_BUSY: another process is using ` +
            `it); retry when it is done` +
            `${lock.driver === 'wasm' ? `, or remove the directory ${file}.lock if a killed process left it` : ''}`,
          { path: file },
        );
      }
      throw new StoreError('STORE_CORRUPT', `${file} cannot be restored: ${(err as Error).message}`, { path: file });
    } finally {
      db?.close();
    }
    let previous: string | undefined;
    if (existsSync(target)) {
      previous = `${target}.before-restore`;
      for (const suffix of ['', '-wal', '-shm', '-journal']) {
        rmSync(`${previous}${suffix}`, { force: true });
        if (existsSync(`${target}${suffix}`)) renameSync(`${target}${suffix}`, `${previous}${suffix}`);
      }
    } else {
      for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${target}${suffix}`, { force: true });
    }
    if (docs.size > 0) {
      // The carrier tables stay out of the store; each file goes back (the one it replaces aside).
      const restored = openDatabase(tmp, { driver: lock.driver, fileMustExist: true });
      try {
        for (const { file: name, table } of CARRIED) if (docs.has(name)) restored.exec(`DROP TABLE ${table}`);
      } finally {
        restored.close();
      }
    }
    renameSync(tmp, target);
    for (const [name, doc] of docs) {
      const path = join(stateDir, name);
      if (existsSync(path) && readFileSync(path, 'utf8') !== doc) renameSync(path, `${path}.before-restore`);
      writeFileSync(path, doc, { mode: 0o600 });
      chmodSync(path, 0o600);
    }
    return {
      file,
      target,
      profiles,
      revision,
      dnssecKeys: docs.has(DNSSEC_KEY_FILE),
      cookieSecret: docs.has(COOKIE_SECRET_FILE),
      ...(previous !== undefined ? { previous } : {}),
    };
  } finally {
    rmSync(tmp, { force: true });
    lock.release();
  }
}
