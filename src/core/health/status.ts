/**
 * Monitor status derivation (reference/behaviors.md §4 and §6), as pure functions over plain facts. The
 * prober reports only raw verdicts (Online / Degraded / CheckingEndpoint); everything else is derived here
 * from configuration, gdnsd-style: each truth table sits right above the function that implements it.
 */
import type { AlwaysServe, EndpointStatus, ProfileStatus } from '../model/types';
import type { EndpointMonitorStatus, ProbeVerdict, ProfileMonitorStatus } from './types';

/** What the resource catalog says about an Azure endpoint's resource. */
export type ResourceState = 'running' | 'stopped' | 'missing';

export interface EndpointStatusFacts {
  profileStatus: ProfileStatus;
  endpointStatus: EndpointStatus;
  alwaysServe?: AlwaysServe;
  /** The prober's verdict; undefined = no result yet. Ignored for nested endpoints. */
  verdict?: ProbeVerdict;
  /**
   * Azure endpoints: `stopped` when the catalog says the resource is stopped, `missing` when the endpoint
   * cannot be answered at all (unknown ARM id and no inline target). Undefined for other endpoints.
   */
  resource?: ResourceState;
  /** Nested endpoints: the status derived from the child profile by `nestedEndpointStatus()`. */
  nested?: NestedStatus;
  /** A `down` override is in force (tmkit's traffic operations, core/operations/overrides.ts). */
  overriddenDown?: boolean;
}

/*
 * Endpoint monitor status (behaviors.md §6, first table), first matching row wins:
 *
 *   profileStatus | endpointStatus | other facts                         | monitor status      | answers?
 *   --------------+----------------+-------------------------------------+---------------------+---------
 *   any           | Disabled       | -                                   | Disabled            | no
 *   Disabled      | Enabled        | -                                   | Inactive            | no (NXDOMAIN)
 *   Enabled       | Enabled        | Azure resource stopped / missing    | Stopped             | no
 *   Enabled       | Enabled        | override down (tmkit)               | Degraded            | no (never, not even by the fallback)
 *   Enabled       | Enabled        | nested: nestedEndpointStatus(child) | that status         | per status
 *   Enabled       | Enabled        | alwaysServe Enabled                 | Unmonitored         | yes
 *   Enabled       | Enabled        | verdict Online                      | Online              | yes
 *   Enabled       | Enabled        | verdict Degraded                    | Degraded            | no (all-degraded fallback)
 *   Enabled       | Enabled        | verdict AwaitingFailback (tmkit)    | AwaitingFailback    | no (all-degraded fallback, as Degraded)
 *   Enabled       | Enabled        | verdict CheckingEndpoint / none yet | CheckingEndpoint    | yes
 *
 * tmkit choice (undocumented): a stopped resource wins over Always Serve (a stopped app cannot serve).
 * tmkit's override row comes before nesting and Always Serve: an operator's `down` takes any endpoint out,
 * and compile-profile.ts keeps it out of the all-degraded fallback as well (docs/operations.md).
 */
export function endpointMonitorStatus(f: EndpointStatusFacts): EndpointMonitorStatus {
  if (f.endpointStatus === 'Disabled') return 'Disabled';
  if (f.profileStatus === 'Disabled') return 'Inactive';
  if (f.resource === 'stopped' || f.resource === 'missing') return 'Stopped';
  if (f.overriddenDown) return 'Degraded';
  if (f.nested !== undefined) return f.nested;
  if (f.alwaysServe === 'Enabled') return 'Unmonitored';
  return f.verdict ?? 'CheckingEndpoint';
}

/*
 * Profile monitor status (behaviors.md §6, second table), first matching row wins:
 *
 *   profileStatus | endpoint monitor statuses                            | profile monitor status
 *   --------------+------------------------------------------------------+-----------------------
 *   Disabled      | any / none                                           | Disabled
 *   Enabled       | >= 1 Degraded (or AwaitingFailback)                  | Degraded
 *   Enabled       | >= 1 Online (or Unmonitored), none Degraded          | Online
 *   Enabled       | >= 1 CheckingEndpoint, none Online/Degraded          | CheckingEndpoints
 *   Enabled       | all Disabled or Stopped (or Inactive), or none       | Inactive
 *
 * tmkit choice (undocumented): Unmonitored (Always Serve) counts as Online.
 */
export function profileMonitorStatus(
  profileStatus: ProfileStatus,
  endpointStatuses: Iterable<EndpointMonitorStatus>,
): ProfileMonitorStatus {
  if (profileStatus === 'Disabled') return 'Disabled';
  let degraded = false;
  let online = false;
  let checking = false;
  for (const s of endpointStatuses) {
    if (isDown(s)) degraded = true;
    else if (s === 'Online' || s === 'Unmonitored') online = true;
    else if (s === 'CheckingEndpoint') checking = true;
  }
  if (degraded) return 'Degraded';
  if (online) return 'Online';
  if (checking) return 'CheckingEndpoints';
  return 'Inactive';
}

