/**
 * The endpoint-level API (docs/ARCHITECTURE.md, "Providers"): GET|PUT|DELETE /v1/profiles/{name}/endpoints/{endpoint} with
 * per-endpoint ETags and preconditions, and PATCH /v1/profiles/{name} (a merge patch of the settings that
 * never touches endpoints). Every write is validated whole, like PUT of the profile.
 */
import fc from 'fast-check';
import { TmkitApiError, TmkitClient } from '../../../src/client';
import { profileInput } from './fixtures';
import { call, startApi, TOKEN, type Harness } from './harness';

let h: Harness;
let client: TmkitClient;
beforeEach(async () => {
  h = await startApi();
  client = new TmkitClient({ server: h.base, token: TOKEN, env: {} });
  await client.putProfile(
    profileInput('web', {
      endpoints: [
        { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' },
        { name: 'b', type: 'externalEndpoints', target: '192.0.2.2' },
      ],
    }),
    { stack: 'team' },
  );
});
afterEach(async () => {
  await client.close();
  await h.close();
});

test('GET an endpoint: the normalized endpoint with its own ETag, the stack and the profile ETag; 404 names the ones there are', async () => {
  const e = await client.getEndpoint('WEB', 'a');
  expect(e.endpoint).toMatchObject({ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', priority: 1, endpointStatus: 'Enabled' });
  expect(e.etag).toMatch(/^"[0-9a-f]{16}"$/);
  expect(e.stack).toBe('team');
  expect(e.profileEtag).toBe((await client.getProfile('web')).etag);
  const missing = await call(h.base, 'GET', '/v1/profiles/web/endpoints/zz');
  expect(missing.status).toBe(404);
  expect(missing.body.errors[0]).toMatchObject({
    code: 'NOT_FOUND',
    path: 'profiles[web].endpoints[zz]',
    message: expect.stringContaining("it has 'a', 'b'"),
  });
});

test('PUT an endpoint creates (201, next free priority) and replaces (200); the other endpoint and its ETag are untouched', async () => {
  const bEtag = (await client.getEndpoint('web', 'b')).etag;
  const created = await client.putEndpoint('web', { name: 'c', type: 'externalEndpoints', target: '192.0.2.3' }, { stack: 'team' });
  expect(created).toMatchObject({ profile: 'web', stack: 'team', created: true, changed: true, endpoint: { name: 'c', priority: 3 } });
  const r = await call(h.base, 'PUT', '/v1/profiles/web/endpoints/a', {
    body: { type: 'externalEndpoints', target: '192.0.2.9', priority: 1 },
  });
  expect(r.status).toBe(200);
  expect(r.headers.etag).toBe(r.body.etag);
  expect(r.body).toMatchObject({ created: false, changed: true, endpoint: { name: 'a', target: '192.0.2.9' } });
  expect((await client.getEndpoint('web', 'b')).etag).toBe(bEtag);
  expect((await client.getProfile('web')).profile.endpoints.map((e) => [e.name, e.target])).toEqual([
    ['a', '192.0.2.9'],
    ['b', '192.0.2.2'],
    ['c', '192.0.2.3'],
  ]);
  // The same PUT again: nothing written, same ETags.
  const again = await call(h.base, 'PUT', '/v1/profiles/web/endpoints/a', {
    body: { type: 'externalEndpoints', target: '192.0.2.9', priority: 1 },
  });
  expect(again.body).toMatchObject({ changed: false, etag: r.body.etag, profileEtag: r.body.profileEtag, revision: r.body.revision });
});

test("endpoint preconditions: If-None-Match: * creates only, If-Match must be the endpoint's current ETag", async () => {
  const a = await client.getEndpoint('web', 'a');
  await expect(
    client.putEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.5' }, { ifNoneMatch: '*' }),
  ).rejects.toMatchObject({ status: 412, code: 'PRECONDITION_FAILED' });
  await expect(
    client.putEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.5' }, { ifMatch: '"0000000000000000"' }),
  ).rejects.toMatchObject({ status: 412 });
  // A change of another endpoint does not invalidate this endpoint's ETag.
  await client.patchEndpoint('web', 'b', { weight: 5 });
  const ok = await client.putEndpoint(
    'web',
    { name: 'a', type: 'externalEndpoints', target: '192.0.2.5', priority: 1 },
    { ifMatch: a.etag },
  );
  expect(ok.endpoint.target).toBe('192.0.2.5');
  await expect(client.deleteEndpoint('web', 'a', { ifMatch: a.etag })).rejects.toMatchObject({ status: 412 });
  const d = await client.deleteEndpoint('web', 'a', { ifMatch: ok.etag });
  expect(d).toMatchObject({ profile: 'web', endpoint: 'a', deleted: true });
  expect((await client.getProfile('web')).profile.endpoints.map((e) => e.name)).toEqual(['b']);
  await expect(client.deleteEndpoint('web', 'a')).rejects.toMatchObject({ status: 404 });
});

test('two writers racing on one endpoint with the same ETag: exactly one wins, the other gets 412 (property over many races)', async () => {
  let next = 100;
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 2, max: 6 }), fc.boolean(), async (writers, deletes) => {
      const before = await client.getEndpoint('web', 'b');
      const base = next;
      next += writers; // every writer writes a value the endpoint never had: no write is a no-op
      const attempts = Array.from({ length: writers }, (_, i) =>
        deletes && i === 0
          ? client.deleteEndpoint('web', 'b', { ifMatch: before.etag }).then(() => 'deleted')
          : client
              .putEndpoint(
                'web',
                { name: 'b', type: 'externalEndpoints', target: `198.51.100.${base + i}`, priority: 2 },
                { ifMatch: before.etag },
              )
              .then((r) => r.endpoint.target!),
      );
      const results = await Promise.allSettled(attempts);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      for (const l of lost) expect(l.reason).toMatchObject({ status: 412, code: 'PRECONDITION_FAILED' });
      const winner = (won[0] as PromiseFulfilledResult<string>).value;
      const now = (await client.getProfile('web')).profile.endpoints.find((e) => e.name === 'b');
      if (winner === 'deleted') {
        expect(now).toBeUndefined();
        await client.putEndpoint('web', { name: 'b', type: 'externalEndpoints', target: '192.0.2.2', priority: 2 });
      } else {
        expect(now?.target).toBe(winner);
      }
    }),
    { numRuns: 25 },
  );
  expect(next).toBeLessThan(255);
});

