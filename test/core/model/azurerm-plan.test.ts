import fc from 'fast-check';
import { AZURE_PREVIEW_STACK, azurermPlanDocuments, azurermResources } from '../../../src/core/model/azurerm-plan';
import { normalize } from '../../../src/core/model/normalize';
import type { DocumentInput, EndpointInput, ProfileInput } from '../../../src/core/model/types';
import { diff } from '../../../src/core/plan';
import { external, plan, profile, type Resource, same } from '../../support/azurerm-plan';

/**
 * The azurerm → tmkit/v1 mapping of `tmkit plan --from-terraform` (src/core/model/azurerm-plan.ts): the
 * identity for what azurerm can hold (a document mapped to azurerm's attributes and back), joins across
 * modules and count instances, and the plan-file problems.
 */
const SUB = '6f0c1ab2-3d4e-4f50-8a6b-7c8d9e0f1a2b';
const NAMES = ['p1', 'p2', 'p3'];
const METHODS = ['Priority', 'Weighted', 'Performance', 'Geographic', 'MultiValue', 'Subnet'] as const;

const endpointArb = (method: string, index: number, children: string[]) =>
  fc
    .record({
      kind:
        children.length > 0 && method !== 'MultiValue' ? fc.constantFrom('ext', 'ext', 'azure', 'nested') : fc.constantFrom('ext', 'azure'),
      status: fc.constantFrom('Enabled', 'Disabled'),
      weight: fc.integer({ min: 1, max: 1000 }),
      location: fc.option(fc.constantFrom('westeurope', 'eastus'), { nil: undefined }),
      always: fc.boolean(),
      header: fc.option(fc.constantFrom('a.example', 'b.example'), { nil: undefined }),
      child: children.length > 0 ? fc.constantFrom(...children) : fc.constant(''),
      minChild: fc.integer({ min: 1, max: 3 }),
      minV4: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }),
    })
    .map((e): EndpointInput => {
      const kind = method === 'MultiValue' ? 'ext' : e.kind;
      const out: EndpointInput = { name: `e${index}`, type: 'externalEndpoints', endpointStatus: e.status as 'Enabled' | 'Disabled' };
      if (kind === 'ext') out.target = method === 'MultiValue' ? `192.0.2.${index + 1}` : `e${index}.example.net`;
      else if (kind === 'azure') {
        out.type = 'azureEndpoints';
        out.targetResourceId = `/subscriptions/${SUB}/resourceGroups/rg-apps/providers/Microsoft.Web/sites/app${index}`;
      } else {
        out.type = 'nestedEndpoints';
        out.targetResourceId = e.child;
        out.minChildEndpoints = e.minChild;
        if (e.minV4 !== undefined) out.minChildEndpointsIPv4 = e.minV4;
      }
      if (method === 'Weighted') out.weight = e.weight;
      if (method === 'Priority') out.priority = index + 1;
      if (kind !== 'azure' && e.location !== undefined) out.endpointLocation = e.location;
      if (method === 'Performance' && kind !== 'azure') out.endpointLocation = e.location ?? 'westeurope';
      if (method === 'Geographic') out.geoMapping = [['WORLD', 'DE', 'GEO-NA', 'FR'][index]!];
      if (method === 'Subnet') out.subnets = [{ first: `10.${index}.0.0`, scope: 16 }];
      if (kind !== 'nested' && e.always) out.alwaysServe = 'Enabled';
      if (e.header !== undefined) out.customHeaders = [{ name: 'host', value: e.header }];
      return out;
    });

