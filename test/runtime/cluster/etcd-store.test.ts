/**
 * The etcd store against a real etcd (Debian's etcd-server, started here on loopback ports): the same Store
 * conformance suite as SQLite and memory, then what only a shared store has — two stores (two nodes) on one
 * etcd, racing conditional writes across them, watch resume and re-list after compaction, and fast refusal
 * while etcd is down.
 */
import { EtcdStore } from '../../../src/runtime/store/etcd';
import type { StoreChange } from '../../../src/core/store';
import { describeStoreConformance } from '../../support/store-conformance';
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { parentInput, profile } from '../api/fixtures';
import { waitFor } from '../../support/wait';
import { tempDirs } from '../../support/tmp';

let etcd: EtcdServer;
let n = 0;
const tempDir = tempDirs('tmkit-etcd-store-', { cleanup: 'manual' });
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.destroy();
  tempDir.removeAll();
});

/** A store on a fresh prefix of the shared etcd (each test starts empty). */
const open = (prefix = `/t${++n}/`, stateDir?: string): Promise<EtcdStore> =>
  EtcdStore.open({
    hosts: [etcd.url],
    prefix,
    ...(stateDir !== undefined ? { stateDir } : {}),
    retryMs: 50,
    requestTimeoutMs: 2000,
    connectTimeoutMs: 2000,
  });

describeStoreConformance('etcd', () => open(undefined, tempDir()), { editProfile: false });

