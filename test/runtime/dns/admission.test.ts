/**
 * What a query passes before it is answered (issue 39): DNS cookies (RFC 7873, RFC 9018 server cookies),
 * response rate limiting (NSD/Knot RRL) and minimal ANY (RFC 8482), through a real DnsServer on loopback,
 * with the real `dig` and raw UDP clients bound to distinct 127.0.0.x source addresses.
 */
import * as dgram from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { CookieJar, DnsServer, ResponseRateLimiter, ZoneSigner, loadKeySet, newKeySet, type RrlOptions } from '../../../src/runtime/dns';
import { seededRng } from '../../../src/testing/rng';
import { ZONE, buildQuery, dig, emptySnapshot, optRecord, standardTable, tableResolver, udpExchange } from './support';

const SECRET = randomBytes(16);

async function start(o: { rrl?: RrlOptions; cookies?: boolean } = {}): Promise<{ server: DnsServer; port: number }> {
  const server = new DnsServer({
    zone: ZONE,
    soa: { mname: 'ns1.tm.internal', rname: 'hostmaster.tm.internal', serial: 2026010101, ttl: 300, minimum: 30 },
    nsNames: ['ns1.tm.internal', 'ns2.tm.internal'],
    snapshot: emptySnapshot(),
    resolve: tableResolver(standardTable()),
    rng: seededRng(7),
    listen: [{ address: '127.0.0.1', port: 0 }],
    ...(o.cookies !== false ? { cookies: new CookieJar(SECRET) } : {}),
    ...(o.rrl ? { rrl: new ResponseRateLimiter(o.rrl) } : {}),
  });
  await server.start();
  return { server, port: server.address().port };
}

/** The COOKIE option (code 10) with `data` (client cookie, then maybe a server cookie). */
const cookieOption = (data: Buffer): Buffer => Buffer.concat([Buffer.from([0, 10, 0, data.length]), data]);

/** The COOKIE option's data in a response, or undefined. */
function responseCookie(resp: Buffer): Buffer | undefined {
  const i = resp.indexOf(Buffer.from([0, 10, 0, 24]));
  return i < 0 ? undefined : resp.subarray(i + 4, i + 28);
}

/** Extended rcode: header rcode | OPT's upper 8 bits << 4 (the OPT is the last record: TTL at its byte 5). */
function extendedRcode(resp: Buffer): number {
  const opt = resp.indexOf(Buffer.from([0, 0, 41]));
  return (resp[3]! & 0x0f) | (opt >= 0 ? resp[opt + 5]! << 4 : 0);
}

/**
 * Sends `count` copies of `query` from one UDP socket bound to `from`, spread evenly over `spreadMs` (in
 * batches every 10 ms, so neither side's socket buffer overflows), and counts what comes back until
 * `windowMs` after the last: full answers, truncated (TC) ones, others, and bytes.
 */
async function flood(
  port: number,
  from: string,
  query: Buffer,
  count: number,
  spreadMs = 1000,
  windowMs = 800,
): Promise<{ full: number; tc: number; other: number; bytesIn: number; bytesOut: number }> {
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind({ address: from, port: 0 }, () => r()));
  const got = { full: 0, tc: 0, other: 0, bytesIn: 0, bytesOut: 0 };
  sock.on('message', (m) => {
    got.bytesIn += m.length;
    if (m[2]! & 0x02) got.tc++;
    else if ((m[3]! & 0x0f) === 0) got.full++;
    else got.other++;
  });
  const batches = Math.max(1, Math.floor(spreadMs / 10));
  const perBatch = Math.ceil(count / batches);
  const t0 = performance.now();
  for (let sent = 0, b = 0; sent < count; b++) {
    for (let i = 0; i < perBatch && sent < count; i++, sent++) {
      const q = Buffer.from(query);
      q.writeUInt16BE(sent & 0xffff, 0);
      got.bytesOut += q.length;
      sock.send(q, port, '127.0.0.1');
    }
    const wait = t0 + (b + 1) * 10 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await new Promise((r) => setTimeout(r, windowMs));
  sock.close();
  return got;
}

