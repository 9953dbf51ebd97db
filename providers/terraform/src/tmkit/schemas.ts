/**
 * The schemas of the tmkit resources and data source: azurerm's Traffic Manager resources attribute for
 * attribute (azurerm_traffic_manager_profile, _external_endpoint, _azure_endpoint, _nested_endpoint), minus
 * resource_group_name, so a configuration moves by renaming (docs/ARCHITECTURE.md, "Providers"). Where azurerm requires a value
 * that tmkit has a default for (monitor_config, ttl, minimum_child_endpoints) the attribute is optional here,
 * which still accepts every azurerm configuration. Attributes with a default are optional + computed and
 * planned as that default (see ./resources), so plans show what will be stored.
 * `requiresReplace` marks azurerm's ForceNew attributes: name, profile_id, dns_config.relative_name.
 * The `timeouts` block is accepted (azurerm configurations have it) and has no effect.
 */
import type { Attribute, Block, Schema } from '../schema';

const md = (description: string): { description: string; descriptionKind: 'markdown' } => ({ description, descriptionKind: 'markdown' });

const timeouts: Block = {
  description: 'Accepted for compatibility with azurerm configurations; tmkit operations are quick and have no timeouts.',
  attributes: {
    create: { type: 'string', optional: true, description: 'Ignored.' },
    read: { type: 'string', optional: true, description: 'Ignored.' },
    update: { type: 'string', optional: true, description: 'Ignored.' },
    delete: { type: 'string', optional: true, description: 'Ignored.' },
  },
};

const customHeader: Block = {
  attributes: {
    name: { type: 'string', required: true, description: 'Header name, e.g. `host`.' },
    value: { type: 'string', required: true, description: 'Header value (a `host` value may not contain `*`).' },
  },
};

const subnet: Block = {
  ...md(
    'Subnet routing: a client address range, as `first` + `scope` (CIDR), `first` + `last`, or `first` alone. Ranges of a profile may not overlap.',
  ),
  attributes: {
    first: { type: 'string', required: true, ...md('First address (the network address with `scope`).') },
    last: { type: 'string', optional: true, ...md('Last address of the range.') },
    scope: { type: 'number', optional: true, ...md('Prefix length, 0–32 (IPv4) or 0–128 (IPv6).') },
  },
};

/**
 * An endpoint declared inside its tmkit_profile (`endpoint { ... }`, as azure-native's Profile has
 * `endpoints`): the profile then owns every endpoint, all written in one request. The attributes are the
 * endpoint resources' (minus id and profile_id), with `type` choosing the kind.
 */
const inlineEndpoint: Block = {
  ...md(
    'An endpoint owned by the profile (opt-in). With `endpoint` blocks the profile owns all its ' +
      'endpoints: a create, update or delete is one request for the whole profile, which is the way ' +
      'to manage hundreds of endpoints. Endpoints the runtime has that are not declared are removed. ' +
      'A profile with `endpoint` blocks cannot also have `tmkit_*_endpoint` resources.',
  ),
  attributes: {
    name: { type: 'string', required: true, ...md('Endpoint name, unique in the profile.') },
    type: {
      type: 'string',
      optional: true,
      computed: true,
      ...md('`ExternalEndpoints` (default), `AzureEndpoints` or `NestedEndpoints`.'),
    },
    target: { type: 'string', optional: true, ...md('External (and Azure, without a resource catalog): FQDN, IPv4 or IPv6 address.') },
    target_resource_id: {
      type: 'string',
      optional: true,
      ...md("Azure: the resource's ARM id. Nested: the child profile's id (`tmkit_profile.child.id`) or name."),
    },
    weight: { type: 'number', optional: true, computed: true, ...md('Weighted routing: 1–1000. Default 1.') },
    priority: {
      type: 'number',
      optional: true,
      computed: true,
      ...md(
        'Priority routing: 1–1000, unique in the profile; give it on every endpoint block or on none (then the block order decides: 1, 2, …).',
      ),
    },
    enabled: { type: 'bool', optional: true, computed: true, ...md('`false` takes the endpoint out of rotation. Default `true`.') },
    always_serve_enabled: {
      type: 'bool',
      optional: true,
      computed: true,
      ...md('External and Azure: always treat the endpoint as healthy. Default `false`.'),
    },
    endpoint_location: {
      type: 'string',
      optional: true,
      computed: true,
      ...md('Azure region the endpoint is closest to, required for Performance routing.'),
    },
    geo_mappings: {
      type: ['list', 'string'],
      optional: true,
      ...md('Geographic routing: region codes, each mapped to one endpoint of the profile only.'),
    },
    minimum_child_endpoints: {
      type: 'number',
      optional: true,
      computed: true,
      ...md('Nested: child endpoints that must be available, ≥ 1. Default 1.'),
    },
    minimum_required_child_endpoints_ipv4: {
      type: 'number',
      optional: true,
      ...md('Nested: minimum available IPv4 endpoints in the child.'),
    },
    minimum_required_child_endpoints_ipv6: {
      type: 'number',
      optional: true,
      ...md('Nested: minimum available IPv6 endpoints in the child.'),
    },
  },
  blocks: {
    custom_header: { nesting: 'list', block: { ...customHeader, ...md('A probe header for this endpoint (at most 8).') } },
    subnet: { nesting: 'list', block: subnet },
  },
};

