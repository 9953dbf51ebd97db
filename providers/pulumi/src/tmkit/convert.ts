/**
 * The tmkit resource types' property names (azure-native's network.Profile and network.Endpoint, minus
 * resourceGroupName and location) and their translation to and from the tmkit model (ARM names as well;
 * only the names of the resource's own identity differ: profileName ↔ name, endpointName ↔ name,
 * endpointType ↔ type). Pure.
 */
import { fullEndpointType, parseEndpointType } from '../../../../src/core/model/names';
import type { Endpoint, EndpointInput, EndpointType, Profile, ProfileInput } from '../../../../src/core/model/types';
import { isObject, isUnknown, type Plain, type PlainMap, type PropertyMap, type Value } from '../values';

export const PROFILE_TOKEN = 'tmkit:index:Profile';
export const ENDPOINT_TOKEN = 'tmkit:index:Endpoint';
/** ARM's resource type of a profile (azure-native's `type` output). */
export const PROFILE_ARM_TYPE = 'Microsoft.Network/trafficManagerProfiles';

/** A profile's settings as inputs (the names the model and azure-native share). */
export const PROFILE_SETTINGS = [
  'profileStatus',
  'trafficRoutingMethod',
  'dnsConfig',
  'monitorConfig',
  'trafficViewEnrollmentStatus',
  'maxReturn',
  'tags',
  'allowedEndpointRecordTypes',
  'failback',
  'performanceLatency',
] as const;
/** Every Profile input: azure-native's, minus resourceGroupName (`location` and `type` only as ARM has them). */
export const PROFILE_INPUTS = ['profileName', ...PROFILE_SETTINGS, 'endpoints', 'location', 'type'] as const;
/** An endpoint's own properties (model and azure-native names). */
export const ENDPOINT_PROPERTIES = [
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
] as const;
/** Every Endpoint input: azure-native's network.Endpoint, minus resourceGroupName. */
export const ENDPOINT_INPUTS = [
  'profileName',
  'endpointName',
  'endpointType',
  'name',
  'type',
  ...ENDPOINT_PROPERTIES,
  'endpointMonitorStatus',
] as const;
/** Properties of an inline endpoint (azure-native's Endpoint type in a Profile's `endpoints`). */
export const INLINE_ENDPOINT_INPUTS = ['name', 'type', ...ENDPOINT_PROPERTIES, 'id', 'endpointMonitorStatus'] as const;

/** azure-native's `endpointType` values. */
const ENDPOINT_TYPE_NAMES: Record<EndpointType, string> = {
  azureEndpoints: 'AzureEndpoints',
  externalEndpoints: 'ExternalEndpoints',
  nestedEndpoints: 'NestedEndpoints',
};

export function endpointTypeName(t: EndpointType): string {
  return ENDPOINT_TYPE_NAMES[t];
}

