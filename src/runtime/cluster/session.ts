/**
 * One node's connection to etcd (design §7): the client, a mirror of everything under the key prefix kept
 * current by one watch, the connection state, this node's lease, and a local copy of the mirror on disk.
 *
 *   etcd ──range (paged, one revision)──▶ mirror ◀──watch (resumes at the last applied revision; a compacted
 *                                           │        watch re-lists)
 *                                           ├──▶ store listeners (profiles, catalog: StoreChange)
 *                                           ├──▶ cluster listeners (nodes, verdicts)
 *                                           └──▶ <state-dir>/cluster-cache.json (restart while etcd is down)
 *
 * Keys (all under the prefix, each segment URI-encoded):
 *
 * | key                                   | value                                      | lease |
 * |---------------------------------------|--------------------------------------------|-------|
 * | `config/rev`                          | the configuration revision (decimal)       | no    |
 * | `config/profiles/<name>`              | `{stack, hash, modRevision, profile}`      | no    |
 * | `config/resources`                    | `{modRevision, catalog}`                   | no    |
 * | `nodes/<node>`                        | `{node, location, lease, startedAt, …}`    | yes   |
 * | `health/<profile>/<endpoint>/<location>` | `{verdict, fingerprint, node, at, reason}` | yes |
 *
 * Reads are served from the mirror, so they never wait for etcd and keep working while it is down. Every
 * configuration write bumps `config/rev` in the same transaction; writers compare its mod_revision, so a
 * write commits only against the view it was checked on (see store/etcd.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ConsecutiveBreaker, circuitBreaker, handleWhen, retry } from 'cockatiel';
import { Etcd3, isRecoverableError, type IKeyValue, type IOptions, type IWatchResponse } from 'etcd3';
import type { Logger } from 'pino';
import type { ProbeVerdict } from '../../core/health/types';
import type { ResourceCatalogRecord } from '../../core/model/catalog';
import type { Profile } from '../../core/model/types';
import { StoreError, type StoreChange, type StoredProfile } from '../../core/store';
import { makeEtag } from '../../core/store/conditions';
import { DEFAULT_PREFIX } from './url';

/** A tmkit node, registered under its lease while it runs. */
export interface NodeRecord {
  node: string;
  location: string;
  /** The lease (decimal id) its keys are attached to. */
  lease: string;
  startedAt: string;
  dns?: string[];
  api?: string;
}

/** One location's verdict on one endpoint (only decided verdicts are stored: no key = undecided). */
export interface LocationVerdict {
  verdict: Exclude<ProbeVerdict, 'CheckingEndpoint'>;
  /** Probe settings the verdict was reached with (a verdict for other settings counts as undecided). */
  fingerprint: string;
  node: string;
  /** ms since epoch of the transition. */
  at: number;
  reason: string;
}

interface StoredValue { stack: string; hash: string; modRevision: number; profile: Profile }

export interface EtcdSessionOptions {
  /** `http(s)://host:port`. */
  hosts: string[];
  /** Key prefix ending in `/` (default `/tmkit/`). */
  prefix?: string;
  /** TLS: CA bundle, client certificate and key (PEM). */
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer };
  /** etcd user (role-based access control). */
  auth?: { username: string; password: string };
  /** Where the local copy lives (`cluster-cache.json`); none: memory only. */
  stateDir?: string;
  logger?: Logger;
  /** Deadline of one etcd request (default 5000 ms). */
  requestTimeoutMs?: number;
  /** How long `open` waits for etcd before it starts from the local copy (default 5000 ms). */
  connectTimeoutMs?: number;
  /** Delay between reconnection attempts of the watch and the lease (default 250 ms, backing off to 2 s). */
  retryMs?: number;
}

export const CACHE_FILE = 'cluster-cache.json';
const CACHE_FORMAT = 'tmkit-etcd-cache/1';

const enc = (s: string): string => encodeURIComponent(s);
const dec = (s: string): string => decodeURIComponent(s);

export function keyOfVerdict(profile: string, endpoint: string, location: string): string {
  return `health/${enc(profile)}/${enc(endpoint)}/${enc(location)}`;
}

