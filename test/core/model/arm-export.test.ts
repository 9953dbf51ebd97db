import fc from 'fast-check';
import { armProfileId, exportArmProfile, profileNameOfTmkitId } from '../../../src/core/model/arm-export';
import { importArm } from '../../../src/core/model/arm-import';
import { normalize, normalizeProfile } from '../../../src/core/model/normalize';
import type { EndpointInput, Profile, ProfileInput } from '../../../src/core/model/types';

/**
 * `tmkit get --output arm` prints what Azure would print for a profile; `tmkit import` must read it back to
 * the same profile (issue 16, day-2 CLI).
 */
const SITE = '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Web/sites/app';
const AZURE_CHILD =
  '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/far-child';

const endpointArb = fc
  .record({
    name: fc.constantFrom('us', 'eu', 'My endpoint', 'e-4'),
    kind: fc.constantFrom('external-fqdn', 'external-ip', 'azure', 'nested-name', 'nested-id'),
    endpointStatus: fc.option(fc.constantFrom('Enabled', 'Disabled'), { nil: undefined }),
    weight: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
    priority: fc.integer({ min: 1, max: 1000 }),
    endpointLocation: fc.option(fc.constantFrom('westus', 'westeurope', 'eastasia'), { nil: undefined }),
    minChildEndpoints: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
    minChildEndpointsIPv4: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    minChildEndpointsIPv6: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    geoMapping: fc.subarray(['WORLD', 'GEO-EU', 'DE', 'US-CA']),
    subnets: fc.subarray([{ first: '10.0.0.0', scope: 8 }, { first: '192.0.2.1', last: '192.0.2.9' }, { first: '2001:db8::1' }]),
    customHeaders: fc.subarray([
      { name: 'host', value: 'a.example.com' },
      { name: 'x-probe', value: '1' },
    ]),
    alwaysServe: fc.option(fc.constantFrom('Enabled', 'Disabled'), { nil: undefined }),
  })
  .map((e): EndpointInput => {
    const out: EndpointInput = { name: e.name, type: 'externalEndpoints' };
    if (e.kind === 'external-fqdn') out.target = `${e.name.replace(' ', '')}.example.com`;
    else if (e.kind === 'external-ip') out.target = '192.0.2.10';
    else if (e.kind === 'azure') {
      out.type = 'azureEndpoints';
      out.targetResourceId = SITE;
    } else {
      out.type = 'nestedEndpoints';
      out.targetResourceId = e.kind === 'nested-name' ? 'child' : AZURE_CHILD;
    }
    const nested = out.type === 'nestedEndpoints';
    if (e.endpointStatus !== undefined) out.endpointStatus = e.endpointStatus as 'Enabled';
    if (e.weight !== undefined) out.weight = e.weight;
    out.priority = e.priority;
    if (e.endpointLocation !== undefined) out.endpointLocation = e.endpointLocation;
    if (nested && e.minChildEndpoints !== undefined) out.minChildEndpoints = e.minChildEndpoints;
    if (nested && e.minChildEndpointsIPv4 !== undefined) out.minChildEndpointsIPv4 = e.minChildEndpointsIPv4;
    if (nested && e.minChildEndpointsIPv6 !== undefined) out.minChildEndpointsIPv6 = e.minChildEndpointsIPv6;
    if (e.geoMapping.length > 0) out.geoMapping = e.geoMapping;
    if (e.subnets.length > 0) out.subnets = e.subnets;
    if (e.customHeaders.length > 0) out.customHeaders = e.customHeaders;
    if (!nested && e.alwaysServe !== undefined) out.alwaysServe = e.alwaysServe as 'Enabled';
    return out;
  });

