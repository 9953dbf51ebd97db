/**
 * What `tmkit serve` does with a state dir whose database is lost or damaged (issue 11 §2.3, §2.4): a
 * truncated, replaced or damaged tmkit.db is refused (exit 1, the file named, what to do next) instead of
 * starting as an empty store; `--force-empty` starts empty anyway; a brand-new state dir initialises.
 */
import { openDb, wal } from '../../support/sqlite';
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { TmkitClient } from '../../../src/client';
import { SqliteStore } from '../../../src/runtime/store';
import { profile, profileInput } from '../api/fixtures';
import { runTmkit, spawnServe, type ServeProcess } from '../../support/process';
import { tempDirs } from '../../support/tmp';

const running: ServeProcess[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) {
    s.child.kill('SIGKILL');
    await s.exited;
  }
});
const tempDir = tempDirs('tmkit-state-');

const serveArgs = (dir: string, extra: string[] = []): string[] => [
  'serve',
  '--state-dir',
  dir,
  '--dns',
  '127.0.0.1:0',
  '--api',
  '127.0.0.1:0',
  '--log-level',
  'warn',
  ...extra,
];
const unprobed = { endpoints: [{ name: 'a', type: 'externalEndpoints' as const, target: '192.0.2.10', alwaysServe: 'Enabled' as const }] };

/** A state dir that a real serve used: one profile `web` written through the API, then a clean stop. */
async function usedStateDir(env: NodeJS.ProcessEnv = {}): Promise<string> {
  const dir = tempDir();
  const s = await spawnServe(dir, [], env);
  const token = env.TMKIT_TOKEN ?? readFileSync(join(dir, 'token'), 'utf8').trim();
  await new TmkitClient({ server: s.api, token, env: {} }).putProfile(profileInput('web', unprobed));
  s.child.kill('SIGTERM');
  expect((await s.exited).code).toBe(0);
  return dir;
}

async function profilesOf(s: ServeProcess, token: string): Promise<string[]> {
  return (await new TmkitClient({ server: s.api, token, env: {} }).listProfiles()).profiles.map((p) => p.name);
}

