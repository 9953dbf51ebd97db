/**
 * Local probe targets for the throughput benchmark, in their own process so the prober's CPU share is
 * measured alone: an HTTP server (200 OK) and a TCP listener on each of N loopback addresses.
 * Prints one JSON line: [{ host, http, tcp }].
 */
import { createServer as createHttp } from 'node:http';
import { createServer as createTcp, type AddressInfo } from 'node:net';

const n = Number(process.argv[2] ?? 16);

async function main(): Promise<void> {
  const out: Array<{ host: string; http: number; tcp: number }> = [];
  for (let i = 0; i < n; i++) {
    const host = `127.0.0.${10 + i}`;
    const http = createHttp((_req, res) => res.writeHead(200, { 'content-length': '2' }).end('ok'));
    http.keepAliveTimeout = 1000;
    const tcp = createTcp((s) => { s.on('error', () => {}); s.resume(); });
    await new Promise<void>((r) => http.listen(0, host, 4096, () => r()));
    await new Promise<void>((r) => tcp.listen(0, host, 4096, () => r()));
    out.push({ host, http: (http.address() as AddressInfo).port, tcp: (tcp.address() as AddressInfo).port });
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0)); // parent gone or done
}

void main();
