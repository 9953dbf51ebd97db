/**
 * The SDK classes of `tmkit/pulumi` (src/pulumi) under Pulumi's mocks (pulumi.runtime.setMocks): what each
 * registers with the engine (type token, inputs, the output properties it asks for, secrets, dependencies,
 * provider references) and that the outputs come back typed on the instances.
 */
import * as pulumi from '@pulumi/pulumi';
import * as network from '../../src/pulumi';

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  provider?: string;
  id?: string;
}
const registered: Registered[] = [];

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        registered.push({
          type: args.type,
          name: args.name,
          inputs: args.inputs,
          ...(args.provider ? { provider: args.provider } : {}),
          ...(args.id ? { id: args.id } : {}),
        });
        if (args.type === 'tmkit:index:Profile') {
          const name = (args.inputs.profileName as string | undefined) ?? args.name;
          const dns = (args.inputs.dnsConfig as { relativeName: string; ttl?: number } | undefined) ?? { relativeName: name };
          return {
            id: args.id || `/tmkit/stacks/pulumi/trafficManagerProfiles/${name}`,
            state: {
              ...args.inputs,
              profileName: name,
              name,
              type: 'Microsoft.Network/trafficManagerProfiles',
              dnsConfig: { ttl: 30, ...dns, fqdn: `${dns.relativeName}.tm.test` },
              stack: 'pulumi',
            },
          };
        }
        if (args.type === 'tmkit:index:Endpoint') {
          const endpointName = (args.inputs.endpointName as string | undefined) ?? args.name;
          return {
            id: `/tmkit/stacks/pulumi/trafficManagerProfiles/${String(args.inputs.profileName)}/externalEndpoints/${endpointName}`,
            state: { ...args.inputs, endpointName, priority: 3, etag: '"e1"' },
          };
        }
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: (args) => args.inputs,
    },
    'proj',
    'dev',
    false,
  );
});

const value = <T>(o: pulumi.Output<T>): Promise<T> =>
  new Promise((resolve) =>
    o.apply((v) => {
      resolve(v);
      return v;
    }),
  );
const registration = (type: string, name: string): Registered => {
  const r = registered.find((x) => x.type === type && x.name === name);
  if (!r) throw new Error(`${type} ${name} was not registered (registered: ${registered.map((x) => `${x.type}/${x.name}`).join(', ')})`);
  return r;
};

test('Profile registers tmkit:index:Profile with the azure-native argument names, and its outputs are typed', async () => {
  const p = new network.Profile('contoso', {
    trafficRoutingMethod: network.TrafficRoutingMethod.Weighted,
    dnsConfig: { relativeName: 'contoso', ttl: 30 },
    monitorConfig: { protocol: network.MonitorProtocol.HTTP, port: 80, path: '/health' },
    endpoints: [{ name: 'a', type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints', target: '192.0.2.1', weight: 2 }],
  });
  expect(await value(p.id)).toBe('/tmkit/stacks/pulumi/trafficManagerProfiles/contoso');
  expect(await value(p.dnsConfig)).toEqual({ relativeName: 'contoso', ttl: 30, fqdn: 'contoso.tm.test' });
  expect(await value(p.name)).toBe('contoso');
  expect(await value(p.type)).toBe('Microsoft.Network/trafficManagerProfiles');
  const r = registration('tmkit:index:Profile', 'contoso');
  expect(r.inputs).toEqual({
    trafficRoutingMethod: 'Weighted',
    dnsConfig: { relativeName: 'contoso', ttl: 30 },
    monitorConfig: { protocol: 'HTTP', port: 80, path: '/health' },
    endpoints: [{ name: 'a', type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints', target: '192.0.2.1', weight: 2 }],
  });
  expect(network.Profile.isInstance(p)).toBe(true);
  expect(network.Endpoint.isInstance(p)).toBe(false);
});

test("Endpoint takes the profile's outputs (a dependency) and a nested endpoint the child's id", async () => {
  const child = new network.Profile('child', { trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'child' } });
  const parent = new network.Profile('parent', { trafficRoutingMethod: 'Performance', dnsConfig: { relativeName: 'parent' } });
  const nested = new network.Endpoint('eu', {
    profileName: parent.name,
    endpointType: network.EndpointType.NestedEndpoints,
    targetResourceId: child.id,
    endpointLocation: 'westeurope',
    minChildEndpoints: 1,
  });
  const ext = new network.Endpoint('us', {
    profileName: child.name,
    endpointName: 'us-1',
    endpointType: 'ExternalEndpoints',
    target: '192.0.2.5',
    alwaysServe: network.AlwaysServe.Enabled,
  });
  expect(await value(nested.priority)).toBe(3);
  expect(await value(ext.endpointName)).toBe('us-1');
  expect(registration('tmkit:index:Endpoint', 'eu').inputs).toEqual({
    profileName: 'parent',
    endpointType: 'NestedEndpoints',
    targetResourceId: '/tmkit/stacks/pulumi/trafficManagerProfiles/child',
    endpointLocation: 'westeurope',
    minChildEndpoints: 1,
  });
  expect(registration('tmkit:index:Endpoint', 'us').inputs).toEqual({
    profileName: 'child',
    endpointName: 'us-1',
    endpointType: 'ExternalEndpoints',
    target: '192.0.2.5',
    alwaysServe: 'Enabled',
  });
});

test('Provider registers pulumi:providers:tmkit with the token as a secret; resources given it carry the reference', async () => {
  const tm = new network.Provider('tm', { server: 'http://127.0.0.1:5380', token: 't0ken', stack: 'team-a' });
  const p = new network.Profile('with-provider', { trafficRoutingMethod: 'Priority', dnsConfig: { relativeName: 'wp' } }, { provider: tm });
  await value(p.id);
  const r = registration('pulumi:providers:tmkit', 'tm');
  // The token reaches the engine inside a secret envelope, given in plain text or not.
  expect(r.inputs).toEqual({
    server: 'http://127.0.0.1:5380',
    token: { '4dabf18193072939515e22adb298388d': '1b47061264138c4ac30d75fd1eb44270', value: 't0ken' },
    stack: 'team-a',
  });
  expect(registration('tmkit:index:Profile', 'with-provider').provider).toMatch(
    /^urn:pulumi:dev::proj::pulumi:providers:tmkit::tm::tm-id$/,
  );
  expect(network.Provider.isInstance(tm)).toBe(true);
});

test('Profile.get reads an existing profile by id and registers no inputs', async () => {
  const got = network.Profile.get('legacy', '/tmkit/stacks/pulumi/trafficManagerProfiles/legacy');
  expect(await value(got.id)).toBe('/tmkit/stacks/pulumi/trafficManagerProfiles/legacy');
  const r = registration('tmkit:index:Profile', 'legacy');
  expect(r.id).toBe('/tmkit/stacks/pulumi/trafficManagerProfiles/legacy');
  expect(r.inputs).toEqual({});
});

test("the enums carry azure-native's values", () => {
  expect(Object.values(network.TrafficRoutingMethod)).toEqual([
    'Performance',
    'Priority',
    'Weighted',
    'Geographic',
    'MultiValue',
    'Subnet',
  ]);
  expect(network.EndpointType).toEqual({
    AzureEndpoints: 'AzureEndpoints',
    ExternalEndpoints: 'ExternalEndpoints',
    NestedEndpoints: 'NestedEndpoints',
  });
  expect(network.ProfileStatus.Disabled).toBe('Disabled');
});
