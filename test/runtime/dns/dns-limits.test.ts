/**
 * `serve --max-udp-payload/--tcp-idle-timeout/--tcp-max-connections(-per-client)` (issue 11 §2.8): the DNS
 * limits are serve flags, and they reach the DNS worker processes of `--workers N`.
 */
import * as dgram from 'node:dgram';
import { writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { join } from 'node:path';
import * as dnsPacket from 'dns-packet';
import { runTmkit, spawnServe, type ServeProcess } from '../../support/process';
import { tempDirs } from '../../support/tmp';

const running: ServeProcess[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of running.splice(0)) {
    s.child.kill('SIGKILL');
    await s.exited;
  }
});
const tempDir = tempDirs('tmkit-dnslimits-');

/**
 * A MultiValue profile with 8 AAAA answers under a long owner name (328 octets with compressed names, so
 * it fits even 512), and an apex NS with 20 AAAA of glue (`NS_FLAG`): 618 octets, over 512, under 1232.
 */
const LABEL = 'multivalue-with-a-long-label-so-that-eight-answers-need-800-oct';
function documentFile(): string {
  const file = join(tempDir(), 'doc.json');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'tmkit/v1',
      profiles: [
        {
          name: 'mv',
          trafficRoutingMethod: 'MultiValue',
          maxReturn: 8,
          dnsConfig: { relativeName: LABEL, ttl: 30 },
          monitorConfig: { protocol: 'TCP', port: 9 },
          endpoints: Array.from({ length: 8 }, (_, i) => ({
            name: `e${i}`,
            type: 'externalEndpoints',
            target: `2001:db8::${i + 1}`,
            alwaysServe: 'Enabled',
          })),
        },
      ],
    }),
  );
  return file;
}

const NS_FLAG = `ns1.tm.internal=${Array.from({ length: 20 }, (_, i) => `2001:db8::53:${i + 1}`).join(',')}`;

/** A UDP query advertising a 4096-octet EDNS buffer; resolves with the TC bit and the answer + additional count. */
function udpQuery(
  server: { address: string; port: number },
  name: string,
  type: 'AAAA' | 'NS' = 'AAAA',
): Promise<{ tc: boolean; answers: number }> {
  return new Promise((resolve, reject) => {
    const sock = dgram.createSocket('udp4');
    const id = 4711;
    const t = setTimeout(() => {
      sock.close();
      reject(new Error('no UDP answer'));
    }, 5000);
    sock.on('message', (msg) => {
      const p = dnsPacket.decode(msg);
      if (p.id !== id) return;
      clearTimeout(t);
      sock.close();
      resolve({
        tc: (p.flags! & dnsPacket.TRUNCATED_RESPONSE) !== 0,
        answers: (p.answers ?? []).length + (p.additionals ?? []).filter((a) => a.type !== 'OPT').length,
      });
    });
    sock.send(
      dnsPacket.encode({
        type: 'query',
        id,
        flags: 0,
        questions: [{ type, name, class: 'IN' }],
        additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096 } as unknown as dnsPacket.Answer],
      }),
      server.port,
      server.address,
    );
  });
}

async function connect(server: { address: string; port: number }): Promise<net.Socket & { closedAt?: number }> {
  const s: net.Socket & { closedAt?: number } = net.connect({ host: server.address, port: server.port });
  sockets.push(s);
  s.on('error', () => undefined);
  s.on('close', () => {
    s.closedAt = Date.now();
  });
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('error', reject);
  });
  return s;
}

const name = `${LABEL}.tm.internal`;

test('defaults: the 8-answer AAAA and the NS answer with 20 glue records fit the 1232-octet cap', async () => {
  const s = await spawnServe(tempDir(), ['--apply', documentFile(), '--ns', NS_FLAG]);
  running.push(s);
  expect(await udpQuery(s.dns, name)).toEqual({ tc: false, answers: 8 });
  expect(await udpQuery(s.dns, 'tm.internal', 'NS')).toEqual({ tc: false, answers: 21 });
}, 120_000);

test.each([1, 2])(
  '--workers %i: --max-udp-payload 512, --tcp-idle-timeout and --tcp-max-connections-per-client apply in every DNS process',
  async (workers) => {
    const s = await spawnServe(tempDir(), [
      '--apply',
      documentFile(),
      '--workers',
      String(workers),
      '--ns',
      NS_FLAG,
      '--max-udp-payload',
      '512',
      '--tcp-idle-timeout',
      '1500',
      '--tcp-max-connections-per-client',
      '1',
    ]);
    running.push(s);
    // Whichever process answers UDP caps it at 512: truncated, the client retries over TCP.
    for (let i = 0; i < 4; i++) expect(await udpQuery(s.dns, 'tm.internal', 'NS')).toEqual({ tc: true, answers: 0 });
    expect(await udpQuery(s.dns, name)).toEqual({ tc: false, answers: 8 }); // 328 octets fit 512

    // One connection per client per DNS process: of workers + 2 connections, at most `workers` stay open.
    const opened = Date.now();
    const conns = [];
    for (let i = 0; i < workers + 2; i++) conns.push(await connect(s.dns));
    await new Promise((r) => setTimeout(r, 500));
    const early = conns.filter((c) => c.closedAt !== undefined && c.closedAt - opened < 1000);
    expect(early.length).toBeGreaterThanOrEqual(2);
    expect(conns.length - early.length).toBeGreaterThanOrEqual(1);
    expect(conns.length - early.length).toBeLessThanOrEqual(workers);

    // The kept ones are closed by the 1.5 s idle timeout, long before the default 10 s.
    const deadline = Date.now() + 8000;
    while (conns.some((c) => c.closedAt === undefined) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const c of conns) expect(c.closedAt).toBeDefined();
    expect(Math.max(...conns.map((c) => c.closedAt!)) - opened).toBeLessThan(8000);
  },
  120_000,
);

test('bad values are usage errors (exit 2) naming the flag and the range', async () => {
  const r = await runTmkit(['serve', '--state-dir', tempDir(), '--max-udp-payload', '100'], { timeoutMs: 30_000 });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('--max-udp-payload 100: expected a whole number from 512 to 4096');
  const p = await runTmkit(['serve', '--state-dir', tempDir(), '--tcp-max-connections-per-client', '0'], { timeoutMs: 30_000 });
  expect(p.code).toBe(2);
  expect(p.stderr).toContain('--tcp-max-connections-per-client 0: expected a whole number from 1 to 1000000');
}, 60_000);
