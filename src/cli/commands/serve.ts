import { chmodSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import * as net from 'node:net';
import { type Command, Option } from 'commander';
import { Engine, geoOptions, isDnsWorker, runDnsWorker } from '../../runtime/engine';
import { checkClusterNames, parseEtcdUrl, type ClusterOptions } from '../../runtime/cluster';
import { decisionEvery, type BoundAddress } from '../../runtime/dns';
import { describeDriver, SqliteStore } from '../../runtime/store';
import { envToken } from '../../runtime/api';
import { CliError, EXIT_USAGE } from '../errors';
import {
  addDnssecOptions,
  addDecisionLogOption,
  checkDecisionLog,
  addTcpLimitOptions,
  authorityFrom,
  dnssecPolicyFrom,
  checkAuthority,
  decideWorkers,
  dnsLimitsFrom,
  parseHostPort,
  parseNs,
  parseWorkers,
  showAddress as show,
} from '../util/dns-options';
import { readJsonFile } from '../util/files';
import { renderText as renderDiagnostics } from '../util/diagnostics';
import { desiredDocument, PlanFormatError, readPlanJson } from '../../core/plan';
import { geoMessage, requireGeoDatabase } from '../util/geo';
import { applyFile } from '../util/apply';
import { addWebhookOptions, webhooksFrom, type WebhookOptions } from '../util/webhook-options';
import { followNpmParent } from '../util/parent';
import { loopbackApiUrl, removeServerFile, SERVER_FILE, writeServerFile } from '../util/server-file';
import { asCliError, userToBecome, workersUnderUser } from '../util/user-option';
import { LOG_FORMATS, type LogFormatOption, serveLogger } from '../util/log-output';
import { bindRefusedHint, checkReadable, dropPrivileges, handOverStateDir, isBindRefused, prepareStateDir } from '../../runtime/privileges';

interface ServeOptions extends WebhookOptions {
  /** --decision-log FILE. */
  decisionLog?: string;
  /** False with --no-cookies. */
  cookies: boolean;
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
  logFormat: LogFormatOption;
  apply?: string;
  forceEmpty?: boolean;
  maxUdpPayload: string;
  tcpIdleTimeout: string;
  tcpMaxConnections: string;
  tcpMaxConnectionsPerClient: string;
  probeDnsServer: string[];
  store?: string;
  node?: string;
  location?: string;
  leaseTtl: string;
  etcdCa?: string;
  etcdCert?: string;
  etcdKey?: string;
  dnssec?: boolean;
  dnssecAlgorithm: string;
  dnssecKeys: string;
  user?: string;
}

function shownPath(p: string): string {
  const r = relative(process.cwd(), p);
  return r !== '' && !r.startsWith('..') && !isAbsolute(r) ? r : p;
}

/**
 * `tmkit serve`: the runtime (docs/cli.md): DNS (UDP+TCP) + prober + management API + embedded store.
 * Runs until SIGTERM/SIGINT, then drains in-flight API requests and exits 0.
 */
export function registerServe(program: Command): void {
  addWebhookOptions(
    addDnssecOptions(
      addTcpLimitOptions(
        addDecisionLogOption(program.command('serve'))
          .description('run the runtime: authoritative DNS, health probing, the management API and the embedded store')
          .option('--state-dir <dir>', 'where the store (tmkit.db) and the API token live', '.tmkit')
          .option('--zone <zone>', 'authoritative zone; profiles answer at <relativeName>.<zone>', 'tm.internal')
          .option(
            '--dns <address:port>',
            'DNS listen address, UDP and TCP (repeatable; default 127.0.0.1:5300)',
            (v: string, acc: string[] | undefined) => [...(acc ?? []), v],
          )
          .option(
            '--api <address:port>',
            'management API listen address (loopback by default: put TLS in front before exposing it)',
            '127.0.0.1:5380',
          )
          .option('--resources <file>', 'Azure resource catalog to load at start: {"<ARM id>": {"target", "location", "state"}}')
          .option(
            '--geoip <file.mmdb>',
            'city-level MMDB consulted before the country database package (used alone when that package is not installed)',
          )
          .option(
            '--latency-table <file.json>',
            'measured latencies {"<CIDR>|<country>|<subdivision>": {"<region>": ms}} overriding the distance model for Performance routing',
          )
          .option(
            '--ns <name[=address,...]>',
            'apex NS name, with its addresses when it is inside the zone (repeatable; default ns1.<zone>)',
            (v: string, acc: string[]) => [...acc, v],
            [],
          )
          .option('--soa-rname <mailbox>', 'SOA contact in domain form (default hostmaster.<zone>)')
          .option(
            '--workers <n|auto>',
            'DNS worker processes on the DNS port (node:cluster). auto: min(cores, 4) where each worker ' +
              'can bind its own UDP and TCP socket (SO_REUSEPORT: Node >= 22.12 on Linux), else 1; N: ' +
              'exactly N (1-64; without SO_REUSEPORT they share one socket); 1 = DNS in the main process',
            'auto',
          )
          .option('--max-udp-payload <octets>', 'largest UDP response (EDNS payload cap, 512-4096)', '1232')
          .option(
            '--probe-dns-server <address[:port]>',
            'DNS server for resolving FQDN probe targets, after /etc/hosts (repeatable; default: the nameservers in /etc/resolv.conf)',
            (v: string, acc: string[]) => [...acc, v],
            [],
          )
          .option('--log-level <level>', 'pino log level (debug adds a line per API request)', 'info')
          .addOption(
            new Option('--log-format <format>', 'logs on stderr: a text line each or pino JSON; auto: text on a terminal, else JSON')
              .choices([...LOG_FORMATS])
              .default('auto'),
          )
          .option(
            '--user <name[:group]>',
            'started as root: bind every socket, then run as this user and group (default: its primary group); ' +
              'the state dir must be theirs (docs/production.md)',
          )
          .option(
            '--apply <file>',
            'at start, plan a tmkit/v1 document (or a plan from `tmkit plan --out`) against the store and apply it; exit 1 if it is invalid',
          )
          .option(
            '--force-empty',
            'start with an empty store even though tmkit.db is empty or uninitialised in a ' +
              'state dir that was used before (normally refused: it looks like a lost database)',
          )
          .option(
            '--store <url>',
            'cluster mode: keep the configuration in etcd, etcd://HOST:PORT[,HOST:PORT...][/PREFIX] ' +
              '(etcds:// for TLS); every node of the cluster gets the same URL and TMKIT_TOKEN',
          )
          .option('--node <name>', "cluster mode: this node's name (unique in the cluster)")
          .option('--location <name>', "cluster mode: this node's probing location (default: the node name); one node per location")
          .option('--lease-ttl <seconds>', "cluster mode: a dead node's verdicts expire this long after its last keep-alive", '10')
          .option('--etcd-ca <file>', "cluster mode, etcds://: CA bundle (PEM) that signed etcd's certificate")
          .option('--etcd-cert <file>', "cluster mode, etcds://: client certificate (PEM) for etcd's --client-cert-auth")
          .option(
            '--etcd-key <file>',
            "cluster mode, etcds://: the client certificate's key (PEM); etcd users: TMKIT_ETCD_USER and TMKIT_ETCD_PASSWORD",
          ),
      ),
      'in the state dir (mode 0600, in tmkit backup) or, in cluster mode, in etcd',
    ),
  ).action(async (opts: ServeOptions) => {
    const workersOption = parseWorkers(opts.workers);
    const dns = (opts.dns ?? ['127.0.0.1:5300']).map((s) => parseHostPort('--dns', s));
    const dnsLimits = dnsLimitsFrom({ ...opts, udpPayload: opts.maxUdpPayload }, '--max-udp-payload');
    const ns = opts.ns.map(parseNs);
    checkAuthority(opts.zone, opts.ns, ns, opts.soaRname);
    const authority = authorityFrom(ns, opts.soaRname);
    if (isDnsWorker()) {
      // A DNS worker forked by the primary below: DNS only, fed by the primary over IPC.
      // The worker re-parses the primary's own argv, so every DNS flag reaches it.
      // With --user it becomes the user before anything else: its sockets are the primary's, bound as root
      // (workersUnderUser), so it needs no right of its own; a replacement forked after the drop already is the user.
      const self = userToBecome(opts.user);
      if (self) dropPrivileges(self);
      await runDnsWorker({ zone: opts.zone, dns, ...geoOptions(opts), authority, dnsLimits });
      return;
    }
    checkDecisionLog(opts.decisionLog, decisionEvery(dnsLimits.tap));
    // Before anything is opened: without the geo database (and --geoip) serve cannot place DNS clients.
    requireGeoDatabase('serve', opts.geoip);
    const apiAddr = parseHostPort('--api', opts.api);
    // --user: who to become once everything is bound (undefined: no --user, or already that user).
    const user = userToBecome(opts.user);
    // Per-worker sockets or one shared socket, and what `auto` means here (probed once, in the primary only).
    const { workers, notice: workersNotice } = user ? workersUnderUser(workersOption) : await decideWorkers(workersOption);
    const cluster = clusterOptions(opts);
    const dnssec = dnssecPolicyFrom(opts);
    const probeDnsServers = opts.probeDnsServer.map(parseDnsServer);
    const webhooks = webhooksFrom(opts);
    // Fail before the state dir, the database or the token exist when the file is not a document or plan.
    if (opts.apply !== undefined) checkApplyFile(opts.apply);
    try {
      envToken();
    } catch (err) {
      throw new CliError(`serve: ${(err as Error).message}`, EXIT_USAGE);
    }
    tightenStateDir(opts.stateDir);
    // The state dir must be the user's (it writes there after the drop, and a restart opens it as the user);
    // the files it reads after the drop too (DNS workers open the geo files).
    if (user)
      asCliError(() => {
        prepareStateDir(opts.stateDir, user);
        if (opts.geoip !== undefined) checkReadable(opts.geoip, '--geoip', user);
        if (opts.latencyTable !== undefined) checkReadable(opts.latencyTable, '--latency-table', user);
      });
    // Listen for SIGTERM/SIGINT before anything is printed: a supervisor may signal the moment it reads the
    // banner, and a signal that comes before the handler would kill the process without a clean stop. One
    // during start-up stops the runtime as soon as it is up.
    // On a terminal the logs are text lines, and those logged while serve starts wait until the banner is out,
    // so the banner stays one block (util/log-output.ts).
    const log = serveLogger(opts.logLevel, opts.logFormat);
    const logger = log.logger;
    const signalled = untilSignal(() => {
      log.release();
      process.stderr.write('tmkit serve: second signal, exiting now\n');
    });
    // Under npx, stop when npx is stopped (npm does not pass its signal on: util/parent.ts).
    followNpmParent();
    let engine: Engine;
    let serverFile = false;
    log.hold();
    try {
      try {
        engine = await Engine.start({
          stateDir: opts.stateDir,
          zone: opts.zone,
          dns,
          api: { host: apiAddr.address, port: apiAddr.port },
          logger,
          workers,
          ...(user && workers > 1 ? { dnsSockets: 'shared' as const } : {}),
          ...(opts.forceEmpty ? { forceEmpty: true } : {}),
          dnsLimits,
          ...(opts.cookies === false ? { cookies: false } : {}),
          ...(probeDnsServers.length > 0 ? { monitor: { resolver: { servers: probeDnsServers } } } : {}),
          ...(opts.resources !== undefined ? { resourcesFile: opts.resources } : {}),
          ...geoOptions(opts),
          authority,
          ...(cluster ? { cluster } : {}),
          ...(dnssec ? { dnssec } : {}),
          ...(webhooks ? { webhooks } : {}),
          ...(opts.decisionLog !== undefined ? { decisionLog: opts.decisionLog } : {}),
        });
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        if (e.code === 'EADDRINUSE')
          throw new CliError(`serve: ${e.message}: another process listens there; pick another --dns/--api address`);
        if (isBindRefused(e)) throw new CliError(`serve: ${e.message}: ${bindRefusedHint()}`);
        throw new CliError(`serve: ${geoMessage(e)}`);
      }
      if (user) {
        // Everything is bound: what start-up made in the state dir as root goes to the user, then root goes.
        // Both synchronous: no other JavaScript of this process runs between them.
        try {
          handOverStateDir(opts.stateDir, user);
          dropPrivileges(user);
        } catch (err) {
          await engine.stop();
          throw new CliError(`serve --user ${opts.user}: ${(err as Error).message.replace(/^--user \S+: /, '')}; the runtime was stopped`);
        }
      }
      const api = engine.apiAddress();
      if (opts.apply !== undefined) await applyAtStart(engine, opts.apply);
      // Where local clients reach the API (docs/cli.md): they read it from the state dir, as the token.
      serverFile = announceServer(opts.stateDir, api.address, api.port);
      const profiles = engine.snapshot().profiles.size;
      const tokenWhere =
        engine.token.origin === 'env'
          ? 'from TMKIT_TOKEN'
          : `in ${shownPath(engine.token.path ?? join(opts.stateDir, 'token'))} (mode 0600${engine.token.origin === 'generated' ? ', generated now' : ''})`;
      const dnsWhere = engine
        .dnsAddresses()
        .map((a: BoundAddress) => show(a))
        .join(', ');
      process.stdout.write(
        [
          cluster
            ? `tmkit serve: zone ${engine.zone}, ${profiles} profile${profiles === 1 ? '' : 's'}, store ${cluster.store} ` +
              `(node ${cluster.node}, location ${cluster.location}, etcd ` +
              `${engine.cluster!.session.isConnected() ? `revision ${engine.cluster!.serial()}` : 'UNREACHABLE: serving the local copy'})` +
              `, local state in ${shownPath(opts.stateDir)}`
            : `tmkit serve: zone ${engine.zone}, ${profiles} profile${profiles === 1 ? '' : 's'}, state in ` +
              `${shownPath(join(opts.stateDir, 'tmkit.db'))}` +
              `${engine.store instanceof SqliteStore ? ` (SQLite driver: ${describeDriver(engine.store.driver)})` : ''}`,
          `  DNS  UDP+TCP ${dnsWhere}${workers > 1 ? ` (${workers} worker processes${engine.dnsSockets() === 'per-worker' ? ', a socket each' : ''})` : ''}` +
            `        dig @${engine.dnsAddresses()[0]!.address} -p ${engine.dnsAddresses()[0]!.port} <name>.${engine.zone}`,
          ...(workersNotice !== undefined ? [`       ${workersNotice}`] : []),
          ...dnssecBanner(engine),
          `  API  http://${show({ address: api.address, port: api.port })}   token ${tokenWhere}`,
          `  UI   http://${show({ address: api.address, port: api.port })}/ui/   (paste the API token to sign in)`,
          ...(user ? [`  User ${user.name}:${user.group} (uid ${user.uid}, gid ${user.gid}): bound as root, then dropped to it`] : []),
          '',
        ].join('\n'),
      );
    } finally {
      log.release();
    }
    await signalled;
    process.stdout.write('tmkit serve: stopping (draining API requests, saving monitor state)\n');
    // The documented grace is 5 s (in-flight API requests). Past it and a second, whatever still holds the
    // process is not worth waiting for: exit 1, saying so. Unref'd: it never keeps the process alive itself,
    // and stays armed after "stopped" so that nothing left behind can keep a stopped process running.
    const deadline = setTimeout(() => {
      process.stderr.write(`tmkit serve: not stopped ${STOP_DEADLINE_MS / 1000} s after the signal; exiting now\n`);
      process.exit(1);
    }, STOP_DEADLINE_MS);
    deadline.unref();
    await engine.stop();
    if (serverFile) removeServerFile(opts.stateDir);
    process.stdout.write('tmkit serve: stopped\n');
  });
}

/**
 * Writes `<state-dir>/server.json` with the API's loopback URL, so the commands that take --state-dir find
 * this server on any --api port (util/server-file.ts); true when written. An API on no loopback address
 * writes none (and removes a stale one), since clients take only a loopback URL from the file. A state dir
 * that refuses the file is said on stderr; serve runs on (clients then need --server).
 */
function announceServer(stateDir: string, address: string, port: number): boolean {
  const url = loopbackApiUrl(address, port);
  try {
    if (url === undefined) {
      rmSync(join(stateDir, SERVER_FILE), { force: true });
      return false;
    }
    writeServerFile(stateDir, url);
    return true;
  } catch (err) {
    process.stderr.write(
      `tmkit serve: could not write ${join(stateDir, SERVER_FILE)}: ${(err as Error).message}; clients need --server ${url}\n`,
    );
    return false;
  }
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
    await applyFile(
      file,
      { server: `http://${show({ address: host, port: a.port })}`, token: engine.token.token, yes: true, showPlan: false },
      {
        out: { write: (s: string) => process.stdout.write(`  ${s}`) },
        err: process.stderr,
      },
    );
    await engine.settle();
  } catch (err) {
    await engine.stop();
    if (err instanceof CliError) throw new CliError(`serve --apply: ${err.message.replace(/^apply: /, '')}; the runtime was stopped`);
    throw err;
  }
}