describe('etcd store: several nodes on one etcd', () => {
  test('a write on one node is read and watched on the other, with the same ETag and revision', async () => {
    const prefix = `/shared${++n}/`;
    const [a, b] = await Promise.all([open(prefix), open(prefix)]);
    try {
      const seen: StoreChange[] = [];
      b.watch(({ stored: _stored, ...c }) => seen.push(c));
      const r = await a.putProfile(profile('web'), { stack: 's' });
      // b finds it at once (a miss is confirmed against etcd), and its watch delivers the change.
      expect((await b.getProfile('web'))?.etag).toBe(r.etag);
      for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((res) => setTimeout(res, 10));
      expect(seen).toEqual([{ revision: 1, kind: 'profile', op: 'put', name: 'web' }]);
      expect(await b.revision()).toBe(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('two nodes racing with one ETag: exactly one wins; racing unconditional writes all land, one revision each', async () => {
    const prefix = `/race${++n}/`;
    const [a, b] = await Promise.all([open(prefix), open(prefix)]);
    try {
      const first = await a.putProfile(profile('p'), { stack: 's' });
      await b.getProfile('p');
      const results = await Promise.allSettled(
        [a, b, a, b].map((s, i) =>
          s.putProfile(profile('p', { dnsConfig: { relativeName: 'p', ttl: 60 + i } }), { stack: 's', ifMatch: first.etag }),
        ),
      );
      expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
      for (const x of results) if (x.status === 'rejected') expect(x.reason).toMatchObject({ code: 'PRECONDITION_FAILED' });
      // Unconditional writes of different profiles from both nodes: each commits once, revisions 3..12.
      const writes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).putProfile(profile(`q${i}`), { stack: 's' })));
      expect(writes.map((w) => w.revision).sort((x, y) => x - y)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      // Each node has every write once its watch delivered the other node's (milliseconds).
      await waitFor(() => a.session.configRevision === 12 && b.session.configRevision === 12, {
        what: 'both nodes at revision 12',
        timeoutMs: 5000,
        intervalMs: 20,
      });
      expect((await a.getProfiles()).map((p) => p.etag)).toEqual((await b.getProfiles()).map((p) => p.etag));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('admission runs against the committed view on whichever node writes: a parent and the delete of its child never both land', async () => {
    const prefix = `/ref${++n}/`;
    const [a, b] = await Promise.all([open(prefix), open(prefix)]);
    try {
      await a.putProfile(profile('child'), { stack: 's' });
      await b.getProfile('child');
      // Node a deletes the child (refused while something nests it); node b creates a parent nesting it
      // (refused once it is gone).
      const del = a.deleteProfile('child');
      const par = b.putProfile(parentInput('parent', 'child'), { stack: 's' });
      const [d, p] = await Promise.allSettled([del, par]);
      expect([d.status, p.status].filter((s) => s === 'fulfilled')).toHaveLength(1);
      const names = (await a.getProfiles()).map((x) => x.profile.name);
      expect(names.includes('parent') && !names.includes('child')).toBe(false);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('etcd store: regressions', () => {
  test('60 concurrent writes of different profiles through one node all commit, one revision each (they used to race for config/rev and hit the retry cap)', async () => {
    const s = await open();
    try {
      const results = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => s.putProfile(profile(`p${i}`), { stack: 's' })));
      expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
      expect(results.map((r) => (r as PromiseFulfilledResult<{ revision: number }>).value.revision).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 60 }, (_, i) => i + 1),
      );
    } finally {
      await s.close();
    }
  });

  test('a store closed right after it opened stops (close() used to miss the watch stream still being created, and hang)', async () => {
    for (let i = 0; i < 5; i++) {
      const s = await open();
      const closed = await Promise.race([s.close().then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
      expect(closed).toBe(true);
    }
  });

  test('two monitor-state saves at once both complete, the last one wins (they shared a temporary file: ENOENT)', async () => {
    const dir = tempDir();
    const s = await open(undefined, dir);
    try {
      const save = (n: number): Promise<void> => s.saveMonitorState({ endpoints: { 'a/x': { n } }, meta: { n } });
      await Promise.all([save(1), save(2), save(3)]);
      const again = await open(`/fresh${++n}/`, dir);
      expect(await again.loadMonitorState()).toEqual({ endpoints: { 'a/x': { n: 3 } }, meta: { n: 3 } });
      await again.close();
    } finally {
      await s.close();
    }
  });
});

describe('etcd store: outages, resume and compaction (one etcd per test: it is stopped)', () => {
  let own: EtcdServer;
  beforeEach(async () => {
    own = await startEtcd();
  });
  afterEach(async () => {
    await own.destroy();
  });
  const openOn = (prefix: string, retryMs: number): Promise<EtcdStore> =>
    EtcdStore.open({ hosts: [own.url], prefix, retryMs, requestTimeoutMs: 2000, connectTimeoutMs: 2000 });

  test('etcd down: reads keep working, writes fail fast with STORE_UNAVAILABLE; back up: the watch resumes and writes work', async () => {
    const a = await openOn('/o/', 50);
    try {
      await a.putProfile(profile('web'), { stack: 's' });
      await own.stop();
      await waitFor(() => !a.session.isConnected(), { what: 'the node to see etcd gone', timeoutMs: 5000, intervalMs: 20 });
      const t0 = performance.now();
      const err = await a.putProfile(profile('other'), { stack: 's' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(performance.now() - t0).toBeLessThan(500);
      expect(err).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(String((err as Error).message)).toMatch(
        /etcd .* is unreachable .*the change was not stored.*revision 1; retry when etcd is back/,
      );
      expect((await a.getProfile('web'))?.profile.name).toBe('web');
      await own.restart();
      await waitFor(() => a.session.isConnected(), { what: 'the node to reconnect', timeoutMs: 10_000, intervalMs: 20 });
      expect((await a.putProfile(profile('other'), { stack: 's' })).revision).toBe(2);
    } finally {
      await a.close();
    }
  });

  test('a broken watch resumes at the last applied revision: every change made meanwhile arrives once, in order', async () => {
    const a = await openOn('/r/', 3000);
    try {
      await a.putProfile(profile('keep'), { stack: 's' });
      await a.putProfile(profile('gone'), { stack: 's' });
      const seen: StoreChange[] = [];
      a.watch(({ stored: _stored, ...c }) => seen.push(c));
      const watchesBefore = a.session.stats.watches;
      await own.restart(); // a's stream breaks; it retries in 3 s
      const b = await openOn('/r/', 50);
      await b.deleteProfile('gone');
      await b.putProfile(profile('new'), { stack: 's' });
      await b.close();
      await waitFor(() => seen.length >= 2, { what: 'the two changes made meanwhile', timeoutMs: 15_000, intervalMs: 20 });
      expect(seen).toEqual([
        { revision: 3, kind: 'profile', op: 'delete', name: 'gone' },
        { revision: 4, kind: 'profile', op: 'put', name: 'new' },
      ]);
      expect(a.session.stats.watches).toBeGreaterThan(watchesBefore);
      expect(a.session.stats.compactions).toBe(0);
      expect((await a.getProfiles()).map((p) => p.profile.name)).toEqual(['keep', 'new']);
    } finally {
      await a.close();
    }
  });

  test('a watch whose revision was compacted meanwhile re-lists: nothing is missed, deletions included', async () => {
    const a = await openOn('/c/', 3000);
    try {
      await a.putProfile(profile('keep'), { stack: 's' });
      await a.putProfile(profile('gone'), { stack: 's' });
      const seen: StoreChange[] = [];
      a.watch(({ stored: _stored, ...c }) => seen.push(c));
      const relists = a.session.stats.relists;
      await own.restart();
      const b = await openOn('/c/', 50);
      await b.deleteProfile('gone');
      const last = await b.putProfile(profile('new'), { stack: 's' });
      // Compact etcd's history up to now: a's resume revision is gone.
      const res = await b.session.client.kv.range({ key: Buffer.from('/c/config/rev') });
      await b.session.client.kv.compact({ revision: res.header.revision, physical: true });
      await b.close();
      await waitFor(() => a.session.stats.compactions > 0 && a.session.configRevision === last.revision, {
        what: 'a relist after the compaction',
        timeoutMs: 15_000,
        intervalMs: 20,
      });
      expect(a.session.stats.relists).toBeGreaterThan(relists);
      expect((await a.getProfiles()).map((p) => p.profile.name)).toEqual(['keep', 'new']);
      expect(seen.map((c) => `${c.op} ${c.name}`).sort()).toEqual(['delete gone', 'put new']);
      expect(new Set(seen.map((c) => c.revision))).toEqual(new Set([4]));
    } finally {
      await a.close();
    }
  });

  test('start with etcd down: the local copy serves the last configuration; etcd back: it re-lists and catches up', async () => {
    const dir = tempDir();
    const first = await EtcdStore.open({ hosts: [own.url], prefix: '/l/', stateDir: dir, connectTimeoutMs: 2000 });
    await first.putProfile(profile('web'), { stack: 's' });
    await first.close(); // writes the local copy
    await own.stop();
    const noCopy = await EtcdStore.open({ hosts: [own.url], prefix: '/l/', stateDir: tempDir(), connectTimeoutMs: 500 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String((noCopy as Error).message)).toMatch(
      /cannot reach etcd at http:\/\/127\.0\.0\.1:\d+ .*no local copy of the configuration at .*cluster-cache\.json to start from; start etcd or fix --store/,
    );
    const again = await EtcdStore.open({ hosts: [own.url], prefix: '/l/', stateDir: dir, connectTimeoutMs: 500, retryMs: 50 });
    try {
      expect(again.session.state()).toMatchObject({ connected: false, fromLocalCopy: true });
      expect((await again.getProfiles()).map((p) => p.profile.name)).toEqual(['web']);
      expect(await again.revision()).toBe(1);
      await expect(again.putProfile(profile('x'), { stack: 's' })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await own.start();
      const other = await EtcdStore.open({ hosts: [own.url], prefix: '/l/', connectTimeoutMs: 5000 });
      await other.putProfile(profile('later'), { stack: 's' });
      await other.close();
      await waitFor(() => again.session.configRevision === 2, {
        what: 'the reopened store at revision 2',
        timeoutMs: 15_000,
        intervalMs: 20,
      });
      expect((await again.getProfiles()).map((p) => p.profile.name)).toEqual(['later', 'web']);
      expect(again.session.state()).toMatchObject({ connected: true, fromLocalCopy: false });
    } finally {
      await again.close();
    }
  });
});
