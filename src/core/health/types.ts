/**
 * Monitor statuses, exactly Azure's enums (reference/behaviors.md §6).
 */
export type EndpointMonitorStatus =
  | 'CheckingEndpoint'
  | 'Online'
  | 'Degraded'
  | 'Disabled'
  | 'Inactive'
  | 'Stopped'
  | 'Unmonitored';

export type ProfileMonitorStatus = 'CheckingEndpoints' | 'Online' | 'Degraded' | 'Disabled' | 'Inactive';

/**
 * What probing says about one endpoint (after thresholds and aggregation over probing locations):
 * only these three; every other status is derived from configuration.
 */
export type ProbeVerdict = 'CheckingEndpoint' | 'Online' | 'Degraded';

/** Read side of the prober's state, as the routing engine sees it. */
export interface HealthView {
  /** Undefined = no verdict yet (treated as CheckingEndpoint). */
  verdict(profileName: string, endpointName: string): ProbeVerdict | undefined;
}
