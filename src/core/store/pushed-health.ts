/**
 * Health pushed from outside (docs/health.md "Health pushed from outside"): runtime state, not configuration,
 * so it has no revision, no ETag and no plan (Terraform and Pulumi never see it as drift). The SQLite store
 * keeps it in a table of its own, the etcd store under `pushed/` keys with a lease, so every node of a
 * cluster answers alike; either way each node also enforces `expiresAt` itself.
 */

export type PushedStatus = 'Online' | 'Degraded';

export interface PushedHealthRecord {
  /** `profile/endpoint`, the stored names. */
  key: string;
  status: PushedStatus;
  reason: string;
  /** ms since epoch it was pushed. */
  at: number;
  /** ms since epoch it ends by itself. */
  expiresAt: number;
}

/** Where pushed health lives (a store that has none leaves it in memory: it ends with the process). */
export interface PushedHealthStore {
  /** Every record stored (expired ones included: the caller judges them with its clock). */
  load(): Promise<PushedHealthRecord[]>;
  /** Stores one record (replacing the endpoint's previous one); durable when it resolves. */
  put(record: PushedHealthRecord): Promise<void>;
  /** Removes an endpoint's record (nothing when there is none). */
  delete(key: string): Promise<void>;
  /**
   * Records another writer stored or removed (the other nodes of a cluster, or the lease expiring), and the
   * echo of this node's own writes; undefined record: removed. Absent where this process is the only writer.
   */
  watch?(listener: (key: string, record: PushedHealthRecord | undefined) => void): () => void;
}

/** Reads a stored value back; undefined when it is not a record. */
export function parsePushedRecord(key: string, value: unknown): PushedHealthRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<PushedHealthRecord>;
  if ((v.status !== 'Online' && v.status !== 'Degraded') || typeof v.at !== 'number' || typeof v.expiresAt !== 'number') return undefined;
  return { key, status: v.status, reason: typeof v.reason === 'string' ? v.reason : '', at: v.at, expiresAt: v.expiresAt };
}
