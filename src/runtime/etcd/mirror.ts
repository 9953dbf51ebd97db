/**
 * One node's copy of everything tmkit keeps under the prefix (keys.ts), applied from a full listing or from
 * watch events in revision order, and the listeners told about it: the store's (profiles and the catalog, as
 * StoreChanges) and the cluster's (nodes and verdicts). Reads are served from here, so they never wait for
 * etcd and keep working while it is down.
 */
import type { IKeyValue, IWatchResponse } from 'etcd3';
import type { Logger } from 'pino';
import type { OverrideRecord } from '../../core/api';
import type { ResourceCatalogRecord } from '../../core/model/catalog';
import {
  parsePushedRecord,
  type OperationsChange,
  type FailbackApproval,
  type PushedHealthRecord,
  type StoreChange,
  type StoredProfile,
} from '../../core/store';
import { makeEtag } from '../../core/store/conditions';
import { LiveProfileIndex } from '../../core/store/profile-index';
import {
  REV_KEY,
  parseKey,
  type LocationLatency,
  type LocationVerdict,
  type NodeRecord,
  type ResourcesValue,
  type StoredValue,
} from './keys';

type ClusterListener = () => void;
type Touched =
  | { kind: 'profile'; name: string }
  | { kind: 'resources' }
  | { kind: 'cluster' }
  | { kind: 'rev' }
  | { kind: 'pushed'; key: string }
  | { kind: 'control'; change: OperationsChange }
  | { kind: 'cookies' }
  | { kind: 'latency' }
  | undefined;
type PushedListener = (key: string, record: PushedHealthRecord | undefined) => void;
/** What else than configuration and cluster state one applied batch changed. */
interface Extra {
  pushed?: readonly string[];
  operations?: readonly OperationsChange[];
  /** The DNS cookie secret's key changed. */
  cookies?: boolean;
  /** A location's measured latency changed. */
  latency?: boolean;
}

export class EtcdMirror {
  /** Highest etcd revision whose events (under the prefix) are all applied. */
  appliedRevision = 0;
  clusterId = '';
  configRevision = 0;
  /** mod_revision of `config/rev` (0 while it does not exist): what configuration writers compare. */
  revKeyMod = 0;
  readonly profiles = new Map<string, StoredProfile>();
  /** The profiles indexed for the store's admission (by name, relativeName, nested child). */
  readonly index = new LiveProfileIndex();
  resources: ResourceCatalogRecord = {};
  readonly nodes = new Map<string, NodeRecord>();
  /** `profile/endpoint` → location → verdict. */
  readonly health = new Map<string, Map<string, LocationVerdict>>();
  /** Location → its measured probe round trips (`latency/<location>`, cluster/latency.ts). */
  readonly latency = new Map<string, LocationLatency>();
  private readonly latencyListeners = new Set<() => void>();
  /** `profile/endpoint` → health pushed from outside (store/etcd-pushed-health.ts). */
  readonly pushed = new Map<string, PushedHealthRecord>();
  private readonly pushedListeners = new Set<PushedListener>();
  /** The traffic operations (`ops/`): overrides by id, the latest failback approval by `profile/endpoint`. */
  readonly overrides = new Map<string, OverrideRecord>();
  readonly failbacks = new Map<string, FailbackApproval>();
  /** The DNS cookie secrets' JSON text (`dns/cookie-secret`; dns/cookie-secrets.ts reads it), undefined while absent. */
  cookieSecret: string | undefined;
  private readonly cookieListeners = new Set<(text: string | undefined) => void>();

  private readonly storeListeners = new Set<(c: StoreChange) => void>();
  private readonly controlListeners = new Set<(c: OperationsChange) => void>();
  private revisionWaiters: Array<{ revision: number; resolve: () => void }> = [];
  private readonly clusterListeners = new Set<ClusterListener>();
  private waiters: Array<{ mod: number; resolve: () => void }> = [];

  constructor(
    private readonly prefix: string,
    private readonly logger: Logger | undefined,
    private readonly onApplied: () => void,
  ) {}

