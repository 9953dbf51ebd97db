/**
 * The one resource-level layer both providers build on (src/client/resources.ts, StackResources), against a
 * real API server and SQLite store on 127.0.0.1:0: profiles (owning their endpoints, or only their settings)
 * and single endpoints, with stack ownership, ETag or content preconditions, and the refusals with their
 * messages (exists, another stack's, changed or deleted since it was read, endpoints left, profile missing).
 * The first part calls it as the Terraform provider does (no ETags in state: what was seen is compared), the
 * second as the Pulumi provider does (ETags in outputs).
 */
import { ResourceError, StackResources, TmkitApiError, TmkitClient, type PriorProfile, type ProfileSettingsInput } from '../../src/client';
import type { ProfileInput } from '../../src/core/model/types';
import { profileInput } from '../runtime/api/fixtures';
import { startApi, TOKEN, type Harness } from '../runtime/api/harness';

const TF_REFRESH = 'run `terraform refresh` to take the change into the state, then `terraform apply`';
const PU_REFRESH = 'run `pulumi refresh`, then `pulumi up`';

let h: Harness;
let client: TmkitClient;
let tf: StackResources;
let pu: StackResources;
beforeEach(async () => {
  h = await startApi();
  client = new TmkitClient({ server: h.base, token: TOKEN, env: {} });
  tf = new StackResources(client, {
    stack: 'terraform',
    refreshHint: TF_REFRESH,
    strayEndpointsHint: 'or import them to manage them here',
    profileFirstHint: 'reference its id first',
  });
  pu = new StackResources(client, { stack: 'pulumi', refreshHint: PU_REFRESH });
});
afterEach(async () => {
  await client.close();
  await h.close();
});

const code = (e: unknown): string | undefined => (e as { code?: string }).code;
/** What Terraform last saw of a profile: its settings (a tmkit_profile never owns endpoints). */
const seen = (s: ProfileSettingsInput): PriorProfile => ({ profile: { ...s, endpoints: [] } });