describe('a lost database is refused, not started as an empty store', () => {
  test('tmkit.db truncated to 0 bytes: exit 1 naming the file, the token as evidence, and --force-empty; nothing is written', async () => {
    const dir = await usedStateDir();
    const db = join(dir, 'tmkit.db');
    truncateSync(db, 0);
    const r = await runTmkit(serveArgs(dir), { timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`tmkit: serve: ${db} is empty (0 bytes), but ${dir} was used before (it has an API token file`);
    expect(r.stderr).toContain('Restore it from a backup');
    expect(r.stderr).toContain('or pass --force-empty to start with an empty store');
    expect(r.stdout).not.toContain('DNS  UDP+TCP');
    expect(statSync(db).size).toBe(0); // refused before SQLite wrote a header into it
  }, 120_000);

  test('--force-empty starts with an empty store anyway', async () => {
    const dir = await usedStateDir();
    truncateSync(join(dir, 'tmkit.db'), 0);
    const s = await spawnServe(dir, ['--force-empty']);
    running.push(s);
    expect(s.stdout()).toContain('0 profiles');
    const token = readFileSync(join(dir, 'token'), 'utf8').trim();
    expect(await profilesOf(s, token)).toEqual([]);
  }, 120_000);

  test('replaced by an empty SQLite database (no tmkit schema): refused the same way', async () => {
    const dir = await usedStateDir();
    const file = join(dir, 'tmkit.db');
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    const blank = openDb(file);
    blank.exec('CREATE TABLE x (a); DROP TABLE x;'); // a valid SQLite file with nothing in it
    blank.close();
    expect(statSync(file).size).toBeGreaterThan(0);
    const r = await runTmkit(serveArgs(dir), { timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file} holds no tmkit schema (an empty SQLite database)`);
    expect(r.stderr).toContain('--force-empty');
  }, 120_000);

  test("with TMKIT_TOKEN (no token file): the write-ahead log (node:sqlite) or the lock's record (wasm) left by a killed serve is the evidence", async () => {
    const dir = tempDir();
    const env = { TMKIT_TOKEN: 'state-checks-token' };
    const s = await spawnServe(dir, [], env);
    await new TmkitClient({ server: s.api, token: env.TMKIT_TOKEN, env: {} }).putProfile(profileInput('web', unprobed));
    s.child.kill('SIGKILL');
    await s.exited;
    expect(existsSync(join(dir, 'token'))).toBe(false);
    if (wal) expect(statSync(join(dir, 'tmkit.db-wal')).size).toBeGreaterThan(0);
    else expect(existsSync(join(dir, 'tmkit.db-wal'))).toBe(false); // rollback journal: nothing but the lock's record
    truncateSync(join(dir, 'tmkit.db'), 0);
    const r = await runTmkit(serveArgs(dir), { env, timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('tmkit.db is empty (0 bytes)');
    expect(r.stderr).toContain(wal ? 'a write-ahead log (tmkit.db-wal' : `a lock last held by pid ${s.child.pid}`);
  }, 120_000);

  test('a brand-new state dir (and an existing empty directory) still initialises', async () => {
    const fresh = join(tempDir(), 'new-state');
    const a = await spawnServe(fresh);
    running.push(a);
    expect(a.stdout()).toContain('0 profiles');
    const empty = tempDir(); // exists, holds nothing
    const b = await spawnServe(empty);
    running.push(b);
    expect(b.stdout()).toContain('0 profiles');
  }, 120_000);
});

describe('a damaged database is refused at open (PRAGMA quick_check)', () => {
  /** A store with enough profiles for several b-tree pages; returns the number of one leaf page of `profiles`. */
  /** Overwrites the cell pointers of one page (numbered from 1, 4 KiB pages). */
  function garble(file: string, page: number): void {
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(16, 0xff), 0, 16, (page - 1) * 4096 + 8);
    closeSync(fd);
  }

  async function storeWithProfiles(dir: string, table = 'profiles'): Promise<number> {
    const store = SqliteStore.open({ stateDir: dir });
    for (let i = 0; i < 60; i++)
      await store.putProfile(profile(`p${i}`, { ...unprobed, tags: { pad: 'x'.repeat(400) } }), { stack: 'default' });
    await store.close();
    const db = openDb(join(dir, 'tmkit.db'));
    const leaf = db
      .prepare<{ pageno: number }>(`SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno DESC LIMIT 1`)
      .get(table)!;
    db.close(); // the last connection checkpoints the WAL into the file
    writeFileSync(join(dir, 'token'), 'state-checks-token\n', { mode: 0o600 });
    return leaf.pageno;
  }

  test("a garbled b-tree page: exit 1 naming the file, quick_check's finding and how to restore", async () => {
    const dir = tempDir();
    const page = await storeWithProfiles(dir);
    const file = join(dir, 'tmkit.db');
    garble(file, page);
    const r = await runTmkit(serveArgs(dir), { timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    // quick_check lists the damaged cells ("Tree 5 page 14 cell 2: …"), or, when the damage stops the check
    // itself, says "database disk image is malformed": which one depends on what the garbled bytes hit.
    expect(r.stderr).toMatch(
      new RegExp(
        `tmkit: serve: ${file} failed SQLite's integrity check \\(PRAGMA quick_check: (.*page ${page}\\b|database disk image is malformed)`,
      ),
    );
    expect(r.stderr).toContain(
      'restore it from a backup (stop tmkit serve, copy the backup over this file and delete its -wal, -shm and -journal files',
    );
    expect(r.stdout).not.toContain('DNS  UDP+TCP');
  }, 120_000);

  test('damage where start-up never reads (the profiles_stack index) is found too, before anything is served', async () => {
    const dir = tempDir();
    const page = await storeWithProfiles(dir, 'profiles_stack');
    garble(join(dir, 'tmkit.db'), page);
    const r = await runTmkit(serveArgs(dir), { timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`tmkit: serve: ${join(dir, 'tmkit.db')} failed SQLite's integrity check (PRAGMA quick_check: `);
    expect(r.stdout).not.toContain('DNS  UDP+TCP');
  }, 120_000);

  test('a file that is not a database: exit 1, named, with the same advice', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'token'), 'state-checks-token\n', { mode: 0o600 });
    writeFileSync(join(dir, 'tmkit.db'), Buffer.alloc(8192, 0x5a));
    const r = await runTmkit(serveArgs(dir), { timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`tmkit: serve: ${join(dir, 'tmkit.db')} is damaged (file is not a database); restore it from a backup`);
  }, 120_000);
});
