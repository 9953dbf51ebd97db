/**
 * The traffic operations in the SQLite store (core/store/operations.ts): tables of their own (migration 2 in
 * sqlite.ts), beside the profiles, so writing one never moves the configuration revision. One process owns
 * the database (the state dir's lock), so the listeners are told right after each commit.
 */
import type { AuditEntry, DrillReport, OverrideRecord, ShiftLease } from '../../core/api';
import type { OperationsChange, OperationsStore, FailbackApproval, ShiftSlot } from '../../core/store/operations';
import type { SqlDatabase, SqlStatement } from './driver';
import { MemoryShifts } from './memory-shifts';

/** The audit log keeps this many entries (the oldest go first). */
export const AUDIT_KEPT = 10_000;
/** Drill reports kept. */
export const DRILLS_KEPT = 500;

/** Migration 2 (appended to sqlite.ts's MIGRATIONS): the operations' tables. */
export const OPERATIONS_MIGRATION_SQL = `
  CREATE TABLE overrides (id TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at TEXT NOT NULL) STRICT;
  CREATE TABLE failbacks (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
  CREATE TABLE audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, value TEXT NOT NULL) STRICT;
  CREATE TABLE drills (id TEXT PRIMARY KEY, started_at TEXT NOT NULL, value TEXT NOT NULL) STRICT;
  CREATE INDEX drills_started ON drills (started_at);
`;

const parse = <T>(rows: Array<{ value: string }>): T[] => rows.map((r) => JSON.parse(r.value) as T);

export class SqliteOperations implements OperationsStore {
  private readonly listeners = new Set<(c: OperationsChange) => void>();
  /** Shift holds: in memory, as this process owns the database (memory-shifts.ts says why not in a table). */
  private readonly shifts = new MemoryShifts();
  private readonly stmt: {
    overrides: SqlStatement<{ value: string }>;
    oneOverride: SqlStatement<{ value: string }>;
    putOverride: SqlStatement;
    delOverride: SqlStatement;
    failbacks: SqlStatement<{ value: string }>;
    putFailback: SqlStatement;
    audit: SqlStatement<{ value: string }>;
    putAudit: SqlStatement;
    trimAudit: SqlStatement;
    drills: SqlStatement<{ value: string }>;
    putDrill: SqlStatement;
    trimDrills: SqlStatement;
  };

  constructor(private readonly db: SqlDatabase) {
    this.stmt = {
      overrides: db.prepare(`SELECT value FROM overrides ORDER BY id`),
      oneOverride: db.prepare(`SELECT value FROM overrides WHERE id = ?`),
      putOverride: db.prepare(
        `INSERT INTO overrides (id, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET ` +
          `value = excluded.value, expires_at = excluded.expires_at`,
      ),
      delOverride: db.prepare(`DELETE FROM overrides WHERE id = ?`),
      failbacks: db.prepare(`SELECT value FROM failbacks ORDER BY key`),
      putFailback: db.prepare(`INSERT INTO failbacks (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
      audit: db.prepare(`SELECT value FROM audit ORDER BY seq DESC LIMIT ?`),
      putAudit: db.prepare(`INSERT INTO audit (at, value) VALUES (?, ?)`),
      trimAudit: db.prepare(`DELETE FROM audit WHERE seq <= (SELECT max(seq) FROM audit) - ${AUDIT_KEPT}`),
      drills: db.prepare(`SELECT value FROM drills ORDER BY started_at DESC, id DESC LIMIT ?`),
      putDrill: db.prepare(
        `INSERT INTO drills (id, started_at, value) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET value = excluded.value`,
      ),
      trimDrills: db.prepare(
        `DELETE FROM drills WHERE id NOT IN (SELECT id FROM drills ORDER BY started_at DESC, id DESC LIMIT ${DRILLS_KEPT})`,
      ),
    };
  }

  private emit(changes: OperationsChange[]): void {
    for (const c of changes)
      for (const l of [...this.listeners]) {
        try {
          l(c);
        } catch {
          /* a listener's failure must not fail the write */
        }
      }
  }

  private audit(e: AuditEntry): void {
    this.stmt.putAudit.run(e.at, JSON.stringify(e));
    this.stmt.trimAudit.run();
  }

  async listOverrides(): Promise<OverrideRecord[]> {
    return parse<OverrideRecord>(this.stmt.overrides.all());
  }

  async putOverride(o: OverrideRecord, audit: AuditEntry, replaces: readonly string[] = []): Promise<void> {
    const gone = this.db.transaction(() => {
      const deleted = replaces.filter((id) => this.stmt.delOverride.run(id).changes > 0);
      this.stmt.putOverride.run(o.id, JSON.stringify(o), o.expiresAt);
      this.audit(audit);
      return deleted;
    }, 'immediate');
    this.emit([
      ...gone.map((id): OperationsChange => ({ kind: 'override', op: 'delete', id })),
      { kind: 'override', op: 'put', override: o },
    ]);
  }

  async deleteOverride(id: string, audit: AuditEntry): Promise<OverrideRecord | undefined> {
    const deleted = this.db.transaction(() => {
      const row = this.stmt.oneOverride.get(id);
      if (!row) return undefined;
      this.stmt.delOverride.run(id);
      this.audit(audit);
      return JSON.parse(row.value) as OverrideRecord;
    }, 'immediate');
    if (deleted) this.emit([{ kind: 'override', op: 'delete', id }]);
    return deleted;
  }

  async listFailbacks(): Promise<FailbackApproval[]> {
    return parse<FailbackApproval>(this.stmt.failbacks.all());
  }

  async putFailback(a: FailbackApproval, audit: AuditEntry): Promise<void> {
    this.db.transaction(() => {
      this.stmt.putFailback.run(`${a.profile}/${a.endpoint}`, JSON.stringify(a));
      this.audit(audit);
    }, 'immediate');
    this.emit([{ kind: 'failback', approval: a }]);
  }

  async appendAudit(e: AuditEntry): Promise<void> {
    this.db.transaction(() => this.audit(e), 'immediate');
  }

  async listAudit(limit: number): Promise<AuditEntry[]> {
    return parse<AuditEntry>(this.stmt.audit.all(limit));
  }

  async putDrill(d: DrillReport): Promise<void> {
    this.db.transaction(() => {
      this.stmt.putDrill.run(d.id, d.startedAt, JSON.stringify(d));
      this.stmt.trimDrills.run();
    }, 'immediate');
  }

  async listDrills(limit: number): Promise<DrillReport[]> {
    return parse<DrillReport>(this.stmt.drills.all(limit));
  }

  async getShift(profile: string, endpoint: string): Promise<ShiftSlot> {
    return this.shifts.get(profile, endpoint);
  }

  async swapShift(profile: string, endpoint: string, rev: number, next: ShiftLease | undefined, audit?: AuditEntry): Promise<boolean> {
    // The audit entry is written before the hold changes, in the same turn: a full disk refuses both.
    const log = audit ? () => this.db.transaction(() => this.audit(audit), 'immediate') : undefined;
    return this.shifts.swap(profile, endpoint, rev, next, log);
  }

  async listShifts(): Promise<ShiftLease[]> {
    return this.shifts.list();
  }

  watchOperations(listener: (c: OperationsChange) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  close(): void {
    this.listeners.clear();
  }
}
