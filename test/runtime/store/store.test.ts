import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { driver, openDb, wal } from '../../support/sqlite';
import { DB_FILE, SCHEMA_VERSION, SqliteStore, StoreError } from '../../../src/runtime/store';
import { describeStoreConformance } from '../../support/store-conformance';
import { profile } from '../api/fixtures';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tmkit-store-'));
  dirs.push(d);
  return d;
}
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

describeStoreConformance('sqlite', () => SqliteStore.open({ stateDir: tempDir() }));

describe('sqlite store on disk', () => {
  test('everything survives close and reopen: profiles, ETags, revision, catalog, monitor state', async () => {
    const dir = tempDir();
    const s1 = SqliteStore.open({ stateDir: dir });
    const a = await s1.putProfile(profile('a'), { stack: 'prod' });
    await s1.putProfile(profile('b'), { stack: 'dev' });
    await s1.putResources({ '/r/1': { target: 'one.example.net', state: 'running' } });
    await s1.saveMonitorState({ endpoints: { 'a/x': { v: 1 }, 'a/y': { v: 2 } }, meta: { m: 1 } });
    await s1.saveMonitorState({ endpoints: { 'a/y': null } });
    await s1.close();
    const s2 = SqliteStore.open({ stateDir: dir });
    expect(await s2.revision()).toBe(3);
    expect(await s2.getProfile('a')).toEqual({ profile: profile('a'), stack: 'prod', etag: a.etag, modRevision: 1 });
    expect((await s2.getProfiles()).map((p) => [p.profile.name, p.stack])).toEqual([['a', 'prod'], ['b', 'dev']]);
    expect(await s2.getResources()).toEqual({ '/r/1': { target: 'one.example.net', state: 'running' } });
    expect(await s2.loadMonitorState()).toEqual({ endpoints: { 'a/x': { v: 1 } }, meta: { m: 1 } });
    await s2.close();
  });

  test('schema is versioned: user_version and schema_migrations record every migration; WAL on node:sqlite, a rollback journal on wasm', async () => {
    const dir = tempDir();
    const s = SqliteStore.open({ stateDir: dir });
    expect(s.schemaVersion()).toBe(SCHEMA_VERSION);
    await s.close();
    expect(s.driver).toBe(driver);
    const db = openDb(join(dir, DB_FILE), { readonly: true });
    expect(db.pragmaValue('journal_mode')).toBe(wal ? 'wal' : 'delete');
    expect(db.pragmaValue('user_version')).toBe(SCHEMA_VERSION);
    const rows = db.prepare<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version').all();
    expect(rows.map((r) => r.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    db.close();
    // Reopening does not re-run migrations.
    const again = SqliteStore.open({ stateDir: dir });
    expect(again.schemaVersion()).toBe(SCHEMA_VERSION);
    await again.close();
  });

  test('a database from a newer tmkit is refused with store-version, not modified', () => {
    const dir = tempDir();
    SqliteStore.open({ stateDir: dir }).close();
    const db = openDb(join(dir, DB_FILE));
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    let err: unknown;
    try { SqliteStore.open({ stateDir: dir }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('STORE_VERSION');
  });
});
