/**
 * The tmkit Pulumi package schema (https://www.pulumi.com/docs/iac/extending-pulumi/schema/): package name,
 * version, the provider config, and the resource types tmkit:index:Profile and tmkit:index:Endpoint with
 * azure-native's network.Profile / network.Endpoint property names (minus resourceGroupName; `location` and
 * `type` only as ARM's envelope). The SDK classes (providers/pulumi/sdk) are what codegen makes of it.
 */
import { DEFAULT_STACK } from './config';

export interface PackageSchema {
  name: string;
  version: string;
  displayName?: string;
  description?: string;
  homepage?: string;
  license?: string;
  repository?: string;
  config: { variables: Record<string, unknown>; defaults?: string[] };
  provider: {
    description?: string;
    inputProperties: Record<string, unknown>;
    properties?: Record<string, unknown>;
    requiredInputs?: string[];
  };
  resources: Record<string, unknown>;
  functions: Record<string, unknown>;
  types: Record<string, unknown>;
  language?: Record<string, unknown>;
}

const CONFIG_PROPERTIES = {
  server: {
    type: 'string',
    description: 'Base URL of the tmkit management API, e.g. http://127.0.0.1:5380. Falls back to TMKIT_SERVER.',
    defaultInfo: { environment: ['TMKIT_SERVER'] },
  },
  token: {
    type: 'string',
    secret: true,
    description: 'Bearer token of the management API. Falls back to TMKIT_TOKEN.',
    defaultInfo: { environment: ['TMKIT_TOKEN'] },
  },
  stack: {
    type: 'string',
    default: DEFAULT_STACK,
    description: 'The tmkit stack that owns what this provider writes (design: ownership); other stacks are never touched.',
  },
};

export function tmkitSchema(version: string): PackageSchema {
  return {
    name: 'tmkit',
    version,
    displayName: 'tmkit',
    description: 'Azure-Traffic-Manager-style DNS traffic management, self-hosted: profiles and endpoints on a tmkit runtime.',
    license: 'Apache-2.0',
    config: { variables: CONFIG_PROPERTIES },
    provider: {
      description: 'The tmkit provider: where the management API is and which tmkit stack owns the writes.',
      inputProperties: CONFIG_PROPERTIES,
      properties: CONFIG_PROPERTIES,
    },
    resources: RESOURCES,
    functions: {},
    types: TYPES,
    language: { nodejs: { packageName: 'tmkit' } },
  };
}

type Prop = Record<string, unknown>;
const string = (description: string, extra: Prop = {}): Prop => ({ type: 'string', description, ...extra });
const integer = (description: string): Prop => ({ type: 'integer', description });
const ref = (type: string, description: string): Prop => ({ $ref: `#/types/tmkit:index:${type}`, description });
const arrayOf = (items: Prop, description: string): Prop => ({ type: 'array', items, description });
const enabled = (description: string): Prop => string(`${description} \`Enabled\` or \`Disabled\`.`);

const ENDPOINT_PROPERTIES: Record<string, Prop> = {
  target: string('The fully-qualified DNS name or IP address of the endpoint (external endpoints; Azure endpoints may give it inline).'),
  targetResourceId: string("Azure endpoints: the ARM id of the resource. Nested endpoints: the child profile's `id` (or name)."),
  endpointStatus: enabled('Whether the endpoint takes part in routing (and is probed).'),
  weight: integer('Weighted routing: 1-1000, default 1.'),
  priority: integer('Priority routing: 1-1000, unique in the profile, lower first; left out, the next free one is given.'),
  endpointLocation: string('The Azure region of an external or nested endpoint (Performance routing), e.g. `westeurope` or `West Europe`.'),
  minChildEndpoints: integer("Nested endpoints: the child's endpoints that must be available for this endpoint to be, default 1."),
  minChildEndpointsIPv4: integer('Nested endpoints: the IPv4 endpoints that must be available in the child.'),
  minChildEndpointsIPv6: integer('Nested endpoints: the IPv6 endpoints that must be available in the child.'),
  geoMapping: arrayOf(
    { type: 'string' },
    'Geographic routing: the regions mapped to this endpoint (codes of the Azure hierarchy: `WORLD`, `GEO-EU`, `DE`, `US-CA`).',
  ),
  subnets: arrayOf(ref('EndpointPropertiesSubnets', ''), 'Subnet routing: the client address ranges mapped to this endpoint.'),
  customHeaders: arrayOf(ref('EndpointPropertiesCustomHeaders', ''), "Headers sent with this endpoint's probes."),
  alwaysServe: enabled('Always Serve: probing stops and the endpoint always takes part in routing.'),
};
const ENDPOINT_COMPAT = {
  endpointMonitorStatus: string(
    'Accepted for azure-native compatibility and ignored: the monitor status is a status, not a setting (see `tmkit status`).',
  ),
};

