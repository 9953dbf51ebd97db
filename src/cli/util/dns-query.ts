/**
 * One DNS query over UDP from the CLI (`tmkit drill` watches each node's answers): the record data of the
 * answer section, or the rcode when there is none. dns-packet encodes and decodes; no resolver in between.
 */
import * as dgram from 'node:dgram';
import * as dnsPacket from 'dns-packet';

export interface DnsServer {
  address: string;
  port: number;
}
export interface DnsAnswer {
  rcode: string;
  records: string[];
}

/** `ADDR:PORT` or `[v6]:PORT` as `/v1/nodes` lists it; an unspecified address (0.0.0.0, ::) is asked at `fallbackHost`. */
export function parseDnsAddress(text: string, fallbackHost: string): DnsServer | undefined {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(text) ?? /^([^:]+):(\d+)$/.exec(text);
  if (!m) return undefined;
  const address = m[1] === '0.0.0.0' || m[1] === '::' ? fallbackHost : m[1]!;
  return { address, port: Number(m[2]) };
}

/** Asks `server` for `name`; resolves with the answer's record data (A/AAAA addresses, CNAME targets), sorted. */
export function queryDns(server: DnsServer, name: string, type: 'A' | 'AAAA' = 'A', timeoutMs = 1_000): Promise<DnsAnswer> {
  return new Promise((resolve, reject) => {
    const sock = dgram.createSocket(server.address.includes(':') ? 'udp6' : 'udp4');
    const id = Math.floor(Math.random() * 65535);
    const done = (fn: () => void): void => {
      clearTimeout(t);
      sock.close();
      fn();
    };
    const t = setTimeout(
      () => done(() => reject(new Error(`no DNS answer from ${server.address}:${server.port} in ${timeoutMs} ms`))),
      timeoutMs,
    );
    sock.on('error', (err) => done(() => reject(err)));
    sock.on('message', (msg) => {
      let p: dnsPacket.Packet;
      try {
        p = dnsPacket.decode(msg);
      } catch {
        return;
      }
      if (p.id !== id) return;
      const records = (p.answers ?? [])
        .filter((a) => a.type === 'A' || a.type === 'AAAA' || a.type === 'CNAME')
        .map((a) =>
          String((a as { data?: unknown }).data)
            .replace(/\.$/, '')
            .toLowerCase(),
        )
        .sort();
      done(() => resolve({ rcode: String((p as unknown as { rcode?: string }).rcode ?? 'NOERROR'), records }));
    });
    sock.send(dnsPacket.encode({ type: 'query', id, flags: 0, questions: [{ type, name, class: 'IN' }] }), server.port, server.address);
  });
}
