/**
 * behaviors.md §6: the three status tables, one named test per row, against the pure functions.
 */
import {
  countChildEndpoints,
  endpointMonitorStatus,
  isAvailable,
  isEligible,
  nestedEndpointStatus,
  profileMonitorStatus,
  type ChildEndpointCounts,
} from '../../../src/core/health/status';
import type { EndpointMonitorStatus, ProfileMonitorStatus } from '../../../src/core/health/types';

describe('§6 endpoint monitor status (one row each)', () => {
  test.each([
    [
      'Disabled profile, Enabled endpoint → Inactive, not answered',
      { profileStatus: 'Disabled', endpointStatus: 'Enabled', verdict: 'Online' },
      'Inactive',
      false,
    ],
    [
      'any profile (Enabled), Disabled endpoint → Disabled, not answered',
      { profileStatus: 'Enabled', endpointStatus: 'Disabled', verdict: 'Online' },
      'Disabled',
      false,
    ],
    [
      'any profile (Disabled), Disabled endpoint → Disabled, not answered',
      { profileStatus: 'Disabled', endpointStatus: 'Disabled' },
      'Disabled',
      false,
    ],
    [
      'Enabled/Enabled, probe Online → Online, answered',
      { profileStatus: 'Enabled', endpointStatus: 'Enabled', verdict: 'Online' },
      'Online',
      true,
    ],
    [
      'Enabled/Enabled, probe Degraded → Degraded, not answered (except all-degraded fallback)',
      { profileStatus: 'Enabled', endpointStatus: 'Enabled', verdict: 'Degraded' },
      'Degraded',
      false,
    ],
    [
      'Enabled/Enabled, probe CheckingEndpoint → CheckingEndpoint, answered',
      { profileStatus: 'Enabled', endpointStatus: 'Enabled', verdict: 'CheckingEndpoint' },
      'CheckingEndpoint',
      true,
    ],
    [
      'Enabled/Enabled, no probe result yet → CheckingEndpoint, answered',
      { profileStatus: 'Enabled', endpointStatus: 'Enabled' },
      'CheckingEndpoint',
      true,
    ],
    [
      'Enabled/Enabled, Azure resource stopped → Stopped, not answered',
      { profileStatus: 'Enabled', endpointStatus: 'Enabled', verdict: 'Online', resource: 'stopped' },
      'Stopped',
      false,
    ],
    [
      'Enabled/Enabled, Azure resource missing → Stopped, not answered',
      { profileStatus: 'Enabled', endpointStatus: 'Enabled', resource: 'missing' },
      'Stopped',
      false,
    ],
    [
      'Enabled/Enabled, Always Serve → Unmonitored, answered (even if a stale verdict says Degraded)',
      { profileStatus: 'Enabled', endpointStatus: 'Enabled', alwaysServe: 'Enabled', verdict: 'Degraded' },
      'Unmonitored',
      true,
    ],
    [
      'Enabled/Enabled, nested child Stopped → Stopped',
      { profileStatus: 'Enabled', endpointStatus: 'Enabled', nested: 'Stopped' },
      'Stopped',
      false,
    ],
    [
      'Disabled nested endpoint stays Disabled whatever the child',
      { profileStatus: 'Enabled', endpointStatus: 'Disabled', nested: 'Online' },
      'Disabled',
      false,
    ],
    [
      'nested endpoints ignore Always Serve (not allowed there): the child decides',
      { profileStatus: 'Enabled', endpointStatus: 'Enabled', alwaysServe: 'Enabled', nested: 'Degraded' },
      'Degraded',
      false,
    ],
  ] as const)('%s', (_name, facts, status, answered) => {
    const s = endpointMonitorStatus(facts);
    expect(s).toBe(status);
    expect(isAvailable(s)).toBe(answered);
  });

  test('eligibility for the all-degraded fallback: Degraded yes; Disabled, Stopped, Inactive no', () => {
    const all: EndpointMonitorStatus[] = ['Online', 'CheckingEndpoint', 'Unmonitored', 'Degraded', 'Disabled', 'Stopped', 'Inactive'];
    expect(all.filter(isEligible)).toEqual(['Online', 'CheckingEndpoint', 'Unmonitored', 'Degraded']);
  });
});

