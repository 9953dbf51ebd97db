/**
 * The overrides as an input of the health ledger (docs/operations.md): the traffic operations the store keeps
 * (core/store/operations.ts), followed through its watch — on every node of a cluster alike — and turned into
 * what routing reads (core/operations/overrides.ts endpointOverrides()). Each node enforces an override's expiry
 * with its own clock: at `expiresAt` the override stops counting here whether or not the store has deleted
 * it yet; then this node tries to delete the record (a compare-and-delete, so of several nodes one writes
 * the `override.expire` audit entry, dated `expiresAt`), and retries while the store is unreachable. An
 * expiry already due when it is seen (at start-up: it expired while the server was down; a timer that fired
 * late) is processed at once. The `expired` event comes when the record is gone from the store, on every
 * node once: an expiry is processed exactly once however restarts and reschedules fall.
 *
 * Failback approvals (`tmkit endpoint failback`) arrive the same way and are handed to the ledger, which
 * gives them to the prober's state machines (failback.ts).
 */
import type { Logger } from 'pino';
import type { AuditEntry, OverrideEvent, OverrideRecord } from '../../core/api';
import type { EndpointOverride } from '../../core/health/types';
import { endpointOverrides, isActive, overrideKey } from '../../core/operations/overrides';
import type { OperationsChange, OperationsStore, FailbackApproval } from '../../core/store/operations';
import type { RuntimeClock } from '../clock';

/** How long to wait before trying again to delete an expired record the store refused. */
const RETRY_MS = 5_000;
/** An `override.expire` entry written this long after the expiry also says when it was written (`recordedAt`). */
const LATE_MS = 1_000;

export interface OperationsFeedOptions {
  operations: OperationsStore;
  clock: RuntimeClock;
  logger: Logger;
}

type Listener<T> = (e: T) => void;

export class OperationsFeed {
  private readonly records = new Map<string, OverrideRecord>();
  /** What routing reads now, by `profile/endpoint`: replaced (never mutated) on every change. */
  private current: ReadonlyMap<string, EndpointOverride> = new Map();
  private approvals = new Map<string, FailbackApproval>();
  private readonly changeListeners = new Set<Listener<string[]>>();
  private readonly eventListeners = new Set<Listener<OverrideEvent>>();
  private readonly failbackListeners = new Set<Listener<FailbackApproval>>();
  /** Ids whose expiry this node is processing: they no longer count, and their records are being deleted. */
  private readonly deleting = new Set<string>();
  /** Ids of a deleted profile's overrides: they no longer count, and their records are being deleted. */
  private readonly forgotten = new Set<string>();
  private timer: unknown;
  private timerAt: number | undefined;
  private retryTimer: unknown;
  private readonly unwatch: () => void;
  private closed = false;
  /** open() has returned the feed: an expiry found due is processed at once (before: on a timer of 0 ms). */
  private opened = false;

  private constructor(private readonly deps: OperationsFeedOptions) {
    this.unwatch = deps.operations.watchOperations((c) => this.onStore(c));
  }

  /** Reads the overrides and approvals the store holds, then follows its changes. */
  static async open(o: OperationsFeedOptions): Promise<OperationsFeed> {
    const feed = new OperationsFeed(o);
    const [overrides, approvals] = await Promise.all([o.operations.listOverrides(), o.operations.listFailbacks()]);
    for (const r of overrides) if (!feed.records.has(r.id)) feed.records.set(r.id, r);
    for (const a of approvals) if (!feed.approvals.has(`${a.profile}/${a.endpoint}`)) feed.approvals.set(`${a.profile}/${a.endpoint}`, a);
    // What expired while the server was down is processed on the first turn of the timers: after the
    // caller has put its listeners on the feed it gets.
    feed.recompute();
    feed.opened = true;
    return feed;
  }

  /** What routing reads, by `profile/endpoint` (a new map after every change: compare by identity). */
  view(): ReadonlyMap<string, EndpointOverride> {
    return this.current;
  }

