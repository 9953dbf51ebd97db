/**
 * Each DNS UDP socket asks for a 4 MiB receive buffer (UDP_RECEIVE_BUFFER), so a burst that arrives while
 * the event loop is busy waits in the kernel instead of being dropped with resolvers' queries in it. Read
 * back from the kernel with `ss` (skmem rb: the buffer the kernel granted, twice the request, capped by
 * net.core.rmem_max), and held against a socket left at the default.
 */
import { execFileSync } from 'node:child_process';
import * as dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import { buildSnapshot, resolve } from '../../../src/core/routing';
import { DnsServer, UDP_RECEIVE_BUFFER } from '../../../src/runtime/dns';
import { seededRng } from '../../../src/testing/rng';

/** The receive buffer (bytes) of the UDP socket bound to 127.0.0.1:port, as `ss` reports it. */
function rb(port: number): number {
  const out = execFileSync('ss', ['-u', '-a', '-n', '-m', `sport = :${port}`], { encoding: 'utf8' });
  const m = /skmem:\([^)]*\brb(\d+)/.exec(out);
  if (!m) throw new Error(`ss shows no socket on :${port}:\n${out}`);
  return Number(m[1]);
}

test("the DNS server's UDP socket gets the larger receive buffer the kernel allows", async () => {
  const rmemMax = Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8'));
  const server = new DnsServer({
    zone: 'tm.internal',
    snapshot: buildSnapshot({
      zone: 'tm.internal',
      profiles: [],
      geo: { locate: () => undefined, latencyMs: () => undefined },
      health: { verdict: () => 'Online' },
    }),
    resolve,
    rng: seededRng(1),
    listen: [{ address: '127.0.0.1', port: 0 }],
  });
  await server.start();
  const plain = dgram.createSocket('udp4');
  try {
    await new Promise<void>((r) => plain.bind(0, '127.0.0.1', () => r()));
    const granted = rb(server.address().port);
    const byDefault = rb(plain.address().port);
    // Linux caps the request at rmem_max and doubles it (its bookkeeping); a default socket keeps rmem_default.
    expect(granted).toBe(2 * Math.min(UDP_RECEIVE_BUFFER, rmemMax));
    expect(granted).toBeGreaterThan(byDefault);
  } finally {
    plain.close();
    server.close();
  }
});
