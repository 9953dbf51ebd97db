/** `GET /v1/profiles/{name}/status` and its parts: monitor statuses, probes, certificates, health pushed from outside. */
import type { EndpointMonitorStatus, ProfileMonitorStatus } from '../health/types';
import type { OverrideRecord } from './operations';

/** The last probe of an endpoint, as the status endpoint reports it. */
export interface ProbeResultReport {
  /** ISO time the probe finished. */
  at: string;
  ok: boolean;
  /** e.g. `status 200`, `timeout`, `connection refused`. */
  reason: string;
  statusCode?: number;
  /** The address probed (after resolving an FQDN). */
  address?: string;
  /** The endpoint's latency: the probe's wall time less `stalledMs`. */
  latencyMs: number;
  /** Milliseconds of the probe during which tmkit's own event loop was blocked (not counted as the endpoint's). */
  stalledMs?: number;
  /** HTTPS: the server certificate seen. */
  certificate?: CertificateReport;
  /**
   * Composite checks (docs/health.md "Composite checks"): each check's probe of the round, in the profile's
   * order; `ok` and `reason` above are the round's (`checks: api ok, login FAILED (503), 1 of 2 < quorum 2`).
   */
  checks?: CheckProbeReport[];
}

/** One composite check's last probe and its consecutive failures. */
export interface CheckProbeReport {
  name: string;
  ok: boolean;
  reason: string;
  statusCode?: number;
  latencyMs: number;
  /** The endpoint is Degraded when this check fails past the tolerance. */
  mustBeHealthy: boolean;
  /** Probed and reported, never counted. */
  monitoringOnly: boolean;
  consecutiveFailures: number;
}

export interface StatusTransitionReport {
  at: string;
  endpoint: string;
  from: string;
  to: string;
  reason: string;
  /** The probing location (host) that saw it. */
  location: string;
  /** `pushed`: health pushed from outside caused it (docs/health.md); absent: probing or maintenance. */
  source?: 'pushed';
}

export interface EndpointStatusReport {
  name: string;
  type: string;
  target?: string;
  targetResourceId?: string;
  endpointStatus: string;
  /** Azure's endpoint monitor status, derived from configuration and probing (behaviors.md §6). */
  endpointMonitorStatus: EndpointMonitorStatus;
  /** Why it has that status. */
  reason: string;
  /** False for endpoints that are not probed (disabled, nested, Always Serve, stopped resource). */
  probed: boolean;
  /** What probing says (Online / Degraded / CheckingEndpoint). */
  verdict?: string;
  /**
   * True while the verdict is the one saved before the last restart: the prober has not decided the
   * endpoint again yet (it is being re-probed).
   */
  verdictCarriedOver?: boolean;
  consecutiveFailures?: number;
  /** ISO time of the last verdict change. */
  since?: string;
  location?: string;
  lastProbe?: ProbeResultReport;
  /**
   * Cluster mode: every probing location's verdict (`verdict` above is their aggregate, the one DNS uses:
   * Degraded only when strictly more than half of the live locations say Degraded).
   */
  locations?: LocationVerdictReport[];
  /** Health pushed from outside that has not expired (`verdict` is the worse of the probes' and it). */
  pushedHealth?: PushedHealthReport;
  /** Where `verdict` comes from: `pushed` while health pushed from outside makes it worse than probing says. */
  verdictSource?: 'probe' | 'pushed';
  /** Things to act on that do not fail the probe (a certificate about to expire). */
  warnings?: string[];
  /** The overrides in force on this endpoint (docs/operations.md). */
  overrides?: OverrideRecord[];
  /** The weight routing uses now when a `weight` override replaces the configured one. */
  effectiveWeight?: number;
}

/** One probing location's verdict on an endpoint (cluster mode). */
export interface LocationVerdictReport {
  location: string;
  /** The node that probes from there. */
  node?: string;
  verdict: string;
  /** ISO time of that location's last transition. */
  since?: string;
  reason?: string;
  /** Only live locations (their node's lease has not expired) count in the aggregate. */
  live: boolean;
  /** The location of the node that answered this request. */
  self: boolean;
  /** The verdict was reached with other probe settings (that node's configuration is behind or ahead): counted as undecided. */
  otherSettings?: boolean;
}

/** GET /v1/profiles/{name}/status. */
export interface ProfileStatusReport {
  name: string;
  stack: string;
  etag: string;
  /** Store revision of the configuration the statuses were derived from. */
  revision: number;
  fqdn: string;
  profileStatus: string;
  profileMonitorStatus: ProfileMonitorStatus;
  /** Every eligible endpoint Degraded: they are answered as if Online (behaviors.md §4). */
  allDegradedFallback: boolean;
  endpoints: EndpointStatusReport[];
  /** Recent status transitions, newest first (including those saved before a restart). */
  transitions: StatusTransitionReport[];
  /** The profile's failback property when it has one (absent: Azure's, Automatic after one good probe). */
  failback?: { mode: 'Automatic' | 'Manual'; successesToRecover: number; holdDownSeconds: number };
}

/**
 * `PUT /v1/profiles/{name}/endpoints/{endpoint}/health`: an external system (a deploy pipeline, an APM alert)
 * marks an endpoint. Until `ttlSeconds` pass, the endpoint's status is the worse of its probes' and this one
 * (docs/health.md "Health pushed from outside").
 */
export interface PushedHealthRequest {
  status: 'Online' | 'Degraded';
  /** 1–86400. */
  ttlSeconds: number;
  /** Why, shown wherever the status is (at most 500 characters). */
  reason?: string;
}

/** Health pushed from outside, as the API shows it. */
export interface PushedHealthReport {
  profile: string;
  endpoint: string;
  status: 'Online' | 'Degraded';
  reason: string;
  /** ISO time it was pushed. */
  at: string;
  /** ISO time it ends by itself. */
  expiresAt: string;
}

/** What `certificateValidation` checks and the expiry warning see of an HTTPS endpoint's certificate. */
export interface CertificateReport {
  /** ISO time of notAfter. */
  validTo: string;
  /** Whole days left (negative: expired). */
  expiresInDays: number;
  /** Subject CN and subjectAltName entries. */
  names: string[];
  /** Inside `certificateExpiryWarningDays` (certificateValidation Enabled): `certificate expires in 5 days (…)`. */
  warning?: string;
}
