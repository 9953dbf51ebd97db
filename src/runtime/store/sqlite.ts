import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Profile, ProfileInput } from '../../core/model/types';
import type { AzureResource } from '../../core/ports';
import { admitDelete, admitEdit, admitProfile, writeName } from '../../core/store/admission';
import { checkPreconditions, checkStack, documentHash, makeEtag } from '../../core/store/conditions';
import { LiveProfileIndex } from '../../core/store/profile-index';
import { sha256Hex } from './hash';
import {
  StoreError,
  type DeleteProfileOptions,
  type EditProfileOptions,
  type EditProfileResult,
  type MonitorState,
  type MonitorStateChange,
  type ProfileEdit,
  type PutProfileOptions,
  type PutProfileResult,
  type ResourceCatalogRecord,
  type Store,
  type StoreChange,
  type StoreListener,
  type StoredProfile,
  type StoreStats,
  type StoreView,
} from '../../core/store/types';
import { isoNow, systemClock, type RuntimeClock } from '../clock';
import { SqlitePushedHealth } from './sqlite-pushed-health';
import { openDatabase, sqliteDriver, storeJournalMode, SqliteError, type SqlDatabase, type SqliteDriverName, type SqlStatement } from './driver';
import { CONTROLS_MIGRATION_SQL, SqliteControls } from './sqlite-controls';

/**
 * Schema migrations, applied in order inside one transaction each; `PRAGMA user_version` holds the number
 * applied, and `schema_migrations` records when. Append only: never edit a released migration.
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; description: string; sql: string }> = [
  {
    version: 1,
    description: 'profiles, resource catalog, monitor state, store revision',
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
      INSERT INTO meta (key, value) VALUES ('revision', '0');
      CREATE TABLE profiles (
        name TEXT PRIMARY KEY,
        stack TEXT NOT NULL,
        document TEXT NOT NULL,
        hash TEXT NOT NULL,
        mod_revision INTEGER NOT NULL,
        create_revision INTEGER NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX profiles_stack ON profiles (stack);
      CREATE TABLE resources (
        id TEXT PRIMARY KEY,
        target TEXT NOT NULL,
        location TEXT,
        state TEXT NOT NULL CHECK (state IN ('running', 'stopped'))
      ) STRICT;
      CREATE TABLE monitor_state (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL) STRICT;
    `,
  },
  { version: 2, description: 'traffic controls: overrides, failback approvals, audit log, drill reports', sql: CONTROLS_MIGRATION_SQL },
  {
    version: 3,
    description: 'health pushed from outside (runtime state, not configuration)',
    sql: `CREATE TABLE pushed_health (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL) STRICT;`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
export const DB_FILE = 'tmkit.db';

interface ProfileRow { name: string; stack: string; document: string; hash: string; mod_revision: number }

export interface SqliteStoreOptions {
  /** Directory for `tmkit.db` (created if missing); `:memory:` for a throwaway database. */
  stateDir: string;
  /**
   * Open an empty or uninitialised `tmkit.db` as a new, empty store even though the state dir was used
   * before (`serve --force-empty`). Without it that is refused (`store-empty`): it is what a truncated or
   * replaced database looks like, and starting would silently serve nothing.
   */
  forceEmpty?: boolean;
  /** More signs that the state dir was used before, besides its files (e.g. the lock's previous holder). */
  usedBefore?: string[];
  /**
   * Caps the database at this many pages (`PRAGMA max_page_count`): a write that needs more fails with
   * SQLITE_FULL, exactly as on a full disk. For tests of the disk-full path, or to bound the file.
   */
  maxPageCount?: number;
  /** Opens an existing database read-only: no migration, every write fails with SQLITE_READONLY. */
  readonly?: boolean;
  /**
   * The caller holds the state dir's lock (`StateDirLock`, whose acquire already removed a stale wasm lock
   * directory `tmkit.db.lock`), so no other tmkit process writes this database: a WAL database written by
   * the node:sqlite driver may be converted to the wasm driver's rollback journal.
   */
  lockHeld?: boolean;
  /** The SQLite driver (default: `sqliteDriver()`, i.e. `TMKIT_SQLITE_DRIVER` or what this Node has). */
  driver?: SqliteDriverName;
  /** The time written beside rows (`updated_at`, `applied_at`); default the system clock. */
  clock?: RuntimeClock;
}

