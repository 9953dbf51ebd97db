/**
 * `tmkit/pulumi`: the SDK of the tmkit Pulumi provider (`pulumi-resource-tmkit`, providers/pulumi), shaped
 * as codegen makes it from the provider's schema and as azure-native's network module is: `Provider`,
 * `Profile`, `Endpoint` (pulumi.CustomResource classes with typed args and outputs), the enums, and the
 * input/output types. A program that manages Traffic Manager with azure-native moves here by changing
 *
 *     import * as network from "@pulumi/azure-native/network";   →   import * as network from "tmkit/pulumi";
 *
 * and dropping `resourceGroupName` (and `location: "global"`, which is accepted but says nothing here).
 * Needs `@pulumi/pulumi` (an optional peer dependency of tmkit). The classes register resources only; all
 * logic is the provider's (check, diff, create, read, update, delete), so nothing here is serialized into
 * state.
 */
import * as pulumi from '@pulumi/pulumi';

// ---------------------------------------------------------------------------------------------------
// Enums (azure-native's names and values; each is a const object and a string type)

export const AllowedEndpointRecordType = {
  DomainName: 'DomainName',
  IPv4Address: 'IPv4Address',
  IPv6Address: 'IPv6Address',
  Any: 'Any',
} as const;
export type AllowedEndpointRecordType = (typeof AllowedEndpointRecordType)[keyof typeof AllowedEndpointRecordType];
export const AlwaysServe = { Enabled: 'Enabled', Disabled: 'Disabled' } as const;
export type AlwaysServe = (typeof AlwaysServe)[keyof typeof AlwaysServe];
export const EndpointMonitorStatus = {
  CheckingEndpoint: 'CheckingEndpoint',
  Online: 'Online',
  Degraded: 'Degraded',
  Disabled: 'Disabled',
  Inactive: 'Inactive',
  Stopped: 'Stopped',
  Unmonitored: 'Unmonitored',
} as const;
export type EndpointMonitorStatus = (typeof EndpointMonitorStatus)[keyof typeof EndpointMonitorStatus];
export const EndpointStatus = { Enabled: 'Enabled', Disabled: 'Disabled' } as const;
export type EndpointStatus = (typeof EndpointStatus)[keyof typeof EndpointStatus];
export const MonitorProtocol = { HTTP: 'HTTP', HTTPS: 'HTTPS', TCP: 'TCP' } as const;
export type MonitorProtocol = (typeof MonitorProtocol)[keyof typeof MonitorProtocol];
export const ProfileMonitorStatus = {
  CheckingEndpoints: 'CheckingEndpoints',
  Online: 'Online',
  Degraded: 'Degraded',
  Disabled: 'Disabled',
  Inactive: 'Inactive',
} as const;
export type ProfileMonitorStatus = (typeof ProfileMonitorStatus)[keyof typeof ProfileMonitorStatus];
export const ProfileStatus = { Enabled: 'Enabled', Disabled: 'Disabled' } as const;
export type ProfileStatus = (typeof ProfileStatus)[keyof typeof ProfileStatus];
export const TrafficRoutingMethod = {
  Performance: 'Performance',
  Priority: 'Priority',
  Weighted: 'Weighted',
  Geographic: 'Geographic',
  MultiValue: 'MultiValue',
  Subnet: 'Subnet',
} as const;
export type TrafficRoutingMethod = (typeof TrafficRoutingMethod)[keyof typeof TrafficRoutingMethod];
export const TrafficViewEnrollmentStatus = { Enabled: 'Enabled', Disabled: 'Disabled' } as const;
export type TrafficViewEnrollmentStatus = (typeof TrafficViewEnrollmentStatus)[keyof typeof TrafficViewEnrollmentStatus];
/** azure-native's `endpointType` of an Endpoint resource. */
export const EndpointType = {
  AzureEndpoints: 'AzureEndpoints',
  ExternalEndpoints: 'ExternalEndpoints',
  NestedEndpoints: 'NestedEndpoints',
} as const;
export type EndpointType = (typeof EndpointType)[keyof typeof EndpointType];

type In<T> = pulumi.Input<T>;
/** A string that may also be one of an enum's values (as azure-native types its enum inputs). */
type Str<E extends string> = In<E | string>;

// ---------------------------------------------------------------------------------------------------
// Input and output types (azure-native's `types.input.network.*Args` / `types.output.network.*Response`)

