/**
 * /metrics reports DNS queries by profile/rcode/qtype and answers by leaf endpoint: the runtime in this
 * process (DNS answered here) and `tmkit serve --workers 2` (counts reported by the worker processes and
 * summed by the primary). Real sockets, the real API with the token, exact counter values.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { TmkitClient } from '../../../src/client';
import { Engine } from '../../../src/runtime/engine';
import { profileInput } from '../api/fixtures';
import { buildQuery, dig, udpExchange } from './support';
import { queryUdp } from '../../support/loopback';
import { waitFor } from '../../support/wait';
import { spawnServe, type ServeProcess } from '../../support/process';
import { tempDirs } from '../../support/tmp';

jest.setTimeout(120_000);

const tempDir = tempDirs('tmkit-dns-metrics-');

/** The `tmkit_dns_*_total` sample lines of a scrape, sorted. */
function dnsSamples(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => /^tmkit_dns_(queries|answers)_total\{/.test(l))
    .sort();
}

const web = profileInput('web', {
  endpoints: [
    { name: 'primary', type: 'externalEndpoints', target: '192.0.2.10', alwaysServe: 'Enabled' },
    { name: 'secondary', type: 'externalEndpoints', target: '192.0.2.20', alwaysServe: 'Enabled' },
  ],
});
const parent = profileInput('parent', {
  endpoints: [{ name: 'to-web', type: 'nestedEndpoints', targetResourceId: 'web', minChildEndpoints: 1 }],
});

