/**
 * The shape of the JSON Azure prints for Traffic Manager profiles (arm-import.ts): what a profile resource
 * looks like (REST / `az resource show`, or flattened by `az network traffic-manager profile show`), which
 * kind of input a value is, and which properties are Azure's read-only ones or part of `tmkit/v1`.
 */

export type ArmInputKind = 'tmkit' | 'arm-profile' | 'arm-profile-list' | 'arm-template' | 'unknown';

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const PROFILE_TYPE = 'microsoft.network/trafficmanagerprofiles';

function isProfileResource(v: unknown): v is Obj {
  if (!isObj(v)) return false;
  if (typeof v.type === 'string') return v.type.trim().toLowerCase() === PROFILE_TYPE;
  // `type` missing: accept anything that clearly is a profile (REST PUT bodies omit it).
  const p = isObj(v.properties) ? v.properties : v;
  return typeof p.trafficRoutingMethod === 'string' && 'name' in v;
}

/** What kind of input this is: a tmkit document, ARM profile(s), an ARM template, or unknown. */
export function detectArmInput(input: unknown): ArmInputKind {
  if (isObj(input) && typeof input.apiVersion === 'string' && input.apiVersion.startsWith('tmkit/')) return 'tmkit';
  if (isObj(input) && Array.isArray(input.resources)) return 'arm-template';
  if (Array.isArray(input)) return input.length > 0 && input.every(isProfileResource) ? 'arm-profile-list' : 'unknown';
  if (isObj(input) && Array.isArray(input.value) && input.value.every(isProfileResource)) return 'arm-profile-list';
  if (isProfileResource(input)) return 'arm-profile';
  return 'unknown';
}

// ---------------------------------------------------------------------------------------------------
// Properties

/** Properties Azure computes; never part of a desired state. */
export const READ_ONLY_PROFILE = new Set([
  'id',
  'type',
  'location',
  'resourceGroup',
  'etag',
  'systemData',
  'apiVersion',
  'dependsOn',
  'resources',
  'comments',
  'condition',
  'copy',
  'scope',
]);
export const READ_ONLY_ENDPOINT = new Set([
  'id',
  'type',
  'endpointMonitorStatus',
  'resourceGroup',
  'etag',
  'systemData',
  'apiVersion',
  'dependsOn',
  'comments',
  'condition',
  'copy',
  'scope',
]);
export const PROFILE_PROPS = new Set([
  'profileStatus',
  'trafficRoutingMethod',
  'dnsConfig',
  'monitorConfig',
  'endpoints',
  'maxReturn',
  'trafficViewEnrollmentStatus',
  'allowedEndpointRecordTypes',
]);
export const ENDPOINT_PROPS = new Set([
  'target',
  'targetResourceId',
  'endpointStatus',
  'weight',
  'priority',
  'endpointLocation',
  'minChildEndpoints',
  'minChildEndpointsIPv4',
  'minChildEndpointsIPv6',
  'geoMapping',
  'subnets',
  'customHeaders',
  'alwaysServe',
]);
