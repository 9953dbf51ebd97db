/**
 * Bench helpers shared by config-latency.ts and scale.ts: a UDP DNS querier (A records of one name, 1 s
 * timeout → no answer) and the percentile both report.
 */
import * as dgram from 'node:dgram';
import * as dnsPacket from 'dns-packet';

export interface Querier {
  /** The A records DNS answers for `name` now ([] on timeout or no A record). */
  query(name: string): Promise<string[]>;
  close(): void;
}

export function makeQuerier(port: number): Querier {
  const sock = dgram.createSocket('udp4');
  let id = 0;
  const waiting = new Map<number, (a: string[]) => void>();
  sock.on('message', (msg) => {
    const p = dnsPacket.decode(msg);
    const cb = waiting.get(p.id!);
    if (!cb) return;
    waiting.delete(p.id!);
    cb((p.answers ?? []).filter((a) => a.type === 'A').map((a) => String((a as { data: unknown }).data)));
  });
  return {
    query(name: string): Promise<string[]> {
      id = (id + 1) & 0xffff;
      const myId = id;
      return new Promise((resolve) => {
        const t = setTimeout(() => {
          waiting.delete(myId);
          resolve([]);
        }, 1000);
        waiting.set(myId, (a) => {
          clearTimeout(t);
          resolve(a);
        });
        sock.send(dnsPacket.encode({ type: 'query', id: myId, questions: [{ type: 'A', name, class: 'IN' }] }), port, '127.0.0.1');
      });
    },
    close: () => sock.close(),
  };
}

/** The p-th percentile (nearest rank) of xs. */
export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
