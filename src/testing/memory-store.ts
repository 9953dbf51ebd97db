import type { ProfileInput } from '../core/model/types';
import { admitDelete, admitEdit, admitProfile, writeName } from '../core/store/admission';
import { applyMonitorChange } from '../core/store/monitor-state';
import { checkPreconditions, checkStack, contentHash, makeEtag } from '../core/store/conditions';
import {
  StoreError,
  type DeleteProfileOptions,
  type EditProfileOptions,
  type EditProfileResult,
  type MonitorState,
  type MonitorStateChange,
  type ProfileEdit,
  type PutProfileOptions,
  type PutProfileResult,
  type ResourceCatalogRecord,
  type Store,
  type StoreChange,
  type StoreListener,
  type StoredProfile,
  type StoreView,
} from '../core/store/types';

const clone = <T>(v: T): T => structuredClone(v);

/**
 * An in-memory `Store` with the same semantics as the SQLite store (revisions, ETags, preconditions,
 * stack ownership, the admission rules), for tests that need a store but not a disk.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  private rev = 0;
  private profiles = new Map<string, StoredProfile & { hash: string }>();
  private resources: ResourceCatalogRecord = {};
  private monitor: MonitorState | undefined;
  private readonly listeners = new Set<StoreListener>();

  private emit(c: StoreChange): void {
    for (const l of [...this.listeners]) {
      try {
        l(c);
      } catch {
        /* ignore */
      }
    }
  }

  private out(p: StoredProfile): StoredProfile {
    return { profile: clone(p.profile), stack: p.stack, etag: p.etag, modRevision: p.modRevision };
  }

  /** The view a write is judged against: the rows themselves (read-only during the write). */
  private view(): StoreView {
    return { revision: this.rev, profiles: this.profiles };
  }

  async revision(): Promise<number> {
    return this.rev;
  }

  async getProfiles(): Promise<StoredProfile[]> {
    return [...this.profiles.keys()].sort().map((k) => this.out(this.profiles.get(k)!));
  }

  async getProfile(name: string): Promise<StoredProfile | undefined> {
    const p = this.profiles.get(name);
    return p ? this.out(p) : undefined;
  }

  async putProfile(input: ProfileInput, options: PutProfileOptions): Promise<PutProfileResult> {
    const named = writeName(input);
    const row = named === undefined ? undefined : this.profiles.get(named);
    const current = row ? this.out(row) : undefined;
    if (named !== undefined) {
      checkPreconditions(named, current, options.ifMatch, options.ifNoneMatch);
      checkStack(named, current, options.stack);
    }
    const { profile, warnings } = admitProfile(this.view(), clone(input));
    const hash = contentHash(profile, options.stack);
    if (row && row.hash === hash && row.stack === options.stack)
      return { etag: row.etag, revision: this.rev, created: false, changed: false, profile: clone(row.profile), warnings };
    const revision = ++this.rev;
    const etag = makeEtag(revision, hash);
    this.profiles.set(profile.name, { profile: clone(profile), stack: options.stack, etag, modRevision: revision, hash });
    this.emit({ revision, kind: 'profile', op: 'put', name: profile.name, stored: this.out(this.profiles.get(profile.name)!) });
    return { etag, revision, created: !row, changed: true, profile, warnings };
  }

  /** One synchronous step, as every write here: nothing can come between the read and the write. */
  async editProfile<T>(
    name: string,
    edit: (current: StoredProfile) => ProfileEdit<T>,
    options: EditProfileOptions = {},
  ): Promise<EditProfileResult<T>> {
    const row = this.profiles.get(name);
    const { input, value, current } = admitEdit(name, row ? this.out(row) : undefined, edit, options);
    const r = await this.putProfile(input, { stack: current.stack, ifMatch: current.etag });
    return { ...r, stack: current.stack, value };
  }

  async deleteProfile(name: string, options: DeleteProfileOptions = {}): Promise<{ revision: number }> {
    const row = this.profiles.get(name);
    if (!row) throw new StoreError('NOT_FOUND', `profile '${name}' does not exist`, { name });
    const current = this.out(row);
    checkPreconditions(name, current, options.ifMatch, undefined);
    checkStack(name, current, options.stack);
    admitDelete(this.view(), name);
    const revision = ++this.rev;
    this.profiles.delete(name);
    this.emit({ revision, kind: 'profile', op: 'delete', name });
    return { revision };
  }

  async getResources(): Promise<ResourceCatalogRecord> {
    return clone(this.resources);
  }

  async putResources(catalog: ResourceCatalogRecord): Promise<{ revision: number }> {
    this.resources = clone(catalog);
    const revision = ++this.rev;
    this.emit({ revision, kind: 'resources', op: 'replace' });
    return { revision };
  }

  async saveMonitorState(change: MonitorStateChange): Promise<void> {
    this.monitor = applyMonitorChange(this.monitor, clone(change));
  }
  async loadMonitorState(): Promise<MonitorState | undefined> {
    return this.monitor === undefined ? undefined : clone(this.monitor);
  }

  watch(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