  onStore(l: (c: StoreChange) => void): () => void {
    this.storeListeners.add(l);
    return () => this.storeListeners.delete(l);
  }
  onCluster(l: ClusterListener): () => void {
    this.clusterListeners.add(l);
    return () => this.clusterListeners.delete(l);
  }
  /** A location's measured latency changed (`latency/<location>`). */
  onLatency(l: () => void): () => void {
    this.latencyListeners.add(l);
    return () => this.latencyListeners.delete(l);
  }
  onPushed(l: PushedListener): () => void {
    this.pushedListeners.add(l);
    return () => this.pushedListeners.delete(l);
  }
  onOperations(l: (c: OperationsChange) => void): () => void {
    this.controlListeners.add(l);
    return () => this.controlListeners.delete(l);
  }
  onCookieSecret(l: (text: string | undefined) => void): () => void {
    this.cookieListeners.add(l);
    return () => this.cookieListeners.delete(l);
  }

  /** Resolves once every event up to etcd revision `revision` is applied here (or after `timeoutMs`). */
  waitForRevision(revision: number, timeoutMs: number): Promise<void> {
    if (this.appliedRevision >= revision) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.revisionWaiters = this.revisionWaiters.filter((w) => w !== entry);
        resolve();
      }, timeoutMs);
      t.unref();
      const entry = {
        revision,
        resolve: () => {
          clearTimeout(t);
          resolve();
        },
      };
      this.revisionWaiters.push(entry);
    });
  }

  /** Resolves once `config/rev` is at `mod` or later here; `late` runs (and then resolves) after `timeoutMs`. */
  waitForConfig(mod: number, timeoutMs: number, late: () => Promise<void>): Promise<void> {
    if (this.revKeyMod >= mod) return Promise.resolve();
    return new Promise((resolve) => {
      const w = { mod, resolve };
      this.waiters.push(w);
      const t = setTimeout(() => {
        this.logger?.warn({ mod, applied: this.revKeyMod }, 'etcd watch is behind a committed write; re-listing');
        void late()
          .catch(() => undefined)
          .finally(() => {
            this.waiters = this.waiters.filter((x) => x !== w);
            resolve();
          });
      }, timeoutMs);
      t.unref();
      const orig = w.resolve;
      w.resolve = () => {
        clearTimeout(t);
        orig();
      };
    });
  }

  /** Lets every waiter go (the session closes). */
  releaseAll(): void {
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
    for (const w of this.revisionWaiters) w.resolve();
    this.revisionWaiters = [];
  }

  private releaseWaiters(): void {
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => w.mod <= this.revKeyMod);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.mod > this.revKeyMod);
    for (const w of ready) w.resolve();
  }

  /** Replaces everything with a listing read at one etcd `revision`; tells listeners what differs. */
  replace(kvs: IKeyValue[], revision: number, clusterId: string): void {
    const before = {
      profiles: new Map(this.profiles),
      resources: JSON.stringify(this.resources),
      nodes: JSON.stringify([...this.nodes]),
      health: this.healthDigest(),
      pushed: new Map(this.pushed),
      overrides: new Map(this.overrides),
      failbacks: new Map(this.failbacks),
      cookies: this.cookieSecret,
      latency: JSON.stringify([...this.latency]),
    };
    this.cookieSecret = undefined;
    this.latency.clear();
    this.pushed.clear();
    this.profiles.clear();
    this.index.clear();
    this.nodes.clear();
    this.health.clear();
    this.overrides.clear();
    this.failbacks.clear();
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
    if (JSON.stringify(this.resources) !== before.resources)
      changes.push({ revision: this.configRevision, kind: 'resources', op: 'replace' });
    const clusterChanged = JSON.stringify([...this.nodes]) !== before.nodes || this.healthDigest() !== before.health;
    const pushed = [...new Set([...before.pushed.keys(), ...this.pushed.keys()])].filter(
      (k) => JSON.stringify(before.pushed.get(k)) !== JSON.stringify(this.pushed.get(k)),
    );
    const operations: OperationsChange[] = [];
    for (const id of before.overrides.keys()) if (!this.overrides.has(id)) operations.push({ kind: 'override', op: 'delete', id });
    for (const [id, o] of this.overrides)
      if (JSON.stringify(before.overrides.get(id)) !== JSON.stringify(o)) operations.push({ kind: 'override', op: 'put', override: o });
    for (const [k, a] of this.failbacks)
      if (JSON.stringify(before.failbacks.get(k)) !== JSON.stringify(a)) operations.push({ kind: 'failback', approval: a });
    this.emit(changes, clusterChanged, {
      pushed,
      operations,
      cookies: this.cookieSecret !== before.cookies,
      latency: JSON.stringify([...this.latency]) !== before.latency,
    });
  }

  private healthDigest(): string {
    return JSON.stringify([...this.health].map(([k, m]) => [k, [...m]]));
  }

  /** Applies one key (put or delete); returns what it was. */
  private applyKv(kv: IKeyValue, deleted: boolean): Touched {
    const rest = kv.key.toString('utf8').slice(this.prefix.length);
    const value = (): unknown => JSON.parse(kv.value.toString('utf8'));
    try {
      const k = parseKey(rest);
      switch (k?.kind) {
        case 'rev':
          if (deleted) {
            this.configRevision = 0;
            this.revKeyMod = 0;
          } else {
            this.configRevision = Number(kv.value.toString('utf8'));
            this.revKeyMod = Number(kv.mod_revision);
          }
          return { kind: 'rev' };
        case 'resources':
          this.resources = deleted ? {} : (value() as ResourcesValue).catalog;
          return { kind: 'resources' };
        case 'profile': {
          if (deleted) {
            this.profiles.delete(k.name);
            this.index.set(k.name, undefined);
            return { kind: 'profile', name: k.name };
          }
          const v = value() as StoredValue;
          this.profiles.set(k.name, {
            profile: v.profile,
            stack: v.stack,
            etag: makeEtag(v.modRevision, v.hash),
            modRevision: v.modRevision,
          });
          this.index.set(k.name, v.profile);
          return { kind: 'profile', name: k.name };
        }
        case 'node':
          if (deleted) this.nodes.delete(k.node);
          else this.nodes.set(k.node, value() as NodeRecord);
          return { kind: 'cluster' };
        case 'override': {
          if (deleted) {
            if (!this.overrides.delete(k.id)) return undefined;
            return { kind: 'control', change: { kind: 'override', op: 'delete', id: k.id } };
          }
          const o = value() as OverrideRecord;
          this.overrides.set(k.id, o);
          return { kind: 'control', change: { kind: 'override', op: 'put', override: o } };
        }
        case 'failback': {
          if (deleted) {
            this.failbacks.delete(k.key);
            return undefined;
          }
          const a = value() as FailbackApproval;
          this.failbacks.set(k.key, a);
          return { kind: 'control', change: { kind: 'failback', approval: a } };
        }
        case 'verdict': {
          let m = this.health.get(k.key);
          if (deleted) {
            m?.delete(k.location);
            if (m && m.size === 0) this.health.delete(k.key);
          } else {
            if (!m) this.health.set(k.key, (m = new Map()));
            m.set(k.location, value() as LocationVerdict);
          }
          return { kind: 'cluster' };
        }
        case 'cookies':
          this.cookieSecret = deleted ? undefined : kv.value.toString('utf8');
          return { kind: 'cookies' };
        case 'latency':
          if (deleted) this.latency.delete(k.location);
          else this.latency.set(k.location, value() as LocationLatency);
          return { kind: 'latency' };
        case 'pushed': {
          const r = deleted ? undefined : parsePushedRecord(k.key, value());
          if (r) this.pushed.set(k.key, r);
          else this.pushed.delete(k.key);
          return { kind: 'pushed', key: k.key };
        }
        default:
          return undefined;
      }
    } catch (err) {
      this.logger?.error({ err, key: rest }, 'etcd: a value under the tmkit prefix cannot be read; ignored');
      return undefined;
    }
  }

  /** Applies one watch response: the events of each revision (one transaction) together, `config/rev` first. */
  applyWatch(res: IWatchResponse): void {
    const changes: StoreChange[] = [];
    const pushed: string[] = [];
    const operations: OperationsChange[] = [];
    let cluster = false;
    let cookies = false;
    let latency = false;
    let maxRev = 0;
    const events = res.events;
    const isRev = (key: Buffer): number => (key.toString().endsWith(`/${REV_KEY}`) ? -1 : 0);
    let i = 0;
    while (i < events.length) {
      const rev = Number(events[i]!.kv.mod_revision);
      let j = i;
      while (j < events.length && Number(events[j]!.kv.mod_revision) === rev) j++;
      // config/rev first, so the changes of that transaction carry its configuration revision.
      const group = events.slice(i, j).sort((a, b) => isRev(a.kv.key) - isRev(b.kv.key));
      const touched = group.map((ev) => this.applyKv(ev.kv, ev.type === 'Delete'));
      for (const t of touched) {
        if (!t) continue;
        if (t.kind === 'profile') {
          const stored = this.profiles.get(t.name);
          changes.push({
            revision: this.configRevision,
            kind: 'profile',
            op: stored ? 'put' : 'delete',
            name: t.name,
            ...(stored ? { stored } : {}),
          });
        } else if (t.kind === 'resources') changes.push({ revision: this.configRevision, kind: 'resources', op: 'replace' });
        else if (t.kind === 'cluster') cluster = true;
        else if (t.kind === 'pushed') pushed.push(t.key);
        else if (t.kind === 'control') operations.push(t.change);
        else if (t.kind === 'cookies') cookies = true;
        else if (t.kind === 'latency') latency = true;
      }
      maxRev = Math.max(maxRev, rev);
      i = j;
    }
    if (events.length > 0) this.appliedRevision = Math.max(this.appliedRevision, maxRev);
    else if (!res.created) this.appliedRevision = Math.max(this.appliedRevision, Number(res.header.revision)); // progress notification
    this.emit(changes, cluster, { pushed, operations, cookies, latency });
  }

  private emit(
    changes: StoreChange[],
    cluster: boolean,
    { pushed = [], operations = [], cookies = false, latency = false }: Extra = {},
  ): void {
    if (latency)
      for (const l of this.latencyListeners) {
        try {
          l();
        } catch (err) {
          this.logger?.error({ err }, 'latency listener failed');
        }
      }
    for (const c of changes)
      for (const l of this.storeListeners) {
        try {
          l(c);
        } catch (err) {
          this.logger?.error({ err }, 'store listener failed');
        }
      }
    for (const k of pushed)
      for (const l of this.pushedListeners) {
        try {
          l(k, this.pushed.get(k));
        } catch (err) {
          this.logger?.error({ err }, 'pushed health listener failed');
        }
      }
    if (cluster)
      for (const l of this.clusterListeners) {
        try {
          l();
        } catch (err) {
          this.logger?.error({ err }, 'cluster listener failed');
        }
      }
    for (const c of operations)
      for (const l of this.controlListeners) {
        try {
          l(c);
        } catch (err) {
          this.logger?.error({ err }, 'control listener failed');
        }
      }
    if (cookies)
      for (const l of this.cookieListeners) {
        try {
          l(this.cookieSecret);
        } catch (err) {
          this.logger?.error({ err }, 'cookie secret listener failed');
        }
      }
    this.releaseWaiters();
    if (this.revisionWaiters.length > 0) {
      const ready = this.revisionWaiters.filter((w) => w.revision <= this.appliedRevision);
      this.revisionWaiters = this.revisionWaiters.filter((w) => w.revision > this.appliedRevision);
      for (const w of ready) w.resolve();
    }
    if (changes.length > 0 || cluster || pushed.length > 0 || operations.length > 0) this.onApplied();
  }
}
