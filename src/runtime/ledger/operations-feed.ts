/**
 * The overrides as an input of the health ledger (docs/operations.md): the traffic operations the store keeps
 * (core/store/operations.ts), followed through its watch — on every node of a cluster alike — and turned into
 * what routing reads (core/operations/overrides.ts endpointOverrides()). Each node enforces an override's expiry
 * with its own clock: at `expiresAt` the override stops counting here whether or not the store has deleted
 * it yet; then this node tries to delete the record (a compare-and-delete, so of several nodes one writes
 * the `override.expire` audit entry), and retries while the store is unreachable.
 *
 * Failback approvals (`tmkit endpoint failback`) arrive the same way and are handed to the ledger, which
 * gives them to the prober's state machines (failback.ts).
 */
import type { Logger } from 'pino';
import type { AuditEntry, OverrideEvent, OverrideRecord } from '../../core/api';
import type { EndpointOverride } from '../../core/health/types';
import { endpointOverrides, isActive, nextExpiry, overrideKey } from '../../core/operations/overrides';
import type { OperationsChange, OperationsStore, FailbackApproval } from '../../core/store/operations';
import { isoNow, type RuntimeClock } from '../clock';

/** How long to wait before trying again to delete an expired record the store refused. */
const RETRY_MS = 5_000;

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
  /** Ids this node saw expire (their deletion is a clean-up, not a `cleared` event). */
  private readonly expired = new Set<string>();
  private timer: unknown;
  private timerAt: number | undefined;
  private retryTimer: unknown;
  private readonly unwatch: () => void;
  private closed = false;

  private constructor(private readonly deps: OperationsFeedOptions) {
    this.unwatch = deps.operations.watchOperations((c) => this.onStore(c));
  }

  /** Reads the overrides and approvals the store holds, then follows its changes. */
  static async open(o: OperationsFeedOptions): Promise<OperationsFeed> {
    const feed = new OperationsFeed(o);
    const [overrides, approvals] = await Promise.all([o.operations.listOverrides(), o.operations.listFailbacks()]);
    for (const r of overrides) if (!feed.records.has(r.id)) feed.records.set(r.id, r);
    for (const a of approvals) if (!feed.approvals.has(`${a.profile}/${a.endpoint}`)) feed.approvals.set(`${a.profile}/${a.endpoint}`, a);
    feed.recompute();
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
      .filter((r) => isActive(r, now))
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
    } else {
      const gone = this.records.get(c.id);
      this.records.delete(c.id);
      const sawExpire = this.expired.delete(c.id);
      if (gone && !sawExpire && isActive(gone, this.deps.clock.now()))
        this.emit(this.eventListeners, { action: 'cleared', override: gone }, 'override event');
    }
    this.recompute();
  }

  /** Recomputes what routing reads, tells the listeners which endpoints changed, and sets the next expiry timer. */
  private recompute(): void {
    const now = this.deps.clock.now();
    const next = endpointOverrides(this.records.values(), now);
    const changed: string[] = [];
    const sig = (o: EndpointOverride | undefined): string => (o === undefined ? '' : JSON.stringify(o));
    for (const k of new Set([...this.current.keys(), ...next.keys()])) if (sig(this.current.get(k)) !== sig(next.get(k))) changed.push(k);
    if (changed.length > 0) {
      this.current = next;
      this.emit(this.changeListeners, changed, 'override change');
    }
    this.schedule(now);
  }

  private schedule(now: number): void {
    const at = nextExpiry(this.records.values(), now);
    if (at === this.timerAt || this.closed) return;
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

  /** The expiry timer: what expired stops counting now, here; the records are deleted from the store. */
  private expire(): void {
    if (this.closed) return;
    const now = this.deps.clock.now();
    for (const r of this.records.values()) {
      if (isActive(r, now) || this.expired.has(r.id)) continue;
      this.expired.add(r.id);
      this.deps.logger.info(
        { id: r.id, kind: r.kind, profile: r.profile, endpoint: r.endpoint, expiresAt: r.expiresAt },
        'override expired',
      );
      this.emit(this.eventListeners, { action: 'expired', override: r }, 'override event');
    }
    this.recompute();
    void this.deleteExpired();
  }

  /** Deletes the expired records from the store (one node's transaction wins; the others find them gone). */
  private async deleteExpired(): Promise<void> {
    const now = this.deps.clock.now();
    let failed = false;
    for (const r of [...this.records.values()]) {
      if (isActive(r, now)) continue;
      const audit: AuditEntry = {
        at: isoNow(this.deps.clock),
        who: 'tmkit',
        action: 'override.expire',
        target: overrideKey(r),
        reason: r.reason,
        details: { id: r.id, kind: r.kind, ...(r.weight !== undefined ? { weight: r.weight } : {}), expiresAt: r.expiresAt },
      };
      try {
        await this.deps.operations.deleteOverride(r.id, audit);
        this.records.delete(r.id);
      } catch (err) {
        failed = true;
        this.deps.logger.warn(
          { err: (err as Error).message, id: r.id },
          'could not delete an expired override from the store (it no longer counts); retrying',
        );
      }
    }
    if (failed && !this.closed && this.retryTimer === undefined) {
      this.retryTimer = this.deps.clock.setTimeout(() => {
        this.retryTimer = undefined;
        void this.deleteExpired();
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
