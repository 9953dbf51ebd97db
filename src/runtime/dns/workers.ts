/**
 * DNS in worker processes (node:cluster, `--workers N`): both sides of their one protocol. The primary side
 * is `DnsWorkerPool` (a `DnsTarget`: forks, feeds and replaces the workers); the worker side is
 * `runDnsWorker` (a DnsServer whose snapshot is rebuilt from every update the primary sends). The messages
 * between them are the types below and `SnapshotUpdate` (snapshot-sink.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { LatencyView } from '../../core/health/latency';
import type { EndpointOverride, ProbeVerdict } from '../../core/health/types';
import { toResourceCatalog } from '../../core/model/catalog';
import type { Profile } from '../../core/model/types';
import type { GeoLookup, ResourceCatalog } from '../../core/ports';
import { overriddenProfilesChanged } from '../../core/operations/overrides';
import { buildSnapshot, resolve, updateSnapshot, type CompiledSnapshot } from '../../core/routing';
import { MmdbGeoLookup } from '../../geo';
import type { SnapshotUpdate } from '../snapshot-sink';
import { DnsCountsAggregate, type DnsCounts } from './counts';
import type { KeySetDocument } from './dnssec/keys';
import { signerFor, sumSignerStats, type SignerStats } from './dnssec/signer';
import { assertDnsPortFree, freeDnsPort } from './port-probe';
import { zeroStats, type ResponderStats } from './responder-options';
import { DnsServer, type BoundAddress, type ListenAddress } from './server';
import {
  admission,
  type DnsAuthority,
  type DnsCookieSecrets,
  type DnsLimits,
  type DnsSockets,
  type DnsTarget,
  type DnsWorkerReport,
} from './target';
import { CookieJar } from './cookies';
import { RrlAlerts, watchRrl, type RrlAlert, type RrlProcessAlert } from './rrl-alerts';
import type { TrafficRow } from './traffic';
import { clientMatcher, DecisionRing, type DecisionQuery, type DecisionRecord } from './decisions';
import type { DnstapStats } from './dnstap';
import { decisionEvery, type DnsTapOptions } from './tap';

/** Worker → primary. */
type WorkerMessage =
  | { type: 'tmkit-dns-hello' }
  | { type: 'tmkit-dns-listening'; addresses: BoundAddress[] }
  | {
      type: 'tmkit-dns-stats';
      stats: ResponderStats;
      counts?: DnsCounts;
      traffic?: TrafficRow[];
      dnssec?: SignerStats;
      /** Decision records sampled since the last report, and dnstap's cumulative figures. */
      decisions?: DecisionRecord[];
      dnstap?: DnstapStats;
    }
  | { type: 'tmkit-dns-failed'; message: string }
  /** Something the operator should see in the primary's log (a dnstap reader away). */
  | { type: 'tmkit-dns-problem'; message: string }
  | { type: 'tmkit-dns-rrl'; alert: RrlProcessAlert };

/** Primary → worker: the DNS cookie secrets (hex), sent before any snapshot (the worker answers cookies from its first query). */
export interface CookiesUpdate {
  type: 'tmkit-cookies';
  current: string;
  previous?: string;
}

/** Primary → worker: the DNSSEC key set, sent before any snapshot (the worker signs from its first answer). */
export interface DnssecUpdate {
  type: 'tmkit-dnssec';
  doc: KeySetDocument;
}

interface WorkerRecord extends DnsWorkerReport {
  id: number;
  dnssec?: SignerStats;
  dnstap?: DnstapStats;
}

/** What a worker gets before anything was published (DnsWorkerPool used without startDnsFleet). */
const EMPTY_FULL: SnapshotUpdate = {
  type: 'tmkit-snapshot',
  revision: 0,
  full: true,
  profiles: [],
  deleted: [],
  verdicts: {},
  verdictsComplete: true,
};

const ZERO_STATS: ResponderStats = zeroStats();

