/**
 * Local probe targets for the throughput benchmark, in their own process so the prober's CPU share is
 * measured alone: an HTTP responder and a TCP listener on each of N loopback addresses.
 * The HTTP responder answers `200 OK` (Connection: close) to the first bytes of a request without parsing
 * it: node:http's server costs more CPU per connection than the prober does, and on a 2-core machine it
 * would be the bottleneck of the measurement. (`--node-http` uses node:http instead.)
 * Prints one JSON line: [{ host, http, tcp }].
 */
import { createServer as createHttp, type Server as HttpServer } from 'node:http';
import { createServer as createTcp, type AddressInfo, type Server } from 'node:net';

const RESPONSE = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
const nodeHttp = process.argv.includes('--node-http');

const n = Number(process.argv[2] ?? 16);

async function main(): Promise<void> {
  const out: Array<{ host: string; http: number; tcp: number }> = [];
  for (let i = 0; i < n; i++) {
    const host = `127.0.0.${10 + i}`;
    let http: Server | HttpServer;
    if (nodeHttp) {
      http = createHttp((_req, res) => res.writeHead(200, { 'content-length': '2' }).end('ok'));
    } else {
      http = createTcp((s) => {
        s.on('error', () => {});
        s.once('data', () => s.end(RESPONSE));
      });
    }
    const tcp = createTcp((s) => {
      s.on('error', () => {});
      s.resume();
    });
    await new Promise<void>((r) => http.listen(0, host, 4096, () => r()));
    await new Promise<void>((r) => tcp.listen(0, host, 4096, () => r()));
    out.push({ host, http: (http.address() as AddressInfo).port, tcp: (tcp.address() as AddressInfo).port });
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0)); // parent gone or done
}

void main();
