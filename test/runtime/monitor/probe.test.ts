/**
 * The real probe against real loopback servers: status codes, redirects, headers (asserted on the server),
 * HTTPS with a self-signed certificate, TCP, and hostile endpoints (hung, trickling, huge, resetting,
 * broken TLS, unresolvable) that must fail within the timeout without holding anything open.
 */
import type { Socket } from 'node:net';
import { probe } from '../../../src/runtime/monitor/probe';
import { ProbeResolver } from '../../../src/runtime/monitor/resolver';
import { closed, httpServer, httpsServer, selfSignedCert, target, tcpServer, type Running } from './servers';
import { waitFor } from '../../support/wait';

const H1 = '127.0.0.2';
const H2 = '127.0.0.3';

describe('HTTP status codes and redirects', () => {
  let srv: Awaited<ReturnType<typeof httpServer>>;
  beforeAll(async () => {
    srv = await httpServer(H1, (req, res) => {
      const code = Number(/^\/status\/(\d+)/.exec(req.url)?.[1] ?? 200);
      if (code === 301 || code === 302) res.setHeader('Location', '/status/200');
      res.writeHead(code).end('body');
    });
  });
  afterAll(() => srv.close());

  test.each<[number, Array<{ min: number; max: number }>, boolean]>([
    [200, [{ min: 200, max: 200 }], true],
    [201, [{ min: 200, max: 200 }], false],
    [204, [{ min: 200, max: 299 }], true],
    [301, [{ min: 200, max: 200 }], false],
    [302, [{ min: 200, max: 299 }], false],
    [
      302,
      [
        { min: 200, max: 200 },
        { min: 302, max: 302 },
      ],
      true,
    ],
    [404, [{ min: 200, max: 200 }], false],
    [503, [{ min: 200, max: 299 }], false],
    [503, [{ min: 500, max: 599 }], true],
    // the ranges add to 200 (behaviors.md §8): 200 stays healthy with ranges that do not contain it
    [200, [{ min: 300, max: 399 }], true],
    [301, [{ min: 300, max: 399 }], true],
    [201, [{ min: 300, max: 399 }], false],
  ])('status %i with ranges %j -> ok=%s', async (code, ranges, ok) => {
    const before = srv.requests.length;
    const out = await probe(target({ target: H1, port: srv.port, path: `/status/${code}`, expectedStatusCodeRanges: ranges }));
    expect(out).toMatchObject({ ok, reason: `status ${code}`, statusCode: code, address: H1 });
    // exactly one request: redirects are not followed
    expect(srv.requests.slice(before).map((r) => r.url)).toEqual([`/status/${code}`]);
  });
});