/** Adds `from`'s counters to `into`. */
function addStats(into: ResponderStats, from: ResponderStats): void {
  for (const k of Object.keys(into) as Array<keyof ResponderStats>) into[k] += from[k] ?? 0;
}

/** Exited workers kept by name for `workers()` (older ones only in the totals). */
const EXITED_KEPT = 16;
/** How long a DNS worker has to stop after SIGTERM before the primary kills it. */
const WORKER_STOP_MS = 5_000;

/**
 * N DNS worker processes on one port (node:cluster, as `tmkit dns --workers`). With `sockets: 'per-worker'`
 * each worker binds its own UDP and TCP sockets with SO_REUSEPORT and the kernel spreads queries over them;
 * with `'shared'` (Node < 22.12) they share the primary's one socket. The primary keeps the store, API and
 * prober; on every rebuild it sends each worker the snapshot's inputs and the worker builds the same
 * snapshot. A worker that dies is replaced (same slot); a worker binds only once it has the latest state.
 */
export class DnsWorkerPool implements DnsTarget {
  private full: (() => SnapshotUpdate) | undefined;
  /** Workers that got a full update since they (re)started listening; the others get one when they do. */
  private readonly synced = new Set<number>();
  private bound: BoundAddress[] = [];
  /** The worker processes by cluster id: the running ones and the last exited ones (their counters stay in the totals). */
  private readonly records = new Map<number, WorkerRecord>();
  /** The counters of exited workers no longer in `records` (a crash loop must not grow it without bound). */
  private readonly retired: ResponderStats = { ...ZERO_STATS };
  private readonly workerCounts = new DnsCountsAggregate();
  /** Traffic rows the workers reported since the last drain. */
  private traffic: TrafficRow[] = [];
  private stopping = false;
  private live = 0;
  private dnssec: DnssecUpdate | undefined;
  private cookies: CookiesUpdate | undefined;
  /** The workers' sustained rate limiting, folded into the node's one period. */
  private readonly rrlAlerts = new RrlAlerts();
  private readonly ring: DecisionRing | undefined;

  constructor(
    private readonly n: number,
    private readonly listen: ListenAddress[],
    private readonly logger: Logger,
    readonly sockets: DnsSockets = 'shared',
    cookies?: DnsCookieSecrets,
    private readonly tap?: DnsTapOptions,
  ) {
    if (cookies) this.cookies = cookiesUpdate(cookies);
    // The node's decision log: the workers report what they sampled (each second) into this one ring.
    if (decisionEvery(tap) > 0) this.ring = new DecisionRing(tap?.decisionRing ?? 10_000);
    if (!cluster.isPrimary) throw new Error('DnsWorkerPool: only the cluster primary can start DNS workers');
  }

