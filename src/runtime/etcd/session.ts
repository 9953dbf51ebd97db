/**
 * One node's session with etcd, put together from its jobs:
 *
 *   connection.ts  the client, request deadlines, whether etcd is reachable (fail fast while it is not)
 *   mirror.ts      everything under the prefix, in memory, and the listeners told about changes
 *   feed.ts        the listing and the watch that keep the mirror current
 *   local-copy.ts  the mirror on disk, to start from while etcd is down
 *   keys.ts        the key layout (shared with store/etcd.ts and cluster/)
 *
 *   etcd ──range/watch──▶ mirror ──▶ store listeners (profiles, catalog: StoreChange)
 *                           ├──────▶ cluster listeners (nodes, verdicts)
 *                           └──────▶ <state-dir>/cluster-cache.json
 *
 * The store (store/etcd.ts) writes through `call` and reads the mirror; the cluster (cluster/) writes its
 * node record and verdicts through `call` and reads the others' from the mirror.
 */
import type { Etcd3 } from 'etcd3';
import type { Logger } from 'pino';
import type { OverrideRecord } from '../../core/api';
import type { ResourceCatalogRecord } from '../../core/model/catalog';
import {
  StoreError,
  type OperationsChange,
  type FailbackApproval,
  type LiveProfileIndex,
  type PushedHealthRecord,
  type StoreChange,
  type StoredProfile,
} from '../../core/store';
import { systemClock, type RuntimeClock } from '../clock';
import { EtcdConnection, isUnavailable } from './connection';
import { MirrorFeed } from './feed';
import { REV_KEY, type LocationLatency, type LocationVerdict, type NodeRecord } from './keys';
import { LocalCopy } from './local-copy';
import { EtcdMirror } from './mirror';
import { DEFAULT_PREFIX } from './url';

export { isUnavailable } from './connection';
export { CACHE_FILE } from './local-copy';

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
  clock?: RuntimeClock;
}

export class EtcdSession {
  readonly client: Etcd3;
  readonly prefix: string;
  readonly hosts: string[];
  /** Watches (re)created, re-listings, compactions met and local-copy writes (metrics, tests). */
  readonly stats = { watches: 0, relists: 0, compactions: 0, cacheWrites: 0 };
  private readonly conn: EtcdConnection;
  private readonly mirror: EtcdMirror;
  private readonly feed: MirrorFeed;
  private readonly copy: LocalCopy;
  /** Started from the local copy (etcd was down at start): re-list on the first connection. */
  private fromCache = false;
  private closed = false;

