/**
 * The JSON Azure prints for a Traffic Manager profile (`az network traffic-manager profile show`, REST GET
 * with `properties`), made from a stored tmkit profile (pure). `importArm` reads it back to the same
 * profile: a test checks `normalize(importArm(exportArmProfile(p)))` equals `p` (up to `weight` outside
 * Weighted and `priority` outside Priority, which Azure prints on every endpoint and import keeps only where
 * the routing method uses them).
 *
 * Ids are tmkit's, without subscription or resource group (the runtime is self-hosted):
 * `/providers/Microsoft.Network/trafficManagerProfiles/<profile>` and `<profile id>/<endpointType>/<endpoint>`
 * (endpoint names URL-encoded, as in Azure's paths). It is the id `resourceId('Microsoft.Network/
 * trafficManagerProfiles', '<profile>')` evaluates to in `tmkit import`, so a nested endpoint's
 * `targetResourceId` written this way names the child profile.
 */
import type { EndpointMonitorStatus, ProfileMonitorStatus } from '../health/types';
import { childProfileName, profileFqdn } from './names';
import type { Endpoint, Profile } from './types';

export const ARM_PROFILE_TYPE = 'Microsoft.Network/trafficManagerProfiles';
const ID_PREFIX = `/providers/${ARM_PROFILE_TYPE}/`;

/** `/providers/Microsoft.Network/trafficManagerProfiles/<name>`: a profile's ARM-style id in tmkit. */
export function armProfileId(name: string): string {
  return `${ID_PREFIX}${name}`;
}

/** The profile name in a tmkit ARM-style id (`armProfileId`), or undefined for any other string. */
export function profileNameOfTmkitId(id: string): string | undefined {
  if (!id.toLowerCase().startsWith(ID_PREFIX.toLowerCase())) return undefined;
  const rest = id.slice(ID_PREFIX.length).replace(/\/$/, '');
  return rest !== '' && !rest.includes('/') ? childProfileName(id) : undefined;
}

export interface ArmExportContext {
  /** The runtime's zone (`tm.internal`): `dnsConfig.fqdn` is `<relativeName>.<zone>`. */
  zone: string;
  /** Live monitor statuses (from `GET /v1/profiles/{name}/status`); without them both are omitted. */
  profileMonitorStatus?: ProfileMonitorStatus;
  endpointMonitorStatus?: (endpoint: string) => EndpointMonitorStatus | undefined;
  /** The relativeName of another profile, for a nested endpoint's read-only `target` (the child's FQDN). */
  relativeNameOf?: (profile: string) => string | undefined;
}

type Obj = Record<string, unknown>;

function endpointResource(p: Profile, e: Endpoint, ctx: ArmExportContext): Obj {
  const properties: Obj = {};
  const status = ctx.endpointMonitorStatus?.(e.name);
  if (e.type === 'nestedEndpoints') {
    const child = e.targetResourceId === undefined ? undefined : childProfileName(e.targetResourceId);
    if (child !== undefined) {
      properties.targetResourceId = e.targetResourceId!.startsWith('/') ? e.targetResourceId : armProfileId(child);
      const rn = ctx.relativeNameOf?.(child);
      if (rn !== undefined) properties.target = profileFqdn(rn, ctx.zone);
    }
  } else {
    if (e.targetResourceId !== undefined) properties.targetResourceId = e.targetResourceId;
    if (e.target !== undefined) properties.target = e.target;
  }
  properties.endpointStatus = e.endpointStatus;
  // Azure's enum has no AwaitingFailback (tmkit's Manual failback): routing treats it as Degraded, and so does ARM.
  if (status !== undefined) properties.endpointMonitorStatus = status === 'AwaitingFailback' ? 'Degraded' : status;
  properties.weight = e.weight;
  properties.priority = e.priority;
  if (e.endpointLocation !== undefined) properties.endpointLocation = e.endpointLocation;
  if (e.type === 'nestedEndpoints' || e.minChildEndpoints !== undefined) properties.minChildEndpoints = e.minChildEndpoints ?? 1;
  if (e.minChildEndpointsIPv4 !== undefined) properties.minChildEndpointsIPv4 = e.minChildEndpointsIPv4;
  if (e.minChildEndpointsIPv6 !== undefined) properties.minChildEndpointsIPv6 = e.minChildEndpointsIPv6;
  properties.geoMapping = e.geoMapping.slice();
  properties.subnets = e.subnets.map((s) => ({ ...s }));
  properties.customHeaders = e.customHeaders.map((h) => ({ name: h.name, value: h.value }));
  if (e.type !== 'nestedEndpoints') properties.alwaysServe = e.alwaysServe;
  return {
    id: `${armProfileId(p.name)}/${e.type}/${encodeURIComponent(e.name)}`,
    name: e.name,
    type: `${ARM_PROFILE_TYPE}/${e.type}`,
    properties,
  };
}

