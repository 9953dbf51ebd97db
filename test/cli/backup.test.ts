/**
 * `tmkit backup` / `tmkit restore` (issue 11 §2.4): a consistent copy of a live server's store, taken while
 * it writes, and putting it back into a state dir (refused while a serve holds it).
 */
import { openDb, wal } from '../support/sqlite';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TmkitClient } from '../../src/client';
import type { ProfileInput } from '../../src/core/model/types';
import { profileInput } from '../runtime/api/fixtures';
import { runTmkit, spawnServe, type ServeProcess } from '../support/process';
import { tempDirs } from '../support/tmp';

const running: ServeProcess[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) {
    s.child.kill('SIGKILL');
    await s.exited;
  }
});
const tempDir = tempDirs('tmkit-backup-');

/** A big profile (200 unprobed endpoints, about 30 KB stored), so the store spans hundreds of pages. */
function bigProfile(name: string): ProfileInput {
  return profileInput(name, {
    trafficRoutingMethod: 'Weighted',
    endpoints: Array.from({ length: 200 }, (_, i) => ({
      name: `ep-${i}`,
      type: 'externalEndpoints' as const,
      target: `10.${Math.floor(i / 250)}.${i % 250}.${(name.length % 200) + 1}`,
      alwaysServe: 'Enabled' as const,
    })),
  });
}

function readBackup(file: string): { integrity: string; revision: number; profiles: number; maxModRevision: number; names: string[] } {
  const db = openDb(file, { readonly: true });
  try {
    return {
      integrity: String(db.pragmaValue('integrity_check')),
      revision: Number(db.prepare<{ value: string }>(`SELECT value FROM meta WHERE key = 'revision'`).get()!.value),
      profiles: Number(db.prepare<{ n: number }>('SELECT count(*) AS n FROM profiles').get()!.n),
      maxModRevision: Number(db.prepare<{ m: number }>('SELECT max(mod_revision) AS m FROM profiles').get()!.m),
      names: db
        .prepare<{ name: string }>('SELECT name FROM profiles ORDER BY name')
        .all()
        .map((r) => r.name),
    };
  } finally {
    db.close();
  }
}

test('a backup of a live server taken while it writes is one consistent revision, and restores into a working server', async () => {
  const dir = tempDir();
  const server = await spawnServe(dir);
  running.push(server);
  const client = new TmkitClient({ server: server.api, token: readFileSync(join(dir, 'token'), 'utf8').trim(), env: {} });
  for (let i = 0; i < 30; i++) await client.putProfile(bigProfile(`seed-${String(i).padStart(2, '0')}`));

  // Every write creates a profile, so in any consistent state: revision = number of profiles = max modRevision.
  let writing = true;
  let written = 0;
  const writer = (async () => {
    while (writing) {
      await client.putProfile(bigProfile(`live-${String(written).padStart(4, '0')}`));
      written++;
    }
  })();
  const files: string[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const file = join(tempDir(), `backup-${i}.db`);
      const r = await runTmkit(['backup', '--state-dir', dir, file], { timeoutMs: 60_000 });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(
          `^tmkit backup: wrote ${file} \\(\\d+ profiles, store revision \\d+, \\d+ KiB, with the DNS cookie secret: keep it private, mode 0600\\) from ${join(dir, 'tmkit.db')}; integrity ok\\n$`,
        ),
      );
      files.push(file);
    }
  } finally {
    writing = false;
    await writer;
  }
  expect(written).toBeGreaterThan(0); // the backups really ran beside writes
  for (const file of files) {
    const b = readBackup(file);
    expect(b.integrity).toBe('ok');
    expect(b.profiles).toBeGreaterThanOrEqual(30);
    expect(b.revision).toBe(b.profiles);
    expect(b.maxModRevision).toBe(b.revision);
    expect(existsSync(`${file}-wal`)).toBe(false); // self-contained
  }

  // Restore is refused while the server holds the state dir; it names the server's pid.
  const last = files[files.length - 1]!;
  const refused = await runTmkit(['restore', '--state-dir', dir, last], { timeoutMs: 30_000 });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`tmkit: restore: the state dir ${dir} is in use by another tmkit serve (pid ${server.child.pid})`);

  // Into another state dir (a new machine), then a serve answers from it.
  const target = join(tempDir(), 'restored');
  const restored = await runTmkit(['restore', '--state-dir', target, last], { timeoutMs: 30_000 });
  expect(restored.code).toBe(0);
  const expected = readBackup(last);
  expect(restored.stdout).toContain(
    `tmkit restore: ${join(target, 'tmkit.db')} now holds ${last} (${expected.profiles} profiles, store revision ${expected.revision})`,
  );
  writeFileSync(join(target, 'token'), 'restored-token\n', { mode: 0o600 });
  const again = await spawnServe(target);
  running.push(again);
  expect(again.stdout()).toContain(`${expected.profiles} profiles`);
  const list = await new TmkitClient({ server: again.api, token: 'restored-token', env: {} }).listProfiles();
  expect(list.revision).toBe(expected.revision);
  expect(list.profiles.map((p) => p.name).sort()).toEqual(expected.names);
}, 240_000);

