/**
 * The nested-profiles scenario: a Performance parent sends each client to the closest of West US,
 * West Europe and East Asia. West Europe is itself a Weighted child profile splitting traffic between a
 * production and a canary deployment; the parent treats West Europe as available only while both child
 * endpoints are (minChildEndpoints 2), otherwise European clients go to the next-closest region.
 */
import { App, ExternalEndpoint, NestedEndpoint, Profile } from '../../src';

export function buildApp(app: App = new App()): App {
  const monitorConfig = { protocol: 'HTTPS', port: 443, path: '/health', intervalInSeconds: 30, toleratedNumberOfFailures: 3 } as const;

  // The child: West Europe, 90 % production, 10 % canary.
  const westEurope = new Profile(app, 'app-westeurope', {
    trafficRoutingMethod: 'Weighted',
    dnsConfig: { relativeName: 'app-westeurope', ttl: 30 },
    monitorConfig,
  });
  new ExternalEndpoint(westEurope, 'production', { target: 'prod.westeurope.app.example.com', weight: 90 });
  new ExternalEndpoint(westEurope, 'canary', { target: 'canary.westeurope.app.example.com', weight: 10 });

  // The parent: closest region wins.
  const global = new Profile(app, 'app', {
    trafficRoutingMethod: 'Performance',
    dnsConfig: { relativeName: 'app', ttl: 30 },
    monitorConfig,
  });
  new ExternalEndpoint(global, 'westus', { target: 'westus.app.example.com', endpointLocation: 'westus' });
  new NestedEndpoint(global, 'westeurope', { targetProfile: westEurope, endpointLocation: 'westeurope', minChildEndpoints: 2 });
  new ExternalEndpoint(global, 'eastasia', { target: 'eastasia.app.example.com', endpointLocation: 'eastasia' });
  return app;
}

if (require.main === module) {
  buildApp().synth();
}
