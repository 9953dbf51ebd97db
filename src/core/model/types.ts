/**
 * The `tmkit/v1` desired-state document. Property names are Azure Resource Manager's
 * (reference/arm-schema.md), so a Traffic Manager user reads them without translation.
 *
 * Two shapes exist:
 * - the *input* shapes (`*Input`): what a user may write; optional wherever Azure lets them omit a value,
 *   endpoint `type` in short or full ARM form;
 * - the *normalized* shapes (`Profile`, `Endpoint`, ...): produced by `normalize()`, every Azure default
 *   filled in, endpoint `type` in the short lower-camel form. Everything past validation (routing, plan,
 *   runtime, store) works on normalized documents only.
 */

export const API_VERSION = 'tmkit/v1';
export const DEFAULT_STACK = 'default';

export type ProfileStatus = 'Enabled' | 'Disabled';
export type EndpointStatus = 'Enabled' | 'Disabled';
export type AlwaysServe = 'Enabled' | 'Disabled';
export type TrafficViewEnrollmentStatus = 'Enabled' | 'Disabled';
export type TrafficRoutingMethod = 'Performance' | 'Priority' | 'Weighted' | 'Geographic' | 'MultiValue' | 'Subnet';
export type EndpointType = 'azureEndpoints' | 'externalEndpoints' | 'nestedEndpoints';
export type MonitorProtocol = 'HTTP' | 'HTTPS' | 'TCP';
/** tmkit extension of monitorConfig: whether HTTPS probes check the server's certificate. */
export type CertificateValidation = 'Enabled' | 'Disabled';
export type AllowedEndpointRecordType = 'DomainName' | 'IPv4Address' | 'IPv6Address' | 'Any';
/** What kind of address an endpoint's target is (validation classifies it; the prober resolves FQDNs). */
export type TargetKind = 'ipv4' | 'ipv6' | 'fqdn';

export const TRAFFIC_ROUTING_METHODS: readonly TrafficRoutingMethod[] = [
  'Performance',
  'Priority',
  'Weighted',
  'Geographic',
  'MultiValue',
  'Subnet',
];
export const ENDPOINT_TYPES: readonly EndpointType[] = ['azureEndpoints', 'externalEndpoints', 'nestedEndpoints'];
export const MONITOR_PROTOCOLS: readonly MonitorProtocol[] = ['HTTP', 'HTTPS', 'TCP'];
export const CERTIFICATE_VALIDATIONS: readonly CertificateValidation[] = ['Enabled', 'Disabled'];

/** A custom probe header. */
export interface MonitorHeader {
  name: string;
  value: string;
}

/** An inclusive range of HTTP status codes a probe accepts as healthy. */
export interface StatusCodeRange {
  min: number;
  max: number;
}

/**
 * An address range for Subnet routing (and subnet override): CIDR (`first` = network address + `scope`),
 * a `first`–`last` range, or a single address (`first` alone).
 */
export interface EndpointSubnet {
  first: string;
  last?: string;
  scope?: number;
}

export interface DnsConfig {
  /** DNS label(s) under the zone; the profile answers at `<relativeName>.<zone>`. */
  relativeName: string;
  /** Seconds, 0 – 2147483647. */
  ttl: number;
}

/**
 * tmkit: one check of a composite health check (`monitorConfig.checks`, docs/health.md "Composite checks").
 * Probed for every endpoint with the profile's interval, timeout and tolerance; each keeps its own failure count.
 */
export interface MonitorCheck {
  /** Unique within the profile (case-insensitive): 1–32 letters, digits, `-` and `_`. */
  name: string;
  /** Normalized: the profile's `monitorConfig.protocol` when omitted. */
  protocol: MonitorProtocol;
  /** Normalized: the profile's port when the protocol is the profile's, else 80 (HTTP) or 443 (HTTPS). */
  port: number;
  /** HTTP/HTTPS: normalized to the profile's path when omitted (`/` when the profile has none); absent for TCP. */
  path?: string;
  /** HTTP/HTTPS: codes healthy besides 200; normalized to the profile's `expectedStatusCodeRanges` when omitted. */
  expectedStatusCodeRanges: StatusCodeRange[];
  /** The endpoint is Degraded when this check fails (past the tolerance), whatever the others say (default false). */
  mustBeHealthy: boolean;
  /** Probed and reported, never counted towards the verdict (default false). */
  monitoringOnly: boolean;
}

