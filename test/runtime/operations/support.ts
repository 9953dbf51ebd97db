/** Shared by the traffic-operations tests: a real engine on free ports with fast probing, and its client. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { TmkitClient } from '../../../src/client';
import type { ProfileInput } from '../../../src/core/model/types';
import { Engine, type EngineOptions } from '../../../src/runtime/engine';
import { waitFor } from '../../support/wait';
import { tempDirs } from '../../support/tmp';

export interface Started {
  engine: Engine;
  client: TmkitClient;
  dns: { address: string; port: number };
  api: string;
}

/** Engines and temp dirs of one test file, stopped and removed after each test / the file. */
export function harness(prefix: string): {
  tempDir(): string;
  start(dir: string, extra?: Partial<EngineOptions>): Promise<Started>;
  stop(e: Started): Promise<void>;
} {
  const engines: Started[] = [];
  afterEach(async () => {
    while (engines.length) {
      const e = engines.pop()!;
      await e.client.close();
      await e.engine.stop();
    }
  });
  const tempDir = tempDirs(prefix);
  return {
    tempDir,
    async start(stateDir, extra = {}) {
      const engine = await Engine.start({
        stateDir,
        zone: 'tm.internal',
        dns: [{ address: '127.0.0.1', port: 0 }],
        api: { host: '127.0.0.1', port: 0 },
        logger: pino({ level: 'silent' }),
        env: {},
        // Probe every 150 ms (the real interval is 10 or 30 s) so health tests finish quickly.
        monitor: { intervalMs: () => 150, timeoutMs: () => 1000 },
        ...extra,
      });
      const api = `http://127.0.0.1:${engine.apiAddress().port}`;
      const s: Started = {
        engine,
        client: new TmkitClient({ server: api, token: engine.token.token, env: {} }),
        dns: engine.dnsAddresses()[0]!,
        api,
      };
      engines.push(s);
      return s;
    },
    async stop(s) {
      const i = engines.indexOf(s);
      if (i >= 0) engines.splice(i, 1);
      await s.client.close();
      await s.engine.stop();
    },
  };
}

/** A Priority (or other) profile over loopback targets probed on `port` at /healthz (tolerated 0). */
export function loopbackProfile(
  name: string,
  port: number,
  endpoints: NonNullable<ProfileInput['endpoints']>,
  over: Partial<ProfileInput> = {},
): ProfileInput {
  return {
    name,
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: name, ttl: 0 },
    monitorConfig: { protocol: 'HTTP', port, path: '/healthz', intervalInSeconds: 10, timeoutInSeconds: 5, toleratedNumberOfFailures: 0 },
    endpoints,
    ...over,
  };
}

/** `web`-like profile `name` over primary 127.0.0.2 and backup 127.0.0.3, probed on `port`. */
export function primaryBackup(name: string, port: number, over: Partial<ProfileInput> = {}): ProfileInput {
  return loopbackProfile(
    name,
    port,
    [
      { name: 'primary', type: 'externalEndpoints', target: '127.0.0.2' },
      { name: 'backup', type: 'externalEndpoints', target: '127.0.0.3' },
    ],
    over,
  );
}

/** Waits until every endpoint of `name` is Online. */
export async function allOnline(client: TmkitClient, name: string): Promise<void> {
  await waitFor(async () => (await client.status(name)).endpoints.every((e) => e.endpointMonitorStatus === 'Online'), {
    what: `${name} Online`,
  });
}

/** Health servers on several loopback addresses sharing one port; hosts in `down` answer 503. */
export async function switchable(hosts: string[]): Promise<{ port: number; down: Set<string>; close: () => Promise<void> }> {
  const down = new Set<string>();
  for (let attempt = 0; ; attempt++) {
    const made: Server[] = [];
    let port = 0;
    try {
      for (const host of hosts) {
        const srv = createServer((req, res) => {
          req.resume();
          res.writeHead(down.has(host) ? 503 : 200).end();
        });
        await new Promise<void>((resolve, reject) => {
          srv.once('error', reject);
          srv.listen(port, host, () => resolve());
        });
        made.push(srv);
        port = (srv.address() as AddressInfo).port;
      }
      return {
        port,
        down,
        close: async () => {
          await Promise.all(
            made.map(
              (x) =>
                new Promise<void>((r) => {
                  x.closeAllConnections();
                  x.close(() => r());
                }),
            ),
          );
        },
      };
    } catch (err) {
      await Promise.all(made.map((x) => new Promise<void>((r) => x.close(() => r()))));
      if (attempt > 10) throw err;
    }
  }
}