const TYPES: Record<string, unknown> = {
  'tmkit:index:DnsConfig': {
    type: 'object',
    description: 'The DNS settings of a profile.',
    properties: {
      relativeName: string(
        "The DNS name under the runtime's zone the profile answers at (its label(s)). Changing it replaces the profile.",
      ),
      ttl: integer('The TTL of the answers, 0-2147483647 s, default 30.'),
      fqdn: string('Output: the fully-qualified name, `<relativeName>.<zone>`.'),
    },
    required: ['relativeName'],
  },
  'tmkit:index:MonitorConfig': {
    type: 'object',
    description: "How the profile's endpoints are probed.",
    properties: {
      protocol: string('`HTTP`, `HTTPS` or `TCP`, default HTTP.'),
      port: integer('1-65535, default 80 (443 for HTTPS).'),
      path: string('The probe path (HTTP, HTTPS), default `/`.'),
      intervalInSeconds: integer('10 or 30, default 30.'),
      timeoutInSeconds: integer('5-10 (5-9 with a 10 s interval).'),
      toleratedNumberOfFailures: integer('0-9, default 3.'),
      customHeaders: arrayOf(ref('MonitorConfigCustomHeaders', ''), 'Headers sent with every probe.'),
      expectedStatusCodeRanges: arrayOf(ref('MonitorConfigExpectedStatusCodeRanges', ''), 'Status codes counted healthy besides 200.'),
      certificateValidation: enabled('tmkit: check HTTPS certificates (chain, host name, expiry); unset: Disabled, as Azure.'),
      caCertificates: string(
        'tmkit: PEM CA certificates the probed chain must lead to instead of the system CAs (with certificateValidation Enabled).',
      ),
      certificateExpiryWarningDays: integer(
        'tmkit: warn this many days before a certificate expires, 0-365 (0: never); unset: 14 with validation Enabled.',
      ),
      degradedLatencyMs: integer('tmkit: a probe slower than this many milliseconds (1-60000) counts as failed; unset: no latency rule.'),
      checks: arrayOf(
        ref('MonitorConfigCheck', ''),
        'tmkit: composite health checks, 1-10 (docs/health.md "Composite checks"); with them they replace the single probe. The endpoint is Online while every mustBeHealthy check and at least quorum of the others pass.',
      ),
      quorum: integer(
        'tmkit: how many checks that are neither mustBeHealthy nor monitoringOnly must pass (1 to their number); unset: all of them.',
      ),
      profileMonitorStatus: string('Accepted for azure-native compatibility and ignored: a status, not a setting (see `tmkit status`).'),
    },
  },
  'tmkit:index:MonitorConfigCheck': {
    type: 'object',
    description: "tmkit: one composite health check; what it leaves out is the profile's monitorConfig value.",
    properties: {
      name: string('Unique in the profile: 1-32 letters, digits, `-` and `_`.'),
      protocol: string("`HTTP`, `HTTPS` or `TCP`; default the profile's."),
      port: integer("1-65535; default the profile's port when the protocol is the profile's, else 80 (HTTP) or 443 (HTTPS)."),
      path: string("HTTP(S) only; default the profile's path."),
      expectedStatusCodeRanges: arrayOf(
        ref('MonitorConfigExpectedStatusCodeRanges', ''),
        "Status codes counted healthy besides 200; default the profile's.",
      ),
      mustBeHealthy: {
        type: 'boolean',
        description: 'The endpoint is Degraded when this check fails (past the tolerance); default false.',
      },
      monitoringOnly: { type: 'boolean', description: 'Probed and reported, never counted; default false.' },
    },
    required: ['name'],
  },
  'tmkit:index:Failback': {
    type: 'object',
    description:
      'How endpoints come back after an outage (a tmkit extension, docs/health.md "Failback"); without it, Azure\'s behaviour: Online after one good probe.',
    properties: {
      mode: string('`Automatic` (default) or `Manual`: a recovered endpoint is AwaitingFailback until `tmkit endpoint failback`.'),
      successesToRecover: integer('Consecutive good probes before a Degraded endpoint counts as recovered, 1-10, default 1.'),
      holdDownSeconds: integer('Seconds since it failed before it can count as recovered, 0-3600, default 0.'),
    },
  },
  'tmkit:index:PerformanceLatency': {
    type: 'object',
    description:
      'Performance only: rank endpoints by the latency the probes measure (a tmkit extension, docs/routing.md "Measured latency"); without it, the distance model.',
    properties: {
      source: string("`Measured` (default: the probes' round trips) or `Model` (the distance model)."),
      toleranceMs: integer(
        'Endpoints within this many ms of the best count as equal, and the one answered stays until another is better by more, 0-1000, default 20.',
      ),
      minSamples: integer('Successful probes a location needs of an endpoint before its measurement ranks it, 1-100, default 5.'),
    },
  },
  'tmkit:index:MonitorConfigCustomHeaders': {
    type: 'object',
    properties: { name: string('Header name.'), value: string('Header value.') },
    required: ['name', 'value'],
  },
  'tmkit:index:MonitorConfigExpectedStatusCodeRanges': {
    type: 'object',
    properties: { min: integer('Lowest code, 100-999.'), max: integer('Highest code, 100-999.') },
    required: ['min', 'max'],
  },
  'tmkit:index:EndpointPropertiesCustomHeaders': {
    type: 'object',
    properties: { name: string('Header name.'), value: string('Header value.') },
    required: ['name', 'value'],
  },
  'tmkit:index:EndpointPropertiesSubnets': {
    type: 'object',
    properties: {
      first: string('First address of the range (or the network address with `scope`).'),
      last: string('Last address of the range.'),
      scope: integer('Prefix length (CIDR).'),
    },
    required: ['first'],
  },
  'tmkit:index:Endpoint': {
    type: 'object',
    description: 'An endpoint declared inline in a Profile (the Profile then owns the whole endpoint set).',
    properties: {
      name: string("The endpoint's name, unique in the profile."),
      type: string(
        '`Microsoft.Network/trafficManagerProfiles/externalEndpoints` (or azureEndpoints, nestedEndpoints; the short forms work too).',
      ),
      ...ENDPOINT_PROPERTIES,
      id: string('Accepted for azure-native compatibility and ignored.'),
      ...ENDPOINT_COMPAT,
    },
    required: ['name', 'type'],
  },
};

