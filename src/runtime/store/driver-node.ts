/**
 * The `node` SQLite driver (driver.ts): Node's built-in `node:sqlite` (`DatabaseSync`), where Node has it
 * without a flag (22.13+, 23.4+, 24). Real `fcntl` locks, WAL.
 */
import { BaseDatabase, type OpenOptions, type Row, type SqlStatement, type SqlValue } from './driver-common';
import { normalizeSqliteError, SqliteDriverError, wrap } from './driver-errors';

interface NodeSqliteModule {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean; open?: boolean; enableForeignKeyConstraints?: boolean }) => NodeDb;
}
interface NodeDb {
  exec(sql: string): void;
  prepare(sql: string): NodeStmt;
  close(): void;
}
interface NodeStmt {
  run(...params: SqlValue[]): { changes: number | bigint };
  get(...params: SqlValue[]): Row | undefined;
  all(...params: SqlValue[]): Row[];
}

let nodeModule: NodeSqliteModule | null | undefined;

function loadNodeSqlite(): NodeSqliteModule | null {
  if (nodeModule !== undefined) return nodeModule;
  const get = (process as unknown as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const emit = process.emitWarning;
  try {
    process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
      const text = typeof warning === 'string' ? warning : warning.message;
      if (/SQLite/i.test(text)) return;
      (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
    }) as typeof process.emitWarning;
    const m = get?.call(process, 'node:sqlite') as NodeSqliteModule | undefined;
    nodeModule = m && typeof m.DatabaseSync === 'function' ? m : null;
  } catch {
    nodeModule = null;
  } finally {
    process.emitWarning = emit;
  }
  return nodeModule;
}

/** Whether this Node has `node:sqlite` without a flag. */
export function nodeSqliteAvailable(): boolean {
  return loadNodeSqlite() !== null;
}

/** A database opened with `node:sqlite`. */
export class NodeDatabase extends BaseDatabase {
  readonly driver = 'node' as const;
  private readonly db: NodeDb;
  private opened = true;

  constructor(path: string, options: OpenOptions, busyTimeoutMs: number) {
    super(path);
    const m = loadNodeSqlite();
    if (!m)
      throw new SqliteDriverError(
        `node:sqlite is not available in Node.js ${process.version} (it needs Node 22.13+ or 24); use the wasm driver`,
      );
    this.db = wrap(() => new m.DatabaseSync(path, { readOnly: options.readonly === true }));
    try {
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    } catch (err) {
      this.db.close();
      throw normalizeSqliteError(err);
    }
  }

  get isOpen(): boolean {
    return this.opened;
  }

  exec(sql: string): void {
    wrap(() => this.db.exec(sql));
    this.track(sql);
  }

  prepare<R = Row>(sql: string): SqlStatement<R> {
    const s = wrap(() => this.db.prepare(sql));
    return {
      run: (...p) => wrap(() => ({ changes: Number(s.run(...p).changes) })),
      get: (...p) => wrap(() => s.get(...p) as R | undefined),
      all: (...p) => wrap(() => s.all(...p) as R[]),
    };
  }

  close(): void {
    if (!this.opened) return;
    this.opened = false;
    this.depth = 0;
    wrap(() => this.db.close());
  }
}
