/**
 * The program: tmkit's nested scenario (examples/nested) as Pulumi resources, written as one writes it for
 * azure-native's network module (only the import differs, and resourceGroupName is gone).
 *
 * - `app` (Performance) sends each client to the closest of West US, West Europe and East Asia. It declares
 *   its endpoints inline, so it owns that set (a PUT of the whole profile).
 * - West Europe is the nested endpoint `westeurope` → the child profile `app-westeurope` (Weighted), whose
 *   two endpoints, `production` and `canary`, are Endpoint resources of their own (each written with its
 *   own ETag; the child profile itself never touches them). `minChildEndpoints: 2`: the parent counts West
 *   Europe as available only while both are.
 *
 * index.ts runs it with the stack's config; the end-to-end test (test/providers/pulumi/tmkit-e2e.test.ts)
 * runs this same function as an inline program.
 */
import * as network from 'tmkit/pulumi';

export interface ContosoSettings {
  /** Endpoint addresses (IPs or host names). */
  targets: { westus: string; production: string; canary: string; eastasia: string };
  /** The port every endpoint's health check probes (HTTP GET /healthz). */
  monitorPort: number;
  /** The canary's share against production's 90; default 10. */
  canaryWeight?: number;
  /** The child profile's DNS name; default `app-westeurope`. */
  childRelativeName?: string;
  /** The parent's TTL; default 30. */
  ttl?: number;
}

export function contoso(s: ContosoSettings) {
  const monitorConfig = {
    protocol: network.MonitorProtocol.HTTP,
    port: s.monitorPort,
    path: '/healthz',
    intervalInSeconds: 10,
    timeoutInSeconds: 5,
    toleratedNumberOfFailures: 0,
  };

  // The child: West Europe, 90 % production, 10 % canary.
  const westEurope = new network.Profile('app-westeurope', {
    trafficRoutingMethod: network.TrafficRoutingMethod.Weighted,
    dnsConfig: { relativeName: s.childRelativeName ?? 'app-westeurope', ttl: 30 },
    monitorConfig,
  });
  const production = new network.Endpoint('production', {
    profileName: westEurope.name,
    endpointType: 'ExternalEndpoints',
    target: s.targets.production,
    weight: 90,
  });
  const canary = new network.Endpoint('canary', {
    profileName: westEurope.name,
    endpointType: 'ExternalEndpoints',
    target: s.targets.canary,
    weight: s.canaryWeight ?? 10,
  });

  // The parent: the closest region wins.
  const app = new network.Profile(
    'app',
    {
      trafficRoutingMethod: network.TrafficRoutingMethod.Performance,
      dnsConfig: { relativeName: 'app', ttl: s.ttl ?? 30 },
      monitorConfig,
      endpoints: [
        {
          name: 'westus',
          type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
          target: s.targets.westus,
          endpointLocation: 'West US',
        },
        {
          name: 'westeurope',
          type: 'Microsoft.Network/trafficManagerProfiles/nestedEndpoints',
          // The child's id ends in /trafficManagerProfiles/app-westeurope, as an azure-native profile id does.
          targetResourceId: westEurope.id,
          endpointLocation: 'West Europe',
          minChildEndpoints: 2,
        },
        {
          name: 'eastasia',
          type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints',
          target: s.targets.eastasia,
          endpointLocation: 'East Asia',
        },
      ],
    },
    {
      // The parent nests West Europe once both its endpoints are there (minChildEndpoints 2), and is deleted first.
      dependsOn: [production, canary],
    },
  );

  return {
    fqdn: app.dnsConfig.fqdn,
    childFqdn: westEurope.dnsConfig.fqdn,
    appId: app.id,
    childId: westEurope.id,
  };
}
