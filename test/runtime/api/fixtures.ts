import { normalizeProfile } from '../../../src/core/model/normalize';
import type { Profile, ProfileInput } from '../../../src/core/model/types';

/** A small valid external-endpoint profile input (Priority, two IP endpoints). */
export function profileInput(name: string, overrides: Partial<ProfileInput> = {}): ProfileInput {
  return {
    name,
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: name, ttl: 30 },
    monitorConfig: { protocol: 'HTTP', port: 80, path: '/' },
    endpoints: [
      { name: 'primary', type: 'externalEndpoints', target: '192.0.2.10' },
      { name: 'secondary', type: 'externalEndpoints', target: '192.0.2.20' },
    ],
    ...overrides,
  };
}

export function profile(name: string, overrides: Partial<ProfileInput> = {}): Profile {
  return normalizeProfile(profileInput(name, overrides));
}

/** A parent whose one nested endpoint points at `child`. */
export function parentInput(name: string, child: string): ProfileInput {
  return profileInput(name, {
    endpoints: [{ name: 'nested', type: 'nestedEndpoints', targetResourceId: child, endpointLocation: 'westeurope', minChildEndpoints: 1 }],
  });
}
