/**
 * The pure parts of the tmkit Terraform provider: ids, Terraform ↔ ARM conversion (with unknowns and the
 * configuration's spelling kept), ARM diagnostic paths → Terraform attribute paths, and the document rebuilt
 * from a Terraform plan's JSON for `tmkit plan --from-terraform`.
 */
import fc from 'fast-check';
import { UNKNOWN } from '../../../providers/terraform/src/cty';
import {
  endpointFromTf,
  endpointState,
  parseStatusRange,
  profileSettingsFromTf,
  profileState,
  tfDiagnostics,
  tfPath,
} from '../../../providers/terraform/src/tmkit/convert';
import { documentFromTerraformPlan, maskSensitive } from '../../../providers/terraform/src/tmkit/from-plan';
import { endpointId, parseEndpointRef, parseProfileRef, profileId, TERRAFORM_IDS } from '../../../src/client/ids';
import { normalizeProfile } from '../../../src/core/model/normalize';
import { validate } from '../../../src/core/validate';

const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9.-]{0,20}[A-Za-z0-9]$/);

const parseProfileId = (id: string) => parseProfileRef(id, TERRAFORM_IDS);
const parseEndpointId = (id: string) => parseEndpointRef(id, TERRAFORM_IDS);

test('profile and endpoint ids round-trip (any stack and names, endpoint names with spaces)', () => {
  fc.assert(
    fc.property(
      name,
      name,
      fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('/')),
      fc.constantFrom('externalEndpoints', 'azureEndpoints', 'nestedEndpoints' as const),
      (stack, profile, endpoint, type) => {
        expect(parseProfileId(profileId(stack, profile, TERRAFORM_IDS))).toEqual({ name: profile, stack });
        expect(parseEndpointId(endpointId(stack, profile, type, endpoint, TERRAFORM_IDS))).toEqual({
          profile,
          name: endpoint,
          type,
          stack,
        });
      },
    ),
  );
});

test('the ids Terraform has in its states: names URI-encoded, the type capitalized', () => {
  expect(profileId('ops', 'web', TERRAFORM_IDS)).toBe('/tmkit/stacks/ops/trafficManagerProfiles/web');
  expect(endpointId('my stack', 'web', 'externalEndpoints', 'a b/c', TERRAFORM_IDS)).toBe(
    '/tmkit/stacks/my%20stack/trafficManagerProfiles/web/ExternalEndpoints/a%20b%2Fc',
  );
  expect(parseEndpointId('/tmkit/stacks/my%20stack/trafficManagerProfiles/web/NestedEndpoints/a%20b%2Fc')).toEqual({
    profile: 'web',
    name: 'a b/c',
    type: 'nestedEndpoints',
    stack: 'my stack',
  });
  expect(parseProfileId('/tmkit/stacks/ops/trafficManagerProfiles/100%25')).toEqual({ name: '100%', stack: 'ops' });
  expect(parseProfileId('/tmkit/stacks/ops/trafficManagerProfiles/bad%')).toEqual({ name: 'bad%', stack: 'ops' });
  // Only full ids name an endpoint here (Pulumi also takes `profile/endpoint`).
  expect(parseEndpointId('web/primary')).toBeUndefined();
});

test.each([
  ['/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/web', { name: 'web' }],
  ['web', { name: 'web' }],
  ['/tmkit/stacks/ops/trafficManagerProfiles/web', { name: 'web', stack: 'ops' }],
  ['/nope/x', undefined],
])('parseProfileId(%s) (azurerm ids and bare names import too)', (id, expected) => {
  expect(parseProfileId(id)).toEqual(expected);
});

test('parseEndpointId takes azurerm endpoint ids (kind case-insensitive) and refuses profile ids', () => {
  expect(
    parseEndpointId('/subscriptions/0/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/web/externalEndpoints/a'),
  ).toMatchObject({ profile: 'web', type: 'externalEndpoints', name: 'a' });
  expect(parseEndpointId('/tmkit/stacks/terraform/trafficManagerProfiles/web')).toBeUndefined();
});

