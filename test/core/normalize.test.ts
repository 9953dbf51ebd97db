import { normalize } from '../../src/core/model/normalize';
import { childProfileName, parseEndpointType } from '../../src/core/model/names';

describe('normalize', () => {
  const doc = normalize({
    apiVersion: 'tmkit/v1',
    profiles: [
      {
        name: 'p',
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: 'p' },
        monitorConfig: { protocol: 'HTTPS', intervalInSeconds: 10 },
        endpoints: [
          {
            name: 'a',
            type: 'Microsoft.Network/trafficManagerProfiles/ExternalEndpoints',
            target: '192.0.2.1',
            endpointLocation: 'West Europe',
          },
          { name: 'b', type: 'NestedEndpoints', targetResourceId: 'child' },
        ],
      },
    ],
  });
  const p = doc.profiles[0]!;

  test('fills Azure defaults', () => {
    expect(doc.stack).toBe('default');
    expect(p.profileStatus).toBe('Enabled');
    expect(p.dnsConfig.ttl).toBe(30);
    expect(p.monitorConfig).toMatchObject({
      protocol: 'HTTPS',
      port: 443,
      path: '/',
      intervalInSeconds: 10,
      timeoutInSeconds: 9,
      toleratedNumberOfFailures: 3,
    });
    expect(p.endpoints[0]).toMatchObject({
      type: 'externalEndpoints',
      endpointStatus: 'Enabled',
      weight: 1,
      alwaysServe: 'Disabled',
      endpointLocation: 'westeurope',
    });
    expect(p.endpoints[1]).toMatchObject({ type: 'nestedEndpoints', minChildEndpoints: 1 });
  });

  test('derives priorities from order when none is given', () => {
    expect(p.endpoints.map((e) => e.priority)).toEqual([1, 2]);
  });

  test('is idempotent', () => {
    expect(normalize(doc)).toEqual(doc);
  });

  test('never throws on garbage', () => {
    for (const junk of [null, 1, 'x', [], { profiles: 'no' }, { profiles: [null, 1, { endpoints: [null] }] }]) {
      expect(() => normalize(junk as never)).not.toThrow();
    }
  });
});

test.each([
  ['externalEndpoints', 'externalEndpoints'],
  ['AzureEndpoints', 'azureEndpoints'],
  ['Microsoft.network/TrafficManagerProfiles/NestedEndpoints', 'nestedEndpoints'],
  ['bogus', undefined],
])('parseEndpointType(%s)', (input, expected) => {
  expect(parseEndpointType(input)).toBe(expected);
});

test.each([
  ['child', 'child'],
  ['/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/child', 'child'],
])('childProfileName(%s)', (input, expected) => {
  expect(childProfileName(input)).toBe(expected);
});