describe('as the Terraform provider calls it', () => {
  const settings = {
    name: 'web',
    trafficRoutingMethod: 'Weighted' as const,
    dnsConfig: { relativeName: 'web', ttl: 30 },
    monitorConfig: { protocol: 'HTTP' as const, port: 80, path: '/health' },
  };

  test("createProfile writes settings with no endpoints under the stack; a second create with the same settings adopts it, with others is RESOURCE_EXISTS, another stack's name says whose", async () => {
    const p = await tf.createProfile(settings, {
      importHint: 'import it: terraform import <address> /tmkit/stacks/terraform/trafficManagerProfiles/web',
    });
    expect(p).toMatchObject({
      stack: 'terraform',
      profile: { name: 'web', endpoints: [], dnsConfig: { ttl: 30 }, monitorConfig: { path: '/health', intervalInSeconds: 30 } },
    });
    expect((await client.getProfile('web')).stack).toBe('terraform');
    // The same create again (its first answer was lost): the stored profile is this create's, adopted as it is.
    const adopted = await tf.createProfile(settings);
    expect(adopted.etag).toBe(p.etag);
    const again = await tf
      .createProfile(
        { ...settings, dnsConfig: { relativeName: 'web', ttl: 60 } },
        { importHint: 'import it: terraform import <address> /tmkit/stacks/terraform/trafficManagerProfiles/web' },
      )
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ResourceError);
    expect(code(again)).toBe('RESOURCE_EXISTS');
    expect((again as Error).message).toBe(
      "profile 'web' (tmkit stack 'terraform') already exists, so it was not created: import it: terraform import <address> /tmkit/stacks/terraform/trafficManagerProfiles/web",
    );
    expect(again).toMatchObject({
      reason: "profile 'web' (tmkit stack 'terraform') already exists, so it was not created",
      hint: 'import it: terraform import <address> /tmkit/stacks/terraform/trafficManagerProfiles/web',
    });
    // Another stack's name on create: RESOURCE_NOT_OWNED, naming the owner.
    const other = await new StackResources(client, { stack: 'ops', refreshHint: TF_REFRESH })
      .createProfile(settings)
      .catch((e: unknown) => e);
    expect(code(other)).toBe('RESOURCE_NOT_OWNED');
    expect((other as Error).message).toContain(
      "profile 'web' belongs to tmkit stack 'terraform', not to this provider's stack 'ops', so it is never written: use another profile name, or set the provider's stack to 'terraform'",
    );
  });

  test("updateProfile patches settings only: the endpoints (another resource's) stay, removed settings are removed", async () => {
    await tf.createProfile({ ...settings, tags: { a: '1' } });
    await tf.createEndpoint('web', { name: 'e1', type: 'externalEndpoints', target: '192.0.2.1', weight: 5 });
    const u = await tf.updateProfile(
      { ...settings, dnsConfig: { relativeName: 'web', ttl: 60 }, monitorConfig: { protocol: 'TCP', port: 443 } },
      { prior: seen({ ...settings, tags: { a: '1' } }) },
    );
    expect(u.profile.dnsConfig.ttl).toBe(60);
    expect(u.profile.monitorConfig).toMatchObject({ protocol: 'TCP', port: 443 });
    expect(u.profile.monitorConfig.path).toBeUndefined();
    expect(u.profile.tags).toBeUndefined();
    const stored = (await client.getProfile('web')).profile;
    expect(stored.endpoints.map((e) => [e.name, e.weight])).toEqual([['e1', 5]]);
  });

  test('updateProfile refuses when someone else changed the settings since they were read (RESOURCE_CHANGED, nothing written)', async () => {
    await tf.createProfile(settings);
    await client.patchProfile('web', { dnsConfig: { ttl: 99 } });
    const err = await tf.updateProfile({ ...settings, profileStatus: 'Disabled' }, { prior: seen(settings) }).catch((e: unknown) => e);
    expect(code(err)).toBe('RESOURCE_CHANGED');
    expect((err as Error).message).toBe(
      `the settings of profile 'web' were changed by someone else since it was last read (dnsConfig.ttl 30 → 99); nothing was written: ${TF_REFRESH}`,
    );
    expect((await client.getProfile('web')).profile).toMatchObject({ profileStatus: 'Enabled', dnsConfig: { ttl: 99 } });
  });

  test("another stack's profile is never read as ours nor written (RESOURCE_NOT_OWNED / STACK_CONFLICT)", async () => {
    await client.putProfile({ ...settings, endpoints: [{ name: 'x', type: 'externalEndpoints', target: '192.0.2.7' }] }, { stack: 'ops' });
    const before = await client.getProfile('web');
    for (const op of [
      () => tf.readProfile('web'),
      () => tf.updateProfile({ ...settings, profileStatus: 'Disabled' }),
      () => tf.deleteProfile('web'),
      () => tf.readEndpoint('web', 'x'),
      () => tf.createEndpoint('web', { name: 'y', type: 'externalEndpoints', target: '192.0.2.8' }),
      () => tf.updateEndpoint('web', { name: 'x', type: 'externalEndpoints', target: '192.0.2.9' }),
      () =>
        tf.updateEndpoint(
          'web',
          { name: 'x', type: 'externalEndpoints', target: '192.0.2.9' },
          { prior: { endpoint: { name: 'x', type: 'externalEndpoints', target: '192.0.2.7' } } },
        ),
      () => tf.deleteEndpoint('web', 'x'),
    ]) {
      const err = await op().catch((e: unknown) => e);
      expect(code(err)).toBe('RESOURCE_NOT_OWNED');
      expect((err as Error).message).toContain(
        "profile 'web' belongs to tmkit stack 'ops', not to this provider's stack 'terraform', so it is never written",
      );
    }
    expect((await client.getProfile('web')).etag).toBe(before.etag);
  });

  test('endpoints: create (next free priority), read, update conditionally on what was seen, delete; a second create is RESOURCE_EXISTS', async () => {
    await tf.createProfile({ ...settings, trafficRoutingMethod: 'Priority' });
    const a = await tf.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' });
    const b = await tf.createEndpoint('web', { name: 'b', type: 'externalEndpoints', target: '192.0.2.2' });
    expect([a.endpoint.priority, b.endpoint.priority]).toEqual([1, 2]);
    expect(
      code(await tf.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.3' }).catch((e: unknown) => e)),
    ).toBe('RESOURCE_EXISTS');
    // The same endpoint again (a create whose answer was lost): adopted, nothing written.
    expect(await tf.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' })).toMatchObject({
      etag: a.etag,
      endpoint: { priority: 1 },
    });
    // Another stack's create of the same content is still refused.
    expect(
      code(await pu.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }).catch((e: unknown) => e)),
    ).toBe('RESOURCE_NOT_OWNED');
    const read = await tf.readEndpoint('web', 'a');
    expect(read).toMatchObject({ profile: 'web', stack: 'terraform', etag: a.etag, endpoint: { target: '192.0.2.1' } });
    // Without a priority the stored one is kept.
    const u = await tf.updateEndpoint(
      'web',
      { name: 'a', type: 'externalEndpoints', target: '192.0.2.11' },
      { prior: { endpoint: { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', priority: 1 } } },
    );
    expect(u.endpoint).toMatchObject({ target: '192.0.2.11', priority: 1 });
    expect((await tf.readEndpoint('web', 'b'))!.etag).toBe(b.etag); // the other endpoint's ETag is untouched
    await tf.deleteEndpoint('web', 'a', { prior: { endpoint: u.endpoint } });
    expect(await tf.readEndpoint('web', 'a')).toBeUndefined();
    await tf.deleteEndpoint('web', 'a'); // gone already: fine
    expect(await tf.readEndpoint('nope', 'a')).toBeUndefined();
  });

  test("updateEndpoint and deleteEndpoint refuse an endpoint changed by someone else (RESOURCE_CHANGED); the server's cross-endpoint 400 names both endpoints", async () => {
    await tf.createProfile({ ...settings, trafficRoutingMethod: 'Priority' });
    const a = await tf.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', priority: 1 });
    await tf.createEndpoint('web', { name: 'b', type: 'externalEndpoints', target: '192.0.2.2', priority: 2 });
    await client.patchEndpoint('web', 'a', { weight: 7 });
    for (const op of [
      () =>
        tf.updateEndpoint(
          'web',
          { name: 'a', type: 'externalEndpoints', target: '192.0.2.5', priority: 1 },
          { prior: { endpoint: a.endpoint } },
        ),
      () => tf.deleteEndpoint('web', 'a', { prior: { endpoint: a.endpoint } }),
    ]) {
      const err = await op().catch((e: unknown) => e);
      expect(code(err)).toBe('RESOURCE_CHANGED');
      expect((err as Error).message).toBe(
        `endpoint 'web/a' was changed by someone else since it was last read (weight 1 → 7); nothing was written: ${TF_REFRESH}`,
      );
    }
    expect((await client.getEndpoint('web', 'a')).endpoint).toMatchObject({ target: '192.0.2.1', weight: 7 });
    const dup = await tf
      .updateEndpoint('web', { name: 'b', type: 'externalEndpoints', target: '192.0.2.2', priority: 1 })
      .catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(TmkitApiError);
    expect((dup as TmkitApiError).errors[0]).toMatchObject({
      code: 'PRIORITY_DUPLICATE',
      message: expect.stringContaining('endpoint "a"'),
    });
  });

  test('deleteProfile refuses while endpoints are left (RESOURCE_HAS_ENDPOINTS), then deletes; gone already is fine', async () => {
    await tf.createProfile(settings);
    await tf.createEndpoint('web', { name: 'e1', type: 'externalEndpoints', target: '192.0.2.1' });
    const err = await tf.deleteProfile('web').catch((e: unknown) => e);
    expect(code(err)).toBe('RESOURCE_HAS_ENDPOINTS');
    expect((err as Error).message).toBe(
      "profile 'web' still has endpoint 'e1', which this profile resource does not manage (it declares no endpoints), so it is not deleted: delete those endpoints (or their resources) first, or import them to manage them here",
    );
    await tf.deleteEndpoint('web', 'e1');
    await tf.deleteProfile('web', { prior: seen(settings) });
    expect(await client.findProfile('web')).toBeUndefined();
    await tf.deleteProfile('web');
  });

  test('createEndpoint into a missing profile says to create the profile first (RESOURCE_PROFILE_MISSING)', async () => {
    const err = await tf.createEndpoint('nope', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }).catch((e: unknown) => e);
    expect(code(err)).toBe('RESOURCE_PROFILE_MISSING');
    expect((err as Error).message).toBe(
      "profile 'nope' does not exist, so its endpoint cannot be written: create the profile first (reference its id first)",
    );
  });

  test('an update of a profile or endpoint deleted since it was read is RESOURCE_GONE with the refresh hint; deletes of them are fine', async () => {
    await tf.createProfile({ ...settings, trafficRoutingMethod: 'Priority' });
    const a = await tf.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' });
    await client.deleteEndpoint('web', 'a');
    const gone = await tf
      .updateEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.2' }, { prior: { endpoint: a.endpoint } })
      .catch((e: unknown) => e);
    expect(code(gone)).toBe('RESOURCE_GONE');
    expect((gone as Error).message).toBe(
      `endpoint 'web/a' was deleted by someone else since it was last read; nothing was written: ${TF_REFRESH}`,
    );
    expect(await tf.readEndpoint('web', 'a')).toBeUndefined(); // nothing was written
    await tf.deleteEndpoint('web', 'a', { prior: { endpoint: a.endpoint } });
    await client.deleteProfile('web');
    const p = await tf
      .updateProfile({ ...settings, dnsConfig: { relativeName: 'web', ttl: 5 } }, { prior: seen(settings) })
      .catch((e: unknown) => e);
    expect(code(p)).toBe('RESOURCE_GONE');
    expect((p as Error).message).toBe(
      `profile 'web' was deleted by someone else since it was last read; nothing was written: ${TF_REFRESH}`,
    );
    expect(await client.findProfile('web')).toBeUndefined();
    await tf.deleteProfile('web', { prior: seen(settings) });
  });

  test('updateProfile keeps and ignores settings the tool does not model (unmanaged)', async () => {
    await tf.createProfile(settings);
    await client.patchProfile('web', { allowedEndpointRecordTypes: ['IPv4Address'] });
    const u = await tf.updateProfile(
      { ...settings, dnsConfig: { relativeName: 'web', ttl: 45 } },
      { prior: seen(settings), unmanaged: ['allowedEndpointRecordTypes'] },
    );
    expect(u.profile).toMatchObject({ allowedEndpointRecordTypes: ['IPv4Address'], dnsConfig: { ttl: 45 } });
    expect(code(await tf.updateProfile(settings, { prior: seen(settings) }).catch((e: unknown) => e))).toBe('RESOURCE_CHANGED');
  });
});