describe('request shape, asserted on the server', () => {
  test('GET, path, profile headers overridden by endpoint headers, Host = FQDN target', async () => {
    // the FQDN goes through the probes' resolver (hosts file, then DNS): listen where it says `localhost` is
    const [first] = await new ProbeResolver().lookup('localhost');
    const srv = await httpServer(first!.address, (_r, res) => res.writeHead(200).end());
    try {
      const out = await probe(
        target({
          target: 'localhost',
          port: srv.port,
          path: '/health?x=1',
          headers: [
            { name: 'X-Env', value: 'endpoint' },
            { name: 'X-Profile', value: 'p' },
            { name: 'Host', value: 'localhost' },
          ],
        }),
      );
      expect(out).toMatchObject({ ok: true, address: first!.address });
      expect(srv.requests).toHaveLength(1);
      const r = srv.requests[0]!;
      expect(r.method).toBe('GET');
      expect(r.url).toBe('/health?x=1');
      expect(r.headers.host).toBe('localhost');
      expect(r.headers['x-env']).toBe('endpoint');
      expect(r.headers['x-profile']).toBe('p');
      expect(r.headers['content-length'] ?? '0').toBe('0');
    } finally {
      await srv.close();
    }
  });

  test('a custom Host header is sent as given', async () => {
    const srv = await httpServer(H1, (_r, res) => res.writeHead(200).end());
    try {
      await probe(target({ target: H1, port: srv.port, headers: [{ name: 'host', value: 'contoso.com' }] }));
      expect(srv.requests[0]!.headers.host).toBe('contoso.com');
    } finally {
      await srv.close();
    }
  });

  test('IP target without a Host header: the literal and port', async () => {
    const srv = await httpServer(H1, (_r, res) => res.writeHead(200).end());
    try {
      await probe(target({ target: H1, port: srv.port }));
      expect(srv.requests[0]!.headers.host).toBe(`${H1}:${srv.port}`);
    } finally {
      await srv.close();
    }
  });

  test('IPv6 literal target (in brackets in the URL)', async () => {
    const srv = await httpServer('::1', (_r, res) => res.writeHead(200).end());
    try {
      const out = await probe(target({ target: '::1', port: srv.port }));
      expect(out).toMatchObject({ ok: true, address: '::1', reason: 'status 200' });
      expect(srv.requests[0]!.headers.host).toBe(`[::1]:${srv.port}`);
    } finally {
      await srv.close();
    }
  });

  test('an FQDN that resolves to IPv6: bracketed address, Host is still the name', async () => {
    const srv = await httpServer('::1', (_r, res) => res.writeHead(200).end());
    try {
      const lookups: string[] = [];
      const out = await probe(target({ target: 'v6.example.test', port: srv.port }), {
        lookup: async (name) => {
          lookups.push(name);
          return [{ address: '::1', family: 6 }];
        },
      });
      expect(out).toMatchObject({ ok: true, address: '::1' });
      expect(lookups).toEqual(['v6.example.test']);
      expect(srv.requests[0]!.headers.host).toBe('v6.example.test');
    } finally {
      await srv.close();
    }
  });

  test('each probe uses a fresh connection that is closed afterwards (no keep-alive)', async () => {
    const srv = await httpServer(H1, (_r, res) => res.writeHead(200).end());
    try {
      for (let i = 0; i < 3; i++) expect((await probe(target({ target: H1, port: srv.port }))).ok).toBe(true);
      expect(srv.accepted).toHaveLength(3);
      await Promise.all(srv.accepted.map(closed));
    } finally {
      await srv.close();
    }
  });
});

describe('HTTPS', () => {
  const cert = selfSignedCert('localhost');

  test('self-signed certificate is accepted (presence only), status decides', async () => {
    const srv = await httpsServer(H1, cert, (req, res) => res.writeHead(req.url === '/down' ? 503 : 200).end());
    try {
      expect(await probe(target({ target: H1, port: srv.port, protocol: 'HTTPS' }))).toMatchObject({ ok: true, reason: 'status 200' });
      expect(await probe(target({ target: H1, port: srv.port, protocol: 'HTTPS', path: '/down' }))).toMatchObject({
        ok: false,
        reason: 'status 503',
      });
      expect(srv.requests).toHaveLength(2);
    } finally {
      await srv.close();
    }
  });

  test('HTTPS to a plain HTTP server is a TLS error', async () => {
    const srv = await httpServer(H1, (_r, res) => res.writeHead(200).end());
    try {
      expect(await probe(target({ target: H1, port: srv.port, protocol: 'HTTPS' }))).toMatchObject({ ok: false, reason: 'TLS error' });
    } finally {
      await srv.close();
    }
  });

  test('garbage instead of a TLS handshake is a TLS error', async () => {
    const srv = await tcpServer(H1, (s) => s.end('this is not TLS at all\r\n\r\n'.repeat(20)));
    try {
      expect(await probe(target({ target: H1, port: srv.port, protocol: 'HTTPS' }))).toMatchObject({ ok: false, reason: 'TLS error' });
    } finally {
      await srv.close();
    }
  });

  test('a TLS server that hangs the handshake times out', async () => {
    const srv = await tcpServer(H1);
    try {
      const out = await probe(target({ target: H1, port: srv.port, protocol: 'HTTPS' }), { timeoutMs: 400 });
      expect(out).toMatchObject({ ok: false, reason: 'timeout' });
      await Promise.all(srv.accepted.map(closed));
    } finally {
      await srv.close();
    }
  });
});