  /** The overrides in force now, oldest first. */
  active(): OverrideRecord[] {
    const now = this.deps.clock.now();
    return [...this.records.values()]
      .filter((r) => isActive(r, now) && !this.forgotten.has(r.id))
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
  }

  /** The latest failback approval of every endpoint that has one. */
  failbacks(): FailbackApproval[] {
    return [...this.approvals.values()];
  }

  /** `profile/endpoint` keys whose overrides may have changed. */
  onChange(l: Listener<string[]>): () => void {
    this.changeListeners.add(l);
    return () => this.changeListeners.delete(l);
  }
  /** Overrides made, cleared and expired (live events, metrics, logs). */
  onEvent(l: Listener<OverrideEvent>): () => void {
    this.eventListeners.add(l);
    return () => this.eventListeners.delete(l);
  }
  /** A failback approval was stored (by any node). */
  onFailback(l: Listener<FailbackApproval>): () => void {
    this.failbackListeners.add(l);
    return () => this.failbackListeners.delete(l);
  }

  private emit<T>(set: Set<Listener<T>>, e: T, what: string): void {
    for (const l of set) {
      try {
        l(e);
      } catch (err) {
        this.deps.logger.error({ err }, `${what} listener failed`);
      }
    }
  }

  private onStore(c: OperationsChange): void {
    if (this.closed) return;
    if (c.kind === 'failback') {
      this.approvals.set(`${c.approval.profile}/${c.approval.endpoint}`, c.approval);
      this.emit(this.failbackListeners, c.approval, 'failback');
      return;
    }
    if (c.op === 'put') {
      this.records.set(c.override.id, c.override);
      if (isActive(c.override, this.deps.clock.now()))
        this.emit(this.eventListeners, { action: 'created', override: c.override }, 'override event');
      this.recompute();
    } else this.settle(c.id);
  }

  /**
   * A record is gone from the store (its delete reached this node's watch, or this node's delete found it
   * gone): it leaves the records, once. One that had expired by then ends as `expired` (whichever node's
   * compare-and-delete won), one still in force as `cleared`, or as `cleared` with `profile deleted` when its profile went.
   */
  private settle(id: string): void {
    const gone = this.records.get(id);
    if (gone === undefined) return;
    this.records.delete(id);
    this.deleting.delete(id);
    const forgotten = this.forgotten.delete(id);
    const action = forgotten || isActive(gone, this.deps.clock.now()) ? 'cleared' : 'expired';
    this.emit(this.eventListeners, { action, override: gone }, 'override event');
    this.recompute();
  }

  /** Recomputes what routing reads, tells the listeners which endpoints changed, and sets the next expiry timer. */
  private recompute(): void {
    const now = this.deps.clock.now();
    const next = endpointOverrides(
      [...this.records.values()].filter((r) => !this.forgotten.has(r.id)),
      now,
    );
    const changed: string[] = [];
    const sig = (o: EndpointOverride | undefined): string => (o === undefined ? '' : JSON.stringify(o));
    for (const k of new Set([...this.current.keys(), ...next.keys()])) if (sig(this.current.get(k)) !== sig(next.get(k))) changed.push(k);
    if (changed.length > 0) {
      this.current = next;
      this.emit(this.changeListeners, changed, 'override change');
    }
    this.schedule(now);
  }

