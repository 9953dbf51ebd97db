export * from './types';
export { canonicalJson, contentHash, makeEtag, parseEtagList } from './conditions';
export { SqliteStore, SCHEMA_VERSION, MIGRATIONS, DB_FILE, storeWriteFailure, type SqliteStoreOptions, type StoreWriteFailure } from './sqlite';
export { parseResourceCatalog, toResourceCatalog } from './resources';
export { StateDirLock, LOCK_FILE } from './lock';
export { backupStore, restoreStore, type BackupResult, type RestoreResult } from './backup';
