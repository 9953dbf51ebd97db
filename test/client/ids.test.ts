/** The providers' id scheme (src/client/ids.ts): ids round-trip, and import takes ARM ids and plain names. */
import fc from 'fast-check';
import { endpointId, parseEndpointId, parseEndpointRef, parseProfileId, parseProfileRef, profileId, TERRAFORM_IDS } from '../../src/client';

const name = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/);
const type = fc.constantFrom('azureEndpoints', 'externalEndpoints', 'nestedEndpoints' as const);

test('every id parses back to what made it', () => {
  fc.assert(
    fc.property(name, name, name, type, (stack, profile, endpoint, t) => {
      expect(profileId(stack, profile)).toMatch(new RegExp(`/trafficManagerProfiles/${profile}$`));
      expect(parseProfileId(profileId(stack, profile))).toBe(profile);
      expect(parseEndpointId(endpointId(stack, profile, t, endpoint))).toEqual({ profile, name: endpoint, type: t });
    }),
  );
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
  [
    '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/web/ExternalEndpoints/primary',
    { profile: 'web', name: 'primary', type: 'externalEndpoints' },
  ],
  ['/tmkit/stacks/x/trafficManagerProfiles/web/sideways/primary', undefined],
  ['web', undefined],
])('parseEndpointId(%j) = %j', (id, want) => {
  expect(parseEndpointId(id)).toEqual(want);
});

test('the Ref parsers also say the stack a tmkit id names', () => {
  expect(parseProfileRef('/tmkit/stacks/pulumi/trafficManagerProfiles/web')).toEqual({ name: 'web', stack: 'pulumi' });
  expect(parseEndpointRef('/tmkit/stacks/pulumi/trafficManagerProfiles/web/azureEndpoints/a')).toEqual({
    profile: 'web',
    name: 'a',
    type: 'azureEndpoints',
    stack: 'pulumi',
  });
  expect(parseEndpointRef('web/a')).toEqual({ profile: 'web', name: 'a' });
});

test("Terraform's spelling (TERRAFORM_IDS): names URI-encoded, the type capitalized, full endpoint ids only", () => {
  expect(endpointId('s', 'web', 'nestedEndpoints', 'a b', TERRAFORM_IDS)).toBe(
    '/tmkit/stacks/s/trafficManagerProfiles/web/NestedEndpoints/a%20b',
  );
  expect(endpointId('s', 'web', 'nestedEndpoints', 'a b')).toBe('/tmkit/stacks/s/trafficManagerProfiles/web/nestedEndpoints/a b');
  expect(parseEndpointRef('/tmkit/stacks/s/trafficManagerProfiles/web/NestedEndpoints/a%20b', TERRAFORM_IDS)).toEqual({
    profile: 'web',
    name: 'a b',
    type: 'nestedEndpoints',
    stack: 's',
  });
  expect(parseEndpointRef('web/a', TERRAFORM_IDS)).toBeUndefined();
});
