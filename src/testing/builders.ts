/** Small builders for normalized profiles and routing snapshots in tests. */
import type { LatencyView } from '../core/health/latency';
import type { HealthView, ProbeVerdict } from '../core/health/types';
import { normalizeProfile } from '../core/model/normalize';
import type { EndpointInput, Profile, ProfileInput, TrafficRoutingMethod } from '../core/model/types';
import type { AzureResource, GeoLookup, ResourceCatalog } from '../core/ports';
import { buildSnapshot, type CompiledSnapshot } from '../core/routing/snapshot';
import type { RoutingQuery } from '../core/routing/types';
import { TableGeo } from './geo-table';

export const TEST_ZONE = 'tm.test';

/** An external endpoint (IP literal or FQDN target). */
export function ext(name: string, target: string, extra: Partial<EndpointInput> = {}): EndpointInput {
  return { name, type: 'externalEndpoints', target, ...extra };
}

/** A nested endpoint pointing at the child profile `child`. */
export function nested(name: string, child: string, extra: Partial<EndpointInput> = {}): EndpointInput {
  return { name, type: 'nestedEndpoints', targetResourceId: child, ...extra };
}

/** An Azure endpoint naming an ARM resource id. */
export function azure(name: string, targetResourceId: string, extra: Partial<EndpointInput> = {}): EndpointInput {
  return { name, type: 'azureEndpoints', targetResourceId, ...extra };
}

/** A normalized profile answering at `<name>.<zone>` unless `dnsConfig` says otherwise. */
export function profile(
  name: string,
  trafficRoutingMethod: TrafficRoutingMethod,
  endpoints: EndpointInput[],
  extra: Partial<ProfileInput> = {},
): Profile {
  return normalizeProfile({ name, trafficRoutingMethod, dnsConfig: { relativeName: name, ttl: 30 }, endpoints, ...extra });
}

/** Probe verdicts keyed `profile/endpoint`; others have none yet (CheckingEndpoint). */
export function health(verdicts: Record<string, ProbeVerdict>): HealthView {
  return { verdict: (p, e) => verdicts[`${p}/${e}`] };
}

export function catalog(entries: Record<string, AzureResource>): ResourceCatalog {
  return new Map(Object.entries(entries).map(([id, r]) => [id.toLowerCase(), r]));
}

export interface SnapOptions {
  zone?: string;
  health?: HealthView | Record<string, ProbeVerdict>;
  resources?: ResourceCatalog;
  geo?: GeoLookup;
  latency?: LatencyView;
}

export function snapshot(profiles: Profile[], opts: SnapOptions = {}): CompiledSnapshot {
  const h = opts.health;
  return buildSnapshot({
    zone: opts.zone ?? TEST_ZONE,
    profiles,
    ...(h === undefined
      ? {}
      : { health: typeof (h as HealthView).verdict === 'function' ? (h as HealthView) : health(h as Record<string, ProbeVerdict>) }),
    ...(opts.resources ? { resources: opts.resources } : {}),
    ...(opts.latency ? { latency: opts.latency } : {}),
    geo: opts.geo ?? new TableGeo(),
  });
}

/** A query for `<name>.<zone>`. */
export function query(name: string, type = 'A', clientAddress = '192.0.2.1', ecsSourcePrefix?: number, zone = TEST_ZONE): RoutingQuery {
  return { name: `${name}.${zone}`, type, clientAddress, ...(ecsSourcePrefix !== undefined ? { ecsSourcePrefix } : {}) };
}
