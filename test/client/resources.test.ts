/**
 * The resource-level helper (src/client/resources.ts) both providers build on, against a real API server
 * and SQLite store on 127.0.0.1:0: settings and single endpoints with stack ownership, ETag preconditions
 * and the refusals (exists, another stack's, changed by someone else, endpoints left on delete).
 */
import fc from 'fast-check';
import { mergePatch } from '../../src/core/model/edit';
import { ResourceError, StackResources, TmkitApiError, TmkitClient, replacementPatch } from '../../src/client';
import { startApi, TOKEN, type Harness } from '../runtime/api/harness';

let h: Harness;
let client: TmkitClient;
let tf: StackResources;
beforeEach(async () => {
  h = await startApi();
  client = new TmkitClient({ server: h.base, token: TOKEN, env: {} });
  tf = new StackResources(client, 'terraform');
});
afterEach(async () => { await client.close(); await h.close(); });

const settings = { name: 'web', trafficRoutingMethod: 'Weighted' as const, dnsConfig: { relativeName: 'web', ttl: 30 }, monitorConfig: { protocol: 'HTTP' as const, port: 80, path: '/health' } };
const code = (e: unknown): string | undefined => (e as { code?: string }).code;

test('createProfile writes settings with no endpoints under the stack; a second create is RESOURCE_EXISTS, another stack\'s name says whose', async () => {
  const p = await tf.createProfile(settings);
  expect(p).toMatchObject({ stack: 'terraform', endpointNames: [], settings: { name: 'web', dnsConfig: { ttl: 30 }, monitorConfig: { path: '/health', intervalInSeconds: 30 } } });
  expect((await client.getProfile('web')).stack).toBe('terraform');
  const again = await tf.createProfile(settings).catch((e: unknown) => e);
  expect(again).toBeInstanceOf(ResourceError);
  expect(code(again)).toBe('RESOURCE_EXISTS');
  expect((again as Error).message).toMatch(/profile 'web' already exists \(stack 'terraform'\); import it/);
  const other = await new StackResources(client, 'ops').createProfile(settings).catch((e: unknown) => e);
  expect(code(other)).toBe('RESOURCE_EXISTS');
  expect((other as Error).message).toContain("stack 'terraform' owns this one");
});

test('updateProfile patches settings only: the endpoints (another resource\'s) stay, removed settings are removed', async () => {
  await tf.createProfile({ ...settings, tags: { a: '1' } });
  await tf.createEndpoint('web', { name: 'e1', type: 'externalEndpoints', target: '192.0.2.1', weight: 5 });
  const u = await tf.updateProfile('web', { ...settings, dnsConfig: { relativeName: 'web', ttl: 60 }, monitorConfig: { protocol: 'TCP', port: 443 } }, { ...settings, tags: { a: '1' } });
  expect(u.settings.dnsConfig.ttl).toBe(60);
  expect(u.settings.monitorConfig).toMatchObject({ protocol: 'TCP', port: 443 });
  expect(u.settings.monitorConfig.path).toBeUndefined();
  expect(u.settings.tags).toBeUndefined();
  const stored = (await client.getProfile('web')).profile;
  expect(stored.endpoints.map((e) => [e.name, e.weight])).toEqual([['e1', 5]]);
});

test('updateProfile refuses when someone else changed the settings since they were read (RESOURCE_CHANGED, nothing written)', async () => {
  await tf.createProfile(settings);
  await client.patchProfile('web', { dnsConfig: { ttl: 99 } });
  const err = await tf.updateProfile('web', { ...settings, profileStatus: 'Disabled' }, settings).catch((e: unknown) => e);
  expect(code(err)).toBe('RESOURCE_CHANGED');
  expect((err as Error).message).toMatch(/changed by someone else .*refresh/);
  expect((await client.getProfile('web')).profile).toMatchObject({ profileStatus: 'Enabled', dnsConfig: { ttl: 99 } });
});

test('another stack\'s profile is never read as ours nor written (RESOURCE_NOT_OWNED / STACK_CONFLICT)', async () => {
  await client.putProfile({ ...settings, endpoints: [{ name: 'x', type: 'externalEndpoints', target: '192.0.2.7' }] }, { stack: 'ops' });
  const before = await client.getProfile('web');
  for (const op of [
    () => tf.readProfile('web'),
    () => tf.updateProfile('web', { ...settings, profileStatus: 'Disabled' }),
    () => tf.deleteProfile('web'),
    () => tf.readEndpoint('web', 'x'),
    () => tf.createEndpoint('web', { name: 'y', type: 'externalEndpoints', target: '192.0.2.8' }),
    () => tf.updateEndpoint('web', { name: 'x', type: 'externalEndpoints', target: '192.0.2.9' }),
    () => tf.deleteEndpoint('web', 'x'),
  ]) {
    const err = await op().catch((e: unknown) => e);
    expect(code(err)).toBe('RESOURCE_NOT_OWNED');
    expect((err as Error).message).toContain("owned by stack 'ops', not 'terraform'");
  }
  expect((await client.getProfile('web')).etag).toBe(before.etag);
});