  private constructor(o: EtcdSessionOptions) {
    this.prefix = o.prefix ?? DEFAULT_PREFIX;
    this.hosts = o.hosts;
    const clock = o.clock ?? systemClock;
    this.conn = new EtcdConnection({
      hosts: o.hosts,
      clock,
      servedRevision: () => this.mirror.configRevision,
      ...(o.tls ? { tls: o.tls } : {}),
      ...(o.auth ? { auth: o.auth } : {}),
      ...(o.logger ? { logger: o.logger } : {}),
      ...(o.requestTimeoutMs !== undefined ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
    });
    this.client = this.conn.client;
    this.mirror = new EtcdMirror(this.prefix, o.logger, () => this.copy.schedule());
    this.copy = new LocalCopy(o.stateDir, this.mirror, this.prefix, this.stats, { clock, ...(o.logger ? { logger: o.logger } : {}) });
    this.feed = new MirrorFeed(this.conn, this.mirror, this.prefix, this.stats, {
      retryMs: o.retryMs ?? 250,
      ...(o.logger ? { logger: o.logger } : {}),
    });
    this.conn.onUnreachable = () => this.feed.kick();
  }

  /**
   * Connects and loads the mirror. When etcd cannot be reached within the connect timeout, starts from the
   * local copy (and keeps trying to reach etcd in the background); without one, fails naming both.
   */
  static async open(o: EtcdSessionOptions): Promise<EtcdSession> {
    const s = new EtcdSession(o);
    try {
      await s.feed.relist(o.connectTimeoutMs ?? 5_000);
      s.conn.markUp();
    } catch (err) {
      if (!isUnavailable(err) || !s.copy.load()) {
        s.conn.close();
        const where = o.hosts.join(', ');
        if (!isUnavailable(err))
          throw new StoreError(
            'STORE_UNAVAILABLE',
            `etcd at ${where} refused the first read: ${(err as Error).message}; check the etcd user's permissions on ${s.prefix}`,
          );
        throw new StoreError(
          'STORE_UNAVAILABLE',
          `cannot reach etcd at ${where} (${(err as Error).message}) and there is no local copy of the configuration` +
            `${s.copy.file ? ` at ${s.copy.file}` : ''} to start from; start etcd or fix --store`,
        );
      }
      s.fromCache = true;
      s.conn.markDown(err);
      o.logger?.warn(
        { err: (err as Error).message, revision: s.configRevision, file: s.copy.file },
        'etcd is unreachable: serving the configuration saved locally; writes are refused until etcd is back',
      );
    }
    s.feed.start(s.fromCache, () => {
      s.fromCache = false;
    });
    return s;
  }

  // The mirror, as the store and the cluster read it.
  /** Highest etcd revision whose events (under the prefix) are all applied. */
  get appliedRevision(): number {
    return this.mirror.appliedRevision;
  }
  get clusterId(): string {
    return this.mirror.clusterId;
  }
  get configRevision(): number {
    return this.mirror.configRevision;
  }
  /** mod_revision of `config/rev` (0 while it does not exist): what configuration writers compare. */
  get revKeyMod(): number {
    return this.mirror.revKeyMod;
  }
  get profiles(): ReadonlyMap<string, StoredProfile> {
    return this.mirror.profiles;
  }
  /** The profiles indexed for admission. */
  get profileIndex(): LiveProfileIndex {
    return this.mirror.index;
  }
  get resources(): ResourceCatalogRecord {
    return this.mirror.resources;
  }
  get nodes(): ReadonlyMap<string, NodeRecord> {
    return this.mirror.nodes;
  }
  /** `profile/endpoint` → location → verdict. */
  get health(): ReadonlyMap<string, ReadonlyMap<string, LocationVerdict>> {
    return this.mirror.health;
  }

  /** The traffic operations (`ops/` keys, store/etcd-operations.ts). */
  get overrides(): ReadonlyMap<string, OverrideRecord> {
    return this.mirror.overrides;
  }
  get failbacks(): ReadonlyMap<string, FailbackApproval> {
    return this.mirror.failbacks;
  }

  onStore(l: (c: StoreChange) => void): () => void {
    return this.mirror.onStore(l);
  }
  onCluster(l: () => void): () => void {
    return this.mirror.onCluster(l);
  }
  /** Location → its measured probe round trips (`latency/<location>`), and their changes. */
  get latency(): ReadonlyMap<string, LocationLatency> {
    return this.mirror.latency;
  }
  onLatency(l: () => void): () => void {
    return this.mirror.onLatency(l);
  }
  /** Health pushed from outside, as the mirror has it, and its changes (store/etcd-pushed-health.ts). */
  get pushed(): ReadonlyMap<string, PushedHealthRecord> {
    return this.mirror.pushed;
  }
  onPushed(l: (key: string, record: PushedHealthRecord | undefined) => void): () => void {
    return this.mirror.onPushed(l);
  }
  onOperations(l: (c: OperationsChange) => void): () => void {
    return this.mirror.onOperations(l);
  }
  /** The DNS cookie secrets' JSON text as the mirror has it (`dns/cookie-secret`), and its changes (dns/cookie-secrets.ts). */
  get cookieSecret(): string | undefined {
    return this.mirror.cookieSecret;
  }
  onCookieSecret(l: (text: string | undefined) => void): () => void {
    return this.mirror.onCookieSecret(l);
  }

  /** Resolves once the mirror has applied every event up to etcd revision `revision` (a writer reads its own write). */
  waitForRevision(revision: number, timeoutMs = 5_000): Promise<void> {
    return this.mirror.waitForRevision(revision, timeoutMs);
  }

  // The connection.
  isConnected(): boolean {
    return this.conn.isConnected();
  }
  /** What /healthz says about etcd. */
  state(): { connected: boolean; since?: number; error?: string; fromLocalCopy: boolean } {
    return { ...this.conn.state(), fromLocalCopy: this.fromCache };
  }
  onState(l: (connected: boolean) => void): () => void {
    return this.conn.onState(l);
  }
  markUp(): void {
    this.conn.markUp();
  }
  markDown(err: unknown): void {
    this.conn.markDown(err);
  }
  /** The error a write gets while etcd cannot be reached. */
  unavailable(cause?: unknown): StoreError {
    return this.conn.unavailable(cause);
  }
  /** Runs one etcd request: fails fast while etcd is known to be down; tracks the connection state. */
  call<T>(fn: (c: Etcd3) => Promise<T>, opts: { failFast?: boolean } = {}): Promise<T> {
    return this.conn.call(fn, opts);
  }
  /** A key under the prefix. */
  key(rest: string): Buffer {
    return Buffer.from(this.prefix + rest);
  }

  /** Resolves once the mirror has applied the `config/rev` write at `mod` (or a later one). */
  waitForConfig(mod: number, timeoutMs = 5_000): Promise<void> {
    // The watch did not deliver it in time (a stuck stream): re-list, which reads at least `mod`.
    return this.mirror.waitForConfig(mod, timeoutMs, () => this.feed.relist());
  }

  /** Waits until the mirror has every configuration write committed before this call (a linearizable read). */
  async barrier(): Promise<void> {
    const res = await this.call((c) => c.kv.range({ key: this.key(REV_KEY) }));
    const kv = res.kvs[0];
    if (kv) await this.waitForConfig(Number(kv.mod_revision));
  }

  /** Writes the local copy now (tests; it is written by itself after every change). */
  saveNow(): Promise<void> {
    return this.copy.saveNow();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.copy.close();
    const stopping = this.feed.stop();
    this.mirror.releaseAll();
    this.conn.close();
    await stopping;
  }
}
