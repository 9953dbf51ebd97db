/**
 * Terraform ids of tmkit objects (docs/ARCHITECTURE.md, "Providers"). They end as azurerm's do, so configurations that pass ids
 * around (a nested endpoint's `target_resource_id = tmkit_profile.child.id`) keep working after the rename:
 *
 *   profile   /tmkit/stacks/<stack>/trafficManagerProfiles/<name>
 *   endpoint  <profile id>/<ExternalEndpoints|AzureEndpoints|NestedEndpoints>/<name>
 *
 * The stack is part of the id because it is part of the object's identity here (who owns it). Imports
 * also take azurerm's own ids (`/subscriptions/…/providers/Microsoft.Network/trafficManagerProfiles/<name>`
 * and its endpoints) and a bare profile name, and use the provider's stack for those. Pure.
 */
import type { EndpointType } from '../../../../src/core/model/types';

/** The stack a Terraform configuration owns when the provider block names none. */
export const DEFAULT_TERRAFORM_STACK = 'terraform';

export type EndpointKind = 'ExternalEndpoints' | 'AzureEndpoints' | 'NestedEndpoints';

export const KIND_OF_TYPE: Record<EndpointType, EndpointKind> = {
  externalEndpoints: 'ExternalEndpoints',
  azureEndpoints: 'AzureEndpoints',
  nestedEndpoints: 'NestedEndpoints',
};
export const TYPE_OF_KIND: Record<EndpointKind, EndpointType> = {
  ExternalEndpoints: 'externalEndpoints',
  AzureEndpoints: 'azureEndpoints',
  NestedEndpoints: 'nestedEndpoints',
};

const enc = (s: string): string => encodeURIComponent(s);
const dec = (s: string): string => {
  try { return decodeURIComponent(s); } catch { return s; }
};

export function profileId(stack: string, name: string): string {
  return `/tmkit/stacks/${enc(stack)}/trafficManagerProfiles/${enc(name)}`;
}

export function endpointId(stack: string, profile: string, kind: EndpointKind, name: string): string {
  return `${profileId(stack, profile)}/${kind}/${enc(name)}`;
}

export interface ParsedProfileId {
  name: string;
  /** The stack the id names (tmkit ids), undefined for azurerm ids and bare names. */
  stack?: string;
}

const PROFILE_RE = /^(.*)\/trafficmanagerprofiles\/([^/]+)\/?$/i;
const TMKIT_PREFIX = /^\/tmkit\/stacks\/([^/]+)$/;

/** The profile an id (or a profile_id / target_resource_id value) names; undefined when it names none. */
export function parseProfileId(id: string): ParsedProfileId | undefined {
  const s = id.trim();
  if (s === '') return undefined;
  const m = PROFILE_RE.exec(s);
  if (!m) return s.includes('/') ? undefined : { name: s };
  const t = TMKIT_PREFIX.exec(m[1]!);
  return { name: dec(m[2]!), ...(t ? { stack: dec(t[1]!) } : {}) };
}

export interface ParsedEndpointId extends ParsedProfileId {
  profile: string;
  kind: EndpointKind;
  endpoint: string;
}

const ENDPOINT_RE = /^(.*\/trafficmanagerprofiles\/[^/]+)\/(externalendpoints|azureendpoints|nestedendpoints)\/([^/]+)\/?$/i;

/** An endpoint id (tmkit's or azurerm's); undefined when it is not one. */
export function parseEndpointId(id: string): ParsedEndpointId | undefined {
  const m = ENDPOINT_RE.exec(id.trim());
  if (!m) return undefined;
  const p = parseProfileId(m[1]!)!;
  const lower = m[2]!.toLowerCase();
  const kind = (Object.keys(TYPE_OF_KIND) as EndpointKind[]).find((k) => k.toLowerCase() === lower)!;
  return { ...p, profile: p.name, kind, endpoint: dec(m[3]!) };
}
