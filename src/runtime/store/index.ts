export * from './types';
export { canonicalJson, contentHash, makeEtag, parseEtagList } from './conditions';
export { SqliteStore, SCHEMA_VERSION, MIGRATIONS, DB_FILE, type SqliteStoreOptions } from './sqlite';
export { parseResourceCatalog, toResourceCatalog } from './resources';
export { StateDirLock, LOCK_FILE } from './lock';