/**
 * `serve --apply FILE`, checked before anything is created: a plan file's format, or every error of the
 * document that does not depend on the store. Only a nested endpoint naming a profile outside the document
 * waits for the store (NESTED_TARGET_NOT_FOUND: another stack may have deployed it); applyAtStart plans the
 * document against the store as `tmkit apply` does.
 */
function checkApplyFile(file: string): void {
  const raw = readJsonFile(file, '--apply document', 'pass a tmkit/v1 document such as examples/basic/tmkit.out.json');
  const nothing = 'nothing was started or created';
  if (typeof raw === 'object' && raw !== null && (raw as { kind?: unknown }).kind === 'tmkit-plan') {
    try {
      readPlanJson(raw);
    } catch (err) {
      if (err instanceof PlanFormatError) throw new CliError(`serve --apply: ${file}: ${err.message}; ${nothing}`);
      throw err;
    }
    return;
  }
  const desired = desiredDocument(raw, []);
  const errors = desired.diagnostics.filter((d) => d.severity === 'error' && d.code !== 'NESTED_TARGET_NOT_FOUND');
  if (errors.length === 0) return;
  process.stderr.write(renderDiagnostics(errors, desired.profileNames));
  throw new CliError(
    `serve --apply: ${file} is not a valid document: fix the errors above (tmkit validate ${file} shows them too); ${nothing}`,
  );
}

