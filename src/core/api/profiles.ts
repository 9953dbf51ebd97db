/** The configuration's resources: profiles, their endpoints one at a time, and the resource catalog. */
import type { Endpoint, Profile } from '../model/types';
import type { AzureResource } from '../ports';
import type { WireDiagnostic } from './errors';

export interface ProfileEntry {
  name: string;
  stack: string;
  etag: string;
  profile: Profile;
}

export interface ProfileList {
  revision: number;
  profiles: ProfileEntry[];
}

/**
 * One profile in `GET /v1/profiles?view=summary`: what a plan needs to know of every deployed profile
 * (ownership, ETag, the FQDN it takes, whom it nests) without its body, so a plan reads in full only the
 * profiles it can touch (core/plan/scope.ts).
 */
export interface ProfileSummary {
  name: string;
  stack: string;
  etag: string;
  relativeName: string;
  /** Child profile names of its nested endpoints, as their targetResourceIds name them. */
  nested: string[];
}

export interface ProfileSummaryList {
  revision: number;
  profiles: ProfileSummary[];
}

/** Response of PUT /v1/profiles/{name} and PATCH .../endpoints/{endpoint}. */
export interface WriteResult {
  name: string;
  stack: string;
  etag: string;
  revision: number;
  created: boolean;
  /** False when the stored profile was already identical (nothing written). */
  changed: boolean;
  /** The stored, normalized profile. */
  profile: Profile;
  /** Warning diagnostics (errors never get here: the write is refused). */
  warnings: WireDiagnostic[];
}

export interface DeleteResult {
  name: string;
  deleted: true;
  revision: number;
}

/** `GET /v1/profiles/{name}/endpoints/{endpoint}`: the body is the normalized endpoint; headers ETag (the endpoint's), Tmkit-Stack, Tmkit-Profile-Etag. */
export type EndpointEntry = Endpoint;

/** Response of `PUT /v1/profiles/{name}/endpoints/{endpoint}` (201 created, 200 replaced). */
export interface EndpointWriteResult {
  /** The profile's stored name. */
  profile: string;
  stack: string;
  /** The endpoint's ETag (also the `ETag` header). */
  etag: string;
  /** The whole profile's new ETag. */
  profileEtag: string;
  revision: number;
  created: boolean;
  changed: boolean;
  /** The stored, normalized endpoint. */
  endpoint: Endpoint;
  warnings: WireDiagnostic[];
}

/** Response of `DELETE /v1/profiles/{name}/endpoints/{endpoint}`. */
export interface EndpointDeleteResult {
  profile: string;
  endpoint: string;
  deleted: true;
  profileEtag: string;
  revision: number;
}

export interface ResourceCatalogResponse {
  revision: number;
  resources: Record<string, AzureResource>;
}
