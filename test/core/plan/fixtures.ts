import { normalize } from '../../../src/core/model/normalize';
import type { Document, DocumentInput, ProfileInput } from '../../../src/core/model/types';
import type { DeployedProfile } from '../../../src/core/plan';

/** Builds a normalized document from input shapes. */
export function doc(stack: string, profiles: ProfileInput[]): Document {
  return normalize({ apiVersion: 'tmkit/v1', stack, profiles } as DocumentInput);
}

/** Deployed profiles of one stack, with ETags `"<name>-1"`. */
export function deployedOf(d: Document, etagSuffix = '1'): DeployedProfile[] {
  return d.profiles.map((profile) => ({ profile, etag: `"${profile.name}-${etagSuffix}"`, stack: d.stack }));
}

const monitor = { protocol: 'HTTPS' as const, port: 443, path: '/health' };

/**
 * A realistic web estate (stack "web"), deployed: a Weighted front door, a Geographic profile nesting a
 * Priority child for Europe, a status page, and a legacy API that is about to go.
 */
export function webBefore(): ProfileInput[] {
  return [
    {
      name: 'contoso-web',
      trafficRoutingMethod: 'Weighted',
      dnsConfig: { relativeName: 'www', ttl: 30 },
      monitorConfig: monitor,
      endpoints: [
        { name: 'eu-west', type: 'externalEndpoints', target: 'eu-west.contoso.net', weight: 50 },
        { name: 'us-east', type: 'externalEndpoints', target: 'us-east.contoso.net', weight: 40 },
        { name: 'legacy', type: 'externalEndpoints', target: 'legacy.contoso.net', weight: 10 },
      ],
    },
    {
      name: 'contoso-geo',
      trafficRoutingMethod: 'Geographic',
      dnsConfig: { relativeName: 'geo', ttl: 60 },
      monitorConfig: monitor,
      endpoints: [
        { name: 'europe', type: 'nestedEndpoints', targetResourceId: 'contoso-eu', geoMapping: ['GEO-EU'] },
        { name: 'americas', type: 'externalEndpoints', target: 'us-east.contoso.net', geoMapping: ['GEO-NA', 'GEO-SA'] },
        { name: 'rest', type: 'externalEndpoints', target: 'global.contoso.net', geoMapping: ['WORLD'] },
      ],
    },
    {
      name: 'contoso-eu',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'eu', ttl: 30 },
      monitorConfig: monitor,
      endpoints: [
        { name: 'eu-primary', type: 'externalEndpoints', target: 'eu-west.contoso.net' },
        { name: 'eu-backup', type: 'externalEndpoints', target: 'eu-north.contoso.net' },
      ],
    },
    {
      name: 'status',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'status', ttl: 300 },
      monitorConfig: { protocol: 'HTTP', port: 80, path: '/' },
      endpoints: [{ name: 'page', type: 'externalEndpoints', target: 'status.contoso.net' }],
    },
    {
      name: 'old-api',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'api-v1', ttl: 30 },
      monitorConfig: monitor,
      endpoints: [{ name: 'v1', type: 'externalEndpoints', target: 'api-v1.contoso.net' }],
    },
  ];
}

/**
 * The pull request: 10 points of weighted traffic move from eu-west to a new eu-canary, the legacy endpoint
 * goes (its 10 points to us-east), the Geographic profile maps the Middle East to Europe, the status page moves to a new name
 * (replace), the old API is deleted and a Performance API profile is created.
 */
export function webAfter(): ProfileInput[] {
  const [web, geo, eu, status] = webBefore();
  return [
    {
      ...web!,
      endpoints: [
        { name: 'eu-west', type: 'externalEndpoints', target: 'eu-west.contoso.net', weight: 40 },
        { name: 'us-east', type: 'externalEndpoints', target: 'us-east.contoso.net', weight: 50 },
        { name: 'eu-canary', type: 'externalEndpoints', target: 'eu-canary.contoso.net', weight: 10 },
      ],
    },
    {
      ...geo!,
      endpoints: [
        { name: 'europe', type: 'nestedEndpoints', targetResourceId: 'contoso-eu', geoMapping: ['GEO-EU', 'GEO-ME'] },
        { name: 'americas', type: 'externalEndpoints', target: 'us-east.contoso.net', geoMapping: ['GEO-NA', 'GEO-SA'] },
        { name: 'rest', type: 'externalEndpoints', target: 'global.contoso.net', geoMapping: ['WORLD'] },
      ],
    },
    eu!,
    { ...status!, dnsConfig: { relativeName: 'status-v2', ttl: 300 } },
    {
      name: 'contoso-api',
      trafficRoutingMethod: 'Performance',
      dnsConfig: { relativeName: 'api', ttl: 10 },
      monitorConfig: { ...monitor, intervalInSeconds: 10, timeoutInSeconds: 5, toleratedNumberOfFailures: 1 },
      endpoints: [
        { name: 'westeurope', type: 'externalEndpoints', target: 'api-weu.contoso.net', endpointLocation: 'West Europe' },
        { name: 'eastus', type: 'externalEndpoints', target: 'api-eus.contoso.net', endpointLocation: 'eastus' },
        { name: 'japaneast', type: 'externalEndpoints', target: 'api-jpe.contoso.net', endpointLocation: 'japaneast' },
      ],
    },
  ];
}

/** Another stack's profile that must never be touched. */
export function dataStack(): DeployedProfile[] {
  return deployedOf(
    doc('data', [
      {
        name: 'data-api',
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: 'data', ttl: 30 },
        endpoints: [{ name: 'd1', type: 'externalEndpoints', target: 'data.contoso.net' }],
      },
    ]),
  );
}

export function webScenario(): { desired: Document; deployed: DeployedProfile[] } {
  return { desired: doc('web', webAfter()), deployed: [...deployedOf(doc('web', webBefore())), ...dataStack()] };
}
