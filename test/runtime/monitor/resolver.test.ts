/**
 * The probes' resolver (issue 11 §2.2): hosts file first, then DNS over c-ares against real DNS servers
 * of the test's own on loopback; lookups that hang are cancelled at once, and never block the process.
 */
import * as dgram from 'node:dgram';
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as dnsPacket from 'dns-packet';
import { probe } from '../../../src/runtime/monitor';
import { resolveReason } from '../../../src/runtime/monitor/probe';
import { ProbeResolver, type ResolveError, parseHosts } from '../../../src/runtime/monitor/resolver';
import { target } from './servers';
import { tempDirs } from '../../support/tmp';

type Zone = Record<string, { A?: string[]; AAAA?: string[]; rcode?: 'NXDOMAIN' | 'SERVFAIL' | 'REFUSED'; silent?: boolean }>;

/** A real UDP DNS server answering from `zone`; unknown names → NXDOMAIN. Counts the questions it got. */
async function dnsServer(zone: Zone): Promise<{ server: string; asked: string[]; close: () => Promise<void> }> {
  const asked: string[] = [];
  const sock = dgram.createSocket('udp4');
  sock.on('message', (msg, rinfo) => {
    const q = dnsPacket.decode(msg);
    const question = q.questions![0]!;
    asked.push(`${question.name} ${question.type}`);
    const entry = zone[question.name.toLowerCase()];
    if (entry?.silent) return;
    const records = entry ? ((question.type === 'A' ? entry.A : question.type === 'AAAA' ? entry.AAAA : undefined) ?? []) : [];
    const rcode = entry === undefined ? 'NXDOMAIN' : (entry.rcode ?? 'NOERROR');
    const reply = dnsPacket.encode({
      type: 'response',
      id: q.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | ({ NOERROR: 0, NXDOMAIN: 3, SERVFAIL: 2, REFUSED: 5 } as const)[rcode],
      questions: q.questions,
      answers: records.map((data) => ({ type: question.type as 'A', name: question.name, ttl: 5, data })),
    });
    sock.send(reply, rinfo.port, rinfo.address);
  });
  const port = await new Promise<number>((r) => sock.bind(0, '127.0.0.1', () => r(sock.address().port)));
  return { server: `127.0.0.1:${port}`, asked, close: () => new Promise<void>((r) => sock.close(() => r())) };
}

const tempDir = tempDirs('tmkit-hosts-');
function hostsFile(text: string): string {
  const d = tempDir();
  const f = join(d, 'hosts');
  writeFileSync(f, text);
  return f;
}

const codeOf = async (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'resolved',
    (e: ResolveError) => e.code,
  );

test('A records first, then AAAA only when there is no A; case and a trailing dot do not matter', async () => {
  const dns = await dnsServer({
    'both.test': { A: ['192.0.2.1', '192.0.2.2'], AAAA: ['2001:db8::1'] },
    'v6only.test': { AAAA: ['2001:db8::6'] },
  });
  try {
    const r = new ProbeResolver({ servers: [dns.server], hostsFile: '' });
    expect(await r.lookup('Both.Test.')).toEqual([
      { address: '192.0.2.1', family: 4 },
      { address: '192.0.2.2', family: 4 },
    ]);
    expect(await r.lookup('v6only.test')).toEqual([{ address: '2001:db8::6', family: 6 }]);
  } finally {
    await dns.close();
  }
});

test('failures carry c-ares codes and map to the documented probe reasons', async () => {
  const dns = await dnsServer({ 'empty.test': {}, 'broken.test': { rcode: 'SERVFAIL' } });
  try {
    const r = new ProbeResolver({ servers: [dns.server], hostsFile: '', timeoutMs: 300, tries: 1 });
    expect(await codeOf(r.lookup('nope.test'))).toBe('ENOTFOUND');
    expect(await codeOf(r.lookup('empty.test'))).toBe('ENODATA');
    expect(await codeOf(r.lookup('broken.test'))).toBe('ESERVFAIL');
    expect(['ENOTFOUND', 'ENODATA'].map(resolveReason)).toEqual(['DNS: no address', 'DNS: no address']);
    expect(resolveReason('ETIMEOUT')).toBe('DNS: no answer');
    expect(resolveReason('ESERVFAIL')).toBe('DNS: server failure');
  } finally {
    await dns.close();
  }
});

