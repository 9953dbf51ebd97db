/**
 * The mirror is etcd (fast-check, against a real etcd): whatever sequence of puts, deletes and catalog
 * replacements two nodes make, concurrently and with losers retrying, afterwards every node's store reads
 * exactly what a fresh node reads from etcd, and the configuration revision counts the committed writes.
 * Each node's watchers saw every change once, in revision order.
 */
import fc from 'fast-check';
import { EtcdStore } from '../../../src/runtime/store/etcd';
import type { StoreChange } from '../../../src/core/store';
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { profile } from '../api/fixtures';

jest.setTimeout(180_000);

let etcd: EtcdServer;
let n = 0;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.destroy();
});

const open = (prefix: string): Promise<EtcdStore> => EtcdStore.open({ hosts: [etcd.url], prefix, retryMs: 50 });

type Op =
  | { node: 0 | 1; kind: 'put'; name: string; ttl: number }
  | { node: 0 | 1; kind: 'delete'; name: string }
  | { node: 0 | 1; kind: 'resources'; n: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    node: fc.constantFrom<0 | 1>(0, 1),
    kind: fc.constant<'put'>('put'),
    name: fc.constantFrom('a', 'b', 'c', 'd'),
    ttl: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({ node: fc.constantFrom<0 | 1>(0, 1), kind: fc.constant<'delete'>('delete'), name: fc.constantFrom('a', 'b', 'c', 'd') }),
  fc.record({ node: fc.constantFrom<0 | 1>(0, 1), kind: fc.constant<'resources'>('resources'), n: fc.integer({ min: 0, max: 2 }) }),
);

test('after any concurrent writes through two nodes, every mirror equals etcd and revisions count the commits', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
      const prefix = `/prop${++n}/`;
      const stores = await Promise.all([open(prefix), open(prefix)]);
      const seen: StoreChange[][] = [[], []];
      stores.forEach((s, i) => {
        s.watch((c) => seen[i]!.push(c));
      });
      try {
        const results = await Promise.all(
          ops.map(async (o) => {
            const s = stores[o.node]!;
            try {
              if (o.kind === 'put')
                return (await s.putProfile(profile(o.name, { dnsConfig: { relativeName: o.name, ttl: o.ttl * 10 } }), { stack: 's' }))
                  .changed;
              if (o.kind === 'delete') {
                await s.deleteProfile(o.name);
                return true;
              }
              await s.putResources(
                Object.fromEntries(
                  Array.from({ length: o.n }, (_, i) => [
                    `/subscriptions/x/resourceGroups/g/providers/Microsoft.Web/sites/s${i}`,
                    { target: `s${i}.example.net`, state: 'running' as const },
                  ]),
                ),
              );
              return true;
            } catch (err) {
              if ((err as { code?: string }).code === 'NOT_FOUND') return false;
              throw err;
            }
          }),
        );
        const commits = results.filter(Boolean).length;
        const fresh = await open(prefix);
        try {
          const want = { revision: await fresh.revision(), profiles: await fresh.getProfiles(), resources: await fresh.getResources() };
          expect(want.revision).toBe(commits);
          for (const [i, s] of stores.entries()) {
            for (let k = 0; k < 200 && (await s.revision()) < commits; k++) await new Promise((r) => setTimeout(r, 10));
            expect({ revision: await s.revision(), profiles: await s.getProfiles(), resources: await s.getResources() }).toEqual(want);
            // Watchers: every committed change once, in order.
            const revs = seen[i]!.map((c) => c.revision);
            expect(revs).toEqual([...revs].sort((x, y) => x - y));
            expect(new Set(revs).size).toBe(revs.length);
            expect(revs.length).toBe(commits);
          }
        } finally {
          await fresh.close();
        }
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    }),
    { numRuns: 25 },
  );
});
