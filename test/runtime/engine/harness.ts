/**
 * A real runtime in this process for the tests of issue 31 (helpers, not tests): Engine on port 0 with a
 * fast prober, its client, the real-dig arguments; everything stopped and removed after each test.
 */
import pino from 'pino';
import { TmkitClient } from '../../../src/client';
import { Engine, type EngineOptions } from '../../../src/runtime/engine';
import { tempDirs } from '../../support/tmp';

export interface Started {
  engine: Engine;
  client: TmkitClient;
  at: string[];
  stateDir: string;
}

/** Registers the jest hooks; `start` runs an engine (in `stateDir` again after a restart), `closers` run after each test. */
export function engineHarness(prefix: string): {
  start: (o?: Partial<EngineOptions>) => Promise<Started>;
  closers: Array<() => Promise<void>>;
  engines: Engine[];
} {
  const engines: Engine[] = [];
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (engines.length) await engines.pop()!.stop();
    for (const c of closers.splice(0)) await c();
  });
  const tempDir = tempDirs(prefix);
  const start = async (o: Partial<EngineOptions> = {}): Promise<Started> => {
    const stateDir = o.stateDir ?? tempDir();
    const engine = await Engine.start({
      zone: 'tm.internal',
      dns: [{ address: '127.0.0.1', port: 0 }],
      api: { host: '127.0.0.1', port: 0 },
      logger: pino({ level: 'silent' }),
      env: {},
      monitor: { intervalMs: () => 200, timeoutMs: () => 1000 },
      ...o,
      stateDir,
    });
    engines.push(engine);
    const client = new TmkitClient({ server: `http://127.0.0.1:${engine.apiAddress().port}`, token: engine.token.token, env: {} });
    closers.push(() => client.close());
    return { engine, client, at: ['@127.0.0.1', '-p', String(engine.dnsAddresses()[0]!.port)], stateDir };
  };
  return { start, closers, engines };
}