const profileArb = fc
  .record({
    name: fc.constantFrom('web', 'a.b', 'x-1'),
    method: fc.constantFrom('Performance', 'Priority', 'Weighted', 'Geographic', 'MultiValue', 'Subnet'),
    profileStatus: fc.option(fc.constantFrom('Enabled', 'Disabled'), { nil: undefined }),
    relativeName: fc.constantFrom('web', 'partners.web', 'x'),
    ttl: fc.option(fc.integer({ min: 0, max: 86400 }), { nil: undefined }),
    protocol: fc.constantFrom('HTTP', 'HTTPS', 'TCP'),
    port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    path: fc.option(fc.constantFrom('/', '/healthz'), { nil: undefined }),
    interval: fc.option(fc.constantFrom(10, 30), { nil: undefined }),
    timeout: fc.option(fc.integer({ min: 5, max: 9 }), { nil: undefined }),
    tolerated: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
    headers: fc.subarray([
      { name: 'host', value: 'web.example.com' },
      { name: 'x-a', value: 'b' },
    ]),
    ranges: fc.subarray([
      { min: 200, max: 299 },
      { min: 301, max: 302 },
    ]),
    maxReturn: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    trafficView: fc.option(fc.constantFrom('Enabled', 'Disabled'), { nil: undefined }),
    recordTypes: fc.option(fc.subarray(['DomainName', 'IPv4Address', 'IPv6Address', 'Any'], { minLength: 1 }), { nil: undefined }),
    tags: fc.option(fc.dictionary(fc.constantFrom('team', 'env x', 'cost:center'), fc.constantFrom('1', 'blue'), { minKeys: 1 }), {
      nil: undefined,
    }),
    endpoints: fc.uniqueArray(endpointArb, { selector: (e) => e.name, maxLength: 4 }),
    explicitPriorities: fc.boolean(),
  })
  .map((r): ProfileInput => {
    const p: ProfileInput = {
      name: r.name,
      trafficRoutingMethod: r.method as ProfileInput['trafficRoutingMethod'],
      dnsConfig: { relativeName: r.relativeName, ...(r.ttl !== undefined ? { ttl: r.ttl } : {}) },
      monitorConfig: {
        protocol: r.protocol as 'HTTP',
        ...(r.port !== undefined ? { port: r.port } : {}),
        ...(r.protocol !== 'TCP' && r.path !== undefined ? { path: r.path } : {}),
        ...(r.interval !== undefined ? { intervalInSeconds: r.interval } : {}),
        ...(r.timeout !== undefined ? { timeoutInSeconds: r.timeout } : {}),
        ...(r.tolerated !== undefined ? { toleratedNumberOfFailures: r.tolerated } : {}),
        ...(r.headers.length > 0 ? { customHeaders: r.headers } : {}),
        ...(r.ranges.length > 0 ? { expectedStatusCodeRanges: r.ranges } : {}),
      },
      endpoints: r.endpoints.map((e) => {
        if (r.explicitPriorities) return e;
        const { priority: _p, ...rest } = e;
        return rest;
      }),
    };
    if (r.profileStatus !== undefined) p.profileStatus = r.profileStatus as 'Enabled';
    if (r.maxReturn !== undefined) p.maxReturn = r.maxReturn;
    if (r.trafficView !== undefined) p.trafficViewEnrollmentStatus = r.trafficView as 'Enabled';
    if (r.recordTypes !== undefined) p.allowedEndpointRecordTypes = r.recordTypes as ProfileInput['allowedEndpointRecordTypes'];
    if (r.tags !== undefined) p.tags = r.tags;
    return p;
  });

/**
 * What a profile means for routing: Azure prints `weight` and `priority` on every endpoint, and import keeps
 * them only where the routing method reads them (weight: Weighted, priority: Priority); elsewhere they are
 * the defaults again (weight 1, priority = position).
 */
function effective(p: Profile): Profile {
  return {
    ...p,
    endpoints: p.endpoints.map((e, i) => ({
      ...e,
      weight: p.trafficRoutingMethod === 'Weighted' ? e.weight : 1,
      priority: p.trafficRoutingMethod === 'Priority' ? e.priority : i + 1,
    })),
  };
}

