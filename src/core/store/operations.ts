/**
 * The store's second port, beside the configuration (types.ts): the runtime's traffic operations — overrides,
 * failback approvals — and their records — the audit log and the drill reports (docs/operations.md). They
 * are not configuration: writing them never moves the configuration revision or a profile's ETag, so a plan,
 * Terraform and Pulumi see no drift. SQLite keeps them in tables of their own (store/sqlite-operations.ts), etcd
 * under `ops/` (etcd/keys.ts), where every node's mirror applies them; the memory implementation serves
 * tests and stores without them (store/memory-operations.ts).
 */
import type { AuditEntry, DrillReport, OverrideRecord, ShiftLease } from '../api';

/** `tmkit endpoint failback`: the operator released the endpoint's outages that began before `approvedAt`. */
export interface FailbackApproval {
  profile: string;
  endpoint: string;
  /** ISO time. */
  approvedAt: string;
  who: string;
  reason?: string;
}

/** The hold of one endpoint by a running shift (core/api/shifts.ts), as `getShift` read it. */
export interface ShiftSlot {
  /** The stored hold, lapsed or not; undefined when none. */
  lease?: ShiftLease;
  /** What `swapShift` compares against: the slot's revision when read (0: never held, or removed). */
  rev: number;
}

/** A committed change of the operations, as every node sees it (the etcd mirror, or the SQLite store itself). */
export type OperationsChange =
  | { kind: 'override'; op: 'put'; override: OverrideRecord }
  | { kind: 'override'; op: 'delete'; id: string }
  | { kind: 'failback'; approval: FailbackApproval };

export interface OperationsStore {
  /** Every stored override (expired ones too, until someone deletes them). */
  listOverrides(): Promise<OverrideRecord[]>;
  /** Stores `override`, deletes the overrides `replaces` names and appends `audit`, in one transaction. */
  putOverride(override: OverrideRecord, audit: AuditEntry, replaces?: readonly string[]): Promise<void>;
  /**
   * Deletes an override and appends `audit`, in one transaction, only if it still exists: the record it
   * deleted, or undefined when it was gone already (cleared or expired through another node).
   */
  deleteOverride(id: string, audit: AuditEntry): Promise<OverrideRecord | undefined>;
  /** The latest approval per endpoint. */
  listFailbacks(): Promise<FailbackApproval[]>;
  putFailback(approval: FailbackApproval, audit: AuditEntry): Promise<void>;
  appendAudit(entry: AuditEntry): Promise<void>;
  /** The newest `limit` entries, newest first. */
  listAudit(limit: number): Promise<AuditEntry[]>;
  /** Stores (or replaces, by id) a drill report. */
  putDrill(report: DrillReport): Promise<void>;
  /** The newest `limit` drill reports, newest first. */
  listDrills(limit: number): Promise<DrillReport[]>;
  /** The hold of `profile/endpoint` by a running shift, with the revision `swapShift` compares. */
  getShift(profile: string, endpoint: string): Promise<ShiftSlot>;
  /**
   * Stores `next` as the hold of `profile/endpoint` (undefined: removes it) and appends `audit`, in one
   * transaction, only if the slot is still at `rev` (what getShift read): true when it committed. So of two
   * shifts that read an endpoint free at the same moment, on one node or two, exactly one takes it.
   */
  swapShift(profile: string, endpoint: string, rev: number, next: ShiftLease | undefined, audit?: AuditEntry): Promise<boolean>;
  /** Every stored hold (lapsed ones too, until replaced or removed). */
  listShifts(): Promise<ShiftLease[]>;
  /** Called after every committed change of overrides or approvals (on every node), in commit order. */
  watchOperations(listener: (change: OperationsChange) => void): () => void;
}

/** Whether a store also keeps the operations (the SQLite and etcd stores do). */
export function hasOperations<T extends object>(store: T): store is T & { operations: OperationsStore } {
  return typeof (store as { operations?: unknown }).operations === 'object' && (store as { operations?: unknown }).operations !== null;
}
