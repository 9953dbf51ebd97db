/**
 * etcd with authentication and TLS, as examples/cluster/README.md deploys it: a user whose role may only
 * read and write tmkit's prefix, and TLS with client certificates (a CA, server and client certificates made
 * here with openssl). A node joins (lease, node record) and writes through both.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { Etcd3, Range } from 'etcd3';
import { ClusterNode } from '../../../src/runtime/cluster';
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { profile } from '../api/fixtures';
import { tempDirs } from '../../support/tmp';

jest.setTimeout(120_000);

const logger = pino({ level: 'silent' });
const tmp = tempDirs('tmkit-secure-');

async function joinAndWrite(o: Parameters<typeof ClusterNode.open>[0]): Promise<void> {
  const node = await ClusterNode.open(o, tmp(), logger);
  try {
    await node.join();
    const r = await node.store.putProfile(profile('web'), { stack: 's' });
    expect(r.created || !r.changed).toBe(true);
    expect(node.health.nodes().map((n) => n.node)).toContain(o.node);
  } finally {
    await node.close();
  }
}

describe('etcd users (RBAC)', () => {
  let etcd: EtcdServer;
  beforeAll(async () => {
    etcd = await startEtcd();
    const admin = new Etcd3({ hosts: etcd.url });
    await admin.user('root').create('root-pw');
    await admin.role('root').create();
    await admin.user('root').addRole('root');
    await admin.role('tmkit').create();
    await admin.role('tmkit').grant({ permission: 'Readwrite', range: Range.prefix('/tmkit/') });
    await admin.user('tmkit').create('tmkit-pw');
    await admin.user('tmkit').addRole('tmkit');
    await admin.auth.authEnable();
    admin.close();
  });
  afterAll(async () => {
    await etcd?.destroy();
  });

  test('a user limited to the prefix joins and writes', async () => {
    await joinAndWrite({
      store: etcd.storeUrl(),
      node: 'n1',
      location: 'l1',
      auth: { username: 'tmkit', password: 'tmkit-pw' },
      connectTimeoutMs: 3000,
    });
  });

  test("a prefix outside the role, or a wrong password, is refused with etcd's reason", async () => {
    await expect(
      ClusterNode.open(
        {
          store: etcd.storeUrl('other'),
          node: 'n1',
          location: 'l1',
          auth: { username: 'tmkit', password: 'tmkit-pw' },
          connectTimeoutMs: 3000,
        },
        undefined,
        logger,
      ),
    ).rejects.toThrow(/refused the first read: .*permission denied.*check the etcd user's permissions on \/other\//i);
    await expect(
      ClusterNode.open(
        { store: etcd.storeUrl(), node: 'n1', location: 'l1', auth: { username: 'tmkit', password: 'wrong' }, connectTimeoutMs: 3000 },
        undefined,
        logger,
      ),
    ).rejects.toThrow(/authentication failed|invalid user ID or password/i);
  });
});

describe('etcd over TLS with client certificates', () => {
  let etcd: EtcdServer;
  let pki: string;
  beforeAll(async () => {
    pki = tmp();
    const ssl = (...args: string[]): void => {
      execFileSync('openssl', args, { cwd: pki, stdio: 'pipe' });
    };
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
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
    writeFileSync(join(pki, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server-key.pem', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
    ssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'server.ext',
    );
    writeFileSync(join(pki, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client-key.pem', '-out', 'client.csr', '-subj', '/CN=tmkit');
    ssl(
      'x509',
      '-req',
      '-in',
      'client.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      '-out',
      'client.pem',
      '-days',
      '2',
      '-extfile',
      'client.ext',
    );
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
  });
  afterAll(async () => {
    await etcd?.destroy();
  });

  test('etcds:// with the CA and a client certificate joins and writes', async () => {
    await joinAndWrite({
      store: `etcds://127.0.0.1:${etcd.clientPort}`,
      node: 'n1',
      location: 'l1',
      connectTimeoutMs: 3000,
      tls: { caFile: join(pki, 'ca.pem'), certFile: join(pki, 'client.pem'), keyFile: join(pki, 'client-key.pem') },
    });
  });

  test('without a client certificate etcd refuses the connection; TLS files with etcd:// are a usage error', async () => {
    await expect(
      ClusterNode.open(
        {
          store: `etcds://127.0.0.1:${etcd.clientPort}`,
          node: 'n1',
          location: 'l1',
          connectTimeoutMs: 2000,
          tls: { caFile: join(pki, 'ca.pem') },
        },
        undefined,
        logger,
      ),
    ).rejects.toThrow(/cannot reach etcd at https:\/\/127\.0\.0\.1:\d+/);
    await expect(
      ClusterNode.open(
        { store: `etcd://127.0.0.1:${etcd.clientPort}`, node: 'n1', location: 'l1', tls: { caFile: join(pki, 'ca.pem') } },
        undefined,
        logger,
      ),
    ).rejects.toThrow(/TLS files are given, so write etcds:\/\//);
  });
});
