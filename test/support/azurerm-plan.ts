/**
 * `terraform show -json tfplan` output for azurerm Traffic Manager resources, built from azurerm's documented
 * schema (registry.terraform.io/providers/hashicorp/azurerm: traffic_manager_profile, _azure_endpoint,
 * _external_endpoint, _nested_endpoint; 3.x and 4.x): every attribute present as Terraform prints it (unset
 * optional values null, blocks as lists of objects), `after_unknown` for what is known after apply, and the
 * configuration's references (`expressions.profile_id.references`) that join endpoints to profiles.
 */

export type Attrs = Record<string, unknown>;

export const SUBSCRIPTION = '/subscriptions/6f0c1ab2-3d4e-4f50-8a6b-7c8d9e0f1a2b';
export const RG = 'rg-traffic';
export const PROFILES = `${SUBSCRIPTION}/resourceGroups/${RG}/providers/Microsoft.Network/trafficManagerProfiles`;

export const profileId = (name: string): string => `${PROFILES}/${name}`;
export const endpointId = (profile: string, kind: 'AzureEndpoints' | 'ExternalEndpoints' | 'NestedEndpoints', name: string): string =>
  `${profileId(profile)}/${kind}/${name}`;

/** An azurerm_traffic_manager_profile's attributes as azurerm 4.x keeps them in the state. */
export function profile(name: string, method: string, over: Attrs = {}): Attrs {
  return {
    dns_config: [{ relative_name: name, ttl: 30 }],
    fqdn: `${name}.trafficmanager.net`,
    id: profileId(name),
    max_return: 0,
    monitor_config: [
      {
        custom_header: [],
        expected_status_code_ranges: [],
        interval_in_seconds: 30,
        path: '/health',
        port: 443,
        protocol: 'HTTPS',
        timeout_in_seconds: 10,
        tolerated_number_of_failures: 3,
      },
    ],
    name,
    profile_status: 'Enabled',
    resource_group_name: RG,
    tags: {},
    timeouts: null,
    traffic_routing_method: method,
    traffic_view_enabled: false,
    ...over,
  };
}

/** An azurerm_traffic_manager_external_endpoint's attributes. */
export function external(profileName: string, name: string, target: string, over: Attrs = {}): Attrs {
  return {
    always_serve_enabled: false,
    custom_header: [],
    enabled: true,
    endpoint_location: null,
    geo_mappings: null,
    id: endpointId(profileName, 'ExternalEndpoints', name),
    name,
    priority: null,
    profile_id: profileId(profileName),
    subnet: [],
    target,
    timeouts: null,
    weight: null,
    ...over,
  };
}

/** An azurerm_traffic_manager_azure_endpoint's attributes. */
export function azure(profileName: string, name: string, targetResourceId: string, over: Attrs = {}): Attrs {
  return {
    always_serve_enabled: false,
    custom_header: [],
    enabled: true,
    geo_mappings: null,
    id: endpointId(profileName, 'AzureEndpoints', name),
    name,
    priority: null,
    profile_id: profileId(profileName),
    subnet: [],
    target_resource_id: targetResourceId,
    timeouts: null,
    weight: null,
    ...over,
  };
}

/** An azurerm_traffic_manager_nested_endpoint's attributes. */
export function nested(profileName: string, name: string, child: string, over: Attrs = {}): Attrs {
  return {
    custom_header: [],
    enabled: true,
    endpoint_location: null,
    geo_mappings: null,
    id: endpointId(profileName, 'NestedEndpoints', name),
    minimum_child_endpoints: 1,
    minimum_required_child_endpoints_ipv4: null,
    minimum_required_child_endpoints_ipv6: null,
    name,
    priority: null,
    profile_id: profileId(profileName),
    subnet: [],
    target_resource_id: profileId(child),
    timeouts: null,
    weight: null,
    ...over,
  };
}