export const profileSchema: Schema = {
  version: 0,
  block: {
    ...md(
      'A Traffic Manager profile. It answers DNS at `<relative_name>.<zone>` of the tmkit runtime. ' +
        'Its endpoints are their own resources (as in azurerm), or `endpoint` blocks inside it (one ' +
        'write for the whole profile).',
    ),
    attributes: {
      id: {
        type: 'string',
        computed: true,
        ...md("`/tmkit/stacks/<stack>/trafficManagerProfiles/<name>`; usable as a nested endpoint's `target_resource_id`."),
      },
      name: {
        type: 'string',
        required: true,
        requiresReplace: true,
        ...md(
          'Profile name: 1–63 letters, digits, `-` and `.`, starting and ending with a letter or digit. Changing it replaces the profile.',
        ),
      },
      profile_status: {
        type: 'string',
        optional: true,
        computed: true,
        ...md('`Enabled` or `Disabled` (answers NXDOMAIN, no probing). Default `Enabled`.'),
      },
      traffic_routing_method: {
        type: 'string',
        required: true,
        ...md('`Performance`, `Priority`, `Weighted`, `Geographic`, `MultiValue` or `Subnet`.'),
      },
      fqdn: { type: 'string', computed: true, ...md('The DNS name the profile answers at (`<relative_name>.<zone>`).') },
      traffic_view_enabled: {
        type: 'bool',
        optional: true,
        computed: true,
        ...md('Traffic View enrollment; stored, no effect on answers. Default `false`.'),
      },
      max_return: {
        type: 'number',
        optional: true,
        computed: true,
        ...md('MultiValue only: how many healthy endpoints one answer holds, 1–8. Default 2 for MultiValue profiles.'),
      },
      tags: { type: ['map', 'string'], optional: true, ...md('Free-form tags.') },
    },
    blocks: {
      dns_config: {
        nesting: 'list',
        minItems: 1,
        maxItems: 1,
        block: {
          attributes: {
            relative_name: {
              type: 'string',
              required: true,
              requiresReplace: true,
              ...md('DNS label(s) under the zone. Changing it replaces the profile (the old name stops answering).'),
            },
            ttl: { type: 'number', optional: true, computed: true, ...md('TTL of the answers in seconds, 0–2147483647. Default 30.') },
          },
        },
      },
      monitor_config: {
        nesting: 'list',
        minItems: 0,
        maxItems: 1,
        block: {
          ...md("Endpoint health probing. Without the block, tmkit's defaults apply (HTTP on port 80, path `/`, every 30 s)."),
          attributes: {
            protocol: {
              type: 'string',
              optional: true,
              computed: true,
              ...md(
                '`HTTP`, `HTTPS` (certificate not validated unless `certificate_validation = "Enabled"`) or `TCP` (connect only). Default `HTTP`.',
              ),
            },
            port: { type: 'number', optional: true, computed: true, ...md('1–65535. Default 80, or 443 for HTTPS.') },
            path: {
              type: 'string',
              optional: true,
              computed: true,
              ...md('Relative path probed with HTTP(S), e.g. `/health`; must be unset for TCP. Default `/` for HTTP(S).'),
            },
            interval_in_seconds: { type: 'number', optional: true, computed: true, ...md('30, or 10 for fast probing. Default 30.') },
            timeout_in_seconds: {
              type: 'number',
              optional: true,
              computed: true,
              ...md('5–10 with a 30 s interval, 5–9 with 10 s. Default 10 (9 with a 10 s interval).'),
            },
            tolerated_number_of_failures: {
              type: 'number',
              optional: true,
              computed: true,
              ...md('Failed probes tolerated before an endpoint is Degraded, 0–9. Default 3.'),
            },
            expected_status_code_ranges: {
              type: ['list', 'string'],
              optional: true,
              ...md('Status code ranges counted as healthy besides 200, e.g. `["200-299", "301-302"]`; at most 8.'),
            },
            certificate_validation: {
              type: 'string',
              optional: true,
              ...md(
                'tmkit: `Enabled` checks HTTPS certificates (chain, host name, expiry; a failed check is a ' +
                  'failed probe with the reason). Unset or `Disabled`: any certificate, as Azure.',
              ),
            },
            ca_certificates: {
              type: 'string',
              optional: true,
              ...md(
                'tmkit: PEM CA certificates the probed chain must lead to instead of the system CAs (with ' +
                  '`certificate_validation = "Enabled"`), e.g. `file("ca.pem")`.',
              ),
            },
            certificate_expiry_warning_days: {
              type: 'number',
              optional: true,
              ...md(
                'tmkit: warn (status, dashboard, metric) this many days before a certificate expires, 0–365 (0: never). Unset: 14 with validation enabled.',
              ),
            },
            quorum: {
              type: 'number',
              optional: true,
              ...md(
                'tmkit: with `check` blocks, how many checks that are neither `must_be_healthy` nor `monitoring_only` must pass (1 to their number). Unset: all of them.',
              ),
            },
            degraded_latency_ms: {
              type: 'number',
              optional: true,
              ...md(
                'tmkit: a probe slower than this many milliseconds (1–60000, below the timeout) counts as ' +
                  'failed (`slow: 812 ms > 500 ms`). Unset: no latency rule.',
              ),
            },
          },
          blocks: {
            custom_header: { nesting: 'list', block: { ...customHeader, ...md('A header sent with every probe (at most 8).') } },
            check: {
              nesting: 'list',
              maxItems: 10,
              block: {
                ...md(
                  'tmkit: a composite health check (docs/health.md "Composite checks"), 1–10; with them they replace the single probe. ' +
                    "Every check is probed for every endpoint each round with the profile's interval, timeout and tolerance. " +
                    'The endpoint is Online while every `must_be_healthy` check and at least `quorum` of the others pass.',
                ),
                attributes: {
                  name: { type: 'string', required: true, ...md('Unique in the profile: 1–32 letters, digits, `-` and `_`.') },
                  protocol: { type: 'string', optional: true, computed: true, ...md("`HTTP`, `HTTPS` or `TCP`. Default: the profile's.") },
                  port: {
                    type: 'number',
                    optional: true,
                    computed: true,
                    ...md("1–65535. Default: the profile's port when the protocol is the profile's, else 80 (HTTP) or 443 (HTTPS)."),
                  },
                  path: { type: 'string', optional: true, computed: true, ...md("HTTP(S) only. Default: the profile's path.") },
                  expected_status_code_ranges: {
                    type: ['list', 'string'],
                    optional: true,
                    computed: true,
                    ...md('Healthy besides 200, e.g. `["200-399"]`. Default: the profile\'s ranges.'),
                  },
                  must_be_healthy: {
                    type: 'bool',
                    optional: true,
                    computed: true,
                    ...md('The endpoint is Degraded when this check fails (past the tolerance). Default `false`.'),
                  },
                  monitoring_only: {
                    type: 'bool',
                    optional: true,
                    computed: true,
                    ...md('Probed and reported, never counted. Default `false`.'),
                  },
                },
              },
            },
          },
        },
      },
      failback: {
        nesting: 'list',
        minItems: 0,
        maxItems: 1,
        block: {
          ...md(
            'How an endpoint comes back after an outage (a tmkit extension; docs/health.md "Failback"). ' +
              "Without the block: Azure's behaviour, Online again after one good probe.",
          ),
          attributes: {
            mode: {
              type: 'string',
              optional: true,
              computed: true,
              ...md(
                '`Automatic` (Online once recovered) or `Manual` (`AwaitingFailback` until `tmkit endpoint failback`). Default `Automatic`.',
              ),
            },
            successes_to_recover: {
              type: 'number',
              optional: true,
              computed: true,
              ...md('Consecutive good probes before a Degraded endpoint counts as recovered, 1–10. Default 1.'),
            },
            hold_down_seconds: {
              type: 'number',
              optional: true,
              computed: true,
              ...md('Seconds since the endpoint failed before it can count as recovered, 0–3600. Default 0.'),
            },
          },
        },
      },
      performance_latency: {
        nesting: 'list',
        minItems: 0,
        maxItems: 1,
        block: {
          ...md(
            'Performance only: rank endpoints by the latency the probes measure (a tmkit extension; docs/routing.md ' +
              '"Measured latency"). Without the block: the distance model, as Azure.',
          ),
          attributes: {
            source: {
              type: 'string',
              optional: true,
              computed: true,
              ...md("`Measured` (the probes' round trips) or `Model` (the distance model). Default `Measured`."),
            },
            tolerance_ms: {
              type: 'number',
              optional: true,
              computed: true,
              ...md(
                'Endpoints within this many ms of the best count as equal, and the one answered stays until another is better by more, 0–1000. Default 20.',
              ),
            },
            min_samples: {
              type: 'number',
              optional: true,
              computed: true,
              ...md('Successful probes a location needs of an endpoint before its measurement ranks it, 1–100. Default 5.'),
            },
          },
        },
      },
      endpoint: { nesting: 'list', block: inlineEndpoint },
      timeouts: { nesting: 'single', block: timeouts },
    },
  },
};

