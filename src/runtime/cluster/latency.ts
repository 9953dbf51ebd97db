/**
 * Measured latency shared across the cluster (docs/routing.md "Measured latency"): each node writes its own
 * location's probe round trips as one key, `latency/<location>`, under its lease, and reads the other live
 * locations' from the session's mirror, so every node can map a client to its nearest probing location and
 * rank by what that location measured.
 *
 * Writes are few: at most one every `minWriteMs` (default 5 s), and only when a measurement moved by more
 * than `deadbandMs` (default 2 ms) from the written one, a sample count below `SAMPLES_CAP` changed (so
 * `minSamples`, at most 100, is judged on the same counts everywhere), or an endpoint came or went. A node's
 * key goes with its lease (a dead node's measurements expire with its verdicts); a new lease rewrites it.
 */
import type { Logger } from 'pino';
import type { MeasuredRtt } from '../../core/health/latency';
import type { RuntimeClock } from '../clock';
import { keyOfLatency, type LocationLatency } from '../etcd/keys';
import type { EtcdSession } from '../etcd/session';
import type { NodeLease } from './lease';

/** Sample counts above this are written as this (the largest `minSamples`): more never changes a ranking. */
export const SAMPLES_CAP = 100;

export interface ClusterLatencyOptions {
  session: EtcdSession;
  lease: NodeLease;
  node: string;
  location: string;
  clock: RuntimeClock;
  logger?: Logger;
  minWriteMs?: number;
  deadbandMs?: number;
}

export class ClusterLatency {
  private written = new Map<string, MeasuredRtt>();
  private pending: Map<string, MeasuredRtt> | undefined;
  private timer: unknown;
  private lastWrite = Number.NEGATIVE_INFINITY;
  private stopped = false;
  private readonly unsubscribe: Array<() => void> = [];
  /** Writes of this location's key since start. */
  readonly stats = { writes: 0, failed: 0 };

  constructor(private readonly deps: ClusterLatencyOptions) {
    this.unsubscribe.push(
      deps.lease.onGranted(() => {
        // A new lease: the old key went with the old one. Write everything again.
        const all = this.pending ?? this.written;
        this.written = new Map();
        this.pending = new Map(all);
        this.schedule();
      }),
    );
  }

  /** The other live locations' measurements: location → `profile/endpoint` → EWMA. */
  others(): Map<string, ReadonlyMap<string, MeasuredRtt>> {
    const live = new Set<string>();
    for (const n of this.deps.session.nodes.values()) live.add(n.location);
    const out = new Map<string, ReadonlyMap<string, MeasuredRtt>>();
    for (const [location, v] of this.deps.session.latency) {
      if (location === this.deps.location || !live.has(location)) continue;
      out.set(location, new Map(Object.entries(v.rtt)));
    }
    return out;
  }

  /** Another location's measurements, or which locations are live, changed. */
  onChange(listener: () => void): () => void {
    const a = this.deps.session.onLatency(listener);
    const b = this.deps.session.onCluster(listener);
    return () => {
      a();
      b();
    };
  }

  /** This location's measurements now (`profile/endpoint` → EWMA): written when they moved enough. */
  publish(own: ReadonlyMap<string, MeasuredRtt>): void {
    if (this.stopped) return;
    const base = this.written;
    const deadband = this.deps.deadbandMs ?? 2;
    let moved = own.size !== base.size;
    const next = new Map<string, MeasuredRtt>();
    for (const [key, m] of own) {
      const capped = { ms: m.ms, samples: Math.min(m.samples, SAMPLES_CAP) };
      const was = base.get(key);
      if (was === undefined || was.samples !== capped.samples || Math.abs(was.ms - capped.ms) > deadband) {
        moved = true;
        next.set(key, capped);
      } else next.set(key, was);
    }
    if (!moved) return;
    this.pending = next;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    for (const u of this.unsubscribe) u();
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.stopped || this.timer !== undefined) return;
    const wait = Math.max(0, this.lastWrite + (this.deps.minWriteMs ?? 5_000) - this.deps.clock.now());
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, wait);
  }

  private async write(): Promise<void> {
    const next = this.pending;
    const lease = this.deps.lease.id;
    const s = this.deps.session;
    if (next === undefined || this.stopped) return;
    if (lease === undefined || !s.isConnected()) {
      // Not joined yet, or etcd is away: try again a write interval later.
      this.lastWrite = this.deps.clock.now();
      this.schedule();
      return;
    }
    this.pending = undefined;
    this.lastWrite = this.deps.clock.now();
    const value: LocationLatency = { node: this.deps.node, at: this.lastWrite, rtt: Object.fromEntries(next) };
    try {
      await s.call((c) =>
        c.kv.txn({
          success: [{ request_put: { key: s.key(keyOfLatency(this.deps.location)), value: Buffer.from(JSON.stringify(value)), lease } }],
        }),
      );
      this.written = next;
      this.stats.writes++;
    } catch (err) {
      this.stats.failed++;
      this.pending ??= next;
      this.deps.logger?.warn({ err: (err as Error).message }, 'could not write measured latency to etcd; retrying');
      this.schedule();
    }
  }
}
