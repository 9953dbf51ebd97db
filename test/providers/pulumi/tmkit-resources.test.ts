/**
 * tmkit:index:Profile and tmkit:index:Endpoint, the provider's methods as the engine calls them (the gRPC
 * layer on loopback, through the generated client) against a live runtime: a real API server over a real
 * SQLite store. Check, diff, create, read (refresh and import), update, delete, and the error paths.
 */
import * as grpc from '@grpc/grpc-js';
import * as provproto from '@pulumi/pulumi/proto/provider_pb';
import { UNKNOWN_STRING } from '../../../providers/pulumi/src/wire';
import { connect, failure, struct } from './client';
import { serve } from '../../../providers/pulumi/src/server';
import { tmkitProvider } from '../../../providers/pulumi/src/tmkit';
import { TOKEN } from '../../runtime/api/harness';
import { providerOnApi } from './provider-on-api';

const PROFILE = 'tmkit:index:Profile';
const ENDPOINT = 'tmkit:index:Endpoint';
const urn = (type: string, name: string): string => `urn:pulumi:dev::proj::${type}::${name}`;
type Js = Record<string, unknown>;

const logged: string[] = [];
const api = providerOnApi((l) => {
  logged.push(l);
});

async function check(type: string, name: string, news: Js, olds: Js = {}): Promise<{ inputs: Js; failures: Array<[string, string]> }> {
  const r = await api.rpc.call<provproto.CheckRequest, provproto.CheckResponse>(
    'check',
    new provproto.CheckRequest().setUrn(urn(type, name)).setNews(struct(news)).setOlds(struct(olds)),
  );
  return { inputs: r.getInputs()!.toJavaScript() as Js, failures: r.getFailuresList().map((f) => [f.getProperty(), f.getReason()]) };
}

const KINDS = Object.fromEntries(Object.entries(provproto.PropertyDiff.Kind).map(([k, v]) => [v, k.toLowerCase().replace('_', '-')]));

async function diff(type: string, name: string, id: string, olds: Js, oldInputs: Js, news: Js) {
  const r = await api.rpc.call<provproto.DiffRequest, provproto.DiffResponse>(
    'diff',
    new provproto.DiffRequest()
      .setUrn(urn(type, name))
      .setId(id)
      .setOlds(struct(olds))
      .setOldInputs(struct(oldInputs))
      .setNews(struct(news)),
  );
  const detailed = Object.fromEntries(
    r
      .getDetaileddiffMap()
      .getEntryList()
      .map(([k, v]) => [k, KINDS[(v as unknown as [number])[0]]]),
  );
  return {
    changes: r.getChanges() === provproto.DiffResponse.DiffChanges.DIFF_SOME,
    replaces: r.getReplacesList(),
    detailed,
    deleteBeforeReplace: r.getDeletebeforereplace(),
  };
}

async function create(type: string, name: string, inputs: Js, preview = false): Promise<{ id: string; outputs: Js }> {
  const r = await api.rpc.call<provproto.CreateRequest, provproto.CreateResponse>(
    'create',
    new provproto.CreateRequest().setUrn(urn(type, name)).setProperties(struct(inputs)).setPreview(preview),
  );
  return { id: r.getId(), outputs: r.getProperties()!.toJavaScript() as Js };
}

async function read(
  type: string,
  name: string,
  id: string,
  state?: Js,
  inputs?: Js,
): Promise<{ id: string; outputs: Js; inputs: Js | undefined }> {
  const req = new provproto.ReadRequest().setUrn(urn(type, name)).setId(id);
  if (state) req.setProperties(struct(state));
  if (inputs) req.setInputs(struct(inputs));
  const r = await api.rpc.call<provproto.ReadRequest, provproto.ReadResponse>('read', req);
  return { id: r.getId(), outputs: r.getProperties()!.toJavaScript() as Js, inputs: r.getInputs()?.toJavaScript() as Js | undefined };
}

