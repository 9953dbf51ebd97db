/**
 * `etcds://IP:port` (issue 39 item 9): gRPC set the TLS ServerName (SNI) to the IP literal, which RFC 6066
 * forbids and Node answers with a DEP0123 warning on every such start. src/runtime/etcd/connection.ts leaves
 * the servername out for an IP. Checked here on the real paths: `tmkit serve --store etcds://127.0.0.1:PORT`
 * against a real etcd with TLS and client certificates starts and prints no DEP0123 (while the same Node
 * prints it for a plain `tls.connect` with an IP servername: the check can see it); and the etcd client still
 * verifies the server's certificate against the IP: a local TLS server with a certificate for 127.0.0.1
 * completes the handshake (and is sent no SNI), one with a certificate for 127.0.0.2 is refused by the client.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tls from 'node:tls';
import pino from 'pino';
import { ClusterNode } from '../../../src/runtime/cluster';
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { spawnServe } from '../../support/process';
import { tempDirs } from '../../support/tmp';

jest.setTimeout(120_000);

const logger = pino({ level: 'silent' });
const tmp = tempDirs('tmkit-tls-ip-');
const DEP0123 = /DEP0123|Setting the TLS ServerName to an IP address/;

let pki: string;
let etcd: EtcdServer | undefined;

/** A CA, server certificates for IP:127.0.0.1 and IP:127.0.0.2 only, and a client certificate, made with openssl. */
function makePki(dir: string): void {
  const ssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  };
  ssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'ca-key.pem',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=tmkit test CA',
  );
  const issue = (name: string, ext: string): void => {
    writeFileSync(join(dir, `${name}.ext`), ext);
    ssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      `${name}-key.pem`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=${name}`,
    );
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    );
  };
  issue('server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  issue('other-ip', 'subjectAltName=IP:127.0.0.2\nextendedKeyUsage=serverAuth\n');
  issue('client', 'extendedKeyUsage=clientAuth\n');
}

beforeAll(async () => {
  pki = tmp();
  makePki(pki);
});

afterAll(async () => {
  await etcd?.destroy();
});

test('the check sees DEP0123: this Node warns for tls.connect with an IP servername', async () => {
  const script = `
    const tls = require('node:tls');
    const s = tls.connect({ host: '127.0.0.1', port: 9, servername: '127.0.0.1' });
    s.on('error', () => {});
    setTimeout(() => process.exit(0), 200);
  `;
  const stderr = await new Promise<string>((resolve) => {
    execFile(process.execPath, ['-e', script], { timeout: 10_000 }, (_err, _out, err) => resolve(err));
  });
  expect(stderr).toMatch(DEP0123);
});

test('tmkit serve --store etcds://127.0.0.1:PORT starts against a TLS etcd and prints no DEP0123', async () => {
  etcd = await startEtcd({
    scheme: 'https',
    args: [
      '--cert-file',
      join(pki, 'server.pem'),
      '--key-file',
      join(pki, 'server-key.pem'),
      '--client-cert-auth',
      '--trusted-ca-file',
      join(pki, 'ca.pem'),
    ],
    healthCheck: { ca: join(pki, 'ca.pem'), cert: join(pki, 'client.pem'), key: join(pki, 'client-key.pem') },
  });
  const serve = await spawnServe(tmp(), [
    '--store',
    `etcds://127.0.0.1:${etcd.clientPort}`,
    '--node',
    'n1',
    '--etcd-ca',
    join(pki, 'ca.pem'),
    '--etcd-cert',
    join(pki, 'client.pem'),
    '--etcd-key',
    join(pki, 'client-key.pem'),
  ]);
  try {
    // It read the configuration from that etcd over TLS, and is healthy.
    expect(serve.stdout()).toMatch(new RegExp(`store etcds://127\\.0\\.0\\.1:${etcd.clientPort} \\(node n1, .*etcd revision \\d+\\)`));
    const health = await fetch(`${serve.api}/healthz`);
    expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { status: 'ok' } });
  } finally {
    serve.child.kill('SIGTERM');
    await serve.closed;
  }
  expect(serve.stderr()).not.toMatch(DEP0123);
  expect(serve.stdout()).not.toMatch(DEP0123);
});

/** A TLS server (h2) on 127.0.0.1 with `cert`: the SNI each completed handshake carried (`false`: none). */
async function tlsServer(cert: string): Promise<{ port: number; servernames: unknown[]; close: () => Promise<void> }> {
  const servernames: unknown[] = [];
  const server = tls.createServer({
    cert: readFileSync(join(pki, `${cert}.pem`)),
    key: readFileSync(join(pki, `${cert}-key.pem`)),
    ALPNProtocols: ['h2'],
  });
  server.on('secureConnection', (s: tls.TLSSocket) => {
    servernames.push(s.servername);
    s.destroy();
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as { port: number }).port,
    servernames,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** ClusterNode.open against `etcds://127.0.0.1:PORT` with the test CA and client certificate: the error it fails with. */
async function openFails(port: number): Promise<string> {
  const err = await ClusterNode.open(
    {
      store: `etcds://127.0.0.1:${port}`,
      node: 'n1',
      location: 'l1',
      connectTimeoutMs: 1500,
      tls: { caFile: join(pki, 'ca.pem'), certFile: join(pki, 'client.pem'), keyFile: join(pki, 'client-key.pem') },
    },
    undefined,
    logger,
  ).then(
    async (node) => {
      await node.close();
      return undefined;
    },
    (e: Error) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return String(err);
}

test("the etcd client still checks the certificate against the IP: 127.0.0.1's is accepted (no SNI sent), 127.0.0.2's refused", async () => {
  const right = await tlsServer('server');
  const wrong = await tlsServer('other-ip');
  try {
    // Neither is an etcd, so both fail; what matters is why. The right certificate passes the client's checks
    // (the failure comes after TLS), and the client sent no SNI.
    const rightErr = await openFails(right.port);
    expect(rightErr).toMatch(/cannot reach etcd at https:\/\/127\.0\.0\.1:\d+/);
    expect(rightErr).not.toMatch(/ALTNAME|certificate|self.signed|UNABLE_TO_VERIFY/i);
    expect(right.servernames.length).toBeGreaterThan(0);
    expect(new Set(right.servernames)).toEqual(new Set([false]));
    // A certificate of the same CA for another IP: refused by the client's identity check on the IP.
    const wrongErr = await openFails(wrong.port);
    expect(wrongErr).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID.*IP: 127\.0\.0\.1 is not in the cert's list: 127\.0\.0\.2/);
  } finally {
    await right.close();
    await wrong.close();
  }
});
