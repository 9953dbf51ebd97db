/** The SQLite result codes that mean the store cannot be written right now (not a client mistake). */
export type StoreWriteFailure = 'full' | 'readonly' | 'ioerror';

/**
 * Classifies a store error by its SQLite `code`, as the driver seam (driver.ts) gives it for both drivers
 * (node:sqlite's numeric `errcode` and node-sqlite3-wasm's message both become `SQLITE_FULL`, …): `full` (SQLITE_FULL: disk or max_page_count), `readonly`
 * (SQLITE_READONLY*: read-only file or file system), `ioerror` (SQLITE_IOERR*), else undefined.
 */
export function storeWriteFailure(err: unknown): StoreWriteFailure | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_FULL') return 'full';
  if (code === 'SQLITE_READONLY' || code.startsWith('SQLITE_READONLY_')) return 'readonly';
  if (code === 'SQLITE_IOERR' || code.startsWith('SQLITE_IOERR_')) return code === 'SQLITE_IOERR_NOMEM' ? undefined : 'ioerror';
  return undefined;
}
