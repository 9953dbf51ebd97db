/**
 * The traffic operations on etcd (core/store/operations.ts), under `ops/` (etcd/keys.ts): overrides and failback
 * approvals are read from the node's mirror (every node applies them from its watch), the audit log and the
 * drill reports by range. Writes are plain transactions that never touch `config/rev`: a control is not
 * configuration. A write returns once this node's mirror has applied it, so the writer reads its own write.
 * Deleting an override is a compare-and-delete: when several nodes see it expire at once, exactly one
 * transaction deletes it, and only that one writes the audit entry.
 */
import { randomBytes } from 'node:crypto';
import type { AuditEntry, DrillReport, OverrideRecord, ShiftLease } from '../../core/api';
import type { OperationsChange, OperationsStore, FailbackApproval, ShiftSlot } from '../../core/store/operations';
import {
  AUDIT_PREFIX,
  DRILLS_PREFIX,
  SHIFTS_PREFIX,
  keyOfAudit,
  keyOfDrill,
  keyOfFailback,
  keyOfOverride,
  keyOfShift,
  prefixEnd,
} from '../etcd/keys';
import type { EtcdSession } from '../etcd/session';

type Op = { request_put: { key: Buffer; value: Buffer } } | { request_delete_range: { key: Buffer } };

export class EtcdOperations implements OperationsStore {
  constructor(private readonly s: EtcdSession) {}

  private put(key: string, value: unknown): Op {
    return { request_put: { key: this.s.key(key), value: Buffer.from(JSON.stringify(value)) } };
  }

  private auditOp(e: AuditEntry): Op {
    return this.put(keyOfAudit(Date.parse(e.at), randomBytes(6).toString('hex')), e);
  }

  /** Commits `ops` (only if `id`'s override still exists, when given); waits for the mirror. True when it committed. */
  private async txn(ops: Op[], ifExists?: string): Promise<boolean> {
    if (!this.s.isConnected()) throw this.s.unavailable();
    const res = await this.s.call((c) =>
      c.kv.txn({
        compare:
          ifExists === undefined ? [] : [{ key: this.s.key(keyOfOverride(ifExists)), target: 'Version', result: 'Greater', version: '0' }],
        success: ops,
        failure: [],
      }),
    );
    if (res.succeeded) await this.s.waitForRevision(Number(res.header.revision));
    return res.succeeded;
  }

  async listOverrides(): Promise<OverrideRecord[]> {
    return [...this.s.overrides.values()].map((o) => structuredClone(o));
  }

  async putOverride(o: OverrideRecord, audit: AuditEntry, replaces: readonly string[] = []): Promise<void> {
    await this.txn([
      ...replaces.map((id): Op => ({ request_delete_range: { key: this.s.key(keyOfOverride(id)) } })),
      this.put(keyOfOverride(o.id), o),
      this.auditOp(audit),
    ]);
  }

  async deleteOverride(id: string, audit: AuditEntry): Promise<OverrideRecord | undefined> {
    const held = this.s.overrides.get(id);
    const done = await this.txn([{ request_delete_range: { key: this.s.key(keyOfOverride(id)) } }, this.auditOp(audit)], id);
    return done ? (held ? structuredClone(held) : ({ id } as OverrideRecord)) : undefined;
  }

  async listFailbacks(): Promise<FailbackApproval[]> {
    return [...this.s.failbacks.values()].map((a) => ({ ...a }));
  }

  async putFailback(a: FailbackApproval, audit: AuditEntry): Promise<void> {
    await this.txn([this.put(keyOfFailback(a.profile, a.endpoint), a), this.auditOp(audit)]);
  }

  async appendAudit(e: AuditEntry): Promise<void> {
    await this.txn([this.auditOp(e)]);
  }

  private async range<T>(prefix: string, limit: number): Promise<T[]> {
    const key = this.s.key(prefix);
    const res = await this.s.call((c) =>
      c.kv.range({ key, range_end: prefixEnd(key), sort_order: 'Descend', sort_target: 'Key', limit: String(limit) }),
    );
    return res.kvs.map((kv) => JSON.parse(kv.value.toString('utf8')) as T);
  }

  async listAudit(limit: number): Promise<AuditEntry[]> {
    return this.range<AuditEntry>(AUDIT_PREFIX, limit);
  }

  async putDrill(d: DrillReport): Promise<void> {
    await this.txn([this.put(keyOfDrill(d.id), d)]);
  }

  async listDrills(limit: number): Promise<DrillReport[]> {
    const all = await this.range<DrillReport>(DRILLS_PREFIX, 10_000);
    return all.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0)).slice(0, limit);
  }

  async getShift(profile: string, endpoint: string): Promise<ShiftSlot> {
    if (!this.s.isConnected()) throw this.s.unavailable();
    const res = await this.s.call((c) => c.kv.range({ key: this.s.key(keyOfShift(profile, endpoint)) }));
    const kv = res.kvs[0];
    return kv ? { lease: JSON.parse(kv.value.toString('utf8')) as ShiftLease, rev: Number(kv.mod_revision) } : { rev: 0 };
  }

  async swapShift(profile: string, endpoint: string, rev: number, next: ShiftLease | undefined, audit?: AuditEntry): Promise<boolean> {
    if (!this.s.isConnected()) throw this.s.unavailable();
    const key = this.s.key(keyOfShift(profile, endpoint));
    const ops: Op[] = [next ? { request_put: { key, value: Buffer.from(JSON.stringify(next)) } } : { request_delete_range: { key } }];
    if (audit) ops.push(this.auditOp(audit));
    // A key that does not exist has mod_revision 0: the compare of a free slot.
    const res = await this.s.call((c) =>
      c.kv.txn({ compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: String(rev) }], success: ops, failure: [] }),
    );
    return res.succeeded;
  }

  async listShifts(): Promise<ShiftLease[]> {
    return this.range<ShiftLease>(SHIFTS_PREFIX, 10_000);
  }

  watchOperations(listener: (c: OperationsChange) => void): () => void {
    return this.s.onOperations(listener);
  }
}
