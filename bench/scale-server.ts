/**
 * The server half of bench:scale (a child process, see bench/scale.ts): the same Engine `tmkit serve` runs
 * (SQLite store in the state dir, DNS over UDP, management API over HTTP), with the injected prober the
 * runtime tests use, so 100,000 endpoints can be "probed" on a 2-core machine: every target is healthy
 * unless the parent marked its key down (IPC). The `hot` keys (the endpoints whose transitions are timed)
 * are probed every 100 ms; the others at their profile's interval.
 *
 *   node -r @swc-node/register bench/scale-server.ts STATE_DIR HOT_KEYS(comma-separated)
 *
 * Messages to the parent: {type:'ready', dns, api, token, startMs, rss}, {type:'failed'|'recovered', key, at}
 * (epoch ms with sub-ms precision, when the probe that flips the verdict returned), {type:'stats', …}.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { Engine } from '../src/runtime/engine';

const [stateDir, hotArg] = process.argv.slice(2);
const hot = new Set((hotArg ?? '').split(',').filter((k) => k !== ''));
const down = new Set<string>();
/** Keys whose next probe result is a change the parent waits for. */
const flipping = new Set<string>();
const send = (m: unknown): void => {
  process.send?.(m);
};
const epoch = (): number => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const t0 = performance.now();
  const engine = await Engine.start({
    stateDir: stateDir!,
    zone: 'tm.internal',
    dns: [{ address: '127.0.0.1', port: 0 }],
    api: { host: '127.0.0.1', port: 0 },
    logger: pino({ level: 'warn' }),
    env: {},
    monitor: {
      probe: async (t) => {
        const ok = !down.has(t.key);
        if (flipping.delete(t.key)) send({ type: ok ? 'recovered' : 'failed', key: t.key, at: epoch() });
        return { ok, reason: ok ? 'status 200' : 'status 503', latencyMs: 0.1 };
      },
      intervalMs: (t) => (hot.has(t.key) ? 100 : t.intervalInSeconds * 1000),
    },
  });
  const startMs = performance.now() - t0;
  // Until every endpoint's first probe is in (100,000 transitions CheckingEndpoint → Online) and served.
  await engine.settle(60_000);
  const settledMs = performance.now() - t0;
  // The first start saves every endpoint's monitor record (later starts only what changed): in the
  // background, measured, and waited for so the timings below are the steady state's.
  while (engine.unsavedMonitorRecords() > 0) await new Promise((r) => setTimeout(r, 50));
  const savedMs = performance.now() - t0;
  /** Event-loop delay before the last forced GC (a stats request runs one; its pause is not the engine's). */
  let loopMaxNs = 0;
  const stats = (): Record<string, unknown> => ({
    rss: process.memoryUsage().rss,
    heapUsed: process.memoryUsage().heapUsed,
    loopDelayMaxMs: Math.max(loopMaxNs, loop.max) / 1e6,
    store: (engine.store as { stats?: () => unknown }).stats?.(),
    prober: (engine as unknown as { proberStats?: () => unknown }).proberStats?.(),
  });
  process.on('message', (m: { type: string; key?: string }) => {
    if (m.type === 'down' || m.type === 'up') {
      if (m.type === 'down') down.add(m.key!);
      else down.delete(m.key!);
      flipping.add(m.key!);
    } else if (m.type === 'stats') {
      // A forced GC (for the RSS figures) pauses for as long as a full mark-compact of the heap takes: it
      // is not counted as the engine's event-loop delay, and not run between the timed changes.
      if ((m as { gc?: boolean }).gc !== false) {
        loopMaxNs = Math.max(loopMaxNs, loop.max);
        global.gc?.();
        loop.reset();
      }
      send({ type: 'stats', ...stats() });
    } else if (m.type === 'stop') {
      void engine.stop().then(() => process.exit(0));
    }
  });
  loop.reset(); // from here on: the delay changes and transitions see
  send({
    type: 'ready',
    dns: engine.dnsAddresses()[0]!.port,
    api: `http://127.0.0.1:${engine.apiAddress().port}`,
    token: engine.token.token,
    startMs,
    settledMs,
    savedMs,
    ...stats(),
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
