/** Shared by the measured-latency tests: HTTP endpoints on loopback that answer after a set delay, and the profile. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProfileInput } from '../../src/core/model/types';

/** Health servers on 127.0.0.2 and 127.0.0.3 sharing one port; each answers after `delay.get(host)` ms. */
export async function delayed(hosts: string[]): Promise<{ port: number; delay: Map<string, number>; close: () => Promise<void> }> {
  const delay = new Map<string, number>(hosts.map((h) => [h, 0]));
  for (let attempt = 0; ; attempt++) {
    const made: Server[] = [];
    let port = 0;
    try {
      for (const host of hosts) {
        const srv = createServer((req, res) => {
          req.resume();
          setTimeout(() => res.writeHead(200).end('ok'), delay.get(host) ?? 0);
        });
        await new Promise<void>((resolve, reject) => {
          srv.once('error', reject);
          srv.listen(port, host, () => resolve());
        });
        made.push(srv);
        port = (srv.address() as AddressInfo).port;
      }
      const close = async (): Promise<void> => {
        await Promise.all(
          made.map(
            (x) =>
              new Promise<void>((r) => {
                x.closeAllConnections();
                x.close(() => r());
              }),
          ),
        );
      };
      return { port, delay, close };
    } catch (err) {
      await Promise.all(made.map((x) => new Promise<void>((r) => x.close(() => r()))));
      if (attempt > 10) throw err;
    }
  }
}

/** `web`: Performance by measured latency over near (`hosts[0]`, westeurope) and far (`hosts[1]`, japaneast). */
export function measuredProfile(
  port: number,
  minSamples: number,
  hosts: [string, string] = ['127.0.0.2', '127.0.0.3'],
  toleranceMs = 20,
): ProfileInput {
  return {
    name: 'web',
    trafficRoutingMethod: 'Performance',
    dnsConfig: { relativeName: 'web', ttl: 0 },
    monitorConfig: { protocol: 'HTTP', port, path: '/healthz', intervalInSeconds: 10, timeoutInSeconds: 5, toleratedNumberOfFailures: 0 },
    performanceLatency: { source: 'Measured', toleranceMs, minSamples },
    endpoints: [
      { name: 'near', type: 'externalEndpoints', target: hosts[0], endpointLocation: 'westeurope' },
      { name: 'far', type: 'externalEndpoints', target: hosts[1], endpointLocation: 'japaneast' },
    ],
  };
}