test.each([
  ['profile', 'dnsConfig.ttl', [{ attribute: 'dns_config' }, { index: 0 }, { attribute: 'ttl' }]],
  [
    'profile',
    'monitorConfig.customHeaders[1].value',
    [{ attribute: 'monitor_config' }, { index: 0 }, { attribute: 'custom_header' }, { index: 1 }, { attribute: 'value' }],
  ],
  ['profile', 'trafficViewEnrollmentStatus', [{ attribute: 'traffic_view_enabled' }]],
  ['endpoint', 'subnets[0].scope', [{ attribute: 'subnet' }, { index: 0 }, { attribute: 'scope' }]],
  ['endpoint', 'minChildEndpointsIPv4', [{ attribute: 'minimum_required_child_endpoints_ipv4' }]],
  ['endpoint', 'endpointStatus', [{ attribute: 'enabled' }]],
  ['endpoint', 'type', undefined],
] as const)('tfPath(%s, %s): Terraform points at that attribute', (kind, rel, expected) => {
  expect(tfPath(kind, rel)).toEqual(expected);
});

test('tfDiagnostics keeps rule, hint and the attribute path, and drops what depends on unknown values', () => {
  const out = tfDiagnostics(
    [
      {
        severity: 'error',
        code: 'WEIGHT_RANGE',
        path: 'profiles[p].endpoints[a].weight',
        message: 'weight 0 is out of range',
        hint: 'use 1–1000',
      },
      { severity: 'error', code: 'TARGET_REQUIRED', path: 'profiles[p].endpoints[a].target', message: 'target is required' },
      { severity: 'error', code: 'X', path: 'profiles[p].endpoints[b].weight', message: 'about b' },
    ],
    { prefix: 'profiles[p].endpoints[a]', kind: 'endpoint', unknown: ['target'] },
  );
  expect(out).toEqual([
    {
      severity: 'error',
      summary: 'weight 0 is out of range',
      detail: 'Use 1–1000. (tmkit rule WEIGHT_RANGE)',
      path: [{ attribute: 'weight' }],
    },
  ]);
});

test('conversion leaves unknown values out and lists their ARM paths; status ranges parse as azurerm writes them', () => {
  const c = endpointFromTf(
    { name: 'a', target: UNKNOWN, weight: 5, enabled: false, geo_mappings: ['DE', UNKNOWN], subnet: [], custom_header: [] },
    'externalEndpoints',
  );
  expect(c.value).toEqual({ name: 'a', type: 'externalEndpoints', weight: 5, endpointStatus: 'Disabled', geoMapping: ['DE'] });
  expect(c.unknown).toEqual(['target', 'geoMapping[1]']);
  expect(parseStatusRange('200-299')).toEqual({ min: 200, max: 299 });
  expect(parseStatusRange('301')).toEqual({ min: 301, max: 301 });
  expect(parseStatusRange('2xx')).toBeUndefined();
  const p = profileSettingsFromTf({
    name: 'w',
    traffic_routing_method: 'Weighted',
    dns_config: [{ relative_name: 'w', ttl: 30 }],
    monitor_config: [{ protocol: 'HTTP', port: 80, expected_status_code_ranges: ['200-299', 'bad'], custom_header: [] }],
  });
  expect(p.value.monitorConfig!.expectedStatusCodeRanges).toEqual([{ min: 200, max: 299 }]);
  expect(p.problems[0]!.path).toEqual([
    { attribute: 'monitor_config' },
    { index: 0 },
    { attribute: 'expected_status_code_ranges' },
    { index: 1 },
  ]);
});

test("state keeps the configuration's spelling of equivalent values and null for lists it left out (plan = apply)", () => {
  const stored = normalizeProfile({
    name: 'p',
    trafficRoutingMethod: 'Performance',
    dnsConfig: { relativeName: 'p' },
    monitorConfig: { expectedStatusCodeRanges: [{ min: 301, max: 301 }] },
    endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', endpointLocation: 'West Europe' }],
  });
  const e = endpointState(stored.endpoints[0]!, {
    id: 'x',
    profileId: 'y',
    base: { endpoint_location: 'West Europe', geo_mappings: null },
  });
  expect(e).toMatchObject({
    endpoint_location: 'West Europe',
    geo_mappings: null,
    weight: 1,
    enabled: true,
    always_serve_enabled: false,
    subnet: [],
  });
  expect(endpointState(stored.endpoints[0]!, { id: 'x', profileId: 'y', base: { endpoint_location: 'East US' } }).endpoint_location).toBe(
    'westeurope',
  );
  const { endpoints: _e, ...settings } = stored;
  const s = profileState(settings, {
    id: 'i',
    fqdn: 'p.tm',
    base: { monitor_config: [{ expected_status_code_ranges: ['301'] }], tags: null },
  });
  expect((s.monitor_config as Array<Record<string, unknown>>)[0]!.expected_status_code_ranges).toEqual(['301']);
  expect(s.tags).toBeNull();
  // Without a monitor_config block and tmkit's default monitor, the state has no block either.
  const plain = normalizeProfile({ name: 'q', trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'q' } });
  const { endpoints: _f, ...ps } = plain;
  expect(profileState(ps, { id: 'i', fqdn: 'q', base: { monitor_config: [] } }).monitor_config).toEqual([]);
  expect(profileState(ps, { id: 'i', fqdn: 'q', base: null, full: true }).monitor_config).toHaveLength(1);
});

