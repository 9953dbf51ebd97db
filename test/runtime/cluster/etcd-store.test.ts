/**
 * The etcd store against a real etcd (Debian's etcd-server, started here on loopback ports): the same Store
 * conformance suite as SQLite and memory, then what only a shared store has — two stores (two nodes) on one
 * etcd, racing conditional writes across them, watch resume and re-list after compaction, and fast refusal
 * while etcd is down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdStore } from '../../../src/runtime/store/etcd';
import type { StoreChange } from '../../../src/core/store';
import { describeStoreConformance } from '../../support/store-conformance';
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { profile } from '../api/fixtures';

let etcd: EtcdServer;
let n = 0;
const dirs: string[] = [];
beforeAll(async () => { etcd = await startEtcd(); });
afterAll(async () => { await etcd?.destroy(); for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

function tempDir(): string { const d = mkdtempSync(join(tmpdir(), 'tmkit-etcd-store-')); dirs.push(d); return d; }

/** A store on a fresh prefix of the shared etcd (each test starts empty). */
const open = (prefix = `/t${++n}/`, stateDir?: string): Promise<EtcdStore> =>
  EtcdStore.open({ hosts: [etcd.url], prefix, ...(stateDir !== undefined ? { stateDir } : {}), retryMs: 50, requestTimeoutMs: 2000, connectTimeoutMs: 2000 });

describeStoreConformance('etcd', () => open(undefined, tempDir()));

describe('etcd store: several nodes on one etcd', () => {
  test('a write on one node is read and watched on the other, with the same ETag and revision', async () => {
    const prefix = `/shared${++n}/`;
    const [a, b] = await Promise.all([open(prefix), open(prefix)]);
    try {
      const seen: StoreChange[] = [];
      b.watch((c) => seen.push(c));
      const r = await a.putProfile(profile('web'), { stack: 's' });
      // b finds it at once (a miss is confirmed against etcd), and its watch delivers the change.
      expect((await b.getProfile('web'))?.etag).toBe(r.etag);
      for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((res) => setTimeout(res, 10));
      expect(seen).toEqual([{ revision: 1, kind: 'profile', op: 'put', name: 'web' }]);
      expect(await b.revision()).toBe(1);
    } finally { await Promise.all([a.close(), b.close()]); }
  });

  test('two nodes racing with one ETag: exactly one wins; racing unconditional writes all land, one revision each', async () => {
    const prefix = `/race${++n}/`;
    const [a, b] = await Promise.all([open(prefix), open(prefix)]);
    try {
      const first = await a.putProfile(profile('p'), { stack: 's' });
      await b.getProfile('p');
      const results = await Promise.allSettled([a, b, a, b].map((s, i) => s.putProfile(profile('p', { dnsConfig: { relativeName: 'p', ttl: 60 + i } }), { stack: 's', ifMatch: first.etag })));
      expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
      for (const x of results) if (x.status === 'rejected') expect(x.reason).toMatchObject({ code: 'PRECONDITION_FAILED' });
      // Unconditional writes of different profiles from both nodes: each commits once, revisions 3..12.
      const writes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).putProfile(profile(`q${i}`), { stack: 's' })));
      expect(writes.map((w) => w.revision).sort((x, y) => x - y)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      expect(await a.revision()).toBe(12);
    } finally { await Promise.all([a.close(), b.close()]); }
  });

  test('a check runs against the committed view on whichever node writes: a parent and the delete of its child never both land', async () => {
    const prefix = `/ref${++n}/`;
    const [a, b] = await Promise.all([open(prefix), open(prefix)]);
    try {
      await a.putProfile(profile('child'), { stack: 's' });
      await b.getProfile('child');
      // Node a deletes the child unless something nests it; node b creates a parent nesting it unless it is gone.
      const del = a.deleteProfile('child', { check: (view) => { if ([...view.profiles.keys()].includes('parent')) throw new Error('referenced'); } });
      const par = b.putProfile(profile('parent'), { stack: 's', check: (view) => { if (!view.profiles.has('child')) throw new Error('dangling'); } });
      const [d, p] = await Promise.allSettled([del, par]);
      expect([d.status, p.status].filter((s) => s === 'fulfilled')).toHaveLength(1);
      const names = (await a.getProfiles()).map((x) => x.profile.name);
      expect(names.includes('parent') && !names.includes('child')).toBe(false);
    } finally { await Promise.all([a.close(), b.close()]); }
  });
});