test('restore over a used state dir moves the old database aside with its -wal, so it is never replayed onto the backup', async () => {
  const dir = tempDir();
  const a = await spawnServe(dir);
  const client = new TmkitClient({ server: a.api, token: readFileSync(join(dir, 'token'), 'utf8').trim(), env: {} });
  await client.putProfile(
    profileInput('before', { endpoints: [{ name: 'x', type: 'externalEndpoints', target: '192.0.2.1', alwaysServe: 'Enabled' }] }),
  );
  const file = join(tempDir(), 'one.db');
  expect((await runTmkit(['backup', '--state-dir', dir, file], { timeoutMs: 30_000 })).code).toBe(0);
  await client.putProfile(
    profileInput('after', { endpoints: [{ name: 'x', type: 'externalEndpoints', target: '192.0.2.2', alwaysServe: 'Enabled' }] }),
  );
  a.child.kill('SIGKILL'); // on node:sqlite, leaves tmkit.db-wal holding the write of 'after'
  await a.exited;
  expect(existsSync(join(dir, 'tmkit.db-wal'))).toBe(wal);

  const r = await runTmkit(['restore', '--state-dir', dir, file], { timeoutMs: 30_000 });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`the replaced database is ${join(dir, 'tmkit.db')}.before-restore`);
  expect(existsSync(join(dir, 'tmkit.db-wal'))).toBe(false);
  expect(existsSync(join(dir, 'tmkit.db.before-restore-wal'))).toBe(wal);
  const b = await spawnServe(dir);
  running.push(b);
  const names = (
    await new TmkitClient({ server: b.api, token: readFileSync(join(dir, 'token'), 'utf8').trim(), env: {} }).listProfiles()
  ).profiles.map((p) => p.name);
  expect(names).toEqual(['before']);
}, 120_000);

test('backup refuses to overwrite without --force, and names a missing store', async () => {
  const dir = tempDir();
  const s = await spawnServe(dir);
  running.push(s);
  const file = join(tempDir(), 'b.db');
  writeFileSync(file, 'precious');
  const r = await runTmkit(['backup', '--state-dir', dir, file], { timeoutMs: 30_000 });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`tmkit: backup: ${file} already exists; pass --force to overwrite it, or choose another file`);
  expect(readFileSync(file, 'utf8')).toBe('precious');
  expect((await runTmkit(['backup', '--state-dir', dir, '--force', file], { timeoutMs: 30_000 })).code).toBe(0);
  expect(readBackup(file).integrity).toBe('ok');

  const nowhere = join(tempDir(), 'none');
  const missing = await runTmkit(['backup', '--state-dir', nowhere, join(tempDir(), 'x.db')], { timeoutMs: 30_000 });
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain(`tmkit: backup: there is no store at ${join(nowhere, 'tmkit.db')}; pass --state-dir DIR`);
}, 120_000);

/** The real dig's output for the zone's SOA with `cookie` (`+cookie` or `+cookie=HEX`). */
function digCookie(s: ServeProcess, cookie: string): Promise<string> {
  return new Promise((resolve) => {
    execFile('dig', [`@${s.dns.address}`, '-p', String(s.dns.port), 'tm.internal', 'SOA', '+time=2', '+tries=1', cookie], (_e, out) =>
      resolve(out),
    );
  });
}
const cookieIn = (out: string): string | undefined => /; COOKIE: ([0-9a-f]{48}) \(good\)/.exec(out)?.[1];

test('the DNS cookie secret goes into the backup and comes back: a restored node accepts the cookies its clients hold', async () => {
  const dir = tempDir();
  const a = await spawnServe(dir);
  running.push(a);
  const held = cookieIn(await digCookie(a, '+cookie'));
  expect(held).toBeDefined();
  const file = join(tempDir(), 'with-cookies.db');
  const b = await runTmkit(['backup', '--state-dir', dir, file], { timeoutMs: 30_000 });
  expect(b.code).toBe(0);
  expect(b.stdout).toContain('with the DNS cookie secret: keep it private, mode 0600');
  expect(statSync(file).mode & 0o777).toBe(0o600);

  // A new machine: another state dir, which already made a secret of its own (moved aside by the restore).
  const target = join(tempDir(), 'restored');
  const other = await spawnServe(target);
  other.child.kill('SIGTERM');
  await other.exited;
  const replaced = readFileSync(join(target, 'dns-cookie-secret.json'), 'utf8');
  const r = await runTmkit(['restore', '--state-dir', target, file], { timeoutMs: 30_000 });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('and its DNS cookie secret is back in dns-cookie-secret.json');
  expect(readFileSync(join(target, 'dns-cookie-secret.json'), 'utf8')).toBe(readFileSync(join(dir, 'dns-cookie-secret.json'), 'utf8'));
  expect(statSync(join(target, 'dns-cookie-secret.json')).mode & 0o777).toBe(0o600);
  expect(readFileSync(join(target, 'dns-cookie-secret.json.before-restore'), 'utf8')).toBe(replaced);

  const restored = await spawnServe(target);
  running.push(restored);
  // The cookie from before the backup is echoed as it came: valid, not replaced by a fresh one.
  expect(cookieIn(await digCookie(restored, `+cookie=${held}`))).toBe(held);
  // The store opens without the carrier tables.
  const token = readFileSync(join(target, 'token'), 'utf8').trim();
  expect((await new TmkitClient({ server: restored.api, token, env: {} }).listProfiles()).profiles).toEqual([]);
}, 120_000);