export function keyOfNode(node: string): string { return `nodes/${enc(node)}`; }
export function keyOfProfile(name: string): string { return `config/profiles/${enc(name)}`; }
export const REV_KEY = 'config/rev';
export const RESOURCES_KEY = 'config/resources';

/** The next key after every key starting with `prefix` (etcd's range_end for a prefix). */
function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) { end[i]!++; return end.subarray(0, i + 1); }
  }
  return Buffer.from([0]);
}

/** True for the failures that mean etcd could not be reached (as opposed to a refused request). */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof StoreError) return err.code === 'STORE_UNAVAILABLE';
  const name = (err as Error | undefined)?.constructor?.name ?? '';
  return isRecoverableError(err as Error) || /DeadlineExceeded|Unavailable|BrokenCircuit|Cancelled|ClientClosed|WatchStreamEnded/.test(name)
    || /ECONNREFUSED|UNAVAILABLE|DEADLINE|No connection|unavailable/i.test(String((err as Error | undefined)?.message));
}

type ClusterListener = () => void;
type StateListener = (connected: boolean) => void;

export class EtcdSession {
  readonly client: Etcd3;
  readonly prefix: string;
  readonly hosts: string[];
  private readonly prefixBuf: Buffer;
  private readonly logger: Logger | undefined;
  private readonly requestTimeoutMs: number;
  private readonly retryMs: number;
  private readonly cacheFile: string | undefined;

  // The mirror.
  /** Highest etcd revision whose events (under the prefix) are all applied. */
  appliedRevision = 0;
  clusterId = '';
  configRevision = 0;
  /** mod_revision of `config/rev` (0 while it does not exist): what configuration writers compare. */
  revKeyMod = 0;
  readonly profiles = new Map<string, StoredProfile>();
  resources: ResourceCatalogRecord = {};
  readonly nodes = new Map<string, NodeRecord>();
  /** `profile/endpoint` → location → verdict. */
  readonly health = new Map<string, Map<string, LocationVerdict>>();

  private connected = false;
  private downSince: number | undefined;
  private lastError: string | undefined;
  private closed = false;
  /** Started from the local copy (etcd was down at start): re-list on the first connection. */
  private fromCache = false;
  private readonly storeListeners = new Set<(c: StoreChange) => void>();
  private readonly clusterListeners = new Set<ClusterListener>();
  private readonly stateListeners = new Set<StateListener>();
  private waiters: Array<{ mod: number; resolve: () => void }> = [];
  private watchStream: { cancel(): void; write(x: unknown): boolean; end(): void } | undefined;
  private watchLoop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | undefined;
  private dirty = false;
  private lastSaveMs = 0;
  /** Number of times the watch was (re)created and the mirror re-listed (metrics, tests). */
  readonly stats = { watches: 0, relists: 0, compactions: 0, cacheWrites: 0 };

