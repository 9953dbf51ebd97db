/**
 * The compiled snapshot's shape: what buildSnapshot() produces and resolve() and the routing methods read.
 * Types only; the per-method parts of a compiled profile are declared by the method that reads them
 * (methods/priority.ts, subnet.ts, geographic.ts, performance.ts).
 */
import type { LatencyView } from '../health/latency';
import type { EndpointMonitorStatus, EndpointOverride, HealthView, ProfileMonitorStatus } from '../health/types';
import type { Endpoint, Profile } from '../model/types';
import type { GeoLookup, ResourceCatalog } from '../ports';
import type { IpRange } from './ip';
import type { RoutingSnapshot } from './types';

export type RecordKind = 'A' | 'AAAA' | 'CNAME';
/** What an endpoint answers with: a record kind, a child profile, or nothing (cannot be answered). */
export type EndpointKind = RecordKind | 'nested' | 'none';

export interface CompiledEndpoint {
  readonly endpoint: Endpoint;
  readonly index: number;
  /** `profile/endpoint`. */
  readonly path: string;
  readonly status: EndpointMonitorStatus;
  /** Why it has that status, for explanations (`verdict Degraded from the prober`, `child profile ... Inactive`). */
  readonly statusReason: string;
  readonly kind: EndpointKind;
  /** Record data for leaf kinds: the IP literal or the CNAME target (no trailing dot). */
  readonly data?: string;
  /** Nested endpoints: the child profile (undefined when it does not exist). */
  readonly child?: CompiledProfile;
  /** Azure region (canonical name) for Performance routing. */
  readonly location?: string;
  readonly subnets: readonly IpRange[];
  /** Upper-cased geographic codes. */
  readonly geoMapping: readonly string[];
  /** Answerable now: available, or Degraded while the profile's all-degraded fallback is active. */
  readonly usable: boolean;
  /**
   * The weight Weighted routing uses: the endpoint's, or a `weight` override's (pipeline.ts builds the
   * snapshot with the runtime's overrides; the stored profile never changes, so Terraform sees no drift).
   */
  readonly weight: number;
  /** The runtime's overrides in force on this endpoint (tmkit traffic operations), for status and explanations. */
  readonly override?: EndpointOverride;
}

// Each routing method's part of a compiled profile, built by the method (methods/<method>.ts *Index()).

/** What Priority routing reads from a compiled profile. */
export interface PriorityIndex {
  /** Endpoints in priority order (ties by declaration order). */
  readonly byPriority: readonly CompiledEndpoint[];
}

/** What Subnet routing (and the subnet override of Geographic and Performance) reads from a compiled profile. */
export interface SubnetIndex {
  /** Non-disabled endpoints with subnets, declaration order. */
  readonly subnetEndpoints: readonly CompiledEndpoint[];
  /** Disabled endpoints with subnets (Subnet routing: their ranges are ignored, but explained). */
  readonly disabledSubnetEndpoints: readonly CompiledEndpoint[];
  /** Subnet routing: the first non-disabled endpoint without subnets. */
  readonly fallback?: CompiledEndpoint;
}

/** What Geographic routing reads from a compiled profile. */
export interface GeographicIndex {
  /** Code → the non-disabled endpoint mapping it (first one wins). */
  readonly geo: ReadonlyMap<string, CompiledEndpoint>;
}

export interface RegionGroup {
  /** Canonical region name; '' for endpoints without a location. */
  readonly region: string;
  /** Non-disabled endpoints in the region, declaration order. */
  readonly endpoints: readonly CompiledEndpoint[];
}

/** What Performance routing reads from a compiled profile. */
export interface PerformanceIndex {
  /** Non-disabled endpoints grouped by region, groups in order of first appearance. */
  readonly regions: readonly RegionGroup[];
}

/**
 * One compiled profile: its endpoints with their statuses, the profile-level verdicts, and every routing
 * method's index (each built by its method, see compile-profile.ts).
 */
export interface CompiledProfile extends PriorityIndex, SubnetIndex, GeographicIndex, PerformanceIndex {
  readonly profile: Profile;
  /** `<relativeName>.<zone>`, lower case, no trailing dot. */
  readonly fqdn: string;
  readonly status: ProfileMonitorStatus;
  readonly endpoints: readonly CompiledEndpoint[];
  /** Every endpoint Disabled (or none at all): the profile answers NXDOMAIN. */
  readonly allDisabled: boolean;
  /** Every eligible endpoint is Degraded: answer as if they were all Online (behaviors.md §4). */
  readonly allDegraded: boolean;
  /** Resolutions of client-independent subtrees, by query class (filled lazily by resolve()). */
  readonly cache: Map<string, unknown>;
  /** Client-independent top-level resolutions (this profile named by the query), by query class. */
  readonly topCache: Map<string, unknown>;
}

export interface CompiledSnapshot extends RoutingSnapshot {
  /** Profiles by `<relativeName>.<zone>` (lower case, no trailing dot). */
  readonly byFqdn: ReadonlyMap<string, CompiledProfile>;
  /** Profiles by lower-cased name (nested endpoints name their child by profile name). */
  readonly compiled: ReadonlyMap<string, CompiledProfile>;
  /** Names under the zone that exist only because a profile name is below them (`b.zone` for `a.b.zone`). */
  readonly emptyNonTerminals: ReadonlySet<string>;
}

export interface SnapshotInput {
  zone: string;
  profiles: Iterable<Profile>;
  health?: HealthView;
  /** Measured latency (routing reads it per query; it compiles nothing). */
  latency?: LatencyView;
  resources?: ResourceCatalog;
  geo: GeoLookup;
}

/** What one build compiles from (normalized inputs; see compile-profile.ts). */
export interface BuildInputs {
  /** Lower case, no trailing dot. */
  readonly zone: string;
  readonly health: HealthView;
  readonly resources: ResourceCatalog;
  readonly geo: GeoLookup;
  /** By name (a later profile of the same name replaces an earlier one). */
  readonly profiles: ReadonlyMap<string, Profile>;
  /** By lower-cased name, the first one wins: how nested endpoints find their child. */
  readonly byLowerName: ReadonlyMap<string, Profile>;
}