  async start(): Promise<void> {
    // Port 0: choose a port free for both UDP and TCP here, so every worker binds the same concrete one
    // (workers sharing a port-0 UDP handle could otherwise not move on when its TCP twin is taken).
    // Per-worker sockets: a fixed port must be free before the first worker binds it, or the workers would
    // quietly join the reuseport group of another process of this user that holds it (and split its traffic).
    const listen = await Promise.all(
      this.listen.map(async (l) => {
        if (l.port === 0) return { address: l.address, port: await freeDnsPort(l.address) };
        if (this.sockets === 'per-worker') await assertDnsPortFree(l);
        return l;
      }),
    );
    return new Promise((resolveStart, rejectStart) => {
      let ready = 0;
      let started = false;
      const timer = setTimeout(() => fail('the DNS workers did not start within 90 s'), 90_000);
      const fail = (why: string): void => {
        if (started) return;
        started = true;
        clearTimeout(timer);
        void this.close().then(() => rejectStart(new Error(why)));
      };
      const fork = (slot: number): void => {
        this.live++;
        const w = cluster.fork({ TMKIT_DNS_WORKER: '1', TMKIT_DNS_LISTEN: JSON.stringify(listen), TMKIT_DNS_SOCKETS: this.sockets });
        const rec: WorkerRecord = { id: w.id, slot, pid: w.process.pid ?? 0, live: true, replaced: false, stats: { ...ZERO_STATS } };
        this.records.set(w.id, rec);
        w.on('message', (m: WorkerMessage) => {
          if (m?.type === 'tmkit-dns-hello') {
            // The worker binds only once it has the whole state: a replacement joining the port (its own
            // SO_REUSEPORT socket gets its share of queries at once) must never answer from an empty zone.
            if (w.isConnected()) {
              if (this.cookies) w.send(this.cookies);
              if (this.dnssec) w.send(this.dnssec);
              w.send(this.full?.() ?? EMPTY_FULL);
              this.synced.add(w.id);
            }
          } else if (m?.type === 'tmkit-dns-listening') {
            this.bound = m.addresses;
            if (!started && ++ready === this.n) {
              started = true;
              clearTimeout(timer);
              resolveStart();
            }
          } else if (m?.type === 'tmkit-dns-stats') {
            rec.stats = m.stats;
            if (m.dnssec) rec.dnssec = m.dnssec;
            if (m.counts) this.workerCounts.set(w.id, m.counts);
            if (m.traffic && m.traffic.length > 0) this.traffic.push(...m.traffic);
            if (m.dnstap) rec.dnstap = m.dnstap;
            if (m.decisions) for (const d of m.decisions) this.ring?.add(d);
          } else if (m?.type === 'tmkit-dns-failed') {
            fail(m.message);
          } else if (m?.type === 'tmkit-dns-problem') {
            this.logger.warn({ workerPid: w.process.pid, slot }, m.message);
          } else if (m?.type === 'tmkit-dns-rrl') {
            this.rrlAlerts.report(w.id, m.alert);
          }
        });
        w.on('exit', (code, signal) => {
          this.live--;
          rec.live = false;
          this.workerCounts.retire(w.id);
          this.synced.delete(w.id);
          this.rrlAlerts.gone(w.id);
          if (this.stopping) return;
          this.forgetOldExited();
          rec.replaced = started;
          if (!started) {
            fail(`a DNS worker exited (${signal ?? code}) before listening`);
            return;
          }
          this.logger.warn({ workerPid: w.process.pid, slot, code, signal }, 'DNS worker exited; starting another');
          fork(slot);
        });
      };
      for (let i = 1; i <= this.n; i++) fork(i);
    });
  }

  publish(_snapshot: CompiledSnapshot, delta: () => SnapshotUpdate, full: () => SnapshotUpdate, serial?: number): void {
    this.full = serial === undefined ? full : () => ({ ...full(), serial });
    let d: SnapshotUpdate | undefined;
    for (const w of Object.values(cluster.workers ?? {})) {
      if (!w || !this.synced.has(w.id) || !w.isConnected()) continue;
      d ??= serial === undefined ? delta() : { ...delta(), serial };
      w.send(d);
    }
  }

  addresses(): BoundAddress[] {
    return this.bound.map((b) => ({ ...b }));
  }

  setDnssec(doc: KeySetDocument): void {
    this.dnssec = { type: 'tmkit-dnssec', doc };
    for (const w of Object.values(cluster.workers ?? {})) if (w && this.synced.has(w.id) && w.isConnected()) w.send(this.dnssec);
  }

  setCookies(secrets: DnsCookieSecrets): void {
    this.cookies = cookiesUpdate(secrets);
    for (const w of Object.values(cluster.workers ?? {})) if (w && this.synced.has(w.id) && w.isConnected()) w.send(this.cookies);
  }

  onRrl(listener: (alert: RrlAlert) => void): () => void {
    return this.rrlAlerts.on(listener);
  }

  decisions(q: DecisionQuery): DecisionRecord[] {
    return this.ring?.query(q, q.client !== undefined ? clientMatcher(q.client) : undefined) ?? [];
  }

  decisionsAfter(mark: number): { records: DecisionRecord[]; mark: number } {
    const ring = this.ring;
    return ring ? { records: ring.after(mark), mark: ring.added } : { records: [], mark };
  }

