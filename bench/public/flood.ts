/**
 * The random-name flood of bench/public/run.ts, in its own process so the normal-query probe in the parent is
 * not delayed by the sender's event loop. Sends `rate` queries a second for `seconds` (10 ms ticks; a tick
 * that falls behind catches up by at most one tick's worth, so the load stays bounded), each for a new random
 * name under the zone with DO, spread round-robin over `sockets` UDP sockets bound to 127.2.0.1, 127.2.1.1, …
 * (one /24 each: a distributed flood, as from many resolvers, that per-prefix rate limiting alone does not
 * stop). Counts what comes back and prints one JSON line.
 *
 * Usage (by run.ts): node -r @swc-node/register bench/public/flood.ts PORT SECONDS RATE SOCKETS
 */
import { randomBytes } from 'node:crypto';
import * as dgram from 'node:dgram';
import { TYPE, buildQuery } from './wire';

const [port, seconds, rate, socketCount] = process.argv.slice(2).map(Number) as [number, number, number, number];
const ZONE = 'tm.internal';
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

async function main(): Promise<void> {
  const got = { responses: 0, noerror: 0, nxdomain: 0, tc: 0, other: 0, bytesIn: 0 };
  const sockets: dgram.Socket[] = [];
  for (let i = 0; i < socketCount; i++) {
    const s = dgram.createSocket('udp4');
    s.on('message', (m) => {
      got.responses++;
      got.bytesIn += m.length;
      if (m[2]! & 0x02) got.tc++;
      else if ((m[3]! & 0x0f) === 0)
        got.noerror++; // compact denial (tmkit): NOERROR with an NSEC
      else if ((m[3]! & 0x0f) === 3) got.nxdomain++;
      else got.other++;
    });
    s.on('error', () => undefined);
    await new Promise<void>((r) => s.bind({ address: `127.${2 + (i >> 8)}.${i & 255}.1`, port: 0 }, () => r()));
    sockets.push(s);
  }
  const label = (): string => {
    const b = randomBytes(12);
    let s = '';
    for (const x of b) s += ALPHABET[x % ALPHABET.length];
    return s;
  };
  let sent = 0;
  let bytesOut = 0;
  const perTick = rate / 100;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await new Promise<void>((done) => {
    const tick = (): void => {
      const now = performance.now();
      if (now >= end) {
        done();
        return;
      }
      const due = Math.min(Math.floor(((now - t0) / 1000) * rate) - sent, Math.ceil(2 * perTick));
      for (let i = 0; i < due; i++) {
        const q = buildQuery(`${label()}.${ZONE}`, { id: (sent * 7919) & 0xffff, type: TYPE.A, dnssecOk: true });
        bytesOut += q.length;
        sockets[sent % sockets.length]!.send(q, port, '127.0.0.1');
        sent++;
      }
      setTimeout(tick, 10);
    };
    tick();
  });
  const elapsed = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 1000));
  for (const s of sockets) s.close();
  process.stdout.write(`${JSON.stringify({ sent, elapsed, bytesOut, ...got })}\n`);
}

void main();
