import { StoreError, type Store, type StoreChange } from '../../src/core/store';
import { withEndpoint } from '../../src/core/model/edit';
import { parentInput, profile, profileInput } from '../runtime/api/fixtures';

async function rejectsWith(p: Promise<unknown>, code: string): Promise<StoreError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StoreError);
  expect((err as StoreError).code).toBe(code);
  return err as StoreError;
}

/**
 * The Store contract (core/store/types.ts), run by every implementation: memory and SQLite here, etcd in
 * its own suite. `make` returns a fresh, empty store for each test; `has.editProfile: false` for a store
 * without the optional Store.editProfile (its cases are then skipped, by name).
 */
export function describeStoreConformance(kind: string, make: () => Store | Promise<Store>, has: { editProfile?: boolean } = {}): void {
  describe(`${kind} store: the Store contract`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await store.close();
    });

    test('put then get returns the profile, its stack and ETag; revision grows by one per write', async () => {
      expect(await store.revision()).toBe(0);
      const r = await store.putProfile(profile('a'), { stack: 's1' });
      expect(r).toMatchObject({ created: true, changed: true, revision: 1 });
      expect(r.etag).toMatch(/^"1-[0-9a-f]{16}"$/);
      const got = await store.getProfile('a');
      expect(got).toEqual({ profile: profile('a'), stack: 's1', etag: r.etag, modRevision: 1 });
      await store.putProfile(profile('b'), { stack: 's1' });
      expect(await store.revision()).toBe(2);
      expect((await store.getProfiles()).map((p) => p.profile.name)).toEqual(['a', 'b']);
    });

    test('an identical PUT is a no-op: same ETag, no new revision, no change event', async () => {
      const events: StoreChange[] = [];
      store.watch((c) => events.push(c));
      const first = await store.putProfile(profile('a'), { stack: 's' });
      const again = await store.putProfile(profile('a'), { stack: 's' });
      expect(again).toMatchObject({ etag: first.etag, changed: false, created: false });
      expect(await store.revision()).toBe(1);
      expect(events).toHaveLength(1);
    });

    test('a content change gives a new ETag', async () => {
      const a = await store.putProfile(profile('a'), { stack: 's' });
      const b = await store.putProfile(profile('a', { dnsConfig: { relativeName: 'a', ttl: 60 } }), { stack: 's' });
      expect(b.etag).not.toBe(a.etag);
      expect((await store.getProfile('a'))!.profile.dnsConfig.ttl).toBe(60);
    });

    test('If-Match: the current ETag wins, a stale one is refused', async () => {
      const a = await store.putProfile(profile('a'), { stack: 's' });
      const b = await store.putProfile(profile('a', { dnsConfig: { relativeName: 'a', ttl: 60 } }), { stack: 's', ifMatch: a.etag });
      await rejectsWith(
        store.putProfile(profile('a', { dnsConfig: { relativeName: 'a', ttl: 90 } }), { stack: 's', ifMatch: a.etag }),
        'PRECONDITION_FAILED',
      );
      expect((await store.getProfile('a'))!.etag).toBe(b.etag);
      await rejectsWith(store.putProfile(profile('x'), { stack: 's', ifMatch: '*' }), 'PRECONDITION_FAILED');
    });

    test('If-None-Match: * creates only', async () => {
      await store.putProfile(profile('a'), { stack: 's', ifNoneMatch: '*' });
      await rejectsWith(store.putProfile(profile('a'), { stack: 's', ifNoneMatch: '*' }), 'PRECONDITION_FAILED');
    });

    test('a profile owned by another stack is neither overwritten nor deleted', async () => {
      await store.putProfile(profile('a'), { stack: 'team-a' });
      const err = await rejectsWith(
        store.putProfile(profile('a', { dnsConfig: { relativeName: 'a', ttl: 5 } }), { stack: 'team-b' }),
        'STACK_CONFLICT',
      );
      expect(err.message).toContain("owned by stack 'team-a'");
      await rejectsWith(store.deleteProfile('a', { stack: 'team-b' }), 'STACK_CONFLICT');
      expect((await store.getProfile('a'))!.stack).toBe('team-a');
    });

    test('the store admits only valid profiles (core/store/admission.ts): every diagnostic, nothing written', async () => {
      await store.putProfile(profile('a'), { stack: 's' });
      const bad = profileInput('b', {
        dnsConfig: { relativeName: 'b', ttl: -1 },
        endpoints: [{ name: 'x', type: 'externalEndpoints', target: '192.0.2.1', priority: 5000 }],
      });
      const err = await rejectsWith(store.putProfile(bad, { stack: 's' }), 'PROFILE_INVALID');
      expect(err.diagnostics.map((d) => d.path)).toEqual(
        expect.arrayContaining(['profiles[b].dnsConfig.ttl', 'profiles[b].endpoints[x].priority']),
      );
      expect(err.diagnostics.every((d, i, all) => d.severity === 'error' || all.slice(i).every((x) => x.severity !== 'error'))).toBe(true);
      // Judged against the other stored profiles: a relativeName another profile answers at is refused too.
      await rejectsWith(
        store.putProfile(profileInput('c', { dnsConfig: { relativeName: 'a', ttl: 30 } }), { stack: 's' }),
        'PROFILE_INVALID',
      );
      expect(await store.getProfile('b')).toBeUndefined();
      expect(await store.revision()).toBe(1);
    });

    test("the store normalizes what it admits and hands back the rules' warnings", async () => {
      const r = await store.putProfile(
        profileInput('w', { endpoints: [{ name: 'x', type: 'externalEndpoints', target: '192.0.2.1', weight: 7 }] }),
        { stack: 's' },
      );
      expect(r.profile).toEqual(profile('w', { endpoints: [{ name: 'x', type: 'externalEndpoints', target: '192.0.2.1', weight: 7 }] }));
      expect(r.warnings.map((d) => d.code)).toContain('WEIGHT_IGNORED');
      expect((await store.getProfile('w'))!.profile).toEqual(r.profile);
    });

    test('names are case-insensitive: a profile differing only in case is a conflict', async () => {
      await store.putProfile(profile('web'), { stack: 's' });
      const err = await rejectsWith(
        store.putProfile(profileInput('WEB', { dnsConfig: { relativeName: 'web2', ttl: 30 } }), { stack: 's' }),
        'PROFILE_NAME_CONFLICT',
      );
      expect(err.diagnostics[0]).toMatchObject({ code: 'PROFILE_NAME_CONFLICT', path: 'profiles[WEB].name' });
    });

    test('a nested endpoint needs its child, and a child still nested cannot be deleted', async () => {
      await rejectsWith(store.putProfile(parentInput('parent', 'child'), { stack: 's' }), 'PROFILE_INVALID');
      await store.putProfile(profile('child'), { stack: 's' });
      await store.putProfile(parentInput('parent', 'child'), { stack: 's' });
      const err = await rejectsWith(store.deleteProfile('child'), 'PROFILE_REFERENCED');
      expect(err.diagnostics[0]!.message).toContain("'parent/nested'");
      await store.deleteProfile('parent');
      await store.deleteProfile('child');
      expect(await store.getProfiles()).toEqual([]);
    });

    test('delete: not-found, If-Match, then gone; watchers see every change in order', async () => {
      const events: StoreChange[] = [];
      const stop = store.watch((c) => events.push(c));
      await rejectsWith(store.deleteProfile('a'), 'NOT_FOUND');
      const a = await store.putProfile(profile('a'), { stack: 's' });
      await rejectsWith(store.deleteProfile('a', { ifMatch: '"0-0000000000000000"' }), 'PRECONDITION_FAILED');
      await store.deleteProfile('a', { ifMatch: a.etag });
      expect(await store.getProfile('a')).toBeUndefined();
      await store.putResources({
        '/subscriptions/x/resourceGroups/rg/providers/Microsoft.Web/sites/app': { target: 'app.example.net', state: 'running' },
      });
      stop();
      await store.putProfile(profile('b'), { stack: 's' });
      expect(events.map(({ stored: _stored, ...c }) => c)).toEqual([
        { revision: 1, kind: 'profile', op: 'put', name: 'a' },
        { revision: 2, kind: 'profile', op: 'delete', name: 'a' },
        { revision: 3, kind: 'resources', op: 'replace' },
      ]);
      // A put's event may carry the profile as stored (the pipeline then need not read it back): exactly it.
      if (events[0]!.stored) expect(events[0]!.stored).toEqual({ profile: profile('a'), stack: 's', etag: a.etag, modRevision: 1 });
    });

    test('resource catalog and monitor state round-trip', async () => {
      const catalog = {
        '/subscriptions/x/providers/Microsoft.Web/sites/App': {
          target: 'app.example.net',
          location: 'westeurope',
          state: 'stopped' as const,
        },
      };
      await store.putResources(catalog);
      expect(await store.getResources()).toEqual(catalog);
      expect(await store.loadMonitorState()).toBeUndefined();
      await store.saveMonitorState({ endpoints: { 'a/primary': { verdict: 'Online' }, 'a/backup': { verdict: 'Degraded' } } });
      expect(await store.loadMonitorState()).toEqual({
        endpoints: { 'a/primary': { verdict: 'Online' }, 'a/backup': { verdict: 'Degraded' } },
      });
    });

    test('monitor state saves apply per endpoint, in call order: a record replaced, one dropped, the meta replaced only when given', async () => {
      const saves = [
        store.saveMonitorState({ endpoints: { 'a/1': { v: 1 }, 'a/2': { v: 1 }, 'b/1': { v: 1 } }, meta: { m: 1 } }),
        store.saveMonitorState({ endpoints: { 'a/1': { v: 2 }, 'a/2': null } }),
        store.saveMonitorState({ endpoints: { 'a/2': null, 'c/1': { v: 3 } }, meta: { m: 2 } }),
        store.saveMonitorState({ endpoints: { 'b/1': { v: 4 } } }),
      ];
      await Promise.all(saves);
      expect(await store.loadMonitorState()).toEqual({ endpoints: { 'a/1': { v: 2 }, 'b/1': { v: 4 }, 'c/1': { v: 3 } }, meta: { m: 2 } });
      const got = (await store.loadMonitorState())!;
      (got.endpoints['a/1'] as { v: number }).v = 99;
      expect((await store.loadMonitorState())!.endpoints['a/1']).toEqual({ v: 2 });
    });

    test('returned profiles are read-only: mutating one (refused, or on a copy) does not change the store', async () => {
      await store.putProfile(profile('a'), { stack: 's' });
      const got = (await store.getProfile('a'))!;
      try {
        got.profile.endpoints[0]!.weight = 999;
      } catch (err) {
        expect(err).toBeInstanceOf(TypeError);
      }
      expect((await store.getProfile('a'))!.profile.endpoints[0]!.weight).toBe(1);
    });

    test('two conditional writers holding one ETag: exactly one wins, the other gets PRECONDITION_FAILED', async () => {
      const a = await store.putProfile(profile('a'), { stack: 's' });
      const results = await Promise.allSettled(
        [60, 90, 120].map((ttl) =>
          store.putProfile(profile('a', { dnsConfig: { relativeName: 'a', ttl } }), { stack: 's', ifMatch: a.etag }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'PRECONDITION_FAILED' });
      const deletes = await Promise.allSettled(
        [0, 1].map(async () => store.deleteProfile('a', { ifMatch: (await store.getProfile('a'))!.etag })),
      );
      expect(deletes.filter((r) => r.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
      expect(await store.getProfile('a')).toBeUndefined();
    });

    // Store.editProfile is optional (the etcd store has none: the API then reads, edits and retries itself).
    const withEdit = (name: string, fn: () => Promise<void>): void => {
      (has.editProfile === false ? test.skip : test)(name, async () => {
        expect(store.editProfile).toBeInstanceOf(Function);
        await fn();
      });
    };

    withEdit('editProfile: ten edits of one profile at once all land, each applied to what the ones before it left', async () => {
      await store.putProfile(profileInput('w', { trafficRoutingMethod: 'Weighted' }), { stack: 's' });
      const edits = Array.from({ length: 10 }, (_, i) =>
        store.editProfile!('w', (current) => {
          const { input, created } = withEndpoint(current.profile, {
            name: `e${i}`,
            type: 'externalEndpoints',
            target: `198.51.100.${i + 1}`,
          });
          return { input, value: { created, seen: current.profile.endpoints.length } };
        }),
      );
      const results = await Promise.all(edits);
      expect(results.map((r) => r.value.created)).toEqual(Array(10).fill(true));
      // Each saw the profile with every earlier edit in it: none was judged against a stale version.
      expect(results.map((r) => r.value.seen)).toEqual(Array.from({ length: 10 }, (_, i) => 2 + i));
      expect(results.map((r) => r.stack)).toEqual(Array(10).fill('s'));
      const stored = (await store.getProfile('w'))!;
      expect(stored.profile.endpoints.map((e) => e.name)).toEqual([
        'primary',
        'secondary',
        ...Array.from({ length: 10 }, (_, i) => `e${i}`),
      ]);
      expect(stored.etag).toBe(results[9]!.etag);
      expect(await store.revision()).toBe(11);
    });

    withEdit(
      "editProfile: a refusal (the edit's own, or the rules') refuses that edit alone, and a refused one leaves nothing",
      async () => {
        await store.putProfile(profileInput('w', { trafficRoutingMethod: 'Weighted' }), { stack: 's' });
        const results = await Promise.allSettled([
          store.editProfile!('w', (c) => ({
            input: withEndpoint(c.profile, { name: 'ok1', type: 'externalEndpoints', target: '198.51.100.1' }).input,
            value: 1,
          })),
          store.editProfile!('w', () => {
            throw new StoreError('PRECONDITION_FAILED', 'endpoint changed');
          }),
          store.editProfile!('w', (c) => ({
            input: withEndpoint(c.profile, { name: 'bad', type: 'externalEndpoints', target: '198.51.100.2', weight: 5000 }).input,
            value: 2,
          })),
          store.editProfile!('w', (c) => ({
            input: withEndpoint(c.profile, { name: 'ok2', type: 'externalEndpoints', target: '198.51.100.3' }).input,
            value: 3,
          })),
        ]);
        expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
        expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'PRECONDITION_FAILED' });
        expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'PROFILE_INVALID' });
        expect((await store.getProfile('w'))!.profile.endpoints.map((e) => e.name)).toEqual(['primary', 'secondary', 'ok1', 'ok2']);
        expect(await store.revision()).toBe(3);
      },
    );

    withEdit('editProfile: not found, another stack, a stale If-Match, and a rename are refused; the stack is kept', async () => {
      const keep = (c: { profile: ReturnType<typeof profile> }) => ({
        input: withEndpoint(c.profile, { name: 'x', type: 'externalEndpoints', target: '198.51.100.9' }).input,
        value: 0,
      });
      await rejectsWith(store.editProfile!('nope', keep), 'NOT_FOUND');
      const a = await store.putProfile(profileInput('a', { trafficRoutingMethod: 'Weighted' }), { stack: 'team' });
      await rejectsWith(store.editProfile!('a', keep, { stack: 'other' }), 'STACK_CONFLICT');
      await rejectsWith(
        store.editProfile!('a', (c) => ({
          input: { ...c.profile, name: 'b', dnsConfig: { ...c.profile.dnsConfig, relativeName: 'b' } },
          value: 0,
        })),
        'PRECONDITION_FAILED',
      );
      const r = await store.editProfile!('a', keep, { ifMatch: a.etag });
      expect(r).toMatchObject({ stack: 'team', changed: true });
      await rejectsWith(store.editProfile!('a', keep, { ifMatch: a.etag }), 'PRECONDITION_FAILED');
      expect((await store.getProfile('a'))!.stack).toBe('team');
      expect(await store.getProfile('b')).toBeUndefined();
    });
  });
}
