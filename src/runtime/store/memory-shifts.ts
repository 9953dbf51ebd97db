/**
 * Shift holds (core/store/operations.ts `getShift`/`swapShift`) in this process's memory: the memory store's,
 * and the SQLite store's, whose database one process owns (the state dir's lock), so its memory is as shared
 * as the file. Not written to disk on purpose: a hold lasts seconds unless renewed, and a running shift whose
 * server restarted takes its hold again when it next renews (or is told it lost it, if another shift has).
 */
import type { ShiftLease } from '../../core/api';
import type { ShiftSlot } from '../../core/store/operations';

export class MemoryShifts {
  private readonly slots = new Map<string, { lease: ShiftLease; rev: number }>();
  private rev = 0;

  get(profile: string, endpoint: string): ShiftSlot {
    const s = this.slots.get(`${profile}/${endpoint}`);
    return s ? { lease: structuredClone(s.lease), rev: s.rev } : { rev: 0 };
  }

  /** Swaps the slot if it is still at `rev`; `commit` runs with the swap (the audit entry), in the same turn. */
  swap(profile: string, endpoint: string, rev: number, next: ShiftLease | undefined, commit?: () => void): boolean {
    const key = `${profile}/${endpoint}`;
    if ((this.slots.get(key)?.rev ?? 0) !== rev) return false;
    commit?.();
    if (next) this.slots.set(key, { lease: structuredClone(next), rev: ++this.rev });
    else this.slots.delete(key);
    return true;
  }

  list(): ShiftLease[] {
    return [...this.slots.values()].map((s) => structuredClone(s.lease));
  }
}