export namespace types {
  export namespace input {
    export interface DnsConfigArgs {
      /** The DNS name (label or labels) under the runtime's zone. Changing it replaces the profile. */
      relativeName: In<string>;
      /** Seconds, 0–2147483647; default 30. */
      ttl?: In<number>;
    }
    export interface MonitorConfigCustomHeadersArgs {
      name: In<string>;
      value: In<string>;
    }
    export interface MonitorConfigExpectedStatusCodeRangesArgs {
      min: In<number>;
      max: In<number>;
    }
    /** How endpoints come back after an outage (a tmkit extension; absent: Azure's, Online after one good probe). */
    export interface FailbackArgs {
      /** `Automatic` (default) or `Manual` (AwaitingFailback until `tmkit endpoint failback`). */
      mode?: In<'Automatic' | 'Manual'>;
      /** Consecutive good probes before a Degraded endpoint counts as recovered, 1–10 (default 1). */
      successesToRecover?: In<number>;
      /** Seconds since it failed before it can count as recovered, 0–3600 (default 0). */
      holdDownSeconds?: In<number>;
    }
    /** Performance only: rank by measured probe latency (a tmkit extension; absent: the distance model). */
    export interface PerformanceLatencyArgs {
      /** `Measured` (default) or `Model`. */
      source?: In<'Model' | 'Measured'>;
      /** Endpoints within this many ms of the best count as equal, 0–1000 (default 20). */
      toleranceMs?: In<number>;
      /** Successful probes before a measurement ranks an endpoint, 1–100 (default 5). */
      minSamples?: In<number>;
    }
    export interface MonitorConfigArgs {
      protocol?: Str<MonitorProtocol>;
      port?: In<number>;
      path?: In<string>;
      intervalInSeconds?: In<number>;
      timeoutInSeconds?: In<number>;
      toleratedNumberOfFailures?: In<number>;
      customHeaders?: In<In<MonitorConfigCustomHeadersArgs>[]>;
      expectedStatusCodeRanges?: In<In<MonitorConfigExpectedStatusCodeRangesArgs>[]>;
      /** tmkit: `Enabled` checks HTTPS certificates (chain, host name, expiry); unset: Disabled, as Azure. */
      certificateValidation?: In<'Enabled' | 'Disabled'>;
      /** tmkit: PEM CA certificates the probed chain must lead to instead of the system CAs. */
      caCertificates?: In<string>;
      /** tmkit: days before expiry a certificate is warned about, 0-365; unset: 14 with validation Enabled. */
      certificateExpiryWarningDays?: In<number>;
      /** tmkit: a probe slower than this many milliseconds (1-60000) counts as failed. */
      degradedLatencyMs?: In<number>;
      /** tmkit: composite health checks, 1-10 (docs/health.md "Composite checks"); they replace the single probe. */
      checks?: In<In<MonitorConfigCheckArgs>[]>;
      /** tmkit: how many checks that are neither mustBeHealthy nor monitoringOnly must pass; unset: all of them. */
      quorum?: In<number>;
      /** Accepted for azure-native compatibility and ignored (a status, not a setting). */
      profileMonitorStatus?: Str<ProfileMonitorStatus>;
    }
    /** tmkit: one composite health check; what it leaves out is the profile's monitorConfig value. */
    export interface MonitorConfigCheckArgs {
      name: In<string>;
      protocol?: Str<MonitorProtocol>;
      port?: In<number>;
      path?: In<string>;
      expectedStatusCodeRanges?: In<In<MonitorConfigExpectedStatusCodeRangesArgs>[]>;
      /** The endpoint is Degraded when this check fails (past the tolerance); default false. */
      mustBeHealthy?: In<boolean>;
      /** Probed and reported, never counted; default false. */
      monitoringOnly?: In<boolean>;
    }
    export interface EndpointPropertiesCustomHeadersArgs {
      name: In<string>;
      value: In<string>;
    }
    export interface EndpointPropertiesSubnetsArgs {
      first: In<string>;
      last?: In<string>;
      scope?: In<number>;
    }
    /** The properties every endpoint has (inline in a Profile, or an Endpoint resource). */
    export interface EndpointPropertiesArgs {
      target?: In<string>;
      /** Nested endpoints: the child Profile's `id` (or name). Azure endpoints: the resource's ARM id. */
      targetResourceId?: In<string>;
      endpointStatus?: Str<EndpointStatus>;
      weight?: In<number>;
      priority?: In<number>;
      endpointLocation?: In<string>;
      minChildEndpoints?: In<number>;
      minChildEndpointsIPv4?: In<number>;
      minChildEndpointsIPv6?: In<number>;
      geoMapping?: In<In<string>[]>;
      subnets?: In<In<EndpointPropertiesSubnetsArgs>[]>;
      customHeaders?: In<In<EndpointPropertiesCustomHeadersArgs>[]>;
      alwaysServe?: Str<AlwaysServe>;
      /** Accepted for azure-native compatibility and ignored (a status, not a setting). */
      endpointMonitorStatus?: Str<EndpointMonitorStatus>;
    }
    /** An endpoint declared inline in a Profile (azure-native's `EndpointArgs` in a profile's `endpoints`). */
    export interface EndpointArgs extends EndpointPropertiesArgs {
      name: In<string>;
      /** `Microsoft.Network/trafficManagerProfiles/externalEndpoints` (or azureEndpoints, nestedEndpoints). */
      type: In<string>;
      /** Accepted for azure-native compatibility and ignored. */
      id?: In<string>;
    }
  }

