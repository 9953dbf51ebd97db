import cluster from 'node:cluster';
import { isAbsolute, join, relative } from 'node:path';
import * as net from 'node:net';
import type { Command } from 'commander';
import pino from 'pino';
import { Engine, geoOptions, runDnsWorker, type DnsAuthority } from '../../runtime/engine';
import { checkAuthority, parseNs } from './dns';
import type { BoundAddress, ListenAddress } from '../../runtime/dns';
import { CliError, EXIT_USAGE } from '../main';
import { readJsonFile } from '../util/files';
import { applyFile } from './apply';

interface ServeOptions {
  stateDir: string;
  zone: string;
  dns?: string[];
  api: string;
  resources?: string;
  geoip?: string;
  latencyTable?: string;
  ns: string[];
  soaRname?: string;
  workers: string;
  logLevel: string;
  apply?: string;
}

/** `host:port` or `[v6]:port` → address; the port is required. */
export function parseHostPort(flag: string, s: string): ListenAddress {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(s.trim()) ?? /^([^:]+):(\d+)$/.exec(s.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || net.isIP(m[1]!) === 0 || !Number.isInteger(port) || port > 65535) {
    throw new CliError(`${flag} ${s}: expected an IP address and port such as 127.0.0.1:5300 or [::1]:5300`, EXIT_USAGE);
  }
  return { address: m[1]!, port };
}

const show = (a: { address: string; port: number; family?: string }): string =>
  `${a.family === 'IPv6' || a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`;

function shownPath(p: string): string {
  const r = relative(process.cwd(), p);
  return r !== '' && !r.startsWith('..') && !isAbsolute(r) ? r : p;
}

