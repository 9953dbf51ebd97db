/**
 * The SQLite store's reads of the `profiles` table: rows parsed into stored profiles, and the incremental
 * view writes are judged against (core/store/admission.ts), kept between writes.
 */
import type { Profile } from '../../core/model/types';
import { makeEtag } from '../../core/store/conditions';
import { LiveProfileIndex } from '../../core/store/profile-index';
import { StoreError, type StoredProfile, type StoreStats, type StoreView } from '../../core/store/types';
import type { SqlDatabase, SqlStatement } from './driver';

interface ProfileRow {
  name: string;
  stack: string;
  document: string;
  hash: string;
  mod_revision: number;
}

/**
 * Every profile, parsed, as of store revision `revision`. Built by one walk of the table the first time a
 * write needs it; from then on each committed write updates it with the rows it wrote, so a write reads only
 * its own row (the view is re-walked only when the revision moved without this store writing: someone else
 * wrote the file).
 */
export class ProfileView {
  /** The store revision the view is as of; -1: walk the table again before using it. */
  revision = -1;
  /** Profile rows read from the database (every statement on `profiles`), and full walks of the view. */
  readonly counters: StoreStats = { rowsRead: 0, viewRebuilds: 0 };
  private readonly cache = new Map<string, StoredProfile>();
  /** The view's profiles indexed for admission (by name, relativeName, nested child). */
  private readonly index = new LiveProfileIndex();
  private readonly stmt: {
    all: SqlStatement<ProfileRow>;
    revisions: SqlStatement<{ name: string; mod_revision: number }>;
    one: SqlStatement<ProfileRow>;
  };

  constructor(
    db: SqlDatabase,
    private readonly path: string,
  ) {
    this.stmt = {
      all: db.prepare(`SELECT name, stack, document, hash, mod_revision FROM profiles ORDER BY name`),
      revisions: db.prepare(`SELECT name, mod_revision FROM profiles ORDER BY name`),
      one: db.prepare(`SELECT name, stack, document, hash, mod_revision FROM profiles WHERE name = ?`),
    };
  }

  /**
   * All profiles at store revision `revision`, the view a write is judged against. Views are read-only, so unchanged rows reuse their parsed form
   * (a write then costs one JSON parse of the rows that changed since the last write, not of all).
   */
  at(revision: number): StoreView {
    if (this.revision !== revision) this.rebuild(revision);
    return { revision, profiles: this.cache, index: this.index };
  }

  /** One row of the view (and its index) now. Frozen: getProfile hands it out as it is (read-only). */
  set(name: string, stored: StoredProfile | undefined): void {
    if (stored) this.cache.set(name, deepFreeze(stored));
    else this.cache.delete(name);
    this.index.set(name, stored?.profile);
  }

  /** The next use walks the table again (what the view holds may not be what is stored). */
  invalidate(): void {
    this.revision = -1;
  }

  /** A profile of the view, which must be current (read-only, no parse). */
  cached(name: string): StoredProfile | undefined {
    return this.cache.get(name);
  }

  /** A profile as its row says now. */
  read(name: string): StoredProfile | undefined {
    const row = this.readOne(name);
    return row ? this.toStored(row) : undefined;
  }

  /** Every profile as the table says now, by name. */
  readAll(): StoredProfile[] {
    const rows = this.stmt.all.all();
    this.counters.rowsRead += rows.length;
    return rows.map((r) => this.toStored(r));
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

  /** The one full walk: reuses parsed rows whose mod_revision is unchanged. */
  private rebuild(revision: number): void {
    this.counters.viewRebuilds++;
    if (this.cache.size === 0) {
      // The first walk: every row once, documents included.
      const rows = this.stmt.all.all();
      this.counters.rowsRead += rows.length;
      for (const r of rows) this.set(r.name, this.toStored(r));
      this.revision = revision;
      return;
    }
    const seen = new Set<string>();
    const rows = this.stmt.revisions.all();
    this.counters.rowsRead += rows.length;
    for (const r of rows) {
      seen.add(r.name);
      const p = this.cache.get(r.name);
      if (!p || p.modRevision !== r.mod_revision) this.set(r.name, this.toStored(this.readOne(r.name)!));
    }
    for (const name of [...this.cache.keys()]) if (!seen.has(name)) this.set(name, undefined);
    this.revision = revision;
  }

  private readOne(name: string): ProfileRow | undefined {
    const row = this.stmt.one.get(name);
    if (row) this.counters.rowsRead++;
    return row;
  }
}

/** Freezes a JSON value all the way down (a stored profile the store hands out without copying). */
function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as object)) deepFreeze(x);
  }
  return v;
}