  export namespace output {
    export interface DnsConfigResponse {
      relativeName: string;
      ttl: number;
      /** `<relativeName>.<zone>`. */
      fqdn: string;
    }
    export interface MonitorConfigCustomHeadersResponse {
      name: string;
      value: string;
    }
    export interface MonitorConfigExpectedStatusCodeRangesResponse {
      min: number;
      max: number;
    }
    export interface FailbackResponse {
      mode: string;
      successesToRecover: number;
      holdDownSeconds: number;
    }
    export interface PerformanceLatencyResponse {
      source: string;
      toleranceMs: number;
      minSamples: number;
    }
    export interface MonitorConfigResponse {
      protocol: string;
      port: number;
      path?: string;
      intervalInSeconds: number;
      timeoutInSeconds: number;
      toleratedNumberOfFailures: number;
      customHeaders: MonitorConfigCustomHeadersResponse[];
      expectedStatusCodeRanges: MonitorConfigExpectedStatusCodeRangesResponse[];
      certificateValidation?: string;
      caCertificates?: string;
      certificateExpiryWarningDays?: number;
      degradedLatencyMs?: number;
      checks?: Array<{
        name: string;
        protocol: string;
        port: number;
        path?: string;
        expectedStatusCodeRanges: MonitorConfigExpectedStatusCodeRangesResponse[];
        mustBeHealthy: boolean;
        monitoringOnly: boolean;
      }>;
      quorum?: number;
    }
    export interface EndpointPropertiesCustomHeadersResponse {
      name: string;
      value: string;
    }
    export interface EndpointPropertiesSubnetsResponse {
      first: string;
      last?: string;
      scope?: number;
    }
    export interface EndpointResponse {
      name: string;
      type: string;
      target?: string;
      targetResourceId?: string;
      endpointStatus: string;
      weight: number;
      priority: number;
      endpointLocation?: string;
      minChildEndpoints?: number;
      minChildEndpointsIPv4?: number;
      minChildEndpointsIPv6?: number;
      geoMapping: string[];
      subnets: EndpointPropertiesSubnetsResponse[];
      customHeaders: EndpointPropertiesCustomHeadersResponse[];
      alwaysServe: string;
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Provider

export interface ProviderArgs {
  /** The management API's base URL (default: TMKIT_SERVER, then http://127.0.0.1:5380). */
  server?: In<string>;
  /** The management API's token (default: TMKIT_TOKEN); always stored as a secret. */
  token?: In<string>;
  /** The tmkit stack that owns what this provider writes (default `pulumi`). */
  stack?: In<string>;
}

/** An explicit tmkit provider (otherwise the default provider reads `tmkit:server`, `tmkit:token`, `tmkit:stack`). */
export class Provider extends pulumi.ProviderResource {
  /** @internal */
  public static readonly __pulumiType = 'tmkit';

  public static override isInstance(obj: unknown): obj is Provider {
    if (obj === undefined || obj === null) return false;
    return (obj as Record<string, unknown>).__pulumiType === `pulumi:providers:${Provider.__pulumiType}`;
  }