/** The statuses a nested endpoint can take from its child. */
export type NestedStatus = 'Stopped' | 'Online' | 'CheckingEndpoint' | 'Degraded';

/** Child endpoint counts by status (all endpoints, and only A-type / AAAA-type ones). */
export interface ChildEndpointCounts {
  /** Child endpoints Online or Unmonitored. */
  online: number;
  checking: number;
  onlineIPv4: number;
  checkingIPv4: number;
  onlineIPv6: number;
  checkingIPv6: number;
}

export interface MinChildThresholds {
  /** Default 1. */
  minChildEndpoints?: number;
  /** Counted over A-type (IPv4 literal) child endpoints only; 0/undefined = no requirement. */
  minChildEndpointsIPv4?: number;
  /** Counted over AAAA-type (IPv6 literal) child endpoints only; 0/undefined = no requirement. */
  minChildEndpointsIPv6?: number;
}

/** Counts child endpoint statuses for `nestedEndpointStatus()`; `kinds[i]` is endpoint i's record kind. */
export function countChildEndpoints(
  statuses: readonly EndpointMonitorStatus[],
  kinds: readonly ('A' | 'AAAA' | 'CNAME' | 'nested' | 'none')[],
): ChildEndpointCounts {
  const c: ChildEndpointCounts = { online: 0, checking: 0, onlineIPv4: 0, checkingIPv4: 0, onlineIPv6: 0, checkingIPv6: 0 };
  statuses.forEach((s, i) => {
    const on = s === 'Online' || s === 'Unmonitored';
    const chk = s === 'CheckingEndpoint';
    if (!on && !chk) return;
    if (on) c.online++;
    else c.checking++;
    if (kinds[i] === 'A') {
      if (on) c.onlineIPv4++;
      else c.checkingIPv4++;
    }
    if (kinds[i] === 'AAAA') {
      if (on) c.onlineIPv6++;
      else c.checkingIPv6++;
    }
  });
  return c;
}

/*
 * One threshold (behaviors.md §6, third table, last row):
 *
 *   #Online >= min                       -> Online
 *   #Online + #CheckingEndpoint >= min   -> CheckingEndpoint
 *   otherwise                            -> Degraded
 */
function against(min: number, online: number, checking: number): NestedStatus {
  if (online >= min) return 'Online';
  if (online + checking >= min) return 'CheckingEndpoint';
  return 'Degraded';
}

const RANK: Record<NestedStatus, number> = { Online: 0, CheckingEndpoint: 1, Degraded: 2, Stopped: 3 };
const worst = (a: NestedStatus, b: NestedStatus): NestedStatus => (RANK[a] >= RANK[b] ? a : b);

/*
 * Nested endpoint status in the parent, from the child profile (behaviors.md §6, third table):
 *
 *   child profile monitor status            | parent's nested endpoint status
 *   ----------------------------------------+-------------------------------------------------------
 *   Disabled                                | Stopped (Disabled is reserved for the parent's toggle)
 *   Inactive                                | Stopped
 *   Degraded / Online / CheckingEndpoints   | against(MinChildEndpoints, #Online, #Checking), and
 *                                           | likewise MinChildEndpointsIPv4 over A-type and
 *                                           | MinChildEndpointsIPv6 over AAAA-type child endpoints;
 *                                           | the worst of these (Online < CheckingEndpoint < Degraded)
 */
export function nestedEndpointStatus(child: ProfileMonitorStatus, counts: ChildEndpointCounts, min: MinChildThresholds): NestedStatus {
  if (child === 'Disabled' || child === 'Inactive') return 'Stopped';
  let s = against(min.minChildEndpoints ?? 1, counts.online, counts.checking);
  if (min.minChildEndpointsIPv4) s = worst(s, against(min.minChildEndpointsIPv4, counts.onlineIPv4, counts.checkingIPv4));
  if (min.minChildEndpointsIPv6) s = worst(s, against(min.minChildEndpointsIPv6, counts.onlineIPv6, counts.checkingIPv6));
  return s;
}

/** Answered normally (behaviors.md §4): Online, CheckingEndpoint, Unmonitored. */
export function isAvailable(s: EndpointMonitorStatus): boolean {
  return s === 'Online' || s === 'CheckingEndpoint' || s === 'Unmonitored';
}

/** Degraded, or treated as Degraded by routing (AwaitingFailback: recovered, waiting for the operator). */
export function isDown(s: EndpointMonitorStatus): boolean {
  return s === 'Degraded' || s === 'AwaitingFailback';
}

/** Eligible for routing at all, including via the all-degraded fallback: available or (treated as) Degraded. */
export function isEligible(s: EndpointMonitorStatus): boolean {
  return isAvailable(s) || isDown(s);
}
