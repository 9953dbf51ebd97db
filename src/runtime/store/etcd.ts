/**
 * The Store port on etcd (docs/cluster.md): the configuration of a tmkit cluster, shared by every
 * node. Same contract as SQLite (core/store/types.ts, test/support/store-conformance.ts):
 *
 * - One store-wide configuration revision, `config/rev`, that grows by one per committed configuration write.
 *   etcd's own revision also moves on verdict and lease writes, so the configuration revision is kept in a
 *   key of its own, written in the same transaction as the profile (or catalog) it counts. A profile's
 *   `modRevision` and ETag (`"<modRevision>-<16 hex>"`) are in configuration revisions.
 * - Conditional writes are optimistic transactions: read the view from the mirror → check the preconditions,
 *   the stack owner and the admission rules (core/store/admission.ts: validation, names, references) against it →
 *   commit only if `config/rev` still has the mod_revision the view was read at. Every configuration write
 *   bumps `config/rev`, so that one comparison covers everything the view holds (stronger than comparing
 *   each key read, and within etcd's 128-operation limit at any size). On a conflict the writer waits until
 *   its mirror has the newer configuration and runs again: preconditions and checks always hold for the
 *   state the write commits on, whichever node takes it. Of two writers holding one ETag exactly one wins.
 * - Reads come from the mirror (EtcdSession), which a write waits for before it returns: a writer reads its
 *   own writes, and watchers see every change in commit order.
 * - Writes fail fast with `STORE_UNAVAILABLE` while etcd cannot be reached; reads keep working.
 * - The prober's state is per node: it stays in `<state-dir>/monitor-state.json` (+ `.log`, see MonitorStateFile).
 */
import { join } from 'node:path';
import type { ResourceCatalogRecord } from '../../core/model/catalog';
import type { ProfileInput } from '../../core/model/types';
import {
  StoreError,
  admitDelete,
  admitProfile,
  writeName,
  checkPreconditions,
  checkStack,
  contentHash,
  makeEtag,
  type DeleteProfileOptions,
  type MonitorState,
  type MonitorStateChange,
  type PutProfileOptions,
  type PutProfileResult,
  type Store,
  type StoreListener,
  type StoreStats,
  type StoreView,
  type StoredProfile,
} from '../../core/store';
import { EtcdOperations } from './etcd-operations';
import { sha256Hex } from './hash';
import { MonitorStateFile } from './monitor-file';
import { EtcdPushedHealth } from './etcd-pushed-health';
import { REV_KEY, RESOURCES_KEY, keyOfProfile } from '../etcd/keys';
import { EtcdSession, type EtcdSessionOptions } from '../etcd/session';

/** How often one write is re-run after losing a race (each run waits for the newer configuration first). */
const MAX_ATTEMPTS = 50;
export const MONITOR_FILE = 'monitor-state.json';

type TxnOp = { request_put: { key: Buffer; value: Buffer } } | { request_delete_range: { key: Buffer } };

export class EtcdStore implements Store {
  readonly kind = 'etcd';
  private readonly monitor: MonitorStateFile;
  private readonly ownsSession: boolean;
  private writeQueue: Promise<void> = Promise.resolve();
  private readonly counters: StoreStats = { rowsRead: 0, viewRebuilds: 0 };
  private pushed: EtcdPushedHealth | undefined;
  /** The traffic operations under `ops/` (overrides, failback approvals, audit log, drills). */
  readonly operations: EtcdOperations;

  constructor(
    readonly session: EtcdSession,
    opts: { stateDir?: string; ownsSession?: boolean } = {},
  ) {
    this.operations = new EtcdOperations(session);
    this.monitor = new MonitorStateFile(opts.stateDir !== undefined ? join(opts.stateDir, MONITOR_FILE) : undefined);
    this.ownsSession = opts.ownsSession ?? true;
  }

  /** Connects (or starts from the local copy in `stateDir` while etcd is down) and loads the mirror. */
  static async open(o: EtcdSessionOptions): Promise<EtcdStore> {
    const session = await EtcdSession.open(o);
    return new EtcdStore(session, { ...(o.stateDir !== undefined ? { stateDir: o.stateDir } : {}) });
  }

