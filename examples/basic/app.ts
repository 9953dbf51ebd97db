/**
 * A plain tmkit app: one Priority (failover) profile with a primary and a backup endpoint.
 * `tmkit synth` (in this directory) runs main.ts, which synthesizes this app and writes tmkit.out.json.
 */
import { App, ExternalEndpoint, Profile } from '../../src';

export function buildApp(app: App = new App()): App {
  const web = new Profile(app, 'web', {
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'web', ttl: 30 },
    monitorConfig: { protocol: 'HTTP', port: 8080, path: '/healthz', intervalInSeconds: 10, toleratedNumberOfFailures: 2 },
  });
  // Loopback addresses: the self-hosted runtime allows them (Azure would not; see --strict-azure).
  new ExternalEndpoint(web, 'primary', { target: '127.0.0.1', priority: 1 });
  new ExternalEndpoint(web, 'backup', { target: '127.0.0.2', priority: 2 });
  return app;
}