test('endpoints: create (next free priority), read, update conditionally on what was seen, delete; a second create is RESOURCE_EXISTS', async () => {
  await tf.createProfile({ ...settings, trafficRoutingMethod: 'Priority' });
  const a = await tf.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' });
  const b = await tf.createEndpoint('web', { name: 'b', type: 'externalEndpoints', target: '192.0.2.2' });
  expect([a.endpoint.priority, b.endpoint.priority]).toEqual([1, 2]);
  expect(code(await tf.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.3' }).catch((e: unknown) => e))).toBe('RESOURCE_EXISTS');
  const read = await tf.readEndpoint('web', 'a');
  expect(read).toMatchObject({ profile: 'web', stack: 'terraform', etag: a.etag, endpoint: { target: '192.0.2.1' } });
  // Without a priority the stored one is kept.
  const u = await tf.updateEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.11' }, { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', priority: 1 });
  expect(u.endpoint).toMatchObject({ target: '192.0.2.11', priority: 1 });
  expect((await tf.readEndpoint('web', 'b'))!.etag).toBe(b.etag); // the other endpoint's ETag is untouched
  await tf.deleteEndpoint('web', 'a', u.endpoint);
  expect(await tf.readEndpoint('web', 'a')).toBeUndefined();
  await tf.deleteEndpoint('web', 'a'); // gone already: fine
  expect(await tf.readEndpoint('nope', 'a')).toBeUndefined();
});

test('updateEndpoint and deleteEndpoint refuse an endpoint changed by someone else (RESOURCE_CHANGED); the server\'s cross-endpoint 400 names both endpoints', async () => {
  await tf.createProfile({ ...settings, trafficRoutingMethod: 'Priority' });
  const a = await tf.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', priority: 1 });
  await tf.createEndpoint('web', { name: 'b', type: 'externalEndpoints', target: '192.0.2.2', priority: 2 });
  await client.patchEndpoint('web', 'a', { weight: 7 });
  for (const op of [() => tf.updateEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.5', priority: 1 }, a.endpoint), () => tf.deleteEndpoint('web', 'a', a.endpoint)]) {
    const err = await op().catch((e: unknown) => e);
    expect(code(err)).toBe('RESOURCE_CHANGED');
  }
  expect((await client.getEndpoint('web', 'a')).endpoint).toMatchObject({ target: '192.0.2.1', weight: 7 });
  const dup = await tf.updateEndpoint('web', { name: 'b', type: 'externalEndpoints', target: '192.0.2.2', priority: 1 }).catch((e: unknown) => e);
  expect(dup).toBeInstanceOf(TmkitApiError);
  expect((dup as TmkitApiError).errors[0]).toMatchObject({ code: 'PRIORITY_DUPLICATE', message: expect.stringContaining('endpoint "a"') });
});

test('deleteProfile refuses while endpoints are left (RESOURCE_HAS_ENDPOINTS), then deletes; gone already is fine', async () => {
  await tf.createProfile(settings);
  await tf.createEndpoint('web', { name: 'e1', type: 'externalEndpoints', target: '192.0.2.1' });
  const err = await tf.deleteProfile('web').catch((e: unknown) => e);
  expect(code(err)).toBe('RESOURCE_HAS_ENDPOINTS');
  expect((err as Error).message).toContain("'e1'");
  await tf.deleteEndpoint('web', 'e1');
  await tf.deleteProfile('web', settings);
  expect(await client.findProfile('web')).toBeUndefined();
  await tf.deleteProfile('web');
});

test('createEndpoint into a missing profile says to create the profile first (RESOURCE_GONE)', async () => {
  const err = await tf.createEndpoint('nope', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }).catch((e: unknown) => e);
  expect(code(err)).toBe('RESOURCE_GONE');
  expect((err as Error).message).toMatch(/create the profile first/);
});

test('replacementPatch(current, desired) merge-patched onto current gives desired (JSON objects without nulls)', () => {
  const json = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.oneof(fc.integer(), fc.string(), fc.array(fc.integer(), { maxLength: 2 }), fc.dictionary(fc.constantFrom('x', 'y'), fc.integer())), { maxKeys: 4 });
  fc.assert(fc.property(json, json, (current, desired) => {
    expect(mergePatch(current, replacementPatch(current, desired))).toEqual(desired);
  }));
});

test('updateProfile keeps and ignores settings the tool does not model (unmanaged)', async () => {
  await tf.createProfile(settings);
  await client.patchProfile('web', { allowedEndpointRecordTypes: ['IPv4Address'] });
  const u = await tf.updateProfile('web', { ...settings, dnsConfig: { relativeName: 'web', ttl: 45 } }, settings, { unmanaged: ['allowedEndpointRecordTypes'] });
  expect(u.settings).toMatchObject({ allowedEndpointRecordTypes: ['IPv4Address'], dnsConfig: { ttl: 45 } });
  expect(code(await tf.updateProfile('web', settings, settings).catch((e: unknown) => e))).toBe('RESOURCE_CHANGED');
});
