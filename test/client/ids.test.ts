/** The providers' id scheme (src/client/ids.ts): ids round-trip, and import takes ARM ids and plain names. */
import fc from 'fast-check';
import { endpointId, parseEndpointId, parseProfileId, profileId } from '../../src/client';

const name = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/);
const type = fc.constantFrom('azureEndpoints', 'externalEndpoints', 'nestedEndpoints' as const);

test('every id parses back to what made it', () => {
  fc.assert(fc.property(name, name, name, type, (stack, profile, endpoint, t) => {
    expect(profileId(stack, profile)).toMatch(new RegExp(`/trafficManagerProfiles/${profile}$`));
    expect(parseProfileId(profileId(stack, profile))).toBe(profile);
    expect(parseEndpointId(endpointId(stack, profile, t, endpoint))).toEqual({ profile, name: endpoint, type: t });
  }));
});

test.each([
  ['web', 'web'],
  ['/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/web', 'web'],
  ['/tmkit/stacks/pulumi/trafficmanagerprofiles/Web/', 'Web'],
  ['a/b', undefined],
  ['', undefined],
])('parseProfileId(%j) = %j', (id, want) => {
  expect(parseProfileId(id)).toBe(want);
});

test.each([
  ['web/primary', { profile: 'web', name: 'primary' }],
  ['/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/web/ExternalEndpoints/primary', { profile: 'web', name: 'primary', type: 'externalEndpoints' }],
  ['/tmkit/stacks/x/trafficManagerProfiles/web/sideways/primary', undefined],
  ['web', undefined],
])('parseEndpointId(%j) = %j', (id, want) => {
  expect(parseEndpointId(id)).toEqual(want);
});
