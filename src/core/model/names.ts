import type { EndpointType, Profile } from './types';

const FULL_TYPE_PREFIX = 'microsoft.network/trafficmanagerprofiles/';

/**
 * The short endpoint type for a short or full ARM type string, matched case-insensitively as ARM does
 * (`ExternalEndpoints`, `Microsoft.Network/trafficManagerProfiles/externalEndpoints`). Undefined when unknown.
 */
export function parseEndpointType(type: string): EndpointType | undefined {
  let t = type.trim().toLowerCase();
  if (t.startsWith(FULL_TYPE_PREFIX)) t = t.slice(FULL_TYPE_PREFIX.length);
  switch (t) {
    case 'azureendpoints':
      return 'azureEndpoints';
    case 'externalendpoints':
      return 'externalEndpoints';
    case 'nestedendpoints':
      return 'nestedEndpoints';
    default:
      return undefined;
  }
}

/** The full ARM resource type of an endpoint type. */
export function fullEndpointType(type: EndpointType): string {
  return `Microsoft.Network/trafficManagerProfiles/${type}`;
}

const PROFILE_SEGMENT = /\/trafficmanagerprofiles\/([^/]+)\/?$/i;

/**
 * The child profile a nested endpoint names: its `targetResourceId` is either the profile name or an
 * ARM-style id ending in `/trafficManagerProfiles/<name>` (README.md, Concepts).
 */
export function childProfileName(targetResourceId: string): string {
  const m = PROFILE_SEGMENT.exec(targetResourceId.trim());
  if (!m) return targetResourceId.trim();
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1]!; // malformed %-escape: keep the segment as written (never throw)
  }
}

/**
 * Child profile names a profile nests, lower-cased (profile names are matched case-insensitively, as the
 * routing engine and ARM do). Enabled or not: a disabled nested endpoint still references its child.
 */
export function nestedChildren(p: Profile): string[] {
  return p.endpoints
    .filter((e) => e.type === 'nestedEndpoints' && typeof e.targetResourceId === 'string')
    .map((e) => childProfileName(e.targetResourceId!).toLowerCase());
}

/** `<relativeName>.<zone>`, lower-case, without a trailing dot. */
export function profileFqdn(relativeName: string, zone: string): string {
  const z = zone.replace(/\.$/, '').toLowerCase();
  const r = relativeName.replace(/\.$/, '').toLowerCase();
  return z === '' ? r : `${r}.${z}`;
}