describe('TCP', () => {
  test('connect succeeds, then the prober closes the connection', async () => {
    const srv = await tcpServer(H1);
    try {
      const out = await probe(target({ target: H1, port: srv.port, protocol: 'TCP' }));
      expect(out).toMatchObject({ ok: true, reason: 'connected', address: H1 });
      await waitFor(() => srv.accepted.length === 1, { what: 'accepted connection', timeoutMs: 5000, intervalMs: 10 });
      await closed(srv.accepted[0]!);
    } finally {
      await srv.close();
    }
  });

  test('after the handshake the prober resets the connection (RST, as the monitoring page says), not FIN', async () => {
    // The server records how its side of the connection ended: a FIN arrives as 'end', an RST as ECONNRESET.
    const ended: Array<Promise<string>> = [];
    const srv = await tcpServer(H1, (s) => {
      ended.push(
        new Promise<string>((resolve) => {
          s.on('end', () => resolve('end (FIN)'));
          s.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
          s.on('close', () => resolve('close without end or error'));
          s.resume();
        }),
      );
    });
    try {
      for (let i = 0; i < 3; i++) {
        expect(await probe(target({ target: H1, port: srv.port, protocol: 'TCP' }))).toMatchObject({ ok: true, reason: 'connected' });
      }
      await waitFor(() => ended.length === 3, { what: 'three accepted connections', timeoutMs: 5000, intervalMs: 10 });
      expect(await Promise.all(ended)).toEqual(['error ECONNRESET', 'error ECONNRESET', 'error ECONNRESET']);
    } finally {
      await srv.close();
    }
  });

  test('closed port: connection refused', async () => {
    const srv = await tcpServer(H1);
    const port = srv.port;
    await srv.close();
    expect(await probe(target({ target: H1, port, protocol: 'TCP' }))).toMatchObject({ ok: false, reason: 'connection refused' });
    expect(await probe(target({ target: H1, port, protocol: 'HTTP' }))).toMatchObject({ ok: false, reason: 'connection refused' });
  });
});