test('each endpoint write is validated whole: 400 names the conflicting endpoint, nothing is stored', async () => {
  const rev = await h.store.revision();
  const err = await client
    .putEndpoint('web', { name: 'c', type: 'externalEndpoints', target: '192.0.2.3', priority: 1 })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TmkitApiError);
  expect((err as TmkitApiError).errors[0]).toMatchObject({
    code: 'PRIORITY_DUPLICATE',
    path: 'profiles[web].endpoints[c].priority',
    message: expect.stringContaining('endpoint "a"'),
  });
  expect(await h.store.revision()).toBe(rev);
  // An endpoint whose name differs from the URL's is refused; one whose name differs only in case from a stored one too.
  expect(
    (await call(h.base, 'PUT', '/v1/profiles/web/endpoints/x', { body: { name: 'y', type: 'externalEndpoints', target: '192.0.2.7' } }))
      .body.errors[0].code,
  ).toBe('NAME_MISMATCH');
  expect(
    (await call(h.base, 'PUT', '/v1/profiles/web/endpoints/A', { body: { type: 'externalEndpoints', target: '192.0.2.7' } })).status,
  ).toBe(409);
});

test("endpoint writes check the stack: another stack's profile is 409 STACK_CONFLICT", async () => {
  await expect(
    client.putEndpoint('web', { name: 'c', type: 'externalEndpoints', target: '192.0.2.3' }, { stack: 'other' }),
  ).rejects.toMatchObject({ status: 409, code: 'STACK_CONFLICT' });
  await expect(client.deleteEndpoint('web', 'a', { stack: 'other' })).rejects.toMatchObject({ status: 409, code: 'STACK_CONFLICT' });
  await expect(client.patchProfile('web', { dnsConfig: { ttl: 60 } }, { stack: 'other' })).rejects.toMatchObject({
    status: 409,
    code: 'STACK_CONFLICT',
  });
});

