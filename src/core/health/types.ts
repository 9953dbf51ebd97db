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
  | 'Unmonitored'
  /**
   * tmkit extension (the profile's `failback` property, mode Manual): probing says the endpoint recovered,
   * but it waits for `tmkit endpoint failback` before it is answered again. Routing treats it as Degraded.
   */
  | 'AwaitingFailback';

export type ProfileMonitorStatus = 'CheckingEndpoints' | 'Online' | 'Degraded' | 'Disabled' | 'Inactive';

/**
 * What probing says about one endpoint (after thresholds and aggregation over probing locations): only
 * these; every other status is derived from configuration. `AwaitingFailback` exists only for profiles whose
 * `failback.mode` is Manual (machine.ts).
 */
export type ProbeVerdict = 'CheckingEndpoint' | 'Online' | 'Degraded' | 'AwaitingFailback';

/**
 * A runtime traffic control on one endpoint, as routing reads it (core/operations/overrides.ts has the whole
 * record): `down` takes the endpoint out (status Degraded, Always Serve included), `weight` replaces the
 * configured weight. Both may hold at once (two overrides of the same endpoint).
 */
export interface EndpointOverride {
  down?: boolean;
  /** The id of the `down` override in force (`ov-…`), for the safety rule's words. */
  downId?: string;
  weight?: number;
  /** Why, for explanations: `override down by cli until 2026-…: drill`. */
  reason: string;
}

/** Read side of the prober's state, as the routing engine sees it. */
export interface HealthView {
  /** Undefined = no verdict yet (treated as CheckingEndpoint). */
  verdict(profileName: string, endpointName: string): ProbeVerdict | undefined;
  /** The runtime's traffic overrides of an endpoint (any type, nested too); absent: none. */
  override?(profileName: string, endpointName: string): EndpointOverride | undefined;
}