// ---------------------------------------------------------------------------------------------------
// As the Pulumi provider calls it

const endpointHint = { importHint: 'import it into this program (its id), or choose another endpointName' };
const weighted = (name: string, over: Partial<ProfileInput> = {}): ProfileInput =>
  profileInput(name, { trafficRoutingMethod: 'Weighted', ...over });

async function rejection(p: Promise<unknown>): Promise<ResourceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ResourceError);
  return err as ResourceError;
}

describe('profiles that own their endpoints', () => {
  test("create with If-None-Match: an existing profile is never overwritten, another stack's is named", async () => {
    const created = await pu.createProfile(weighted('web'), { ownsEndpoints: true });
    expect(created).toMatchObject({ name: 'web', stack: 'pulumi' });
    expect(created.profile.endpoints.map((e) => e.name)).toEqual(['primary', 'secondary']);
    const again = await rejection(
      pu.createProfile(weighted('web', { dnsConfig: { relativeName: 'other' } }), {
        ownsEndpoints: true,
        importHint: 'import it into this program (its id, or its name), or choose another profileName',
      }),
    );
    expect(again.code).toBe('RESOURCE_EXISTS');
    expect(again.message).toBe(
      "profile 'web' (tmkit stack 'pulumi') already exists, so it was not created: import it into this program (its id, or its name), or choose another profileName",
    );
    expect((await pu.readProfile('web'))!.etag).toBe(created.etag);

    await client.putProfile(profileInput('theirs'), { stack: 'default' });
    const theirs = await client.getProfile('theirs');
    const other = await rejection(pu.createProfile(weighted('theirs'), { ownsEndpoints: true }));
    expect(other.code).toBe('RESOURCE_NOT_OWNED');
    expect(other.message).toContain(
      "profile 'theirs' belongs to tmkit stack 'default', not to this provider's stack 'pulumi', so it is never written",
    );
    expect(await client.getProfile('theirs')).toEqual(theirs);
  });

  test('update is a PUT If-Match the prior ETag; a change by someone else is refused, naming it', async () => {
    const created = await pu.createProfile(weighted('web'), { ownsEndpoints: true });
    const updated = await pu.updateProfile(weighted('web', { dnsConfig: { relativeName: 'web', ttl: 60 } }), {
      ownsEndpoints: true,
      prior: created,
    });
    expect(updated.profile.dnsConfig.ttl).toBe(60);
    expect(updated.etag).not.toBe(created.etag);

    // Someone disables an endpoint with the tmkit CLI (PATCH …/endpoints/primary).
    await client.patchEndpoint('web', 'primary', { endpointStatus: 'Disabled' });
    const before = await client.getProfile('web');
    const err = await rejection(
      pu.updateProfile(weighted('web', { dnsConfig: { relativeName: 'web', ttl: 90 } }), { ownsEndpoints: true, prior: updated }),
    );
    expect(err.code).toBe('RESOURCE_CHANGED');
    expect(err.message).toBe(
      'profile \'web\' was changed by someone else since it was last read (endpoints[primary].endpointStatus "Enabled" → "Disabled"); nothing was written: run `pulumi refresh`, then `pulumi up`',
    );
    expect(await client.getProfile('web')).toEqual(before);
    // After a refresh (the prior is what is stored now) the update goes through.
    const refreshed = await pu.updateProfile(weighted('web', { dnsConfig: { relativeName: 'web', ttl: 90 } }), {
      ownsEndpoints: true,
      prior: before,
    });
    expect(refreshed.profile.endpoints[0]!.endpointStatus).toBe('Enabled');
  });

  test("delete is If-Match too; gone is fine; another stack's profile is refused", async () => {
    const created = await pu.createProfile(weighted('web'), { ownsEndpoints: true });
    await client.patchProfile('web', { dnsConfig: { ttl: 5 } });
    expect((await rejection(pu.deleteProfile('web', { ownsEndpoints: true, prior: created }))).message).toContain('(dnsConfig.ttl 30 → 5)');
    expect(await pu.readProfile('web')).toBeDefined();
    await pu.deleteProfile('web', { ownsEndpoints: true, prior: (await pu.readProfile('web'))! });
    expect(await pu.readProfile('web')).toBeUndefined();
    await pu.deleteProfile('web', { ownsEndpoints: true, prior: created }); // already gone

    await client.putProfile(profileInput('theirs'), { stack: 'default' });
    expect(code(await pu.readProfile('theirs').catch((e: unknown) => e))).toBe('RESOURCE_NOT_OWNED');
    const theirs = (await pu.readProfile('theirs', { anyStack: true }))!;
    expect((await rejection(pu.deleteProfile('theirs', { ownsEndpoints: true, prior: theirs }))).code).toBe('RESOURCE_NOT_OWNED');
    expect(await pu.readProfile('theirs', { anyStack: true })).toEqual(theirs);
  });
});