const ctx = { zone: 'tm.internal', relativeNameOf: (n: string) => (n === 'child' ? 'child-rn' : undefined) };

test('property: import(get --output arm) is the same profile', () => {
  fc.assert(
    fc.property(profileArb, (input) => {
      const stored = normalizeProfile(input);
      const arm = exportArmProfile(stored, { ...ctx, profileMonitorStatus: 'Online', endpointMonitorStatus: () => 'Online' });
      const { document, issues } = importArm(JSON.parse(JSON.stringify(arm)));
      expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
      expect(issues.filter((i) => i.code !== 'ARM_IMPORT_NESTED_OUTSIDE')).toEqual([]);
      const back = normalize(document!).profiles;
      expect(back).toEqual([effective(stored)]);
    }),
    { numRuns: 500 },
  );
});

test('the ARM shape: ids, types, location global, fqdn, monitor statuses, a nested endpoint naming its child', () => {
  const p = normalizeProfile({
    name: 'app',
    trafficRoutingMethod: 'Performance',
    dnsConfig: { relativeName: 'app', ttl: 30 },
    monitorConfig: { protocol: 'HTTP', port: 8080, path: '/healthz' },
    endpoints: [
      { name: 'us west', type: 'externalEndpoints', target: '127.0.0.11', endpointLocation: 'westus' },
      { name: 'eu', type: 'nestedEndpoints', targetResourceId: 'child', endpointLocation: 'westeurope', minChildEndpoints: 2 },
    ],
  });
  const arm = exportArmProfile(p, {
    ...ctx,
    profileMonitorStatus: 'Degraded',
    endpointMonitorStatus: (n) => (n === 'eu' ? 'Online' : 'Degraded'),
  });
  expect(arm).toMatchObject({
    id: '/providers/Microsoft.Network/trafficManagerProfiles/app',
    name: 'app',
    type: 'Microsoft.Network/trafficManagerProfiles',
    location: 'global',
    tags: {},
    properties: {
      profileStatus: 'Enabled',
      trafficRoutingMethod: 'Performance',
      dnsConfig: { relativeName: 'app', fqdn: 'app.tm.internal', ttl: 30 },
      monitorConfig: {
        profileMonitorStatus: 'Degraded',
        protocol: 'HTTP',
        port: 8080,
        path: '/healthz',
        intervalInSeconds: 30,
        toleratedNumberOfFailures: 3,
        timeoutInSeconds: 10,
      },
      trafficViewEnrollmentStatus: 'Disabled',
      endpoints: [
        {
          id: '/providers/Microsoft.Network/trafficManagerProfiles/app/externalEndpoints/us%20west',
          name: 'us west',
          type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
          properties: {
            target: '127.0.0.11',
            endpointStatus: 'Enabled',
            endpointMonitorStatus: 'Degraded',
            weight: 1,
            priority: 1,
            endpointLocation: 'westus',
            alwaysServe: 'Disabled',
          },
        },
        {
          id: '/providers/Microsoft.Network/trafficManagerProfiles/app/nestedEndpoints/eu',
          name: 'eu',
          type: 'Microsoft.Network/trafficManagerProfiles/nestedEndpoints',
          properties: {
            targetResourceId: '/providers/Microsoft.Network/trafficManagerProfiles/child',
            target: 'child-rn.tm.internal',
            endpointMonitorStatus: 'Online',
            minChildEndpoints: 2,
          },
        },
      ],
    },
  });
  expect((arm.properties as { endpoints: Array<{ properties: object }> }).endpoints[1]!.properties).not.toHaveProperty('alwaysServe');
});

test('tmkit ids name a profile; other ids do not', () => {
  expect(profileNameOfTmkitId(armProfileId('a.b'))).toBe('a.b');
  expect(profileNameOfTmkitId(AZURE_CHILD)).toBeUndefined();
  expect(profileNameOfTmkitId('/providers/Microsoft.Network/trafficManagerProfiles/a/externalEndpoints/b')).toBeUndefined();
});
