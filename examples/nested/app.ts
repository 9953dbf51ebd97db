/**
 * The nested-profiles scenario: a Performance parent sends each client to the closest of West US,
 * West Europe and East Asia. West Europe is itself a Weighted child profile splitting traffic between a
 * production and a canary deployment; the parent treats West Europe as available only while both child
 * endpoints are (minChildEndpoints 2), otherwise European clients go to the next-closest region.
 *
 * Its own stack ("nested"), so it deploys next to examples/basic (stack "default") without planning the
 * other's profiles away. Targets are loopback addresses that examples/health-server.js answers on, so it
 * is healthy on a machine with no internet.
 */
import { App, ExternalEndpoint, NestedEndpoint, Profile, type AppProps } from '../../src';

export const STACK = 'nested';

export function buildApp(props: AppProps = {}): App {
  const app = new App({ stack: STACK, ...props });
  const monitorConfig = { protocol: 'HTTP', port: 8080, path: '/healthz', intervalInSeconds: 30, toleratedNumberOfFailures: 3 } as const;

  // The child: West Europe, 90 % production, 10 % canary.
  const westEurope = new Profile(app, 'app-westeurope', {
    trafficRoutingMethod: 'Weighted',
    dnsConfig: { relativeName: 'app-westeurope', ttl: 30 },
    monitorConfig,
  });
  new ExternalEndpoint(westEurope, 'production', { target: '127.0.0.21', weight: 90 });
  new ExternalEndpoint(westEurope, 'canary', { target: '127.0.0.22', weight: 10 });

  // The parent: closest region wins.
  const global = new Profile(app, 'app', {
    trafficRoutingMethod: 'Performance',
    dnsConfig: { relativeName: 'app', ttl: 30 },
    monitorConfig,
  });
  new ExternalEndpoint(global, 'westus', { target: '127.0.0.11', endpointLocation: 'westus' });
  new NestedEndpoint(global, 'westeurope', { targetProfile: westEurope, endpointLocation: 'westeurope', minChildEndpoints: 2 });
  new ExternalEndpoint(global, 'eastasia', { target: '127.0.0.31', endpointLocation: 'eastasia' });
  return app;
}
