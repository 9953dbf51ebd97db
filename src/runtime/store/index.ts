export * from './types';
export { canonicalJson, contentHash, makeEtag, parseEtagList } from './conditions';
export { SqliteStore, SCHEMA_VERSION, MIGRATIONS, DB_FILE, type SqliteStoreOptions } from './sqlite';
export { storeWriteFailure, type StoreWriteFailure } from './failures';
export { parseResourceCatalog, toResourceCatalog } from './resources';
export { StateDirLock, LOCK_FILE } from './lock';
export { backupStore, restoreStore, type BackupResult, type RestoreResult } from './backup';