  /**
   * One timer, at the earliest expiry this node has not yet begun to process: a future one (what routing
   * reads changes then) or one already due (a record that expired while the server was down, or arrived
   * expired, or whose timer fired late), which is processed at once. A reschedule replaces the timer only
   * with one that is due no later than every unprocessed expiry, so no expiry is ever left without a timer.
   */
  private schedule(now: number): void {
    if (this.closed) return;
    let at: number | undefined;
    for (const r of this.records.values()) {
      if (this.deleting.has(r.id) || this.forgotten.has(r.id)) continue;
      const t = Date.parse(r.expiresAt);
      if (at === undefined || t < at) at = t;
    }
    // Due already, with the listeners in place: now, not after another timer (which may be late again).
    if (at !== undefined && at <= now && this.opened) {
      this.expire();
      return;
    }
    if (at === this.timerAt && (at === undefined || this.timer !== undefined)) return;
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = at;
    if (at === undefined) return;
    this.timer = this.deps.clock.setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = undefined;
        this.expire();
      },
      Math.max(0, at - now),
    );
  }

  /** The expiry timer: what expired stops counting now, here; then its record is deleted from the store. */
  private expire(): void {
    if (this.closed) return;
    const now = this.deps.clock.now();
    const due = [...this.records.values()].filter((r) => !isActive(r, now) && !this.deleting.has(r.id) && !this.forgotten.has(r.id));
    for (const r of due) {
      this.deleting.add(r.id);
      this.deps.logger.info(
        { id: r.id, kind: r.kind, profile: r.profile, endpoint: r.endpoint, expiresAt: r.expiresAt },
        'override expired',
      );
    }
    this.recompute();
    if (due.length > 0) void this.remove(due);
  }

  /**
   * A deleted profile's overrides go with it (as its pushed health does): they stop counting at once, so a
   * profile created again under the name starts without them, and their records are deleted from the store
   * with an `override.clear` audit entry (who `tmkit`, reason `profile NAME deleted`); the event is `cleared`.
   */
  forgetProfile(name: string): void {
    if (this.closed) return;
    const lower = name.toLowerCase();
    const mine = [...this.records.values()].filter((r) => r.profile.toLowerCase() === lower && !this.forgotten.has(r.id));
    if (mine.length === 0) return;
    for (const r of mine) this.forgotten.add(r.id);
    this.recompute();
    void this.remove(mine);
  }

  /** The audit entry of a record's deletion by this node: its expiry (at `expiresAt`, the real moment) or its profile's deletion. */
  private auditOf(r: OverrideRecord): AuditEntry {
    const now = this.deps.clock.now();
    const details = { id: r.id, kind: r.kind, ...(r.weight !== undefined ? { weight: r.weight } : {}), expiresAt: r.expiresAt };
    if (this.forgotten.has(r.id))
      return {
        at: new Date(now).toISOString(),
        who: 'tmkit',
        action: 'override.clear',
        target: overrideKey(r),
        reason: `profile ${r.profile} deleted`,
        details: { ...details, profileDeleted: true },
      };
    const expiry = Date.parse(r.expiresAt);
    return {
      at: r.expiresAt,
      who: 'tmkit',
      action: 'override.expire',
      target: overrideKey(r),
      reason: r.reason,
      // Written later than it happened (the server was down, or the store unreachable): when it was written.
      details: { ...details, ...(now - expiry >= LATE_MS ? { recordedAt: new Date(now).toISOString() } : {}) },
    };
  }

  /**
   * Deletes records from the store (a compare-and-delete: of several nodes one writes the audit entry; the
   * others find them gone). Each settles here once, whoever deleted it; one the store refused is tried again
   * after RETRY_MS (it no longer counts meanwhile).
   */
  private async remove(records: readonly OverrideRecord[]): Promise<void> {
    let failed = false;
    for (const r of records) {
      if (this.closed) return;
      if (!this.records.has(r.id)) continue;
      try {
        await this.deps.operations.deleteOverride(r.id, this.auditOf(r));
        if (this.closed) return;
        this.settle(r.id);
      } catch (err) {
        failed = true;
        this.deps.logger.warn(
          { err: (err as Error).message, id: r.id },
          'could not delete an override from the store (it no longer counts); retrying',
        );
      }
    }
    if (failed && !this.closed && this.retryTimer === undefined) {
      this.retryTimer = this.deps.clock.setTimeout(() => {
        this.retryTimer = undefined;
        void this.remove([...this.records.values()].filter((r) => this.deleting.has(r.id) || this.forgotten.has(r.id)));
      }, RETRY_MS);
    }
  }

  close(): void {
    this.closed = true;
    this.unwatch();
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    if (this.retryTimer !== undefined) this.deps.clock.clearTimeout(this.retryTimer);
    this.changeListeners.clear();
    this.eventListeners.clear();
    this.failbackListeners.clear();
  }
}