const PROFILE_INPUTS: Record<string, Prop> = {
  profileName: string("The profile's name (unique, case-insensitive). Default: the resource's name. Changing it replaces the profile."),
  profileStatus: enabled('Whether the profile answers (a disabled profile answers NXDOMAIN).'),
  trafficRoutingMethod: string('`Performance`, `Priority`, `Weighted`, `Geographic`, `MultiValue` or `Subnet`.'),
  dnsConfig: ref('DnsConfig', 'The DNS name and TTL.'),
  monitorConfig: ref('MonitorConfig', 'Endpoint monitoring.'),
  trafficViewEnrollmentStatus: enabled('Traffic View.'),
  maxReturn: integer('MultiValue routing: how many records an answer has, 1-8, default 2.'),
  tags: { type: 'object', additionalProperties: { type: 'string' }, description: 'Tags.' },
  allowedEndpointRecordTypes: arrayOf(
    { type: 'string' },
    'The record types endpoints may have (`DomainName`, `IPv4Address`, `IPv6Address`, `Any`).',
  ),
  failback: ref('Failback', 'tmkit extension: how endpoints come back after an outage (Manual failback, successes to recover, hold-down).'),
  performanceLatency: ref(
    'PerformanceLatency',
    'tmkit extension, Performance only: rank by measured probe latency (source, tolerance, samples).',
  ),
  endpoints: arrayOf(
    ref('Endpoint', ''),
    'The endpoints, when this resource owns the whole set (as in azure-native). Leave it out to ' +
      'manage endpoints as tmkit:index:Endpoint resources: the profile then never touches them.',
  ),
  location: string('Accepted for azure-native compatibility: `global` (a profile is global) or left out.'),
  type: string('Accepted for azure-native compatibility: `Microsoft.Network/trafficManagerProfiles` or left out.'),
};

