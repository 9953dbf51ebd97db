/**
 * The synth suite of tmkit/cdktf and tmkit/cdktn (test/cdktf/synth.test.ts, test/cdktn/synth.test.ts), in
 * process with the real library: the tmkit constructs in a TerraformStack synthesize to tmkit_* resources with
 * references (profile_id, a nested endpoint's target_resource_id), the provider block and required_providers;
 * the bindings write snake_case attributes and MaxItems-1 blocks as lists; the tmkit validation runs at synth.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as cdktf from 'cdktf';
import type * as cdktn from 'cdktn';
import type { Construct } from 'constructs';
import type { TmkitCdk } from '../../src/cdk';
import { ExternalEndpoint, NestedEndpoint, Profile } from '../../src/constructs';

/** cdk.tf.json: block (resource, data, provider, output, terraform) → type or name → name → body. */
type TfJson = Record<string, Record<string, Record<string, Record<string, unknown>>>>;

/** The synth suite against `lib` (the cdktf or cdktn module) and tmkit's bindings over it. */
export function synthSuite<L extends typeof cdktf | typeof cdktn>(name: string, lib: L, tmkit: TmkitCdk<L>): void {
  const { App, TerraformOutput, TerraformStack } = lib as typeof cdktf;
  const { dataTmkitProfileStatus, profile, TmkitProvider } = tmkit as unknown as TmkitCdk<typeof cdktf>;

  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), `tmkit-${name}-`));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function synth(build: (stack: Construct) => void): TfJson {
    const app = new App({ outdir: dir, skipValidation: false });
    const stack = new TerraformStack(app, 'traffic');
    build(stack);
    app.synth();
    // Without the library's own metadata ("//") on each element.
    return JSON.parse(readFileSync(join(dir, 'stacks', 'traffic', 'cdk.tf.json'), 'utf8'), (k, v) => (k === '//' ? undefined : v));
  }

  test('constructs in a TerraformStack become tmkit_* resources with Terraform references between them', () => {
    const out = synth((stack) => {
      new TmkitProvider(stack, 'tmkit', { stack: 'web' });
      const eu = new Profile(stack, 'app-eu', {
        trafficRoutingMethod: 'Weighted',
        monitorConfig: { path: '/health', expectedStatusCodeRanges: [{ min: 200, max: 299 }] },
      });
      new ExternalEndpoint(eu, 'eu-1', { target: '192.0.2.11', weight: 3 });
      new ExternalEndpoint(eu, 'eu-2', { target: '192.0.2.12' });
      const app = new Profile(stack, 'app', { trafficRoutingMethod: 'Performance', dnsConfig: { ttl: 60 }, tags: { team: 'web' } });
      new NestedEndpoint(app, 'eu', { targetProfile: eu, endpointLocation: 'West Europe', minChildEndpointsIPv4: 1 });
      new TerraformOutput(stack, 'fqdn', {
        value: new dataTmkitProfileStatus.DataTmkitProfileStatus(stack, 'status', { name: 'app' }).fqdn,
      });
    });
    expect(out.terraform.required_providers.tmkit).toEqual({ source: 'tmkit/tmkit', version: '>= 0.1.0' });
    expect(out.provider.tmkit).toEqual([{ stack: 'web' }]);
    expect(out.resource.tmkit_profile['app-eu']).toMatchObject({
      name: 'app-eu',
      traffic_routing_method: 'Weighted',
      dns_config: [{ relative_name: 'app-eu' }],
      monitor_config: [{ path: '/health', expected_status_code_ranges: ['200-299'] }],
    });
    expect(out.resource.tmkit_profile.app).toMatchObject({ dns_config: [{ relative_name: 'app', ttl: 60 }], tags: { team: 'web' } });
    expect(out.resource.tmkit_external_endpoint['app-eu_eu-1']).toEqual({
      name: 'eu-1',
      profile_id: '${tmkit_profile.app-eu.id}',
      target: '192.0.2.11',
      weight: 3,
      priority: 1,
    });
    expect(out.resource.tmkit_external_endpoint['app-eu_eu-2']).toMatchObject({ priority: 2 });
    expect(out.resource.tmkit_nested_endpoint.app_eu).toEqual({
      name: 'eu',
      profile_id: '${tmkit_profile.app.id}',
      target_resource_id: '${tmkit_profile.app-eu.id}',
      endpoint_location: 'West Europe',
      minimum_required_child_endpoints_ipv4: 1,
      priority: 1,
    });
    expect(out.data.tmkit_profile_status.status).toEqual({ name: 'app' });
  });

  test('the bindings alone: a Profile resource with typed config and its id as a reference', () => {
    const out = synth((stack) => {
      new TmkitProvider(stack, 'tmkit');
      const p = new profile.Profile(stack, 'web', {
        name: 'web',
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: 'www' },
        monitorConfig: { protocol: 'TCP', port: 443, customHeader: [{ name: 'host', value: 'x' }] },
      });
      new TerraformOutput(stack, 'id', { value: p.id });
      // Made over this library, not the other one: its resolver, aspects and synth treat them as its own.
      expect(p).toBeInstanceOf(lib.TerraformResource);
    });
    expect(out.resource.tmkit_profile.web).toEqual({
      name: 'web',
      traffic_routing_method: 'Priority',
      dns_config: [{ relative_name: 'www' }],
      monitor_config: [{ protocol: 'TCP', port: 443, custom_header: [{ name: 'host', value: 'x' }] }],
    });
    expect(out.output.id.value).toBe('${tmkit_profile.web.id}');
  });

  test('the bindings: a Profile with inline `endpoints` synthesizes `endpoint` blocks (one resource for the profile and its endpoints)', () => {
    const out = synth((stack) => {
      new TmkitProvider(stack, 'tmkit');
      new profile.Profile(stack, 'web', {
        name: 'web',
        trafficRoutingMethod: 'Weighted',
        dnsConfig: { relativeName: 'web' },
        endpoints: [
          { name: 'a', target: '192.0.2.1', weight: 3, alwaysServeEnabled: true },
          {
            name: 'b',
            type: 'NestedEndpoints',
            targetResourceId: 'child',
            minimumRequiredChildEndpointsIpv4: 1,
            subnet: [{ first: '10.0.0.0', scope: 8 }],
          },
        ],
      });
    });
    expect(out.resource.tmkit_profile.web.endpoint).toEqual([
      { name: 'a', target: '192.0.2.1', weight: 3, always_serve_enabled: true },
      {
        name: 'b',
        type: 'NestedEndpoints',
        target_resource_id: 'child',
        minimum_required_child_endpoints_ipv4: 1,
        subnet: [{ first: '10.0.0.0', scope: 8 }],
      },
    ]);
    expect(out.resource.tmkit_profile.web.endpoints).toBeUndefined();
  });

  test(`the tmkit rules run at ${name} synth: every broken constraint is reported with the construct path`, () => {
    expect(() =>
      synth((stack) => {
        new TmkitProvider(stack, 'tmkit');
        const p = new Profile(stack, 'p', { trafficRoutingMethod: 'Priority' });
        new ExternalEndpoint(p, 'a', { target: '192.0.2.1', priority: 1 });
        new ExternalEndpoint(p, 'b', { target: '192.0.2.2', priority: 1 });
      }),
    ).toThrow(/PRIORITY_DUPLICATE/);
  });

  test('performanceLatency becomes a performance_latency block (a list of one) with snake_case attributes', () => {
    const out = synth((stack) => {
      new TmkitProvider(stack, 'tmkit', { stack: 'web' });
      const p = new Profile(stack, 'perf', {
        trafficRoutingMethod: 'Performance',
        performanceLatency: { source: 'Measured', minSamples: 3 },
      });
      new ExternalEndpoint(p, 'eu', { target: '192.0.2.1', endpointLocation: 'westeurope' });
    });
    expect(out.resource.tmkit_profile.perf!.performance_latency).toEqual([{ source: 'Measured', min_samples: 3 }]);
  });

  test('composite checks synthesize as check blocks of monitor_config, with quorum', () => {
    const out = synth((stack) => {
      new TmkitProvider(stack, 'tmkit', { stack: 'web' });
      const p = new Profile(stack, 'chk', {
        trafficRoutingMethod: 'Priority',
        monitorConfig: {
          checks: [
            { name: 'api', path: '/api', expectedStatusCodeRanges: [{ min: 200, max: 399 }] },
            { name: 'db', protocol: 'TCP', port: 5432, mustBeHealthy: true },
          ],
          quorum: 1,
        },
      });
      new ExternalEndpoint(p, 'a', { target: '192.0.2.1' });
    });
    expect(out.resource.tmkit_profile.chk!.monitor_config).toEqual([
      {
        check: [
          { name: 'api', path: '/api', expected_status_code_ranges: ['200-399'] },
          { name: 'db', protocol: 'TCP', port: 5432, must_be_healthy: true },
        ],
        quorum: 1,
      },
    ]);
  });
}