export interface MonitorConfig {
  protocol: MonitorProtocol;
  /** 1–65535. */
  port: number;
  /** Relative path for HTTP/HTTPS probes; absent for TCP. */
  path?: string;
  /** 10 or 30. */
  intervalInSeconds: number;
  /** 5–10 with interval 30, 5–9 with interval 10. */
  timeoutInSeconds: number;
  /** 0–9. */
  toleratedNumberOfFailures: number;
  customHeaders: MonitorHeader[];
  /** Codes healthy in addition to 200 (200 is always healthy); empty means "only 200 is healthy". */
  expectedStatusCodeRanges: StatusCodeRange[];
  /** tmkit: HTTPS certificate checks (chain, host name, expiry); absent = `Disabled`, as Azure (docs/health.md). */
  certificateValidation?: CertificateValidation;
  /** tmkit: PEM CA certificates a probed chain must lead to instead of the system CAs (with validation Enabled). */
  caCertificates?: string;
  /** tmkit: days before expiry a certificate is warned about, 0–365 (0: never); absent = 14 with validation Enabled. */
  certificateExpiryWarningDays?: number;
  /** tmkit: a probe slower than this many milliseconds (1–60000) counts as a failure; absent = no latency rule. */
  degradedLatencyMs?: number;
  /**
   * tmkit: composite health checks; when present they replace the single probe of protocol/port/path
   * (docs/health.md "Composite checks"). Absent: the single probe, as Azure.
   */
  checks?: MonitorCheck[];
  /** tmkit: how many counting checks (neither mustBeHealthy nor monitoringOnly) must pass; absent = all of them. */
  quorum?: number;
}

export interface Endpoint {
  name: string;
  type: EndpointType;
  /** FQDN, IPv4 or IPv6 (external); resolved target (azure, optional inline); unused for nested. */
  target?: string;
  /** ARM id (azure) or child profile name / ARM-style id (nested). */
  targetResourceId?: string;
  endpointStatus: EndpointStatus;
  /** 1–1000, default 1. */
  weight: number;
  /** 1–1000, unique within the profile; derived from the endpoint order when omitted on every endpoint. */
  priority: number;
  /** Azure region canonical name (normalized from display names); external and nested endpoints. */
  endpointLocation?: string;
  /** Nested only; default 1. */
  minChildEndpoints?: number;
  minChildEndpointsIPv4?: number;
  minChildEndpointsIPv6?: number;
  geoMapping: string[];
  subnets: EndpointSubnet[];
  customHeaders: MonitorHeader[];
  alwaysServe: AlwaysServe;
}

/** How a Degraded endpoint comes back (a tmkit extension; absent: Azure's behaviour, docs/health.md "Failback"). */
export type FailbackMode = 'Automatic' | 'Manual';
export const FAILBACK_MODES: readonly FailbackMode[] = ['Automatic', 'Manual'];

export interface Failback {
  /** Automatic: Online once recovered. Manual: AwaitingFailback once recovered, until `tmkit endpoint failback`. */
  mode: FailbackMode;
  /** Consecutive good probes before a Degraded endpoint counts as recovered: 1–10, default 1. */
  successesToRecover: number;
  /** Seconds since the endpoint failed before it can count as recovered: 0–3600, default 0. */
  holdDownSeconds: number;
}

/**
 * Where Performance routing takes its latencies from (a tmkit extension, docs/routing.md "Measured latency"):
 * `Model`, the distance model (Azure's behaviour); `Measured`, the probe round trips each probing location
 * measures to each endpoint, falling back to the model for a pair with fewer than `minSamples` probes.
 */
