/**
 * Config change → DNS answer latency (issue 6 acceptance: < 100 ms).
 *
 * Starts the real `tmkit serve` as its own process (TypeScript sources, no build needed), then ~50 times:
 * PUT a profile whose answer changes (a new endpoint address), and query the DNS server over UDP in a
 * tight loop until it answers the new address. Prints the distribution of
 *   - write→DNS: from sending the PUT to the first DNS answer with the new address (what a deployer sees),
 *   - ack→DNS:   from the PUT's 2xx to that answer (how far DNS lags behind an acknowledged write),
 * and the server's own commit→snapshot histogram (tmkit_config_apply_seconds).
 *
 *   npm run bench:config-latency [-- --changes 50] [--workers 2] [--profiles 200] [--overrides]
 *
 * With --overrides the changes are traffic overrides instead of profile writes (docs/operations.md): a
 * `down` override of the answering endpoint made (`POST /v1/overrides`, DNS then answers the other one) and
 * cleared (`DELETE /v1/overrides/{id}`), in turn: how an override reaches DNS.
 *
 * With --workers N the DNS answers come from N worker processes fed over IPC (the query loop then
 * waits until the worker that answers has the change).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeQuerier, pct } from './support/udp';
import { TmkitClient } from '../src/client';

const REPO = join(__dirname, '..');
const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) || dflt : dflt;
};
const changes = arg('--changes', 50);
const workers = arg('--workers', 1);
const others = arg('--profiles', 200);
const overrides = process.argv.includes('--overrides');

function startServe(stateDir: string): Promise<{ kill: () => Promise<void>; dns: number; api: string }> {
  const child = spawn(
    process.execPath,
    [
      '-r',
      '@swc-node/register',
      '-e',
      `require('./src/cli/main').run(process.argv.slice(1)).then((c) => { process.exitCode = c; })`,
      'serve',
      '--state-dir',
      stateDir,
      '--dns',
      '127.0.0.1:0',
      '--api',
      '127.0.0.1:0',
      '--log-level',
      'warn',
      '--workers',
      String(workers),
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    child.on('exit', (c) => reject(new Error(`serve exited ${c}: ${out}`)));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const dns = /DNS {2}UDP\+TCP [\d.]+:(\d+)/.exec(out);
      const api = /API {2}(http:\/\/\S+)/.exec(out);
      if (dns && api) {
        child.removeAllListeners('exit');
        resolve({
          dns: Number(dns[1]),
          api: api[1]!,
          kill: () =>
            new Promise((r) => {
              child.on('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    });
  });
}

const fmt = (x: number): string => `${x.toFixed(2).padStart(7)} ms`;

function summary(label: string, xs: number[]): string {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return `${label.padEnd(12)} min ${fmt(Math.min(...xs))}  p50 ${fmt(pct(xs, 50))}  p90 ${fmt(pct(xs, 90))}  p99 ${fmt(pct(xs, 99))}  max ${fmt(Math.max(...xs))}  mean ${fmt(mean)}`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-bench-latency-'));
  const serve = await startServe(join(dir, 'state'));
  const client = new TmkitClient({ server: serve.api, token: readFileSync(join(dir, 'state', 'token'), 'utf8').trim(), env: {} });
  const dns = makeQuerier(serve.dns);
  const profile = (ip: string) => ({
    name: 'bench',
    trafficRoutingMethod: 'Priority' as const,
    dnsConfig: { relativeName: 'bench', ttl: 1 },
    endpoints: [{ name: 'a', type: 'externalEndpoints', target: ip, alwaysServe: 'Enabled' as const }],
  });
  // Some unrelated profiles so the snapshot is not trivially small.
  for (let i = 0; i < others; i++) {
    await client.putProfile({
      ...profile(`198.51.100.${(i % 250) + 1}`),
      name: `other${i}`,
      dnsConfig: { relativeName: `other${i}`, ttl: 30 },
    });
  }
  await client.putProfile(
    overrides
      ? {
          ...profile('192.0.2.250'),
          endpoints: [
            ...profile('192.0.2.250').endpoints,
            { name: 'b', type: 'externalEndpoints', target: '192.0.2.251', alwaysServe: 'Enabled' as const },
          ],
        }
      : profile('192.0.2.250'),
  );
  let held: string | undefined;
  /** One change: a profile write, or (--overrides) an override made or cleared; the address DNS answers next. */
  const change = async (i: number): Promise<string> => {
    if (!overrides) {
      const ip = `192.0.2.${(i % 240) + 1}`;
      await client.putProfile(profile(ip));
      return ip;
    }
    if (held === undefined) {
      held = (await client.createOverride({ kind: 'down', profile: 'bench', endpoint: 'a', for: '10m', who: 'bench' })).override.id;
      return '192.0.2.251';
    }
    await client.clearOverride(held);
    held = undefined;
    return '192.0.2.250';
  };
  const writeToDns: number[] = [];
  const ackToDns: number[] = [];
  const queries: number[] = [];
  for (let i = 0; i < changes; i++) {
    const t0 = performance.now();
    const ip = await change(i);
    const tAck = performance.now();
    let n = 0;
    for (;;) {
      n++;
      const a = await dns.query('bench.tm.internal');
      if (a.length === 1 && a[0] === ip) break;
      if (performance.now() - t0 > 5000) throw new Error(`change ${i} did not reach DNS within 5 s`);
    }
    const t1 = performance.now();
    writeToDns.push(t1 - t0);
    ackToDns.push(t1 - tAck);
    queries.push(n);
    await new Promise((r) => setTimeout(r, 20));
  }
  const metrics = await client.metrics();
  const sum = Number(/tmkit_config_apply_seconds_sum (\S+)/.exec(metrics)?.[1] ?? NaN);
  const count = Number(/tmkit_config_apply_seconds_count (\S+)/.exec(metrics)?.[1] ?? NaN);
  process.stdout.write(
    [
      `${overrides ? 'override (made / cleared)' : 'config change'} → DNS answer latency: ${changes} changes, ${others + 1} profiles stored, tmkit serve as its own process${workers > 1 ? ` with ${workers} DNS workers` : ''}, UDP polling on 127.0.0.1`,
      summary('write→DNS', writeToDns),
      summary('ack→DNS', ackToDns),
      `DNS queries until the new answer: median ${pct(queries, 50)}, max ${Math.max(...queries)} (1 = the first query after the ack already had it)`,
      `server commit→snapshot swap (tmkit_config_apply_seconds): mean ${((sum / count) * 1000).toFixed(2)} ms over ${count} rebuilds`,
      `target < 100 ms: ${Math.max(...writeToDns) < 100 ? 'met (max write→DNS below 100 ms)' : `NOT met for ${writeToDns.filter((x) => x >= 100).length} change(s)`}`,
      '',
    ].join('\n'),
  );
  dns.close();
  await client.close();
  await serve.kill();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
