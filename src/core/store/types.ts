import { TmkitError, type Diagnostic } from '../diagnostics';
import type { ResourceCatalogRecord } from '../model/catalog';
import type { Profile, ProfileInput } from '../model/types';
import type { PushedHealthStore } from './pushed-health';
import type { ProfileIndex } from '../validate/context';

/**
 * The runtime's durable state behind one interface: the embedded SQLite store (store/sqlite.ts) and the
 * etcd store of a cluster (store/etcd.ts). Every method is asynchronous so a networked store fits the same
 * shape; every write resolves only after it is durable (committed).
 *
 * Consistency model (both implementations keep it; test/support/store-conformance.ts runs the same suite
 * on each): one store-wide `revision` that grows by one per committed write; each profile row carries the
 * revision of its last write (its `modRevision`). A write's conditions (`ifMatch`, `ifNoneMatch`, the stack
 * owner) and the admission rules of admission.ts (every validation rule against the other stored profiles;
 * case-insensitive names; no delete of a nested child) are evaluated against one consistent view and
 * committed atomically with it (SQLite: one transaction; etcd: a txn comparing the revision it read).
 */
export interface StoredProfile {
  /** The normalized, validated profile. */
  profile: Profile;
  /** Who owns the profile: the `stack` of the document that wrote it (a plan touches only its own). */
  stack: string;
  /** Strong entity tag, quoted as in HTTP (`"12-1f3a…"`): changes on every write that changes content. */
  etag: string;
  /** Store revision of the last write of this profile. */
  modRevision: number;
}

/**
 * A consistent view of all profiles, which a store judges a write against (admission.ts). Valid during the
 * write only: stores hand out their live incremental index (no copy per write), which the next committed
 * write updates. Never mutate it, never keep it.
 */
export interface StoreView {
  revision: number;
  profiles: ReadonlyMap<string, StoredProfile>;
  /** The same profiles indexed for admission (profile-index.ts); without it admission walks `profiles`. */
  index?: ProfileIndex & { parentsOf(lower: string): Profile[] };
}

/** What a store read to serve writes and views (the scale tests assert a write reads only its own rows). */
export interface StoreStats {
  /** Profile rows read from the backing database since open (a mirror-backed store reads none). */
  rowsRead: number;
  /** Full walks of the profile table to (re)build the view writes are judged against. */
  viewRebuilds: number;
  /** Write transactions committed, where the store groups writes (one per group: one fsync for all of them). */
  groupCommits?: number;
}

export interface PutProfileOptions {
  /** The owning stack; a profile owned by another stack is never overwritten (`STACK_CONFLICT`). */
  stack: string;
  /** Write only if the current ETag is one of these (`*` = exists). */
  ifMatch?: string;
  /** `*`: write only if the profile does not exist (create-only). */
  ifNoneMatch?: string;
}

export interface PutProfileResult {
  etag: string;
  revision: number;
  /** True when the profile did not exist before. */
  created: boolean;
  /** False when the stored profile and stack were already identical (no write, no change event). */
  changed: boolean;
  /** The profile as stored (normalized: defaults filled in). */
  profile: Profile;
  /** The validation rules' warnings about it (errors refuse the write instead). */
  warnings: Diagnostic[];
}

/** An edit's outcome (core/model/edit.ts builds the input): the profile to store and what the caller wants back. */
export interface ProfileEdit<T> {
  input: ProfileInput;
  value: T;
}

export interface EditProfileOptions {
  /** When given, a profile owned by another stack is not edited (`STACK_CONFLICT`); the stored stack is kept either way. */
  stack?: string;
  /** Edit only if the profile's current ETag is one of these. */
  ifMatch?: string;
}

export interface EditProfileResult<T> extends PutProfileResult {
  /** The stack that owns the profile (kept). */
  stack: string;
  /** What `edit` returned beside the input. */
  value: T;
}

export interface DeleteProfileOptions {
  ifMatch?: string;
  /** When given, a profile owned by another stack is not deleted (`STACK_CONFLICT`). */
  stack?: string;
}

export type { ResourceCatalogRecord };

/**
 * The prober's state for a restart, kept per probed endpoint so a save costs what changed (one endpoint's
 * transition writes one record, not all 100,000): not configuration, no revision, never watched.
 */
export interface MonitorState {
  /** `profile/endpoint` → that endpoint's record (opaque JSON, the runtime's shape). */
  endpoints: Record<string, unknown>;
  /** What is not per endpoint (opaque JSON); a store holding the earlier whole-state blob (one row or file) returns that here. */
  meta?: unknown;
}

/** One save: records to write, `null` to drop an endpoint's record; `meta` replaces the stored one when given. */
export interface MonitorStateChange {
  endpoints: Record<string, unknown | null>;
  meta?: unknown;
}

