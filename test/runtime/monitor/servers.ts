/** Real loopback servers for the prober tests (helpers, not tests). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AZURE_FAILBACK } from '../../../src/core/health/machine';
import type { ProbeTarget } from '../../../src/core/health/targets';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Raw header names as sent (case preserved), with values. */
  raw: string[];
}

export interface Running<S> {
  server: S;
  host: string;
  port: number;
  /** Sockets currently open on the server side. */
  open: Set<Socket>;
  /** Every socket the server accepted (to await their close). */
  accepted: Socket[];
  close(): Promise<void>;
}

function track<S extends Server | HttpServer>(server: S, host: string, connectionEvent = 'connection'): Promise<Running<S>> {
  const open = new Set<Socket>();
  const accepted: Socket[] = [];
  server.on(connectionEvent, (s: Socket) => {
    open.add(s);
    accepted.push(s);
    s.on('error', () => {});
    s.on('close', () => open.delete(s));
    s.resume(); // consume what the prober sends, so its FIN is seen (and 'close' fires)
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        server,
        host,
        port,
        open,
        accepted,
        close: () =>
          new Promise<void>((r) => {
            for (const s of open) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

/** HTTP server: the handler decides the response; every request is recorded. */
export function httpServer(
  host: string,
  handler: (req: SeenRequest, res: import('node:http').ServerResponse) => void,
): Promise<Running<HttpServer> & { requests: SeenRequest[] }> {
  const requests: SeenRequest[] = [];
  const server = createHttpServer((req, res) => {
    const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw: req.rawHeaders };
    requests.push(seen);
    handler(seen, res);
  });
  return track(server, host).then((r) => Object.assign(r, { requests }));
}

/** A raw TCP server: `onSocket` does whatever hostile thing the test needs. */
export function tcpServer(host: string, onSocket: (s: Socket) => void = () => {}): Promise<Running<Server>> {
  const server = createNetServer((s) => onSocket(s));
  return track(server, host);
}

export interface Cert {
  key: string;
  cert: string;
  dir: string;
}

/** A self-signed certificate made with the openssl CLI in a temp dir. */
export function selfSignedCert(cn = 'localhost'): Cert {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-cert-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      `/CN=${cn}`,
    ],
    { stdio: 'pipe' },
  );
  const out = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), dir };
  rmSync(dir, { recursive: true, force: true });
  return out;
}

export function httpsServer(host: string, cert: Cert, handler: (req: SeenRequest, res: import('node:http').ServerResponse) => void) {
  const requests: SeenRequest[] = [];
  const server = createHttpsServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw: req.rawHeaders };
    requests.push(seen);
    handler(seen, res);
  });
  return track(server as unknown as HttpServer, host, 'secureConnection').then((r) => Object.assign(r, { requests }));
}

/** A ProbeTarget built by hand (the settings the core would compute), for probing a test server. */
export function target(over: Partial<ProbeTarget> & Pick<ProbeTarget, 'target' | 'port'>): ProbeTarget {
  const kind = over.targetKind ?? (/^\d+\.\d+\.\d+\.\d+$/.test(over.target) ? 'ipv4' : over.target.includes(':') ? 'ipv6' : 'fqdn');
  const t: ProbeTarget = {
    key: over.key ?? `p/${over.target}:${over.port}`,
    profile: 'p',
    endpoint: `${over.target}:${over.port}`,
    targetKind: kind,
    protocol: 'HTTP',
    path: '/',
    intervalInSeconds: 10,
    timeoutInSeconds: 5,
    toleratedNumberOfFailures: 0,
    headers: kind === 'fqdn' ? [{ name: 'Host', value: over.target }] : [],
    expectedStatusCodeRanges: [{ min: 200, max: 200 }],
    failback: AZURE_FAILBACK,
    fingerprint: '',
    ...over,
  };
  t.fingerprint = JSON.stringify([
    t.target,
    t.port,
    t.protocol,
    t.path,
    t.headers,
    t.expectedStatusCodeRanges,
    t.intervalInSeconds,
    t.timeoutInSeconds,
    t.toleratedNumberOfFailures,
  ]);
  return t;
}

export const closed = (s: Socket): Promise<void> => new Promise((r) => (s.destroyed ? r() : s.once('close', () => r())));
