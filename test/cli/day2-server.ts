/**
 * A real runtime for the day-2 CLI tests: the Engine (store, prober, DNS and API) in this process, its
 * state (and generated token file) in `<dir>/.tmkit`, probing every 200 ms so health changes show quickly.
 * Targets are loopback addresses only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { TmkitClient } from '../../src/client';
import type { ProfileInput } from '../../src/core/model/types';
import { Engine } from '../../src/runtime/engine';

export interface Day2Server {
  engine: Engine;
  client: TmkitClient;
  /** `http://127.0.0.1:<port>` */
  api: string;
  /** A temp directory; the state dir is `<dir>/.tmkit`. */
  dir: string;
  stateDir: string;
  close(): Promise<void>;
}

export async function startDay2Server(prefix: string): Promise<Day2Server> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const stateDir = join(dir, '.tmkit');
  const engine = await Engine.start({
    stateDir,
    zone: 'tm.internal',
    dns: [{ address: '127.0.0.1', port: 0 }],
    api: { host: '127.0.0.1', port: 0 },
    logger: pino({ level: 'silent' }),
    env: {},
    monitor: { intervalMs: () => 200, timeoutMs: () => 1000 },
  });
  const api = `http://127.0.0.1:${engine.apiAddress().port}`;
  const client = new TmkitClient({ server: api, token: engine.token.token, env: {}, retries: 0 });
  return {
    engine,
    client,
    api,
    dir,
    stateDir,
    async close() {
      await client.close();
      await engine.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Priority profile over loopback targets probed on `port` (`/healthz`). */
export function loopbackProfile(name: string, port: number, targets: string[], extra: Partial<ProfileInput> = {}): ProfileInput {
  return {
    name,
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: name, ttl: 30 },
    monitorConfig: { protocol: 'HTTP', port, path: '/healthz', intervalInSeconds: 10, timeoutInSeconds: 5, toleratedNumberOfFailures: 0 },
    endpoints: targets.map((t, i) => ({ name: `e${i + 1}`, type: 'externalEndpoints', target: t })),
    ...extra,
  };
}