  async revision(): Promise<number> {
    return this.session.configRevision;
  }

  async getProfiles(): Promise<StoredProfile[]> {
    this.counters.rowsRead += this.session.profiles.size;
    return [...this.session.profiles.values()]
      .sort((a, b) => (a.profile.name < b.profile.name ? -1 : a.profile.name > b.profile.name ? 1 : 0))
      .map(clone);
  }

  /**
   * From the mirror. A miss is confirmed against etcd (when it is reachable): a profile another node created
   * a moment ago is found even before this node's watch delivered it.
   */
  async getProfile(name: string): Promise<StoredProfile | undefined> {
    let p = this.session.profiles.get(name);
    if (!p && this.session.isConnected()) {
      await this.session.barrier().catch(() => undefined);
      p = this.session.profiles.get(name);
    }
    if (p) this.counters.rowsRead++;
    return p ? clone(p) : undefined;
  }

  async getResources(): Promise<ResourceCatalogRecord> {
    return structuredClone(this.session.resources);
  }

  /**
   * The mirror itself, not a copy: admission runs synchronously against it, and the watch keeps it incremental
   * (a write costs its own record, not a copy of every profile).
   */
  private view(): StoreView {
    return { revision: this.session.configRevision, profiles: this.session.profiles, index: this.session.profileIndex };
  }

  /** Profile records read (copied out of the mirror) since open; the view never walks anything. */
  stats(): StoreStats {
    return { ...this.counters };
  }

  async putProfile(input: ProfileInput, options: PutProfileOptions): Promise<PutProfileResult> {
    return this.optimistic<PutProfileResult>(async (s) => {
      const named = writeName(input);
      const current = named === undefined ? undefined : s.profiles.get(named);
      if (named !== undefined) {
        checkPreconditions(named, current, options.ifMatch, options.ifNoneMatch);
        checkStack(named, current, options.stack);
      }
      if (current) this.counters.rowsRead++;
      const { profile, warnings } = admitProfile(this.view(), input);
      const hash = contentHash(profile, options.stack, sha256Hex);
      if (current && current.stack === options.stack && current.etag === makeEtag(current.modRevision, hash)) {
        return {
          ops: [],
          result: () => ({
            etag: current.etag,
            revision: s.configRevision,
            created: false,
            changed: false,
            profile: current.profile,
            warnings,
          }),
        };
      }
      const revision = s.configRevision + 1;
      const value = JSON.stringify({ stack: options.stack, hash, modRevision: revision, profile });
      return {
        ops: [put(s.key(keyOfProfile(profile.name)), value)],
        revision,
        result: () => ({ etag: makeEtag(revision, hash), revision, created: !current, changed: true, profile, warnings }),
      };
    });
  }

  async deleteProfile(name: string, options: DeleteProfileOptions = {}): Promise<{ revision: number }> {
    return this.optimistic(async (s) => {
      const current = s.profiles.get(name);
      if (!current) throw new StoreError('NOT_FOUND', `profile '${name}' does not exist`, { name });
      checkPreconditions(name, current, options.ifMatch, undefined);
      checkStack(name, current, options.stack);
      this.counters.rowsRead++;
      admitDelete(this.view(), name);
      const revision = s.configRevision + 1;
      return { ops: [{ request_delete_range: { key: s.key(keyOfProfile(name)) } }], revision, result: () => ({ revision }) };
    });
  }

  async putResources(catalog: ResourceCatalogRecord): Promise<{ revision: number }> {
    return this.optimistic(async (s) => {
      const revision = s.configRevision + 1;
      return {
        ops: [put(s.key(RESOURCES_KEY), JSON.stringify({ modRevision: revision, catalog }))],
        revision,
        result: () => ({ revision }),
      };
    });
  }

