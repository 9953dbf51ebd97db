/**
 * The mirror on disk (`<state-dir>/cluster-cache.json`), so a node restarted while etcd is down still answers
 * DNS from the last configuration and verdicts it saw. Written at most every 0.5 s (and at most 20 % of the
 * time when the copy is large), by tmp file, fsync and rename: never half a file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ResourceCatalogRecord } from '../../core/model/catalog';
import type { OverrideRecord } from '../../core/api';
import type { FailbackApproval, PushedHealthRecord, StoredProfile } from '../../core/store';
import { isoNow, type RuntimeClock } from '../clock';
import type { LocationVerdict, NodeRecord } from './keys';
import type { EtcdMirror } from './mirror';

export const CACHE_FILE = 'cluster-cache.json';
const CACHE_FORMAT = 'tmkit-etcd-cache/1';

interface CacheBody {
  format: string;
  prefix: string;
  clusterId: string;
  savedAt: string;
  appliedRevision: number;
  configRevision: number;
  revKeyMod: number;
  profiles: StoredProfile[];
  resources: ResourceCatalogRecord;
  nodes: NodeRecord[];
  health: Array<[string, Array<[string, LocationVerdict]>]>;
  /** Health pushed from outside (absent in copies of older versions); each node still ends it at expiresAt. */
  pushed?: PushedHealthRecord[];
  /** The traffic operations (absent in copies written before they existed). */
  overrides?: OverrideRecord[];
  failbacks?: FailbackApproval[];
}

export class LocalCopy {
  readonly file: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | undefined;
  private dirty = false;
  private lastSaveMs = 0;
  private closed = false;

  constructor(
    stateDir: string | undefined,
    private readonly mirror: EtcdMirror,
    private readonly prefix: string,
    private readonly stats: { cacheWrites: number },
    private readonly options: { logger?: Logger; clock: RuntimeClock },
  ) {
    this.file = stateDir !== undefined ? join(stateDir, CACHE_FILE) : undefined;
  }

  /** The mirror changed: save it soon. */
  schedule(): void {
    if (!this.file || this.closed) return;
    this.dirty = true;
    if (this.timer) return;
    // The copy is for a restart, not a journal: 10,000 endpoints × 3 locations take tens of ms to serialize.
    const delay = Math.min(10_000, Math.max(500, 5 * this.lastSaveMs));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.saveNow();
    }, delay);
    this.timer.unref();
  }

  async saveNow(): Promise<void> {
    if (!this.file) return;
    if (this.saving) {
      await this.saving;
      if (!this.dirty) return;
    }
    this.dirty = false;
    const t0 = performance.now();
    const m = this.mirror;
    const body: CacheBody = {
      format: CACHE_FORMAT,
      prefix: this.prefix,
      clusterId: m.clusterId,
      savedAt: isoNow(this.options.clock),
      appliedRevision: m.appliedRevision,
      configRevision: m.configRevision,
      revKeyMod: m.revKeyMod,
      profiles: [...m.profiles.values()],
      resources: m.resources,
      nodes: [...m.nodes.values()],
      health: [...m.health].map(([k, v]) => [k, [...v]]),
      pushed: [...m.pushed.values()],
      overrides: [...m.overrides.values()],
      failbacks: [...m.failbacks.values()],
    };
    const text = JSON.stringify(body);
    const file = this.file;
    const tmp = `${file}.tmp`;
    this.saving = (async () => {
      try {
        const fh = await open(tmp, 'w', 0o600);
        try {
          await fh.writeFile(text);
          await fh.sync();
        } finally {
          await fh.close();
        }
        await rename(tmp, file);
        this.stats.cacheWrites++;
        this.lastSaveMs = performance.now() - t0;
      } catch (err) {
        this.options.logger?.warn({ err, file }, 'could not save the local copy of the cluster state');
        await unlink(tmp).catch(() => undefined);
      }
    })();
    await this.saving;
    this.saving = undefined;
  }

  /** Loads the local copy into the mirror; false when there is none (or it belongs to another prefix). */
  load(): boolean {
    if (!this.file || !existsSync(this.file)) return false;
    try {
      const c = JSON.parse(readFileSync(this.file, 'utf8')) as CacheBody;
      if (c.format !== CACHE_FORMAT || c.prefix !== this.prefix) return false;
      const m = this.mirror;
      m.clusterId = c.clusterId;
      m.appliedRevision = c.appliedRevision;
      m.configRevision = c.configRevision;
      m.revKeyMod = c.revKeyMod;
      for (const p of c.profiles) {
        m.profiles.set(p.profile.name, p);
        m.index.set(p.profile.name, p.profile);
      }
      m.resources = c.resources;
      for (const n of c.nodes) m.nodes.set(n.node, n);
      for (const [k, v] of c.health) m.health.set(k, new Map(v));
      for (const r of c.pushed ?? []) m.pushed.set(r.key, r);
      for (const o of c.overrides ?? []) m.overrides.set(o.id, o);
      for (const a of c.failbacks ?? []) m.failbacks.set(`${a.profile}/${a.endpoint}`, a);
      return true;
    } catch (err) {
      this.options.logger?.warn({ err, file: this.file }, 'the local copy of the cluster state cannot be read');
      return false;
    }
  }

  /** Saves what is pending, then stops saving. */
  async close(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.dirty) await this.saveNow();
    await this.saving;
    this.closed = true;
  }
}
