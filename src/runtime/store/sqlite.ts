import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ProfileInput } from '../../core/model/types';
import type { AzureResource } from '../../core/ports';
import { admitDelete, admitEdit, admitProfile, writeName } from '../../core/store/admission';
import { checkPreconditions, checkStack, documentHash, makeEtag } from '../../core/store/conditions';
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
import {
  openDatabase,
  sqliteDriver,
  storeJournalMode,
  SqliteError,
  type SqlDatabase,
  type SqliteDriverName,
  type SqlStatement,
} from './driver';
import { checkIntegrity, damaged, refuseLostDatabase, walHeader } from './sqlite-checks';
import { SqliteOperations } from './sqlite-operations';
import { GroupCommit } from './sqlite-group-commit';
import { DB_FILE, migrate, SCHEMA_VERSION, schemaVersion } from './sqlite-schema';
import { ProfileView } from './sqlite-view';

/*
 * The SQLite store, in parts: the schema and its migrations (sqlite-schema.ts), the checks before the file
 * opens (sqlite-checks.ts), the reads and the view writes are judged against (sqlite-view.ts), the group
 * commit (sqlite-group-commit.ts), the traffic operations (sqlite-operations.ts) and health pushed from outside
 * (sqlite-pushed-health.ts).
 */
export { DB_FILE, MIGRATIONS, SCHEMA_VERSION } from './sqlite-schema';
export { walHeader } from './sqlite-checks';

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
  /** The traffic operations (overrides, failback approvals, audit log, drills), in tables of their own. */
  readonly operations: SqliteOperations;
  private readonly db: SqlDatabase;
  private readonly clock: RuntimeClock;
  private readonly listeners = new Set<StoreListener>();
  private pushed: SqlitePushedHealth | undefined;
  /** The incremental view writes are judged against (core/store/admission.ts), and the profile reads. */
  private readonly profiles: ProfileView;
  /** The write job running now has edited the view (the writer's rolledBack undoes that if the job fails). */
  private jobWrote = false;
  /**
   * The store revision as this process last read or wrote it, kept only while we hold the state dir
   * (`lockHeld`): then no other process writes the file, and a read of the current profile or revision needs
   * no SQL. Each SQL read outside a transaction is a lock and an unlock of the file, which the wasm driver
   * does with a mkdir and an rmdir (about 1.6 ms a write on Node 20). Forgotten whenever a write fails.
   */
  private knownRevision: number | undefined;
  private readonly soleWriter: boolean;
  /** This turn's writes, committed as one group (sqlite-group-commit.ts). */
  private readonly writer: GroupCommit;
  private groupCommits = 0;
  private readonly stmt: {
    revision: SqlStatement<{ value: string }>;
    setRevision: SqlStatement;
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
      throw new StoreError(
        'STORE_DRIVER',
        `${path} is in WAL mode (written by tmkit on Node.js 22.13+ with node:sqlite), which the wasm ` +
          `SQLite driver of Node.js ${process.version} can only convert while it holds the state dir: ` +
          `stop the other tmkit and start tmkit serve here (it converts the file), or use Node.js 22.13+ ` +
          `(docs/installing.md "Supported Node.js")`,
        { path },
      );
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
          throw new StoreError(
            'STORE_VERSION',
            `${path} has schema version ${this.schemaVersion()}, not ${SCHEMA_VERSION}; open it read-write once (tmkit serve) to migrate it`,
          );
        }
      } else migrate(this.db, path, this.clock);
    } catch (err) {
      this.db.close();
      throw err instanceof StoreError ? err : damaged(path, err);
    }
    const db = this.db;
    this.stmt = {
      revision: db.prepare(`SELECT value FROM meta WHERE key = 'revision'`),
      setRevision: db.prepare(`UPDATE meta SET value = ? WHERE key = 'revision'`),
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
    this.profiles = new ProfileView(db, path);
    this.writer = new GroupCommit(db, path, {
      rolledBack: () => {
        // Its own view edits go with it: the next write in the group walks what is really there.
        if (this.jobWrote) this.profiles.invalidate();
        this.knownRevision = undefined; // its bump, if it got that far, was rolled back
      },
      failed: () => {
        // Nothing of the group is stored (the transaction rolled back): the view walks the table again.
        this.profiles.invalidate();
        this.knownRevision = undefined;
      },
      committed: () => {
        this.groupCommits++;
      },
      emit: (change) => this.emit(change),
    });
    this.operations = new SqliteOperations(db);
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
    return schemaVersion(this.db);
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

  /** All profiles, the view a write is judged against (sqlite-view.ts). */
  private view(): StoreView {
    return this.profiles.at(this.rev());
  }

  /** Rows read and view walks since open (tests and the scale bench: a write reads only its own row). */
  stats(): StoreStats {
    return { ...this.profiles.counters, groupCommits: this.groupCommits };
  }

  private emit(change: StoreChange): void {
    for (const l of [...this.listeners]) {
      try {
        l(change);
      } catch {
        /* a listener's failure must not fail the acknowledged write */
      }
    }
  }

  async revision(): Promise<number> {
    return this.rev();
  }

  async getProfiles(): Promise<StoredProfile[]> {
    return this.profiles.readAll();
  }

  /** From the view when it is current (no parse: the stored profile, read-only); else its row. */
  async getProfile(name: string): Promise<StoredProfile | undefined> {
    const view = this.profiles;
    if (view.revision >= 0 && view.revision === this.rev()) return view.cached(name);
    return view.read(name);
  }

  /** Queues `job` for this turn's group commit (sqlite-group-commit.ts): resolves once the group is committed. */
  private write<T>(job: () => { result: T; change?: StoreChange }): Promise<T> {
    return this.writer.write<T>(() => {
      this.jobWrote = false;
      return job();
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
  async editProfile<T>(
    name: string,
    edit: (current: StoredProfile) => ProfileEdit<T>,
    options: EditProfileOptions = {},
  ): Promise<EditProfileResult<T>> {
    return this.write<EditProfileResult<T>>(() => {
      const view = this.view();
      const { input, value, current } = admitEdit(name, view.profiles.get(name), edit, options);
      const out = this.store(view, input, current, current.stack);
      return { result: { ...out.result, stack: current.stack, value }, ...(out.change ? { change: out.change } : {}) };
    });
  }

  /** The part of a profile write after its preconditions: admission, then the row (nothing when unchanged). */
  private store(
    view: StoreView,
    input: ProfileInput,
    current: StoredProfile | undefined,
    stack: string,
  ): { result: PutProfileResult; change?: StoreChange } {
    const { profile, warnings } = admitProfile(view, input);
    const name = profile.name;
    const document = JSON.stringify(profile);
    const hash = documentHash(document, stack, sha256Hex);
    if (current && current.etag === makeEtag(current.modRevision, hash) && current.stack === stack) {
      return {
        result: { etag: current.etag, revision: view.revision, created: false, changed: false, profile: current.profile, warnings },
      };
    }
    const revision = this.bump();
    this.stmt.upsert.run(name, stack, document, hash, revision, revision, isoNow(this.clock));
    const etag = makeEtag(revision, hash);
    const stored: StoredProfile = { profile, stack, etag, modRevision: revision };
    this.jobWrote = true;
    this.profiles.set(name, stored);
    this.profiles.revision = revision;
    return {
      result: { etag, revision, created: !current, changed: true, profile, warnings },
      change: { revision, kind: 'profile', op: 'put', name, stored },
    };
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
      this.profiles.set(name, undefined);
      this.profiles.revision = revision;
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
      if (this.profiles.revision === before) this.profiles.revision = revision;
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
    return () => {
      this.listeners.delete(listener);
    };
  }

  async close(): Promise<void> {
    // Writes already asked for are committed (or refused) first, never dropped by the close.
    if (this.db.isOpen) this.writer.flush();
    this.listeners.clear();
    this.operations.close();
    if (this.db.isOpen) this.db.close();
  }
}

export { SqliteError };