/**
 * `tmkit serve`: the runtime (design §4): DNS (UDP+TCP) + prober + management API + embedded store.
 * Runs until SIGTERM/SIGINT, then drains in-flight API requests and exits 0.
 */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the runtime: authoritative DNS, health probing, the management API and the embedded store')
    .option('--state-dir <dir>', 'where the store (tmkit.db) and the API token live', '.tmkit')
    .option('--zone <zone>', 'authoritative zone; profiles answer at <relativeName>.<zone>', 'tm.internal')
    .option('--dns <address:port>', 'DNS listen address, UDP and TCP (repeatable; default 127.0.0.1:5300)', (v: string, acc: string[] | undefined) => [...(acc ?? []), v])
    .option('--api <address:port>', 'management API listen address (loopback by default: put TLS in front before exposing it)', '127.0.0.1:5380')
    .option('--resources <file>', 'Azure resource catalog to load at start: {"<ARM id>": {"target", "location", "state"}}')
    .option('--geoip <file.mmdb>', 'city-level MMDB consulted before the shipped country database')
    .option('--latency-table <file.json>', 'measured latencies {"<CIDR>|<country>|<subdivision>": {"<region>": ms}} overriding the distance model for Performance routing')
    .option('--ns <name[=address,...]>', 'apex NS name, with its addresses when it is inside the zone (repeatable; default ns1.<zone>)', (v: string, acc: string[]) => [...acc, v], [])
    .option('--soa-rname <mailbox>', 'SOA contact in domain form (default hostmaster.<zone>)')
    .option('--workers <n>', 'DNS worker processes sharing the DNS port (node:cluster); 1 = DNS in the main process', '1')
    .option('--log-level <level>', 'pino log level (logs go to stderr as JSON)', 'info')
    .option('--apply <file>', 'at start, plan a tmkit/v1 document (or a plan from `tmkit plan --out`) against the store and apply it; exit 1 if it is invalid')
    .action(async (opts: ServeOptions) => {
      const workers = Number(opts.workers);
      if (!Number.isInteger(workers) || workers < 1) throw new CliError(`--workers ${opts.workers}: expected a positive integer`, EXIT_USAGE);
      if (workers > 64) throw new CliError(`--workers ${opts.workers}: at most 64`, EXIT_USAGE);
      const dns = (opts.dns ?? ['127.0.0.1:5300']).map((s) => parseHostPort('--dns', s));
      const ns = opts.ns.map(parseNs);
      checkAuthority(opts.zone, opts.ns, ns, opts.soaRname);
      const authority: DnsAuthority = {
        ...(ns.length > 0 ? { nsNames: ns.map((n) => n.name), nsAddresses: Object.fromEntries(ns.map((n) => [n.name, n.addresses])) } : {}),
        ...(opts.soaRname !== undefined ? { soa: { rname: opts.soaRname } } : {}),
      };
      if (cluster.isWorker && process.env.TMKIT_DNS_WORKER === '1') {
        // A DNS worker forked by the primary below: DNS only, fed by the primary over IPC.
        await runDnsWorker({ zone: opts.zone, dns, ...geoOptions(opts), authority });
        return;
      }
      const apiAddr = parseHostPort('--api', opts.api);
      // Fail before opening anything when the file cannot be read or is not JSON (full validation needs the store).
      if (opts.apply !== undefined) readJsonFile(opts.apply, '--apply document', 'pass a tmkit/v1 document such as examples/basic/tmkit.out.json');
      const logger = pino({ level: opts.logLevel }, pino.destination(2));
      let engine: Engine;
      try {
        engine = await Engine.start({
          stateDir: opts.stateDir, zone: opts.zone, dns, api: { host: apiAddr.address, port: apiAddr.port }, logger, workers,
          ...(opts.resources !== undefined ? { resourcesFile: opts.resources } : {}),
          ...geoOptions(opts), authority,
        });
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        if (e.code === 'EADDRINUSE') throw new CliError(`serve: ${e.message}: another process listens there; pick another --dns/--api address`);
        throw new CliError(`serve: ${e.message}`);
      }
      const api = engine.apiAddress();
      if (opts.apply !== undefined) await applyAtStart(engine, opts.apply);
      const profiles = engine.snapshot().profiles.size;
      const tokenWhere = engine.token.origin === 'env' ? 'from TMKIT_TOKEN' : `in ${shownPath(engine.token.path ?? join(opts.stateDir, 'token'))} (mode 0600${engine.token.origin === 'generated' ? ', generated now' : ''})`;
      const dnsWhere = engine.dnsAddresses().map((a: BoundAddress) => show(a)).join(', ');
      process.stdout.write([
        `tmkit serve: zone ${engine.zone}, ${profiles} profile${profiles === 1 ? '' : 's'}, state in ${shownPath(join(opts.stateDir, 'tmkit.db'))}`,
        `  DNS  UDP+TCP ${dnsWhere}${workers > 1 ? ` (${workers} worker processes)` : ''}        dig @${engine.dnsAddresses()[0]!.address} -p ${engine.dnsAddresses()[0]!.port} <name>.${engine.zone}`,
        `  API  http://${show({ address: api.address, port: api.port })}   token ${tokenWhere}`,
        '',
      ].join('\n'));
      await untilSignal(() => process.stderr.write('tmkit serve: second signal, exiting now\n'));
      process.stdout.write('tmkit serve: stopping (draining API requests, saving monitor state)\n');
      await engine.stop();
      process.stdout.write('tmkit serve: stopped\n');
    });
}

/**
 * `serve --apply FILE`: the same plan/execute path as `tmkit apply FILE --yes`, through the runtime's own
 * management API (so validation, stack scoping, preconditions and ordering are exactly those of a remote
 * apply). Waits until DNS serves the result. On an invalid document or a failed apply, stops the runtime
 * and fails (exit 1).
 */
async function applyAtStart(engine: Engine, file: string): Promise<void> {
  const a = engine.apiAddress();
  const host = a.address === '0.0.0.0' ? '127.0.0.1' : a.address === '::' ? '::1' : a.address;
  process.stdout.write(`tmkit serve: applying ${file}\n`);
  try {
    await applyFile(file, { server: `http://${show({ address: host, port: a.port })}`, token: engine.token.token, yes: true, showPlan: false }, {
      out: { write: (s: string) => process.stdout.write(`  ${s}`) },
      err: process.stderr,
    });
    await engine.settle();
  } catch (err) {
    await engine.stop();
    if (err instanceof CliError) throw new CliError(`serve --apply: ${err.message.replace(/^apply: /, '')}; the runtime was stopped`);
    throw err;
  }
}

function untilSignal(onSecond: () => void): Promise<void> {
  return new Promise((resolveSignal) => {
    let count = 0;
    const handler = (): void => {
      count++;
      if (count === 1) resolveSignal();
      else { onSecond(); process.exit(1); }
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}