  private constructor(o: EtcdSessionOptions) {
    this.prefix = o.prefix ?? DEFAULT_PREFIX;
    this.prefixBuf = Buffer.from(this.prefix);
    this.hosts = o.hosts;
    this.logger = o.logger;
    this.requestTimeoutMs = o.requestTimeoutMs ?? 5_000;
    this.retryMs = o.retryMs ?? 250;
    this.cacheFile = o.stateDir !== undefined ? join(o.stateDir, CACHE_FILE) : undefined;
    const timeout = this.requestTimeoutMs;
    const options: IOptions = {
      hosts: o.hosts,
      dialTimeout: timeout,
      // Streams (watch, keep-alive) have no deadline; every other call has one, so nothing waits for a
      // silent etcd longer than the request timeout.
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeout }),
      grpcOptions: {
        'grpc.max_receive_message_length': 256 * 1024 * 1024,
        'grpc.max_send_message_length': 16 * 1024 * 1024,
        'grpc.initial_reconnect_backoff_ms': 200,
        'grpc.max_reconnect_backoff_ms': 2_000,
        // Find a silent (partitioned) etcd on idle connections too; etcd's default enforcement allows 5 s.
        'grpc.keepalive_time_ms': 10_000,
        'grpc.keepalive_timeout_ms': 5_000,
      },
      faultHandling: {
        // A host that failed twice is skipped for 1 s; a failed call is retried once on each other host.
        host: () => circuitBreaker(handleWhen(isRecoverableError), { halfOpenAfter: 1_000, breaker: new ConsecutiveBreaker(2) }),
        global: retry(handleWhen(isRecoverableError), { maxAttempts: Math.max(0, o.hosts.length - 1) }),
      },
    };
    if (o.tls && (o.tls.ca || o.tls.cert)) {
      options.credentials = {
        rootCertificate: o.tls.ca ?? Buffer.alloc(0),
        ...(o.tls.key ? { privateKey: o.tls.key } : {}),
        ...(o.tls.cert ? { certChain: o.tls.cert } : {}),
      };
    }
    if (o.auth) options.auth = { username: o.auth.username, password: o.auth.password };
    this.client = new Etcd3(options);
  }

  /**
   * Connects and loads the mirror. When etcd cannot be reached within the connect timeout, starts from the
   * local copy (and keeps trying to reach etcd in the background); without one, fails naming both.
   */
  static async open(o: EtcdSessionOptions): Promise<EtcdSession> {
    const s = new EtcdSession(o);
    try {
      await s.relist(o.connectTimeoutMs ?? 5_000);
      s.markUp();
    } catch (err) {
      if (!isUnavailable(err) || !s.loadCache()) {
        s.client.close();
        const where = o.hosts.join(', ');
        if (!isUnavailable(err)) throw new StoreError('STORE_UNAVAILABLE', `etcd at ${where} refused the first read: ${(err as Error).message}; check the etcd user's permissions on ${s.prefix}`);
        throw new StoreError('STORE_UNAVAILABLE',
          `cannot reach etcd at ${where} (${(err as Error).message}) and there is no local copy of the configuration` +
          `${s.cacheFile ? ` at ${s.cacheFile}` : ''} to start from; start etcd or fix --store`);
      }
      s.fromCache = true;
      s.markDown(err);
      s.logger?.warn({ err: (err as Error).message, revision: s.configRevision, file: s.cacheFile },
        'etcd is unreachable: serving the configuration saved locally; writes are refused until etcd is back');
    }
    s.watchLoop = s.runWatch();
    return s;
  }

  // ───────────────────────────── state ─────────────────────────────

  isConnected(): boolean { return this.connected; }

  /** What /healthz says about etcd. */
  state(): { connected: boolean; since?: number; error?: string; fromLocalCopy: boolean } {
    return {
      connected: this.connected,
      ...(this.downSince !== undefined ? { since: this.downSince } : {}),
      ...(this.lastError !== undefined && !this.connected ? { error: this.lastError } : {}),
      fromLocalCopy: this.fromCache,
    };
  }

  onState(l: StateListener): () => void { this.stateListeners.add(l); return () => this.stateListeners.delete(l); }
  onStore(l: (c: StoreChange) => void): () => void { this.storeListeners.add(l); return () => this.storeListeners.delete(l); }
  onCluster(l: ClusterListener): () => void { this.clusterListeners.add(l); return () => this.clusterListeners.delete(l); }

  markUp(): void {
    if (this.connected) return;
    this.connected = true;
    const wasDown = this.downSince;
    this.downSince = undefined;
    this.lastError = undefined;
    if (wasDown !== undefined) this.logger?.info({ downSeconds: Math.round((Date.now() - wasDown) / 100) / 10 }, 'etcd is reachable again');
    for (const l of this.stateListeners) { try { l(true); } catch { /* listener bug */ } }
  }

  markDown(err: unknown): void {
    const msg = (err as Error | undefined)?.message ?? String(err);
    // Keep the cause: "the circuit breaker is open" only says that the client stopped trying for a moment.
    if (this.lastError === undefined || this.connected || !/circuit breaker/i.test(msg)) this.lastError = msg;
    if (!this.connected && this.downSince !== undefined) return;
    this.connected = false;
    this.downSince = Date.now();
    this.logger?.warn({ err: this.lastError }, 'etcd is unreachable: answering and probing from the last state; writes are refused');
    for (const l of this.stateListeners) { try { l(false); } catch { /* listener bug */ } }
  }

  /** The error a write gets while etcd cannot be reached. */
  unavailable(cause?: unknown): StoreError {
    const since = this.downSince !== undefined ? `since ${new Date(this.downSince).toISOString()} (${Math.round((Date.now() - this.downSince) / 1000)} s)` : 'now';
    const why = cause !== undefined ? (cause as Error).message ?? String(cause) : this.lastError;
    return new StoreError('STORE_UNAVAILABLE',
      `etcd (${this.hosts.join(', ')}) is unreachable ${since}${why ? `: ${why}` : ''}; the change was not stored. ` +
      `This node keeps answering DNS from configuration revision ${this.configRevision}; retry when etcd is back`,
      { hosts: this.hosts, revision: this.configRevision });
  }

  /** Runs one etcd request: fails fast while etcd is known to be down; tracks the connection state. */
  async call<T>(fn: (c: Etcd3) => Promise<T>, opts: { failFast?: boolean } = {}): Promise<T> {
    if (this.closed) throw new StoreError('STORE_UNAVAILABLE', 'the etcd session is closed');
    if (opts.failFast !== false && !this.connected) throw this.unavailable();
    try {
      const r = await fn(this.client);
      this.markUp();
      return r;
    } catch (err) {
      if (isUnavailable(err)) {
        this.markDown(err);
        this.kickWatch();
        throw this.unavailable(err);
      }
      throw err;
    }
  }

  key(rest: string): Buffer { return Buffer.from(this.prefix + rest); }

  // ───────────────────────────── mirror ─────────────────────────────

  /** Resolves once the mirror has applied the `config/rev` write at `mod` (or a later one). */
  waitForConfig(mod: number, timeoutMs = 5_000): Promise<void> {
    if (this.revKeyMod >= mod) return Promise.resolve();
    return new Promise((resolve) => {
      const w = { mod, resolve };
      this.waiters.push(w);
      const t = setTimeout(() => {
        // The watch did not deliver it in time (a stuck stream): re-list, which reads at least `mod`.
        this.logger?.warn({ mod, applied: this.revKeyMod }, 'etcd watch is behind a committed write; re-listing');
        void this.relist(this.requestTimeoutMs).catch(() => undefined).finally(() => { this.dropWaiter(w); resolve(); });
      }, timeoutMs);
      t.unref();
      const orig = w.resolve;
      w.resolve = () => { clearTimeout(t); orig(); };
    });
  }

  /** Waits until the mirror has every configuration write committed before this call (a linearizable read). */
  async barrier(): Promise<void> {
    const res = await this.call((c) => c.kv.range({ key: this.key(REV_KEY) }));
    const kv = res.kvs[0];
    if (kv) await this.waitForConfig(Number(kv.mod_revision));
  }

  private dropWaiter(w: { mod: number; resolve: () => void }): void { this.waiters = this.waiters.filter((x) => x !== w); }

  private releaseWaiters(): void {
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => w.mod <= this.revKeyMod);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.mod > this.revKeyMod);
    for (const w of ready) w.resolve();
  }

  /** Reads everything under the prefix at one revision (paged) and replaces the mirror with it. */
  async relist(timeoutMs = this.requestTimeoutMs): Promise<void> {
    const end = prefixEnd(this.prefixBuf);
    const deadline = (): { deadline: number } => ({ deadline: Date.now() + timeoutMs });
    const kvs: IKeyValue[] = [];
    let revision: string | undefined;
    let clusterId = '';
    let from = this.prefixBuf;
    for (;;) {
      const res = await this.client.kv.range({ key: from, range_end: end, limit: 2000, sort_order: 'Ascend', sort_target: 'Key', ...(revision ? { revision } : {}) }, deadline());
      revision ??= res.header.revision;
      clusterId = res.header.cluster_id;
      kvs.push(...res.kvs);
      if (!res.more || res.kvs.length === 0) break;
      from = Buffer.concat([res.kvs[res.kvs.length - 1]!.key, Buffer.from([0])]);
    }
    this.stats.relists++;
    this.replaceMirror(kvs, Number(revision), clusterId);
  }

  private replaceMirror(kvs: IKeyValue[], revision: number, clusterId: string): void {
    const before = { profiles: new Map(this.profiles), resources: JSON.stringify(this.resources), nodes: JSON.stringify([...this.nodes]), health: this.healthDigest() };
    this.profiles.clear();
    this.nodes.clear();
    this.health.clear();
    this.resources = {};
    this.configRevision = 0;
    this.revKeyMod = 0;
    for (const kv of kvs) this.applyKv(kv, false);
    this.appliedRevision = Math.max(this.appliedRevision, revision);
    this.clusterId = clusterId;
    const changes: StoreChange[] = [];
    for (const name of new Set([...before.profiles.keys(), ...this.profiles.keys()])) {
      const a = before.profiles.get(name);
      const b = this.profiles.get(name);
      if (a?.etag !== b?.etag) changes.push({ revision: this.configRevision, kind: 'profile', op: b ? 'put' : 'delete', name });
    }
    if (JSON.stringify(this.resources) !== before.resources) changes.push({ revision: this.configRevision, kind: 'resources', op: 'replace' });
    const clusterChanged = JSON.stringify([...this.nodes]) !== before.nodes || this.healthDigest() !== before.health;
    this.emit(changes, clusterChanged);
  }

  private healthDigest(): string {
    return JSON.stringify([...this.health].map(([k, m]) => [k, [...m]]));
  }

  /** Applies one key (put or delete) to the mirror; returns what it was. */
  private applyKv(kv: IKeyValue, deleted: boolean): { kind: 'profile'; name: string } | { kind: 'resources' } | { kind: 'cluster' } | { kind: 'rev' } | undefined {
    const rest = kv.key.toString('utf8').slice(this.prefix.length);
    const parts = rest.split('/');
    try {
      if (rest === REV_KEY) {
        if (deleted) { this.configRevision = 0; this.revKeyMod = 0; } else { this.configRevision = Number(kv.value.toString('utf8')); this.revKeyMod = Number(kv.mod_revision); }
        return { kind: 'rev' };
      }
      if (rest === RESOURCES_KEY) {
        this.resources = deleted ? {} : (JSON.parse(kv.value.toString('utf8')) as { catalog: ResourceCatalogRecord }).catalog;
        return { kind: 'resources' };
      }
      if (parts[0] === 'config' && parts[1] === 'profiles' && parts.length === 3) {
        const name = dec(parts[2]!);
        if (deleted) { this.profiles.delete(name); return { kind: 'profile', name }; }
        const v = JSON.parse(kv.value.toString('utf8')) as StoredValue;
        this.profiles.set(name, { profile: v.profile, stack: v.stack, etag: makeEtag(v.modRevision, v.hash), modRevision: v.modRevision });
        return { kind: 'profile', name };
      }
      if (parts[0] === 'nodes' && parts.length === 2) {
        const node = dec(parts[1]!);
        if (deleted) this.nodes.delete(node); else this.nodes.set(node, JSON.parse(kv.value.toString('utf8')) as NodeRecord);
        return { kind: 'cluster' };
      }
      if (parts[0] === 'health' && parts.length === 4) {
        const key = `${dec(parts[1]!)}/${dec(parts[2]!)}`;
        const location = dec(parts[3]!);
        let m = this.health.get(key);
        if (deleted) {
          m?.delete(location);
          if (m && m.size === 0) this.health.delete(key);
        } else {
          if (!m) this.health.set(key, (m = new Map()));
          m.set(location, JSON.parse(kv.value.toString('utf8')) as LocationVerdict);
        }
        return { kind: 'cluster' };
      }
    } catch (err) {
      this.logger?.error({ err, key: rest }, 'etcd: a value under the tmkit prefix cannot be read; ignored');
    }
    return undefined;
  }

  private applyWatch(res: IWatchResponse): void {
    const changes: StoreChange[] = [];
    let cluster = false;
    let maxRev = 0;
    // Events of one revision (one transaction) are applied together; config/rev first, so the changes of
    // that transaction carry its configuration revision.
    const events = res.events;
    let i = 0;
    while (i < events.length) {
      const rev = Number(events[i]!.kv.mod_revision);
      let j = i;
      while (j < events.length && Number(events[j]!.kv.mod_revision) === rev) j++;
      const group = events.slice(i, j).sort((a, b) => (a.kv.key.toString().endsWith(`/${REV_KEY}`) ? -1 : 0) - (b.kv.key.toString().endsWith(`/${REV_KEY}`) ? -1 : 0));
      const touched: Array<ReturnType<EtcdSession['applyKv']>> = [];
      for (const ev of group) touched.push(this.applyKv(ev.kv, ev.type === 'Delete'));
      for (const t of touched) {
        if (!t) continue;
        if (t.kind === 'profile') changes.push({ revision: this.configRevision, kind: 'profile', op: this.profiles.has(t.name) ? 'put' : 'delete', name: t.name });
        else if (t.kind === 'resources') changes.push({ revision: this.configRevision, kind: 'resources', op: 'replace' });
        else if (t.kind === 'cluster') cluster = true;
      }
      maxRev = Math.max(maxRev, rev);
      i = j;
    }
    if (events.length > 0) this.appliedRevision = Math.max(this.appliedRevision, maxRev);
    else if (!res.created) this.appliedRevision = Math.max(this.appliedRevision, Number(res.header.revision)); // progress notification
    this.emit(changes, cluster);
  }

  private emit(changes: StoreChange[], cluster: boolean): void {
    for (const c of changes) for (const l of this.storeListeners) { try { l(c); } catch (err) { this.logger?.error({ err }, 'store listener failed'); } }
    if (cluster) for (const l of this.clusterListeners) { try { l(); } catch (err) { this.logger?.error({ err }, 'cluster listener failed'); } }
    this.releaseWaiters();
    if (changes.length > 0 || cluster) this.scheduleSave();
  }

  // ───────────────────────────── watch ─────────────────────────────

  /** Wakes the watch loop for an immediate reconnection attempt. */
  private kickWatch(): void { this.wake?.(); }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => {
      const t = setTimeout(() => { this.wake = undefined; r(); }, ms);
      this.wake = () => { clearTimeout(t); this.wake = undefined; r(); };
    });
  }

  /**
   * One watch over the whole prefix, from the revision after the last one applied. A break (etcd down,
   * a stream error) resumes at that revision; a compacted start revision re-lists first.
   */
  private async runWatch(): Promise<void> {
    let delay = this.retryMs;
    let relistFirst = this.fromCache;
    while (!this.closed) {
      let outcome: 'compacted' | 'broken' = 'broken';
      try {
        if (relistFirst) {
          await this.relist();
          relistFirst = false;
          this.fromCache = false;
          this.markUp();
        }
        outcome = await this.watchOnce(() => { delay = this.retryMs; });
      } catch (err) {
        if (!this.closed) this.markDown(err);
      }
      if (this.closed) break;
      if (outcome === 'compacted') { relistFirst = true; this.stats.compactions++; continue; }
      await this.sleep(delay);
      delay = Math.min(2_000, delay * 2);
    }
  }

  private async watchOnce(onHealthy: () => void): Promise<'compacted' | 'broken'> {
    const stream = await this.client.watchClient.watch();
    // Closed while the stream was being created: close() could not cancel it, so do it here.
    if (this.closed) { try { stream.cancel(); } catch { /* gone */ } return 'broken'; }
    this.watchStream = stream as unknown as EtcdSession['watchStream'];
    this.stats.watches++;
    return new Promise((resolve) => {
      let done = false;
      const finish = (why: 'compacted' | 'broken', err?: unknown): void => {
        if (done) return;
        done = true;
        try { stream.cancel(); } catch { /* already gone */ }
        this.watchStream = undefined;
        if (why === 'broken' && !this.closed) this.markDown(err ?? new Error('the etcd watch stream ended'));
        resolve(why);
      };
      stream.on('data', (res: IWatchResponse) => {
        if (res.canceled) {
          if (res.compact_revision !== undefined && res.compact_revision !== '0') {
            this.logger?.warn({ from: this.appliedRevision + 1, compacted: res.compact_revision }, 'etcd compacted past the last applied revision: re-listing');
            finish('compacted');
          } else {
            finish('broken', new Error(`etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
          }
          return;
        }
        // Any response on the stream shows etcd is reachable (a slow request may have marked it down).
        this.markUp();
        if (res.created) onHealthy();
        try {
          this.applyWatch(res);
        } catch (err) {
          this.logger?.error({ err }, 'applying an etcd watch response failed; re-listing');
          finish('compacted');
        }
      });
      stream.on('error', (err: unknown) => finish('broken', err));
      stream.on('end', () => finish('broken'));
      stream.write({
        create_request: {
          key: this.prefixBuf, range_end: prefixEnd(this.prefixBuf), start_revision: String(this.appliedRevision + 1), progress_notify: true,
        },
      });
    });
  }

  // ───────────────────────────── local copy ─────────────────────────────

  private scheduleSave(): void {
    if (!this.cacheFile || this.closed) return;
    this.dirty = true;
    if (this.saveTimer) return;
    // At most every 0.5 s, and at most 20 % of the time when the copy is large (10,000 endpoints × 3
    // locations take tens of milliseconds to serialize): the copy is for a restart, not a journal.
    const delay = Math.min(10_000, Math.max(500, 5 * this.lastSaveMs));
    this.saveTimer = setTimeout(() => { this.saveTimer = undefined; void this.saveNow(); }, delay);
    this.saveTimer.unref();
  }

  /** Writes the mirror to `<state-dir>/cluster-cache.json` (tmp file, fsync, rename: never half a file). */
  async saveNow(): Promise<void> {
    if (!this.cacheFile) return;
    if (this.saving) { await this.saving; if (!this.dirty) return; }
    this.dirty = false;
    const t0 = performance.now();
    const body = JSON.stringify({
      format: CACHE_FORMAT, prefix: this.prefix, clusterId: this.clusterId, savedAt: new Date().toISOString(),
      appliedRevision: this.appliedRevision, configRevision: this.configRevision, revKeyMod: this.revKeyMod,
      profiles: [...this.profiles.values()], resources: this.resources,
      nodes: [...this.nodes.values()], health: [...this.health].map(([k, m]) => [k, [...m]]),
    });
    const file = this.cacheFile;
    const tmp = `${file}.tmp`;
    this.saving = (async () => {
      try {
        const fh = await open(tmp, 'w', 0o600);
        try { await fh.writeFile(body); await fh.sync(); } finally { await fh.close(); }
        await rename(tmp, file);
        this.stats.cacheWrites++;
        this.lastSaveMs = performance.now() - t0;
      } catch (err) {
        this.logger?.warn({ err, file }, 'could not save the local copy of the cluster state');
        await unlink(tmp).catch(() => undefined);
      }
    })();
    await this.saving;
    this.saving = undefined;
  }

  /** Loads the local copy into the mirror; false when there is none (or it belongs to another prefix). */
  private loadCache(): boolean {
    if (!this.cacheFile || !existsSync(this.cacheFile)) return false;
    try {
      const c = JSON.parse(readFileSync(this.cacheFile, 'utf8')) as {
        format: string; prefix: string; clusterId: string; appliedRevision: number; configRevision: number; revKeyMod: number;
        profiles: StoredProfile[]; resources: ResourceCatalogRecord; nodes: NodeRecord[]; health: Array<[string, Array<[string, LocationVerdict]>]>;
      };
      if (c.format !== CACHE_FORMAT || c.prefix !== this.prefix) return false;
      this.clusterId = c.clusterId;
      this.appliedRevision = c.appliedRevision;
      this.configRevision = c.configRevision;
      this.revKeyMod = c.revKeyMod;
      for (const p of c.profiles) this.profiles.set(p.profile.name, p);
      this.resources = c.resources;
      for (const n of c.nodes) this.nodes.set(n.node, n);
      for (const [k, m] of c.health) this.health.set(k, new Map(m));
      return true;
    } catch (err) {
      this.logger?.warn({ err, file: this.cacheFile }, 'the local copy of the cluster state cannot be read');
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.saveTimer) { clearTimeout(this.saveTimer); this.saveTimer = undefined; }
    if (this.dirty) await this.saveNow();
    await this.saving;
    this.closed = true;
    this.kickWatch();
    try { this.watchStream?.cancel(); } catch { /* gone */ }
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
    this.client.close();
    await this.watchLoop?.catch(() => undefined);
  }
}