const common = (kind: string): Record<string, Attribute> => ({
  id: { type: 'string', computed: true, ...md(`\`<profile id>/${kind}/<name>\`.`) },
  name: {
    type: 'string',
    required: true,
    requiresReplace: true,
    ...md('Endpoint name, unique in its profile. Changing it replaces the endpoint.'),
  },
  profile_id: {
    type: 'string',
    required: true,
    requiresReplace: true,
    ...md("The profile's id (`tmkit_profile.x.id`). Changing it replaces the endpoint."),
  },
  weight: { type: 'number', optional: true, computed: true, ...md('Weighted routing: share of answers, 1–1000. Default 1.') },
  priority: {
    type: 'number',
    optional: true,
    computed: true,
    ...md(
      'Priority routing: 1–1000, lower is preferred, unique in the profile. Default: the next free ' +
        'priority. To swap two priorities, move one to a free priority first (one apply), then the ' +
        'other.',
    ),
  },
  enabled: { type: 'bool', optional: true, computed: true, ...md('`false` takes the endpoint out of rotation. Default `true`.') },
  geo_mappings: {
    type: ['list', 'string'],
    optional: true,
    ...md(
      'Geographic routing: region codes (`WORLD`, `GEO-EU`, `DE`, `US-CA`, …); each code may be mapped to one endpoint of the profile only.',
    ),
  },
});

