export * from '../../core/store';
export { SqliteStore, SCHEMA_VERSION, MIGRATIONS, DB_FILE, type SqliteStoreOptions } from './sqlite';
export { parseResourceCatalog, toResourceCatalog } from '../../core/model/catalog';
export { storeWriteFailure, type StoreWriteFailure } from './failures';
export { StateDirLock, LOCK_FILE, PID_FILE } from './lock';
export {
  openDatabase,
  sqliteDriver,
  describeDriver,
  nodeSqliteAvailable,
  SqliteError,
  SqliteDriverError,
  type SqlDatabase,
  type SqliteDriverName,
} from './driver';
export { backupStore, restoreStore, type BackupResult, type RestoreResult } from './backup';
