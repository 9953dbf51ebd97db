/**
 * Webhook delivery latency (issue 31's closing note): from a live event's publication to the receiver having
 * the request, on loopback, through the real Webhooks part (undici, keep-alive, HMAC signature, in-order
 * queue). Two loads: paced (one transition event every `--every` ms: the latency a lone transition sees)
 * and a burst (`--burst` events at once: how long the last waits behind the others, in order).
 *
 *   npm run bench:webhooks [-- --events 1000] [--every 5] [--burst 200]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { systemClock } from '../src/runtime/clock';
import { LiveEvents } from '../src/runtime/events';
import { Webhooks } from '../src/runtime/webhooks';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) || dflt : dflt;
};
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-bench-webhooks-'));
  const secretFile = join(dir, 'secret');
  writeFileSync(secretFile, 'bench-secret\n');
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  let waiter: (() => void) | undefined;
  let want = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const t = performance.now();
      res.writeHead(200).end();
      latencies.push(t - sent.get(String(req.headers['x-tmkit-delivery']))!);
      if (latencies.length >= want) waiter?.();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const events = new LiveEvents();
  const hooks = await Webhooks.open({
    events,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    registry: new Registry(),
    version: 'bench',
    allowPrivate: true,
    tuning: { maxQueue: 100_000 },
  });
  await hooks.add({ url, events: ['transition'], secretFile });
  // The delivery id is `<boot>-<n>`, n counting published events: the bench knows each one's id.
  const boot = (hooks as unknown as { boot: string }).boot;
  let n = 0;
  const publish = (): void => {
    n++;
    sent.set(`${boot}-${n}`, performance.now());
    events.publish('transition', {
      at: new Date().toISOString(),
      profile: 'web',
      endpoint: 'a',
      from: 'Online',
      to: 'Degraded',
      reason: `bench ${n}`,
      location: 'here',
      source: 'probe',
    });
  };
  const run = async (label: string, count: number, everyMs: number): Promise<void> => {
    latencies.length = 0;
    want = count;
    const done = new Promise<void>((r) => {
      waiter = r;
    });
    for (let i = 0; i < count; i++) {
      publish();
      if (everyMs > 0) await new Promise((r) => setTimeout(r, everyMs));
    }
    await done;
    process.stdout.write(
      `${label}: ${count} events, p50 ${pct(latencies, 50).toFixed(2)} ms, p99 ${pct(latencies, 99).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms\n`,
    );
  };
  await run('warm-up', 20, 5);
  await run(`paced (one every ${arg('--every', 5)} ms)`, arg('--events', 1000), arg('--every', 5));
  await run('burst (all at once, delivered in order)', arg('--burst', 200), 0);
  await hooks.close();
  events.close();
  server.close();
  rmSync(dir, { recursive: true, force: true });
}

void main();