export type PerformanceLatencySource = 'Model' | 'Measured';
export const PERFORMANCE_LATENCY_SOURCES: readonly PerformanceLatencySource[] = ['Model', 'Measured'];

export interface PerformanceLatency {
  source: PerformanceLatencySource;
  /** Endpoints within this many ms of the best count as equal, and the one answered stays until another is better by more: 0–1000, default 20. */
  toleranceMs: number;
  /** Probes (successful) a location needs of an endpoint before its measurement ranks it: 1–100, default 5. */
  minSamples: number;
}

export interface Profile {
  name: string;
  profileStatus: ProfileStatus;
  trafficRoutingMethod: TrafficRoutingMethod;
  dnsConfig: DnsConfig;
  monitorConfig: MonitorConfig;
  endpoints: Endpoint[];
  /** MultiValue only: 1–8, default 2 (docs). */
  maxReturn?: number;
  trafficViewEnrollmentStatus: TrafficViewEnrollmentStatus;
  allowedEndpointRecordTypes?: AllowedEndpointRecordType[];
  tags?: Record<string, string>;
  /** tmkit extension: how endpoints come back after an outage (absent: Azure's, Automatic after one good probe). */
  failback?: Failback;
  /** tmkit extension, Performance only: rank by measured probe latency (absent: the distance model). */
  performanceLatency?: PerformanceLatency;
}

export interface Document {
  apiVersion: typeof API_VERSION;
  stack: string;
  profiles: Profile[];
}

// ---------------------------------------------------------------------------------------------------
// Input shapes: what users write. Every property Azure lets them omit is optional.

export interface EndpointInput {
  name: string;
  /** Short (`externalEndpoints`) or full ARM type string, case-insensitive. */
  type: string;
  target?: string;
  targetResourceId?: string;
  endpointStatus?: EndpointStatus;
  weight?: number;
  priority?: number;
  endpointLocation?: string;
  minChildEndpoints?: number;
  minChildEndpointsIPv4?: number;
  minChildEndpointsIPv6?: number;
  geoMapping?: string[];
  subnets?: EndpointSubnet[];
  customHeaders?: MonitorHeader[];
  alwaysServe?: AlwaysServe;
}

export interface MonitorConfigInput {
  protocol?: MonitorProtocol;
  port?: number;
  path?: string;
  intervalInSeconds?: number;
  timeoutInSeconds?: number;
  toleratedNumberOfFailures?: number;
  customHeaders?: MonitorHeader[];
  expectedStatusCodeRanges?: StatusCodeRange[];
  certificateValidation?: CertificateValidation;
  caCertificates?: string;
  certificateExpiryWarningDays?: number;
  degradedLatencyMs?: number;
  checks?: MonitorCheckInput[];
  quorum?: number;
}

export interface MonitorCheckInput {
  name: string;
  protocol?: MonitorProtocol;
  port?: number;
  path?: string;
  expectedStatusCodeRanges?: StatusCodeRange[];
  mustBeHealthy?: boolean;
  monitoringOnly?: boolean;
}

export interface ProfileInput {
  name: string;
  profileStatus?: ProfileStatus;
  trafficRoutingMethod: TrafficRoutingMethod;
  dnsConfig: { relativeName: string; ttl?: number };
  monitorConfig?: MonitorConfigInput;
  endpoints?: EndpointInput[];
  maxReturn?: number;
  trafficViewEnrollmentStatus?: TrafficViewEnrollmentStatus;
  allowedEndpointRecordTypes?: AllowedEndpointRecordType[];
  tags?: Record<string, string>;
  failback?: { mode?: FailbackMode; successesToRecover?: number; holdDownSeconds?: number };
  performanceLatency?: { source?: PerformanceLatencySource; toleranceMs?: number; minSamples?: number };
}

export interface DocumentInput {
  apiVersion: string;
  stack?: string;
  profiles: ProfileInput[];
}
