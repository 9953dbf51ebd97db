/**
 * Resource ids of the providers (docs/ARCHITECTURE.md, "Providers"), one scheme for Terraform and Pulumi: a profile is
 * `/tmkit/stacks/<stack>/trafficManagerProfiles/<name>` (it ends in `/trafficManagerProfiles/<name>`, so it
 * works as a nested endpoint's targetResourceId, as an azure-native or azurerm profile id does), an endpoint is
 * `<profile id>/<type>/<name>`, as ARM's endpoint ids are. The stack is part of the id because it is part of
 * the object's identity (who owns it). Import takes these, ARM's own ids, or a plain profile name. Pure.
 *
 * Two spellings (IdScheme), because ids already in users' states must keep parsing as they do:
 * - DEFAULT_IDS (Pulumi's, and the functions without a scheme): names as they are, the short ARM type
 *   (`externalEndpoints`); import also takes `profile/endpoint`.
 * - TERRAFORM_IDS: stack and names URI-encoded (decoded when parsed), the type capitalized
 *   (`ExternalEndpoints`, as the endpoint blocks' `type`); endpoints import by their full id only.
 */
import { parseEndpointType } from '../core/model/names';
import type { EndpointType } from '../core/model/types';

export interface IdScheme {
  /** Stack and names URI-encoded in the id (encodeURIComponent), and decoded when parsed. */
  readonly encodeNames: boolean;
  /** How the id spells an endpoint type: ARM's short type (`externalEndpoints`) or capitalized (`ExternalEndpoints`). */
  readonly typeCase: 'arm' | 'capitalized';
  /** Whether `profile/endpoint` names an endpoint too (no type, no stack); otherwise only a full id does. */
  readonly shortEndpointIds: boolean;
}

/** Pulumi's ids (and the functions called without a scheme). */
export const DEFAULT_IDS: IdScheme = { encodeNames: false, typeCase: 'arm', shortEndpointIds: true };
/** The Terraform provider's ids. */
export const TERRAFORM_IDS: IdScheme = { encodeNames: true, typeCase: 'capitalized', shortEndpointIds: false };

const encoder =
  (scheme: IdScheme) =>
  (s: string): string =>
    scheme.encodeNames ? encodeURIComponent(s) : s;
const decoder =
  (scheme: IdScheme) =>
  (s: string): string => {
    if (!scheme.encodeNames) return s;
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };

/** An endpoint type as ids of `scheme` spell it. */
export function idEndpointType(type: EndpointType, scheme: IdScheme = DEFAULT_IDS): string {
  return scheme.typeCase === 'capitalized' ? `${type[0]!.toUpperCase()}${type.slice(1)}` : type;
}

export function profileId(stack: string, name: string, scheme: IdScheme = DEFAULT_IDS): string {
  const enc = encoder(scheme);
  return `/tmkit/stacks/${enc(stack)}/trafficManagerProfiles/${enc(name)}`;
}

export function endpointId(stack: string, profile: string, type: EndpointType, name: string, scheme: IdScheme = DEFAULT_IDS): string {
  return `${profileId(stack, profile, scheme)}/${idEndpointType(type, scheme)}/${encoder(scheme)(name)}`;
}

/** What a profile id names. */
export interface ProfileRef {
  name: string;
  /** The stack the id names (tmkit's ids); undefined for ARM's ids and bare names. */
  stack?: string;
}

/** What an endpoint id names. */
export interface EndpointRef {
  profile: string;
  name: string;
  /** Undefined when the id does not say (`profile/endpoint`). */
  type?: EndpointType;
  /** The stack the id names (tmkit's ids); undefined for ARM's ids and `profile/endpoint`. */
  stack?: string;
}

const PROFILE_ID = /^([\s\S]*)\/trafficManagerProfiles\/([^/]+)\/?$/i;
const ENDPOINT_ID = /^([\s\S]*)\/trafficManagerProfiles\/([^/]+)\/([^/]+)\/([^/]+)\/?$/i;
const TMKIT_PREFIX = /^\/tmkit\/stacks\/([^/]+)$/;

/** The stack a tmkit id's prefix (what comes before `/trafficManagerProfiles/`) names. */
function stackOf(prefix: string, scheme: IdScheme): { stack?: string } {
  const t = TMKIT_PREFIX.exec(prefix);
  return t ? { stack: decoder(scheme)(t[1]!) } : {};
}

/** The profile an id (or a bare name) names; undefined when it names none. */
export function parseProfileRef(id: string, scheme: IdScheme = DEFAULT_IDS): ProfileRef | undefined {
  const t = id.trim();
  if (t === '') return undefined;
  const m = PROFILE_ID.exec(t);
  if (!m) return t.includes('/') ? undefined : { name: t };
  return { name: decoder(scheme)(m[2]!), ...stackOf(m[1]!, scheme) };
}

/** The endpoint an id names; undefined when it is not an endpoint id. */
export function parseEndpointRef(id: string, scheme: IdScheme = DEFAULT_IDS): EndpointRef | undefined {
  const t = id.trim();
  const m = ENDPOINT_ID.exec(t);
  if (m) {
    const type = parseEndpointType(m[3]!);
    if (!type) return undefined;
    const dec = decoder(scheme);
    return { profile: dec(m[2]!), name: dec(m[4]!), type, ...stackOf(m[1]!, scheme) };
  }
  if (!scheme.shortEndpointIds) return undefined;
  const parts = t.split('/');
  return parts.length === 2 && parts[0] !== '' && parts[1] !== '' ? { profile: parts[0]!, name: parts[1]! } : undefined;
}

/** The profile name an id (or a bare name) names; undefined when it names none. */
export function parseProfileId(id: string): string | undefined {
  return parseProfileRef(id)?.name;
}

/** The profile, endpoint name and (when the id says) type an endpoint id names; `profile/endpoint` works too. */
export function parseEndpointId(id: string): { profile: string; name: string; type?: EndpointType } | undefined {
  const r = parseEndpointRef(id);
  return r && { profile: r.profile, name: r.name, ...(r.type ? { type: r.type } : {}) };
}
