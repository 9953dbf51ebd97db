export * from '../../core/store';
export { SqliteStore, SCHEMA_VERSION, MIGRATIONS, DB_FILE, type SqliteStoreOptions } from './sqlite';
export { parseResourceCatalog, toResourceCatalog } from '../../core/model/catalog';
