/**
 * PROXY protocol v2 (issue 39 item 6): the header parsed as HAProxy's spec lays it out (property tests over
 * addresses, ports, TLVs and split points), then a real DnsServer on loopback with `proxyProtocolFrom`:
 * Subnet routing, the rate limiter and Traffic View see the carried client over UDP and TCP; a front without
 * a header and a header from any other address are dropped (and counted).
 */
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import fc from 'fast-check';
import { resolve } from '../../../src/core/routing';
import { DnsServer, ResponseRateLimiter } from '../../../src/runtime/dns';
import { encodeProxyV2, parseProxyV2, ProxySources, PROXY_V2_SIGNATURE } from '../../../src/runtime/dns/proxy-protocol';
import { ext, profile, snapshot } from '../../../src/testing/builders';
import { seededRng } from '../../../src/testing/rng';
import { buildQuery, framed } from './support';

const ZONE = 'tm.internal';

describe('parseProxyV2', () => {
  const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join('.'));
  const v6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((g) => g.map((x) => x.toString(16)).join(':'));
  const port = fc.nat(0xffff);

  test('reads back what was written, for IPv4 and IPv6, whole or cut anywhere (incomplete until whole), with TLVs after', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.tuple(v4, v4), fc.tuple(v6, v6)),
        port,
        port,
        fc.constantFrom('tcp' as const, 'udp' as const),
        fc.uint8Array({ maxLength: 40 }),
        fc.nat(200),
        ([source, destination], sourcePort, destinationPort, transport, tlv, cut) => {
          const header = encodeProxyV2({ source, sourcePort, destination, destinationPort, transport });
          // TLVs: the length field covers them; a reader skips them.
          const withTlv = Buffer.concat([header, tlv]);
          withTlv.writeUInt16BE(withTlv.length - 16, 14);
          const payload = Buffer.from('dns message');
          const whole = Buffer.concat([withTlv, payload]);
          const h = parseProxyV2(whole);
          expect(h.kind).toBe('proxy');
          if (h.kind !== 'proxy') return;
          expect(h.length).toBe(withTlv.length);
          expect(net.isIP(h.source)).toBe(net.isIP(source));
          expect(new ProxySources([source]).has(h.source)).toBe(true);
          expect(new ProxySources([destination]).has(h.destination)).toBe(true);
          expect([h.sourcePort, h.destinationPort]).toEqual([sourcePort, destinationPort]);
          expect(whole.subarray(h.length).equals(payload)).toBe(true);
          const at = cut % withTlv.length;
          expect(parseProxyV2(whole.subarray(0, at)).kind).toBe(at === 0 ? 'invalid' : 'incomplete');
        },
      ),
    );
  });

  test('LOCAL (a front health check) and the UNSPEC family keep the connection address; broken headers say why', () => {
    const local = Buffer.concat([PROXY_V2_SIGNATURE, Buffer.from([0x20, 0x00, 0, 0])]);
    expect(parseProxyV2(local)).toEqual({ kind: 'local', length: 16 });
    const unspec = Buffer.concat([PROXY_V2_SIGNATURE, Buffer.from([0x21, 0x00, 0, 0])]);
    expect(parseProxyV2(unspec)).toEqual({ kind: 'local', length: 16 });
    const v1 = Buffer.from('PROXY TCP4 192.0.2.1 192.0.2.2 1 2\r\n');
    expect(parseProxyV2(v1)).toMatchObject({ kind: 'invalid', reason: 'no PROXY v2 signature' });
    const badVersion = Buffer.concat([PROXY_V2_SIGNATURE, Buffer.from([0x31, 0x11, 0, 12]), Buffer.alloc(12)]);
    expect(parseProxyV2(badVersion)).toMatchObject({ kind: 'invalid', reason: 'PROXY protocol version 3 (only 2 is read)' });
    const short = Buffer.concat([PROXY_V2_SIGNATURE, Buffer.from([0x21, 0x11, 0, 4]), Buffer.alloc(4)]);
    expect(parseProxyV2(short)).toMatchObject({ kind: 'invalid' });
    const huge = Buffer.concat([PROXY_V2_SIGNATURE, Buffer.from([0x21, 0x11, 0xff, 0xff])]);
    expect(parseProxyV2(huge)).toMatchObject({ kind: 'invalid' });
  });

  test('IPv4-mapped IPv6 sources read as IPv4; the allow-list matches CIDRs of either family and refuses host bits', () => {
    const h = parseProxyV2(
      encodeProxyV2({ source: '::ffff:198.51.100.7', sourcePort: 1, destination: '::1', destinationPort: 53, transport: 'udp' }),
    );
    expect(h).toMatchObject({ kind: 'proxy', source: '198.51.100.7', destination: '::1' });
    const fronts = new ProxySources(['127.0.0.0/30', '2001:db8::/32']);
    expect(['127.0.0.1', '127.0.0.3', '::ffff:127.0.0.2', '2001:db8::5'].map((a) => fronts.has(a))).toEqual([true, true, true, true]);
    expect(['127.0.0.4', '10.0.0.1', '2001:db9::1', 'nonsense'].map((a) => fronts.has(a))).toEqual([false, false, false, false]);
    expect(() => new ProxySources(['127.0.0.1/8'])).toThrow(/proxyProtocolFrom\[0\].*host bits/);
  });
});