test('the hosts file wins over DNS, in file order; names it lacks go to DNS', async () => {
  const dns = await dnsServer({ 'app.test': { A: ['192.0.2.99'] } });
  try {
    const file = hostsFile('# comment\n127.0.0.5 app.test app-alias  # trailing comment\n::1 app.test\n\n192.0.2.7 other.test\n');
    const r = new ProbeResolver({ servers: [dns.server], hostsFile: file });
    expect(await r.lookup('APP.test')).toEqual([
      { address: '127.0.0.5', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect(await r.lookup('app-alias')).toEqual([{ address: '127.0.0.5', family: 4 }]);
    expect(dns.asked).toEqual([]); // DNS was never asked for names the hosts file has
    expect(await r.lookup('unlisted.test').catch((e: ResolveError) => e.code)).toBe('ENOTFOUND');
    expect(parseHosts('not-an-ip name\n10.0.0.1\n').size).toBe(0);
  } finally {
    await dns.close();
  }
});

test('a DNS server that never answers: cancel() ends every outstanding lookup at once', async () => {
  const dns = await dnsServer({ 'hang.test': { silent: true } });
  try {
    const r = new ProbeResolver({ servers: [dns.server], hostsFile: '', timeoutMs: 60_000, tries: 4 });
    const pending = Array.from({ length: 200 }, () => codeOf(r.lookup('hang.test')));
    await new Promise((res) => setTimeout(res, 200));
    const t = Date.now();
    r.cancel();
    expect(new Set(await Promise.all(pending))).toEqual(new Set(['ECANCELLED']));
    expect(Date.now() - t).toBeLessThan(1000);
    // Still usable after a cancel.
    expect(await codeOf(r.lookup('nope.test'))).toBe('ENOTFOUND');
  } finally {
    await dns.close();
  }
});

test('a probe of an FQDN through the resolver: no such name → "DNS: no address", a silent server → the probe timeout', async () => {
  const dns = await dnsServer({ 'hang.test': { silent: true } });
  try {
    const r = new ProbeResolver({ servers: [dns.server], hostsFile: '' });
    const t = (name: string) => target({ target: name, port: 80 });
    const lookup = (h: string) => r.lookup(h);
    expect(await probe(t('no-such-host.test'), { lookup })).toMatchObject({ ok: false, reason: 'DNS: no address' });
    expect(await probe(t('hang.test'), { lookup, timeoutMs: 300 })).toMatchObject({ ok: false, reason: 'timeout' });
    r.cancel();
  } finally {
    await dns.close();
  }
});

test('hosts file changes are noticed (by modification time, checked at most every hostsRecheckMs)', async () => {
  const file = hostsFile('127.0.0.8 moving.test\n');
  const r = new ProbeResolver({ servers: ['127.0.0.1:9'], hostsFile: file, hostsRecheckMs: 0 });
  expect(await r.lookup('moving.test')).toEqual([{ address: '127.0.0.8', family: 4 }]);
  writeFileSync(file, '127.0.0.9 moving.test\n');
  utimesSync(file, new Date(), new Date(Date.now() + 10_000));
  expect(await r.lookup('moving.test')).toEqual([{ address: '127.0.0.9', family: 4 }]);
  const cached = new ProbeResolver({ servers: ['127.0.0.1:9'], hostsFile: file });
  expect(await cached.lookup('moving.test')).toEqual([{ address: '127.0.0.9', family: 4 }]);
  writeFileSync(file, '127.0.0.10 moving.test\n');
  utimesSync(file, new Date(), new Date(Date.now() + 20_000));
  expect(await cached.lookup('moving.test')).toEqual([{ address: '127.0.0.9', family: 4 }]); // within 5 s: the copy in memory
});