/** The ARM resource Azure would print for profile `p` (REST shape: `{id, name, type, location, tags, properties}`). */
export function exportArmProfile(p: Profile, ctx: ArmExportContext): Obj {
  const m = p.monitorConfig;
  const monitorConfig: Obj = {};
  if (ctx.profileMonitorStatus !== undefined) monitorConfig.profileMonitorStatus = ctx.profileMonitorStatus;
  monitorConfig.protocol = m.protocol;
  monitorConfig.port = m.port;
  if (m.path !== undefined) monitorConfig.path = m.path;
  monitorConfig.intervalInSeconds = m.intervalInSeconds;
  monitorConfig.toleratedNumberOfFailures = m.toleratedNumberOfFailures;
  monitorConfig.timeoutInSeconds = m.timeoutInSeconds;
  monitorConfig.customHeaders = m.customHeaders.map((h) => ({ name: h.name, value: h.value }));
  monitorConfig.expectedStatusCodeRanges = m.expectedStatusCodeRanges.map((r) => ({ min: r.min, max: r.max }));
  const properties: Obj = {
    profileStatus: p.profileStatus,
    trafficRoutingMethod: p.trafficRoutingMethod,
    dnsConfig: { relativeName: p.dnsConfig.relativeName, fqdn: profileFqdn(p.dnsConfig.relativeName, ctx.zone), ttl: p.dnsConfig.ttl },
    monitorConfig,
    endpoints: p.endpoints.map((e) => endpointResource(p, e, ctx)),
    trafficViewEnrollmentStatus: p.trafficViewEnrollmentStatus,
  };
  if (p.allowedEndpointRecordTypes !== undefined) properties.allowedEndpointRecordTypes = p.allowedEndpointRecordTypes.slice();
  if (p.maxReturn !== undefined) properties.maxReturn = p.maxReturn;
  return {
    id: armProfileId(p.name),
    name: p.name,
    type: ARM_PROFILE_TYPE,
    location: 'global',
    tags: { ...(p.tags ?? {}) },
    properties,
  };
}

/**
 * What of profile `p` the ARM JSON cannot hold (tmkit extensions Azure has no property for), one sentence each,
 * for `tmkit get --output arm` to say on stderr. Composite checks first: Azure has one monitor per profile, so
 * the export keeps only monitorConfig's own protocol, port and path, which tmkit does not probe while checks exist.
 */
export function armExportLosses(p: Profile): string[] {
  const m = p.monitorConfig;
  const out: string[] = [];
  if (m.checks !== undefined) {
    out.push(
      `monitorConfig.checks (${m.checks.map((c) => c.name).join(', ')})${m.quorum !== undefined ? ` and quorum ${m.quorum}` : ''}: ` +
        `Azure has one monitor per profile; the export keeps monitorConfig's own ${m.protocol}:${m.port}${m.path ?? ''}, which Azure would probe instead`,
    );
  }
  for (const k of ['certificateValidation', 'caCertificates', 'certificateExpiryWarningDays', 'degradedLatencyMs'] as const)
    if (m[k] !== undefined) out.push(`monitorConfig.${k}: a tmkit extension Azure has no property for`);
  if (p.failback !== undefined) out.push('failback: a tmkit extension Azure has no property for (Azure fails back after one good probe)');
  return out;
}