async function update(type: string, name: string, id: string, olds: Js, oldInputs: Js, news: Js): Promise<Js> {
  const r = await api.rpc.call<provproto.UpdateRequest, provproto.UpdateResponse>(
    'update',
    new provproto.UpdateRequest()
      .setUrn(urn(type, name))
      .setId(id)
      .setOlds(struct(olds))
      .setOldInputs(struct(oldInputs))
      .setNews(struct(news)),
  );
  return r.getProperties()!.toJavaScript() as Js;
}

async function del(type: string, name: string, id: string, state: Js, oldInputs: Js): Promise<void> {
  await api.rpc.call(
    'delete',
    new provproto.DeleteRequest().setUrn(urn(type, name)).setId(id).setProperties(struct(state)).setOldInputs(struct(oldInputs)),
  );
}

const monitorConfig = { protocol: 'HTTP', port: 80, path: '/health' };

describe('Profile', () => {
  const inputs = {
    trafficRoutingMethod: 'Weighted',
    dnsConfig: { relativeName: 'shop', ttl: 30 },
    monitorConfig,
    endpoints: [
      { name: 'a', type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints', target: '192.0.2.1', weight: 3 },
      { name: 'b', type: 'externalEndpoints', target: '192.0.2.2' },
    ],
  };

  test('check: profileName defaults to the logical name; every failure at its Pulumi path; unknowns are not judged', async () => {
    const ok = await check(PROFILE, 'shop', inputs);
    expect(ok.failures).toEqual([]);
    expect(ok.inputs.profileName).toBe('shop');
    const bad = await check(PROFILE, 'shop', {
      ...inputs,
      resourceGroupName: 'rg',
      dnsConfig: { relativeName: 'shop', ttl: -1 },
      endpoints: [
        { ...inputs.endpoints[0], weight: 0 },
        { name: 'b', type: 'externalEndpoints', target: UNKNOWN_STRING, weight: 1001 },
        { name: 'c', type: 'nestedEndpoints', targetResourceId: UNKNOWN_STRING },
      ],
    });
    expect(bad.failures.map(([p]) => p)).toEqual(['resourceGroupName', 'dnsConfig.ttl', 'endpoints[0].weight', 'endpoints[1].weight']);
    expect(bad.failures[1]![1]).toBe('ttl -1 is out of range: an integer 0–2147483647 seconds (use e.g. 30) [TTL_RANGE]');
    expect(bad.failures[0]![1]).toMatch(/^tmkit has no resource groups: remove resourceGroupName/);
  });

  test("check: monitorConfig's health extensions (issue 31) are judged at their Pulumi paths", async () => {
    const ok = await check(PROFILE, 'shop', {
      ...inputs,
      monitorConfig: {
        protocol: 'HTTPS',
        port: 443,
        path: '/',
        certificateValidation: 'Enabled',
        certificateExpiryWarningDays: 30,
        degradedLatencyMs: 500,
      },
    });
    expect(ok.failures).toEqual([]);
    const bad = await check(PROFILE, 'shop', {
      ...inputs,
      monitorConfig: {
        protocol: 'HTTPS',
        port: 443,
        path: '/',
        certificateValidation: 'Enabled',
        caCertificates: 'not pem',
        degradedLatencyMs: 0,
      },
    });
    expect(bad.failures.map(([p]) => p)).toEqual(['monitorConfig.caCertificates', 'monitorConfig.degradedLatencyMs']);
  });

  let created: { id: string; outputs: Js };
  test('create: PUT If-None-Match; id ends in /trafficManagerProfiles/<name>; outputs have dnsConfig.fqdn, the stack and the ETag', async () => {
    const pv = await create(PROFILE, 'shop', { ...inputs, profileName: 'shop' }, true);
    // Preview writes nothing; the id is known already (it is the name's), the fqdn and ETag are not.
    expect(pv.id).toBe('/tmkit/stacks/pulumi/trafficManagerProfiles/shop');
    expect(pv.outputs).toMatchObject({
      name: 'shop',
      dnsConfig: { relativeName: 'shop', fqdn: UNKNOWN_STRING },
      etag: UNKNOWN_STRING,
      stack: 'pulumi',
    });
    expect((await create(PROFILE, 'x', { ...inputs, profileName: UNKNOWN_STRING }, true)).id).toBe('');
    expect(await api.direct.findProfile('shop')).toBeUndefined();
    created = await create(PROFILE, 'shop', { ...inputs, profileName: 'shop' });
    expect(created.id).toBe('/tmkit/stacks/pulumi/trafficManagerProfiles/shop');
    const stored = await api.direct.getProfile('shop');
    expect(stored.stack).toBe('pulumi');
    expect(created.outputs).toMatchObject({
      profileName: 'shop',
      name: 'shop',
      type: 'Microsoft.Network/trafficManagerProfiles',
      stack: 'pulumi',
      etag: stored.etag,
      dnsConfig: { relativeName: 'shop', ttl: 30, fqdn: 'shop.tm.test' },
      profileStatus: 'Enabled',
      trafficViewEnrollmentStatus: 'Disabled',
      monitorConfig: {
        protocol: 'HTTP',
        port: 80,
        path: '/health',
        intervalInSeconds: 30,
        timeoutInSeconds: 10,
        toleratedNumberOfFailures: 3,
      },
    });
    expect((created.outputs.endpoints as Js[]).map((e) => [e.name, e.type, e.weight, e.priority])).toEqual([
      ['a', 'Microsoft.Network/trafficManagerProfiles/externalEndpoints', 3, 1],
      ['b', 'Microsoft.Network/trafficManagerProfiles/externalEndpoints', 1, 2],
    ]);
    // A second create of the same name never overwrites.
    const again = await failure(create(PROFILE, 'shop2', { ...inputs, profileName: 'shop', dnsConfig: { relativeName: 'other' } }));
    expect(again.code).toBe(grpc.status.ALREADY_EXISTS);
    expect(again.details).toBe(
      `${PROFILE} "shop2": profile 'shop' (tmkit stack 'pulumi') already exists, so it was not created: import it into this program (its id, or its name), or choose another profileName`,
    );
  });

  test("diff: the plan engine's attribute diff at Pulumi paths; defaults and display names are no change; relativeName and profileName replace", async () => {
    const ins = { ...inputs, profileName: 'shop' };
    expect(
      await diff(PROFILE, 'shop', created.id, created.outputs, ins, {
        ...ins,
        dnsConfig: { relativeName: 'shop' },
        monitorConfig: { ...monitorConfig, intervalInSeconds: 30 },
      }),
    ).toMatchObject({ changes: false });
    const oneWeight = JSON.parse(JSON.stringify(ins)) as typeof ins;
    (oneWeight.endpoints[1] as Js).weight = 7;
    expect(await diff(PROFILE, 'shop', created.id, created.outputs, ins, oneWeight)).toEqual({
      changes: true,
      replaces: [],
      detailed: { 'endpoints[1].weight': 'update' },
      deleteBeforeReplace: false,
    });
    expect(
      await diff(PROFILE, 'shop', created.id, created.outputs, ins, { ...ins, dnsConfig: { relativeName: 'shop2', ttl: 30 } }),
    ).toEqual({
      changes: true,
      replaces: ['dnsConfig'],
      detailed: { 'dnsConfig.relativeName': 'update-replace' },
      deleteBeforeReplace: false,
    });
    expect((await diff(PROFILE, 'shop', created.id, created.outputs, ins, { ...ins, profileName: 'shop-2' })).detailed).toEqual({
      profileName: 'update-replace',
    });
  });

  test('update: PUT If-Match; a change by someone else (tmkit CLI) fails clearly; refresh shows it and read returns inputs', async () => {
    const ins = { ...inputs, profileName: 'shop' };
    const news = { ...ins, dnsConfig: { relativeName: 'shop', ttl: 60 } };
    const outs = await update(PROFILE, 'shop', created.id, created.outputs, ins, news);
    expect(outs.dnsConfig).toEqual({ relativeName: 'shop', ttl: 60, fqdn: 'shop.tm.test' });
    expect((await api.direct.getProfile('shop')).profile.dnsConfig.ttl).toBe(60);

    await api.direct.patchEndpoint('shop', 'b', { endpointStatus: 'Disabled' });
    const f = await failure(update(PROFILE, 'shop', created.id, outs, news, { ...news, dnsConfig: { relativeName: 'shop', ttl: 90 } }));
    expect(f.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(f.details).toBe(
      `${PROFILE} "shop": profile 'shop' was changed by someone else since it was last read (endpoints[b].endpointStatus "Enabled" → "Disabled"); nothing was written: run \`pulumi refresh\` to take the change into the state (the next \`pulumi up\` then shows what it would undo), then \`pulumi up\``,
    );
    expect((await api.direct.getProfile('shop')).profile.dnsConfig.ttl).toBe(60);

    const refreshed = await read(PROFILE, 'shop', created.id, outs, news);
    expect(refreshed.id).toBe(created.id);
    expect((refreshed.inputs!.endpoints as Js[])[1]).toMatchObject({ name: 'b', endpointStatus: 'Disabled' });
    // The program still says Enabled: the next diff shows exactly that one property.
    expect((await diff(PROFILE, 'shop', created.id, refreshed.outputs, refreshed.inputs!, news)).detailed).toEqual({
      'endpoints[1].endpointStatus': 'update',
    });
    const undone = await update(PROFILE, 'shop', created.id, refreshed.outputs, refreshed.inputs!, news);
    expect((undone.endpoints as Js[])[1]!.endpointStatus).toBe('Enabled');
    created = { id: created.id, outputs: undone };
  });

  test('a write the server refuses is shown at the Pulumi paths; nothing is written', async () => {
    await api.direct.putProfile(
      { name: 'taken', trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'dup' }, endpoints: [] },
      { stack: 'pulumi' },
    );
    const f = await failure(create(PROFILE, 'dup', { ...inputs, profileName: 'dup', dnsConfig: { relativeName: 'dup' } }));
    expect(f.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(f.details).toMatch(
      /^tmkit:index:Profile "dup": the tmkit server refused to create it, nothing was written:\n {2}dnsConfig\.relativeName: .*dup.* \[RELATIVE_NAME_DUPLICATE\]/,
    );
    expect(await api.direct.findProfile('dup')).toBeUndefined();
  });

  test("import: read by id (or name) with no state adopts the whole profile; another stack's profile is refused", async () => {
    await api.direct.putProfile(
      {
        name: 'legacy',
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: 'legacy', ttl: 10 },
        endpoints: [{ name: 'x', type: 'externalEndpoints', target: '192.0.2.9' }],
      },
      { stack: 'pulumi' },
    );
    const imported = await read(PROFILE, 'legacy', 'legacy');
    expect(imported.id).toBe('/tmkit/stacks/pulumi/trafficManagerProfiles/legacy');
    expect(imported.inputs).toMatchObject({
      profileName: 'legacy',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'legacy', ttl: 10 },
      endpoints: [{ name: 'x', target: '192.0.2.9', priority: 1 }],
    });
    expect(imported.outputs).toMatchObject({ name: 'legacy', etag: (await api.direct.getProfile('legacy')).etag });
    expect(
      (await read(PROFILE, 'legacy', '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/legacy')).id,
    ).toBe(imported.id);
    await api.direct.putProfile(
      { name: 'theirs', trafficRoutingMethod: 'Priority', dnsConfig: { relativeName: 'theirs' }, endpoints: [] },
      { stack: 'default' },
    );
    const f = await failure(read(PROFILE, 'theirs', 'theirs'));
    expect(f.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(f.details).toContain(
      "profile 'theirs' belongs to tmkit stack 'default', not to this provider's stack 'pulumi', so it is not imported",
    );
    expect((await read(PROFILE, 'gone', 'nope')).id).toBe('');
  });

  test('a relativeName change replaces in place: the Create writes over the same profile, the Delete of the old one leaves it', async () => {
    const ins = created.outputs;
    const oldInputs = { ...inputs, profileName: 'shop' };
    const news = { ...oldInputs, dnsConfig: { relativeName: 'shop-new', ttl: 30 } };
    const before = await api.direct.getProfile('shop');
    const d = await diff(PROFILE, 'shop', created.id, ins, oldInputs, news);
    expect(d.replaces).toEqual(['dnsConfig']);
    const replacement = await create(PROFILE, 'shop', news);
    expect(replacement.id).toBe(created.id);
    expect((await api.direct.getProfile('shop')).profile.dnsConfig.relativeName).toBe('shop-new');
    await del(PROFILE, 'shop', created.id, ins, oldInputs);
    const after = await api.direct.getProfile('shop');
    expect(after.profile.dnsConfig.relativeName).toBe('shop-new');
    expect(after.etag).not.toBe(before.etag);
    created = replacement;
  });

  test('delete without a replacement note: If-Match; the old half of a replacement in a later run is refused, never deleting the newer profile', async () => {
    const stale = { ...created.outputs, etag: '"1-0000000000000000"', dnsConfig: { relativeName: 'shop', ttl: 30, fqdn: 'shop.tm.test' } };
    const f = await failure(del(PROFILE, 'shop', created.id, stale, { ...inputs, profileName: 'shop' }));
    expect(f.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(await api.direct.findProfile('shop')).toBeDefined();
    await del(PROFILE, 'shop', created.id, created.outputs, { ...inputs, profileName: 'shop', dnsConfig: { relativeName: 'shop-new' } });
    expect(await api.direct.findProfile('shop')).toBeUndefined();
    await del(PROFILE, 'shop', created.id, created.outputs, { ...inputs, profileName: 'shop' }); // gone: fine
  });
});

describe('Profile without endpoints, with Endpoint resources', () => {
  const profileIns = { profileName: 'api', trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'api' }, monitorConfig };
  let profile: { id: string; outputs: Js };
  const ADDRESS: Record<string, string> = {
    one: '192.0.2.11',
    two: '192.0.2.12',
    three: '192.0.2.13',
    four: '192.0.2.14',
    x: '192.0.2.19',
  };
  const epIns = (name: string, over: Js = {}): Js => ({
    profileName: 'api',
    endpointName: name,
    endpointType: 'ExternalEndpoints',
    target: ADDRESS[name]!,
    ...over,
  });
  const eps: Record<string, { id: string; outputs: Js; inputs: Js }> = {};

  test('check of an Endpoint: azure-native names, defaults, paths', async () => {
    expect(
      (await check(ENDPOINT, 'one', { profileName: 'api', endpointType: 'ExternalEndpoints', target: '192.0.2.1' })).inputs.endpointName,
    ).toBe('one');
    expect(
      (
        await check(ENDPOINT, 'one', {
          profileName: 'api',
          name: 'uno',
          type: 'Microsoft.network/TrafficManagerProfiles/ExternalEndpoints',
          endpointType: 'ExternalEndpoints',
          target: '192.0.2.1',
        })
      ).failures,
    ).toEqual([]);
    const bad = await check(ENDPOINT, 'one', {
      endpointType: 'Sideways',
      weight: 0,
      resourceGroupName: 'rg',
      subnets: [{ first: 'nope' }],
    });
    expect(bad.failures.map(([p]) => p)).toEqual(['resourceGroupName', 'profileName', 'endpointType', 'weight', 'subnets[0].first']);
  });

  test('create: the profile with no endpoints; Endpoint resources PUT theirs with If-None-Match; ids and outputs', async () => {
    profile = await create(PROFILE, 'api', profileIns);
    expect(profile.outputs.endpoints).toBeUndefined();
    expect(profile.outputs.etag).toBeUndefined();
    for (const n of ['one', 'two', 'three']) {
      const r = await create(ENDPOINT, n, epIns(n, n === 'two' ? { weight: 5 } : {}));
      eps[n] = { ...r, inputs: epIns(n, n === 'two' ? { weight: 5 } : {}) };
    }
    expect(eps.one!.id).toBe('/tmkit/stacks/pulumi/trafficManagerProfiles/api/externalEndpoints/one');
    expect(eps.two!.outputs).toMatchObject({
      profileName: 'api',
      endpointName: 'two',
      endpointType: 'ExternalEndpoints',
      name: 'two',
      type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
      weight: 5,
      priority: 2,
      endpointStatus: 'Enabled',
      alwaysServe: 'Disabled',
      stack: 'pulumi',
      etag: (await api.direct.getEndpoint('api', 'two')).etag,
    });
    // Another create of the same endpoint with other content is refused; with the same content (a create whose
    // answer was lost) it is adopted as stored.
    const dup = await failure(create(ENDPOINT, 'one-again', epIns('one', { weight: 9 })));
    expect(dup.code).toBe(grpc.status.ALREADY_EXISTS);
    expect((await create(ENDPOINT, 'one', epIns('one'))).outputs.etag).toBe(eps.one!.outputs.etag);
    const orphan = await failure(create(ENDPOINT, 'x', { ...epIns('x'), profileName: 'missing' }));
    expect(orphan.details).toContain("profile 'missing' does not exist, so its endpoint cannot be written: create the profile first");
  });

  test('a settings update never touches the endpoints; an endpoint update with its ETag; a one-weight diff is one property', async () => {
    const outs = await update(PROFILE, 'api', profile.id, profile.outputs, profileIns, {
      ...profileIns,
      dnsConfig: { relativeName: 'api', ttl: 45 },
    });
    expect((await api.direct.getProfile('api')).profile.endpoints.map((e) => e.name)).toEqual(['one', 'two', 'three']);
    profile = { id: profile.id, outputs: outs };
    const e = eps.two!;
    expect(await diff(ENDPOINT, 'two', e.id, e.outputs, e.inputs, { ...e.inputs, weight: 6 })).toEqual({
      changes: true,
      replaces: [],
      detailed: { weight: 'update' },
      deleteBeforeReplace: false,
    });
    // The priority the server gave (2) is no change when the program leaves it out.
    expect((await diff(ENDPOINT, 'two', e.id, e.outputs, e.inputs, { ...e.inputs })).changes).toBe(false);
    const updated = await update(ENDPOINT, 'two', e.id, e.outputs, e.inputs, { ...e.inputs, weight: 6 });
    expect(updated).toMatchObject({ weight: 6, priority: 2 });
    eps.two = { ...e, outputs: updated, inputs: { ...e.inputs, weight: 6 } };
    const ids = (await api.direct.getProfile('api')).profile.endpoints.map((x) => [x.name, x.weight]);
    expect(ids).toEqual([
      ['one', 1],
      ['two', 6],
      ['three', 1],
    ]);
  });

  test('an Endpoint changed by someone else fails clearly; refresh reads it; import by id', async () => {
    await api.direct.patchEndpoint('api', 'one', { weight: 9 });
    const e = eps.one!;
    const f = await failure(update(ENDPOINT, 'one', e.id, e.outputs, e.inputs, { ...e.inputs, weight: 2 }));
    expect(f.details).toContain("endpoint 'api/one' was changed by someone else since it was last read (weight 1 → 9)");
    const r = await read(ENDPOINT, 'one', e.id, e.outputs, e.inputs);
    expect(r.inputs).toMatchObject({ profileName: 'api', endpointName: 'one', weight: 9 });
    const imported = await read(ENDPOINT, 'three', 'api/three');
    expect(imported.id).toBe('/tmkit/stacks/pulumi/trafficManagerProfiles/api/externalEndpoints/three');
    expect(imported.inputs).toEqual({
      profileName: 'api',
      endpointName: 'three',
      endpointType: 'ExternalEndpoints',
      target: '192.0.2.13',
      endpointStatus: 'Enabled',
      weight: 1,
      priority: 3,
      geoMapping: [],
      subnets: [],
      customHeaders: [],
      alwaysServe: 'Disabled',
    });
    eps.one = { ...e, outputs: r.outputs, inputs: r.inputs! };
  });

  test('an Endpoint deleted by someone else: its update fails (RESOURCE_GONE, the refresh hint) and writes nothing; its delete is fine', async () => {
    const made = await create(ENDPOINT, 'x', epIns('x'));
    await api.direct.deleteEndpoint('api', 'x');
    const f = await failure(update(ENDPOINT, 'x', made.id, made.outputs, epIns('x'), epIns('x', { weight: 4 })));
    expect(f.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(f.details).toBe(
      `${ENDPOINT} "x": endpoint 'api/x' was deleted by someone else since it was last read; nothing was written: run \`pulumi refresh\` to take the change into the state (the next \`pulumi up\` then shows what it would undo), then \`pulumi up\``,
    );
    expect((await api.direct.getProfile('api')).profile.endpoints.map((e) => e.name)).toEqual(['one', 'two', 'three']);
    await del(ENDPOINT, 'x', made.id, made.outputs, epIns('x'));
  });

  test("the server's validation of the whole profile is shown at the Endpoint's paths", async () => {
    const f = await failure(create(ENDPOINT, 'four', epIns('four', { target: '192.0.2.11' })));
    expect(f.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(f.details).toBe(
      'tmkit:index:Endpoint "four": the tmkit server refused to create it, nothing was written:\n  target: target 192.0.2.11 is also the target of endpoint "one"; no two endpoints of a profile share a target IP (remove one of the endpoints, or give them different addresses) [TARGET_IP_DUPLICATE]',
    );
    expect((await api.direct.getProfile('api')).profile.endpoints).toHaveLength(3);
  });

  test('delete: the profile refuses while its endpoints exist; the Endpoints delete with their ETags, then the profile goes', async () => {
    const f = await failure(del(PROFILE, 'api', profile.id, profile.outputs, profileIns));
    expect(f.details).toContain("profile 'api' still has endpoints 'one', 'two', 'three', which this profile resource does not manage");
    for (const n of ['one', 'two']) await del(ENDPOINT, n, eps[n]!.id, eps[n]!.outputs, eps[n]!.inputs);
    const three = await read(ENDPOINT, 'three', 'api/three');
    await del(ENDPOINT, 'three', three.id, three.outputs, three.inputs!);
    await del(PROFILE, 'api', profile.id, profile.outputs, profileIns);
    expect(await api.direct.findProfile('api')).toBeUndefined();
  });
});

test("another stack's profile is never written by the provider", async () => {
  await api.direct.putProfile(
    { name: 'other', trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'other' }, endpoints: [] },
    { stack: 'team-b' },
  );
  const before = await api.direct.getProfile('other');
  const f = await failure(create(ENDPOINT, 'sneak', { profileName: 'other', endpointType: 'ExternalEndpoints', target: '192.0.2.50' }));
  expect(f.code).toBe(grpc.status.PERMISSION_DENIED);
  expect(f.details).toContain(
    "profile 'other' belongs to tmkit stack 'team-b', not to this provider's stack 'pulumi', so it is never written",
  );
  const g = await failure(create(PROFILE, 'other', { trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'other2' } }));
  expect(g.details).toContain("profile 'other' belongs to tmkit stack 'team-b'");
  expect(await api.direct.getProfile('other')).toEqual(before);
  expect(logged).toEqual([]);
});

test('an unreachable server and a wrong token fail with what to do, by gRPC status', async () => {
  for (const [config, code, text] of [
    [
      { server: 'http://127.0.0.1:1', token: TOKEN },
      grpc.status.UNAVAILABLE,
      /cannot reach the tmkit server at http:\/\/127\.0\.0\.1:1 after 4 attempts.*is `tmkit serve` running there\? Set tmkit:server/,
    ],
    [
      { server: api.h.base, token: 'wrong' },
      grpc.status.UNAUTHENTICATED,
      /the tmkit server refused the token \(HTTP 401\): set tmkit:token/,
    ],
  ] as const) {
    const other = await serve(tmkitProvider({}), { writePort: () => undefined, log: () => undefined });
    const c = connect(other.port);
    try {
      await c.call('configure', new provproto.ConfigureRequest().setArgs(struct(config)));
      const f = await failure(
        c.call(
          'create',
          new provproto.CreateRequest()
            .setUrn(urn(PROFILE, 'nowhere'))
            .setProperties(struct({ profileName: 'nowhere', trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'nowhere' } })),
        ),
      );
      expect(f.code).toBe(code);
      expect(f.details).toMatch(text);
    } finally {
      c.close();
      await other.stop();
    }
  }
  expect(await api.direct.findProfile('nowhere')).toBeUndefined();
});