describe('profiles that own only their settings', () => {
  test('create writes no endpoints; endpoint writes by others never conflict with a settings update, settings changes do', async () => {
    const created = await pu.createProfile(weighted('web'), { ownsEndpoints: false });
    expect(created.profile.endpoints).toEqual([]);
    await pu.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }, endpointHint);
    const updated = await pu.updateProfile(weighted('web', { dnsConfig: { relativeName: 'web', ttl: 60 }, tags: { team: 'dns' } }), {
      ownsEndpoints: false,
      prior: created,
    });
    expect(updated.profile).toMatchObject({ dnsConfig: { ttl: 60 }, tags: { team: 'dns' } });
    expect(updated.profile.endpoints.map((e) => e.name)).toEqual(['a']);
    // Removing tags and the path: the merge patch nulls them.
    const removed = await pu.updateProfile(
      weighted('web', { dnsConfig: { relativeName: 'web', ttl: 60 }, monitorConfig: { protocol: 'TCP', port: 443 } }),
      { ownsEndpoints: false, prior: updated },
    );
    expect(removed.profile.tags).toBeUndefined();
    expect(removed.profile.monitorConfig).toEqual({
      protocol: 'TCP',
      port: 443,
      intervalInSeconds: 30,
      timeoutInSeconds: 10,
      toleratedNumberOfFailures: 3,
      customHeaders: [],
      expectedStatusCodeRanges: [],
    });
    // Nothing to change: no write at all.
    const same = await pu.updateProfile(
      weighted('web', { dnsConfig: { relativeName: 'web', ttl: 60 }, monitorConfig: { protocol: 'TCP', port: 443 } }),
      { ownsEndpoints: false, prior: removed },
    );
    expect(same.etag).toBe(removed.etag);

    await client.patchProfile('web', { profileStatus: 'Disabled' });
    const err = await rejection(
      pu.updateProfile(weighted('web', { dnsConfig: { relativeName: 'web', ttl: 5 } }), { ownsEndpoints: false, prior: removed }),
    );
    expect(err.message).toBe(
      'the settings of profile \'web\' were changed by someone else since it was last read (profileStatus "Enabled" → "Disabled"); nothing was written: run `pulumi refresh`, then `pulumi up`',
    );
  });

  test('a settings update while endpoint resources write the same profile concurrently: every write lands', async () => {
    const created = await pu.createProfile(weighted('web'), { ownsEndpoints: false });
    const writes = Array.from({ length: 12 }, (_, i) =>
      pu.createEndpoint('web', { name: `e${i}`, type: 'externalEndpoints', target: `192.0.2.${i + 1}`, weight: i + 1 }, endpointHint),
    );
    const settings = pu.updateProfile(weighted('web', { dnsConfig: { relativeName: 'web', ttl: 77 } }), {
      ownsEndpoints: false,
      prior: created,
    });
    await Promise.all([...writes, settings]);
    const stored = (await pu.readProfile('web'))!.profile;
    expect(stored.dnsConfig.ttl).toBe(77);
    expect(stored.endpoints.map((e) => e.name).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `e${i}`).sort());
  });

  test('an endpoint write between the settings read and the patch (the ETag moved) makes the patch compare and go again', async () => {
    const created = await pu.createProfile(weighted('web'), { ownsEndpoints: false });
    // A client whose first profile read is followed at once by another writer's endpoint PUT.
    let reads = 0;
    const racing = new (class extends TmkitClient {
      override async findProfile(name: string) {
        const r = await super.findProfile(name);
        if (++reads === 1) await pu.createEndpoint('web', { name: 'late', type: 'externalEndpoints', target: '192.0.2.7' }, endpointHint);
        return r;
      }
    })({ server: h.base, token: TOKEN, env: {} });
    try {
      const updated = await new StackResources(racing, { stack: 'pulumi', refreshHint: PU_REFRESH }).updateProfile(
        weighted('web', { dnsConfig: { relativeName: 'web', ttl: 61 } }),
        { ownsEndpoints: false, prior: created },
      );
      expect(reads).toBe(2);
      expect(updated.profile.dnsConfig.ttl).toBe(61);
      expect(updated.profile.endpoints.map((e) => e.name)).toEqual(['late']);
    } finally {
      await racing.close();
    }
  });

  test('adopting the endpoints (the resource declares them from now on): the settings are compared, then the whole profile is PUT', async () => {
    const created = await pu.createProfile(weighted('web'), { ownsEndpoints: false });
    await pu.createEndpoint('web', { name: 'stray', type: 'externalEndpoints', target: '192.0.2.8' }, endpointHint);
    const adopted = await pu.updateProfile(weighted('web'), { ownsEndpoints: true, adoptEndpoints: true, prior: created });
    expect(adopted.profile.endpoints.map((e) => e.name)).toEqual(['primary', 'secondary']);
    await client.patchProfile('web', { dnsConfig: { ttl: 9 } });
    const err = await rejection(pu.updateProfile(weighted('web'), { ownsEndpoints: true, adoptEndpoints: true, prior: adopted }));
    expect(err.message).toContain(
      "the settings of profile 'web' were changed by someone else since it was last read (dnsConfig.ttl 30 → 9)",
    );
  });

  test('delete waits for its endpoints to be gone (they belong to other resources), then deletes', async () => {
    const created = await pu.createProfile(weighted('web'), { ownsEndpoints: false });
    const a = await pu.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }, endpointHint);
    const err = await rejection(pu.deleteProfile('web', { ownsEndpoints: false, prior: created }));
    expect(err.code).toBe('RESOURCE_HAS_ENDPOINTS');
    expect(err.message).toContain("profile 'web' still has endpoint 'a', which this profile resource does not manage");
    await pu.deleteEndpoint('web', 'a', { prior: a });
    await pu.deleteProfile('web', { ownsEndpoints: false, prior: created });
    expect(await pu.readProfile('web')).toBeUndefined();
  });
});

