/**
 * CDKTF bindings for the tmkit Terraform provider (registry.terraform.io/tmkit/tmkit), hand-written in the
 * shape `cdktf get` generates: one namespace per resource (`profile.Profile`, `externalEndpoint.ExternalEndpoint`,
 * …, `provider.TmkitProvider`, `dataTmkitProfileStatus.DataTmkitProfileStatus`), classes extending cdktf's
 * TerraformResource / TerraformProvider / TerraformDataSource with typed camelCase config, `tfResourceType`,
 * getters that return Terraform references (`profile.id` → `${tmkit_profile.x.id}`) and `synthesizeAttributes()`
 * writing the snake_case attributes (single blocks such as dns_config as one-element lists).
 */
import { TerraformDataSource, TerraformProvider, TerraformResource, type TerraformMetaArguments } from 'cdktf';
import type { Construct } from 'constructs';

/**
 * A constraint rather than the exact version `cdktf get` pins: any tmkit the mirror has (`tmkit terraform
 * install` installs the package's own version), and cdktf-cli requires a version in required_providers.
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
function meta(config: TerraformMetaArguments): TerraformMetaArguments {
  const out: Record<string, unknown> = {};
  for (const k of META_KEYS) if ((config as Record<string, unknown>)[k] !== undefined) out[k] = (config as Record<string, unknown>)[k];
  return out as TerraformMetaArguments;
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

// ------------------------------------------------------------------------------------------- provider

export namespace provider {
  export interface TmkitProviderConfig {
    /** tmkit management API URL (default: env TMKIT_SERVER). */
    readonly server?: string;
    /** API token (default: env TMKIT_TOKEN). */
    readonly token?: string;
    /** The stack that owns the profiles this configuration manages (default "terraform"). */
    readonly stack?: string;
    readonly alias?: string;
  }

  /** provider "tmkit" { server, token, stack }. */
  export class TmkitProvider extends TerraformProvider {
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
    protected override synthesizeAttributes(): Record<string, unknown> {
      return { server: this.config.server, token: this.config.token, stack: this.config.stack, alias: this.alias };
    }
  }
}

// -------------------------------------------------------------------------------------------- profile

export namespace profile {
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
  export interface ProfileConfig extends TerraformMetaArguments {
    readonly name: string;
    readonly trafficRoutingMethod: string;
    readonly profileStatus?: string;
    readonly trafficViewEnabled?: boolean;
    readonly maxReturn?: number;
    readonly tags?: Record<string, string>;
    readonly dnsConfig: ProfileDnsConfig;
    readonly monitorConfig?: ProfileMonitorConfig;
    readonly failback?: ProfileFailback;
    /** Inline endpoints (`endpoint` blocks); a profile with them cannot also have endpoint resources. */
    readonly endpoints?: ProfileEndpoint[];
    readonly timeouts?: Timeouts;
  }

  const LIST_BLOCKS = new Set(['dns_config', 'monitor_config', 'failback']);

  /** resource "tmkit_profile". */
  export class Profile extends TerraformResource {
    static readonly tfResourceType = 'tmkit_profile';
    private readonly config: ProfileConfig;
    constructor(scope: Construct, id: string, config: ProfileConfig) {
      super(scope, id, { terraformResourceType: 'tmkit_profile', terraformGeneratorMetadata: GENERATOR, ...meta(config) });
      this.config = config;
    }
    /** `/tmkit/stacks/<stack>/trafficManagerProfiles/<name>` (a reference). */
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
      const { endpoints, ...rest } = attributes(this.config, LIST_BLOCKS);
      return endpoints === undefined ? rest : { ...rest, endpoint: endpoints };
    }
  }
}

// ------------------------------------------------------------------------------------------ endpoints

export interface Subnet {
  readonly first: string;
  readonly last?: string;
  readonly scope?: number;
}

export interface EndpointCommonConfig extends TerraformMetaArguments {
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

const NO_LIST_BLOCKS = new Set<string>();

abstract class EndpointResource<C extends EndpointCommonConfig> extends TerraformResource {
  private readonly config: C;
  protected constructor(scope: Construct, id: string, type: string, config: C) {
    super(scope, id, { terraformResourceType: type, terraformGeneratorMetadata: GENERATOR, ...meta(config) });
    this.config = config;
  }
  get id(): string {
    return this.getStringAttribute('id');
  }
  get priority(): number {
    return this.getNumberAttribute('priority');
  }
  protected override synthesizeAttributes(): Record<string, unknown> {
    return attributes(this.config, NO_LIST_BLOCKS);
  }
}

export namespace externalEndpoint {
  export interface ExternalEndpointConfig extends EndpointCommonConfig {
    readonly target: string;
    readonly alwaysServeEnabled?: boolean;
  }
  /** resource "tmkit_external_endpoint". */
  export class ExternalEndpoint extends EndpointResource<ExternalEndpointConfig> {
    static readonly tfResourceType = 'tmkit_external_endpoint';
    constructor(scope: Construct, id: string, config: ExternalEndpointConfig) {
      super(scope, id, 'tmkit_external_endpoint', config);
    }
  }
}

export namespace azureEndpoint {
  export interface AzureEndpointConfig extends EndpointCommonConfig {
    readonly targetResourceId: string;
    readonly target?: string;
    readonly alwaysServeEnabled?: boolean;
  }
  /** resource "tmkit_azure_endpoint". */
  export class AzureEndpoint extends EndpointResource<AzureEndpointConfig> {
    static readonly tfResourceType = 'tmkit_azure_endpoint';
    constructor(scope: Construct, id: string, config: AzureEndpointConfig) {
      super(scope, id, 'tmkit_azure_endpoint', config);
    }
  }
}

export namespace nestedEndpoint {
  export interface NestedEndpointConfig extends EndpointCommonConfig {
    /** The child profile's id (`child.id`). */
    readonly targetResourceId: string;
    readonly minimumChildEndpoints?: number;
    readonly minimumRequiredChildEndpointsIpv4?: number;
    readonly minimumRequiredChildEndpointsIpv6?: number;
  }
  /** resource "tmkit_nested_endpoint". */
  export class NestedEndpoint extends EndpointResource<NestedEndpointConfig> {
    static readonly tfResourceType = 'tmkit_nested_endpoint';
    constructor(scope: Construct, id: string, config: NestedEndpointConfig) {
      super(scope, id, 'tmkit_nested_endpoint', config);
    }
  }
}

// ---------------------------------------------------------------------------------------- data source

export namespace dataTmkitProfileStatus {
  export interface DataTmkitProfileStatusConfig extends TerraformMetaArguments {
    readonly name: string;
  }
  /** data "tmkit_profile_status". */
  export class DataTmkitProfileStatus extends TerraformDataSource {
    static readonly tfResourceType = 'tmkit_profile_status';
    private readonly config: DataTmkitProfileStatusConfig;
    constructor(scope: Construct, id: string, config: DataTmkitProfileStatusConfig) {
      super(scope, id, { terraformResourceType: 'tmkit_profile_status', terraformGeneratorMetadata: GENERATOR, ...meta(config) });
      this.config = config;
    }
    get fqdn(): string {
      return this.getStringAttribute('fqdn');
    }
    get profileMonitorStatus(): string {
      return this.getStringAttribute('profile_monitor_status');
    }
    get allDegradedFallback(): boolean {
      return this.getBooleanAttribute('all_degraded_fallback') as unknown as boolean;
    }
    protected override synthesizeAttributes(): Record<string, unknown> {
      return attributes(this.config, NO_LIST_BLOCKS);
    }
  }
}