describe('DNS cookies (RFC 7873, RFC 9018)', () => {
  let s: { server: DnsServer; port: number };
  beforeAll(async () => {
    s = await start();
  });
  afterAll(() => s.server.close());

  test('dig +cookie learns a server cookie, and sending it back shows (good)', async () => {
    const first = await dig(['@127.0.0.1', '-p', String(s.port), 'v4.tm.internal', '+cookie']);
    expect(first.status).toBe('NOERROR');
    const learned = /; COOKIE: ([0-9a-f]+) \(good\)/.exec(first.raw);
    expect(learned).not.toBeNull();
    expect(learned![1]).toHaveLength(48); // 8-byte client cookie + 16-byte server cookie
    expect(learned![1]!.slice(16, 18)).toBe('01'); // version 1 (RFC 9018)
    const again = await dig(['@127.0.0.1', '-p', String(s.port), 'v4.tm.internal', `+cookie=${learned![1]}`]);
    expect(again.raw).toContain(`; COOKIE: ${learned![1]} (good)`);
    expect(again.answer.length).toBeGreaterThan(0);
  });

  test('a client cookie alone gets the full answer and a server cookie that verifies', async () => {
    const client = randomBytes(8);
    const resp = await udpExchange(
      '127.0.0.1',
      s.port,
      buildQuery(1, 'v4.tm.internal', 1, { additional: optRecord(1232, 0, cookieOption(client)) }),
    );
    expect(resp![3]! & 0x0f).toBe(0);
    expect(resp!.readUInt16BE(6)).toBeGreaterThan(0);
    const c = responseCookie(resp!)!;
    expect(c.subarray(0, 8)).toEqual(client);
    expect(new CookieJar(SECRET).check(client, c.subarray(8), '127.0.0.1', Math.floor(Date.now() / 1000))).toBe('valid');
  });

  test('a forged server cookie is answered in full with a fresh one (no BADCOOKIE without rate limiting)', async () => {
    const client = randomBytes(8);
    const forged = Buffer.concat([client, Buffer.from([1, 0, 0, 0]), randomBytes(12)]);
    const resp = await udpExchange(
      '127.0.0.1',
      s.port,
      buildQuery(2, 'v4.tm.internal', 1, { additional: optRecord(1232, 0, cookieOption(forged)) }),
    );
    expect(extendedRcode(resp!)).toBe(0);
    expect(responseCookie(resp!)!.subarray(8)).not.toEqual(forged.subarray(8));
  });

  test('a cookie beside a Client Subnet option: both echoed, each with its own length (dig reads the answer)', async () => {
    const r = await dig(['@127.0.0.1', '-p', String(s.port), 'v4.tm.internal', '+subnet=81.2.69.0/24', '+cookie']);
    expect(r.raw).not.toMatch(/malformed|bad packet/i);
    expect(r.clientSubnet).toBe('81.2.69.0/24/0');
    expect(r.raw).toMatch(/; COOKIE: [0-9a-f]{48} \(good\)/);
    expect(r.answer.length).toBeGreaterThan(0);
  });

  test('a malformed COOKIE option (9 octets) is FORMERR', async () => {
    const resp = await udpExchange(
      '127.0.0.1',
      s.port,
      buildQuery(3, 'v4.tm.internal', 1, { additional: optRecord(1232, 0, cookieOption(randomBytes(9))) }),
    );
    expect(resp![3]! & 0x0f).toBe(1);
  });

  test('--no-cookies: the option is ignored (answered, no COOKIE echoed)', async () => {
    const off = await start({ cookies: false });
    try {
      const resp = await udpExchange(
        '127.0.0.1',
        off.port,
        buildQuery(4, 'v4.tm.internal', 1, { additional: optRecord(1232, 0, cookieOption(randomBytes(8))) }),
      );
      expect(resp![3]! & 0x0f).toBe(0);
      expect(responseCookie(resp!)).toBeUndefined();
    } finally {
      await off.server.close();
    }
  });
});

describe('response rate limiting', () => {
  const RRL: RrlOptions = { rate: 20, slip: 2, mode: 'enforce' };

  test('2,000 identical queries from one address: about rate answered, the rest half TC, half dropped; reflected < received', async () => {
    const s = await start({ rrl: RRL });
    try {
      const q = buildQuery(1, 'v4.tm.internal', 1, { additional: optRecord(1232) });
      const got = await flood(s.port, '127.0.0.1', q, 2000);
      expect(got.full).toBeGreaterThanOrEqual(18);
      expect(got.full).toBeLessThanOrEqual(45);
      expect(got.tc).toBeGreaterThan(800);
      expect(got.tc).toBeLessThan(1100);
      expect(got.bytesIn / got.bytesOut).toBeLessThan(1);
      expect(s.server.stats.rrlSlipped).toBe(got.tc);
      expect(s.server.stats.rrlDropped).toBeGreaterThan(800);
    } finally {
      await s.server.close();
    }
  });

  test('a client in another prefix is answered in full during the flood; TCP is never limited', async () => {
    const s = await start({ rrl: RRL });
    try {
      const q = buildQuery(1, 'v4.tm.internal', 1, { additional: optRecord(1232) });
      const [flooded, other] = await Promise.all([
        flood(s.port, '127.0.0.1', q, 1500),
        (async () => {
          await new Promise((r) => setTimeout(r, 100));
          return flood(s.port, '127.0.1.7', q, 10, 500);
        })(),
      ]);
      expect(flooded.tc).toBeGreaterThan(0);
      expect(other.full).toBe(10);
      const tcp = await dig(['@127.0.0.1', '-p', String(s.port), 'v4.tm.internal', '+tcp']);
      expect(tcp.status).toBe('NOERROR');
      expect(tcp.answer.length).toBeGreaterThan(0);
    } finally {
      await s.server.close();
    }
  });

  test('a client that returns our server cookie is answered in full at 1,000 q/s; one that only speaks cookies gets BADCOOKIE', async () => {
    const s = await start({ rrl: RRL });
    try {
      const client = randomBytes(8);
      const first = await udpExchange(
        '127.0.0.1',
        s.port,
        buildQuery(1, 'v4.tm.internal', 1, { additional: optRecord(1232, 0, cookieOption(client)) }),
      );
      const full = responseCookie(first!)!;
      const withCookie = buildQuery(1, 'v4.tm.internal', 1, { additional: optRecord(1232, 0, cookieOption(Buffer.from(full))) });
      const got = await flood(s.port, '127.0.0.1', withCookie, 1000);
      expect(got.full).toBe(1000);
      expect(s.server.stats.cookiesValid).toBeGreaterThanOrEqual(1000);
      // Same prefix, a client cookie but no server cookie: limited, and told to come back with ours.
      const clientOnly = buildQuery(1, 'v4.tm.internal', 1, { additional: optRecord(1232, 0, cookieOption(randomBytes(8))) });
      await flood(s.port, '127.0.0.2', clientOnly, 200, 200);
      expect(s.server.stats.badCookies).toBeGreaterThan(0);
    } finally {
      await s.server.close();
    }
  });

  test('log mode answers everything and counts what it would have limited', async () => {
    const s = await start({ rrl: { ...RRL, mode: 'log' } });
    try {
      const got = await flood(s.port, '127.0.0.1', buildQuery(1, 'v4.tm.internal', 1), 500);
      expect(got.full).toBe(500);
      expect(s.server.stats.rrlWouldLimit).toBeGreaterThan(400);
      expect(s.server.stats.rrlSlipped + s.server.stats.rrlDropped).toBe(0);
    } finally {
      await s.server.close();
    }
  });
});