describe('§6 profile monitor status (one row each)', () => {
  test.each<[string, 'Enabled' | 'Disabled', EndpointMonitorStatus[], ProfileMonitorStatus]>([
    ['Disabled profile with endpoints → Disabled', 'Disabled', ['Inactive', 'Inactive'], 'Disabled'],
    ['Disabled profile with no endpoints → Disabled', 'Disabled', [], 'Disabled'],
    ['≥ 1 Degraded → Degraded (even with Online ones)', 'Enabled', ['Online', 'Degraded', 'CheckingEndpoint'], 'Degraded'],
    ['≥ 1 Online, none Degraded → Online', 'Enabled', ['Online', 'CheckingEndpoint', 'Stopped'], 'Online'],
    ['Unmonitored counts as Online (tmkit)', 'Enabled', ['Unmonitored', 'Disabled'], 'Online'],
    [
      '≥ 1 CheckingEndpoint, none Online/Degraded → CheckingEndpoints',
      'Enabled',
      ['CheckingEndpoint', 'Disabled', 'Stopped'],
      'CheckingEndpoints',
    ],
    ['all Disabled or Stopped → Inactive', 'Enabled', ['Disabled', 'Stopped'], 'Inactive'],
    ['no endpoints → Inactive', 'Enabled', [], 'Inactive'],
  ])('%s', (_name, profileStatus, endpoints, expected) => {
    expect(profileMonitorStatus(profileStatus, endpoints)).toBe(expected);
  });
});

const counts = (online: number, checking: number, v4: [number, number] = [0, 0], v6: [number, number] = [0, 0]): ChildEndpointCounts => ({
  online,
  checking,
  onlineIPv4: v4[0],
  checkingIPv4: v4[1],
  onlineIPv6: v6[0],
  checkingIPv6: v6[1],
});

describe('§6 nested endpoint status from the child (one row each)', () => {
  test.each<[string, ProfileMonitorStatus, ChildEndpointCounts, number, string]>([
    ['child Disabled → Stopped (not Disabled)', 'Disabled', counts(0, 0), 1, 'Stopped'],
    ['child Inactive → Stopped', 'Inactive', counts(0, 0), 1, 'Stopped'],
    ['child Online, #Online ≥ Min → Online', 'Online', counts(2, 0), 2, 'Online'],
    ['child Online, #Online < Min ≤ #Online+#Checking → CheckingEndpoint', 'Online', counts(1, 1), 2, 'CheckingEndpoint'],
    ['child Online, #Online+#Checking < Min → Degraded', 'Online', counts(1, 0), 2, 'Degraded'],
    ['child Degraded, #Online ≥ Min → Online', 'Degraded', counts(1, 0), 1, 'Online'],
    ['child Degraded, only checking ones reach Min → CheckingEndpoint', 'Degraded', counts(0, 1), 1, 'CheckingEndpoint'],
    ['child Degraded, nothing reaches Min → Degraded', 'Degraded', counts(0, 0), 1, 'Degraded'],
    ['child CheckingEndpoints, #Checking ≥ Min → CheckingEndpoint', 'CheckingEndpoints', counts(0, 3), 3, 'CheckingEndpoint'],
    ['child CheckingEndpoints, #Checking < Min → Degraded', 'CheckingEndpoints', counts(0, 2), 3, 'Degraded'],
  ])('%s', (_name, child, c, min, expected) => {
    expect(nestedEndpointStatus(child, c, { minChildEndpoints: min })).toBe(expected);
  });

  test.each<[string, ChildEndpointCounts, { minChildEndpointsIPv4?: number; minChildEndpointsIPv6?: number }, string]>([
    ['IPv4 and IPv6 minimums met → Online', counts(4, 0, [2, 0], [2, 0]), { minChildEndpointsIPv4: 2, minChildEndpointsIPv6: 2 }, 'Online'],
    [
      'IPv6 minimum missed → Degraded although the total is enough',
      counts(4, 0, [3, 0], [1, 0]),
      { minChildEndpointsIPv4: 2, minChildEndpointsIPv6: 2 },
      'Degraded',
    ],
    [
      'IPv4 minimum met only with checking ones → CheckingEndpoint',
      counts(3, 1, [1, 1], [2, 0]),
      { minChildEndpointsIPv4: 2, minChildEndpointsIPv6: 2 },
      'CheckingEndpoint',
    ],
    ['IPv6 minimum 0 means no requirement', counts(1, 0, [1, 0], [0, 0]), { minChildEndpointsIPv4: 1, minChildEndpointsIPv6: 0 }, 'Online'],
  ])('MinChildEndpointsIPv4/IPv6: %s', (_name, c, min, expected) => {
    expect(nestedEndpointStatus('Online', c, { minChildEndpoints: 1, ...min })).toBe(expected);
  });

  test('countChildEndpoints counts Online+Unmonitored as online, and by record kind', () => {
    expect(
      countChildEndpoints(
        ['Online', 'Unmonitored', 'CheckingEndpoint', 'Degraded', 'Online', 'CheckingEndpoint', 'Stopped'],
        ['A', 'AAAA', 'A', 'A', 'CNAME', 'AAAA', 'A'],
      ),
    ).toEqual(counts(3, 2, [1, 1], [1, 1]));
  });
});