/**
 * An existing state dir that others may enter (group or other bits, e.g. 0777 after a `mkdir` under a
 * permissive umask) is made 0700, saying so: it holds the API token and the store. serve creates a missing
 * one with 0700 itself (store/lock.ts). A directory this user may not chmod is refused.
 */
function tightenStateDir(dir: string): void {
  let mode: number;
  try {
    mode = statSync(dir).mode & 0o777;
  } catch {
    return;
  }
  if ((mode & 0o077) === 0) return;
  const octal = (m: number): string => `0${m.toString(8).padStart(3, '0')}`;
  try {
    chmodSync(dir, mode & 0o700);
  } catch (err) {
    throw new CliError(
      `serve: the state dir ${shownPath(dir)} has mode ${octal(mode)} (other users can reach the API token) and ` +
        `cannot be made ${octal(mode & 0o700)}: ${(err as Error).message}; fix its mode or pass another --state-dir`,
    );
  }
  process.stderr.write(
    `tmkit serve: the state dir ${shownPath(dir)} had mode ${octal(mode)}, open to other ` +
      `users; changed it to ${octal(mode & 0o700)} (it holds the API token and the store)\n`,
  );
}

/** `--store etcd://… --node … --location …` (cluster mode), checked before anything starts; undefined: SQLite. */
function clusterOptions(opts: ServeOptions): ClusterOptions | undefined {
  if (opts.store === undefined) {
    for (const [flag, v] of [
      ['--node', opts.node],
      ['--location', opts.location],
      ['--etcd-ca', opts.etcdCa],
      ['--etcd-cert', opts.etcdCert],
      ['--etcd-key', opts.etcdKey],
    ] as const) {
      if (v !== undefined)
        throw new CliError(
          `${flag} needs --store etcd://HOST:PORT (cluster mode); without --store, serve keeps its state in SQLite`,
          EXIT_USAGE,
        );
    }
    return undefined;
  }
  try {
    parseEtcdUrl(opts.store);
  } catch (err) {
    throw new CliError((err as Error).message, EXIT_USAGE);
  }
  if (opts.node === undefined)
    throw new CliError(
      `--store ${opts.store}: cluster mode needs --node NAME (unique per node) and --location NAME (its probing location)`,
      EXIT_USAGE,
    );
  const location = opts.location ?? opts.node;
  try {
    checkClusterNames(opts.node, location);
  } catch (err) {
    throw new CliError((err as Error).message, EXIT_USAGE);
  }
  const ttl = Number(opts.leaseTtl);
  if (!Number.isInteger(ttl) || ttl < 2 || ttl > 300)
    throw new CliError(`--lease-ttl ${opts.leaseTtl}: whole seconds from 2 to 300`, EXIT_USAGE);
  const user = process.env.TMKIT_ETCD_USER;
  const password = process.env.TMKIT_ETCD_PASSWORD;
  if ((user === undefined) !== (password === undefined))
    throw new CliError('set both TMKIT_ETCD_USER and TMKIT_ETCD_PASSWORD (etcd authentication), or neither', EXIT_USAGE);
  const tls = {
    ...(opts.etcdCa ? { caFile: opts.etcdCa } : {}),
    ...(opts.etcdCert ? { certFile: opts.etcdCert } : {}),
    ...(opts.etcdKey ? { keyFile: opts.etcdKey } : {}),
  };
  if ((opts.etcdCert === undefined) !== (opts.etcdKey === undefined))
    throw new CliError('--etcd-cert and --etcd-key go together (a client certificate and its key)', EXIT_USAGE);
  return {
    store: opts.store,
    node: opts.node,
    location,
    leaseTtlSeconds: ttl,
    ...(Object.keys(tls).length > 0 ? { tls } : {}),
    ...(user !== undefined && password !== undefined ? { auth: { username: user, password } } : {}),
  };
}