test('PATCH a profile merges settings and never touches endpoints; endpoints in the patch and renames are refused', async () => {
  const before = await client.getProfile('web');
  const r = await client.patchProfile(
    'web',
    { dnsConfig: { ttl: 60 }, monitorConfig: { path: '/health' }, tags: { team: 'web' } },
    { ifMatch: before.etag },
  );
  expect(r.profile.dnsConfig).toEqual({ relativeName: 'web', ttl: 60 });
  expect(r.profile.monitorConfig.path).toBe('/health');
  expect(r.profile.tags).toEqual({ team: 'web' });
  expect(r.profile.endpoints).toEqual(before.profile.endpoints);
  await expect(client.patchProfile('web', { dnsConfig: { ttl: 30 } }, { ifMatch: before.etag })).rejects.toMatchObject({ status: 412 });
  await expect(client.patchProfile('web', { endpoints: [] })).rejects.toMatchObject({ status: 400, code: 'BAD_REQUEST' });
  await expect(client.patchProfile('web', { name: 'x' })).rejects.toMatchObject({ status: 400, code: 'NAME_MISMATCH' });
  // Validated whole: a TTL out of range is the validator's 400 with the path.
  const bad = await client.patchProfile('web', { dnsConfig: { ttl: -1 } }).catch((e: TmkitApiError) => e);
  expect(bad).toMatchObject({ status: 400, errors: [expect.objectContaining({ code: 'TTL_RANGE', path: 'profiles[web].dnsConfig.ttl' })] });
  // `null` removes (merge patch): the tags go.
  expect((await client.patchProfile('web', { tags: null })).profile.tags).toBeUndefined();
});

test('a profile may have zero endpoints (Azure allows it): deleting the last endpoint is accepted', async () => {
  await client.deleteEndpoint('web', 'a');
  await client.deleteEndpoint('web', 'b');
  expect((await client.getProfile('web')).profile.endpoints).toEqual([]);
});

test("ten writers of ten endpoints of one profile at once, each with its endpoint's If-Match (Terraform's parallelism): all land", async () => {
  const names = Array.from({ length: 10 }, (_, i) => `e${i}`);
  await client.putProfile(
    profileInput('many', { endpoints: names.map((n, i) => ({ name: n, type: 'externalEndpoints', target: `192.0.2.${i + 1}` })) }),
    { stack: 'team' },
  );
  const etags = await Promise.all(names.map(async (n) => (await client.getEndpoint('many', n)).etag));
  // Each write is an edit the store applies to the profile as the writes before it left it (Store.editProfile):
  // every endpoint's If-Match still holds there, so none is refused, and writes of one turn commit together.
  const deletes = names.slice(0, 5).map((n, i) => client.deleteEndpoint('many', n, { stack: 'team', ifMatch: etags[i]! }));
  const puts = names
    .slice(5)
    .map((n, i) =>
      client.putEndpoint(
        'many',
        { name: n, type: 'externalEndpoints', target: `198.51.100.${i + 1}` },
        { stack: 'team', ifMatch: etags[i + 5]! },
      ),
    );
  await Promise.all([...deletes, ...puts]);
  const p = await client.getProfile('many');
  expect(p.profile.endpoints.map((e) => `${e.name} ${e.target}`)).toEqual(names.slice(5).map((n, i) => `${n} 198.51.100.${i + 1}`));
});