  constructor(name: string, args?: ProviderArgs, opts?: pulumi.ResourceOptions) {
    const resourceInputs: pulumi.Inputs = {};
    resourceInputs.server = args?.server;
    resourceInputs.token = args?.token !== undefined ? pulumi.secret(args.token) : undefined;
    resourceInputs.stack = args?.stack;
    super(Provider.__pulumiType, name, resourceInputs, pulumi.mergeOptions(opts, { additionalSecretOutputs: ['token'] }));
  }
}

// ---------------------------------------------------------------------------------------------------
// Profile

/** azure-native's network.ProfileArgs without resourceGroupName. */
export interface ProfileArgs {
  /** The profile's name; default: the resource's name. Changing it replaces the profile. */
  profileName?: In<string>;
  profileStatus?: Str<ProfileStatus>;
  trafficRoutingMethod: Str<TrafficRoutingMethod>;
  dnsConfig: In<types.input.DnsConfigArgs>;
  monitorConfig?: In<types.input.MonitorConfigArgs>;
  trafficViewEnrollmentStatus?: Str<TrafficViewEnrollmentStatus>;
  /** MultiValue routing: 1–8, default 2. */
  maxReturn?: In<number>;
  tags?: In<Record<string, In<string>>>;
  allowedEndpointRecordTypes?: In<Str<AllowedEndpointRecordType>[]>;
  /** tmkit extension: how endpoints come back after an outage (docs/health.md "Failback"). */
  failback?: In<types.input.FailbackArgs>;
  /** tmkit extension, Performance only: rank by measured probe latency (docs/routing.md "Measured latency"). */
  performanceLatency?: In<types.input.PerformanceLatencyArgs>;
  /** The endpoints, when this resource owns the whole set. Leave it out to manage them as Endpoint resources. */
  endpoints?: In<In<types.input.EndpointArgs>[]>;
  /** Accepted for azure-native compatibility: "global" (a profile is global). */
  location?: In<string>;
}

/** A Traffic Manager profile on a tmkit runtime. Its `id` ends in `/trafficManagerProfiles/<name>`. */
export class Profile extends pulumi.CustomResource {
  /** @internal */
  public static readonly __pulumiType = 'tmkit:index:Profile';

  /** The existing profile with this id (`/tmkit/stacks/<stack>/trafficManagerProfiles/<name>`), read-only. */
  public static get(name: string, id: In<pulumi.ID>, opts?: pulumi.CustomResourceOptions): Profile {
    return new Profile(name, undefined as unknown as ProfileArgs, { ...opts, id });
  }

  public static override isInstance(obj: unknown): obj is Profile {
    if (obj === undefined || obj === null) return false;
    return (obj as Record<string, unknown>).__pulumiType === Profile.__pulumiType;
  }

  declare public readonly profileName: pulumi.Output<string>;
  /** The profile's name as stored (azure-native's `name` output). */
  declare public readonly name: pulumi.Output<string>;
  /** `Microsoft.Network/trafficManagerProfiles`. */
  declare public readonly type: pulumi.Output<string>;
  declare public readonly profileStatus: pulumi.Output<string>;
  declare public readonly trafficRoutingMethod: pulumi.Output<string>;
  declare public readonly dnsConfig: pulumi.Output<types.output.DnsConfigResponse>;
  declare public readonly monitorConfig: pulumi.Output<types.output.MonitorConfigResponse>;
  declare public readonly trafficViewEnrollmentStatus: pulumi.Output<string>;
  declare public readonly maxReturn: pulumi.Output<number | undefined>;
  declare public readonly tags: pulumi.Output<Record<string, string> | undefined>;
  declare public readonly allowedEndpointRecordTypes: pulumi.Output<string[] | undefined>;
  declare public readonly failback: pulumi.Output<types.output.FailbackResponse | undefined>;
  declare public readonly performanceLatency: pulumi.Output<types.output.PerformanceLatencyResponse | undefined>;
  /** The endpoints, when this resource owns them. */
  declare public readonly endpoints: pulumi.Output<types.output.EndpointResponse[] | undefined>;
  /** The tmkit stack that owns the profile. */
  declare public readonly stack: pulumi.Output<string>;
  /** The stored profile's ETag (when this resource owns its endpoints). */
  declare public readonly etag: pulumi.Output<string | undefined>;

