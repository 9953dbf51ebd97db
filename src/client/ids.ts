/**
 * Resource ids of the providers (docs/ARCHITECTURE.md, "Providers"), one scheme for Terraform and Pulumi: a profile is
 * `/tmkit/stacks/<stack>/trafficManagerProfiles/<name>` (it ends in `/trafficManagerProfiles/<name>`, so it
 * works as a nested endpoint's targetResourceId, as an azure-native profile id does), an endpoint is
 * `<profile id>/<type>/<name>` with the short ARM type (`externalEndpoints`), as ARM's endpoint ids are.
 * Import takes these, ARM's own ids, or plain names (`web`, `web/primary`). Pure.
 */
import { parseEndpointType } from '../core/model/names';
import type { EndpointType } from '../core/model/types';

export function profileId(stack: string, name: string): string {
  return `/tmkit/stacks/${stack}/trafficManagerProfiles/${name}`;
}

export function endpointId(stack: string, profile: string, type: EndpointType, name: string): string {
  return `${profileId(stack, profile)}/${type}/${name}`;
}

const PROFILE_ID = /\/trafficManagerProfiles\/([^/]+)\/?$/i;
const ENDPOINT_ID = /\/trafficManagerProfiles\/([^/]+)\/([^/]+)\/([^/]+)\/?$/i;

/** The profile name an id (or a bare name) names; undefined when it names none. */
export function parseProfileId(id: string): string | undefined {
  const t = id.trim();
  const m = PROFILE_ID.exec(t);
  if (m) return m[1];
  return t !== '' && !t.includes('/') ? t : undefined;
}

/** The profile, endpoint name and (when the id says) type an endpoint id names; `profile/endpoint` works too. */
export function parseEndpointId(id: string): { profile: string; name: string; type?: EndpointType } | undefined {
  const t = id.trim();
  const m = ENDPOINT_ID.exec(t);
  if (m) {
    const type = parseEndpointType(m[2]!);
    return type ? { profile: m[1]!, name: m[3]!, type } : undefined;
  }
  const parts = t.split('/');
  return parts.length === 2 && parts[0] !== '' && parts[1] !== '' ? { profile: parts[0]!, name: parts[1]! } : undefined;
}
