/**
 * Bindings for the tmkit Terraform provider (registry.terraform.io/tmkit/tmkit), hand-written in the shape
 * `cdktf get` (or `cdktn get`) generates: one namespace per resource (`profile.Profile`,
 * `externalEndpoint.ExternalEndpoint`, …, `provider.TmkitProvider`, `dataTmkitProfileStatus.DataTmkitProfileStatus`),
 * classes extending the library's TerraformResource / TerraformProvider / TerraformDataSource with typed camelCase
 * config, `tfResourceType`, getters that return Terraform references (`profile.id` → `${tmkit_profile.x.id}`) and
 * `synthesizeAttributes()` writing the snake_case attributes (single blocks such as dns_config as one-element
 * lists). `makeBindings(lib)` makes them over the library passed in (cdktf or cdktn, ./library).
 */
import type { Construct } from 'constructs';
import type { CdkLibrary, MetaArguments } from './library';

/**
 * A constraint rather than the exact version `cdktf get` pins: any tmkit the mirror has (`tmkit terraform
 * install` installs the package's own version), and the CLI requires a version in required_providers.
 */
const GENERATOR = { providerName: 'tmkit', providerVersion: '>= 0.1.0' };

/** camelCase config → snake_case Terraform attributes; one object for a MaxItems-1 block becomes `[obj]`. */
function toTerraform(value: unknown, listBlocks: ReadonlySet<string>, key = ''): unknown {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.map((v) => toTerraform(v, listBlocks));
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype && key !== 'tags') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      const snake = k.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`);
      const t = toTerraform(v, listBlocks, snake);
      out[snake] = listBlocks.has(snake) && t !== null && !Array.isArray(t) ? [t] : t;
    }
    return out;
  }
  return value;
}

const META_KEYS = ['dependsOn', 'count', 'provider', 'lifecycle', 'forEach', 'provisioners', 'connection'] as const;
function meta(config: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of META_KEYS) if ((config as Record<string, unknown>)[k] !== undefined) out[k] = (config as Record<string, unknown>)[k];
  return out;
}
function attributes(config: object, listBlocks: ReadonlySet<string>): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) if (!(META_KEYS as readonly string[]).includes(k)) own[k] = v;
  return toTerraform(own, listBlocks) as Record<string, unknown>;
}

export interface CustomHeader {
  readonly name: string;
  readonly value: string;
}

export interface Timeouts {
  readonly create?: string;
  readonly read?: string;
  readonly update?: string;
  readonly delete?: string;
}

export interface Subnet {
  readonly first: string;
  readonly last?: string;
  readonly scope?: number;
}

// ------------------------------------------------------------------------------------------ the configs

export interface TmkitProviderConfig {
  /** tmkit management API URL (default: env TMKIT_SERVER). */
  readonly server?: string;
  /** API token (default: env TMKIT_TOKEN). */
  readonly token?: string;
  /** The stack that owns the profiles this configuration manages (default "terraform"). */
  readonly stack?: string;
  readonly alias?: string;
}

export interface ProfileDnsConfig {
  readonly relativeName: string;
  /** Seconds, 0–2147483647. Default 30. */
  readonly ttl?: number;
}
export interface ProfileMonitorConfig {
  /** HTTP, HTTPS or TCP. Default HTTP. */
  readonly protocol?: string;
  /** 1–65535. Default 80 (443 for HTTPS). */
  readonly port?: number;
  readonly path?: string;
  readonly intervalInSeconds?: number;
  readonly timeoutInSeconds?: number;
  readonly toleratedNumberOfFailures?: number;
  /** e.g. ["200-299"]. */
  readonly expectedStatusCodeRanges?: string[];
  readonly customHeader?: CustomHeader[];
  /** tmkit: composite health checks, 1–10 (docs/health.md "Composite checks"). */
  readonly check?: ProfileMonitorCheck[];
  /** tmkit: how many checks that are neither mustBeHealthy nor monitoringOnly must pass. Default: all. */
  readonly quorum?: number;
}
/** tmkit: one composite health check (a `check` block of monitor_config); omitted values are the profile's. */
export interface ProfileMonitorCheck {
  readonly name: string;
  readonly protocol?: string;
  readonly port?: number;
  readonly path?: string;
  /** e.g. ["200-399"]. */
  readonly expectedStatusCodeRanges?: string[];
  readonly mustBeHealthy?: boolean;
  readonly monitoringOnly?: boolean;
}
/** How endpoints come back after an outage (tmkit extension). */
export interface ProfileFailback {
  /** Automatic or Manual. Default Automatic. */
  readonly mode?: string;
  /** 1–10. Default 1. */
  readonly successesToRecover?: number;
  /** 0–3600. Default 0. */
  readonly holdDownSeconds?: number;
}
/** Performance only: rank by measured probe latency (tmkit extension). */
export interface ProfilePerformanceLatency {
  /** Measured or Model. Default Measured. */
  readonly source?: string;
  /** 0–1000. Default 20. */
  readonly toleranceMs?: number;
  /** 1–100. Default 5. */
  readonly minSamples?: number;
}
/**
 * An endpoint owned by the profile (an `endpoint` block of tmkit_profile): with `endpoints` the profile owns
 * all of them and writes them in one request, the way to manage hundreds (docs/terraform.md). `type` is
 * ExternalEndpoints (default), AzureEndpoints or NestedEndpoints.
 */
export interface ProfileEndpoint {
  readonly name: string;
  readonly type?: string;
  readonly target?: string;
  readonly targetResourceId?: string;
  readonly weight?: number;
  readonly priority?: number;
  readonly enabled?: boolean;
  readonly alwaysServeEnabled?: boolean;
  readonly endpointLocation?: string;
  readonly geoMappings?: string[];
  readonly minimumChildEndpoints?: number;
  readonly minimumRequiredChildEndpointsIpv4?: number;
  readonly minimumRequiredChildEndpointsIpv6?: number;
  readonly customHeader?: CustomHeader[];
  readonly subnet?: Subnet[];
}
/** tmkit_profile's attributes; the library's meta arguments (dependsOn, lifecycle, …) go beside them. */
export interface ProfileConfig {
  readonly name: string;
  readonly trafficRoutingMethod: string;
  readonly profileStatus?: string;
  readonly trafficViewEnabled?: boolean;
  readonly maxReturn?: number;
  readonly tags?: Record<string, string>;
  readonly dnsConfig: ProfileDnsConfig;
  readonly monitorConfig?: ProfileMonitorConfig;
  readonly failback?: ProfileFailback;
  readonly performanceLatency?: ProfilePerformanceLatency;
  /** Inline endpoints (`endpoint` blocks); a profile with them cannot also have endpoint resources. */
  readonly endpoints?: ProfileEndpoint[];
  readonly timeouts?: Timeouts;
}

export interface EndpointCommonConfig {
  readonly name: string;
  /** The profile's id (`profile.id`). */
  readonly profileId: string;
  readonly weight?: number;
  readonly priority?: number;
  readonly enabled?: boolean;
  readonly geoMappings?: string[];
  readonly endpointLocation?: string;
  readonly customHeader?: CustomHeader[];
  readonly subnet?: Subnet[];
  readonly timeouts?: Timeouts;
}
export interface ExternalEndpointConfig extends EndpointCommonConfig {
  readonly target: string;
  readonly alwaysServeEnabled?: boolean;
}
export interface AzureEndpointConfig extends EndpointCommonConfig {
  readonly targetResourceId: string;
  readonly target?: string;
  readonly alwaysServeEnabled?: boolean;
}
export interface NestedEndpointConfig extends EndpointCommonConfig {
  /** The child profile's id (`child.id`). */
  readonly targetResourceId: string;
  readonly minimumChildEndpoints?: number;
  readonly minimumRequiredChildEndpointsIpv4?: number;
  readonly minimumRequiredChildEndpointsIpv6?: number;
}
export interface DataTmkitProfileStatusConfig {
  readonly name: string;
}

// ------------------------------------------------------------------------------- the classes' types

/** A binding class: `new (scope, id, config)` and its `tfResourceType`. */
export interface BindingClass<I, C> {
  new (scope: Construct, id: string, config: C): I;
  readonly tfResourceType: string;
}
type Resource<L extends CdkLibrary> = InstanceType<L['TerraformResource']>;

export interface ProfileAttributes {
  /** `/tmkit/stacks/<stack>/trafficManagerProfiles/<name>` (a reference). */
  readonly id: string;
  readonly fqdn: string;
  readonly name: string;
}
export interface EndpointAttributes {
  readonly id: string;
  readonly priority: number;
}
export interface ProfileStatusAttributes {
  readonly fqdn: string;
  readonly profileMonitorStatus: string;
  readonly allDegradedFallback: boolean;
}
export interface TmkitProviderClass<L extends CdkLibrary> {
  new (
    scope: Construct,
    id: string,
    config?: TmkitProviderConfig,
  ): InstanceType<L['TerraformProvider']> & { readonly stack: string | undefined };
  readonly tfResourceType: string;
}

/** The bindings over library L, in the namespaces `cdktf get` would make. */
export interface Bindings<L extends CdkLibrary> {
  /** provider "tmkit" { server, token, stack }. */
  readonly provider: { readonly TmkitProvider: TmkitProviderClass<L> };
  /** resource "tmkit_profile". */
  readonly profile: { readonly Profile: BindingClass<Resource<L> & ProfileAttributes, ProfileConfig & MetaArguments<L>> };
  /** resource "tmkit_external_endpoint". */
  readonly externalEndpoint: {
    readonly ExternalEndpoint: BindingClass<Resource<L> & EndpointAttributes, ExternalEndpointConfig & MetaArguments<L>>;
  };
  /** resource "tmkit_azure_endpoint". */
  readonly azureEndpoint: {
    readonly AzureEndpoint: BindingClass<Resource<L> & EndpointAttributes, AzureEndpointConfig & MetaArguments<L>>;
  };
  /** resource "tmkit_nested_endpoint". */
  readonly nestedEndpoint: {
    readonly NestedEndpoint: BindingClass<Resource<L> & EndpointAttributes, NestedEndpointConfig & MetaArguments<L>>;
  };
  /** data "tmkit_profile_status". */
  readonly dataTmkitProfileStatus: {
    readonly DataTmkitProfileStatus: BindingClass<
      InstanceType<L['TerraformDataSource']> & ProfileStatusAttributes,
      DataTmkitProfileStatusConfig & MetaArguments<L>
    >;
  };
}

// ----------------------------------------------------------------------------------------- the classes

const PROFILE_LIST_BLOCKS = new Set(['dns_config', 'monitor_config', 'failback', 'performance_latency']);
const NO_LIST_BLOCKS = new Set<string>();

/** The binding classes over `lib` (its TerraformResource, TerraformProvider and TerraformDataSource as bases). */
export function makeBindings<L extends CdkLibrary>(lib: L): Bindings<L> {
  const { TerraformResource, TerraformProvider, TerraformDataSource }: CdkLibrary = lib;

  class TmkitProvider extends TerraformProvider {
    static readonly tfResourceType = 'tmkit';
    private readonly config: TmkitProviderConfig;
    constructor(scope: Construct, id: string, config: TmkitProviderConfig = {}) {
      super(scope, id, { terraformResourceType: 'tmkit', terraformGeneratorMetadata: GENERATOR, terraformProviderSource: 'tmkit/tmkit' });
      this.config = config;
      if (config.alias !== undefined) this.alias = config.alias;
    }
    get stack(): string | undefined {
      return this.config.stack;
    }
    protected synthesizeAttributes(): Record<string, unknown> {
      return { server: this.config.server, token: this.config.token, stack: this.config.stack, alias: this.alias };
    }
  }

  /** A resource or data source whose attributes are its config, snake_cased. */
  const withConfig = (Base: CdkLibrary['TerraformResource'], listBlocks: ReadonlySet<string>) => {
    abstract class Configured extends Base {
      protected readonly config: object;
      constructor(scope: Construct, id: string, type: string, config: object) {
        super(scope, id, { terraformResourceType: type, terraformGeneratorMetadata: GENERATOR, ...meta(config) });
        this.config = config;
      }
      protected synthesizeAttributes(): Record<string, unknown> {
        return attributes(this.config, listBlocks);
      }
    }
    return Configured;
  };

  class Profile extends withConfig(TerraformResource, PROFILE_LIST_BLOCKS) {
    static readonly tfResourceType = 'tmkit_profile';
    constructor(scope: Construct, id: string, config: ProfileConfig) {
      super(scope, id, 'tmkit_profile', config);
    }
    get id(): string {
      return this.getStringAttribute('id');
    }
    get fqdn(): string {
      return this.getStringAttribute('fqdn');
    }
    get name(): string {
      return this.getStringAttribute('name');
    }
    protected override synthesizeAttributes(): Record<string, unknown> {
      const { endpoints, ...rest } = super.synthesizeAttributes();
      return endpoints === undefined ? rest : { ...rest, endpoint: endpoints };
    }
  }

  abstract class EndpointResource extends withConfig(TerraformResource, NO_LIST_BLOCKS) {
    get id(): string {
      return this.getStringAttribute('id');
    }
    get priority(): number {
      return this.getNumberAttribute('priority');
    }
  }
  const endpointClass = <C extends EndpointCommonConfig>(type: string) =>
    class extends EndpointResource {
      static readonly tfResourceType = type;
      constructor(scope: Construct, id: string, config: C) {
        super(scope, id, type, config);
      }
    };

  class DataTmkitProfileStatus extends withConfig(TerraformDataSource, NO_LIST_BLOCKS) {
    static readonly tfResourceType = 'tmkit_profile_status';
    constructor(scope: Construct, id: string, config: DataTmkitProfileStatusConfig) {
      super(scope, id, 'tmkit_profile_status', config);
    }
    get fqdn(): string {
      return this.getStringAttribute('fqdn');
    }
    get profileMonitorStatus(): string {
      return this.getStringAttribute('profile_monitor_status');
    }
    get allDegradedFallback(): boolean {
      return this.getBooleanAttribute('all_degraded_fallback') as boolean;
    }
  }

  return {
    provider: { TmkitProvider },
    profile: { Profile },
    externalEndpoint: { ExternalEndpoint: endpointClass<ExternalEndpointConfig>('tmkit_external_endpoint') },
    azureEndpoint: { AzureEndpoint: endpointClass<AzureEndpointConfig>('tmkit_azure_endpoint') },
    nestedEndpoint: { NestedEndpoint: endpointClass<NestedEndpointConfig>('tmkit_nested_endpoint') },
    dataTmkitProfileStatus: { DataTmkitProfileStatus },
  } as unknown as Bindings<L>;
}