const location: Attribute = {
  type: 'string',
  optional: true,
  computed: true,
  ...md('Azure region the endpoint is closest to (`westeurope` or `West Europe`), required for Performance routing.'),
};
const alwaysServe: Attribute = {
  type: 'bool',
  optional: true,
  computed: true,
  ...md('Always treat the endpoint as healthy and stop probing it. Default `false`.'),
};

const endpointBlocks = (): Block['blocks'] => ({
  custom_header: {
    nesting: 'list',
    block: { ...customHeader, ...md("A probe header for this endpoint (at most 8); overrides the profile's header of the same name.") },
  },
  subnet: { nesting: 'list', block: subnet },
  timeouts: { nesting: 'single', block: timeouts },
});

/** An endpoint resource's schema: the attributes every endpoint kind has, then the kind's own, and the blocks. */
const endpointSchema = (description: string, kind: string, own: Record<string, Attribute>): Schema => ({
  version: 0,
  block: { ...md(description), attributes: { ...common(kind), ...own }, blocks: endpointBlocks() },
});

export const externalEndpointSchema: Schema = endpointSchema(
  'An External endpoint (an FQDN, IPv4 or IPv6 address outside Azure) of a tmkit profile.',
  'ExternalEndpoints',
  {
    target: { type: 'string', required: true, ...md('FQDN (answered as CNAME), IPv4 (A) or IPv6 (AAAA) address; no port.') },
    endpoint_location: location,
    always_serve_enabled: alwaysServe,
  },
);