describe('hostile endpoints never outlive the timeout and leave nothing open', () => {
  const TIMEOUT = 600;
  let servers: Running<unknown>[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers = [];
  });
  const keep = <T extends Running<unknown>>(s: T): T => {
    servers.push(s);
    return s;
  };

  test('hung: accepts, never answers', async () => {
    const srv = keep(await tcpServer(H1));
    const out = await probe(target({ target: H1, port: srv.port }), { timeoutMs: TIMEOUT });
    expect(out).toMatchObject({ ok: false, reason: 'timeout' });
    expect(out.latencyMs).toBeGreaterThanOrEqual(TIMEOUT - 20);
    expect(out.latencyMs).toBeLessThan(TIMEOUT + 2000);
    await Promise.all(srv.accepted.map(closed)); // the prober closed its side
  });

  test('trickle: status line then one byte at a time', async () => {
    const timers: NodeJS.Timeout[] = [];
    const srv = keep(
      await tcpServer(H1, (s) => {
        s.once('data', () => {
          s.write('HTTP/1.1 200 OK\r\n');
          const t = setInterval(() => {
            if (!s.destroyed) s.write('X');
          }, 50);
          timers.push(t);
          s.on('close', () => clearInterval(t));
        });
      }),
    );
    try {
      const out = await probe(target({ target: H1, port: srv.port }), { timeoutMs: TIMEOUT });
      expect(out).toMatchObject({ ok: false, reason: 'timeout' });
      expect(out.latencyMs).toBeLessThan(TIMEOUT + 2000);
      await Promise.all(srv.accepted.map(closed));
    } finally {
      timers.forEach(clearInterval);
    }
  });

  test('huge body: success on the status alone, body never read to the end', async () => {
    let written = 0;
    const sockets: Socket[] = [];
    const srv = keep(
      await tcpServer(H1, (s) => {
        sockets.push(s);
        s.once('data', () => {
          s.write('HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n');
          const chunk = Buffer.alloc(64 * 1024, 97);
          const pump = (): void => {
            while (!s.destroyed && s.write(chunk)) written += chunk.length;
          };
          s.on('drain', pump);
          pump();
        });
      }),
    );
    const out = await probe(target({ target: H1, port: srv.port }), { timeoutMs: 5000 });
    expect(out).toMatchObject({ ok: true, reason: 'status 200' });
    await Promise.all(sockets.map(closed));
    expect(written).toBeLessThan(200 * 1024 * 1024); // stopped long before 10 GB
  });

  test('huge headers: a failure, not a memory problem', async () => {
    const srv = keep(
      await tcpServer(H1, (s) =>
        s.once('data', () => {
          s.write(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
        }),
      ),
    );
    const out = await probe(target({ target: H1, port: srv.port }), { timeoutMs: 5000 });
    expect(out.ok).toBe(false);
    expect(out.reason).toMatch(/headers too large|invalid response/);
  });

  test('reset on accept', async () => {
    const srv = keep(await tcpServer(H1, (s) => s.resetAndDestroy()));
    expect(await probe(target({ target: H1, port: srv.port }), { timeoutMs: 5000 })).toMatchObject({
      ok: false,
      reason: 'connection reset',
    });
  });

  test('reset after reading the request', async () => {
    const srv = keep(await tcpServer(H1, (s) => s.once('data', () => s.resetAndDestroy())));
    expect(await probe(target({ target: H1, port: srv.port }), { timeoutMs: 5000 })).toMatchObject({
      ok: false,
      reason: 'connection reset',
    });
  });

  test('not HTTP at all', async () => {
    const srv = keep(await tcpServer(H1, (s) => s.once('data', () => s.end('SSH-2.0-OpenSSH_9.6\r\n'))));
    const out = await probe(target({ target: H1, port: srv.port }), { timeoutMs: 5000 });
    expect(out.ok).toBe(false);
    expect(out.reason).toBe('invalid response');
  });

  test('resolver that returns no addresses, and one that hangs', async () => {
    const t = target({ target: 'empty.example', port: 80 });
    expect(await probe(t, { lookup: async () => [] })).toMatchObject({ ok: false, reason: 'DNS: no address' });
    const out = await probe(t, { timeoutMs: 300, lookup: () => new Promise(() => {}) });
    expect(out).toMatchObject({ ok: false, reason: 'timeout' });
  });

  test('hung endpoints do not stall a healthy probe running alongside', async () => {
    const hung = keep(await tcpServer(H1));
    const good = keep(await httpServer(H2, (_r, res) => res.writeHead(200).end()));
    let hungDone = 0;
    const hungProbes = Array.from({ length: 50 }, () =>
      probe(target({ target: H1, port: hung.port }), { timeoutMs: 4000 }).then((o) => {
        hungDone++;
        return o;
      }),
    );
    const ok = await probe(target({ target: H2, port: good.port }), { timeoutMs: 4000 });
    expect(ok).toMatchObject({ ok: true });
    expect(hungDone).toBe(0);
    const outs = await Promise.all(hungProbes);
    expect(new Set(outs.map((o) => o.reason))).toEqual(new Set(['timeout']));
    await waitFor(() => hung.open.size === 0, { what: 'hung sockets closed', timeoutMs: 10000, intervalMs: 10 });
  });

  test('an outer abort ends the probe at once', async () => {
    const srv = keep(await tcpServer(H1));
    const ac = new AbortController();
    const p = probe(target({ target: H1, port: srv.port }), { timeoutMs: 30000, signal: ac.signal });
    await waitFor(() => srv.accepted.length === 1, { what: 'connection', timeoutMs: 5000, intervalMs: 10 });
    ac.abort();
    expect(await p).toMatchObject({ ok: false, reason: 'aborted' });
    await Promise.all(srv.accepted.map(closed));
  });
});