const ENDPOINT_INPUTS: Record<string, Prop> = {
  profileName: string("The profile the endpoint belongs to (e.g. the Profile resource's `name`). Changing it replaces the endpoint."),
  endpointName: string("The endpoint's name. Default: `name`, then the resource's name. Changing it replaces the endpoint."),
  endpointType: string(
    '`ExternalEndpoints`, `AzureEndpoints` or `NestedEndpoints`. Changing it replaces the endpoint (its id has the type).',
  ),
  name: string("azure-native's duplicate of endpointName: equal to it, or left out."),
  type: string(
    "azure-native's full ARM type (`Microsoft.Network/trafficManagerProfiles/externalEndpoints`): the same type as endpointType, or left out.",
  ),
  ...ENDPOINT_PROPERTIES,
  ...ENDPOINT_COMPAT,
};

const OUTPUTS_COMMON: Record<string, Prop> = {
  stack: string("The tmkit stack that owns the profile (the provider's `tmkit:stack`)."),
};

const RESOURCES: Record<string, unknown> = {
  'tmkit:index:Profile': {
    description:
      "A Traffic Manager profile on a tmkit runtime, with azure-native's network.Profile arguments " +
      'minus resourceGroupName. Its `id` ends in `/trafficManagerProfiles/<name>`: give it as a ' +
      "nested endpoint's targetResourceId.",
    inputProperties: PROFILE_INPUTS,
    requiredInputs: ['trafficRoutingMethod', 'dnsConfig'],
    properties: {
      ...PROFILE_INPUTS,
      name: string("The profile's name (as stored)."),
      type: string('`Microsoft.Network/trafficManagerProfiles`.'),
      etag: string("The stored profile's ETag (only when the resource owns its endpoints; writes carry it as If-Match)."),
      ...OUTPUTS_COMMON,
    },
    required: [
      'profileName',
      'name',
      'type',
      'profileStatus',
      'trafficRoutingMethod',
      'dnsConfig',
      'monitorConfig',
      'trafficViewEnrollmentStatus',
      'stack',
    ],
  },
  'tmkit:index:Endpoint': {
    description:
      "One endpoint of a profile on a tmkit runtime, with azure-native's network.Endpoint arguments " +
      'minus resourceGroupName. Written on its own, with its own ETag; the other endpoints of the ' +
      'profile are never touched.',
    inputProperties: ENDPOINT_INPUTS,
    requiredInputs: ['profileName', 'endpointType'],
    properties: {
      ...ENDPOINT_INPUTS,
      etag: string("The endpoint's own ETag (changes only when this endpoint changes; writes carry it as If-Match)."),
      ...OUTPUTS_COMMON,
    },
    required: [
      'profileName',
      'endpointName',
      'endpointType',
      'name',
      'type',
      'endpointStatus',
      'weight',
      'priority',
      'alwaysServe',
      'stack',
      'etag',
    ],
  },
};