export type Action = 'create' | 'update' | 'delete' | 'replace' | 'no-op';

export interface Resource {
  address: string;
  /** The resource type (e.g. azurerm_traffic_manager_external_endpoint); default: the address's type. */
  type?: string;
  action: Action;
  before?: Attrs | null;
  after?: Attrs | null;
  /** `after_unknown`: attribute name → true (known after apply). */
  unknown?: Record<string, unknown>;
  /** Configuration references per attribute (`expressions.<attr>.references`). */
  references?: Record<string, string[]>;
  afterSensitive?: Record<string, unknown>;
}

const ACTIONS: Record<Action, string[]> = {
  create: ['create'],
  update: ['update'],
  delete: ['delete'],
  replace: ['delete', 'create'],
  'no-op': ['no-op'],
};

function typeOf(address: string): string {
  const parts = address.replace(/\[[^\]]*\]/g, '').split('.');
  return parts[parts.length - 2]!;
}

function nameOf(address: string): string {
  const parts = address.replace(/\[[^\]]*\]/g, '').split('.');
  return parts[parts.length - 1]!;
}

/** The whole `terraform show -json` document of a plan with these resource changes. */
export function plan(resources: Resource[]): Record<string, unknown> {
  const withAfter = resources.filter((r) => r.after);
  return {
    format_version: '1.2',
    terraform_version: '1.11.4',
    planned_values: {
      root_module: {
        resources: withAfter.map((r) => ({
          address: r.address,
          mode: 'managed',
          type: r.type ?? typeOf(r.address),
          name: nameOf(r.address),
          provider_name: 'registry.terraform.io/hashicorp/azurerm',
          schema_version: 0,
          values: r.after,
          sensitive_values: {},
        })),
      },
    },
    resource_changes: resources.map((r) => ({
      address: r.address,
      mode: 'managed',
      type: r.type ?? typeOf(r.address),
      name: nameOf(r.address),
      provider_name: 'registry.terraform.io/hashicorp/azurerm',
      change: {
        actions: ACTIONS[r.action],
        before: r.before ?? null,
        after: r.after ?? null,
        after_unknown: r.unknown ?? {},
        before_sensitive: r.before ? {} : false,
        after_sensitive: r.after ? (r.afterSensitive ?? {}) : false,
        ...(r.action === 'replace' ? { replace_paths: [['dns_config', 0, 'relative_name']] } : {}),
      },
      ...(r.action === 'replace' ? { action_reason: 'replace_because_cannot_update' } : {}),
    })),
    prior_state: {
      format_version: '1.0',
      terraform_version: '1.11.4',
      values: {
        root_module: {
          resources: resources
            .filter((r) => r.before)
            .map((r) => ({
              address: r.address,
              mode: 'managed',
              type: r.type ?? typeOf(r.address),
              name: nameOf(r.address),
              values: r.before,
            })),
        },
      },
    },
    configuration: {
      provider_config: {
        azurerm: { name: 'azurerm', full_name: 'registry.terraform.io/hashicorp/azurerm', expressions: { features: [{}] } },
      },
      root_module: {
        resources: resources
          .filter((r) => !r.address.startsWith('module.'))
          .map((r) => ({
            address: r.address.replace(/\[[^\]]*\]/g, ''),
            mode: 'managed',
            type: r.type ?? typeOf(r.address),
            name: nameOf(r.address),
            provider_config_key: 'azurerm',
            expressions: Object.fromEntries(Object.entries(r.references ?? {}).map(([k, refs]) => [k, { references: refs }])),
            schema_version: 0,
          })),
      },
    },
    relevant_attributes: [],
    timestamp: '2026-12-07T07:00:00Z',
    applyable: true,
    complete: true,
    errored: false,
  };
}

/** Unchanged resources (no-op: before = after). */
export const same = (address: string, attrs: Attrs): Resource => ({ address, action: 'no-op', before: attrs, after: attrs });