describe('endpoints', () => {
  test('create If-None-Match; update and delete If-Match their own ETag, untouched by sibling writes', async () => {
    await pu.createProfile(weighted('web'), { ownsEndpoints: false });
    const a = await pu.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', weight: 2 }, endpointHint);
    expect(a).toMatchObject({ profile: 'web', stack: 'pulumi', endpoint: { name: 'a', weight: 2, priority: 1 } });
    expect(
      (await rejection(pu.createEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.9' }, endpointHint))).message,
    ).toBe(
      "endpoint 'a' of profile 'web' already exists, so it was not created: import it into this program (its id), or choose another endpointName",
    );
    await pu.createEndpoint('web', { name: 'b', type: 'externalEndpoints', target: '192.0.2.2' }, endpointHint);
    // b's write moved the profile ETag, not a's.
    const a2 = await pu.updateEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', weight: 3 }, { prior: a });
    expect(a2.endpoint.weight).toBe(3);

    await client.patchEndpoint('web', 'a', { weight: 50 });
    const err = await rejection(
      pu.updateEndpoint('web', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', weight: 4 }, { prior: a2 }),
    );
    expect(err.code).toBe('RESOURCE_CHANGED');
    expect(err.message).toContain("endpoint 'web/a' was changed by someone else since it was last read (weight 3 → 50)");
    expect((await pu.readEndpoint('web', 'a'))!.endpoint.weight).toBe(50);
    expect((await rejection(pu.deleteEndpoint('web', 'a', { prior: a2 }))).code).toBe('RESOURCE_CHANGED');

    const now = (await pu.readEndpoint('web', 'a'))!;
    await pu.deleteEndpoint('web', 'a', { prior: now });
    expect(await pu.readEndpoint('web', 'a')).toBeUndefined();
    await pu.deleteEndpoint('web', 'a', { prior: now }); // gone is fine
    await pu.deleteEndpoint('nope', 'a', { prior: now }); // so is a gone profile
  });

  test("an endpoint of a missing profile, or of another stack's profile, is refused clearly", async () => {
    const missing = await rejection(pu.createEndpoint('nope', { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }, endpointHint));
    expect(missing.code).toBe('RESOURCE_PROFILE_MISSING');
    expect(missing.message).toContain("profile 'nope' does not exist, so its endpoint cannot be written: create the profile first");
    await client.putProfile(weighted('theirs'), { stack: 'default' });
    const before = await client.getProfile('theirs');
    const other = await rejection(pu.createEndpoint('theirs', { name: 'x', type: 'externalEndpoints', target: '192.0.2.1' }, endpointHint));
    expect(other.code).toBe('RESOURCE_NOT_OWNED');
    expect(await client.getProfile('theirs')).toEqual(before);
  });

  test('a write the server refuses keeps every diagnostic with its path', async () => {
    await pu.createProfile(
      profileInput('prio', { endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', priority: 1 }] }),
      { ownsEndpoints: true },
    );
    const err = await pu
      .createEndpoint('prio', { name: 'b', type: 'externalEndpoints', target: '192.0.2.2', priority: 1 }, endpointHint)
      .then(
        () => new Error('no error'),
        (e: unknown) => e as Error,
      );
    expect((err as { status?: number }).status).toBe(400);
    expect(err.message).toContain('priority 1 is also used by endpoint');
    expect(err.message).toContain('profiles[prio].endpoints[b].priority');
  });
});