/** The banner's DNSSEC line: which keys sign, where they are, how to get the DS. */
function dnssecBanner(engine: Engine): string[] {
  const r = engine.dnssecService()?.report();
  if (r === undefined) return [];
  const keys = r.keys
    .filter((k) => k.state !== 'removed')
    .map((k) => `${k.role.toUpperCase()} ${k.keyTag}`)
    .join(', ');
  return [`  DNSSEC ${r.algorithmName}, ${keys}, keys in ${shownPath(r.keyStore)}; compact denial; DS for the parent: tmkit dnssec ds`];
}

/** From the first SIGTERM/SIGINT to a forced exit: the API's 5 s drain grace, plus one second. */
const STOP_DEADLINE_MS = 6_000;

/** `192.0.2.53`, `192.0.2.53:5353`, `2001:db8::53`, `[2001:db8::53]:5353` → the form c-ares takes. */
function parseDnsServer(s: string): string {
  const t = s.trim();
  if (net.isIP(t) !== 0) return t;
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(t) ?? /^([^:]+):(\d+)$/.exec(t);
  const port = m ? Number(m[2]) : NaN;
  if (!m || net.isIP(m[1]!) === 0 || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new CliError(
      `--probe-dns-server ${s}: expected an IP address with an optional port, such as 192.0.2.53, 192.0.2.53:5353 or [2001:db8::53]:53`,
      EXIT_USAGE,
    );
  }
  return net.isIPv6(m[1]!) ? `[${m[1]}]:${port}` : `${m[1]}:${port}`;
}

function untilSignal(onSecond: () => void): Promise<void> {
  return new Promise((resolveSignal) => {
    let count = 0;
    const handler = (): void => {
      count++;
      if (count === 1) resolveSignal();
      else {
        onSecond();
        process.exit(1);
      }
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}