export const azureEndpointSchema: Schema = endpointSchema(
  "An Azure endpoint (an Azure resource by ARM id, resolved through the runtime's resource catalog `tmkit serve --resources`) of a tmkit profile.",
  'AzureEndpoints',
  {
    target_resource_id: {
      type: 'string',
      required: true,
      ...md('ARM id of the resource (`/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Web/sites/<name>`).'),
    },
    target: {
      type: 'string',
      optional: true,
      ...md("tmkit: the resource's DNS name or address, when the resource catalog does not provide it."),
    },
    endpoint_location: { ...location, ...md("tmkit: the resource's Azure region, when the resource catalog does not provide it.") },
    always_serve_enabled: alwaysServe,
  },
);

export const nestedEndpointSchema: Schema = endpointSchema(
  'A nested endpoint: another tmkit profile (the child) answers for this endpoint of its parent.',
  'NestedEndpoints',
  {
    target_resource_id: { type: 'string', required: true, ...md("The child profile's id (`tmkit_profile.child.id`) or name.") },
    endpoint_location: { ...location, ...md('Azure region of the child, required when the parent uses Performance routing.') },
    minimum_child_endpoints: {
      type: 'number',
      optional: true,
      computed: true,
      ...md('How many child endpoints must be available for this endpoint to be, ≥ 1. Default 1.'),
    },
    minimum_required_child_endpoints_ipv4: {
      type: 'number',
      optional: true,
      ...md('Minimum available IPv4 (A) endpoints in the child, ≥ 0.'),
    },
    minimum_required_child_endpoints_ipv6: {
      type: 'number',
      optional: true,
      ...md('Minimum available IPv6 (AAAA) endpoints in the child, ≥ 0.'),
    },
  },
);

const statusEndpoint = {
  name: 'string',
  type: 'string',
  target: 'string',
  target_resource_id: 'string',
  endpoint_status: 'string',
  endpoint_monitor_status: 'string',
  reason: 'string',
} as const;

export const profileStatusSchema: Schema = {
  version: 0,
  block: {
    ...md('The live monitor status of a profile and its endpoints, as the runtime sees it now (`GET /v1/profiles/{name}/status`).'),
    attributes: {
      name: { type: 'string', required: true, ...md('Profile name.') },
      id: { type: 'string', computed: true, ...md("The profile's id.") },
      stack: { type: 'string', computed: true, ...md('The stack that owns the profile.') },
      fqdn: { type: 'string', computed: true },
      profile_status: { type: 'string', computed: true },
      profile_monitor_status: {
        type: 'string',
        computed: true,
        ...md('`Online`, `Degraded`, `Disabled`, `Inactive` or `CheckingEndpoints`.'),
      },
      all_degraded_fallback: {
        type: 'bool',
        computed: true,
        ...md('True when every eligible endpoint is Degraded and they are answered as if Online.'),
      },
      endpoints: {
        type: ['list', ['object', statusEndpoint]],
        computed: true,
        ...md('Each endpoint with its `endpoint_monitor_status` and the reason.'),
      },
    },
  },
};
