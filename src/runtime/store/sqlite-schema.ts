/** The SQLite store's schema: its migrations and how an opened database is brought up to date. */
import { StoreError } from '../../core/store/types';
import { isoNow, type RuntimeClock } from '../clock';
import type { SqlDatabase } from './driver';
import { OPERATIONS_MIGRATION_SQL } from './sqlite-operations';

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
  { version: 2, description: 'traffic controls: overrides, failback approvals, audit log, drill reports', sql: OPERATIONS_MIGRATION_SQL },
  {
    version: 3,
    description: 'health pushed from outside (runtime state, not configuration)',
    sql: `CREATE TABLE pushed_health (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL) STRICT;`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
export const DB_FILE = 'tmkit.db';

/** The schema version of an open database (`PRAGMA user_version`). */
export function schemaVersion(db: SqlDatabase): number {
  return Number(db.pragmaValue('user_version'));
}

/** Applies the migrations `db` (the database at `path`) lacks; refuses a database newer than this tmkit. */
export function migrate(db: SqlDatabase, path: string, clock: RuntimeClock): void {
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) {
    throw new StoreError(
      'STORE_VERSION',
      `${path} has schema version ${current}, newer than this tmkit understands (${SCHEMA_VERSION}); upgrade tmkit or use another --state-dir`,
    );
  }
  db.exec(
    `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`,
  );
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare(`INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)`).run(
        m.version,
        m.description,
        isoNow(clock),
      );
      db.exec(`PRAGMA user_version = ${m.version}`);
    }, 'immediate');
  }
}