const profileArb = (name: string, children: string[]) =>
  fc.constantFrom(...METHODS).chain((method) =>
    fc
      .record({
        status: fc.constantFrom('Enabled', 'Disabled'),
        ttl: fc.integer({ min: 0, max: 600 }),
        protocol: fc.constantFrom('HTTP', 'HTTPS', 'TCP'),
        port: fc.integer({ min: 1, max: 65535 }),
        interval: fc.constantFrom(10, 30),
        failures: fc.integer({ min: 0, max: 9 }),
        ranges: fc.subarray([
          { min: 200, max: 299 },
          { min: 301, max: 302 },
        ]),
        traffic: fc.boolean(),
        maxReturn: fc.integer({ min: 1, max: 8 }),
        tags: fc.option(fc.dictionary(fc.constantFrom('team', 'env'), fc.constantFrom('web', 'prod')), { nil: undefined }),
        endpoints: fc
          .integer({ min: 0, max: 4 })
          .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => endpointArb(method, i, children)))),
      })
      .map((p): ProfileInput => {
        const http = p.protocol !== 'TCP';
        return {
          name,
          profileStatus: p.status as 'Enabled' | 'Disabled',
          trafficRoutingMethod: method,
          dnsConfig: { relativeName: `${name}-rel`, ttl: p.ttl },
          monitorConfig: {
            protocol: p.protocol as 'HTTP' | 'HTTPS' | 'TCP',
            port: p.port,
            ...(http ? { path: '/health' } : {}),
            intervalInSeconds: p.interval,
            timeoutInSeconds: p.interval === 10 ? 9 : 10,
            toleratedNumberOfFailures: p.failures,
            ...(http && p.ranges.length > 0 ? { expectedStatusCodeRanges: p.ranges } : {}),
          },
          trafficViewEnrollmentStatus: p.traffic ? 'Enabled' : 'Disabled',
          ...(method === 'MultiValue' ? { maxReturn: p.maxReturn } : {}),
          ...(p.tags !== undefined && Object.keys(p.tags).length > 0 ? { tags: p.tags } : {}),
          endpoints: p.endpoints,
        };
      }),
  );

/** Up to three profiles; a profile nests only later ones (acyclic). */
const documentArb = fc
  .subarray(NAMES, { minLength: 1 })
  .chain((names) =>
    fc
      .tuple(...names.map((n, i) => profileArb(n, names.slice(i + 1))))
      .map((profiles): DocumentInput => ({ apiVersion: 'tmkit/v1', stack: AZURE_PREVIEW_STACK, profiles })),
  );

/** The plan JSON of a document's azurerm resources with these actions (`before`/`after` as given). */
function planOf(doc: DocumentInput, action: 'create' | 'no-op'): Record<string, unknown> {
  const resources: Resource[] = [];
  for (const p of normalize(doc).profiles) {
    const r = azurermResources(p, SUB, 'rg-traffic');
    const at = (type: string, name: string, attrs: Record<string, unknown>): Resource => ({
      address: `${type}.${name.replace(/[^a-z0-9_]/gi, '_')}`,
      action,
      before: action === 'no-op' ? attrs : null,
      after: attrs,
    });
    resources.push(at('azurerm_traffic_manager_profile', p.name, r.profile));
    for (const e of r.endpoints) resources.push(at(e.type, `${p.name}_${String(e.attributes.name)}`, e.attributes));
  }
  return plan(resources);
}

