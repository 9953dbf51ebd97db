/**
 * The resource-level writes the providers make (src/client/resources.ts), against a real API server over a
 * real SQLite store: stack ownership, preconditions, and the conflict messages (what changed, what to do).
 */
import { TmkitClient } from '../../src/client';
import { ResourceError, createEndpoint, createProfile, deleteEndpoint, deleteProfile, readEndpoint, readProfile, updateEndpoint, updateProfile } from '../../src/client/resources-pulumi';
import type { ProfileInput } from '../../src/core/model/types';
import { profileInput } from '../runtime/api/fixtures';
import { startApi, TOKEN, type Harness } from '../runtime/api/harness';

let h: Harness;
let client: TmkitClient;
beforeEach(async () => {
  h = await startApi();
  client = new TmkitClient({ server: h.base, token: TOKEN, env: {} });
});
afterEach(async () => { await client.close(); await h.close(); });

const o = { stack: 'pulumi', refreshHint: 'run `pulumi refresh`, then `pulumi up`' };
const weighted = (name: string, over: Partial<ProfileInput> = {}): ProfileInput => profileInput(name, { trafficRoutingMethod: 'Weighted', ...over });

async function rejection(p: Promise<unknown>): Promise<ResourceError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ResourceError);
  return err as ResourceError;
}

describe('profiles that own their endpoints', () => {
  test('create with If-None-Match: an existing profile is never overwritten, another stack\'s is named', async () => {
    const created = await createProfile(client, weighted('web'), { ...o, ownsEndpoints: true });
    expect(created).toMatchObject({ name: 'web', stack: 'pulumi' });
    expect(created.profile.endpoints.map((e) => e.name)).toEqual(['primary', 'secondary']);
    const again = await rejection(createProfile(client, weighted('web', { dnsConfig: { relativeName: 'other' } }), { ...o, ownsEndpoints: true }));
    expect(again.code).toBe('RESOURCE_EXISTS');
    expect(again.message).toBe("profile 'web' (tmkit stack 'pulumi') already exists, so it was not created: import it into this program (its id, or its name), or choose another profileName");
    expect((await readProfile(client, 'web'))!.etag).toBe(created.etag);

    await client.putProfile(profileInput('theirs'), { stack: 'default' });
    const theirs = await client.getProfile('theirs');
    const other = await rejection(createProfile(client, weighted('theirs'), { ...o, ownsEndpoints: true }));
    expect(other.code).toBe('RESOURCE_NOT_OWNED');
    expect(other.message).toContain("profile 'theirs' belongs to tmkit stack 'default', not to this provider's stack 'pulumi', so it is never written");
    expect(await client.getProfile('theirs')).toEqual(theirs);
  });

  test('update is a PUT If-Match the prior ETag; a change by someone else is refused, naming it', async () => {
    const created = await createProfile(client, weighted('web'), { ...o, ownsEndpoints: true });
    const updated = await updateProfile(client, weighted('web', { dnsConfig: { relativeName: 'web', ttl: 60 } }), { ...o, ownsEndpoints: true, prior: created });
    expect(updated.profile.dnsConfig.ttl).toBe(60);
    expect(updated.etag).not.toBe(created.etag);

    // Someone disables an endpoint with the tmkit CLI (PATCH …/endpoints/primary).
    await client.patchEndpoint('web', 'primary', { endpointStatus: 'Disabled' });
    const before = await client.getProfile('web');
    const err = await rejection(updateProfile(client, weighted('web', { dnsConfig: { relativeName: 'web', ttl: 90 } }), { ...o, ownsEndpoints: true, prior: updated }));
    expect(err.code).toBe('RESOURCE_CHANGED');
    expect(err.message).toBe("profile 'web' was changed by someone else since it was last read (endpoints[primary].endpointStatus \"Enabled\" → \"Disabled\"); nothing was written: run `pulumi refresh`, then `pulumi up`");
    expect(await client.getProfile('web')).toEqual(before);
    // After a refresh (the prior is what is stored now) the update goes through.
    const refreshed = await updateProfile(client, weighted('web', { dnsConfig: { relativeName: 'web', ttl: 90 } }), { ...o, ownsEndpoints: true, prior: before });
    expect(refreshed.profile.endpoints[0]!.endpointStatus).toBe('Enabled');
  });

  test('delete is If-Match too; gone is fine; another stack\'s profile is refused', async () => {
    const created = await createProfile(client, weighted('web'), { ...o, ownsEndpoints: true });
    await client.patchProfile('web', { dnsConfig: { ttl: 5 } });
    expect((await rejection(deleteProfile(client, { ...o, ownsEndpoints: true, prior: created }))).message).toContain('(dnsConfig.ttl 30 → 5)');
    expect(await readProfile(client, 'web')).toBeDefined();
    await deleteProfile(client, { ...o, ownsEndpoints: true, prior: (await readProfile(client, 'web'))! });
    expect(await readProfile(client, 'web')).toBeUndefined();
    await deleteProfile(client, { ...o, ownsEndpoints: true, prior: created }); // already gone

    await client.putProfile(profileInput('theirs'), { stack: 'default' });
    const theirs = (await readProfile(client, 'theirs'))!;
    expect((await rejection(deleteProfile(client, { ...o, ownsEndpoints: true, prior: theirs }))).code).toBe('RESOURCE_NOT_OWNED');
    expect(await readProfile(client, 'theirs')).toEqual(theirs);
  });
});

