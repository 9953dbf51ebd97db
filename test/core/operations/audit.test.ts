/** The audit log's words for a configuration change (core/operations/audit.ts). */
import { MAX_CHANGE_LINES, profileChanges } from '../../../src/core/operations/audit';
import type { Endpoint, Profile } from '../../../src/core/model/types';

const ep = (name: string, extra: Partial<Endpoint> = {}): Endpoint =>
  ({
    name,
    type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
    target: `${name}.example`,
    endpointStatus: 'Enabled',
    ...extra,
  }) as Endpoint;
const profile = (endpoints: Endpoint[], ttl = 30): Profile =>
  ({
    name: 'web',
    profileStatus: 'Enabled',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'web', ttl },
    monitorConfig: { protocol: 'HTTP', port: 80, path: '/' },
    endpoints,
    trafficViewEnrollmentStatus: 'Disabled',
  }) as unknown as Profile;

test('a change is one line per setting or endpoint property, old → new; added and removed endpoints are named', () => {
  const before = profile([ep('a'), ep('b')]);
  const after = profile([ep('a', { endpointStatus: 'Disabled', weight: 5 }), ep('c')], 60);
  expect(profileChanges(before, after)).toEqual([
    'dnsConfig {"relativeName":"web","ttl":30} → {"relativeName":"web","ttl":60}',
    'endpoint b removed',
    'endpoint a: endpointStatus Enabled → Disabled',
    'endpoint a: weight (none) → 5',
    'endpoint c added (Enabled, c.example)',
  ]);
  expect(profileChanges(undefined, after)).toEqual(['created with endpoints a, c']);
  expect(profileChanges(before, undefined)).toEqual(['deleted (endpoints a, b)']);
  expect(profileChanges(before, before)).toEqual([]);
});

test('a large change is cut to MAX_CHANGE_LINES lines, the rest counted', () => {
  const many = Array.from({ length: 30 }, (_, i) => ep(`e${i}`));
  const lines = profileChanges(profile([]), profile(many));
  expect(lines).toHaveLength(MAX_CHANGE_LINES);
  expect(lines.at(-1)).toBe(`… and ${30 - MAX_CHANGE_LINES + 1} more`);
});