describe('ANY (RFC 8482)', () => {
  let s: { server: DnsServer; port: number };
  beforeAll(async () => {
    s = await start();
  });
  afterAll(() => s.server.close());

  test('over UDP the apex ANY gets one RRset (the SOA); over TCP all of them', async () => {
    const udp = await dig(['@127.0.0.1', '-p', String(s.port), ZONE, 'ANY', '+notcp', '+nocookie']);
    expect(udp.answer.map((r) => r[3])).toEqual(['SOA']);
    expect(udp.additional).toEqual([]);
    const tcp = await dig(['@127.0.0.1', '-p', String(s.port), ZONE, 'ANY', '+tcp']);
    expect(tcp.answer.map((r) => r[3]).sort()).toEqual(['NS', 'NS', 'SOA']);
  });

  test('an ANY over UDP is under 10x the query size', async () => {
    const q = buildQuery(9, ZONE, 255, { additional: optRecord(4096) });
    const resp = await udpExchange('127.0.0.1', s.port, q);
    expect(resp!.length / q.length).toBeLessThan(10);
  });
});

describe('bounded signing under a random-name flood', () => {
  test('over the signing budget a denial goes out with TC (not cached, not SERVFAIL); TCP gets it signed; real names keep flowing', async () => {
    const { keys } = loadKeySet(newKeySet(ZONE, { algorithm: 13, split: false }, Date.now() - 3_600_000), 'test keys');
    const server = new DnsServer({
      zone: ZONE,
      snapshot: emptySnapshot(),
      resolve: tableResolver(standardTable()),
      rng: seededRng(7),
      listen: [{ address: '127.0.0.1', port: 0 }],
    });
    server.responder.setSigner(new ZoneSigner(keys, { zone: ZONE, signRate: 20 }));
    await server.start();
    const port = server.address().port;
    try {
      const doOpt = (): Buffer => {
        const o = optRecord(1232);
        o[7] = 0x80; // DO
        return o;
      };
      let tc = 0;
      let servfail = 0;
      for (let i = 0; i < 200; i++) {
        const r = await udpExchange(
          '127.0.0.1',
          port,
          buildQuery(i, `r${i}-${randomBytes(4).toString('hex')}.tm.internal`, 1, { additional: doOpt() }),
        );
        if (r![2]! & 0x02) tc++;
        if ((r![3]! & 0x0f) === 2) servfail++;
      }
      expect(servfail).toBe(0);
      expect(tc).toBeGreaterThan(150); // about 20 signed within the budget, the rest refused with TC
      expect(server.stats.signRefused).toBe(tc);
      // The client's TCP retry is signed anyway.
      const viaTcp = await dig([
        '@127.0.0.1',
        '-p',
        String(port),
        '+dnssec',
        '+tcp',
        `late-${randomBytes(4).toString('hex')}.tm.internal`,
        'A',
      ]);
      expect(viaTcp.flags).not.toContain('tc');
      expect(viaTcp.authority.map((r) => r[3])).toContain('NSEC');
      // A real name is answered in full over UDP, signed.
      const real = await dig(['@127.0.0.1', '-p', String(port), '+dnssec', '+notcp', 'v4.tm.internal', 'A']);
      expect(real.flags).not.toContain('tc');
      expect(real.answer.map((r) => r[3])).toContain('RRSIG');
    } finally {
      await server.close();
    }
  });
});