  /** Summed over the workers' latest reports (an exited worker's connection is gone; its figures stay). */
  dnstapStats(): DnstapStats | undefined {
    if (!this.tap?.dnstap) return undefined;
    const sum: DnstapStats = { sent: 0, dropped: 0, connects: 0 };
    for (const r of this.records.values()) {
      if (!r.dnstap) continue;
      sum.sent += r.dnstap.sent;
      sum.dropped += r.dnstap.dropped;
      sum.connects += r.dnstap.connects;
    }
    return sum;
  }

  dnssecStats(): SignerStats | undefined {
    if (!this.dnssec) return undefined;
    return sumSignerStats([...this.records.values()].filter((r) => r.live && r.dnssec).map((r) => r.dnssec!));
  }

  /** Keeps the last EXITED_KEPT exited workers in `records`; older ones are added to `retired`. */
  private forgetOldExited(): void {
    const exited = [...this.records.values()].filter((r) => !r.live);
    for (const r of exited.slice(0, Math.max(0, exited.length - EXITED_KEPT))) {
      addStats(this.retired, r.stats);
      this.records.delete(r.id);
    }
  }

  /** Summed over the workers' latest reports, the exited workers' last ones included (so it never goes back). */
  stats(): ResponderStats | undefined {
    if (this.records.size === 0) return undefined;
    const out: ResponderStats = { ...this.retired };
    for (const r of this.records.values()) addStats(out, r.stats);
    return out;
  }

  /** The worker processes, running and recently exited, in slot order (a replaced one before its replacement). */
  workers(): DnsWorkerReport[] {
    return [...this.records.values()]
      .sort((a, b) => a.slot - b.slot || a.id - b.id)
      .map(({ id: _id, ...r }) => ({ ...r, stats: { ...r.stats } }));
  }

  /** Summed over the workers' latest reports (and the last reports of workers that exited). */
  counts(): DnsCounts {
    return this.workerCounts.total();
  }

  drainTraffic(): TrafficRow[] {
    const out = this.traffic;
    this.traffic = [];
    return out;
  }

  /**
   * Stops every worker: SIGTERM, and SIGKILL for one still there WORKER_STOP_MS later. A worker whose sockets
   * never finished closing (seen once: a worker on a busy port whose close never called back) must not keep
   * the primary, and `tmkit serve`/`dns`, waiting forever.
   */
  async close(): Promise<void> {
    this.stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((r) => {
            if (w.isDead()) {
              r();
              return;
            }
            const kill = setTimeout(() => {
              this.logger.warn({ workerPid: w.process.pid }, `DNS worker did not stop within ${WORKER_STOP_MS} ms of SIGTERM; killing it`);
              w.process.kill('SIGKILL');
            }, WORKER_STOP_MS);
            w.once('exit', () => {
              clearTimeout(kill);
              r();
            });
            w.process.kill('SIGTERM');
          }),
      ),
    );
  }
}

/** The cookie secrets as the worker protocol carries them (hex). */
function cookiesUpdate(cookies: DnsCookieSecrets): CookiesUpdate {
  return {
    type: 'tmkit-cookies',
    current: Buffer.from(cookies.current).toString('hex'),
    ...(cookies.previous ? { previous: Buffer.from(cookies.previous).toString('hex') } : {}),
  };
}

/** The geo databases and latency table named by the options (the shipped country database alone by default). */
export function geoOptions(o: { geoip?: string; latencyTable?: string }): { geoip?: string; latencyTable?: string } {
  return {
    ...(o.geoip !== undefined ? { geoip: o.geoip } : {}),
    ...(o.latencyTable !== undefined ? { latencyTable: o.latencyTable } : {}),
  };
}

/**
 * The body of a DNS worker process (`tmkit serve --workers N`, `tmkit dns --workers N`): a DNS server whose
 * snapshot is rebuilt from every update the primary sends. Resolves when the worker is told to stop
 * (SIGTERM/SIGINT or the primary going away).
 */
