/**
 * The SQLite driver seam (issue 16): the store, its lock and backup/restore on node:sqlite and on
 * node-sqlite3-wasm. Every test runs on each driver this Node has (both on Node 22.13+/24, wasm on Node 20),
 * against real files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  backupStore,
  DB_FILE,
  nodeSqliteAvailable,
  openDatabase,
  PID_FILE,
  restoreStore,
  SqliteError,
  SqliteStore,
  sqliteDriver,
  StateDirLock,
  type StoreError,
  storeWriteFailure,
  type SqliteDriverName,
} from '../../../src/runtime/store';
import { processStart } from '../../../src/runtime/store/lock';
import { profile } from '../api/fixtures';
import { tempDirs } from '../../support/tmp';

const drivers: SqliteDriverName[] = nodeSqliteAvailable() ? ['node', 'wasm'] : ['wasm'];
const tempDir = tempDirs('tmkit-driver-', { cleanup: 'manual' });
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  tempDir.removeAll();
});

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

test('driver choice: TMKIT_SQLITE_DRIVER, else node:sqlite where Node has it, else wasm; bad values are refused with what to do', () => {
  expect(sqliteDriver({})).toBe(nodeSqliteAvailable() ? 'node' : 'wasm');
  expect(sqliteDriver({ TMKIT_SQLITE_DRIVER: 'wasm' })).toBe('wasm');
  const bad = caught(() => sqliteDriver({ TMKIT_SQLITE_DRIVER: 'better-sqlite3' })) as Error & { code: string };
  expect(bad.code).toBe('SQLITE_DRIVER_UNAVAILABLE');
  expect(bad.message).toContain('use node (node:sqlite, Node 22.13+) or wasm');
  if (!nodeSqliteAvailable()) {
    const none = caught(() => sqliteDriver({ TMKIT_SQLITE_DRIVER: 'node' })) as Error & { code: string };
    expect(none.message).toContain(`Node.js ${process.version} has no node:sqlite`);
  } else {
    expect(sqliteDriver({ TMKIT_SQLITE_DRIVER: 'node' })).toBe('node');
  }
});

describe.each(drivers)('driver %s', (driver) => {
  test('errors carry SQLite codes: full, read-only, not a database, constraint', () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'a.db'), { driver });
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB)');
    db.exec(`PRAGMA max_page_count = ${Number(db.pragmaValue('page_count')) + 1}`);
    const full = caught(() => db.prepare('INSERT INTO t VALUES (?, randomblob(100000))').run('x'));
    expect(full).toBeInstanceOf(SqliteError);
    expect((full as SqliteError).code).toBe('SQLITE_FULL');
    expect(storeWriteFailure(full)).toBe('full');
    db.prepare('INSERT INTO t VALUES (?, NULL)').run('y');
    expect((caught(() => db.prepare('INSERT INTO t VALUES (?, NULL)').run('y')) as SqliteError).code).toBe('SQLITE_CONSTRAINT');
    db.close();
    const ro = openDatabase(join(dir, 'a.db'), { driver, readonly: true });
    const roErr = caught(() => ro.exec(`INSERT INTO t VALUES ('z', NULL)`));
    expect((roErr as SqliteError).code).toMatch(/^SQLITE_READONLY/);
    expect(storeWriteFailure(roErr)).toBe('readonly');
    ro.close();
    writeFileSync(join(dir, 'junk.db'), 'not a database at all '.repeat(300));
    const junk = openDatabase(join(dir, 'junk.db'), { driver, readonly: true });
    expect((caught(() => junk.pragma('quick_check')) as SqliteError).code).toBe('SQLITE_NOTADB');
    junk.close();
  });

  test('a transaction that throws rolls back; one that commits is there after reopening', () => {
    const file = join(tempDir(), 'b.db');
    const db = openDatabase(file, { driver });
    db.exec('CREATE TABLE t (v INTEGER)');
    expect(
      caught(() =>
        db.transaction(() => {
          db.prepare('INSERT INTO t VALUES (?)').run(1);
          throw new Error('no');
        }, 'immediate'),
      ),
    ).toBeInstanceOf(Error);
    expect(db.inTransaction).toBe(false);
    db.transaction(() => {
      db.prepare('INSERT INTO t VALUES (?)').run(2);
    }, 'immediate');
    db.close();
    const again = openDatabase(file, { driver });
    expect(
      again
        .prepare<{ v: number }>('SELECT v FROM t')
        .all()
        .map((r) => r.v),
    ).toEqual([2]);
    again.close();
  });

  // lockHeld: the store keeps the revision in memory (it is the file's only writer), and must forget a rolled-back bump.
  test.each([false, true])(
    'the store (lockHeld %s): journal mode for the driver, synchronous=FULL, SQLITE_FULL through putProfile is classified "full"',
    async (lockHeld) => {
      const dir = tempDir();
      const seed = SqliteStore.open({ stateDir: dir, driver });
      expect(seed.driver).toBe(driver);
      await seed.close();
      const probe = openDatabase(join(dir, DB_FILE), { driver });
      expect(probe.pragmaValue('journal_mode')).toBe(driver === 'node' ? 'wal' : 'delete');
      const pages = Number(probe.pragmaValue('page_count'));
      probe.close();
      const s = SqliteStore.open({ stateDir: dir, driver, maxPageCount: pages + 1, lockHeld });
      const big = profile('big', { tags: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, 'x'.repeat(200)])) });
      let err: unknown;
      try {
        await s.putProfile(big, { stack: 'default' });
      } catch (e) {
        err = e;
      }
      expect(storeWriteFailure(err)).toBe('full');
      expect(await s.revision()).toBe(0); // rolled back
      await s.putProfile(profile('small'), { stack: 'default' }); // the store still works
      expect(await s.revision()).toBe(1);
      expect((await s.getProfile('small'))!.modRevision).toBe(1);
      await s.close();
      const again = SqliteStore.open({ stateDir: dir, driver });
      expect(await again.revision()).toBe(1); // what the file holds is what it said
      await again.close();
    },
  );

  test('a damaged file is refused with STORE_CORRUPT and the restore steps', () => {
    const dir = tempDir();
    writeFileSync(join(dir, DB_FILE), 'garbage '.repeat(1000));
    const err = caught(() => SqliteStore.open({ stateDir: dir, driver, forceEmpty: true })) as StoreError;
    expect(err.code).toBe('STORE_CORRUPT');
    expect(err.message).toContain('restore it from a backup');
  });

  test('one lock per state dir: a second acquire is refused naming the holder; release lets the next one in', () => {
    const dir = tempDir();
    const a = StateDirLock.acquire(dir, process.pid, driver);
    expect(a.driver).toBe(driver);
    expect(readFileSync(join(dir, PID_FILE), 'utf8')).toBe(`${process.pid} ${processStart(process.pid)} ${driver}\n`);
    const err = caught(() => StateDirLock.acquire(dir, process.pid, driver)) as StoreError;
    expect(err.code).toBe('STATE_DIR_LOCKED');
    expect(err.message).toContain(`is in use by another tmkit serve (pid ${process.pid})`);
    a.release();
    expect(existsSync(join(dir, PID_FILE))).toBe(false);
    const b = StateDirLock.acquire(dir, process.pid, driver);
    expect(b.previousPid).toBe(process.pid);
    b.release();
  });

  test('a pid file whose process is gone, or whose pid was reused by a later process, is stale and replaced', () => {
    const dir = tempDir();
    // A pid that is not running (the child has exited and been reaped).
    writeFileSync(join(dir, PID_FILE), '2147483000 12345 wasm\n');
    const a = StateDirLock.acquire(dir, process.pid, driver);
    a.release();
    // Our own (live) pid, but another start time: the process that wrote it is gone and the pid reused.
    writeFileSync(join(dir, PID_FILE), `${process.pid} 1 wasm\n`);
    const b = StateDirLock.acquire(dir, process.pid, driver);
    b.release();
    // A live process with its real start time holds the dir.
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    children.push(child);
    writeFileSync(join(dir, PID_FILE), `${child.pid} ${processStart(child.pid!)} wasm\n`);
    const err = caught(() => StateDirLock.acquire(dir, process.pid, driver)) as StoreError;
    expect(err.code).toBe('STATE_DIR_LOCKED');
    expect(err.message).toContain(`(pid ${child.pid})`);
    child.kill('SIGKILL');
  });

  test('backup and restore on the driver (VACUUM INTO), and a stale wasm lock directory does not block them', async () => {
    const dir = tempDir();
    const s = SqliteStore.open({ stateDir: dir, driver });
    for (let i = 0; i < 5; i++) await s.putProfile(profile(`p${i}`), { stack: 'default' });
    await s.close();
    // What a process SIGKILLed inside a wasm transaction leaves.
    mkdirSync(join(dir, `${DB_FILE}.lock`));
    const prev = process.env.TMKIT_SQLITE_DRIVER;
    process.env.TMKIT_SQLITE_DRIVER = driver;
    try {
      const file = join(tempDir(), 'b.db');
      const r = await backupStore(dir, file);
      expect(r).toMatchObject({ profiles: 5, revision: 5 });
      expect(existsSync(join(dir, `${DB_FILE}.lock`))).toBe(false); // no serve held the dir: removed
      const target = tempDir();
      const restored = restoreStore(target, file);
      expect(restored).toMatchObject({ profiles: 5, revision: 5 });
      const back = SqliteStore.open({ stateDir: target, driver, forceEmpty: true });
      expect((await back.getProfiles()).map((p) => p.profile.name)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
      await back.close();
    } finally {
      if (prev === undefined) delete process.env.TMKIT_SQLITE_DRIVER;
      else process.env.TMKIT_SQLITE_DRIVER = prev;
    }
  });
});

describe('wasm only', () => {
  test('a stale tmkit.db.lock directory: the store removes it when the caller holds the state dir', async () => {
    const dir = tempDir();
    (await Promise.resolve(SqliteStore.open({ stateDir: dir, driver: 'wasm' }))).close();
    mkdirSync(join(dir, `${DB_FILE}.lock`));
    const lock = StateDirLock.acquire(dir, process.pid, 'wasm');
    try {
      const s = SqliteStore.open({ stateDir: dir, driver: 'wasm', lockHeld: true });
      await s.putProfile(profile('after-crash'), { stack: 'default' });
      await s.close();
      expect(existsSync(join(dir, `${DB_FILE}.lock`))).toBe(false);
    } finally {
      lock.release();
    }
  });

  test("a backup that meets a writer's lock for longer than it waits fails with STORE_BUSY and says to retry", async () => {
    const dir = tempDir();
    (await Promise.resolve(SqliteStore.open({ stateDir: dir, driver: 'wasm' }))).close();
    const lock = StateDirLock.acquire(dir, process.pid, 'wasm'); // "serve" is running …
    mkdirSync(join(dir, `${DB_FILE}.lock`)); // … and inside a write transaction
    const prev = process.env.TMKIT_SQLITE_DRIVER;
    process.env.TMKIT_SQLITE_DRIVER = 'wasm';
    try {
      const t0 = Date.now();
      let err: unknown;
      try {
        await backupStore(dir, join(tempDir(), 'b.db'), { busyTimeoutMs: 300 });
      } catch (e) {
        err = e;
      }
      expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
      expect((err as StoreError).code).toBe('STORE_BUSY');
      expect((err as StoreError).message).toContain(
        `stayed locked for 0.3 s (SQLITE_BUSY; tmkit serve pid ${process.pid} is writing); retry the backup`,
      );
      expect(existsSync(join(dir, `${DB_FILE}.lock`))).toBe(true); // a live server's lock is never removed
    } finally {
      lock.release();
      if (prev === undefined) delete process.env.TMKIT_SQLITE_DRIVER;
      else process.env.TMKIT_SQLITE_DRIVER = prev;
    }
  });
});

(nodeSqliteAvailable() ? describe : describe.skip)('across drivers (Node 22.13+/24)', () => {
  test('a node:sqlite holder and a wasm holder exclude each other (Node 20 and Node 24 serve on one dir)', () => {
    const dir = tempDir();
    const n = StateDirLock.acquire(dir, process.pid, 'node');
    expect((caught(() => StateDirLock.acquire(dir, process.pid, 'wasm')) as StoreError).code).toBe('STATE_DIR_LOCKED');
    n.release();
    const w = StateDirLock.acquire(dir, process.pid, 'wasm');
    expect((caught(() => StateDirLock.acquire(dir, process.pid, 'node')) as StoreError).code).toBe('STATE_DIR_LOCKED');
    w.release();
  });

  test('a node:sqlite serve SIGKILLed with writes only in its -wal: a Node 20 (wasm) serve recovers them and converts the file', async () => {
    const dir = tempDir();
    const seed = SqliteStore.open({ stateDir: dir, driver: 'node' });
    await seed.putProfile(profile('seed'), { stack: 'default' });
    await seed.close();
    // A child process (the built store, as tmkit serve runs it) writes two profiles and is SIGKILLed with
    // them in tmkit.db-wal only (no checkpoint): what a Node 24 server killed mid-life leaves.
    const dist = join(__dirname, '../../../dist/src/runtime/store/index.js');
    const script = `
      const { SqliteStore, StateDirLock } = require(${JSON.stringify(dist)});
      const lock = StateDirLock.acquire(${JSON.stringify(dir)}, process.pid, 'node');
      const s = SqliteStore.open({ stateDir: ${JSON.stringify(dir)}, driver: 'node', lockHeld: true });
      const p = (n) => ({ ...${JSON.stringify(profile('x'))}, name: n, dnsConfig: { relativeName: n, ttl: 30 } });
      s.putProfile(p('w1'), { stack: 'default' }).then(() => s.putProfile(p('w2'), { stack: 'default' })).then(() => process.kill(process.pid, 'SIGKILL'));`;
    const child = spawn(process.execPath, ['-e', script], { stdio: 'inherit', env: { ...process.env, TMKIT_SQLITE_DRIVER: 'node' } });
    const signal = await new Promise<NodeJS.Signals | null>((res) => child.on('exit', (_c, sig) => res(sig)));
    expect(signal).toBe('SIGKILL');
    expect(existsSync(join(dir, `${DB_FILE}-wal`))).toBe(true);
    const lock = StateDirLock.acquire(dir, process.pid, 'wasm'); // the killed holder's tmkit.pid is stale
    const w = SqliteStore.open({ stateDir: dir, driver: 'wasm', lockHeld: true });
    expect((await w.getProfiles()).map((p) => p.profile.name)).toEqual(['seed', 'w1', 'w2']);
    expect(await w.revision()).toBe(3);
    await w.close();
    lock.release();
    expect(existsSync(join(dir, `${DB_FILE}-wal`))).toBe(false); // checkpointed into the file, then DELETE mode
    const check = openDatabase(join(dir, DB_FILE), { driver: 'wasm', readonly: true });
    expect(check.pragmaValue('integrity_check')).toBe('ok');
    check.close();
  }, 30_000);

  test('a WAL store written with node:sqlite: wasm refuses it without the state dir, converts it with it, and node reads it back', async () => {
    const dir = tempDir();
    const a = SqliteStore.open({ stateDir: dir, driver: 'node' });
    await a.putProfile(profile('from-node'), { stack: 'default' });
    await a.close();
    expect((caught(() => SqliteStore.open({ stateDir: dir, driver: 'wasm' })) as StoreError).code).toBe('STORE_DRIVER');
    const lock = StateDirLock.acquire(dir, process.pid, 'wasm');
    const b = SqliteStore.open({ stateDir: dir, driver: 'wasm', lockHeld: true });
    expect((await b.getProfiles()).map((p) => p.profile.name)).toEqual(['from-node']);
    await b.putProfile(profile('from-wasm'), { stack: 'default' });
    await b.close();
    lock.release();
    const check = openDatabase(join(dir, DB_FILE), { driver: 'wasm', readonly: true });
    expect(check.pragmaValue('journal_mode')).toBe('delete');
    check.close();
    const c = SqliteStore.open({ stateDir: dir, driver: 'node' });
    expect((await c.getProfiles()).map((p) => p.profile.name)).toEqual(['from-node', 'from-wasm']);
    await c.close();
  });
});