describe('profiles that own only their settings', () => {
  test('create writes no endpoints; endpoint writes by others never conflict with a settings update, settings changes do', async () => {
    const created = await createProfile(client, weighted('web'), { ...o, ownsEndpoints: false });
    expect(created.profile.endpoints).toEqual([]);
    await createEndpoint(client, 'web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }, o);
    const updated = await updateProfile(client, weighted('web', { dnsConfig: { relativeName: 'web', ttl: 60 }, tags: { team: 'dns' } }), { ...o, ownsEndpoints: false, prior: created });
    expect(updated.profile).toMatchObject({ dnsConfig: { ttl: 60 }, tags: { team: 'dns' } });
    expect(updated.profile.endpoints.map((e) => e.name)).toEqual(['a']);
    // Removing tags and the path: the merge patch nulls them.
    const removed = await updateProfile(client, weighted('web', { dnsConfig: { relativeName: 'web', ttl: 60 }, monitorConfig: { protocol: 'TCP', port: 443 } }), { ...o, ownsEndpoints: false, prior: updated });
    expect(removed.profile.tags).toBeUndefined();
    expect(removed.profile.monitorConfig).toEqual({ protocol: 'TCP', port: 443, intervalInSeconds: 30, timeoutInSeconds: 10, toleratedNumberOfFailures: 3, customHeaders: [], expectedStatusCodeRanges: [] });
    // Nothing to change: no write at all.
    const same = await updateProfile(client, weighted('web', { dnsConfig: { relativeName: 'web', ttl: 60 }, monitorConfig: { protocol: 'TCP', port: 443 } }), { ...o, ownsEndpoints: false, prior: removed });
    expect(same.etag).toBe(removed.etag);

    await client.patchProfile('web', { profileStatus: 'Disabled' });
    const err = await rejection(updateProfile(client, weighted('web', { dnsConfig: { relativeName: 'web', ttl: 5 } }), { ...o, ownsEndpoints: false, prior: removed }));
    expect(err.message).toBe("the settings of profile 'web' were changed by someone else since it was last read (profileStatus \"Enabled\" → \"Disabled\"); nothing was written: run `pulumi refresh`, then `pulumi up`");
  });

  test('a settings update while endpoint resources write the same profile concurrently: every write lands', async () => {
    const created = await createProfile(client, weighted('web'), { ...o, ownsEndpoints: false });
    const writes = Array.from({ length: 12 }, (_, i) => createEndpoint(client, 'web', { name: `e${i}`, type: 'externalEndpoints', target: `192.0.2.${i + 1}`, weight: i + 1 }, o));
    const settings = updateProfile(client, weighted('web', { dnsConfig: { relativeName: 'web', ttl: 77 } }), { ...o, ownsEndpoints: false, prior: created });
    await Promise.all([...writes, settings]);
    const stored = (await readProfile(client, 'web'))!.profile;
    expect(stored.dnsConfig.ttl).toBe(77);
    expect(stored.endpoints.map((e) => e.name).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `e${i}`).sort());
  });

  test('an endpoint write between the settings read and the patch (the ETag moved) makes the patch compare and go again', async () => {
    const created = await createProfile(client, weighted('web'), { ...o, ownsEndpoints: false });
    // A client whose first profile read is followed at once by another writer's endpoint PUT.
    let reads = 0;
    const racing = new (class extends TmkitClient {
      override async findProfile(name: string) {
        const r = await super.findProfile(name);
        if (++reads === 1) await createEndpoint(client, 'web', { name: 'late', type: 'externalEndpoints', target: '192.0.2.7' }, o);
        return r;
      }
    })({ server: h.base, token: TOKEN, env: {} });
    try {
      const updated = await updateProfile(racing, weighted('web', { dnsConfig: { relativeName: 'web', ttl: 61 } }), { ...o, ownsEndpoints: false, prior: created });
      expect(reads).toBe(2);
      expect(updated.profile.dnsConfig.ttl).toBe(61);
      expect(updated.profile.endpoints.map((e) => e.name)).toEqual(['late']);
    } finally {
      await racing.close();
    }
  });

  test('adopting the endpoints (the resource declares them from now on): the settings are compared, then the whole profile is PUT', async () => {
    const created = await createProfile(client, weighted('web'), { ...o, ownsEndpoints: false });
    await createEndpoint(client, 'web', { name: 'stray', type: 'externalEndpoints', target: '192.0.2.8' }, o);
    const adopted = await updateProfile(client, weighted('web'), { ...o, ownsEndpoints: true, adoptEndpoints: true, prior: created });
    expect(adopted.profile.endpoints.map((e) => e.name)).toEqual(['primary', 'secondary']);
    await client.patchProfile('web', { dnsConfig: { ttl: 9 } });
    const err = await rejection(updateProfile(client, weighted('web'), { ...o, ownsEndpoints: true, adoptEndpoints: true, prior: adopted }));
    expect(err.message).toContain("the settings of profile 'web' were changed by someone else since it was last read (dnsConfig.ttl 30 → 9)");
  });

  test('delete waits for its endpoints to be gone (they belong to other resources), then deletes', async () => {
    const created = await createProfile(client, weighted('web'), { ...o, ownsEndpoints: false });
    const a = await createEndpoint(client, 'web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }, o);
    const err = await rejection(deleteProfile(client, { ...o, ownsEndpoints: false, prior: created }));
    expect(err.code).toBe('RESOURCE_HAS_ENDPOINTS');
    expect(err.message).toContain("profile 'web' still has endpoint(s) 'a', which this profile resource does not manage");
    await deleteEndpoint(client, 'web', { ...o, prior: a });
    await deleteProfile(client, { ...o, ownsEndpoints: false, prior: created });
    expect(await readProfile(client, 'web')).toBeUndefined();
  });
});

describe('endpoints', () => {
  test('create If-None-Match; update and delete If-Match their own ETag, untouched by sibling writes', async () => {
    await createProfile(client, weighted('web'), { ...o, ownsEndpoints: false });
    const a = await createEndpoint(client, 'web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', weight: 2 }, o);
    expect(a).toMatchObject({ profile: 'web', stack: 'pulumi', endpoint: { name: 'a', weight: 2, priority: 1 } });
    expect((await rejection(createEndpoint(client, 'web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.9' }, o))).message)
      .toBe("endpoint 'a' of profile 'web' already exists, so it was not created: import it into this program (its id), or choose another endpointName");
    await createEndpoint(client, 'web', { name: 'b', type: 'externalEndpoints', target: '192.0.2.2' }, o);
    // b's write moved the profile ETag, not a's.
    const a2 = await updateEndpoint(client, 'web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', weight: 3 }, { ...o, prior: a });
    expect(a2.endpoint.weight).toBe(3);

    await client.patchEndpoint('web', 'a', { weight: 50 });
    const err = await rejection(updateEndpoint(client, 'web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', weight: 4 }, { ...o, prior: a2 }));
    expect(err.code).toBe('RESOURCE_CHANGED');
    expect(err.message).toContain("endpoint 'web/a' was changed by someone else since it was last read (weight 3 → 50)");
    expect((await readEndpoint(client, 'web', 'a'))!.endpoint.weight).toBe(50);
    expect((await rejection(deleteEndpoint(client, 'web', { ...o, prior: a2 }))).code).toBe('RESOURCE_CHANGED');

    const now = (await readEndpoint(client, 'web', 'a'))!;
    await deleteEndpoint(client, 'web', { ...o, prior: now });
    expect(await readEndpoint(client, 'web', 'a')).toBeUndefined();
    await deleteEndpoint(client, 'web', { ...o, prior: now }); // gone is fine
    await deleteEndpoint(client, 'nope', { ...o, prior: now }); // so is a gone profile
  });

  test('an endpoint of a missing profile, or of another stack\'s profile, is refused clearly', async () => {
    const missing = await rejection(createEndpoint(client, 'nope', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }, o));
    expect(missing.code).toBe('RESOURCE_PROFILE_MISSING');
    expect(missing.message).toContain("profile 'nope' does not exist, so its endpoint cannot be written: create the profile first");
    await client.putProfile(weighted('theirs'), { stack: 'default' });
    const before = await client.getProfile('theirs');
    const other = await rejection(createEndpoint(client, 'theirs', { name: 'x', type: 'externalEndpoints', target: '192.0.2.1' }, o));
    expect(other.code).toBe('RESOURCE_NOT_OWNED');
    expect(await client.getProfile('theirs')).toEqual(before);
  });

  test('a write the server refuses keeps every diagnostic with its path', async () => {
    await createProfile(client, profileInput('prio', { endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', priority: 1 }] }), { ...o, ownsEndpoints: true });
    const err = await createEndpoint(client, 'prio', { name: 'b', type: 'externalEndpoints', target: '192.0.2.2', priority: 1 }, o).then(() => new Error('no error'), (e: unknown) => e as Error);
    expect((err as { status?: number }).status).toBe(400);
    expect(err.message).toContain('priority 1 is also used by endpoint');
    expect(err.message).toContain('profiles[prio].endpoints[b].priority');
  });
});