describe('a DnsServer behind a PROXY v2 front', () => {
  let server: DnsServer;
  let port: number;
  const FRONT = '127.0.0.1';

  beforeAll(async () => {
    // Subnet routing: each carried client has an endpoint of its own; anyone else gets the catch-all.
    const web = profile('web', 'Subnet', [
      ext('two', '192.0.2.2', { subnets: [{ first: '198.51.100.2', scope: 32 }] }),
      ext('three', '192.0.2.3', { subnets: [{ first: '198.51.100.3', scope: 32 }] }),
      ext('v6', '192.0.2.6', { subnets: [{ first: '2001:db8::6', scope: 128 }] }),
      ext('rest', '192.0.2.99', { subnets: [] }),
    ]);
    server = new DnsServer({
      zone: ZONE,
      snapshot: snapshot([web], { zone: ZONE }),
      resolve,
      rng: seededRng(3),
      listen: [{ address: '127.0.0.1', port: 0 }],
      proxyProtocolFrom: [`${FRONT}/32`],
      // Limiting by the carried /24: one client's flood must not limit another behind the same front.
      rrl: new ResponseRateLimiter({ rate: 5, slip: 0, mode: 'enforce' }),
      tcp: { messageTimeoutMs: 500 },
    });
    await server.start();
    port = server.address().port;
  });
  afterAll(() => server.close());

  const query = (id: number): Buffer => buildQuery(id, `web.${ZONE}`, 1);
  const header = (source: string, transport: 'tcp' | 'udp'): Buffer =>
    encodeProxyV2({ source, sourcePort: 40000, destination: net.isIPv6(source) ? '::1' : '127.0.0.1', destinationPort: port, transport });

  /** One datagram from `from` (bound), the answer's A record as text, or null when nothing came back. */
  async function udpFrom(from: string, data: Buffer, timeoutMs = 600): Promise<string | null> {
    const sock = dgram.createSocket('udp4');
    await new Promise<void>((r) => sock.bind({ address: from, port: 0 }, () => r()));
    try {
      return await new Promise<string | null>((done) => {
        const t = setTimeout(() => done(null), timeoutMs);
        sock.on('message', (m) => {
          clearTimeout(t);
          done(m.readUInt16BE(6) === 0 ? 'no answer' : [...m.subarray(m.length - 4)].join('.'));
        });
        sock.send(data, port, '127.0.0.1');
      });
    } finally {
      sock.close();
    }
  }

  /** One TCP connection from `from` writing `data`; the first answer's A record, or null when closed without one. */
  function tcpFrom(from: string, data: Buffer[], timeoutMs = 2000): Promise<string | null> {
    return new Promise((done) => {
      const sock = net.connect({ host: '127.0.0.1', port, localAddress: from });
      let buf = Buffer.alloc(0);
      const t = setTimeout(() => {
        sock.destroy();
        done(null);
      }, timeoutMs);
      sock.on('connect', async () => {
        // Written in pieces: the header may arrive cut anywhere.
        for (const d of data) {
          sock.write(d);
          await new Promise((r) => setTimeout(r, 20));
        }
      });
      sock.on('data', (c) => {
        buf = Buffer.concat([buf, c]);
        if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          clearTimeout(t);
          sock.destroy();
          done([...buf.subarray(buf.length - 4)].join('.'));
        }
      });
      sock.on('error', () => undefined);
      sock.on('close', () => {
        clearTimeout(t);
        done(null);
      });
    });
  }

  test('over UDP each carried client gets its own Subnet endpoint (IPv4 and IPv6 carried over an IPv4 front)', async () => {
    expect(await udpFrom(FRONT, Buffer.concat([header('198.51.100.2', 'udp'), query(1)]))).toBe('192.0.2.2');
    expect(await udpFrom(FRONT, Buffer.concat([header('198.51.100.3', 'udp'), query(2)]))).toBe('192.0.2.3');
    expect(await udpFrom(FRONT, Buffer.concat([header('2001:db8::6', 'udp'), query(3)]))).toBe('192.0.2.6');
  });

  test('over TCP too, with the header and the message split across writes', async () => {
    const h = header('198.51.100.3', 'tcp');
    expect(await tcpFrom(FRONT, [h.subarray(0, 5), h.subarray(5, 20), Buffer.concat([h.subarray(20), framed(query(4))])])).toBe(
      '192.0.2.3',
    );
    expect(await tcpFrom(FRONT, [Buffer.concat([header('198.51.100.2', 'tcp'), framed(query(5))])])).toBe('192.0.2.2');
  });

  test('from the front without a header, or with a broken one: dropped over UDP, closed over TCP, counted', async () => {
    const before = server.stats.proxyMissing;
    expect(await udpFrom(FRONT, query(6))).toBeNull();
    expect(await tcpFrom(FRONT, [framed(query(7))])).toBeNull();
    expect(server.stats.proxyMissing).toBe(before + 2);
  });

  test('a header from an address that is not a front is refused (UDP dropped, TCP closed); its plain queries are answered', async () => {
    const before = server.stats.proxyRefused;
    expect(await udpFrom('127.0.0.9', Buffer.concat([header('198.51.100.2', 'udp'), query(8)]))).toBeNull();
    expect(await tcpFrom('127.0.0.9', [Buffer.concat([header('198.51.100.2', 'tcp'), framed(query(9))])])).toBeNull();
    expect(server.stats.proxyRefused).toBe(before + 2);
    // Not a front: its own address routes (the catch-all), header or not.
    expect(await udpFrom('127.0.0.9', query(10))).toBe('192.0.2.99');
    expect(await tcpFrom('127.0.0.9', [framed(query(11))])).toBe('192.0.2.99');
  });

  test('the rate limiter counts the carried client: one flooding client is limited, another behind the same front is not', async () => {
    const flooded = await Promise.all(
      Array.from({ length: 30 }, (_, i) => udpFrom(FRONT, Buffer.concat([header('203.0.113.5', 'udp'), query(100 + i)]))),
    );
    const answered = flooded.filter((a) => a !== null).length;
    expect(answered).toBeLessThan(30);
    expect(answered).toBeGreaterThanOrEqual(5);
    const other = await Promise.all(
      Array.from({ length: 5 }, (_, i) => udpFrom(FRONT, Buffer.concat([header('198.51.100.2', 'udp'), query(200 + i)]))),
    );
    expect(other).toEqual(Array(5).fill('192.0.2.2'));
  });
});