export interface StoreChange {
  revision: number;
  kind: 'profile' | 'resources';
  op: 'put' | 'delete' | 'replace';
  /** Profile name for profile changes. */
  name?: string;
  /**
   * A put's profile as stored, when the store has it at hand (the pipeline then need not read it back).
   * Read-only: it is the store's own copy.
   */
  stored?: StoredProfile;
}

export type StoreListener = (change: StoreChange) => void;

export interface Store {
  /** `sqlite`, `memory`, `etcd`. */
  readonly kind: string;
  /** Current store revision (0 for an empty store). */
  revision(): Promise<number>;
  getProfiles(): Promise<StoredProfile[]>;
  getProfile(name: string): Promise<StoredProfile | undefined>;
  /**
   * Writes one profile (raw input: validated and normalized by the store, see admission.ts). Refusals are
   * StoreErrors: PRECONDITION_FAILED, STACK_CONFLICT, PROFILE_NAME_CONFLICT, PROFILE_INVALID (with every
   * diagnostic), STORE_UNAVAILABLE.
   */
  putProfile(input: ProfileInput, options: PutProfileOptions): Promise<PutProfileResult>;
  /**
   * Edits one profile as it stands when its write runs (an endpoint PUT, PATCH or DELETE): `edit` gets the
   * stored profile and returns the input to store, or throws to refuse this write alone. `edit` must be pure
   * and synchronous (no I/O, no awaiting): a store may run it inside its transaction, after every write queued
   * before it, so that concurrent edits of one profile commit together in one group instead of each failing
   * on the other's version and retrying. The stored stack is kept. Refusals: NOT_FOUND, STACK_CONFLICT,
   * PRECONDITION_FAILED (`ifMatch`), `edit`'s own, and putProfile's. Optional: without it the API reads, edits
   * and writes with If-Match, retrying on a concurrent change (what the etcd store does).
   */
  editProfile?<T>(
    name: string,
    edit: (current: StoredProfile) => ProfileEdit<T>,
    options?: EditProfileOptions,
  ): Promise<EditProfileResult<T>>;
  /** Deletes one profile; NOT_FOUND, PRECONDITION_FAILED, STACK_CONFLICT, PROFILE_REFERENCED. */
  deleteProfile(name: string, options?: DeleteProfileOptions): Promise<{ revision: number }>;
  getResources(): Promise<ResourceCatalogRecord>;
  /** Replaces the whole catalog. */
  putResources(catalog: ResourceCatalogRecord): Promise<{ revision: number }>;
  /** Applies one change to the prober's saved state (durable when it resolves); saves are applied in call order. */
  saveMonitorState(change: MonitorStateChange): Promise<void>;
  /** The prober's saved state; undefined when nothing was ever saved. */
  loadMonitorState(): Promise<MonitorState | undefined>;
  /** Rows read and view walks since open, where the store counts them. */
  stats?(): StoreStats;
  /** Where health pushed from outside is kept (pushed-health.ts); absent: in memory only. */
  pushedHealth?(): PushedHealthStore;
  /** Called synchronously after every committed change, in commit order. Returns an unsubscribe. */
  watch(listener: StoreListener): () => void;
  close(): Promise<void>;
}

export type StoreErrorCode =
  | 'PRECONDITION_FAILED'
  | 'STACK_CONFLICT'
  | 'NOT_FOUND'
  | 'STORE_CORRUPT'
  | 'STORE_VERSION'
  /** Another process holds the state dir (`tmkit.lock`). */
  | 'STATE_DIR_LOCKED'
  /** `tmkit.db` exists but is empty or uninitialised in a state dir that was used before. */
  | 'STORE_EMPTY'
  /** A networked store (etcd) cannot be reached: nothing was written; retry when it is back. */
  | 'STORE_UNAVAILABLE'
  /** The file needs the other SQLite driver (a WAL file on the wasm driver while another tmkit uses it). */
  | 'STORE_DRIVER'
  /** The database stayed locked by another process (SQLITE_BUSY) past the wait: retry. */
  | 'STORE_BUSY'
  /** Refused by the admission rules (admission.ts); `diagnostics` says why. */
  | 'PROFILE_INVALID'
  | 'PROFILE_NAME_CONFLICT'
  | 'PROFILE_REFERENCED';

/** A refused or failed store operation, with a stable `code` (from CODES). */
export class StoreError extends TmkitError {
  declare readonly code: StoreErrorCode;
  constructor(
    code: StoreErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    diagnostics: readonly Diagnostic[] = [],
  ) {
    super(code, message, diagnostics);
  }
}
