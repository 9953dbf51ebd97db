/**
 * Health pushed from outside in the embedded store (core/store/pushed-health.ts): the `pushed_health` table
 * (migration 2 in sqlite.ts), one row per endpoint. Runtime state beside the configuration: writing it moves
 * no revision and tells no watcher (the health ledger applies it itself).
 */
import { parsePushedRecord, type PushedHealthRecord, type PushedHealthStore } from '../../core/store';
import type { SqlDatabase } from './driver';

export class SqlitePushedHealth implements PushedHealthStore {
  private readonly stmt;

  constructor(db: SqlDatabase) {
    this.stmt = {
      all: db.prepare<{ key: string; value: string }>(`SELECT key, value FROM pushed_health ORDER BY key`),
      put: db.prepare(`INSERT INTO pushed_health (key, value, expires_at) VALUES (?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`),
      del: db.prepare(`DELETE FROM pushed_health WHERE key = ?`),
    };
  }

  async load(): Promise<PushedHealthRecord[]> {
    const out: PushedHealthRecord[] = [];
    for (const row of this.stmt.all.all()) {
      let value: unknown;
      try {
        value = JSON.parse(row.value);
      } catch {
        continue;
      }
      const r = parsePushedRecord(row.key, value);
      if (r) out.push(r);
    }
    return out;
  }

  async put(r: PushedHealthRecord): Promise<void> {
    this.stmt.put.run(r.key, JSON.stringify({ status: r.status, reason: r.reason, at: r.at, expiresAt: r.expiresAt }), r.expiresAt);
  }

  async delete(key: string): Promise<void> {
    this.stmt.del.run(key);
  }
}