test('in-process runtime: cached and uncached answers, nested, NXDOMAIN, REFUSED, errors; existing metrics intact', async () => {
  const engine = await Engine.start({
    stateDir: tempDir(),
    zone: 'tm.internal',
    dns: [{ address: '127.0.0.1', port: 0 }],
    api: { host: '127.0.0.1', port: 0 },
    logger: pino({ level: 'silent' }),
    env: {},
  });
  try {
    const client = new TmkitClient({ server: `http://127.0.0.1:${engine.apiAddress().port}`, token: engine.token.token, env: {} });
    const dns = engine.dnsAddresses()[0]!;
    const at = ['@127.0.0.1', '-p', String(dns.port)];
    expect(dnsSamples(await client.metrics())).toEqual([]);
    await client.putProfile(web);
    await client.putProfile(parent);
    await engine.settle();

    for (let i = 0; i < 3; i++) expect((await dig([...at, 'web.tm.internal', 'A'])).answer[0]![4]).toBe('192.0.2.10'); // miss, hit, hit
    expect((await dig([...at, 'parent.tm.internal', 'A'])).answer[0]![4]).toBe('192.0.2.10');
    expect((await dig([...at, 'web.tm.internal', 'AAAA'])).answer).toEqual([]); // NODATA
    for (let i = 0; i < 2; i++) expect((await dig([...at, 'nope.tm.internal', 'A'])).status).toBe('NXDOMAIN');
    expect((await dig([...at, 'example.com', 'A'])).status).toBe('REFUSED');
    expect(await udpExchange('127.0.0.1', dns.port, buildQuery(1, 'web.tm.internal', 1, { qdcount: 0 }))).not.toBeNull(); // FORMERR

    const before = await client.metrics();
    expect(dnsSamples(before)).toEqual([
      'tmkit_dns_answers_total{profile="parent",endpoint="web/primary"} 1',
      'tmkit_dns_answers_total{profile="web",endpoint="web/primary"} 3',
      'tmkit_dns_queries_total{profile="",rcode="FORMERR",qtype=""} 1',
      'tmkit_dns_queries_total{profile="",rcode="NXDOMAIN",qtype="A"} 2',
      'tmkit_dns_queries_total{profile="",rcode="REFUSED",qtype="A"} 1',
      'tmkit_dns_queries_total{profile="parent",rcode="NOERROR",qtype="A"} 1',
      'tmkit_dns_queries_total{profile="web",rcode="NOERROR",qtype="A"} 3',
      'tmkit_dns_queries_total{profile="web",rcode="NOERROR",qtype="AAAA"} 1',
    ]);
    expect(before).toContain('# TYPE tmkit_dns_queries_total counter');
    expect(before).toContain('# TYPE tmkit_dns_answers_total counter');
    // The existing metrics still work.
    expect(before).toMatch(/^tmkit_dns_responder_total\{kind="queries"\} 9$/m);
    expect(before).toMatch(/^tmkit_api_requests_total\{route="[^"]*",method="PUT",code="201"\} 2$/m);
    expect(before).toMatch(/^tmkit_snapshot_builds_total \d+$/m);

    // A configuration change drops the DNS cache, not the counts; the new endpoint is counted from then on.
    await client.patchEndpoint('web', 'primary', { endpointStatus: 'Disabled' });
    await engine.settle();
    expect((await dig([...at, 'web.tm.internal', 'A'])).answer[0]![4]).toBe('192.0.2.20');
    const after = dnsSamples(await client.metrics());
    expect(after).toContain('tmkit_dns_answers_total{profile="web",endpoint="web/primary"} 3');
    expect(after).toContain('tmkit_dns_answers_total{profile="web",endpoint="web/secondary"} 1');
    expect(after).toContain('tmkit_dns_queries_total{profile="web",rcode="NOERROR",qtype="A"} 4');
  } finally {
    await engine.stop();
  }
});

describe('tmkit serve --workers 2', () => {
  let s: ServeProcess | undefined;
  afterAll(async () => {
    if (s && s.child.exitCode === null) {
      s.child.kill('SIGKILL');
      await s.exited;
    }
  });

  test('the primary /metrics sums the counts of both DNS workers', async () => {
    const stateDir = tempDir();
    s = await spawnServe(stateDir, ['--workers', '2']);
    const client = new TmkitClient({ server: s.api, token: readFileSync(join(stateDir, 'token'), 'utf8').trim(), env: {} });
    await client.putProfile(web);
    // Wait until every worker has the profile (several queries in a row all answered).
    await waitFor(
      async () => {
        const r = await Promise.all(Array.from({ length: 8 }, () => queryUdp(s!.dns, 'web.tm.internal')));
        return r.every((x) => x.rcode === 'NOERROR' && x.answers.length === 1);
      },
      { what: 'both workers to answer web', timeoutMs: 60_000, intervalMs: 50 },
    );
    const value = (samples: string[], series: string): number =>
      Number(samples.find((l) => l.startsWith(`${series} `))?.split(' ')[1] ?? 0);
    // The counts reached the primary: wait until the warm-up queries are all reported, then add a known load.
    const warm = await waitFor(
      async () => {
        const a = dnsSamples(await client.metrics());
        await new Promise((r) => setTimeout(r, 1500));
        const b = dnsSamples(await client.metrics());
        return a.length > 0 && JSON.stringify(a) === JSON.stringify(b) ? b : undefined;
      },
      { what: 'worker counts to settle', timeoutMs: 60_000, intervalMs: 50 },
    );
    const webA = 'tmkit_dns_queries_total{profile="web",rcode="NOERROR",qtype="A"}';
    const webPrimary = 'tmkit_dns_answers_total{profile="web",endpoint="web/primary"}';
    const nx = 'tmkit_dns_queries_total{profile="",rcode="NXDOMAIN",qtype="A"}';
    const w0 = value(warm, webA);
    const p0 = value(warm, webPrimary);
    const n0 = value(warm, nx);
    expect(w0).toBeGreaterThanOrEqual(8);
    expect(p0).toBe(w0);

    // 60 queries from many source ports: the kernel spreads them over both workers.
    await Promise.all(Array.from({ length: 60 }, () => queryUdp(s!.dns, 'web.tm.internal')));
    for (let i = 0; i < 5; i++) expect((await queryUdp(s.dns, 'nope.tm.internal')).rcode).toBe('NXDOMAIN');
    const final = await waitFor(
      async () => {
        const m = dnsSamples(await client.metrics());
        return value(m, webA) === w0 + 60 && value(m, nx) === n0 + 5 ? m : undefined;
      },
      { what: 'the new counts at the primary', timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(value(final, webPrimary)).toBe(p0 + 60);
    // The aggregate responder counter (also summed over the workers) agrees with the per-label counts.
    const metrics = await client.metrics();
    const perLabel = final.filter((l) => l.startsWith('tmkit_dns_queries_total')).reduce((sum, l) => sum + Number(l.split(' ')[1]), 0);
    expect(Number(/^tmkit_dns_responder_total\{kind="queries"\} (\d+)$/m.exec(metrics)?.[1])).toBe(perLabel);

    s.child.kill('SIGTERM');
    expect(await s.exited).toEqual({ code: 0, signal: null });
  });
});
