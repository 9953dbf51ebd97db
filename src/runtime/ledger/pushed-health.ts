/**
 * Health pushed from outside, an input of the health ledger (ledger.ts): an external system (a deploy
 * pipeline, an APM alert) marks an endpoint Online or Degraded for a while; until that ends, the endpoint's
 * effective verdict is the worse of what probing says and what was pushed (docs/health.md). Because the
 * ledger applies it to the verdicts it hands out, DNS, status, plans and the cluster see it alike.
 *
 *   PUT …/health ──push()──▶ PushedHealthStore (SQLite table, or etcd keys under a lease) ──watch──┐
 *                    │                                                           (other nodes)     │
 *                    └──▶ records (this node) ◀─────────────────────────────────────────────────────┘
 *                              │ expiry timer (the runtime's clock): a record ends at expiresAt on every node
 *                              ▼
 *                       onChange(key, before, after) ──▶ the ledger: transition event, DNS rebuild
 */
import type { Logger } from 'pino';
import type { PushedHealthReport } from '../../core/api';
import { splitTargetKey } from '../../core/health/targets';
import type { ProbeVerdict } from '../../core/health/types';
import type { PushedHealthRecord, PushedHealthStore, PushedStatus } from '../../core/store';
import type { RuntimeClock } from '../clock';
import type { EndpointTransition } from '../monitor';

/** Longest a push lasts (a day): pushed health is for incidents and deploys, not configuration. */
export const MAX_PUSH_TTL_SECONDS = 86_400;
/** Longest reason kept. */
export const MAX_PUSH_REASON = 500;

/** Worse is higher. AwaitingFailback (failback mode Manual) is out of DNS until approved: a push never changes it. */
const RANK: Record<ProbeVerdict, number> = { Online: 0, CheckingEndpoint: 1, Degraded: 2, AwaitingFailback: 3 };

/*
 * The effective verdict of a probed endpoint (docs/health.md), pushed health not expired:
 *
 * | probing says      | pushed Online     | pushed Degraded | nothing pushed |
 * |-------------------|-------------------|-----------------|----------------|
 * | Online            | Online            | Degraded        | Online         |
 * | CheckingEndpoint  | CheckingEndpoint  | Degraded        | CheckingEndpoint |
 * | Degraded          | Degraded          | Degraded        | Degraded       |
 * | AwaitingFailback  | AwaitingFailback  | AwaitingFailback | AwaitingFailback |
 * | (not probed)      | (not probed)      | (not probed)    | (not probed)   |
 *
 * The worse of the two (Online < CheckingEndpoint < Degraded): a push can take an endpoint out, never vouch
 * for one probing finds down. Endpoints that are not probed (disabled, Always Serve, nested, stopped) keep
 * the status their configuration gives them.
 */
export function worseOf(probe: ProbeVerdict | undefined, pushed: PushedStatus | undefined): ProbeVerdict | undefined {
  if (probe === undefined || pushed === undefined) return probe;
  return RANK[pushed] > RANK[probe] ? pushed : probe;
}

/** What the API's health routes ask of the runtime (api/pushed-health.ts); the ledger's PushedHealth is it. */
export interface PushedHealthApi {
  /** Marks `profile/endpoint` (stored names) for `ttlSeconds`; resolves once it is stored and applied. */
  push(key: string, status: PushedStatus, ttlSeconds: number, reason: string): Promise<PushedHealthReport>;
  /** Ends an endpoint's pushed health now; false when it had none. */
  clear(key: string): Promise<boolean>;
  /** The endpoint's pushed health that has not expired. */
  report(key: string): PushedHealthReport | undefined;
}

export interface PushedHealthOptions {
  store: PushedHealthStore;
  clock: RuntimeClock;
  logger: Logger;
}

type ChangeListener = (key: string, before: PushedHealthRecord | undefined, after: PushedHealthRecord | undefined) => void;

const iso = (ms: number): string => new Date(ms).toISOString();

export class PushedHealth implements PushedHealthApi {
  private readonly records = new Map<string, PushedHealthRecord>();
  private readonly listeners = new Set<ChangeListener>();
  private readonly unwatch: (() => void) | undefined;
  private timer: unknown;
  private timerAt = Infinity;
  private closed = false;

  private constructor(
    private readonly deps: PushedHealthOptions,
    stored: PushedHealthRecord[],
  ) {
    const now = deps.clock.now();
    for (const r of stored) {
      if (r.expiresAt > now) this.records.set(r.key, r);
      else void deps.store.delete(r.key).catch(() => undefined); // ended while the server was down
    }
    this.unwatch = deps.store.watch?.((key, record) => this.set(key, record));
    this.schedule();
  }

  /** Reads what the store holds (records that ended meanwhile are dropped). */
  static async open(o: PushedHealthOptions): Promise<PushedHealth> {
    return new PushedHealth(o, await o.store.load());
  }