/** A resource_changes entry as `terraform show -json` writes it. */
const change = (
  type: string,
  address: string,
  after: Record<string, unknown> | null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  address,
  mode: 'managed',
  type,
  name: address.split('.')[1],
  provider_name: 'registry.terraform.io/tmkit/tmkit',
  change: { actions: after ? ['create'] : ['delete'], before: null, after, after_unknown: {}, after_sensitive: {}, ...extra },
});
const profile = (n: string, method = 'Priority'): Record<string, unknown> => ({
  name: n,
  traffic_routing_method: method,
  dns_config: [{ relative_name: n, ttl: 30 }],
  monitor_config: [],
  tags: null,
});
const ext = (n: string, pid: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: n,
  profile_id: pid,
  target: '192.0.2.1',
  weight: 1,
  enabled: true,
  subnet: [],
  custom_header: [],
  ...extra,
});

test("documentFromTerraformPlan: planned resources become one valid document (deleted ones left out, replaced profile ids from the prior state, next free priority, the runtime's endpoint order)", () => {
  const plan = {
    format_version: '1.2',
    configuration: { provider_config: { tmkit: { name: 'tmkit', expressions: { stack: { constant_value: 'team' } } } } },
    resource_changes: [
      change('tmkit_profile', 'tmkit_profile.web', profile('web')),
      change('tmkit_external_endpoint', 'tmkit_external_endpoint.b', ext('b', null, { priority: 1, target: 'b.example.net' }), {
        before: { profile_id: '/tmkit/stacks/team/trafficManagerProfiles/web' },
        after_unknown: { profile_id: true },
      }),
      change(
        'tmkit_external_endpoint',
        'tmkit_external_endpoint.a',
        ext('a', '/tmkit/stacks/team/trafficManagerProfiles/web', { target: 'secret.example.net' }),
        { after_unknown: { priority: true }, after_sensitive: { target: true } },
      ),
      change('tmkit_external_endpoint', 'tmkit_external_endpoint.gone', null),
      change('aws_instance', 'aws_instance.x', { ami: 'x' }),
    ],
  };
  const r = documentFromTerraformPlan(plan, () => ['a', 'b']);
  expect(r.problems).toEqual([]);
  expect(r.resources).toBe(3);
  expect(r.document.stack).toBe('team');
  expect(r.document.profiles[0]!.endpoints!.map((e) => [e.name, e.priority])).toEqual([
    ['a', 2],
    ['b', 1],
  ]);
  expect(validate(r.document).filter((d) => d.severity === 'error')).toEqual([]);
  expect(r.sensitive).toEqual(['secret.example.net']);
  expect(maskSensitive('target secret.example.net', r.sensitive)).toBe('target (sensitive value)');
});

test('documentFromTerraformPlan says what is wrong with a file that is not a plan or an endpoint without its profile', () => {
  expect(documentFromTerraformPlan({ hello: 1 }).problems[0]!.message).toMatch(/not the JSON of a Terraform plan/);
  const r = documentFromTerraformPlan({
    resource_changes: [
      change('tmkit_external_endpoint', 'tmkit_external_endpoint.a', ext('a', '/tmkit/stacks/terraform/trafficManagerProfiles/nope')),
    ],
  });
  expect(r.problems).toEqual([{ address: 'tmkit_external_endpoint.a', message: 'its profile "nope" is not a tmkit_profile of this plan' }]);
});

