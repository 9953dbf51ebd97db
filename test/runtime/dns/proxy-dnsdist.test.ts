/**
 * tmkit behind Debian's dnsdist with `useProxyProtocol=true` (issue 39 item 6): `tmkit dns --workers 2
 * --proxy-protocol-from 127.0.0.1`, a real dnsdist in front, and the real `dig` from two client addresses
 * (127.0.0.2 and 127.0.0.3) that each get their own Subnet endpoint over UDP and TCP through the front; the
 * same query straight to tmkit from a client is answered by its own address, and a PROXY header from an
 * address outside the allow-list is refused.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as dgram from 'node:dgram';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { encodeProxyV2 } from '../../../src/runtime/dns/proxy-protocol';
import { freePort } from '../../support/ports';
import { tempDirs } from '../../support/tmp';
import { waitFor } from '../../support/wait';
import { buildQuery, dig } from './support';

const entry = path.join(__dirname, 'fixtures/tmkit.ts');
const tmp = tempDirs('tmkit-proxy-dnsdist-');
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  }
});

function run(cmd: string, args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (c) => {
    out += c;
  });
  child.stderr!.on('data', (c) => {
    out += c;
  });
  return { child, output: () => out };
}

const answerOf = async (args: string[]): Promise<string | undefined> => (await dig(args)).answer.find((a) => a[3] === 'A')?.[4];

test('two clients behind dnsdist get their own Subnet endpoints over UDP and TCP; a header from outside the allow-list is refused', async () => {
  const dir = tmp();
  const doc = path.join(dir, 'doc.json');
  writeFileSync(
    doc,
    JSON.stringify({
      apiVersion: 'tmkit/v1',
      profiles: [
        {
          name: 'web',
          trafficRoutingMethod: 'Subnet',
          dnsConfig: { relativeName: 'web', ttl: 5 },
          monitorConfig: { protocol: 'HTTP', port: 80, path: '/' },
          endpoints: [
            { name: 'two', type: 'externalEndpoints', target: '192.0.2.2', subnets: [{ first: '127.0.0.2', scope: 32 }] },
            { name: 'three', type: 'externalEndpoints', target: '192.0.2.3', subnets: [{ first: '127.0.0.3', scope: 32 }] },
            { name: 'rest', type: 'externalEndpoints', target: '192.0.2.99' },
          ],
        },
      ],
    }),
  );
  const tmPort = await freePort();
  const tm = run(process.execPath, [
    '-r',
    '@swc-node/register',
    entry,
    'dns',
    '--document',
    doc,
    '--listen',
    `127.0.0.1:${tmPort}`,
    '--workers',
    '2',
    '--proxy-protocol-from',
    '127.0.0.1',
  ]);
  await waitFor(() => tm.output().includes('UDP+TCP on'), { what: `tmkit dns to listen (output: ${tm.output()})`, timeoutMs: 60_000 });

  const ddPort = await freePort();
  const conf = path.join(dir, 'dnsdist.conf');
  // dnsdist reaches tmkit from 127.0.0.1 (the allow-listed front); its health check asks the zone's SOA.
  writeFileSync(
    conf,
    [
      `setLocal("127.0.0.1:${ddPort}")`,
      `newServer{address="127.0.0.1:${tmPort}", useProxyProtocol=true, checkName="tm.internal.", checkType="SOA", checkInterval=1}`,
      'setSecurityPollSuffix("")',
      '',
    ].join('\n'),
  );
  const dd = run('dnsdist', ['--supervised', '--disable-syslog', '-C', conf]);
  const front = ['@127.0.0.1', '-p', String(ddPort)];
  await waitFor(() => answerOf(['-b', '127.0.0.2', ...front, 'web.tm.internal']), {
    what: `dnsdist to answer through tmkit (dnsdist: ${dd.output()}; tmkit: ${tm.output()})`,
    timeoutMs: 30_000,
    intervalMs: 250,
  });

  for (const transport of [[], ['+tcp']]) {
    expect(await answerOf(['-b', '127.0.0.2', ...front, ...transport, 'web.tm.internal'])).toBe('192.0.2.2');
    expect(await answerOf(['-b', '127.0.0.3', ...front, ...transport, 'web.tm.internal'])).toBe('192.0.2.3');
    // Straight to tmkit (not through the front, no header): the client's own address routes.
    expect(await answerOf(['-b', '127.0.0.2', '@127.0.0.1', '-p', String(tmPort), ...transport, 'web.tm.internal'])).toBe('192.0.2.2');
    expect(await answerOf(['-b', '127.0.0.4', '@127.0.0.1', '-p', String(tmPort), ...transport, 'web.tm.internal'])).toBe('192.0.2.99');
  }

  // A client that writes a PROXY header itself, claiming 127.0.0.2, from outside the allow-list: no answer.
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind({ address: '127.0.0.9', port: 0 }, () => r()));
  const spoof = encodeProxyV2({
    source: '127.0.0.2',
    sourcePort: 5353,
    destination: '127.0.0.1',
    destinationPort: tmPort,
    transport: 'udp',
  });
  const got = await new Promise<Buffer | null>((r) => {
    const t = setTimeout(() => r(null), 1500);
    sock.on('message', (m) => {
      clearTimeout(t);
      r(m);
    });
    sock.send(Buffer.concat([spoof, buildQuery(77, 'web.tm.internal', 1)]), tmPort, '127.0.0.1');
  });
  sock.close();
  expect(got).toBeNull();
}, 120_000);