const str = (v: Plain | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/** A deep copy with `undefined` members dropped (model values are JSON). */
function plain<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

// ---------------------------------------------------------------------------------------------------
// Inputs → model (values may still hold Unknowns; callers that write have none)

/** An inline endpoint's inputs as a model endpoint input: azure-native's output-only fields dropped. */
export function inlineEndpointInput(e: Plain): EndpointInput {
  if (!isObject(e)) return e as unknown as EndpointInput;
  const { id: _id, endpointMonitorStatus: _m, ...rest } = e as PlainMap;
  return rest as unknown as EndpointInput;
}

/**
 * A Profile's inputs as the model's profile input: profileName is the name, `location`/`type` (ARM's
 * envelope) and output-only fields (`dnsConfig.fqdn`, `monitorConfig.profileMonitorStatus`) are dropped, and
 * `endpoints` is kept only when given.
 */
export function profileInput(inputs: PlainMap): ProfileInput {
  const out: PlainMap = { name: inputs.profileName ?? null };
  for (const k of PROFILE_SETTINGS) if (inputs[k] !== undefined && inputs[k] !== null) out[k] = inputs[k]!;
  const dns = out.dnsConfig;
  if (isObject(dns)) {
    const { fqdn: _f, ...d } = dns as PlainMap;
    out.dnsConfig = d;
  }
  const monitor = out.monitorConfig;
  if (isObject(monitor)) {
    const { profileMonitorStatus: _s, ...m } = monitor as PlainMap;
    out.monitorConfig = m;
  }
  const eps = inputs.endpoints;
  if (Array.isArray(eps)) out.endpoints = eps.map((e) => inlineEndpointInput(e) as unknown as Plain);
  else if (eps !== undefined && eps !== null) out.endpoints = eps;
  return out as unknown as ProfileInput;
}

/** True when the Profile declares its endpoints (then it owns the whole set). */
export function ownsEndpoints(inputs: PlainMap | PropertyMap | undefined): boolean {
  if (!inputs) return false;
  const e = inputs.endpoints;
  return e !== undefined && e !== null;
}

/** An Endpoint's inputs as the model's endpoint input (endpointName is the name, endpointType the type). */
export function endpointInput(inputs: PlainMap): EndpointInput {
  const out: PlainMap = { name: inputs.endpointName ?? inputs.name ?? null, type: inputs.endpointType ?? inputs.type ?? null };
  for (const k of ENDPOINT_PROPERTIES) if (inputs[k] !== undefined && inputs[k] !== null) out[k] = inputs[k]!;
  return out as unknown as EndpointInput;
}

// ---------------------------------------------------------------------------------------------------
// Model → outputs and inputs

/** Outputs/inputs of one endpoint inside a Profile: azure-native's shape, `type` as the full ARM type. */
function inlineEndpoint(e: Endpoint): PropertyMap {
  return { ...(plain(e) as unknown as PropertyMap), type: fullEndpointType(e.type) };
}

/** The inputs that produce this stored profile (refresh and import), with or without its endpoints. */
export function profileInputsOf(p: Profile, withEndpoints: boolean): PropertyMap {
  const { name, endpoints, ...settings } = plain(p);
  const out: PropertyMap = { profileName: name, ...(settings as unknown as PropertyMap) };
  if (withEndpoints) out.endpoints = endpoints.map(inlineEndpoint);
  return out;
}

/** The Profile's outputs: its inputs, plus `name`, `type`, `dnsConfig.fqdn`, the owning stack and (owning its endpoints) the ETag. */
export function profileOutputsOf(p: Profile, o: { withEndpoints: boolean; fqdn: Value; stack: string; etag?: string }): PropertyMap {
  const inputs = profileInputsOf(p, o.withEndpoints);
  const out: PropertyMap = {
    ...inputs,
    name: p.name,
    type: PROFILE_ARM_TYPE,
    dnsConfig: { ...(inputs.dnsConfig as PropertyMap), fqdn: o.fqdn },
    stack: o.stack,
  };
  if (o.etag !== undefined) out.etag = o.etag;
  return out;
}

/** The stored profile an earlier write or read recorded in the outputs (the prior state of a write). */
export function profileFromOutputs(outs: PlainMap): ProfileInput {
  const input = profileInput({ ...outs, profileName: outs.profileName ?? outs.name ?? null });
  return input;
}

/** The inputs that produce this stored endpoint of `profile` (refresh and import). */
export function endpointInputsOf(profile: string, e: Endpoint): PropertyMap {
  const { name, type, ...rest } = plain(e);
  return { profileName: profile, endpointName: name, endpointType: endpointTypeName(type), ...(rest as unknown as PropertyMap) };
}

/** The Endpoint's outputs: its inputs, plus azure-native's `name` and `type` (full ARM type), the stack and the endpoint's ETag. */
export function endpointOutputsOf(profile: string, e: Endpoint, o: { stack: string; etag: string }): PropertyMap {
  return { ...endpointInputsOf(profile, e), name: e.name, type: fullEndpointType(e.type), stack: o.stack, etag: o.etag };
}

/** The stored endpoint an earlier write or read recorded in the outputs. */
export function endpointFromOutputs(outs: PlainMap): EndpointInput {
  return endpointInput(outs);
}

/** The endpoint type of an Endpoint's inputs, when known and valid. */
export function endpointTypeOf(inputs: PlainMap): EndpointType | undefined {
  const t = str(inputs.endpointType) ?? str(inputs.type);
  return t === undefined ? undefined : parseEndpointType(t);
}

/** True when `v` is a string that is known (not Unknown), for names used as identities. */
export function knownString(v: Plain | undefined): v is string {
  return typeof v === 'string' && !isUnknown(v);
}