test('monitor_config carries the health extensions both ways (issue 31); unset ones are null in state, so plans stay empty', () => {
  const tf = {
    name: 'h',
    traffic_routing_method: 'Priority',
    dns_config: [{ relative_name: 'h' }],
    monitor_config: [
      {
        protocol: 'HTTPS',
        certificate_validation: 'Enabled',
        certificate_expiry_warning_days: 30,
        degraded_latency_ms: 500,
        ca_certificates: null,
        custom_header: [],
      },
    ],
  };
  const input = profileSettingsFromTf(tf);
  expect(input.value.monitorConfig).toEqual({
    protocol: 'HTTPS',
    certificateValidation: 'Enabled',
    certificateExpiryWarningDays: 30,
    degradedLatencyMs: 500,
  });
  const { endpoints: _e, ...stored } = normalizeProfile({ ...input.value, endpoints: [] } as never);
  const m = (profileState(stored, { id: 'i', fqdn: 'h.tm', base: tf }).monitor_config as Array<Record<string, unknown>>)[0]!;
  expect(m).toMatchObject({
    certificate_validation: 'Enabled',
    ca_certificates: null,
    certificate_expiry_warning_days: 30,
    degraded_latency_ms: 500,
  });
  const { endpoints: _f, ...plain } = normalizeProfile({
    name: 'q',
    trafficRoutingMethod: 'Weighted',
    dnsConfig: { relativeName: 'q' },
    monitorConfig: { degradedLatencyMs: 300 },
  });
  // A monitor that differs from the default only by an extension still has its block.
  expect(profileState(plain, { id: 'i', fqdn: 'q', base: { monitor_config: [] } }).monitor_config).toHaveLength(1);
  expect(tfPath('profile', 'monitorConfig.degradedLatencyMs')).toEqual([
    { attribute: 'monitor_config' },
    { index: 0 },
    { attribute: 'degraded_latency_ms' },
  ]);
  expect(tfPath('profile', 'monitorConfig.caCertificates')).toEqual([
    { attribute: 'monitor_config' },
    { index: 0 },
    { attribute: 'ca_certificates' },
  ]);
});

test('monitor_config check blocks carry composite checks both ways; omitted values come back filled in (computed)', () => {
  const tf = {
    name: 'c',
    traffic_routing_method: 'Priority',
    dns_config: [{ relative_name: 'c' }],
    monitor_config: [
      {
        port: 8080,
        path: '/healthz',
        quorum: 1,
        custom_header: [],
        check: [
          {
            name: 'api',
            path: '/api',
            protocol: null,
            port: null,
            expected_status_code_ranges: ['200-399'],
            must_be_healthy: null,
            monitoring_only: null,
          },
          {
            name: 'db',
            protocol: 'TCP',
            port: 5432,
            path: null,
            expected_status_code_ranges: null,
            must_be_healthy: true,
            monitoring_only: null,
          },
          {
            name: 'm',
            protocol: null,
            port: null,
            path: null,
            expected_status_code_ranges: null,
            must_be_healthy: null,
            monitoring_only: true,
          },
        ],
      },
    ],
  };
  const input = profileSettingsFromTf(tf);
  expect(input.value.monitorConfig).toEqual({
    port: 8080,
    path: '/healthz',
    quorum: 1,
    checks: [
      { name: 'api', path: '/api', expectedStatusCodeRanges: [{ min: 200, max: 399 }] },
      { name: 'db', protocol: 'TCP', port: 5432, mustBeHealthy: true },
      { name: 'm', monitoringOnly: true },
    ],
  });
  const { endpoints: _e, ...stored } = normalizeProfile({ ...input.value, endpoints: [] } as never);
  const m = (profileState(stored, { id: 'i', fqdn: 'c.tm', base: tf }).monitor_config as Array<Record<string, unknown>>)[0]!;
  expect(m.quorum).toBe(1);
  expect(m.check).toEqual([
    {
      name: 'api',
      protocol: 'HTTP',
      port: 8080,
      path: '/api',
      expected_status_code_ranges: ['200-399'],
      must_be_healthy: false,
      monitoring_only: false,
    },
    { name: 'db', protocol: 'TCP', port: 5432, path: null, expected_status_code_ranges: [], must_be_healthy: true, monitoring_only: false },
    {
      name: 'm',
      protocol: 'HTTP',
      port: 8080,
      path: '/healthz',
      expected_status_code_ranges: [],
      must_be_healthy: false,
      monitoring_only: true,
    },
  ]);
  // The state read back as configuration gives the same stored profile (no drift on the next plan).
  const again = profileSettingsFromTf({ ...tf, monitor_config: [m] });
  const { endpoints: _f, ...restored } = normalizeProfile({ ...again.value, endpoints: [] } as never);
  expect(restored).toEqual(stored);
  expect(tfPath('profile', 'monitorConfig.quorum')).toEqual([{ attribute: 'monitor_config' }, { index: 0 }, { attribute: 'quorum' }]);
  expect(tfPath('profile', 'monitorConfig.checks[api].path')).toEqual([
    { attribute: 'monitor_config' },
    { index: 0 },
    { attribute: 'check' },
  ]);
});
