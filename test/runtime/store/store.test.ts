import { join } from 'node:path';
import { driver, openDb, wal } from '../../support/sqlite';
import { DB_FILE, SCHEMA_VERSION, SqliteStore, StoreError } from '../../../src/runtime/store';
import { describeStoreConformance } from '../../support/store-conformance';
import { withEndpoint } from '../../../src/core/model/edit';
import { profile, profileInput } from '../api/fixtures';
import { tempDirs } from '../../support/tmp';

const tempDir = tempDirs('tmkit-store-');

describeStoreConformance('sqlite', () => SqliteStore.open({ stateDir: tempDir() }));

describe('sqlite store on disk', () => {
  test('edits of one profile queued in one turn commit as one group: one transaction, one fsync, every edit in it', async () => {
    const s = SqliteStore.open({ stateDir: tempDir() });
    await s.putProfile(profileInput('w', { trafficRoutingMethod: 'Weighted' }), { stack: 'team' });
    const before = s.stats().groupCommits!;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        s.editProfile('w', (c) => ({
          input: withEndpoint(c.profile, { name: `e${i}`, type: 'externalEndpoints', target: `198.51.100.${i + 1}` }).input,
          value: i,
        })),
      ),
    );
    expect(s.stats().groupCommits! - before).toBe(1);
    expect(results.map((r) => r.revision)).toEqual(Array.from({ length: 10 }, (_, i) => 2 + i));
    expect((await s.getProfile('w'))!.profile.endpoints).toHaveLength(12);
    await s.close();
  });

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
    expect((await s2.getProfiles()).map((p) => [p.profile.name, p.stack])).toEqual([
      ['a', 'prod'],
      ['b', 'dev'],
    ]);
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
    try {
      SqliteStore.open({ stateDir: dir });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('STORE_VERSION');
  });
});

describe('sqlite store: group commit', () => {
  test('writes asked for in one turn commit together, in order; a refused one leaves nothing and the others land', async () => {
    const dir = tempDir();
    const s = SqliteStore.open({ stateDir: dir });
    try {
      const seen: string[] = [];
      s.watch((c) => seen.push(`${c.revision} ${c.op} ${c.name}`));
      await s.putProfile(profile('a'), { stack: 's' });
      const a = (await s.getProfile('a'))!;
      // One turn: two writers holding a's ETag (exactly one wins), an invalid profile, and two creates.
      const results = await Promise.allSettled([
        s.putProfile(profile('a', { dnsConfig: { relativeName: 'a', ttl: 60 } }), { stack: 's', ifMatch: a.etag }),
        s.putProfile(profile('a', { dnsConfig: { relativeName: 'a', ttl: 90 } }), { stack: 's', ifMatch: a.etag }),
        s.putProfile({ ...profile('bad'), dnsConfig: { relativeName: 'bad', ttl: -5 } }, { stack: 's' }),
        s.putProfile(profile('b'), { stack: 's' }),
        s.deleteProfile('a', { ifMatch: a.etag }),
      ]);
      expect(results.map((r) => (r.status === 'fulfilled' ? 'ok' : (r.reason as StoreError).code))).toEqual([
        'ok',
        'PRECONDITION_FAILED',
        'PROFILE_INVALID',
        'ok',
        'PRECONDITION_FAILED',
      ]);
      expect(seen).toEqual(['1 put a', '2 put a', '3 put b']);
      expect(await s.revision()).toBe(3);
      expect((await s.getProfile('a'))!.profile.dnsConfig.ttl).toBe(60);
      expect(await s.getProfile('bad')).toBeUndefined();
      // Durable: another connection (as after a crash) reads exactly what was acknowledged.
      const other = SqliteStore.open({ stateDir: dir });
      try {
        expect((await other.getProfiles()).map((p) => `${p.profile.name} ${p.modRevision}`)).toEqual(['a 2', 'b 3']);
      } finally {
        await other.close();
      }
    } finally {
      await s.close();
    }
  });

  test('a write asked for right before close is committed, not dropped', async () => {
    const dir = tempDir();
    const s = SqliteStore.open({ stateDir: dir });
    const pending = s.putProfile(profile('late'), { stack: 's' });
    await s.close();
    await expect(pending).resolves.toMatchObject({ created: true, revision: 1 });
    const again = SqliteStore.open({ stateDir: dir });
    try {
      expect((await again.getProfile('late'))?.modRevision).toBe(1);
    } finally {
      await again.close();
    }
  });
});