  constructor(name: string, args: ProfileArgs, opts?: pulumi.CustomResourceOptions) {
    const resourceInputs: pulumi.Inputs = {};
    opts = opts ?? {};
    const outs = ['name', 'type', 'stack', 'etag'];
    if (!opts.id) {
      for (const k of [
        'profileName',
        'profileStatus',
        'trafficRoutingMethod',
        'dnsConfig',
        'monitorConfig',
        'trafficViewEnrollmentStatus',
        'maxReturn',
        'tags',
        'allowedEndpointRecordTypes',
        'failback',
        'performanceLatency',
        'endpoints',
        'location',
      ] as const) {
        resourceInputs[k] = args ? args[k] : undefined;
      }
      for (const k of outs) resourceInputs[k] = undefined;
    } else {
      for (const k of [
        'profileName',
        'profileStatus',
        'trafficRoutingMethod',
        'dnsConfig',
        'monitorConfig',
        'trafficViewEnrollmentStatus',
        'maxReturn',
        'tags',
        'allowedEndpointRecordTypes',
        'failback',
        'performanceLatency',
        'endpoints',
        ...outs,
      ])
        resourceInputs[k] = undefined;
    }
    super(Profile.__pulumiType, name, resourceInputs, opts);
  }
}

// ---------------------------------------------------------------------------------------------------
// Endpoint

/** azure-native's network.EndpointArgs without resourceGroupName. */
export interface EndpointArgs extends types.input.EndpointPropertiesArgs {
  /** The profile the endpoint belongs to, e.g. `profile.name`. Changing it replaces the endpoint. */
  profileName: In<string>;
  /** The endpoint's name; default: `name`, then the resource's name. Changing it replaces the endpoint. */
  endpointName?: In<string>;
  /** Changing it replaces the endpoint. */
  endpointType: Str<EndpointType>;
  /** azure-native's duplicate of endpointName (equal to it, or left out). */
  name?: In<string>;
  /** azure-native's full ARM type (the same type as endpointType, or left out). */
  type?: In<string>;
}

/** One endpoint of a profile on a tmkit runtime, written on its own with its own ETag. */
export class Endpoint extends pulumi.CustomResource {
  /** @internal */
  public static readonly __pulumiType = 'tmkit:index:Endpoint';

  /** The existing endpoint with this id (`<profile id>/<type>/<name>`), read-only. */
  public static get(name: string, id: In<pulumi.ID>, opts?: pulumi.CustomResourceOptions): Endpoint {
    return new Endpoint(name, undefined as unknown as EndpointArgs, { ...opts, id });
  }

  public static override isInstance(obj: unknown): obj is Endpoint {
    if (obj === undefined || obj === null) return false;
    return (obj as Record<string, unknown>).__pulumiType === Endpoint.__pulumiType;
  }

  declare public readonly profileName: pulumi.Output<string>;
  declare public readonly endpointName: pulumi.Output<string>;
  declare public readonly endpointType: pulumi.Output<string>;
  declare public readonly name: pulumi.Output<string>;
  /** The full ARM type, e.g. `Microsoft.Network/trafficManagerProfiles/externalEndpoints`. */
  declare public readonly type: pulumi.Output<string>;
  declare public readonly target: pulumi.Output<string | undefined>;
  declare public readonly targetResourceId: pulumi.Output<string | undefined>;
  declare public readonly endpointStatus: pulumi.Output<string>;
  declare public readonly weight: pulumi.Output<number>;
  declare public readonly priority: pulumi.Output<number>;
  declare public readonly endpointLocation: pulumi.Output<string | undefined>;
  declare public readonly minChildEndpoints: pulumi.Output<number | undefined>;
  declare public readonly minChildEndpointsIPv4: pulumi.Output<number | undefined>;
  declare public readonly minChildEndpointsIPv6: pulumi.Output<number | undefined>;
  declare public readonly geoMapping: pulumi.Output<string[]>;
  declare public readonly subnets: pulumi.Output<types.output.EndpointPropertiesSubnetsResponse[]>;
  declare public readonly customHeaders: pulumi.Output<types.output.EndpointPropertiesCustomHeadersResponse[]>;
  declare public readonly alwaysServe: pulumi.Output<string>;
  declare public readonly stack: pulumi.Output<string>;
  /** The endpoint's own ETag. */
  declare public readonly etag: pulumi.Output<string>;

  constructor(name: string, args: EndpointArgs, opts?: pulumi.CustomResourceOptions) {
    const resourceInputs: pulumi.Inputs = {};
    opts = opts ?? {};
    const ins = [
      'profileName',
      'endpointName',
      'endpointType',
      'name',
      'type',
      'target',
      'targetResourceId',
      'endpointStatus',
      'weight',
      'priority',
      'endpointLocation',
      'minChildEndpoints',
      'minChildEndpointsIPv4',
      'minChildEndpointsIPv6',
      'geoMapping',
      'subnets',
      'customHeaders',
      'alwaysServe',
      'endpointMonitorStatus',
    ] as const;
    if (!opts.id) {
      for (const k of ins) resourceInputs[k] = args ? args[k] : undefined;
    } else {
      for (const k of ins) resourceInputs[k] = undefined;
    }
    resourceInputs.stack = undefined;
    resourceInputs.etag = undefined;
    super(Endpoint.__pulumiType, name, resourceInputs, opts);
  }
}