  /**
   * Runs `plan` against the mirror and commits its operations together with `config/rev = revision` if and
   * only if `config/rev` has not moved since; otherwise waits for the mirror to catch up and plans again.
   * A plan without operations (an identical PUT) is confirmed by a compare-only transaction, which writes
   * nothing and moves no revision.
   */
  private optimistic<T>(plan: (s: EtcdSession) => Promise<{ ops: TxnOp[]; revision?: number; result: () => T }>): Promise<T> {
    // One configuration write at a time per node (as SQLite serializes them): writes through one node never
    // race each other for config/rev; only writes through different nodes do, and retry.
    const run = this.writeQueue.then(() => this.attempt(plan));
    this.writeQueue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async attempt<T>(plan: (s: EtcdSession) => Promise<{ ops: TxnOp[]; revision?: number; result: () => T }>): Promise<T> {
    const s = this.session;
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      if (!s.isConnected()) throw s.unavailable();
      const seenMod = s.revKeyMod;
      let p: Awaited<ReturnType<typeof plan>>;
      try {
        p = await plan(s);
      } catch (err) {
        // A refusal (412, 404, 409, a failed check) stands only if the view it was decided on is current:
        // another node may have written a moment ago. Confirm with a compare-only transaction.
        if (await this.confirm(seenMod)) throw err;
        continue;
      }
      const ops: TxnOp[] = p.revision !== undefined ? [put(s.key(REV_KEY), String(p.revision)), ...p.ops] : p.ops;
      const res = await s.call((c) =>
        c.kv.txn({
          compare: [{ key: s.key(REV_KEY), target: 'Mod', result: 'Equal', mod_revision: String(seenMod) }],
          success: ops,
          // On a conflict, learn where config/rev is now, to wait for exactly that.
          failure: [{ request_range: { key: s.key(REV_KEY) } }],
        }),
      );
      if (res.succeeded) {
        if (ops.length > 0) await s.waitForConfig(Number(res.header.revision));
        return p.result();
      }
      const kv = res.responses[0]?.response_range?.kvs?.[0];
      await s.waitForConfig(kv ? Number(kv.mod_revision) : 0);
      if (attempt >= MAX_ATTEMPTS && performance.now() - started > 10_000) {
        throw new StoreError(
          'PRECONDITION_FAILED',
          `the configuration kept changing under this write (${attempt} attempts in ` +
            `${Math.round((performance.now() - started) / 1000)} s, other nodes writing); retry`,
          {},
        );
      }
    }
  }

  /** True when `config/rev` is still at `seenMod`; otherwise waits until the mirror has the newer one. */
  private async confirm(seenMod: number): Promise<boolean> {
    const s = this.session;
    const res = await s.call((c) =>
      c.kv.txn({
        compare: [{ key: s.key(REV_KEY), target: 'Mod', result: 'Equal', mod_revision: String(seenMod) }],
        success: [],
        failure: [{ request_range: { key: s.key(REV_KEY) } }],
      }),
    );
    if (res.succeeded) return true;
    const kv = res.responses[0]?.response_range?.kvs?.[0];
    await s.waitForConfig(kv ? Number(kv.mod_revision) : 0);
    return false;
  }

  async saveMonitorState(change: MonitorStateChange): Promise<void> {
    await this.monitor.save(change);
  }

  /** Health pushed from outside: `pushed/` keys, shared by every node (etcd-pushed-health.ts). */
  pushedHealth(): EtcdPushedHealth {
    return (this.pushed ??= new EtcdPushedHealth(this.session));
  }

  async loadMonitorState(): Promise<MonitorState | undefined> {
    return this.monitor.load();
  }

  watch(listener: StoreListener): () => void {
    return this.session.onStore(listener);
  }

  async close(): Promise<void> {
    if (this.ownsSession) await this.session.close();
  }
}

function put(key: Buffer, value: string): TxnOp {
  return { request_put: { key, value: Buffer.from(value) } };
}

function clone(p: StoredProfile): StoredProfile {
  return { profile: structuredClone(p.profile), stack: p.stack, etag: p.etag, modRevision: p.modRevision };
}
