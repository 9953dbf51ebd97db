/** `tmkit dns --document FILE`: the development server, one process and `--workers 2`. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as dgram from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { dig } from './support';

const entry = path.join(__dirname, 'fixtures/tmkit.ts');
const dir = mkdtempSync(path.join(tmpdir(), 'tmkit-dns-cli-'));
const docFile = path.join(dir, 'doc.json');
writeFileSync(
  docFile,
  JSON.stringify({
    apiVersion: 'tmkit/v1',
    profiles: [
      {
        name: 'app',
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: 'app', ttl: 15 },
        monitorConfig: { protocol: 'HTTP', port: 80, path: '/' },
        endpoints: [
          { name: 'one', type: 'externalEndpoints', target: '192.0.2.1', priority: 1 },
          { name: 'two', type: 'externalEndpoints', target: '192.0.2.2', priority: 2 },
        ],
      },
      {
        name: 'web',
        trafficRoutingMethod: 'Weighted',
        dnsConfig: { relativeName: 'web', ttl: 20 },
        monitorConfig: { protocol: 'HTTP', port: 80, path: '/' },
        endpoints: [{ name: 'w', type: 'externalEndpoints', target: 'web.example.net' }],
      },
    ],
  }),
);

function start(args: string[]): { child: ChildProcess; banner: Promise<string>; exit: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', entry, 'dns', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c) => {
    err += c;
  });
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const banner = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve(out);
    });
    void exit.then((code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  banner.catch(() => undefined); // the error tests never wait for a banner
  return { child, banner, exit, stderr: () => err };
}

const portOf = (banner: string): number => Number(/127\.0\.0\.1:(\d+)/.exec(banner)![1]);

test('serves the document; SIGTERM stops it with exit code 0', async () => {
  const s = start(['--document', docFile, '--listen', '127.0.0.1:0', '--ns', 'ns1.example.org', '--ns', 'ns2.tm.internal=192.0.2.53']);
  try {
    const banner = await s.banner;
    expect(banner).toMatch(
      /^tmkit dns: zone tm\.internal, 2 profiles \(every endpoint treated as Online\), UDP\+TCP on 127\.0\.0\.1:\d+\n$/,
    );
    const at = ['@127.0.0.1', '-p', String(portOf(banner))];
    expect((await dig([...at, 'app.tm.internal'])).answer).toEqual([['app.tm.internal.', '15', 'IN', 'A', '192.0.2.1']]);
    expect((await dig([...at, '+tcp', 'web.tm.internal'])).answer).toEqual([['web.tm.internal.', '20', 'IN', 'CNAME', 'web.example.net.']]);
    const ns = await dig([...at, 'tm.internal', 'NS']);
    expect(ns.answer).toEqual([
      ['tm.internal.', '300', 'IN', 'NS', 'ns1.example.org.'],
      ['tm.internal.', '300', 'IN', 'NS', 'ns2.tm.internal.'],
    ]);
    expect(ns.additional).toEqual([['ns2.tm.internal.', '300', 'IN', 'A', '192.0.2.53']]);
    expect((await dig([...at, 'ns2.tm.internal'])).answer).toEqual([['ns2.tm.internal.', '300', 'IN', 'A', '192.0.2.53']]);
  } finally {
    s.child.kill('SIGTERM');
  }
  expect(await s.exit).toBe(0);
}, 60000);

test('--workers 2: both processes serve UDP and TCP on one port', async () => {
  const s = start(['--document', docFile, '--listen', '127.0.0.1:0', '--workers', '2']);
  try {
    const banner = await s.banner;
    expect(banner).toMatch(/with 2 workers/);
    const at = ['@127.0.0.1', '-p', String(portOf(banner))];
    for (let i = 0; i < 4; i++) {
      expect((await dig([...at, 'app.tm.internal'])).answer[0]![4]).toBe('192.0.2.1');
      expect((await dig([...at, '+tcp', 'app.tm.internal'])).answer[0]![4]).toBe('192.0.2.1');
    }
  } finally {
    s.child.kill('SIGTERM');
  }
  expect(await s.exit).toBe(0);
}, 60000);

// A UDP port held by this test process: the server cannot bind it.
let busyPort = 0;
const busy = dgram.createSocket('udp4');
beforeAll(
  () =>
    new Promise<void>((r) =>
      busy.bind(0, '127.0.0.1', () => {
        busyPort = busy.address().port;
        r();
      }),
    ),
);
afterAll(() => busy.close());

test.each([
  ['a missing file', ['--document', path.join(dir, 'nope.json')], 1, /cannot read the document \(ENOENT\)/],
  [
    'an invalid document',
    [
      '--document',
      (() => {
        const f = path.join(dir, 'bad.json');
        writeFileSync(f, JSON.stringify({ apiVersion: 'tmkit/v1', profiles: [{ name: 'x', trafficRoutingMethod: 'Sideways' }] }));
        return f;
      })(),
    ],
    1,
    /the document is invalid/,
  ],
  [
    'a bad --ns address',
    ['--document', docFile, '--ns', 'ns1.tm.internal=not-an-ip'],
    2,
    /--ns ns1.tm.internal=not-an-ip: expected a host name/,
  ],
  ['an empty --zone', ['--document', docFile, '--zone', ''], 2, /--zone "": expected a domain name/],
  [
    '--ns addresses for a name outside the zone',
    ['--document', docFile, '--ns', 'ns.example.net=192.0.2.1'],
    2,
    /--ns ns\.example\.net=192\.0\.2\.1: ns\.example\.net is outside the zone tm\.internal, so tmkit is not authoritative for its addresses/,
  ],
  [
    'a --soa-rname in mailbox form',
    ['--document', docFile, '--soa-rname', 'hostmaster@example.com'],
    2,
    /--soa-rname hostmaster@example\.com: .*domain form/,
  ],
  ['a bad --listen', ['--document', docFile, '--listen', 'localhost:53'], 2, /--listen localhost:53: expected an IP address/],
])(
  'exits non-zero on %s',
  async (_l, args, code, message) => {
    const s = start(args);
    expect(await s.exit).toBe(code);
    expect(s.stderr()).toMatch(message);
  },
  60000,
);

test('a port in use, with --workers 2: the workers fail, the primary exits 1 (no hang)', async () => {
  const s = start(['--document', docFile, '--listen', `127.0.0.1:${busyPort}`, '--workers', '2']);
  // Bounded by the fleet's own 90 s start timeout; past it, the process and what it said are in the failure.
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    s.exit,
    new Promise<'hung'>((r) => {
      timer = setTimeout(() => r('hung'), 100_000);
    }),
  ]);
  clearTimeout(timer);
  if (code === 'hung') {
    s.child.kill('SIGKILL');
    throw new Error(`tmkit dns --workers 2 on a busy port did not exit within 100 s; it said:\n${s.stderr()}`);
  }
  expect(code).toBe(1);
  expect(s.stderr()).toMatch(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${busyPort}`));
  expect(s.stderr()).toMatch(/the workers could not start/);
}, 120_000);