  /** Told when an endpoint's pushed health changes (pushed, cleared, expired, or from another node). */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The record in force for `key` (not expired by the runtime's clock). */
  get(key: string): PushedHealthRecord | undefined {
    const r = this.records.get(key);
    return r !== undefined && r.expiresAt > this.deps.clock.now() ? r : undefined;
  }

  /** `verdict` with the pushed health of `key` applied (worseOf). */
  apply(key: string, verdict: ProbeVerdict | undefined): ProbeVerdict | undefined {
    if (this.records.size === 0) return verdict;
    return worseOf(verdict, this.get(key)?.status);
  }

  /** The same over a map of verdicts, in place. */
  applyAll(verdicts: Map<string, ProbeVerdict>): Map<string, ProbeVerdict> {
    for (const key of this.records.keys()) {
      const v = verdicts.get(key);
      const w = this.apply(key, v);
      if (w !== undefined && w !== v) verdicts.set(key, w);
    }
    return verdicts;
  }

  async push(key: string, status: PushedStatus, ttlSeconds: number, reason: string): Promise<PushedHealthReport> {
    const at = this.deps.clock.now();
    const record: PushedHealthRecord = { key, status, reason: reason.slice(0, MAX_PUSH_REASON), at, expiresAt: at + ttlSeconds * 1000 };
    await this.deps.store.put(record);
    this.set(key, record);
    return toReport(record);
  }

  async clear(key: string): Promise<boolean> {
    const had = this.get(key) !== undefined;
    if (!this.records.has(key)) return false;
    await this.deps.store.delete(key);
    this.set(key, undefined);
    return had;
  }

  report(key: string): PushedHealthReport | undefined {
    const r = this.get(key);
    return r === undefined ? undefined : toReport(r);
  }

  /** A deleted profile's pushed health goes with it (a profile created again starts fresh). */
  forgetProfile(name: string): void {
    for (const key of [...this.records.keys()]) {
      if (splitTargetKey(key)[0] !== name) continue;
      this.set(key, undefined);
      void this.deps.store
        .delete(key)
        .catch((err) => this.deps.logger.warn({ err, key }, 'could not delete the pushed health of a deleted profile'));
    }
  }

  /** Takes a record in (or out); tells the listeners when what is in force changed. */
  private set(key: string, record: PushedHealthRecord | undefined): void {
    if (this.closed) return;
    if (record !== undefined && record.expiresAt <= this.deps.clock.now()) return; // a late echo of one that ended already
    const before = this.get(key);
    const current = this.records.get(key);
    if (record !== undefined && current !== undefined && sameRecord(record, current)) return; // our own write's echo
    if (record === undefined) this.records.delete(key);
    else this.records.set(key, record);
    const after = this.get(key);
    this.schedule();
    if (before === undefined && after === undefined) return;
    if (before !== undefined && after !== undefined && sameRecord(before, after)) return;
    this.notify(key, before, after);
  }

  private notify(key: string, before: PushedHealthRecord | undefined, after: PushedHealthRecord | undefined): void {
    for (const l of this.listeners) {
      try {
        l(key, before, after);
      } catch (err) {
        this.deps.logger.error({ err }, 'pushed health listener failed');
      }
    }
  }

  /** One timer, at the earliest expiry: every record ends on time, whatever the store does with it. */
  private schedule(): void {
    if (this.closed) return;
    let next = Infinity;
    for (const r of this.records.values()) next = Math.min(next, r.expiresAt);
    if (next === this.timerAt) return;
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = next;
    if (next === Infinity) return;
    this.timer = this.deps.clock.setTimeout(() => this.expire(), Math.max(0, next - this.deps.clock.now()));
  }

  private expire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.deps.clock.now();
    for (const [key, r] of [...this.records]) {
      if (r.expiresAt > now) continue;
      this.records.delete(key);
      this.deps.logger.info({ key, status: r.status, reason: r.reason }, 'pushed health expired');
      void this.deps.store.delete(key).catch(() => undefined);
      this.notify(key, r, undefined);
    }
    this.schedule();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.unwatch?.();
    this.listeners.clear();
  }
}

const sameRecord = (a: PushedHealthRecord, b: PushedHealthRecord): boolean =>
  a.status === b.status && a.reason === b.reason && a.at === b.at && a.expiresAt === b.expiresAt;

function toReport(r: PushedHealthRecord): PushedHealthReport {
  const [profile, endpoint] = splitTargetKey(r.key);
  return { profile, endpoint, status: r.status, reason: r.reason, at: iso(r.at), expiresAt: iso(r.expiresAt) };
}

/** Pushed health kept in this process only (a store without a place for it; tests). */
export function memoryPushedHealthStore(): PushedHealthStore {
  const rows = new Map<string, PushedHealthRecord>();
  return {
    load: async () => [...rows.values()],
    put: async (r) => {
      rows.set(r.key, { ...r });
    },
    delete: async (key) => {
      rows.delete(key);
    },
  };
}

/** A status change that pushed health caused (what the ledger tells its transition listeners). */
export type PushedTransition = EndpointTransition & { source: 'pushed' };

/**
 * The transition of `key`'s effective verdict when its pushed health goes from `before` to `after`, probing
 * saying `probe` all along; undefined when the effective verdict did not move (or the endpoint is not probed).
 */
export function pushedTransition(
  key: string,
  probe: ProbeVerdict | undefined,
  before: PushedHealthRecord | undefined,
  after: PushedHealthRecord | undefined,
  at: number,
  location: string,
): PushedTransition | undefined {
  const from = worseOf(probe, before?.status);
  const to = worseOf(probe, after?.status);
  if (from === undefined || to === undefined || from === to) return undefined;
  const [profile, endpoint] = splitTargetKey(key);
  const reason =
    after !== undefined
      ? `pushed ${after.status}${after.reason !== '' ? `: ${after.reason}` : ''} (until ${iso(after.expiresAt)})`
      : before !== undefined && before.expiresAt <= at
        ? `pushed ${before.status} expired`
        : `pushed ${before?.status ?? 'health'} cleared`;
  return { key, profile, endpoint, location, at, from, to, reason, consecutiveFailures: 0, source: 'pushed' };
}
