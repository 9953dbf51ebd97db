/**
 * Where the DNSSEC keys live: the state dir (mode 0600, created once even by racing starts, carried by
 * `tmkit backup`/`restore`) and etcd (a real etcd on loopback: two nodes starting together end up with one
 * key set; a rollover on one reaches the other; a node starts from its private copy while etcd is down), and
 * the checks that refuse keys of another zone, algorithm or key mode.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { DnssecService, EtcdKeyStore, FileKeyStore, KEY_FILE, newKeySet, type DnssecKeyStore } from '../../../src/runtime/dns';
import { EtcdStore } from '../../../src/runtime/store/etcd';
import { backupStore, restoreStore, SqliteStore } from '../../../src/runtime/store';
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { tempDirs } from '../../support/tmp';

const logger = pino({ level: 'silent' });
const tempDir = tempDirs('tmkit-dnssec-keys-');

const open = (store: DnssecKeyStore, o: Partial<Parameters<typeof DnssecService.open>[0]> = {}): Promise<DnssecService> =>
  DnssecService.open({ zone: 'tm.internal', policy: { algorithm: 13, split: false }, store, logger, ...o });

describe('state dir', () => {
  test('first start creates one key set, mode 0600; every later start loads the same keys', async () => {
    const dir = tempDir();
    const a = await open(new FileKeyStore(dir));
    expect(statSync(join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
    const b = await open(new FileKeyStore(dir));
    expect(b.report().ds).toEqual(a.report().ds);
  });

  test('two starts racing create one key set (O_EXCL): both sign with it', async () => {
    const dir = tempDir();
    const [a, b] = await Promise.all([open(new FileKeyStore(dir)), open(new FileKeyStore(dir))]);
    expect(a.report().ds).toEqual(b.report().ds);
    expect(JSON.parse(readFileSync(join(dir, KEY_FILE), 'utf8'))).toEqual(a.doc);
  });

  test('keys of another zone, algorithm or key mode are refused, saying which flag to pass', async () => {
    const dir = tempDir();
    await open(new FileKeyStore(dir));
    await expect(open(new FileKeyStore(dir), { zone: 'other.example' })).rejects.toThrow(
      /holds the DNSSEC keys of tm\.internal, not other\.example: serve --zone tm\.internal/,
    );
    await expect(open(new FileKeyStore(dir), { policy: { algorithm: 15, split: false } })).rejects.toThrow(
      /algorithm 13 keys, not 15: pass --dnssec-algorithm 13/,
    );
    await expect(open(new FileKeyStore(dir), { policy: { algorithm: 13, split: true } })).rejects.toThrow(
      /one combined key \(CSK\): pass --dnssec-keys csk/,
    );
  });

  test('a damaged key file stops the start and says what to do', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, KEY_FILE), '{ not json');
    await expect(open(new FileKeyStore(dir))).rejects.toThrow(
      /dnssec-keys\.json: the DNSSEC key file is not JSON .*restore it from a backup/,
    );
  });

  test('tmkit backup carries the keys (the backup is then mode 0600); restore puts them back, the old ones aside', async () => {
    const dir = tempDir();
    const store = SqliteStore.open({ stateDir: dir });
    await store.close();
    const keys = await open(new FileKeyStore(dir));
    const file = join(tempDir(), 'backup.db');
    const b = await backupStore(dir, file);
    expect(b.dnssecKeys).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const target = tempDir();
    await open(new FileKeyStore(target)); // other keys there, to be moved aside
    const r = restoreStore(target, file);
    expect(r.dnssecKeys).toBe(true);
    expect(readFileSync(join(target, KEY_FILE), 'utf8')).toBe(readFileSync(join(dir, KEY_FILE), 'utf8'));
    expect(statSync(join(target, KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(existsSync(join(target, `${KEY_FILE}.before-restore`))).toBe(true);
    expect((await open(new FileKeyStore(target))).report().ds).toEqual(keys.report().ds);
    // The restored store opens as a store (the carrier table is gone).
    const restored = SqliteStore.open({ stateDir: target });
    expect(await restored.getProfiles()).toEqual([]);
    await restored.close();
  });
});

describe('etcd', () => {
  let etcd: EtcdServer;
  beforeAll(async () => {
    etcd = await startEtcd();
  });
  afterAll(async () => {
    await etcd?.destroy();
  });
  const node = (prefix: string, stateDir = tempDir()): Promise<EtcdStore> =>
    EtcdStore.open({ hosts: [etcd.url], prefix, stateDir, retryMs: 50, requestTimeoutMs: 2000, connectTimeoutMs: 2000 });

  test('two nodes starting together agree on one key set (create-if-absent transaction); each keeps a private copy', async () => {
    const [a, b] = await Promise.all([node('/k1/'), node('/k1/')]);
    try {
      const dirA = tempDir();
      const dirB = tempDir();
      const [ka, kb] = await Promise.all([open(new EtcdKeyStore(a.session, dirA)), open(new EtcdKeyStore(b.session, dirB))]);
      expect(ka.doc).toEqual(kb.doc);
      expect(JSON.parse(readFileSync(join(dirA, KEY_FILE), 'utf8'))).toEqual(ka.doc);
      expect(statSync(join(dirB, KEY_FILE)).mode & 0o777).toBe(0o600);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a rollover on one node reaches the other (it reads the key set every poll); a stale rollover loses', async () => {
    const [a, b] = await Promise.all([node('/k2/'), node('/k2/')]);
    try {
      const ka = await open(new EtcdKeyStore(a.session, tempDir()));
      const kb = await open(new EtcdKeyStore(b.session, tempDir()), { pollMs: 50 });
      const seen: number[] = [];
      kb.onChange((doc) => seen.push(doc.keys.length));
      const r = await ka.rollover('zone', false, 30);
      expect(r.doc.keys).toHaveLength(2);
      for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((res) => setTimeout(res, 20));
      expect(seen).toEqual([2]);
      expect(kb.doc).toEqual(ka.doc);
      // A second rollover while the first is under way is refused by the plan, on either node.
      await expect(kb.rollover('zone', false, 30)).rejects.toThrow(/a CSK rollover is under way/);
      // Compare-and-swap: replacing a key set that is no longer the stored one writes nothing.
      expect(await new EtcdKeyStore(a.session).replace(newKeySet('tm.internal', { algorithm: 13, split: false }, Date.now()), r.doc)).toBe(
        false,
      );
      kb.close();
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a node whose etcd is down starts from its private copy; without one it says so', async () => {
    const own = await startEtcd();
    const dir = tempDir();
    try {
      const first = await EtcdStore.open({ hosts: [own.url], prefix: '/k3/', stateDir: dir, connectTimeoutMs: 2000 });
      const keys = await open(new EtcdKeyStore(first.session, dir));
      await first.session.saveNow(); // the node's copy of the configuration, so it can start without etcd
      await first.close();
      await own.stop();
      const offline = await EtcdStore.open({
        hosts: [own.url],
        prefix: '/k3/',
        stateDir: dir,
        connectTimeoutMs: 500,
        requestTimeoutMs: 500,
      });
      try {
        expect((await open(new EtcdKeyStore(offline.session, dir))).doc).toEqual(keys.doc);
        await expect(open(new EtcdKeyStore(offline.session, tempDir()))).rejects.toThrow(
          /etcd is unreachable and this node has no copy of the DNSSEC keys yet/,
        );
      } finally {
        await offline.close();
      }
    } finally {
      await own.destroy();
    }
  }, 30_000);
});
