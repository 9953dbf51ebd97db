/** Real sockets on loopback for the runtime tests: one DNS query over UDP, HTTP health servers. */
import * as dgram from 'node:dgram';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as dnsPacket from 'dns-packet';

export interface DnsReply {
  rcode: string;
  answers: Array<{ type: string; name: string; data: unknown; ttl?: number }>;
}

/** One UDP query with dns-packet over a real socket. */
export function queryUdp(
  server: { address: string; port: number },
  name: string,
  type: 'A' | 'AAAA' | 'CNAME' | 'SOA' | 'NS' = 'A',
  timeoutMs = 2000,
): Promise<DnsReply> {
  return new Promise((resolve, reject) => {
    const sock = dgram.createSocket(server.address.includes(':') ? 'udp6' : 'udp4');
    const id = Math.floor(Math.random() * 65535);
    const t = setTimeout(() => {
      sock.close();
      reject(new Error(`DNS query for ${name} timed out`));
    }, timeoutMs);
    sock.on('message', (msg) => {
      const p = dnsPacket.decode(msg);
      if (p.id !== id) return;
      clearTimeout(t);
      sock.close();
      resolve({ rcode: (p as unknown as { rcode: string }).rcode, answers: (p.answers ?? []) as DnsReply['answers'] });
    });
    sock.send(dnsPacket.encode({ type: 'query', id, flags: 0, questions: [{ type, name, class: 'IN' }] }), server.port, server.address);
  });
}

/** The A records of an answer, sorted. */
export const aRecords = (r: DnsReply): string[] =>
  r.answers
    .filter((a) => a.type === 'A')
    .map((a) => String(a.data))
    .sort();

/** A real HTTP health endpoint: `GET /healthz` → 200 (or `status`), on host:port (port 0 = any). */
export async function healthServer(
  host: string,
  port = 0,
): Promise<{ server: Server; port: number; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    res.writeHead(req.url === '/healthz' ? 200 : 404, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    hits: () => hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Two health servers on the same port at two loopback addresses (a profile has one probe port). */
export async function healthServerPair(
  hostA: string,
  hostB: string,
): Promise<[Awaited<ReturnType<typeof healthServer>>, Awaited<ReturnType<typeof healthServer>>]> {
  for (let attempt = 0; ; attempt++) {
    const a = await healthServer(hostA);
    try {
      return [a, await healthServer(hostB, a.port)];
    } catch (err) {
      await a.close();
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20) throw err;
    }
  }
}