export async function runDnsWorker(o: {
  zone: string;
  dns: ListenAddress[];
  geoip?: string;
  latencyTable?: string;
  geo?: GeoLookup;
  authority?: DnsAuthority;
  dnsLimits?: DnsLimits;
}): Promise<void> {
  if (!isDnsWorker()) throw new Error('runDnsWorker: this process is not a DNS worker forked by the primary');
  const zone = o.zone.replace(/\.$/, '').toLowerCase();
  // The primary resolves port 0 to a concrete port for all workers.
  const listen = process.env.TMKIT_DNS_LISTEN ? (JSON.parse(process.env.TMKIT_DNS_LISTEN) as ListenAddress[]) : o.dns;
  const geo = o.geo ?? (await MmdbGeoLookup.open(geoOptions(o)));
  let snapshot = buildSnapshot({ zone, profiles: [], geo });
  // Per-worker sockets (SO_REUSEPORT): this worker binds its own; else the primary's one socket is shared.
  const reusePort = process.env.TMKIT_DNS_SOCKETS === 'per-worker';
  const server = new DnsServer({
    zone,
    snapshot,
    resolve,
    rng: Math.random,
    listen,
    ...o.authority,
    ...admission(o.dnsLimits, undefined, true, (message) => process.send?.({ type: 'tmkit-dns-problem', message })),
    ...(reusePort ? { reusePort } : {}),
  });
  const profiles = new Map<string, Profile>();
  let resources: ResourceCatalog = new Map();
  let haveState: () => void = () => undefined;
  const stateArrived = new Promise<void>((r) => {
    haveState = r;
  });
  const verdicts = new Map<string, ProbeVerdict>();
  let overrides = new Map<string, EndpointOverride>();
  let latency: LatencyView | undefined;
  const health = {
    verdict: (p: string, e: string): ProbeVerdict | undefined => verdicts.get(`${p}/${e}`),
    override: (p: string, e: string): EndpointOverride | undefined => overrides.get(`${p}/${e}`),
  };
  process.on('message', (m: SnapshotUpdate | DnssecUpdate | CookiesUpdate) => {
    if (m?.type === 'tmkit-cookies') {
      server.responder.setCookies(
        CookieJar.fromSecrets({
          current: Buffer.from(m.current, 'hex'),
          ...(m.previous !== undefined ? { previous: Buffer.from(m.previous, 'hex') } : {}),
        }),
      );
      return;
    }
    if (m?.type === 'tmkit-dnssec') {
      const before = server.responder.dnssec;
      const signer = signerFor(zone, m.doc, before);
      if (signer !== before) server.responder.setSigner(signer);
      return;
    }
    if (m?.type !== 'tmkit-snapshot') return;
    if (m.verdictsComplete) verdicts.clear();
    const verdictProfiles = new Set<string>();
    for (const [key, v] of Object.entries(m.verdicts)) {
      if (v === null) verdicts.delete(key);
      else verdicts.set(key, v);
      const slash = key.indexOf('/');
      verdictProfiles.add(slash < 0 ? key : key.slice(0, slash));
    }
    // The measured latency: sent whole when it changed (and with every full update); kept otherwise.
    if (m.latency !== undefined) latency = m.latency;
    // The primary's overrides (pipeline.ts): the profiles whose overrides differ are compiled again.
    const nextOverrides = new Map(Object.entries(m.overrides ?? {}));
    for (const p of overriddenProfilesChanged(overrides, nextOverrides)) verdictProfiles.add(p);
    overrides = nextOverrides;
    if (m.full || m.resources) {
      // The whole state or a new catalog: build from everything (unchanged profile objects keep their compiled form).
      if (m.full) profiles.clear();
      for (const n of m.deleted) profiles.delete(n);
      for (const p of m.profiles) profiles.set(p.name, p);
      if (m.resources) resources = toResourceCatalog(m.resources);
      snapshot = buildSnapshot(
        { zone, profiles: [...profiles.values()], resources, geo, health, ...(latency ? { latency } : {}) },
        snapshot,
      );
    } else {
      // A delta: the same edit the primary made (updateSnapshot; `profiles` follows for the next full build).
      const changed = new Map<string, Profile | undefined>();
      for (const n of m.deleted) {
        profiles.delete(n);
        changed.set(n, undefined);
      }
      for (const p of m.profiles) {
        profiles.set(p.name, p);
        changed.set(p.name, p);
      }
      snapshot = updateSnapshot(snapshot, {
        profiles: changed,
        ...(m.verdictsComplete ? { allVerdicts: true } : { verdicts: verdictProfiles }),
        health,
        ...(latency ? { latency } : {}),
      });
    }
    server.setSnapshot(snapshot, m.serial, m.revision);
    if (m.full) haveState();
  });
  // The whole state first (asked for once this handler listens), then the port: never an answer from an empty zone.
  // A stop meanwhile ends the wait; the listeners go once it is over (SIGTERM then stops the worker as it
  // did before: a listener left behind would keep a worker that failed to bind alive, and the primary waiting).
  let onGone: () => void = () => undefined;
  const gone = new Promise<'gone'>((r) => {
    onGone = () => r('gone');
  });
  process.once('disconnect', onGone);
  process.once('SIGTERM', onGone);
  process.send?.({ type: 'tmkit-dns-hello' });
  const waited = await Promise.race([stateArrived.then(() => 'ready' as const), gone]);
  process.off('disconnect', onGone);
  process.off('SIGTERM', onGone);
  if (waited === 'gone') {
    if (cluster.isWorker && cluster.worker?.isConnected()) cluster.worker.disconnect();
    return;
  }
  try {
    await server.start();
  } catch (err) {
    process.send?.({ type: 'tmkit-dns-failed', message: (err as Error).message });
    throw err;
  }
  process.send?.({ type: 'tmkit-dns-listening', addresses: server.addresses() });
  // Cumulative counters to the primary's /metrics: every second when something was answered.
  let reported = -1;
  const report = (): void => {
    if (server.stats.queries === reported) return;
    reported = server.stats.queries;
    const dnssec = server.responder.dnssec?.stats();
    const tap = server.tap;
    const decisions = tap?.drainBatch();
    const dnstap = tap?.stats();
    process.send?.({
      type: 'tmkit-dns-stats',
      stats: server.stats,
      counts: server.counts(),
      traffic: server.drainTraffic(),
      ...(dnssec ? { dnssec } : {}),
      ...(decisions && decisions.length > 0 ? { decisions } : {}),
      ...(dnstap ? { dnstap } : {}),
    });
  };
  const statsTimer = setInterval(report, 1000);
  statsTimer.unref();
  // Sustained rate limiting (this worker's limiter) to the primary, which folds the workers' into one event.
  const rrl = server.responder.rrl;
  const stopRrl = rrl ? watchRrl(rrl, (alert) => process.send?.({ type: 'tmkit-dns-rrl', alert })) : undefined;
  await new Promise<void>((r) => {
    // SIGINT (Ctrl-C reaches the whole process group) is left to the primary, which stops the workers.
    process.on('SIGINT', () => undefined);
    process.once('SIGTERM', () => r());
    process.once('disconnect', () => r());
  });
  clearInterval(statsTimer);
  stopRrl?.();
  server.responder.dnssec?.close();
  // Bounded: the primary SIGKILLs a worker that is not gone WORKER_STOP_MS after its SIGTERM.
  let closing: NodeJS.Timeout | undefined;
  await Promise.race([
    server.close().then(() => server.tap?.close()),
    new Promise<void>((r) => {
      closing = setTimeout(r, WORKER_STOP_MS / 2);
    }),
  ]);
  clearTimeout(closing);
  report();
  if (cluster.isWorker) cluster.worker?.disconnect();
}

/** True in a DNS worker process forked by `DnsWorkerPool` (its main script must then call `runDnsWorker()`). */
export function isDnsWorker(): boolean {
  return cluster.isWorker && process.env.TMKIT_DNS_WORKER === '1';
}