describe('azurermPlanDocuments', () => {
  test('property: a document mapped to azurerm attributes and back is the same document (what azurerm can hold)', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        const az = azurermPlanDocuments(planOf(doc, 'create'));
        expect(az.problems).toEqual([]);
        expect(az.issues.filter((i) => i.severity === 'error')).toEqual([]);
        expect(normalize(az.after)).toEqual(normalize(doc));
        expect(az.before.profiles).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  test('property: a plan that changes nothing maps before and after to the same profiles, and tmkit plans no change', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        const az = azurermPlanDocuments(planOf(doc, 'no-op'));
        expect(az.after).toEqual(az.before);
        const deployed = normalize(az.before).profiles.map((profile) => ({ profile, etag: '"azure"', stack: AZURE_PREVIEW_STACK }));
        const plan = diff(normalize(az.after), deployed);
        expect(plan.changes.filter((c) => c.action !== 'no-op')).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  test('joins endpoints in modules and count instances by the configuration, index key to index key', () => {
    const raw = plan([]);
    const addr = (i: number) => `module.tm.azurerm_traffic_manager_profile.p[${i}]`;
    const ep = (i: number) => `module.tm.azurerm_traffic_manager_external_endpoint.e[${i}]`;
    const changes = [0, 1].flatMap((i) => [
      {
        address: addr(i),
        mode: 'managed',
        type: 'azurerm_traffic_manager_profile',
        change: { actions: ['create'], before: null, after: { ...profile(`p${i}`, 'Weighted'), id: null }, after_unknown: { id: true } },
      },
      {
        address: ep(i),
        mode: 'managed',
        type: 'azurerm_traffic_manager_external_endpoint',
        change: {
          actions: ['create'],
          before: null,
          after: { ...external(`p${i}`, `only${i}`, `t${i}.example.com`, { weight: 1 }), profile_id: null },
          after_unknown: { id: true, profile_id: true },
        },
      },
    ]);
    raw.resource_changes = changes;
    raw.configuration = {
      root_module: {
        module_calls: {
          tm: {
            module: {
              resources: [
                { address: 'azurerm_traffic_manager_profile.p', expressions: {} },
                {
                  address: 'azurerm_traffic_manager_external_endpoint.e',
                  expressions: { profile_id: { references: ['azurerm_traffic_manager_profile.p', 'count.index'] } },
                },
              ],
            },
          },
        },
      },
    };
    const az = azurermPlanDocuments(raw);
    expect(az.problems).toEqual([]);
    expect(az.after.profiles!.map((p) => [p.name, p.endpoints!.map((e) => e.name)])).toEqual([
      ['p0', ['only0']],
      ['p1', ['only1']],
    ]);
    expect(az.addresses['profiles[p1].endpoints[only1]']).toBe(ep(1));
  });

  test('azurerm 3.x shape (no always_serve_enabled) and single blocks as objects read the same; ranges and headers map to ARM', () => {
    const v3 = { ...external('web', 'a', 'a.example.com', { weight: 5 }) } as Record<string, unknown>;
    delete v3.always_serve_enabled;
    const p = profile('web', 'Weighted', {
      dns_config: { relative_name: 'web', ttl: 60 },
      monitor_config: {
        protocol: 'HTTP',
        port: 80,
        path: '/',
        interval_in_seconds: 10,
        timeout_in_seconds: 9,
        tolerated_number_of_failures: 2,
        expected_status_code_ranges: ['200-299', '301'],
        custom_header: [{ name: 'host', value: 'www.example.com' }],
      },
    });
    const az = azurermPlanDocuments(
      plan([same('azurerm_traffic_manager_profile.web', p), same('azurerm_traffic_manager_external_endpoint.a', v3)]),
    );
    expect(az.problems).toEqual([]);
    const web = normalize(az.after).profiles[0]!;
    expect(web.dnsConfig.ttl).toBe(60);
    expect(web.monitorConfig.expectedStatusCodeRanges).toEqual([
      { min: 200, max: 299 },
      { min: 301, max: 301 },
    ]);
    expect(web.monitorConfig.customHeaders).toEqual([{ name: 'host', value: 'www.example.com' }]);
    expect(web.endpoints.map((e) => [e.name, e.weight, e.alwaysServe])).toEqual([['a', 5, 'Disabled']]);
  });

  test('a forgotten resource (removed, destroy = false) stays in Azure: no change, and the notes say so', () => {
    const raw = plan([same('azurerm_traffic_manager_profile.web', profile('web', 'Weighted'))]);
    const ep = external('web', 'a', 'a.example.com', { weight: 2 });
    (raw.resource_changes as unknown[]).push({
      address: 'azurerm_traffic_manager_external_endpoint.a',
      mode: 'managed',
      type: 'azurerm_traffic_manager_external_endpoint',
      change: { actions: ['forget'], before: ep, after: null, after_unknown: {} },
    });
    const az = azurermPlanDocuments(raw);
    expect(az.after).toEqual(az.before);
    expect(az.after.profiles![0]!.endpoints!.map((e) => e.name)).toEqual(['a']);
    expect(az.notes).toEqual([
      'azurerm_traffic_manager_external_endpoint.a: leaves the Terraform state only (forget); Azure keeps it as it is',
    ]);
  });

  test('problems: not a plan, no azurerm resources, an endpoint whose profile is not in the plan', () => {
    expect(azurermPlanDocuments({ foo: 1 }).problems[0]!.message).toContain('not the JSON of a Terraform plan');
    expect(azurermPlanDocuments(plan([])).problems[0]!.message).toBe('the plan has no azurerm_traffic_manager_* resources');
    const orphan = azurermPlanDocuments(
      plan([same('azurerm_traffic_manager_external_endpoint.x', external('elsewhere', 'x', 'x.example.com'))]),
    );
    expect(orphan.problems).toEqual([
      {
        address: 'azurerm_traffic_manager_external_endpoint.x',
        message: expect.stringContaining('is not an azurerm_traffic_manager_profile of this plan'),
      },
    ]);
  });
});
