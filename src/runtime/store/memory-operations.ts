/**
 * The traffic operations in memory (core/store/operations.ts): for a store that keeps none (the memory store of
 * the tests, a store passed in), so a runtime always has them; they then last as long as the process.
 */
import type { AuditEntry, DrillReport, OverrideRecord, ShiftLease } from '../../core/api';
import type { OperationsChange, OperationsStore, FailbackApproval, ShiftSlot } from '../../core/store/operations';
import { MemoryShifts } from './memory-shifts';
import { AUDIT_KEPT, DRILLS_KEPT } from './sqlite-operations';

export class MemoryOperations implements OperationsStore {
  private readonly overrides = new Map<string, OverrideRecord>();
  private readonly failbacks = new Map<string, FailbackApproval>();
  private audit: AuditEntry[] = [];
  private readonly drills = new Map<string, DrillReport>();
  private readonly listeners = new Set<(c: OperationsChange) => void>();
  private readonly shifts = new MemoryShifts();

  private emit(changes: OperationsChange[]): void {
    for (const c of changes)
      for (const l of [...this.listeners]) {
        try {
          l(c);
        } catch {
          /* ignored */
        }
      }
  }

  private log(e: AuditEntry): void {
    this.audit.push(structuredClone(e));
    if (this.audit.length > AUDIT_KEPT) this.audit = this.audit.slice(-AUDIT_KEPT);
  }

  async listOverrides(): Promise<OverrideRecord[]> {
    return [...this.overrides.values()].map((o) => structuredClone(o));
  }

  async putOverride(o: OverrideRecord, audit: AuditEntry, replaces: readonly string[] = []): Promise<void> {
    const gone = replaces.filter((id) => this.overrides.delete(id));
    this.overrides.set(o.id, structuredClone(o));
    this.log(audit);
    this.emit([
      ...gone.map((id): OperationsChange => ({ kind: 'override', op: 'delete', id })),
      { kind: 'override', op: 'put', override: structuredClone(o) },
    ]);
  }

  async deleteOverride(id: string, audit: AuditEntry): Promise<OverrideRecord | undefined> {
    const o = this.overrides.get(id);
    if (!o) return undefined;
    this.overrides.delete(id);
    this.log(audit);
    this.emit([{ kind: 'override', op: 'delete', id }]);
    return o;
  }

  async listFailbacks(): Promise<FailbackApproval[]> {
    return [...this.failbacks.values()].map((a) => ({ ...a }));
  }

  async putFailback(a: FailbackApproval, audit: AuditEntry): Promise<void> {
    this.failbacks.set(`${a.profile}/${a.endpoint}`, { ...a });
    this.log(audit);
    this.emit([{ kind: 'failback', approval: { ...a } }]);
  }

  async appendAudit(e: AuditEntry): Promise<void> {
    this.log(e);
  }

  async listAudit(limit: number): Promise<AuditEntry[]> {
    return this.audit
      .slice(-limit)
      .reverse()
      .map((e) => structuredClone(e));
  }

  async putDrill(d: DrillReport): Promise<void> {
    this.drills.set(d.id, structuredClone(d));
    if (this.drills.size > DRILLS_KEPT) this.drills.delete(this.drills.keys().next().value!);
  }

  async listDrills(limit: number): Promise<DrillReport[]> {
    return [...this.drills.values()]
      .sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0))
      .slice(0, limit)
      .map((d) => structuredClone(d));
  }

  async getShift(profile: string, endpoint: string): Promise<ShiftSlot> {
    return this.shifts.get(profile, endpoint);
  }

  async swapShift(profile: string, endpoint: string, rev: number, next: ShiftLease | undefined, audit?: AuditEntry): Promise<boolean> {
    return this.shifts.swap(profile, endpoint, rev, next, audit ? () => this.log(audit) : undefined);
  }

  async listShifts(): Promise<ShiftLease[]> {
    return this.shifts.list();
  }

  watchOperations(listener: (c: OperationsChange) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