/**
 * The embedded store: one SQLite database in `--state-dir` with `synchronous=FULL`, so a write is on disk
 * (fsynced) before the promise resolves — a SIGKILL or power loss right after an acknowledgement keeps it.
 * The journal is WAL with the node:sqlite driver and a rollback journal (`DELETE`) with the wasm driver,
 * which has no shared memory for WAL (driver.ts). Both drivers are synchronous, and Node runs one JavaScript
 * turn at a time, so each conditional write (read, compare, check, write) is one transaction that nothing
 * can interleave.
 */
/** monitor_state rows: the non-endpoint part, and one row per probed endpoint. */
const META_ROW = 'monitor';
const ENDPOINT_ROW = 'endpoint:';

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly path: string;
  /** The SQLite driver this store runs on (`node` or `wasm`). */
  readonly driver: SqliteDriverName;
  /** The traffic controls (overrides, failback approvals, audit log, drills), in tables of their own. */
  readonly controls: SqliteControls;
  private readonly db: SqlDatabase;
  private readonly clock: RuntimeClock;
  private readonly listeners = new Set<StoreListener>();
  private pushed: SqlitePushedHealth | undefined;
  /**
   * The incremental view writes are judged against (core/store/admission.ts): every profile, parsed, as of
   * store revision `viewRevision`. Built by one walk of the table the first time a write needs it; from then on each
   * committed write updates it with the rows it wrote, so a write reads only its own row (the view is
   * re-walked only when the revision moved without this store writing: someone else wrote the file).
   */
  private readonly viewCache = new Map<string, StoredProfile>();
  /** The view's profiles indexed for admission (by name, relativeName, nested child). */
  private readonly viewIndex = new LiveProfileIndex();
  private viewRevision = -1;
  /** The write job running now has edited the view (flush() undoes that if the job fails). */
  private jobWrote = false;
  /**
   * The store revision as this process last read or wrote it, kept only while we hold the state dir
   * (`lockHeld`): then no other process writes the file, and a read of the current profile or revision needs
   * no SQL. Each SQL read outside a transaction is a lock and an unlock of the file, which the wasm driver
   * does with a mkdir and an rmdir (about 1.6 ms a write on Node 20). Forgotten whenever a write fails.
   */
  private knownRevision: number | undefined;
  private readonly soleWriter: boolean;
  /** Writes waiting for this turn's group commit (see write()). */
  private queue: Array<{ job: () => { result: unknown; change?: StoreChange }; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = [];
  /** Profile rows read from the database (every statement on `profiles`), and full walks of the view. */
  private readonly counters: StoreStats & { groupCommits: number } = { rowsRead: 0, viewRebuilds: 0, groupCommits: 0 };
  private readonly stmt: {
    revision: SqlStatement<{ value: string }>;
    setRevision: SqlStatement;
    all: SqlStatement<ProfileRow>;
    revisions: SqlStatement<{ name: string; mod_revision: number }>;
    one: SqlStatement<ProfileRow>;
    upsert: SqlStatement;
    del: SqlStatement;
    resources: SqlStatement<{ id: string; target: string; location: string | null; state: string }>;
    clearResources: SqlStatement;
    insertResource: SqlStatement;
    loadMonitor: SqlStatement<{ key: string; value: string }>;
    saveMonitor: SqlStatement;
    dropMonitor: SqlStatement;
  };

  private constructor(path: string, options: Omit<SqliteStoreOptions, 'stateDir'> = {}) {
    this.path = path;
    this.clock = options.clock ?? systemClock;
    this.driver = options.driver ?? sqliteDriver();
    this.soleWriter = options.lockHeld === true && options.readonly !== true;
    const wasmOnWal = this.driver === 'wasm' && path !== ':memory:' && walHeader(path);
    if (wasmOnWal && !(options.lockHeld && !options.readonly)) {
      throw new StoreError('STORE_DRIVER',
        `${path} is in WAL mode (written by tmkit on Node.js 22.13+ with node:sqlite), which the wasm SQLite driver of Node.js ${process.version} can only convert while it holds the state dir: stop the other tmkit and start tmkit serve here (it converts the file), or use Node.js 22.13+ (docs/installing.md "Supported Node.js")`,
        { path });
    }
    try {
      this.db = openDatabase(path, { driver: this.driver, ...(options.readonly ? { readonly: true } : {}) });
    } catch (err) {
      throw damaged(path, err);
    }
    try {
      // A WAL database without shared memory opens only in EXCLUSIVE locking mode; we hold the state dir,
      // so that is safe, and switching to DELETE checkpoints the WAL into the file and removes it.
      if (wasmOnWal) this.db.exec('PRAGMA locking_mode = EXCLUSIVE');
      // Before anything writes: a damaged file is refused as it is, never "repaired" by a migration.
      checkIntegrity(this.db, path);
      if (!options.readonly) {
        this.db.pragma(`journal_mode = ${storeJournalMode(this.driver).toUpperCase()}`);
        this.db.pragma('synchronous = FULL');
      }
      if (wasmOnWal) {
        this.db.exec('PRAGMA locking_mode = NORMAL');
        this.db.prepare('SELECT count(*) FROM sqlite_master').get(); // the next access drops the exclusive lock
      }
      this.db.pragma('foreign_keys = ON');
      if (options.maxPageCount !== undefined) this.db.pragma(`max_page_count = ${Math.max(1, Math.floor(options.maxPageCount))}`);
      if (options.readonly) {
        if (this.schemaVersion() !== SCHEMA_VERSION) {
          throw new StoreError('STORE_VERSION', `${path} has schema version ${this.schemaVersion()}, not ${SCHEMA_VERSION}; open it read-write once (tmkit serve) to migrate it`);
        }
      } else this.migrate();
    } catch (err) {
      this.db.close();
      throw err instanceof StoreError ? err : damaged(path, err);
    }
    const db = this.db;
    this.stmt = {
      revision: db.prepare(`SELECT value FROM meta WHERE key = 'revision'`),
      setRevision: db.prepare(`UPDATE meta SET value = ? WHERE key = 'revision'`),
      all: db.prepare(`SELECT name, stack, document, hash, mod_revision FROM profiles ORDER BY name`),
      revisions: db.prepare(`SELECT name, mod_revision FROM profiles ORDER BY name`),
      one: db.prepare(`SELECT name, stack, document, hash, mod_revision FROM profiles WHERE name = ?`),
      upsert: db.prepare(`INSERT INTO profiles (name, stack, document, hash, mod_revision, create_revision, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (name) DO UPDATE SET stack = excluded.stack, document = excluded.document, hash = excluded.hash,
          mod_revision = excluded.mod_revision, updated_at = excluded.updated_at`),
      del: db.prepare(`DELETE FROM profiles WHERE name = ?`),
      resources: db.prepare(`SELECT id, target, location, state FROM resources ORDER BY id`),
      clearResources: db.prepare(`DELETE FROM resources`),
      insertResource: db.prepare(`INSERT INTO resources (id, target, location, state) VALUES (?, ?, ?, ?)`),
      loadMonitor: db.prepare(`SELECT key, value FROM monitor_state`),
      saveMonitor: db.prepare(`INSERT INTO monitor_state (key, value, updated_at) VALUES (?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`),
      dropMonitor: db.prepare(`DELETE FROM monitor_state WHERE key = ?`),
    };
    this.controls = new SqliteControls(db);
  }

  /**
   * Opens (creating and migrating if needed) the store in `stateDir`, after two checks: an empty or
   * uninitialised `tmkit.db` in a state dir that was used before is refused (`store-empty`, unless
   * `forceEmpty`), and so is a database that fails `PRAGMA quick_check` (`store-corrupt`).
   */
  static open(options: SqliteStoreOptions): SqliteStore {
    const { stateDir, ...rest } = options;
    if (stateDir === ':memory:') return new SqliteStore(':memory:', rest);
    if (!options.readonly) mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const path = join(stateDir, DB_FILE);
    if (!options.readonly && !options.forceEmpty) refuseLostDatabase(stateDir, path, options.usedBefore ?? []);
    return new SqliteStore(path, rest);
  }

  /** The schema version of the open database (`PRAGMA user_version`). */
  schemaVersion(): number {
    return Number(this.db.pragmaValue('user_version'));
  }

  private migrate(): void {
    const current = this.schemaVersion();
    if (current > SCHEMA_VERSION) {
      throw new StoreError('STORE_VERSION',
        `${this.path} has schema version ${current}, newer than this tmkit understands (${SCHEMA_VERSION}); upgrade tmkit or use another --state-dir`);
    }
    this.db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`);
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      this.db.transaction(() => {
        this.db.exec(m.sql);
        this.db.prepare(`INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)`)
          .run(m.version, m.description, isoNow(this.clock));
        this.db.exec(`PRAGMA user_version = ${m.version}`);
      }, 'immediate');
    }
  }

  private rev(): number {
    if (this.knownRevision !== undefined) return this.knownRevision;
    const revision = Number(this.stmt.revision.get()!.value);
    if (this.soleWriter) this.knownRevision = revision;
    return revision;
  }

  private bump(): number {
    const next = this.rev() + 1;
    this.stmt.setRevision.run(String(next));
    if (this.soleWriter) this.knownRevision = next;
    return next;
  }

  private toStored(row: ProfileRow): StoredProfile {
    let profile: Profile;
    try {
      profile = JSON.parse(row.document) as Profile;
    } catch (err) {
      throw new StoreError('STORE_CORRUPT', `profile '${row.name}' in ${this.path} is not valid JSON: ${(err as Error).message}`);
    }
    return { profile, stack: row.stack, etag: makeEtag(row.mod_revision, row.hash), modRevision: row.mod_revision };
  }

  /**
   * All profiles, the view a write is judged against. Views are read-only, so unchanged rows reuse their parsed form
   * (a write then costs one JSON parse of the rows that changed since the last write, not of all).
   */
  private view(): StoreView {
    const revision = this.rev();
    if (this.viewRevision !== revision) this.rebuildView(revision);
    return { revision, profiles: this.viewCache, index: this.viewIndex };
  }

  /** One row of the view (and its index) now. Frozen: getProfile hands it out as it is (read-only). */
  private setView(name: string, stored: StoredProfile | undefined): void {
    if (stored) this.viewCache.set(name, deepFreeze(stored)); else this.viewCache.delete(name);
    this.viewIndex.set(name, stored?.profile);
  }

  /** The one full walk: reuses parsed rows whose mod_revision is unchanged. */
  private rebuildView(revision: number): void {
    this.counters.viewRebuilds++;
    if (this.viewCache.size === 0) {
      // The first walk: every row once, documents included.
      const rows = this.stmt.all.all();
      this.counters.rowsRead += rows.length;
      for (const r of rows) this.setView(r.name, this.toStored(r));
      this.viewRevision = revision;
      return;
    }
    const seen = new Set<string>();
    const rows = this.stmt.revisions.all();
    this.counters.rowsRead += rows.length;
    for (const r of rows) {
      seen.add(r.name);
      const p = this.viewCache.get(r.name);
      if (!p || p.modRevision !== r.mod_revision) this.setView(r.name, this.toStored(this.readOne(r.name)!));
    }
    for (const name of [...this.viewCache.keys()]) if (!seen.has(name)) this.setView(name, undefined);
    this.viewRevision = revision;
  }

  private readOne(name: string): ProfileRow | undefined {
    const row = this.stmt.one.get(name);
    if (row) this.counters.rowsRead++;
    return row;
  }

  /** Rows read and view walks since open (tests and the scale bench: a write reads only its own row). */
  stats(): StoreStats {
    return { ...this.counters };
  }

  private emit(change: StoreChange): void {
    for (const l of [...this.listeners]) {
      try { l(change); } catch { /* a listener's failure must not fail the acknowledged write */ }
    }
  }

  async revision(): Promise<number> {
    return this.rev();
  }

  async getProfiles(): Promise<StoredProfile[]> {
    const rows = this.stmt.all.all();
    this.counters.rowsRead += rows.length;
    return rows.map((r) => this.toStored(r));
  }

  /** From the view when it is current (no parse: the stored profile, read-only); else its row. */
  async getProfile(name: string): Promise<StoredProfile | undefined> {
    if (this.viewRevision >= 0 && this.viewRevision === this.rev()) return this.viewCache.get(name);
    const row = this.readOne(name);
    return row ? this.toStored(row) : undefined;
  }

  /**
   * Writes run in groups: every write asked for in one turn of the event loop goes into one transaction and
   * one fsync (group commit), each judged in order against the view the ones before it left, each in its own
   * savepoint (a refused one leaves nothing). Each promise resolves only once the group is committed; a
   * commit that fails rejects them all, and nothing of them was written.
   */
  private write<T>(job: () => { result: T; change?: StoreChange }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!this.db.isOpen) { reject(new StoreError('STORE_UNAVAILABLE', `the store at ${this.path} is closed`)); return; }
      this.queue.push({ job, resolve: resolve as (v: unknown) => void, reject });
      if (this.queue.length === 1) setImmediate(() => { if (this.db.isOpen) this.flush(); });
    });
  }

  private flush(): void {
    const batch = this.queue.splice(0);
    if (batch.length === 0) return;
    const outcomes: Array<{ ok: true; result: unknown; change?: StoreChange } | { ok: false; error: unknown }> = [];
    try {
      this.db.transaction(() => {
        for (const w of batch) {
          this.db.exec('SAVEPOINT tmkit_write');
          this.jobWrote = false;
          try {
            const out = w.job();
            this.db.exec('RELEASE tmkit_write');
            outcomes.push({ ok: true, ...out });
          } catch (error) {
            try {
              this.db.exec('ROLLBACK TO tmkit_write');
              this.db.exec('RELEASE tmkit_write');
            } catch {
              throw error; // SQLite ended the whole transaction (a full disk, an I/O error): the group fails with the cause
            }
            // Its own view edits go with it: the next write in the group walks what is really there.
            if (this.jobWrote) this.viewRevision = -1;
            this.knownRevision = undefined; // its bump, if it got that far, was rolled back
            outcomes.push({ ok: false, error });
          }
        }
      }, 'immediate');
    } catch (error) {
      // Nothing of the group is stored (the transaction rolled back): the view walks the table again.
      this.viewRevision = -1;
      this.knownRevision = undefined;
      for (const w of batch) w.reject(error);
      return;
    }
    this.counters.groupCommits++;
    batch.forEach((w, i) => {
      const o = outcomes[i]!;
      if (!o.ok) { w.reject(o.error); return; }
      if (o.change) this.emit(o.change);
      w.resolve(o.result);
    });
  }

  async putProfile(input: ProfileInput, options: PutProfileOptions): Promise<PutProfileResult> {
    return this.write<PutProfileResult>(() => {
      const view = this.view();
      const named = writeName(input);
      const current = named === undefined ? undefined : view.profiles.get(named);
      if (named !== undefined) {
        checkPreconditions(named, current, options.ifMatch, options.ifNoneMatch);
        checkStack(named, current, options.stack);
      }
      return this.store(view, input, current, options.stack);
    });
  }

  /** Runs `edit` inside the write, against the profile as the writes before it in its group left it (Store.editProfile). */
  async editProfile<T>(name: string, edit: (current: StoredProfile) => ProfileEdit<T>, options: EditProfileOptions = {}): Promise<EditProfileResult<T>> {
    return this.write<EditProfileResult<T>>(() => {
      const view = this.view();
      const { input, value, current } = admitEdit(name, view.profiles.get(name), edit, options);
      const out = this.store(view, input, current, current.stack);
      return { result: { ...out.result, stack: current.stack, value }, ...(out.change ? { change: out.change } : {}) };
    });
  }

  /** The part of a profile write after its preconditions: admission, then the row (nothing when unchanged). */
  private store(view: StoreView, input: ProfileInput, current: StoredProfile | undefined, stack: string): { result: PutProfileResult; change?: StoreChange } {
    const { profile, warnings } = admitProfile(view, input);
    const name = profile.name;
    const document = JSON.stringify(profile);
    const hash = documentHash(document, stack, sha256Hex);
    if (current && current.etag === makeEtag(current.modRevision, hash) && current.stack === stack) {
      return { result: { etag: current.etag, revision: view.revision, created: false, changed: false, profile: current.profile, warnings } };
    }
    const revision = this.bump();
    this.stmt.upsert.run(name, stack, document, hash, revision, revision, isoNow(this.clock));
    const etag = makeEtag(revision, hash);
    const stored: StoredProfile = { profile, stack, etag, modRevision: revision };
    this.jobWrote = true;
    this.setView(name, stored);
    this.viewRevision = revision;
    return { result: { etag, revision, created: !current, changed: true, profile, warnings }, change: { revision, kind: 'profile', op: 'put', name, stored } };
  }

  async deleteProfile(name: string, options: DeleteProfileOptions = {}): Promise<{ revision: number }> {
    return this.write<{ revision: number }>(() => {
      const view = this.view();
      const current = view.profiles.get(name);
      if (!current) throw new StoreError('NOT_FOUND', `profile '${name}' does not exist`, { name });
      checkPreconditions(name, current, options.ifMatch, undefined);
      checkStack(name, current, options.stack);
      admitDelete(view, name);
      const revision = this.bump();
      this.stmt.del.run(name);
      this.jobWrote = true;
      this.setView(name, undefined);
      this.viewRevision = revision;
      return { result: { revision }, change: { revision, kind: 'profile', op: 'delete', name } };
    });
  }

  async getResources(): Promise<ResourceCatalogRecord> {
    const out: ResourceCatalogRecord = {};
    for (const r of this.stmt.resources.all()) {
      const res: AzureResource = { target: r.target, state: r.state as AzureResource['state'] };
      if (r.location !== null) res.location = r.location;
      out[r.id] = res;
    }
    return out;
  }

  async putResources(catalog: ResourceCatalogRecord): Promise<{ revision: number }> {
    return this.write(() => {
      const before = this.rev();
      this.stmt.clearResources.run();
      for (const [id, r] of Object.entries(catalog)) this.stmt.insertResource.run(id, r.target, r.location ?? null, r.state);
      const revision = this.bump();
      if (this.viewRevision === before) this.viewRevision = revision;
      return { result: { revision }, change: { revision, kind: 'resources', op: 'replace' } };
    });
  }

  /**
   * One row per endpoint (`endpoint:<profile/endpoint>`) and one `monitor` row for the rest (which held the
   * whole state before it was kept per endpoint), all in one transaction.
   */
  async saveMonitorState(change: MonitorStateChange): Promise<void> {
    const at = isoNow(this.clock);
    this.db.transaction(() => {
      for (const [key, record] of Object.entries(change.endpoints)) {
        if (record === null) this.stmt.dropMonitor.run(ENDPOINT_ROW + key);
        else this.stmt.saveMonitor.run(ENDPOINT_ROW + key, JSON.stringify(record), at);
      }
      if (change.meta !== undefined) this.stmt.saveMonitor.run(META_ROW, JSON.stringify(change.meta), at);
    }, 'immediate');
  }

  async loadMonitorState(): Promise<MonitorState | undefined> {
    const rows = this.stmt.loadMonitor.all();
    if (rows.length === 0) return undefined;
    const state: MonitorState = { endpoints: {} };
    for (const row of rows) {
      if (row.key === META_ROW) state.meta = JSON.parse(row.value) as unknown;
      else if (row.key.startsWith(ENDPOINT_ROW)) state.endpoints[row.key.slice(ENDPOINT_ROW.length)] = JSON.parse(row.value) as unknown;
    }
    return state;
  }

  /** Health pushed from outside: the `pushed_health` table (sqlite-pushed-health.ts). */
  pushedHealth(): SqlitePushedHealth {
    return (this.pushed ??= new SqlitePushedHealth(this.db));
  }

  watch(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  async close(): Promise<void> {
    // Writes already asked for are committed (or refused) first, never dropped by the close.
    if (this.db.isOpen) this.flush();
    this.listeners.clear();
    this.controls.close();
    if (this.db.isOpen) this.db.close();
  }
}

/** What to do about a damaged database, in every message that reports one. */
const RESTORE_HINT = 'restore it from a backup (stop tmkit serve, copy the backup over this file and delete its -wal, -shm and -journal files; docs/runtime.md "Backup and restore")';

/** A database SQLite cannot read (not a database, malformed): refused with the file named. */
function damaged(path: string, err: unknown): Error {
  const code = (err as { code?: string }).code ?? '';
  if (code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT_') || code === 'SQLITE_NOTADB') {
    return new StoreError('STORE_CORRUPT', `${path} is damaged (${(err as Error).message}); ${RESTORE_HINT}`, { path });
  }
  return err as Error;
}

/** `PRAGMA quick_check` (b-tree structure, every page): anything but `ok` refuses the database. */
function checkIntegrity(db: SqlDatabase, path: string): void {
  let problems: string[];
  try {
    problems = db.pragma('quick_check(20)').map((r) => String(Object.values(r)[0])).filter((m) => m !== 'ok');
  } catch (err) {
    // Damage bad enough stops the check itself (SQLITE_CORRUPT): the same finding, in the check's words.
    const code = (err as { code?: string }).code ?? '';
    if (!code.startsWith('SQLITE_CORRUPT')) throw err;
    problems = [(err as Error).message];
  }
  if (problems.length === 0) return;
  const lines = problems.join('\n').split('\n').filter((l) => l !== '' && !l.startsWith('***'));
  const shown = lines.slice(0, 3).join('; ') + (lines.length > 3 ? `; … (${lines.length - 3} more)` : '');
  throw new StoreError('STORE_CORRUPT', `${path} failed SQLite's integrity check (PRAGMA quick_check: ${shown}); ${RESTORE_HINT}`, { path, problems: lines });
}

/**
 * A state dir that was used before (API token file, WAL file, or what the caller knows) whose `tmkit.db`
 * is empty, uninitialised or gone while its WAL is still there: the configuration was lost (truncated,
 * replaced, or deleted underneath), and opening it would quietly start an empty store. A brand-new state
 * dir (no database file) initialises as usual; so does one whose database was deleted together with its WAL.
 */
function refuseLostDatabase(stateDir: string, path: string, usedBefore: readonly string[]): void {
  const size = (f: string): number | undefined => { try { return statSync(f).size; } catch { return undefined; } };
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
  throw new StoreError('STORE_EMPTY',
    `${what}, but ${stateDir} was used before (it has ${evidence.join(', ')}): the database was probably truncated or replaced, and starting would serve an empty configuration. ${RESTORE_HINT[0]!.toUpperCase()}${RESTORE_HINT.slice(1)}, or pass --force-empty to start with an empty store`,
    { path });
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

export { SqliteError };

/** Freezes a JSON value all the way down (a stored profile the store hands out without copying). */
function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as object)) deepFreeze(x);
  }
  return v;
}
