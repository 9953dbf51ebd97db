/**
 * The rule catalog: every diagnostic code, its severity and the rule it enforces. The severity of a code
 * never depends on the document (the API and the CLI send these codes; test/core/codes.test.ts checks every code written in the source is here or in CODES).
 */
import type { Severity } from '../diagnostics';

export interface RuleInfo {
  severity: Severity;
  family: string;
  rule: string;
}

const e = (family: string, rule: string): RuleInfo => ({ severity: 'error', family, rule });
const w = (family: string, rule: string): RuleInfo => ({ severity: 'warning', family, rule });

export const RULES = {
  // structure
  INTERNAL_ERROR: e('structure', 'The validator itself failed on the input (a bug; reported instead of thrown).'),
  DOCUMENT_NOT_OBJECT: e('structure', 'The document is a JSON object.'),
  INVALID_TYPE: e('structure', 'Every property has its JSON type (string, number, array, object).'),
  REQUIRED_PROPERTY: e(
    'structure',
    'Required properties are present (profile name, trafficRoutingMethod, dnsConfig.relativeName; ' +
      'endpoint name, type; subnet first; header name/value; range min/max; profiles).',
  ),
  UNKNOWN_PROPERTY: w(
    'structure',
    'Properties not in the tmkit/v1 schema are ignored (a likely typo; the hint names the closest known one).',
  ),
  API_VERSION: e('structure', 'apiVersion is "tmkit/v1".'),
  STACK_NAME: e('naming', 'stack is a DNS label: 1–63 letters, digits and hyphens, starting and ending with a letter or digit.'),
  // naming
  PROFILE_NAME: e('naming', 'Profile name: 1–63 characters, letters, digits, "-" and ".", first and last a letter or digit.'),
  PROFILE_NAME_DUPLICATE: e('naming', 'Profile names are unique (case-insensitive).'),
  ENDPOINT_NAME: e('naming', 'Endpoint name: 1–260 characters, no "/" , "\\" or control characters.'),
  ENDPOINT_NAME_DUPLICATE: e('naming', 'Endpoint names are unique within a profile (case-insensitive).'),
  PROFILES_LIMIT: w('naming', '--strict-azure: at most 200 profiles (Azure subscription limit).'),
  // dns
  RELATIVE_NAME: e(
    'dns',
    'dnsConfig.relativeName: dot-separated DNS labels of 1–63 letters, digits and hyphens (no leading/trailing hyphen), at most 253 characters.',
  ),
  RELATIVE_NAME_DUPLICATE: e(
    'dns',
    'dnsConfig.relativeName is unique across profiles (case-insensitive), including deployed profiles given as context.',
  ),
  TTL_RANGE: e('dns', 'dnsConfig.ttl is an integer 0–2147483647.'),
  // profile
  PROFILE_STATUS: e('profile', 'profileStatus is Enabled or Disabled.'),
  ROUTING_METHOD: e('profile', 'trafficRoutingMethod is Performance, Priority, Weighted, Geographic, MultiValue or Subnet.'),
  TRAFFIC_VIEW_STATUS: e('profile', 'trafficViewEnrollmentStatus is Enabled or Disabled.'),
  RECORD_TYPE_INVALID: e('profile', 'allowedEndpointRecordTypes entries are DomainName, IPv4Address, IPv6Address or Any.'),
  RECORD_TYPE_NOT_ALLOWED: w(
    'profile',
    "An endpoint target kind is listed in allowedEndpointRecordTypes (Azure's enforcement is undocumented).",
  ),
  ENDPOINTS_LIMIT: e('profile', 'At most 200 endpoints per profile.'),
  // monitor
  MONITOR_PROTOCOL: e('monitor', 'monitorConfig.protocol is HTTP, HTTPS or TCP.'),
  MONITOR_PORT_RANGE: e('monitor', 'monitorConfig.port is an integer 1–65535.'),
  MONITOR_PATH_REQUIRED: e('monitor', 'monitorConfig.path is required (non-empty) for HTTP and HTTPS.'),
  MONITOR_PATH_INVALID: e('monitor', 'monitorConfig.path is a relative path starting with "/" without whitespace.'),
  MONITOR_PATH_TCP: e('monitor', 'monitorConfig.path is not allowed with TCP.'),
  MONITOR_INTERVAL: e('monitor', 'monitorConfig.intervalInSeconds is 10 or 30.'),
  MONITOR_TIMEOUT_RANGE: e('monitor', 'monitorConfig.timeoutInSeconds is an integer 5–10 with a 30 s interval, 5–9 with a 10 s interval.'),
  MONITOR_TOLERATED_FAILURES_RANGE: e('monitor', 'monitorConfig.toleratedNumberOfFailures is an integer 0–9.'),
  CUSTOM_HEADERS_LIMIT: e('monitor', 'At most 8 custom headers (profile monitorConfig and each endpoint).'),
  CUSTOM_HEADER_NAME: e('monitor', "A custom header name is an HTTP token (letters, digits and !#$%&'*+-.^_`|~)."),
  CUSTOM_HEADER_VALUE: e(
    'monitor',
    'A custom header value is printable ASCII, spaces and tabs: no CR, LF, NUL, other control characters or non-ASCII (the prober could never send it).',
  ),
  CUSTOM_HEADER_FORBIDDEN: e(
    'monitor',
    'A custom header is one the prober can send: not a hop-by-hop or framing header (Connection, ' +
      'Keep-Alive, Proxy-Connection, TE, Trailer, Transfer-Encoding, Upgrade, Content-Length, Expect).',
  ),
  CUSTOM_HEADER_HOST_WILDCARD: e('monitor', 'A custom Host header value contains no "*".'),
  CUSTOM_HEADER_DUPLICATE: w('monitor', 'A header name appears once per list (the later one would be ambiguous).'),
  CUSTOM_HEADERS_IGNORED: w('monitor', 'Custom headers are ignored by TCP probes.'),
  STATUS_CODE_RANGES_LIMIT: e('monitor', 'At most 8 expectedStatusCodeRanges.'),
  STATUS_CODE_RANGE: e('monitor', 'An expected status code range has integers min ≤ max within 100–999.'),
  STATUS_CODE_RANGES_IGNORED: w('monitor', 'expectedStatusCodeRanges are ignored by TCP probes.'),
  MONITOR_CERTIFICATE_VALIDATION: e('monitor', 'tmkit: monitorConfig.certificateValidation is Enabled or Disabled.'),
  MONITOR_CA_CERTIFICATES: e(
    'monitor',
    'tmkit: monitorConfig.caCertificates is a PEM bundle of one or more X.509 certificates (at most 64 KiB).',
  ),
  MONITOR_CERTIFICATE_EXPIRY_WARNING_RANGE: e('monitor', 'tmkit: monitorConfig.certificateExpiryWarningDays is an integer 0–365.'),
  MONITOR_CERTIFICATE_IGNORED: w('monitor', 'tmkit: certificate settings apply to HTTPS probes with certificateValidation Enabled only.'),
  MONITOR_DEGRADED_LATENCY_RANGE: e('monitor', 'tmkit: monitorConfig.degradedLatencyMs is an integer 1–60000.'),
  MONITOR_DEGRADED_LATENCY_IGNORED: w(
    'monitor',
    'tmkit: monitorConfig.degradedLatencyMs is below the probe timeout (else the probe times out first).',
  ),
  MONITOR_CHECKS_COUNT: e('monitor', 'tmkit: monitorConfig.checks holds 1–10 checks.'),
  MONITOR_CHECK_NAME: e('monitor', 'tmkit: a check name is 1–32 letters, digits, "-" and "_", starting with a letter or digit.'),
  MONITOR_CHECK_NAME_DUPLICATE: e('monitor', 'tmkit: check names are unique within a profile (case-insensitive).'),
  MONITOR_CHECK_ROLE: e('monitor', 'tmkit: a check is not both mustBeHealthy and monitoringOnly.'),
  MONITOR_CHECKS_NONE_COUNT: e('monitor', 'tmkit: at least one check is not monitoringOnly.'),
  MONITOR_QUORUM_RANGE: e(
    'monitor',
    'tmkit: monitorConfig.quorum is an integer from 1 to the number of checks that are neither mustBeHealthy nor monitoringOnly, and only with checks.',
  ),
  // endpoints
  ENDPOINT_TYPE: e(
    'endpoints',
    'Endpoint type is azureEndpoints, externalEndpoints or nestedEndpoints (short or full ARM type, case-insensitive).',
  ),
  ENDPOINT_STATUS: e('endpoints', 'endpointStatus is Enabled or Disabled.'),
  ALWAYS_SERVE: e('endpoints', 'alwaysServe is Enabled or Disabled.'),
  ALWAYS_SERVE_NESTED: e('endpoints', 'Always Serve is not allowed on nested endpoints.'),
  ALWAYS_SERVE_DISABLED: w(
    'endpoints',
    'Always Serve on a Disabled endpoint has no effect (Azure requires the endpoint Enabled to configure it).',
  ),
  WEIGHT_RANGE: e('endpoints', 'weight is an integer 1–1000.'),
  WEIGHT_IGNORED: w('endpoints', 'weight is set but only Weighted routing uses it.'),
  PRIORITY_RANGE: e('endpoints', 'priority is an integer 1–1000.'),
  PRIORITY_DUPLICATE: e('endpoints', 'priority is unique within a profile.'),
  PRIORITY_PARTIAL: e('endpoints', 'priority is given on every endpoint of a profile or on none (then derived from order).'),
  PRIORITY_IGNORED: w('endpoints', 'priority is set but only Priority routing uses it.'),
  MIN_CHILD_ENDPOINTS_RANGE: e('endpoints', 'minChildEndpoints is an integer ≥ 1; minChildEndpointsIPv4/IPv6 are integers ≥ 0.'),
  MIN_CHILD_ENDPOINTS_IGNORED: w('endpoints', 'minChildEndpoints* apply to nested endpoints only.'),
  MIN_CHILD_ENDPOINTS_SUM: e('endpoints', 'minChildEndpoints ≥ minChildEndpointsIPv4 + minChildEndpointsIPv6.'),
  MIN_CHILD_ENDPOINTS_UNREACHABLE: w(
    'endpoints',
    "minChildEndpoints(IPv4/IPv6) exceeds the child profile's (IPv4/IPv6) endpoint count, so the nested endpoint can never be available.",
  ),
  ENDPOINT_LOCATION_UNKNOWN: e('endpoints', 'endpointLocation is an Azure region, canonical (westeurope) or display name (West Europe).'),
  ENDPOINT_LOCATION_GLOBAL: e('endpoints', 'endpointLocation is never "global".'),
  ENDPOINT_LOCATION_REQUIRED: e('performance', 'Performance profiles need endpointLocation on external and nested endpoints.'),
  // targets
  TARGET_REQUIRED: e('targets', 'External endpoints have a target.'),
  TARGET_INVALID: e(
    'targets',
    'target is an IPv4 address, an IPv6 address or an FQDN (labels of 1–63 letters, digits, hyphens; ≤ 253 characters; no scheme, port or path).',
  ),
  TARGET_IGNORED: w('targets', "target on a nested endpoint is ignored (it is the child profile's FQDN)."),
  TARGET_NOT_PUBLIC: e(
    'targets',
    '--strict-azure: IP targets are public (no private, loopback, link-local, documentation, benchmarking, multicast or reserved ranges).',
  ),
  TARGET_IP_NOT_EXTERNAL: e('targets', '--strict-azure: IP literal targets only on external endpoints.'),
  TARGET_FAMILY_MIXED: e('targets', 'One profile does not mix FQDN, IPv4 and IPv6 targets (IPv4 with IPv6 is allowed in MultiValue).'),
  TARGET_IP_DUPLICATE: e('targets', 'No two endpoints of a profile share a target IP address.'),
  TARGET_RESOURCE_ID_REQUIRED: e('targets', 'Azure and nested endpoints have a targetResourceId.'),
  TARGET_RESOURCE_ID_NOT_ALLOWED: e('targets', 'External endpoints have no targetResourceId.'),
  AZURE_RESOURCE_ID: e(
    'targets',
    'An Azure endpoint targetResourceId is an ARM id: /subscriptions/{id}/resourceGroups/{rg}/providers/{namespace}/{type}/{name}[/{type}/{name}].',
  ),
  AZURE_RESOURCE_TYPE: e(
    'targets',
    'Azure endpoints target Microsoft.Web/sites, Microsoft.Web/sites/slots, Microsoft.Network/publicIPAddresses, ' +
      'Microsoft.ClassicCompute/domainNames or Microsoft.Compute/cloudServices.',
  ),
  AZURE_WEBAPP_SAME_REGION: e(
    'targets',
    '--strict-azure: at most one Web App endpoint per Azure region in a profile (checked where endpointLocation is given inline).',
  ),
  AZURE_SUBSCRIPTION_ID: e('targets', '--strict-azure: the subscription in an ARM id is a GUID.'),
  // geo
  GEO_CODE_UNKNOWN: e(
    'geo',
    'geoMapping codes come from the Azure geographic hierarchy (WORLD, GEO-xx, countries, US/CA/AU states, UA-CR), exact case.',
  ),
  GEO_CODE_DUPLICATE: e('geo', 'A geographic code is mapped to at most one endpoint of a profile.'),
  GEO_CODE_REPEATED: w('geo', 'A code is listed once per endpoint.'),
  GEO_CODE_REDUNDANT: w('geo', 'An endpoint does not list a code together with one of its ancestors (the ancestor already covers it).'),
  GEO_MAPPING_REQUIRED: e('geo', 'Every endpoint of a Geographic profile has at least one geoMapping code.'),
  GEO_MAPPING_IGNORED: w('geo', 'geoMapping is used by Geographic routing only.'),
  GEO_WORLD_MISSING: w('geo', 'A Geographic profile maps WORLD to some endpoint (else unmatched clients get NODATA).'),
  GEO_ENDPOINT_NOT_NESTED: w(
    'geo',
    'Geographic routing never fails over from the matched endpoint; a non-nested endpoint has no failover.',
  ),
  // subnets
  SUBNET_ADDRESS: e('subnets', 'Subnet first/last are IPv4 or IPv6 addresses.'),
  SUBNET_SCOPE_RANGE: e('subnets', 'Subnet scope is an integer 0–32 (IPv4) or 0–128 (IPv6).'),
  SUBNET_NOT_NETWORK_ADDRESS: e('subnets', 'With a scope, first is the network address of the prefix.'),
  SUBNET_LAST_WITH_SCOPE: e('subnets', 'A subnet gives either last or scope, not both.'),
  SUBNET_FAMILY_MISMATCH: e('subnets', 'first and last are of the same address family.'),
  SUBNET_RANGE_ORDER: e('subnets', 'first ≤ last.'),
  SUBNET_OVERLAP: e('subnets', 'No two subnet ranges of a profile overlap.'),
  SUBNET_FALLBACK_MULTIPLE: e('subnets', 'A Subnet profile has at most one endpoint without subnets (the fallback).'),
  SUBNET_FALLBACK_MISSING: w(
    'subnets',
    'A Subnet profile has a fallback endpoint (one without subnets), else unmatched clients get no answer.',
  ),
  SUBNETS_IGNORED: w('subnets', 'subnets are used by Subnet routing and as override by Performance and Geographic only.'),
  // multivalue
  MAX_RETURN_RANGE: e('multivalue', 'maxReturn is an integer 1–8.'),
  MAX_RETURN_IGNORED: w('multivalue', 'maxReturn is used by MultiValue routing only.'),
  MULTIVALUE_ENDPOINT_TYPE: e('multivalue', 'MultiValue profiles have external endpoints only.'),
  MULTIVALUE_TARGET: e('multivalue', 'MultiValue endpoint targets are IPv4 or IPv6 literals.'),
  // nesting
  NESTED_TARGET_NOT_FOUND: e('nesting', 'A nested endpoint names an existing profile (in the document or deployed).'),
  NESTED_TARGET_INVALID: e(
    'nesting',
    'A nested endpoint targetResourceId is a profile name or an ARM id ending in /trafficManagerProfiles/{name}.',
  ),
  NESTING_CYCLE: e('nesting', 'Nested profiles form no cycle.'),
  NESTING_DEPTH: e('nesting', 'Nesting is at most 10 levels deep.'),
  NESTED_MULTIVALUE_PARENT: e('nesting', 'A MultiValue profile is never a parent (no nested endpoints).'),
  NESTED_MULTIVALUE_CHILD: e('nesting', 'A nested MultiValue child has at least one IPv4 and one IPv6 endpoint.'),
  NESTED_MULTIVALUE_MIN_CHILD: w(
    'nesting',
    'A nested endpoint over a MultiValue child sets minChildEndpointsIPv4 and minChildEndpointsIPv6.',
  ),
  // failback (a tmkit extension)
  FAILBACK_MODE: e('failback', 'failback.mode is Automatic or Manual.'),
  FAILBACK_SUCCESSES_RANGE: e('failback', 'failback.successesToRecover is an integer 1–10.'),
  FAILBACK_HOLD_DOWN_RANGE: e('failback', 'failback.holdDownSeconds is an integer 0–3600.'),
  // performanceLatency (a tmkit extension)
  PERF_LATENCY_METHOD: e('performance', 'performanceLatency is set only on a Performance profile.'),
  PERF_LATENCY_SOURCE: e('performance', 'performanceLatency.source is Model or Measured.'),
  PERF_LATENCY_TOLERANCE_RANGE: e('performance', 'performanceLatency.toleranceMs is an integer 0–1000.'),
  PERF_LATENCY_MIN_SAMPLES_RANGE: e('performance', 'performanceLatency.minSamples is an integer 1–100.'),
} as const satisfies Record<string, RuleInfo>;

export type RuleCode = keyof typeof RULES;
